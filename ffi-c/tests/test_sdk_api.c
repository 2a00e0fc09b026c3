/* What an embedding service needs beyond the protocol: the authentication callback (it
 * sees every header and the peer; 401 and 403 refusals), the run's metadata, tenant and
 * extensions, agent callbacks on worker threads (a callback that sleeps does not stall
 * another task), a2a_stream_cancel from another thread, and a2a_task_state_name.
 */
#define _GNU_SOURCE
#include "common.h"
#include <pthread.h>
#include <time.h>
#include <unistd.h>

static const char card[] =
  "{\"name\":\"sdk-api\",\"description\":\"C agent\",\"version\":\"1\",\"capabilities\":{\"streaming\":true,"
  "\"extensions\":[{\"uri\":\"urn:x-test:ext\"}]},"
  "\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":[\"text/plain\"],\"skills\":[]}";

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int saw_trace, saw_peer, saw_post, header_count, judged;

static uint32_t authenticate(void *userdata, a2a_auth_call *call) {
  CHECK(userdata == (void *)card, "userdata passed through");
  a2a_str v, peer = a2a_auth_call_peer(call);
  pthread_mutex_lock(&lock);
  judged++;
  if (a2a_auth_call_header(call, S("X-Trace"), &v) == A2A_RESULT_OK && str_eq(v, "abc")) saw_trace = 1;
  if (peer.len > 10 && memcmp(peer.data, "127.0.0.1:", 10) == 0) saw_peer = 1;
  if (str_eq(a2a_auth_call_method(call), "POST")) saw_post = 1;
  header_count = (int)a2a_auth_call_header_count(call);
  pthread_mutex_unlock(&lock);
  a2a_str name;
  CHECK_OK(a2a_auth_call_header_at(call, 0, &name, &v));
  CHECK_RESULT(a2a_auth_call_header_at(call, 1000, &name, &v), A2A_RESULT_INVALID_ARGUMENT);
  if (a2a_auth_call_header(call, S("x-deny"), &v) == A2A_RESULT_OK) return A2A_AUTH_VERDICT_PERMISSION_DENIED;
  if (a2a_auth_call_header(call, S("x-user"), &v) != A2A_RESULT_OK) return A2A_AUTH_VERDICT_UNAUTHENTICATED;
  CHECK_RESULT(a2a_auth_call_set_principal(call, "", 0), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_OK(a2a_auth_call_set_principal(call, v.data, v.len));
  return A2A_AUTH_VERDICT_ALLOW;
}

static void start(void *userdata, const a2a_run *run, a2a_sink *sink) {
  (void)userdata;
  a2a_str text = a2a_run_text(run), principal = {"", 0}, meta = {"", 0};
  a2a_run_principal(run, &principal);
  if (str_eq(text, "sleep")) {
    /* Blocks its worker; the other worker serves the other task meanwhile. */
    CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_WORKING, NULL, 0));
    usleep(1500 * 1000);
  } else if (str_eq(text, "context")) {
    a2a_str conf;
    CHECK_OK(a2a_run_metadata_json(run, &meta));
    CHECK(str_contains(meta, "\"trace\":\"t-1\""), "metadata: %.*s", (int)meta.len, meta.data);
    CHECK(str_eq(a2a_run_tenant(run), "acme"), "tenant: %.*s", (int)a2a_run_tenant(run).len, a2a_run_tenant(run).data);
    CHECK_OK(a2a_run_configuration_json(run, &conf));
    CHECK(str_contains(conf, "\"historyLength\":3"), "configuration: %.*s", (int)conf.len, conf.data);
    CHECK(a2a_run_extension_count(run) == 1 && str_eq(a2a_run_extension(run, 0), "urn:x-test:ext"), "the active extension");
    CHECK(a2a_run_extension(run, 1).len == 0, "no second extension");
    /* A flush on a worker is allowed: the server's own thread is not blocked. */
    CHECK_OK(a2a_sink_flush(sink));
  } else {
    CHECK_RESULT(a2a_run_metadata_json(run, &meta), A2A_RESULT_NONE);
  }
  char reply[128];
  int n = snprintf(reply, sizeof reply, "%.*s:%.*s", (int)principal.len, principal.data, (int)text.len, text.data);
  a2a_result published = a2a_sink_artifact_text(sink, S("echo"), reply, (size_t)n, false, true);
  if (published == A2A_RESULT_OK) published = a2a_sink_status(sink, A2A_TASK_STATE_COMPLETED, NULL, 0);
  /* The last sleeper may outlive its server (its stream was canceled, then the server
   * freed, which waits for the workers): its events are refused then, nothing else. */
  CHECK(published == A2A_RESULT_OK || str_eq(text, "sleep"), "published: %s", a2a_result_message(published));
  a2a_sink_free(sink);
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static a2a_client *connect_as(const char *url, size_t url_len, const char *user, const char *extra_header) {
  a2a_client_config *cfg = NULL;
  CHECK_OK(a2a_client_config_new(&cfg));
  if (user) CHECK_OK(a2a_client_config_add_header(cfg, S("X-User"), user, strlen(user)));
  if (extra_header) CHECK_OK(a2a_client_config_add_header(cfg, extra_header, strlen(extra_header), S("1")));
  CHECK_OK(a2a_client_config_add_header(cfg, S("X-Trace"), S("abc")));
  a2a_client *c = NULL;
  CHECK_OK(a2a_client_connect_with(url, url_len, S("JSONRPC"), S("1.0"), 10000, cfg, &c));
  a2a_client_config_free(cfg);
  return c;
}

struct sleeper { const char *url; size_t len; };

static void *send_sleep(void *arg) {
  struct sleeper *s = arg;
  a2a_client *c = connect_as(s->url, s->len, "bob", NULL);
  a2a_bytes *r = NULL;
  if (c) CHECK_OK(a2a_client_send_text(c, S("sleep"), &r));
  a2a_bytes_free(r);
  a2a_client_free(c);
  return NULL;
}

struct waiter { a2a_stream *stream; a2a_result got; double took; };

static void *wait_next(void *arg) {
  struct waiter *w = arg;
  double t0 = now_s();
  a2a_bytes *ev = NULL;
  /* The first event (the task) arrives at once; the next waits for the sleeping agent. */
  CHECK_OK(a2a_stream_next(w->stream, &ev));
  a2a_bytes_free(ev);
  ev = NULL;
  a2a_result r;
  do {
    r = a2a_stream_next(w->stream, &ev);
    a2a_bytes_free(ev);
    ev = NULL;
  } while (r == A2A_RESULT_OK);
  w->got = r;
  w->took = now_s() - t0;
  return NULL;
}

int main(void) {
  CHECK(strcmp(a2a_task_state_name(A2A_TASK_STATE_COMPLETED), "TASK_STATE_COMPLETED") == 0, "a2a_task_state_name");
  CHECK(strcmp(a2a_task_state_name(A2A_TASK_STATE_INPUT_REQUIRED), "TASK_STATE_INPUT_REQUIRED") == 0, "input required");
  CHECK(strcmp(a2a_task_state_name((a2a_task_state)99), "") == 0, "not a state");

  a2a_server_config *cfg = NULL;
  CHECK_OK(a2a_server_config_new(&cfg));
  CHECK_RESULT(a2a_server_config_set_workers(cfg, 5000), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_OK(a2a_server_config_set_workers(cfg, 2));
  CHECK_OK(a2a_server_config_set_authenticate(cfg, authenticate, (void *)card));
  a2a_agent agent = {start, NULL, (void *)card};
  a2a_server *server = NULL;
  CHECK_OK(a2a_server_start_with(S("127.0.0.1:0"), U(card), &agent, cfg, &server));
  /* Bearer tokens and a callback: one judge only. */
  CHECK_OK(a2a_server_config_set_bearer_tokens(cfg, S("tok alice\n")));
  a2a_server *both = NULL;
  CHECK_RESULT(a2a_server_start_with(S("127.0.0.1:0"), U(card), &agent, cfg, &both), A2A_RESULT_INVALID_ARGUMENT);
  a2a_server_config_free(cfg);
  if (!server) return 1;
  a2a_str url = a2a_server_url(server);

  /* The callback judges: a principal, 401 without one, 403 on x-deny. */
  a2a_client *alice = connect_as(url.data, url.len, "alice", NULL);
  a2a_bytes *r = NULL;
  CHECK_OK(a2a_client_send_text(alice, S("hi"), &r));
  CHECK(r && str_contains((a2a_str){(const char *)a2a_bytes_data(r), a2a_bytes_len(r)}, "alice:hi"), "the principal reached the agent");
  a2a_bytes_free(r);
  r = NULL;
  pthread_mutex_lock(&lock);
  CHECK(saw_trace && saw_peer && saw_post && header_count >= 3, "the callback saw every header (%d), the peer and the method", header_count);
  pthread_mutex_unlock(&lock);
  a2a_client *nobody = connect_as(url.data, url.len, NULL, NULL);
  CHECK_RESULT(a2a_client_send_text(nobody, S("hi"), &r), A2A_RESULT_A2A_ERROR);
  CHECK(a2a_error_get_kind(a2a_error_last()) == A2A_ERROR_KIND_UNAUTHENTICATED, "401: unauthenticated");
  a2a_client *denied = connect_as(url.data, url.len, "mallory", "X-Deny");
  CHECK_RESULT(a2a_client_send_text(denied, S("hi"), &r), A2A_RESULT_A2A_ERROR);
  CHECK(a2a_error_get_kind(a2a_error_last()) == A2A_ERROR_KIND_PERMISSION_DENIED, "403: permission denied");
  a2a_client_free(nobody);
  a2a_client_free(denied);

  /* Metadata, tenant, configuration and extensions reach the agent. */
  a2a_client_config *ccfg = NULL;
  CHECK_OK(a2a_client_config_new(&ccfg));
  CHECK_OK(a2a_client_config_add_header(ccfg, S("X-User"), S("carol")));
  CHECK_OK(a2a_client_config_add_header(ccfg, S("A2A-Extensions"), S("urn:x-test:ext")));
  a2a_client *carol = NULL;
  CHECK_OK(a2a_client_connect_with(url.data, url.len, S("JSONRPC"), S("1.0"), 10000, ccfg, &carol));
  a2a_client_config_free(ccfg);
  static const char params[] =
    "{\"message\":{\"messageId\":\"m-ctx\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"context\"}]},"
    "\"metadata\":{\"trace\":\"t-1\"},\"configuration\":{\"historyLength\":3},\"tenant\":\"acme\"}";
  CHECK_OK(a2a_client_call(carol, A2A_METHOD_SEND_MESSAGE, U(params), &r));
  CHECK(r && str_contains((a2a_str){(const char *)a2a_bytes_data(r), a2a_bytes_len(r)}, "carol:context"), "the context run answered");
  a2a_bytes_free(r);
  r = NULL;
  a2a_client_free(carol);

  /* A callback that sleeps on one worker does not stall another task on the other. */
  struct sleeper s = {url.data, url.len};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, send_sleep, &s) == 0, "thread");
  usleep(200 * 1000);
  double t0 = now_s();
  CHECK_OK(a2a_client_send_text(alice, S("quick"), &r));
  double took = now_s() - t0;
  CHECK(took < 1.0, "another task waited %.2f s for a sleeping callback", took);
  a2a_bytes_free(r);
  r = NULL;
  pthread_join(t, NULL);

  /* a2a_stream_cancel from another thread ends a waiting a2a_stream_next at once. */
  a2a_stream *stream = NULL;
  static const char sleep_params[] = "{\"message\":{\"messageId\":\"m-sleep\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"sleep\"}]}}";
  CHECK_OK(a2a_client_stream(alice, A2A_METHOD_SEND_STREAMING_MESSAGE, U(sleep_params), &stream));
  struct waiter w = {stream, A2A_RESULT_OK, 0};
  CHECK(pthread_create(&t, NULL, wait_next, &w) == 0, "thread");
  usleep(300 * 1000);
  a2a_stream_cancel(stream);
  pthread_join(t, NULL);
  CHECK(w.got == A2A_RESULT_CANCELED, "a canceled stream: %s", a2a_result_message(w.got));
  CHECK(w.took < 1.2, "the cancel took %.2f s to reach the waiting thread", w.took);
  a2a_bytes *ev = NULL;
  CHECK_RESULT(a2a_stream_next(stream, &ev), A2A_RESULT_CANCELED);
  a2a_stream_cancel(NULL);
  a2a_stream_free(stream);

  a2a_client_free(alice);
  a2a_server_free(server);
  printf("sdk_api: %d checks, %d failures\n", test_checks, test_failures);
  return test_failures ? 1 : 0;
}
