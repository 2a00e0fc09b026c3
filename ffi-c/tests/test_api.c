/* The C API's sans-IO level and its error paths, with no sockets:
 * - the client core and the service as two peers in memory, on every binding and version
 *   (unary calls, streams, errors, authentication, webhooks and their retry timer);
 * - version negotiation and interface selection;
 * - every A2A error kind read back with its codes;
 * - NULL for each pointer, invalid UTF-8, truncated and oversize buffers;
 * - calls out of order (the misuse cases of the sans-IO level).
 */
#define _GNU_SOURCE
#include "common.h"

static const int64_t T0 = 1800000000000; /* the virtual clock, Unix ms */
static int64_t now_ms = 1800000000000;

static const char card_json[] =
  "{\"name\":\"two peers\",\"description\":\"in memory\",\"version\":\"1\",\"defaultInputModes\":[\"text/plain\"],"
  "\"defaultOutputModes\":[\"text/plain\"],\"skills\":[],\"capabilities\":{\"streaming\":true,\"pushNotifications\":true},"
  "\"supportedInterfaces\":["
  "{\"url\":\"http://peer.test/rpc\",\"protocolBinding\":\"JSONRPC\",\"protocolVersion\":\"1.0\"},"
  "{\"url\":\"http://peer.test/rest\",\"protocolBinding\":\"HTTP+JSON\",\"protocolVersion\":\"1.0\"},"
  "{\"url\":\"peer.test:443\",\"protocolBinding\":\"GRPC\",\"protocolVersion\":\"1.0\"},"
  "{\"url\":\"http://peer.test/v03/rpc\",\"protocolBinding\":\"JSONRPC\",\"protocolVersion\":\"0.3\"},"
  "{\"url\":\"http://peer.test/v03/rest\",\"protocolBinding\":\"HTTP+JSON\",\"protocolVersion\":\"0.3\"},"
  "{\"url\":\"peer.test:444\",\"protocolBinding\":\"GRPC\",\"protocolVersion\":\"0.3\"}]}";

/* --- the agent, driven through the service's inputs --------------------------------- */
typedef struct {
  uint64_t run;
  char text[64];
  int follow_up;
  char principal[64];
} pending_run;
static pending_run runs[16];
static int nruns;
static int webhooks_seen;
static uint64_t last_delivery;
/* With a service made with an external store: the store drain() answers STORE outputs with
 * (synchronously; a real host does it on a thread of its own), and how many it answered. */
static a2a_store *drain_store;
static int stores_answered;

static void play_runs(a2a_service *svc) {
  for (int i = 0; i < nruns; i++) {
    pending_run *r = &runs[i];
    if (strcmp(r->text, "message-only") == 0) {
      CHECK_OK(a2a_service_agent_message(svc, r->run, U("{\"messageId\":\"a1\",\"role\":\"ROLE_AGENT\",\"parts\":[{\"text\":\"message-only\"}]}"), now_ms));
    } else if (strcmp(r->text, "need-input") == 0 && !r->follow_up) {
      CHECK_OK(a2a_service_agent_status_text(svc, r->run, A2A_TASK_STATE_INPUT_REQUIRED, S("What should I echo?"), now_ms));
    } else if (strcmp(r->text, "text-helpers") == 0) {
      CHECK_OK(a2a_service_agent_status_text(svc, r->run, A2A_TASK_STATE_WORKING, NULL, 0, now_ms));
      CHECK_OK(a2a_service_agent_artifact_text(svc, r->run, S("t"), S("via "), false, false, now_ms));
      CHECK_OK(a2a_service_agent_artifact_text(svc, r->run, S("t"), S("text"), true, true, now_ms));
      CHECK_RESULT(a2a_service_agent_artifact_text(svc, r->run, S(""), S("x"), false, true, now_ms), A2A_RESULT_INVALID_ARGUMENT);
      CHECK_OK(a2a_service_agent_message_text(svc, r->run, S("a message in the conversation"), now_ms));
      CHECK_OK(a2a_service_agent_status(svc, r->run, A2A_TASK_STATE_COMPLETED, U("{\"messageId\":\"done\",\"role\":\"ROLE_AGENT\",\"parts\":[{\"text\":\"ok\"}]}"), now_ms));
    } else if (strcmp(r->text, "stream") == 0) {
      CHECK_OK(a2a_service_agent_status(svc, r->run, A2A_TASK_STATE_WORKING, NULL, 0, now_ms));
      CHECK_OK(a2a_service_agent_artifact(svc, r->run, U("{\"artifactId\":\"s\",\"parts\":[{\"text\":\"one \"}]}"), false, false, now_ms));
      CHECK_OK(a2a_service_agent_artifact(svc, r->run, U("{\"artifactId\":\"s\",\"parts\":[{\"text\":\"two\"}]}"), true, true, now_ms));
      CHECK_OK(a2a_service_agent_status(svc, r->run, A2A_TASK_STATE_COMPLETED, NULL, 0, now_ms));
    } else if (strcmp(r->text, "fail") == 0) {
      CHECK_OK(a2a_service_run_end(svc, r->run, S("the agent broke"), now_ms));
      continue;
    } else {
      char art[256];
      int n = snprintf(art, sizeof art, "{\"artifactId\":\"echo\",\"parts\":[{\"text\":\"%s%s\"}]}", r->text, r->principal);
      CHECK_OK(a2a_service_agent_artifact(svc, r->run, (const uint8_t *)art, (size_t)n, false, true, now_ms));
      CHECK_OK(a2a_service_agent_status(svc, r->run, A2A_TASK_STATE_COMPLETED, NULL, 0, now_ms));
    }
    CHECK_OK(a2a_service_run_end(svc, r->run, NULL, 0, now_ms));
    /* A second end of the same run changes nothing (and does not crash). */
    CHECK_OK(a2a_service_run_end(svc, r->run, NULL, 0, now_ms));
    /* Events after the end are refused with an A2A error. */
    CHECK_RESULT(a2a_service_agent_status(svc, r->run, A2A_TASK_STATE_WORKING, NULL, 0, now_ms), A2A_RESULT_A2A_ERROR);
  }
  nruns = 0;
}

/* What the "network" carries back to the client: one answer or stream for one call. */
typedef struct {
  uint16_t status;
  a2a_header headers[32], trailers[8];
  size_t nh, nt;
  char store[16384]; /* header/trailer strings */
  size_t used;
  uint8_t body[65536];
  size_t body_len;
  int done;
} wire_answer;

static const char *keep(wire_answer *w, a2a_str s) {
  if (w->used + s.len + 1 > sizeof w->store) return "";
  char *p = w->store + w->used;
  memcpy(p, s.data, s.len), p[s.len] = 0, w->used += s.len + 1;
  return p;
}

static void copy_fields(wire_answer *w, const a2a_output *o, int trailers) {
  size_t n = trailers ? a2a_output_trailer_count(o) : a2a_output_header_count(o);
  for (size_t i = 0; i < n; i++) {
    a2a_str k, v;
    CHECK_OK(trailers ? a2a_output_trailer(o, i, &k, &v) : a2a_output_header(o, i, &k, &v));
    a2a_header *h = trailers ? &w->trailers[w->nt++] : &w->headers[w->nh++];
    h->name = keep(w, k), h->name_len = k.len, h->value = keep(w, v), h->value_len = v.len;
    if (w->nh == 32 || w->nt == 8) break;
  }
}

static void add_body(wire_answer *w, a2a_str b) {
  if (w->body_len + b.len <= sizeof w->body) memcpy(w->body + w->body_len, b.data, b.len), w->body_len += b.len;
}

