/* The webhook receiver from C, sans-IO (a2a_receiver / a2a_delivery): credentials in both
 * token header spellings and as Authorization, expected tasks only, v1.0 and v0.3 bodies,
 * redeliveries recognized (also when spelled differently), retry_later handing an event over
 * again, the window, and every refusal with its A2A error and HTTP answer. test_webhook.cpp
 * runs the same receiver behind a real HTTP server against the ready server's deliveries. */
#include "common.h"

#define STATUS(task, state) "{\"statusUpdate\":{\"taskId\":\"" task "\",\"contextId\":\"c1\",\"status\":{\"state\":\"" state "\"}}}"

static a2a_delivery *deliver(a2a_receiver *r, const char *method, const a2a_header *h, size_t nh, const char *body) {
  a2a_delivery *d = NULL;
  CHECK_OK(a2a_receiver_handle(r, method, strlen(method), h, nh, (const uint8_t *)body, strlen(body), &d));
  return d;
}

static a2a_header hdr(const char *name, const char *value) {
  a2a_header h = {name, strlen(name), value, strlen(value)};
  return h;
}

/* Checks a delivery's kind and status, then frees it. */
static void expect(a2a_delivery *d, uint32_t kind, uint16_t status, const char *what) {
  CHECK(a2a_delivery_get_kind(d) == kind, "%s: kind %u, want %u", what, a2a_delivery_get_kind(d), kind);
  CHECK(a2a_delivery_status(d) == status, "%s: status %u, want %u", what, a2a_delivery_status(d), status);
  a2a_delivery_free(d);
}

int main(void) {
  a2a_receiver *r = NULL;
  CHECK_RESULT(a2a_receiver_new(NULL, 0, NULL, 0, &r), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_RESULT(a2a_receiver_new(S(""), NULL, 0, &r), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_RESULT(a2a_receiver_new(S("tok"), NULL, 0, NULL), A2A_RESULT_NULL_PARAMETER);
  CHECK_OK(a2a_receiver_new(S("tok"), NULL, 0, &r));
  if (!r) return 1;
  CHECK(!a2a_receiver_expects(r, S("t1")), "no task is expected at first");
  CHECK_OK(a2a_receiver_expect_task(r, S("t1")));
  CHECK(a2a_receiver_expects(r, S("t1")) && !a2a_receiver_expects(r, S("t2")), "t1 only");

  a2a_header tok[] = {hdr("Content-Type", "application/a2a+json"), hdr("A2A-Notification-Token", "tok")};
  a2a_header x_tok[] = {hdr("content-type", "application/a2a+json"), hdr("x-a2a-notification-token", "tok")};

  /* A new event is handed over, with its task and the event itself; 204, no body. */
  a2a_delivery *d = deliver(r, "POST", tok, 2, STATUS("t1", "TASK_STATE_WORKING"));
  CHECK(a2a_delivery_get_kind(d) == A2A_DELIVERY_KIND_EVENT, "a new event");
  CHECK(str_eq(a2a_delivery_task_id(d), "t1"), "its task");
  const a2a_event *ev = a2a_delivery_event(d);
  CHECK(ev && a2a_event_get_kind(ev) == A2A_EVENT_KIND_STATUS_UPDATE && a2a_event_state(ev) == A2A_TASK_STATE_WORKING, "the status event");
  CHECK(a2a_delivery_error(d) == NULL && a2a_delivery_status(d) == 204 && a2a_delivery_body(d).len == 0, "204, no body");
  a2a_delivery_free(d);

  /* The same event again, even with members in another order and the other header spelling:
   * answered 204, not handed over. */
  d = deliver(r, "POST", x_tok, 2, "{\"statusUpdate\":{\"status\":{\"state\":\"TASK_STATE_WORKING\"},\"contextId\":\"c1\",\"taskId\":\"t1\"}}");
  CHECK(a2a_delivery_event(d) == NULL, "a duplicate has no event to hand over");
  expect(d, A2A_DELIVERY_KIND_DUPLICATE, 204, "redelivery");

  /* Refusals: the A2A error says why, the answer is ready to send. */
  a2a_header wrong[] = {hdr("A2A-Notification-Token", "tox")};
  d = deliver(r, "POST", wrong, 1, STATUS("t1", "TASK_STATE_COMPLETED"));
  const a2a_error *e = a2a_delivery_error(d);
  CHECK(e && a2a_error_get_kind(e) == A2A_ERROR_KIND_UNAUTHENTICATED && a2a_error_http_status(e) == 401, "a wrong token");
  CHECK(str_contains(a2a_delivery_body(d), "UNAUTHENTICATED"), "the body names the error");
  int json = 0;
  for (size_t i = 0; i < a2a_delivery_header_count(d); i++) {
    a2a_str k, v;
    CHECK_OK(a2a_delivery_header(d, i, &k, &v));
    json |= str_eq(k, "Content-Type") && str_eq(v, "application/json");
  }
  CHECK(json, "the error body is JSON");
  a2a_str k, v;
  CHECK_RESULT(a2a_delivery_header(d, 99, &k, &v), A2A_RESULT_NONE);
  expect(d, A2A_DELIVERY_KIND_REFUSED, 401, "wrong token");
  expect(deliver(r, "POST", tok + 0, 1, STATUS("t1", "TASK_STATE_COMPLETED")), A2A_DELIVERY_KIND_REFUSED, 401, "no token");
  d = deliver(r, "POST", tok, 2, STATUS("t2", "TASK_STATE_COMPLETED"));
  CHECK(a2a_delivery_error(d) && a2a_error_get_kind(a2a_delivery_error(d)) == A2A_ERROR_KIND_TASK_NOT_FOUND, "a task not expected");
  expect(d, A2A_DELIVERY_KIND_REFUSED, 404, "unexpected task");
  expect(deliver(r, "POST", tok, 2, "{\"nonsense\":1}"), A2A_DELIVERY_KIND_REFUSED, 400, "no event");
  expect(deliver(r, "POST", tok, 2, "not json"), A2A_DELIVERY_KIND_REFUSED, 400, "not JSON");
  d = deliver(r, "GET", tok, 2, "");
  CHECK(a2a_delivery_get_kind(d) == A2A_DELIVERY_KIND_REFUSED && a2a_delivery_status(d) >= 400, "GET is refused");
  a2a_delivery_free(d);

  /* The application cannot take an event: 503 with Retry-After, and the redelivery is handed
   * over again (once). */
  d = deliver(r, "POST", tok, 2, STATUS("t1", "TASK_STATE_INPUT_REQUIRED"));
  CHECK(a2a_delivery_get_kind(d) == A2A_DELIVERY_KIND_EVENT, "a new event");
  CHECK_OK(a2a_receiver_retry_later(r, d));
  CHECK(a2a_delivery_status(d) == 503, "retry later: 503, got %u", a2a_delivery_status(d));
  int retry_after = 0;
  for (size_t i = 0; a2a_delivery_header(d, i, &k, &v) == A2A_RESULT_OK; i++) retry_after |= str_eq(k, "Retry-After");
  CHECK(retry_after, "Retry-After is sent");
  a2a_delivery_free(d);
  expect(deliver(r, "POST", tok, 2, STATUS("t1", "TASK_STATE_INPUT_REQUIRED")), A2A_DELIVERY_KIND_EVENT, 204, "handed over again");
  expect(deliver(r, "POST", tok, 2, STATUS("t1", "TASK_STATE_INPUT_REQUIRED")), A2A_DELIVERY_KIND_DUPLICATE, 204, "then once only");
  /* retry_later leaves a duplicate and a refusal as they are. */
  d = deliver(r, "POST", tok, 2, STATUS("t1", "TASK_STATE_INPUT_REQUIRED"));
  CHECK_OK(a2a_receiver_retry_later(r, d));
  expect(d, A2A_DELIVERY_KIND_DUPLICATE, 204, "retry_later on a duplicate");
  d = deliver(r, "POST", wrong, 1, STATUS("t1", "TASK_STATE_INPUT_REQUIRED"));
  CHECK_OK(a2a_receiver_retry_later(r, d));
  expect(d, A2A_DELIVERY_KIND_REFUSED, 401, "retry_later on a refusal");

  /* A v0.3 body (a config made over v0.3): translated to v1.0. */
  a2a_header v03[] = {hdr("Content-Type", "application/json"), hdr("X-A2A-Notification-Token", "tok")};
  d = deliver(r, "POST", v03, 2,
              "{\"kind\":\"status-update\",\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"completed\"},\"final\":true}");
  ev = a2a_delivery_event(d);
  CHECK(ev && a2a_event_state(ev) == A2A_TASK_STATE_COMPLETED, "the v0.3 event, in v1.0 terms");
  expect(d, A2A_DELIVERY_KIND_EVENT, 204, "v0.3 body");

  /* A window of one remembers only the last event of a task (t1 saw several before). */
  CHECK_OK(a2a_receiver_set_window(r, 1));
  expect(deliver(r, "POST", tok, 2, STATUS("t1", "TASK_STATE_COMPLETED")), A2A_DELIVERY_KIND_DUPLICATE, 204, "window: the last one");
  expect(deliver(r, "POST", tok, 2, STATUS("t1", "TASK_STATE_WORKING")), A2A_DELIVERY_KIND_EVENT, 204, "window: an older one");
  expect(deliver(r, "POST", tok, 2, STATUS("t1", "TASK_STATE_CANCELED")), A2A_DELIVERY_KIND_EVENT, 204, "window: b");
  expect(deliver(r, "POST", tok, 2, STATUS("t1", "TASK_STATE_WORKING")), A2A_DELIVERY_KIND_EVENT, 204, "window: a again");

  /* A forgotten task is not expected any more. */
  CHECK_OK(a2a_receiver_forget_task(r, S("t1")));
  expect(deliver(r, "POST", tok, 2, STATUS("t1", "TASK_STATE_FAILED")), A2A_DELIVERY_KIND_REFUSED, 404, "forgotten");
  a2a_receiver_free(r);

  /* A receiver of an Authorization value (the push config's authentication), and one of both. */
  CHECK_OK(a2a_receiver_new(NULL, 0, S("Bearer abc"), &r));
  CHECK_OK(a2a_receiver_expect_task(r, S("t1")));
  a2a_header bearer[] = {hdr("Authorization", "Bearer abc")}, other[] = {hdr("Authorization", "Bearer abd")};
  expect(deliver(r, "POST", bearer, 1, STATUS("t1", "TASK_STATE_WORKING")), A2A_DELIVERY_KIND_EVENT, 204, "authorization");
  expect(deliver(r, "POST", other, 1, STATUS("t1", "TASK_STATE_WORKING")), A2A_DELIVERY_KIND_REFUSED, 401, "other authorization");
  a2a_receiver_free(r);
  CHECK_OK(a2a_receiver_new(S("tok"), S("Bearer abc"), &r));
  CHECK_OK(a2a_receiver_expect_task(r, S("t1")));
  a2a_header both[] = {hdr("Authorization", "Bearer abc"), hdr("A2A-Notification-Token", "tok")};
  expect(deliver(r, "POST", bearer, 1, STATUS("t1", "TASK_STATE_WORKING")), A2A_DELIVERY_KIND_REFUSED, 401, "one of two");
  expect(deliver(r, "POST", both, 2, STATUS("t1", "TASK_STATE_WORKING")), A2A_DELIVERY_KIND_EVENT, 204, "both");

  /* NULL handles. */
  CHECK(a2a_delivery_get_kind(NULL) == 0 && a2a_delivery_status(NULL) == 0 && a2a_delivery_event(NULL) == NULL, "NULL delivery");
  CHECK(!a2a_receiver_expects(NULL, S("t1")), "NULL receiver");
  CHECK_RESULT(a2a_receiver_handle(NULL, S("POST"), NULL, 0, NULL, 0, &d), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_receiver_handle(r, S("POST"), NULL, 1, NULL, 0, &d), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_receiver_retry_later(r, NULL), A2A_RESULT_NULL_PARAMETER);
  a2a_receiver_free(r);
  a2a_receiver_free(NULL);
  a2a_delivery_free(NULL);
  printf("receiver: %d checks, %d failures\n", test_checks, test_failures);
  return test_failures ? 1 : 0;
}