/* Drains the service: answers for `call` into `w`, runs into `runs`, webhooks counted. */
static void drain(a2a_service *svc, uint64_t call, wire_answer *w, int auth_mode) {
  a2a_output *o;
  while (a2a_service_poll_output(svc, &o) == A2A_RESULT_OK) {
    uint32_t kind = a2a_output_get_kind(o);
    if (kind == A2A_OUTPUT_KIND_START_RUN) {
      const a2a_run *run = a2a_output_run(o);
      CHECK(run != NULL && a2a_run_id(run) == a2a_output_run_id(o), "START_RUN without its run");
      pending_run *r = &runs[nruns++];
      memset(r, 0, sizeof *r);
      r->run = a2a_run_id(run);
      a2a_str t = a2a_run_text(run), p;
      snprintf(r->text, sizeof r->text, "%.*s", (int)t.len, t.data);
      r->follow_up = a2a_run_is_follow_up(run);
      if (a2a_run_principal(run, &p) == A2A_RESULT_OK) snprintf(r->principal, sizeof r->principal, " as %.*s", (int)p.len, p.data);
      a2a_str mj = a2a_run_message_json(run);
      CHECK(str_contains(mj, "ROLE_USER"), "the run's message JSON: %.*s", (int)mj.len, mj.data);
      CHECK(str_eq(a2a_output_task_id(o), "") == 0, "START_RUN without a task id");
    } else if (kind == A2A_OUTPUT_KIND_AUTHENTICATE) {
      a2a_str k, v;
      int has_auth = 0;
      for (size_t i = 0; a2a_output_header(o, i, &k, &v) == A2A_RESULT_OK; i++)
        if (k.len == 13 && strncasecmp(k.data, "authorization", 13) == 0) has_auth = str_eq(v, "Bearer alice");
      CHECK(a2a_output_method(o) >= 1 && a2a_output_method(o) <= 11, "AUTHENTICATE names its operation");
      if (auth_mode == 1 && has_auth) CHECK_OK(a2a_service_handle_authenticated(svc, a2a_output_call(o), S("alice"), 0, NULL, 0, now_ms));
      else CHECK_OK(a2a_service_handle_authenticated(svc, a2a_output_call(o), NULL, 0, A2A_ERROR_KIND_UNAUTHENTICATED, S("who are you?"), now_ms));
    } else if (kind == A2A_OUTPUT_KIND_STORE) {
      CHECK(drain_store != NULL, "a STORE output from a service without an external store");
      a2a_store_reply *reply = NULL;
      if (drain_store && a2a_store_answer(drain_store, o, &reply) == A2A_RESULT_OK) {
        stores_answered++;
        /* Answered once only: the request has left the output. */
        a2a_store_reply *again = NULL;
        CHECK_RESULT(a2a_store_answer(drain_store, o, &again), A2A_RESULT_INVALID_ARGUMENT);
        CHECK(again == NULL, "no reply for a second answer");
        CHECK_OK(a2a_service_handle_store(svc, reply, now_ms));
      }
    } else if (kind == A2A_OUTPUT_KIND_SEND_WEBHOOK) {
      webhooks_seen++;
      last_delivery = a2a_output_delivery_id(o);
      CHECK(str_eq(a2a_output_url(o), "https://hooks.example/a2a"), "webhook URL");
      CHECK(str_contains(a2a_output_body(o), "TASK_STATE_COMPLETED") || str_contains(a2a_output_body(o), "statusUpdate") ||
            str_contains(a2a_output_body(o), "task"), "webhook body");
    } else if (a2a_output_call(o) == call && w) {
      if (kind == A2A_OUTPUT_KIND_ANSWER || kind == A2A_OUTPUT_KIND_STREAM_HEAD) {
        w->status = a2a_output_status(o);
        copy_fields(w, o, 0);
      }
      if (kind != A2A_OUTPUT_KIND_STREAM_HEAD) add_body(w, a2a_output_body(o));
      if (kind == A2A_OUTPUT_KIND_ANSWER || kind == A2A_OUTPUT_KIND_STREAM_END) copy_fields(w, o, 1), w->done = 1;
    }
    a2a_output_free(o);
  }
}

/* One operation through the client core and the service: returns the last step's kind and
 * copies its JSON (answer, or the last event) into `json`; `events` counts stream events. */
typedef struct {
  uint32_t kind;
  char json[16384];
  int events;
  a2a_error_kind error;
  a2a_result error_result;
} outcome;

static outcome call(a2a_client_core *c, a2a_service *svc, uint32_t method, const char *params, int auth_mode) {
  outcome out;
  memset(&out, 0, sizeof out);
  a2a_exchange *x = NULL;
  a2a_result r = a2a_client_core_start(c, method, (const uint8_t *)params, params ? strlen(params) : 0, &x);
  if (r != A2A_RESULT_OK) {
    out.error_result = r;
    out.error = a2a_error_get_kind(a2a_error_last());
    return out;
  }
  for (int guard = 0; guard < 100; guard++) {
    a2a_step *s = NULL;
    CHECK_OK(a2a_exchange_poll(x, now_ms, &s));
    if (!s) break;
    uint32_t k = a2a_step_get_kind(s);
    if (k == A2A_STEP_KIND_SEND) {
      a2a_str url = a2a_step_url(s), m = a2a_step_method(s), body = a2a_step_body(s);
      const char *target = memchr(url.data + 8, '/', url.len - 8); /* after "http://host" */
      size_t tlen = target ? (size_t)(url.data + url.len - target) : 1;
      if (!target) target = "/";
      a2a_header hs[32];
      size_t nh = 0;
      for (size_t i = 0; nh < 32 && a2a_step_header(s, i, (a2a_str *)&hs[nh].name, (a2a_str *)&hs[nh].value) == A2A_RESULT_OK; i++) nh++;
      /* a2a_str and the name/value pairs of a2a_header have the same layout (data, len). */
      static wire_answer w;
      memset(&w, 0, sizeof w);
      uint64_t id = 0;
      CHECK_OK(a2a_service_handle_request(svc, m.data, m.len, target, tlen, hs, nh, (const uint8_t *)body.data, body.len, now_ms, &id));
      for (int round = 0; round < 4 && !w.done; round++) {
        drain(svc, id, &w, auth_mode);
        play_runs(svc);
      }
      drain(svc, id, &w, auth_mode);
      CHECK(w.done, "the service did not finish call %llu", (unsigned long long)id);
      CHECK_OK(a2a_exchange_handle_head(x, w.status, w.headers, w.nh));
      /* Feed the body in two pieces, as a network would. */
      size_t half = w.body_len / 2;
      CHECK_OK(a2a_exchange_handle_body(x, w.body, half));
      CHECK_OK(a2a_exchange_handle_body(x, w.body + half, w.body_len - half));
      CHECK_OK(a2a_exchange_handle_end(x, w.trailers, w.nt));
    } else if (k == A2A_STEP_KIND_EVENT) {
      out.events++;
      const a2a_event *ev = a2a_step_event(s);
      CHECK(ev && a2a_event_get_kind(ev) >= A2A_EVENT_KIND_TASK && a2a_event_get_kind(ev) <= A2A_EVENT_KIND_ARTIFACT_UPDATE, "a typed event");
      CHECK(a2a_step_reply(s) == NULL && a2a_step_task(s) == NULL, "an event step has no answer");
      a2a_str j = a2a_step_json(s);
      snprintf(out.json, sizeof out.json, "%.*s", (int)j.len, j.data);
    } else if (k != A2A_STEP_KIND_READ) {
      out.kind = k;
      if (k == A2A_STEP_KIND_ANSWER && method == A2A_METHOD_SEND_MESSAGE) {
        const a2a_reply *rep = a2a_step_reply(s);
        CHECK(rep && (a2a_reply_task(rep) != NULL) != (a2a_reply_message(rep) != NULL), "a typed reply: a task or a message");
      }
      if (k == A2A_STEP_KIND_ANSWER && method == A2A_METHOD_GET_TASK) CHECK(a2a_task_id(a2a_step_task(s)).len > 0, "a typed task");
      a2a_str j = a2a_step_json(s);
      snprintf(out.json, sizeof out.json, "%.*s", (int)j.len, j.data);
      if (k == A2A_STEP_KIND_FAILED) {
        out.error = a2a_error_get_kind(a2a_step_error(s));
        out.error_result = a2a_error_result(a2a_step_error(s));
      }
      a2a_step_free(s);
      break;
    }
    a2a_step_free(s);
  }
  /* After the end, polling is a misuse the exchange reports. */
  a2a_step *again = NULL;
  CHECK_RESULT(a2a_exchange_poll(x, now_ms, &again), A2A_RESULT_WRONG_STATE);
  CHECK(again == NULL, "a step written on failure");
  CHECK_RESULT(a2a_exchange_handle_body(x, U("late")), A2A_RESULT_WRONG_STATE);
  a2a_exchange_free(x);
  return out;
}

static const char *field(const char *json, const char *key, char *buf, size_t n) {
  /* The string value of the first "key":"..." in json (enough for ids and states). */
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":\"", key);
  const char *p = strstr(json, pat);
  if (!p) return buf[0] = 0, buf;
  p += strlen(pat);
  size_t i = 0;
  while (p[i] && p[i] != '"' && i + 1 < n) buf[i] = p[i], i++;
  buf[i] = 0;
  return buf;
}

/* `store`: NULL for the service's own memory, else the external store that answers. */
static void two_peers(const char *binding, const char *version, a2a_store *store) {
  a2a_service *svc = NULL;
  a2a_client_core *c = NULL;
  if (store) {
    a2a_service_config *config = NULL;
    CHECK_OK(a2a_service_config_new(U(card_json), &config));
    CHECK_OK(a2a_service_config_set_external_store(config, 0)); /* no cache: every task from the store */
    CHECK_OK(a2a_service_new_with(config, T0, &svc));
    a2a_service_config_free(config);
  } else {
    CHECK_OK(a2a_service_new(U(card_json), NULL, 0, 0, T0, &svc));
  }
  drain_store = store;
  int answered_before = stores_answered;
  CHECK_OK(a2a_client_core_new(U(card_json), binding, strlen(binding), version, strlen(version), &c));
  if (!svc || !c) goto out;
  const a2a_interface *i = a2a_client_core_interface(c);
  CHECK(str_eq(a2a_interface_binding(i), binding) && str_eq(a2a_interface_version(i), version), "%s %s: interface chosen", binding, version);
  char id[128], state[64];
  outcome o = call(c, svc, A2A_METHOD_SEND_MESSAGE, "{\"message\":{\"messageId\":\"m1\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hello\"}]}}", 0);
  CHECK(o.kind == A2A_STEP_KIND_ANSWER && strstr(o.json, "\"text\":\"hello\"") && strstr(o.json, "TASK_STATE_COMPLETED"),
        "%s %s: send: %u %s", binding, version, o.kind, o.json);
  field(o.json, "id", id, sizeof id);
  char params[512];
  snprintf(params, sizeof params, "{\"id\":\"%s\"}", id);
  o = call(c, svc, A2A_METHOD_GET_TASK, params, 0);
  CHECK(o.kind == A2A_STEP_KIND_ANSWER && strcmp(field(o.json, "state", state, sizeof state), "TASK_STATE_COMPLETED") == 0,
        "%s %s: get: %s", binding, version, o.json);
  o = call(c, svc, A2A_METHOD_CANCEL_TASK, params, 0);
  CHECK(o.kind == A2A_STEP_KIND_FAILED && o.error == A2A_ERROR_KIND_TASK_NOT_CANCELABLE, "%s %s: cancel a completed task: %u", binding, version, o.error);
  o = call(c, svc, A2A_METHOD_GET_TASK, "{\"id\":\"no-such-task\"}", 0);
  CHECK(o.kind == A2A_STEP_KIND_FAILED && o.error == A2A_ERROR_KIND_TASK_NOT_FOUND, "%s %s: get unknown: %u", binding, version, o.error);
  o = call(c, svc, A2A_METHOD_SEND_STREAMING_MESSAGE, "{\"message\":{\"messageId\":\"m2\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"stream\"}]}}", 0);
  CHECK(o.kind == A2A_STEP_KIND_STREAM_ENDED && o.events >= 4, "%s %s: stream: %u after %d events", binding, version, o.kind, o.events);
  o = call(c, svc, A2A_METHOD_SEND_MESSAGE, "{\"message\":{\"messageId\":\"m3\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"message-only\"}]}}", 0);
  CHECK(o.kind == A2A_STEP_KIND_ANSWER && strstr(o.json, "\"message\"") && strstr(o.json, "ROLE_AGENT"), "%s %s: message-only: %s", binding, version, o.json);
  o = call(c, svc, A2A_METHOD_SEND_MESSAGE, "{\"message\":{\"messageId\":\"m4\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"need-input\"}]}}", 0);
  CHECK(strcmp(field(o.json, "state", state, sizeof state), "TASK_STATE_INPUT_REQUIRED") == 0, "%s %s: need-input: %s", binding, version, o.json);
  field(o.json, "id", id, sizeof id);
  char follow[512];
  snprintf(follow, sizeof follow, "{\"message\":{\"messageId\":\"m5\",\"taskId\":\"%s\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"again\"}]}}", id);
  o = call(c, svc, A2A_METHOD_SEND_MESSAGE, follow, 0);
  CHECK(strstr(o.json, "TASK_STATE_COMPLETED") && strstr(o.json, "again"), "%s %s: follow-up: %s", binding, version, o.json);
  o = call(c, svc, A2A_METHOD_SEND_MESSAGE, "{\"message\":{\"messageId\":\"m7\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"text-helpers\"}]}}", 0);
  CHECK(strstr(o.json, "{\"text\":\"via \"},{\"text\":\"text\"}") && strstr(o.json, "a message in the conversation") && strstr(o.json, "TASK_STATE_COMPLETED"),
        "%s %s: the text helpers: %s", binding, version, o.json);
  o = call(c, svc, A2A_METHOD_SEND_MESSAGE, "{\"message\":{\"messageId\":\"m6\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"fail\"}]}}", 0);
  CHECK(strstr(o.json, "TASK_STATE_FAILED") || o.kind == A2A_STEP_KIND_FAILED, "%s %s: a failed run: %s", binding, version, o.json);
  o = call(c, svc, A2A_METHOD_LIST_TASKS, "{}", 0);
  if (strcmp(version, "1.0") == 0) CHECK(o.kind == A2A_STEP_KIND_ANSWER && strstr(o.json, "\"tasks\""), "%s: list: %s", binding, o.json);
  else CHECK(o.error_result == A2A_RESULT_LOCAL, "%s 0.3: ListTasks cannot be expressed: %u", binding, o.error_result);
  /* Invalid params are refused before anything is sent, naming the field. */
  a2a_exchange *x = NULL;
  CHECK_RESULT(a2a_client_core_start(c, A2A_METHOD_SEND_MESSAGE, U("{\"message\":{\"role\":\"ROLE_USER\"}}"), &x), A2A_RESULT_A2A_ERROR);
  CHECK(a2a_error_get_kind(a2a_error_last()) == A2A_ERROR_KIND_INVALID_PARAMS && x == NULL, "invalid params kind");
  CHECK_RESULT(a2a_client_core_start(c, 99, NULL, 0, &x), A2A_RESULT_INVALID_ARGUMENT);
  /* No params: the request's defaults, so the missing REQUIRED field is named. */
  CHECK_RESULT(a2a_client_core_start(c, A2A_METHOD_GET_TASK, NULL, 0, &x), A2A_RESULT_A2A_ERROR);
  CHECK(a2a_error_get_kind(a2a_error_last()) == A2A_ERROR_KIND_INVALID_PARAMS && str_contains(a2a_error_message(a2a_error_last()), "id"),
        "GetTask without params names id: %s", last_message());
  if (store) {
    CHECK(stores_answered > answered_before, "%s %s: the external store answered nothing", binding, version);
    drain(svc, 0, NULL, 0);
    CHECK(a2a_service_is_idle(svc), "%s %s: idle once the store has answered everything", binding, version);
  }
out:
  drain_store = NULL;
  a2a_client_core_free(c);
  a2a_service_free(svc);
}

/* The store calls' misuse cases: wrong outputs, NULLs, a file that cannot be opened. */
static void store_misuse(void) {
  a2a_store *st = NULL, *none = (a2a_store *)1;
  CHECK_OK(a2a_store_new_memory(&st));
  CHECK_RESULT(a2a_store_new_memory(NULL), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_store_open_sqlite(S(""), &none), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_RESULT(a2a_store_open_sqlite(S("/nonexistent-dir/x/tasks.db"), &none), A2A_RESULT_IO);
  CHECK(str_contains(a2a_error_message(a2a_error_last()), "tasks.db"), "the IO error names the file: %s", last_message());
  CHECK(none == (a2a_store *)1, "no output on failure");
  /* A service without an external store: its outputs are not STORE outputs. */
  a2a_service *svc = NULL;
  CHECK_OK(a2a_service_new(U(card_json), NULL, 0, 0, T0, &svc));
  a2a_header hs[] = {{S("A2A-Version"), S("1.0")}};
  uint64_t id = 0;
  CHECK_OK(a2a_service_handle_request(svc, S("GET"), S("/rest/tasks/x"), hs, 1, NULL, 0, now_ms, &id));
  a2a_output *o = NULL;
  CHECK_OK(a2a_service_poll_output(svc, &o));
  CHECK(a2a_output_get_kind(o) == A2A_OUTPUT_KIND_ANSWER, "an answer without any store request");
  a2a_store_reply *reply = NULL;
  CHECK_RESULT(a2a_store_answer(st, o, &reply), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_RESULT(a2a_store_answer(NULL, o, &reply), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_store_answer(st, NULL, &reply), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_store_answer(st, o, NULL), A2A_RESULT_NULL_PARAMETER);
  CHECK(reply == NULL, "no reply on failure");
  CHECK_RESULT(a2a_service_handle_store(svc, NULL, now_ms), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_config_set_external_store(NULL, 0), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_config_set_retention_ms(NULL, 0), A2A_RESULT_NULL_PARAMETER);
  a2a_output_free(o);
  a2a_service_free(svc);
  a2a_store_free(st);
  a2a_store_free(NULL);
  a2a_store_reply_free(NULL);
}

static void authentication_and_webhooks(void) {
  a2a_service *svc = NULL;
  a2a_client_core *c = NULL, *alice = NULL;
  CHECK_OK(a2a_service_new(U(card_json), NULL, 0, A2A_SERVICE_AUTHENTICATE, T0, &svc));
  CHECK_OK(a2a_client_core_new(U(card_json), S("JSONRPC"), S("1.0"), &c));
  CHECK_OK(a2a_client_core_new(U(card_json), S("HTTP+JSON"), S("1.0"), &alice));
  if (!svc || !c || !alice) goto out;
  CHECK_OK(a2a_client_core_add_header(alice, S("Authorization"), S("Bearer alice")));
  outcome o = call(c, svc, A2A_METHOD_GET_TASK, "{\"id\":\"x\"}", 1);
  CHECK(o.kind == A2A_STEP_KIND_FAILED && o.error == A2A_ERROR_KIND_UNAUTHENTICATED, "unauthenticated: %u", o.error);
  o = call(alice, svc, A2A_METHOD_SEND_MESSAGE, "{\"message\":{\"messageId\":\"w1\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hi\"}]}}", 1);
  CHECK(strstr(o.json, "hi as alice") != NULL, "the principal reaches the run: %s", o.json);
  /* A push config, then a task that completes: the webhook goes out, fails, is retried on
   * the service's timer. */
  o = call(alice, svc, A2A_METHOD_SEND_MESSAGE,
           "{\"message\":{\"messageId\":\"w2\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"need-input\"}]}}", 1);
  char id[128], cfg[512];
  field(o.json, "id", id, sizeof id);
  snprintf(cfg, sizeof cfg, "{\"taskId\":\"%s\",\"id\":\"hook\",\"url\":\"https://hooks.example/a2a\"}", id);
  o = call(alice, svc, A2A_METHOD_CREATE_TASK_PUSH_NOTIFICATION_CONFIG, cfg, 1);
  CHECK(o.kind == A2A_STEP_KIND_ANSWER && strstr(o.json, "hooks.example"), "create push config: %s", o.json);
  char follow[512];
  snprintf(follow, sizeof follow, "{\"message\":{\"messageId\":\"w3\",\"taskId\":\"%s\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"done\"}]}}", id);
  webhooks_seen = 0;
  o = call(alice, svc, A2A_METHOD_SEND_MESSAGE, follow, 1);
  drain(svc, 0, NULL, 1);
  CHECK(webhooks_seen >= 1, "a webhook to send after the task changed");
  int64_t deadline = 0;
  CHECK_RESULT(a2a_service_poll_timeout(svc, &deadline), A2A_RESULT_NONE); /* nothing to retry yet */
  CHECK_OK(a2a_service_handle_webhook_result(svc, last_delivery, A2A_WEBHOOK_OUTCOME_STATUS, 503, NULL, 0, now_ms));
  CHECK_OK(a2a_service_poll_timeout(svc, &deadline));
  CHECK(deadline > now_ms, "the retry is scheduled in the future: %lld", (long long)deadline);
  int before = webhooks_seen;
  now_ms = deadline;
  CHECK_OK(a2a_service_handle_timeout(svc, now_ms));
  drain(svc, 0, NULL, 1);
  CHECK(webhooks_seen == before + 1, "the retry comes out at its time (%d, %d)", webhooks_seen, before);
  CHECK_OK(a2a_service_handle_webhook_result(svc, last_delivery, A2A_WEBHOOK_OUTCOME_DELIVERED, 0, NULL, 0, now_ms));
  CHECK_RESULT(a2a_service_handle_webhook_result(svc, last_delivery, 99, 0, NULL, 0, now_ms), A2A_RESULT_INVALID_ARGUMENT);
  drain(svc, 0, NULL, 1);
  /* Shutdown: new requests are refused with Unavailable. */
  CHECK_OK(a2a_service_shutdown(svc));
  drain(svc, 0, NULL, 1);
  o = call(alice, svc, A2A_METHOD_GET_TASK, "{\"id\":\"x\"}", 1);
  CHECK(o.kind == A2A_STEP_KIND_FAILED && o.error == A2A_ERROR_KIND_UNAVAILABLE, "after shutdown: %u", o.error);
out:
  a2a_client_core_free(c);
  a2a_client_core_free(alice);
  a2a_service_free(svc);
}

/* A stream whose subscriber falls behind is cut off with an error event; a caller that
 * went away gets nothing more. */
static void slow_consumer_and_caller_gone(void) {
  a2a_service *svc = NULL;
  CHECK_OK(a2a_service_new(U(card_json), NULL, 0, 0, T0, &svc));
  if (!svc) return;
  static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"SendStreamingMessage\",\"params\":{\"message\":"
                             "{\"messageId\":\"s1\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"x\"}]}}}";
  a2a_header hs[] = {{S("Content-Type"), S("application/json")}, {S("A2A-Version"), S("1.0")}};
  uint64_t call_id = 0, gone_id = 0;
  CHECK_OK(a2a_service_handle_request(svc, S("POST"), S("/rpc"), hs, 2, U(body), now_ms, &call_id));
  wire_answer *w = calloc(1, sizeof *w);
  drain(svc, call_id, w, 0);
  uint64_t run = runs[0].run;
  nruns = 0;
  CHECK_OK(a2a_service_agent_status(svc, run, A2A_TASK_STATE_WORKING, NULL, 0, now_ms));
  drain(svc, call_id, w, 0);
  CHECK(w->status == 200 && !w->done, "the stream is open");
  CHECK_OK(a2a_service_slow_consumer(svc, call_id));
  drain(svc, call_id, w, 0);
  CHECK(w->done && str_contains((a2a_str){(const char *)w->body, w->body_len}, "-31503"), "cut off with Unavailable");
  /* The task goes on; a new stream's caller goes away. */
  CHECK_OK(a2a_service_handle_request(svc, S("POST"), S("/rpc"), hs, 2, U(body), now_ms, &gone_id));
  drain(svc, gone_id, NULL, 0);
  CHECK_OK(a2a_service_caller_gone(svc, gone_id));
  play_runs(svc);
  CHECK_OK(a2a_service_agent_status(svc, run, A2A_TASK_STATE_COMPLETED, NULL, 0, now_ms));
  CHECK_OK(a2a_service_run_end(svc, run, NULL, 0, now_ms));
  drain(svc, 0, NULL, 0);
  CHECK(a2a_service_is_idle(svc), "idle after every call ended");
  free(w);
  a2a_service_free(svc);
}

static void ssrf_guard(void) {
  static const struct { const char *ip; bool non_public; } cases[] = {
    {"127.0.0.1", true}, {"10.1.2.3", true}, {"192.168.0.1", true}, {"169.254.169.254", true}, {"100.64.0.1", true},
    {"::1", true}, {"[::ffff:127.0.0.1]", true}, {"64:ff9b::a00:1", true}, {"2002:7f00:1::", true}, {"fd00::1", true},
    {"8.8.8.8", false}, {"2001:4860:4860::8888", false}, {"93.184.216.34", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bool np = !cases[i].non_public;
    CHECK_OK(a2a_webhook_address_is_non_public(cases[i].ip, strlen(cases[i].ip), &np));
    CHECK(np == cases[i].non_public, "SSRF guard: %s", cases[i].ip);
  }
  bool untouched = true;
  CHECK_RESULT(a2a_webhook_address_is_non_public(S("hooks.example"), &untouched), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_RESULT(a2a_webhook_address_is_non_public(S("1.2.3.4"), NULL), A2A_RESULT_NULL_PARAMETER);
  CHECK(untouched, "no output on failure");
}

static void negotiation_and_selection(void) {
  a2a_str both[] = {{S("1.0")}, {S("0.3")}};
  size_t idx = 99;
  CHECK_OK(a2a_negotiate_version(S("1.0"), both, 2, &idx));
  CHECK(idx == 0, "1.0 chosen");
  CHECK_OK(a2a_negotiate_version(NULL, 0, both, 2, &idx));
  CHECK(idx == 1, "an absent A2A-Version means 0.3");
  idx = 99;
  CHECK_RESULT(a2a_negotiate_version(S("2.0"), both, 1, &idx), A2A_RESULT_A2A_ERROR);
  const a2a_error *e = a2a_error_last();
  CHECK(a2a_error_get_kind(e) == A2A_ERROR_KIND_VERSION_NOT_SUPPORTED && a2a_error_jsonrpc_code(e) == -32009 && idx == 99, "2.0 is refused");
  CHECK_RESULT(a2a_negotiate_version(S("junk"), both, 2, &idx), A2A_RESULT_A2A_ERROR);
  CHECK_RESULT(a2a_negotiate_version(S("1.0"), NULL, 2, &idx), A2A_RESULT_NULL_PARAMETER);
  a2a_interface *i = NULL;
  /* The card's order picks the binding (JSONRPC comes first), the client's order the version. */
  CHECK_OK(a2a_select_interface(U(card_json), S("GRPC,JSONRPC"), S("0.3,1.0"), &i));
  CHECK(i && str_eq(a2a_interface_binding(i), "JSONRPC") && str_eq(a2a_interface_version(i), "0.3") && a2a_interface_index(i) == 3, "card order");
  a2a_interface_free(i);
  CHECK_OK(a2a_select_interface(U(card_json), S("GRPC"), S("0.3,1.0"), &i));
  CHECK(i && str_eq(a2a_interface_binding(i), "GRPC") && str_eq(a2a_interface_version(i), "0.3") && str_eq(a2a_interface_url(i), "peer.test:444") &&
        a2a_interface_index(i) == 5, "preferences decide");
  a2a_interface_free(i);
  i = NULL;
  CHECK_RESULT(a2a_select_interface(U(card_json), S("CARRIER-PIGEON"), NULL, 0, &i), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_RESULT(a2a_select_interface(U(card_json), S("GRPC"), S("2.0"), &i), A2A_RESULT_CARD);
  CHECK_RESULT(a2a_select_interface(U("{\"name\":\"no interfaces\"}"), NULL, 0, NULL, 0, &i), A2A_RESULT_CARD);
  CHECK(i == NULL, "no interface written on failure");
}

/* Every A2A error kind, as a peer sends it on HTTP+JSON, read back with its codes. */
static void every_error_kind(void) {
  static const struct { a2a_error_kind kind; const char *name, *reason; int jsonrpc, grpc, http; } table[] = {
    {A2A_ERROR_KIND_TASK_NOT_FOUND, "TaskNotFound", "TASK_NOT_FOUND", -32001, 5, 404},
    {A2A_ERROR_KIND_TASK_NOT_CANCELABLE, "TaskNotCancelable", "TASK_NOT_CANCELABLE", -32002, 9, 400},
    {A2A_ERROR_KIND_PUSH_NOTIFICATION_NOT_SUPPORTED, "PushNotificationNotSupported", "PUSH_NOTIFICATION_NOT_SUPPORTED", -32003, 9, 400},
    {A2A_ERROR_KIND_UNSUPPORTED_OPERATION, "UnsupportedOperation", "UNSUPPORTED_OPERATION", -32004, 9, 400},
    {A2A_ERROR_KIND_CONTENT_TYPE_NOT_SUPPORTED, "ContentTypeNotSupported", "CONTENT_TYPE_NOT_SUPPORTED", -32005, 3, 400},
    {A2A_ERROR_KIND_INVALID_AGENT_RESPONSE, "InvalidAgentResponse", "INVALID_AGENT_RESPONSE", -32006, 13, 500},
    {A2A_ERROR_KIND_EXTENDED_AGENT_CARD_NOT_CONFIGURED, "ExtendedAgentCardNotConfigured", "EXTENDED_AGENT_CARD_NOT_CONFIGURED", -32007, 9, 400},
    {A2A_ERROR_KIND_EXTENSION_SUPPORT_REQUIRED, "ExtensionSupportRequired", "EXTENSION_SUPPORT_REQUIRED", -32008, 9, 400},
    {A2A_ERROR_KIND_VERSION_NOT_SUPPORTED, "VersionNotSupported", "VERSION_NOT_SUPPORTED", -32009, 9, 400},
    {A2A_ERROR_KIND_JSON_PARSE, "JsonParse", "JSON_PARSE", -32700, 3, 400},
    {A2A_ERROR_KIND_INVALID_REQUEST, "InvalidRequest", "INVALID_REQUEST", -32600, 3, 400},
    {A2A_ERROR_KIND_METHOD_NOT_FOUND, "MethodNotFound", "METHOD_NOT_FOUND", -32601, 12, 404},
    {A2A_ERROR_KIND_INVALID_PARAMS, "InvalidParams", "INVALID_PARAMS", -32602, 3, 400},
    {A2A_ERROR_KIND_INTERNAL, "Internal", "INTERNAL_ERROR", -32603, 13, 500},
    {A2A_ERROR_KIND_UNAUTHENTICATED, "Unauthenticated", "UNAUTHENTICATED", -31401, 16, 401},
    {A2A_ERROR_KIND_PERMISSION_DENIED, "PermissionDenied", "PERMISSION_DENIED", -31403, 7, 403},
    {A2A_ERROR_KIND_UNAVAILABLE, "Unavailable", "UNAVAILABLE", -31503, 14, 503},
  };
  for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
    char body[1024];
    int n = snprintf(body, sizeof body,
                     "{\"error\":{\"code\":%d,\"message\":\"why %zu\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\","
                     "\"reason\":\"%s\",\"domain\":\"a2a-protocol.org\",\"metadata\":{\"taskId\":\"t-%zu\"}}]}}",
                     table[k].grpc, k, table[k].reason, k);
    a2a_error *e = NULL;
    CHECK_OK(a2a_classify_http(S("1.0"), (uint16_t)table[k].http, (const uint8_t *)body, (size_t)n, &e));
    if (!e) continue;
    char msg[32], tid[32];
    snprintf(msg, sizeof msg, "why %zu", k), snprintf(tid, sizeof tid, "t-%zu", k);
    a2a_str v;
    CHECK(a2a_error_get_kind(e) == table[k].kind && (uint32_t)table[k].kind == k + 1, "%s: kind", table[k].name);
    CHECK(strcmp(a2a_error_kind_name(a2a_error_get_kind(e)), table[k].name) == 0, "%s: name", table[k].name);
    CHECK(a2a_error_result(e) == A2A_RESULT_A2A_ERROR, "%s: result", table[k].name);
    CHECK(a2a_error_jsonrpc_code(e) == table[k].jsonrpc, "%s: JSON-RPC %d", table[k].name, a2a_error_jsonrpc_code(e));
    CHECK(a2a_error_grpc_status(e) == table[k].grpc, "%s: gRPC %d", table[k].name, a2a_error_grpc_status(e));
    CHECK(a2a_error_http_status(e) == table[k].http, "%s: HTTP %u", table[k].name, a2a_error_http_status(e));
    CHECK(str_eq(a2a_error_reason(e), table[k].reason), "%s: reason", table[k].name);
    CHECK(str_eq(a2a_error_message(e), msg), "%s: message", table[k].name);
    CHECK(a2a_error_metadata_get(e, S("taskId"), &v) == A2A_RESULT_OK && str_eq(v, tid), "%s: metadata", table[k].name);
    CHECK(str_contains(a2a_error_metadata_json(e), tid), "%s: metadata JSON", table[k].name);
    CHECK_RESULT(a2a_error_metadata_get(e, S("nope"), &v), A2A_RESULT_NONE);
    a2a_error_free(e);
  }
  CHECK(strcmp(a2a_error_kind_name(0), "None") == 0 && strcmp(a2a_error_kind_name(18), "None") == 0, "names outside the table");
  /* A proxy's bare 404 is never TaskNotFound. */
  a2a_error *e = NULL;
  CHECK_OK(a2a_classify_http(S("1.0"), 404, U("<html>Not Found</html>"), &e));
  CHECK(e && a2a_error_result(e) == A2A_RESULT_NOT_A2A && a2a_error_get_kind(e) == A2A_ERROR_KIND_NONE && a2a_error_http_status(e) == 404 &&
        a2a_error_grpc_status(e) == -1 && a2a_error_jsonrpc_code(e) == 0, "bare 404");
  a2a_error_free(e);
  /* A JSON-RPC code without A2A meaning is read back as a JSON-RPC code, not a status. */
  e = NULL;
  CHECK_OK(a2a_classify_jsonrpc(U("{\"code\":-32000,\"message\":\"server busy\"}"), &e));
  CHECK(e && a2a_error_result(e) == A2A_RESULT_NOT_A2A && a2a_error_jsonrpc_code(e) == -32000 && a2a_error_http_status(e) == 0 &&
        a2a_error_grpc_status(e) == -1, "JSON-RPC -32000");
  a2a_error_free(e);
  e = NULL;
  CHECK_OK(a2a_classify_grpc(S("1.0"), 14, S("overloaded"), NULL, 0, &e));
  CHECK(e && a2a_error_get_kind(e) == A2A_ERROR_KIND_UNAVAILABLE, "gRPC UNAVAILABLE is the Unavailable category");
  a2a_error_free(e);
  /* NONE is an answer, not a failure: the last error stays readable through it. */
  a2a_transcode(S("lf.a2a.v1.Task"), A2A_FORMAT_JSON, A2A_FORMAT_JSON, U("{"), &(a2a_bytes *){NULL});
  const a2a_error *last = a2a_error_last();
  a2a_str none_value;
  CHECK_RESULT(a2a_error_metadata_get(last, S("absent"), &none_value), A2A_RESULT_NONE);
  CHECK(a2a_error_last() == last && a2a_error_result(last) == A2A_RESULT_DECODE, "NONE left the last error alone");
  /* The last-error copy outlives later calls. */
  a2a_error *copy = NULL;
  a2a_transcode(S("lf.a2a.v1.Task"), A2A_FORMAT_JSON, A2A_FORMAT_JSON, U("{"), &(a2a_bytes *){NULL});
  CHECK_OK(a2a_error_last_copy(&copy));
  a2a_str m = a2a_error_message(copy);
  CHECK(copy && a2a_error_result(copy) == A2A_RESULT_DECODE && m.len > 0, "copied last error");
  a2a_error_free(copy);
}

static void null_utf8_and_sizes(void) {
  static const uint8_t bad_utf8[] = {'T', 0xff, 0xfe, 'k'};
  a2a_bytes *b = (a2a_bytes *)0x1; /* must stay untouched on failure */
  a2a_bytes *before = b;
  CHECK_RESULT(a2a_transcode(NULL, 3, A2A_FORMAT_JSON, A2A_FORMAT_JSON, U("{}"), &b), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_transcode(S("lf.a2a.v1.Task"), A2A_FORMAT_JSON, A2A_FORMAT_JSON, NULL, 2, &b), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_transcode(S("lf.a2a.v1.Task"), A2A_FORMAT_JSON, A2A_FORMAT_JSON, U("{}"), NULL), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_transcode((const char *)bad_utf8, 4, A2A_FORMAT_JSON, A2A_FORMAT_JSON, U("{}"), &b), A2A_RESULT_INVALID_UTF8);
  CHECK_RESULT(a2a_transcode(S("lf.a2a.v1.Nope"), A2A_FORMAT_JSON, A2A_FORMAT_JSON, U("{}"), &b), A2A_RESULT_UNKNOWN_TYPE);
  CHECK_RESULT(a2a_transcode(S("lf.a2a.v1.Task"), 7, A2A_FORMAT_JSON, U("{}"), &b), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_RESULT(a2a_transcode(S("lf.a2a.v1.Task"), A2A_FORMAT_JSON, A2A_FORMAT_JSON, U("{\"id\":\"t\",\"status\":{\"state\":\"TASK_STATE_WOR"), &b), A2A_RESULT_DECODE);
  CHECK(a2a_error_decode_kind(a2a_error_last()) == A2A_DECODE_KIND_SYNTAX, "truncated JSON is a syntax error");
  CHECK_RESULT(a2a_transcode(S("lf.a2a.v1.Task"), A2A_FORMAT_PROTOBUF, A2A_FORMAT_JSON, U("\x0a\x05t1"), &b), A2A_RESULT_DECODE);
  CHECK(a2a_error_decode_kind(a2a_error_last()) == A2A_DECODE_KIND_PROTOBUF, "truncated protobuf");
  CHECK_RESULT(a2a_transcode(S("lf.a2a.v1.Task"), A2A_FORMAT_JSON, A2A_FORMAT_JSON, (const uint8_t *)"{}", (size_t)-1, &b), A2A_RESULT_INVALID_ARGUMENT);
  CHECK(b == before, "no output written by a failed call");
  /* Invalid UTF-8 in a JSON string value is a decode error, never undefined behaviour. */
  static const uint8_t bad_json[] = "{\"messageId\":\"m\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"\xff\"}]}";
  CHECK_RESULT(a2a_transcode(S("lf.a2a.v1.Message"), A2A_FORMAT_JSON, A2A_FORMAT_JSON, bad_json, sizeof bad_json - 1, &b), A2A_RESULT_DECODE);
  size_t n = 0;
  CHECK_RESULT(a2a_transcode_into(S("lf.a2a.v1.Task"), A2A_FORMAT_JSON, A2A_FORMAT_JSON, U("{\"id\":\"t\"}"), NULL, 5, &n), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_transcode_into(S("lf.a2a.v1.Task"), A2A_FORMAT_JSON, A2A_FORMAT_JSON, U("{\"id\":\"t\"}"), NULL, 0, NULL), A2A_RESULT_NULL_PARAMETER);

  a2a_translation *t = NULL;
  CHECK_RESULT(a2a_v03_to_v1(NULL, 4, U("{}"), &t), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_v03_to_v1(S("Task"), U("{}"), NULL), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_v1_to_v03(S("lf.a2a.v1.Task"), NULL, 1, &t), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_v03_to_v1(S("Nope"), U("{}"), &t), A2A_RESULT_UNKNOWN_TYPE);
  a2a_str l;
  CHECK_RESULT(a2a_translation_loss(NULL, 0, &l), A2A_RESULT_NULL_PARAMETER);
  CHECK(t == NULL, "no translation written");
  CHECK(a2a_translation_loss_count(NULL) == 0 && a2a_translation_json(NULL).len == 0, "accessors of NULL");

  a2a_service *svc = NULL;
  CHECK_RESULT(a2a_service_new(NULL, 5, NULL, 0, 0, T0, &svc), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_new(U(card_json), NULL, 0, 0, T0, NULL), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_new(U("{\"name\":\"x\"}"), NULL, 0, 0, T0, &svc), A2A_RESULT_CARD);
  CHECK_RESULT(a2a_service_new(U(card_json), NULL, 0, 0x80, T0, &svc), A2A_RESULT_INVALID_ARGUMENT);
  CHECK(svc == NULL, "no service written on failure");
  CHECK_OK(a2a_service_new(U(card_json), NULL, 0, 0, T0, &svc));
  uint64_t id = 0;
  a2a_header good[] = {{S("A2A-Version"), S("1.0")}};
  a2a_header badh[] = {{(const char *)bad_utf8, 4, S("1.0")}};
  a2a_header nullh[] = {{NULL, 3, S("1.0")}};
  CHECK_RESULT(a2a_service_handle_request(NULL, S("GET"), S("/"), NULL, 0, NULL, 0, T0, &id), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_handle_request(svc, NULL, 3, S("/"), NULL, 0, NULL, 0, T0, &id), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_handle_request(svc, S("GET"), NULL, 1, NULL, 0, NULL, 0, T0, &id), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_handle_request(svc, S("GET"), S("/"), NULL, 1, NULL, 0, T0, &id), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_handle_request(svc, S("GET"), S("/"), nullh, 1, NULL, 0, T0, &id), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_handle_request(svc, S("GET"), S("/"), good, 1, NULL, 4, T0, &id), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_handle_request(svc, S("GET"), S("/"), good, 1, NULL, 0, T0, NULL), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_handle_request(svc, (const char *)bad_utf8, 4, S("/"), NULL, 0, NULL, 0, T0, &id), A2A_RESULT_INVALID_UTF8);
  CHECK_RESULT(a2a_service_handle_request(svc, S("GET"), (const char *)bad_utf8, 4, NULL, 0, NULL, 0, T0, &id), A2A_RESULT_INVALID_UTF8);
  CHECK_RESULT(a2a_service_handle_request(svc, S("GET"), S("/"), badh, 1, NULL, 0, T0, &id), A2A_RESULT_INVALID_UTF8);
  CHECK(id == 0 && a2a_service_is_idle(svc), "nothing taken from failed calls");
  /* A header value that is not UTF-8 is legal HTTP: the service answers (here, the card). */
  a2a_header odd[] = {{S("X-Odd"), (const char *)bad_utf8, sizeof bad_utf8}};
  CHECK_OK(a2a_service_handle_request(svc, S("GET"), S("/.well-known/agent-card.json"), odd, 1, NULL, 0, T0, &id));
  a2a_output *card_answer = NULL;
  CHECK_OK(a2a_service_poll_output(svc, &card_answer));
  CHECK(card_answer && a2a_output_status(card_answer) == 200, "answered despite a non-UTF-8 header value");
  a2a_output_free(card_answer);
  /* An oversize body is answered 413 (before any parsing). */
  size_t big = 9 * 1024 * 1024;
  uint8_t *huge = malloc(big);
  if (huge) {
    memset(huge, ' ', big);
    a2a_header ct[] = {{S("Content-Type"), S("application/json")}, {S("A2A-Version"), S("1.0")}};
    CHECK_OK(a2a_service_handle_request(svc, S("POST"), S("/rpc"), ct, 2, huge, big, T0, &id));
    a2a_output *o = NULL;
    CHECK_OK(a2a_service_poll_output(svc, &o));
    /* JSON-RPC answers 200 with InvalidRequest, before reading the body. */
    CHECK(o && a2a_output_get_kind(o) == A2A_OUTPUT_KIND_ANSWER && str_contains(a2a_output_body(o), "-32600") &&
          str_contains(a2a_output_body(o), "exceeds the limit"), "oversize body: %u", a2a_output_status(o));
    a2a_output_free(o);
    free(huge);
  }
  /* The card, and a HEAD of it. */
  CHECK_OK(a2a_service_handle_request(svc, S("HEAD"), S("/.well-known/agent-card.json"), NULL, 0, NULL, 0, T0, &id));
  a2a_output *o = NULL;
  CHECK_OK(a2a_service_poll_output(svc, &o));
  a2a_str etag;
  CHECK(o && a2a_output_status(o) == 200 && a2a_output_call(o) == id, "card answer");
  int has_etag = 0;
  for (size_t i = 0; i < a2a_output_header_count(o); i++) {
    a2a_str k;
    if (a2a_output_header(o, i, &k, &etag) == A2A_RESULT_OK && str_eq(k, "etag")) has_etag = 1;
  }
  CHECK(has_etag, "the card has an ETag");
  CHECK_RESULT(a2a_output_header(o, 999, &etag, &etag), A2A_RESULT_NONE);
  CHECK_RESULT(a2a_output_header(o, 0, NULL, &etag), A2A_RESULT_NULL_PARAMETER);
  CHECK(a2a_output_run(o) == NULL && a2a_output_run_id(o) == 0 && a2a_output_delivery_id(o) == 0, "other kinds' accessors are empty");
  a2a_output_free(o);
  CHECK_RESULT(a2a_service_poll_output(svc, &o), A2A_RESULT_NONE);
  CHECK_RESULT(a2a_service_poll_output(svc, NULL), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_agent_status(svc, 12345, A2A_TASK_STATE_WORKING, NULL, 0, T0), A2A_RESULT_A2A_ERROR);
  CHECK_RESULT(a2a_service_agent_status(svc, 1, 42, NULL, 0, T0), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_RESULT(a2a_service_agent_status(svc, 1, A2A_TASK_STATE_WORKING, U("{\"messageId\":"), T0), A2A_RESULT_DECODE);
  CHECK_RESULT(a2a_service_agent_artifact(svc, 1, NULL, 3, false, false, T0), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_agent_message(NULL, 1, U("{}"), T0), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_run_end(svc, 1, (const char *)bad_utf8, 4, T0), A2A_RESULT_INVALID_UTF8);
  CHECK_RESULT(a2a_service_handle_authenticated(svc, 1, NULL, 0, 999, NULL, 0, T0), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_RESULT(a2a_service_caller_gone(NULL, 1), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_slow_consumer(NULL, 1), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_handle_timeout(NULL, T0), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_poll_timeout(svc, NULL), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_service_shutdown(NULL), A2A_RESULT_NULL_PARAMETER);
  CHECK_OK(a2a_service_caller_gone(svc, 424242)); /* unknown calls are ignored */
  a2a_service_free(svc);

  a2a_client_core *c = NULL;
  CHECK_RESULT(a2a_client_core_new(NULL, 1, NULL, 0, NULL, 0, &c), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_client_core_new(U(card_json), (const char *)bad_utf8, 4, NULL, 0, &c), A2A_RESULT_INVALID_UTF8);
  CHECK_RESULT(a2a_client_core_new(U(card_json), NULL, 0, NULL, 0, NULL), A2A_RESULT_NULL_PARAMETER);
  CHECK_OK(a2a_client_core_new(U(card_json), NULL, 0, NULL, 0, &c));
  CHECK_RESULT(a2a_client_core_add_header(c, NULL, 1, S("v")), A2A_RESULT_NULL_PARAMETER);
  a2a_exchange *x = NULL;
  CHECK_RESULT(a2a_client_core_start(c, A2A_METHOD_GET_TASK, U("{\"id\":"), &x), A2A_RESULT_A2A_ERROR);
  CHECK(a2a_error_get_kind(a2a_error_last()) == A2A_ERROR_KIND_INVALID_PARAMS || a2a_error_get_kind(a2a_error_last()) == A2A_ERROR_KIND_JSON_PARSE,
        "truncated params");
  CHECK_OK(a2a_client_core_start(c, A2A_METHOD_GET_TASK, U("{\"id\":\"t\"}"), &x));
  /* Out of order: a head, body or end before any request is out. */
  CHECK_RESULT(a2a_exchange_handle_head(x, 200, NULL, 0), A2A_RESULT_WRONG_STATE);
  CHECK_RESULT(a2a_exchange_handle_body(x, U("x")), A2A_RESULT_WRONG_STATE);
  CHECK_RESULT(a2a_exchange_handle_end(x, NULL, 0), A2A_RESULT_WRONG_STATE);
  a2a_step *s = NULL;
  CHECK_OK(a2a_exchange_poll(x, T0, &s));
  CHECK(s && a2a_step_get_kind(s) == A2A_STEP_KIND_SEND && a2a_step_error(s) == NULL, "first step sends");
  a2a_step_free(s);
  CHECK_OK(a2a_exchange_handle_head(x, 200, NULL, 0));
  CHECK_RESULT(a2a_exchange_handle_head(x, 200, NULL, 0), A2A_RESULT_WRONG_STATE);
  CHECK_OK(a2a_exchange_handle_body(x, U("{\"jsonrpc\":\"2.0\",\"id\":")));
  CHECK_OK(a2a_exchange_handle_end(x, NULL, 0)); /* a truncated answer */
  s = NULL;
  CHECK_OK(a2a_exchange_poll(x, T0, &s));
  CHECK(a2a_step_get_kind(s) == A2A_STEP_KIND_FAILED && a2a_error_result(a2a_step_error(s)) == A2A_RESULT_PROTOCOL, "a truncated answer is a protocol error (%u)",
        a2a_error_result(a2a_step_error(s)));
  a2a_step_free(s);
  a2a_bytes *task = NULL;
  CHECK_RESULT(a2a_exchange_task_json(x, &task), A2A_RESULT_NONE);
  a2a_exchange_free(x);
  a2a_client_core_free(c);
  CHECK(a2a_step_get_kind(NULL) == 0 && a2a_output_get_kind(NULL) == 0 && a2a_step_error(NULL) == NULL, "NULL handles");
  CHECK(a2a_bytes_data(NULL) == NULL && a2a_bytes_len(NULL) == 0, "NULL bytes");
  a2a_bytes_free(NULL), a2a_output_free(NULL), a2a_step_free(NULL), a2a_exchange_free(NULL), a2a_service_free(NULL);
  a2a_client_core_free(NULL), a2a_translation_free(NULL), a2a_interface_free(NULL), a2a_error_free(NULL);
  CHECK(a2a_error_get_kind(NULL) == A2A_ERROR_KIND_NONE && a2a_error_result(NULL) == A2A_RESULT_NULL_PARAMETER && a2a_error_grpc_status(NULL) == -1,
        "NULL error accessors");
  CHECK(strcmp(a2a_method_name(A2A_METHOD_LIST_TASKS), "ListTasks") == 0 && strcmp(a2a_method_name(0), "") == 0, "method names");
}

int main(void) {
  CHECK(strcmp(a2a_version(), A2A_WIRE_VERSION) == 0, "a2a_version() %s, header %s", a2a_version(), A2A_WIRE_VERSION);
  for (unsigned r = 0; r <= 22; r++) CHECK(strcmp(a2a_result_message(r), "unknown result") != 0, "result %u has a message", r);
  CHECK(strcmp(a2a_result_message(1000), "unknown result") == 0, "unknown result");
  const char *bindings[] = {"JSONRPC", "HTTP+JSON", "GRPC"}, *versions[] = {"1.0", "0.3"};
  for (int b = 0; b < 3; b++)
    for (int v = 0; v < 2; v++) two_peers(bindings[b], versions[v], NULL);
  /* The same over an external store the host answers for: in memory on every binding and
   * version, and a SQLite file on two of them. */
  a2a_store *mem = NULL, *file = NULL;
  CHECK_OK(a2a_store_new_memory(&mem));
  for (int b = 0; b < 3; b++)
    for (int v = 0; v < 2; v++) two_peers(bindings[b], versions[v], mem);
  char dir[] = "/tmp/a2a-test-api-XXXXXX", db[64];
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  snprintf(db, sizeof db, "%s/tasks.db", dir);
  CHECK_OK(a2a_store_open_sqlite(db, strlen(db), &file));
  if (file) two_peers("JSONRPC", "1.0", file), two_peers("HTTP+JSON", "0.3", file);
  a2a_store_free(mem);
  a2a_store_free(file);
  char rm[128];
  snprintf(rm, sizeof rm, "rm -rf %s", dir);
  CHECK(system(rm) == 0, "%s", rm);
  store_misuse();
  authentication_and_webhooks();
  slow_consumer_and_caller_gone();
  negotiation_and_selection();
  ssrf_guard();
  every_error_kind();
  null_utf8_and_sizes();
  printf("api: %d checks, %d failures\n", test_checks, test_failures);
  return test_failures ? 1 : 0;
}
