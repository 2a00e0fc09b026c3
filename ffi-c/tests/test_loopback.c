/* The ready level over loopback: a C agent on a2a-wire's server, called by the blocking C
 * client on JSON-RPC, HTTP+JSON and gRPC in v1.0 and v0.3; then the misuse cases of the
 * ready level (a sink used from another thread after its server was freed, double ends,
 * a flush on the server's thread, bad addresses).
 */
#define _GNU_SOURCE
#include "common.h"
#include <pthread.h>
#include <unistd.h>

static const char card[] =
  "{\"name\":\"loopback\",\"description\":\"C agent\",\"version\":\"1\",\"capabilities\":{\"streaming\":true},"
  "\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":[\"text/plain\"],\"skills\":[]}";

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int workers;         /* threads still publishing */
static a2a_sink *held;      /* the "hold" run's sink, kept past its server */
static int cancels;         /* cancel callbacks seen */
static a2a_result flush_on_server_thread = A2A_RESULT_OK;

static void *chunks(void *arg) {
  a2a_sink *sink = arg;
  for (int i = 0; i < 3 && !a2a_sink_is_canceled(sink); i++) {
    usleep(20 * 1000);
    char piece[16];
    int n = snprintf(piece, sizeof piece, "chunk %d", i);
    CHECK_OK(a2a_sink_artifact_text(sink, S("chunks"), piece, (size_t)n, i > 0, i == 2));
  }
  CHECK_OK(a2a_sink_flush(sink)); /* every event applied before we complete */
  CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_COMPLETED, NULL, 0));
  CHECK_OK(a2a_sink_finish(sink));
  CHECK_RESULT(a2a_sink_finish(sink), A2A_RESULT_ALREADY_ENDED);
  CHECK_RESULT(a2a_sink_status(sink, A2A_TASK_STATE_WORKING, NULL, 0), A2A_RESULT_ALREADY_ENDED);
  a2a_sink_free(sink);
  pthread_mutex_lock(&lock);
  workers--;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void start(void *userdata, const a2a_run *run, a2a_sink *sink) {
  CHECK(userdata == (void *)card, "userdata passed through");
  CHECK(a2a_sink_run(sink) == run, "the run lives in the sink");
  a2a_str text = a2a_run_text(run), tmp;
  CHECK(a2a_run_principal(run, &tmp) == A2A_RESULT_NONE, "anonymous caller");
  CHECK(a2a_run_task_id(run).len > 0 && a2a_run_context_id(run).len > 0, "ids");
  int follow = a2a_run_is_follow_up(run);
  if (!follow && str_eq(text, "need-input")) {
    CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_INPUT_REQUIRED, S("What should I echo?")));
  } else if (!follow && str_eq(text, "chunks")) {
    CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_WORKING, NULL, 0));
    pthread_t t;
    pthread_mutex_lock(&lock);
    if (pthread_create(&t, NULL, chunks, sink) == 0) workers++, pthread_detach(t);
    pthread_mutex_unlock(&lock);
    return;
  } else if (!follow && str_eq(text, "hold")) {
    CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_WORKING, NULL, 0));
    flush_on_server_thread = a2a_sink_flush(sink);
    pthread_mutex_lock(&lock);
    held = sink;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    return;
  } else if (!follow && str_eq(text, "message-only")) {
    CHECK_OK(a2a_sink_message_text(sink, text.data, text.len));
  } else if (!follow && str_eq(text, "fail")) {
    CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_WORKING, NULL, 0));
    CHECK_OK(a2a_sink_fail(sink, S("it broke")));
    CHECK_RESULT(a2a_sink_fail(sink, S("again")), A2A_RESULT_ALREADY_ENDED);
  } else if (!follow && str_eq(text, "json")) {
    CHECK_OK(a2a_sink_artifact_json(sink, U("{\"artifactId\":\"j\",\"parts\":[{\"data\":{\"n\":1}}]}"), false, true));
    CHECK_RESULT(a2a_sink_artifact_json(sink, U("{\"artifactId\":"), false, true), A2A_RESULT_DECODE);
    CHECK_RESULT(a2a_sink_status(sink, 99, NULL, 0), A2A_RESULT_INVALID_ARGUMENT);
    CHECK_OK(a2a_sink_status_json(sink, A2A_TASK_STATE_COMPLETED, U("{\"messageId\":\"done-1\",\"role\":\"ROLE_AGENT\",\"parts\":[{\"text\":\"ok\"}]}")));
  } else {
    CHECK_OK(a2a_sink_artifact_text(sink, S("echo"), text.data, text.len, false, true));
    CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_COMPLETED, NULL, 0));
  }
  a2a_sink_free(sink); /* ends the run (finished) if not ended */
}

static void cancel(void *userdata, uint64_t run) {
  (void)userdata, (void)run;
  __atomic_add_fetch(&cancels, 1, __ATOMIC_SEQ_CST);
}

static int events_seen;
static bool count_event(void *userdata, const uint8_t *json, size_t len) {
  (void)userdata;
  events_seen++;
  CHECK(len > 0 && json[0] == '{', "an event is a JSON object");
  return true;
}

static void send_expect(a2a_client *c, const char *text, const char *want, const char *label) {
  a2a_bytes *r = NULL;
  CHECK_OK(a2a_client_send_text(c, text, strlen(text), &r));
  a2a_str got = {(const char *)a2a_bytes_data(r), a2a_bytes_len(r)};
  CHECK(r && str_contains(got, want), "%s: %s -> %.*s", label, text, (int)got.len, got.data);
  a2a_bytes_free(r);
}

static void id_of(a2a_bytes *b, char *out, size_t n) {
  a2a_str s = {(const char *)a2a_bytes_data(b), a2a_bytes_len(b)};
  const char *p = memmem(s.data, s.len, "\"id\":\"", 6);
  out[0] = 0;
  if (!p) return;
  p += 6;
  size_t i = 0;
  while (i + 1 < n && p + i < s.data + s.len && p[i] != '"') out[i] = p[i], i++;
  out[i] = 0;
}

static void one_interface(const char *url, const char *binding, const char *version) {
  char label[64];
  snprintf(label, sizeof label, "%s %s", binding, version);
  a2a_client *c = NULL;
  CHECK_OK(a2a_client_connect(url, strlen(url), binding, strlen(binding), version, strlen(version), 10000, &c));
  if (!c) return;
  const a2a_interface *i = a2a_client_interface(c);
  CHECK(str_eq(a2a_interface_binding(i), binding) && str_eq(a2a_interface_version(i), version), "%s: interface", label);
  CHECK(str_contains(a2a_client_card_json(c), "loopback"), "%s: card", label);
  send_expect(c, "hello", "\"text\":\"hello\"", label);
  send_expect(c, "message-only", "ROLE_AGENT", label);
  send_expect(c, "fail", "it broke", label); /* the task FAILED, the reason its message */
  send_expect(c, "fail", "TASK_STATE_FAILED", label);
  send_expect(c, "json", "\"n\":1", label);
  a2a_bytes *r = NULL;
  CHECK_OK(a2a_client_send_text(c, S("need-input"), &r));
  char id[128], params[512];
  id_of(r, id, sizeof id);
  a2a_bytes_free(r);
  snprintf(params, sizeof params, "{\"message\":{\"messageId\":\"f-%s-%s\",\"taskId\":\"%s\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"more\"}]}}", binding, version, id);
  r = NULL;
  CHECK_OK(a2a_client_call(c, A2A_METHOD_SEND_MESSAGE, (const uint8_t *)params, strlen(params), &r));
  CHECK(r && str_contains((a2a_str){(const char *)a2a_bytes_data(r), a2a_bytes_len(r)}, "TASK_STATE_COMPLETED"), "%s: follow-up", label);
  a2a_bytes_free(r);
  snprintf(params, sizeof params, "{\"id\":\"%s\"}", id);
  r = NULL;
  CHECK_OK(a2a_client_call(c, A2A_METHOD_GET_TASK, (const uint8_t *)params, strlen(params), &r));
  CHECK(r && str_contains((a2a_str){(const char *)a2a_bytes_data(r), a2a_bytes_len(r)}, "more"), "%s: get", label);
  a2a_bytes_free(r);
  r = NULL;
  CHECK_RESULT(a2a_client_call(c, A2A_METHOD_CANCEL_TASK, (const uint8_t *)params, strlen(params), &r), A2A_RESULT_A2A_ERROR);
  CHECK(a2a_error_get_kind(a2a_error_last()) == A2A_ERROR_KIND_TASK_NOT_CANCELABLE, "%s: cancel a completed task", label);
  CHECK_RESULT(a2a_client_call(c, A2A_METHOD_GET_TASK, U("{\"id\":\"no-such-task\"}"), &r), A2A_RESULT_A2A_ERROR);
  const a2a_error *e = a2a_error_last();
  CHECK(a2a_error_get_kind(e) == A2A_ERROR_KIND_TASK_NOT_FOUND && a2a_error_jsonrpc_code(e) == -32001 && a2a_error_http_status(e) == 404 &&
        a2a_error_grpc_status(e) == 5, "%s: get unknown", label);
  CHECK(r == NULL, "%s: no response written on failure", label);
  a2a_result lr = a2a_client_call(c, A2A_METHOD_LIST_TASKS, U("{}"), &r);
  if (strcmp(version, "1.0") == 0) CHECK(lr == A2A_RESULT_OK, "%s: list: %s", label, last_message());
  else CHECK(lr == A2A_RESULT_LOCAL, "%s: ListTasks does not exist in 0.3 (%u)", label, lr);
  a2a_bytes_free(r);
  CHECK_RESULT(a2a_client_call(c, A2A_METHOD_SEND_STREAMING_MESSAGE, NULL, 0, &r), A2A_RESULT_INVALID_ARGUMENT);
  /* A stream through the iterator handle. */
  a2a_stream *s = NULL;
  snprintf(params, sizeof params, "{\"message\":{\"messageId\":\"s-%s-%s\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"chunks\"}]}}", binding, version);
  CHECK_OK(a2a_client_stream(c, A2A_METHOD_SEND_STREAMING_MESSAGE, (const uint8_t *)params, strlen(params), &s));
  int n = 0, artifacts = 0, completed = 0;
  a2a_bytes *ev = NULL;
  a2a_result sr;
  while ((sr = a2a_stream_next(s, &ev)) == A2A_RESULT_OK) {
    a2a_str j = {(const char *)a2a_bytes_data(ev), a2a_bytes_len(ev)};
    n++, artifacts += str_contains(j, "chunk "), completed += str_contains(j, "TASK_STATE_COMPLETED");
    a2a_bytes_free(ev);
  }
  CHECK(sr == A2A_RESULT_NONE && artifacts == 3 && completed >= 1, "%s: stream: %d events, %d chunks, end %u", label, n, artifacts, sr);
  CHECK_RESULT(a2a_stream_next(s, &ev), A2A_RESULT_NONE);
  a2a_stream_free(s);
  /* And through the callback. */
  events_seen = 0;
  snprintf(params, sizeof params, "{\"message\":{\"messageId\":\"c-%s-%s\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"chunks\"}]}}", binding, version);
  CHECK_OK(a2a_client_stream_each(c, A2A_METHOD_SEND_STREAMING_MESSAGE, (const uint8_t *)params, strlen(params), count_event, NULL));
  CHECK(events_seen >= 4, "%s: stream_each: %d events", label, events_seen);
  CHECK_RESULT(a2a_client_stream_each(c, A2A_METHOD_SEND_STREAMING_MESSAGE, (const uint8_t *)params, strlen(params), NULL, NULL), A2A_RESULT_NULL_PARAMETER);
  a2a_client_free(c);
}

static void *use_held_sink(void *arg) {
  (void)arg;
  /* The server is gone: events are refused, never a crash. */
  a2a_result r = a2a_sink_artifact_text(held, S("late"), S("late"), false, true);
  CHECK(r == A2A_RESULT_A2A_ERROR, "an event after the server stopped: %u", r);
  CHECK(a2a_sink_is_canceled(held), "the held run was canceled at shutdown");
  CHECK(a2a_sink_flush(held) == A2A_RESULT_A2A_ERROR, "flush after the server stopped");
  CHECK_OK(a2a_sink_finish(held));
  CHECK_RESULT(a2a_sink_finish(held), A2A_RESULT_ALREADY_ENDED);
  a2a_sink_free(held);
  return NULL;
}

/* A store file and retention: a completed task is gone (TASK_NOT_FOUND on every binding)
 * within seconds while a task waiting for input stays, also after a restart on the file. */
static int get_kind(a2a_client *c, const char *id) {
  char params[256];
  snprintf(params, sizeof params, "{\"id\":\"%s\"}", id);
  a2a_bytes *r = NULL;
  a2a_result res = a2a_client_call(c, A2A_METHOD_GET_TASK, (const uint8_t *)params, strlen(params), &r);
  a2a_bytes_free(r);
  return res == A2A_RESULT_OK ? -1 : (int)a2a_error_get_kind(a2a_error_last());
}

/* `db`: NULL for a SQLite file made here, else a PostgreSQL URL (a fresh database). */
static void store_and_retention(a2a_agent *agent, const char *db) {
  char dir[] = "/tmp/a2a-wire-c-store-XXXXXX", path[256];
  if (!mkdtemp(dir)) return;
  if (db) snprintf(path, sizeof path, "%s", db);
  else snprintf(path, sizeof path, "%s/tasks.db", dir);
  a2a_server_config *cfg = NULL;
  CHECK_OK(a2a_server_config_new(&cfg));
  CHECK_OK(a2a_server_config_set_store_file(cfg, path, strlen(path)));
  CHECK_OK(a2a_server_config_set_cache_bytes(cfg, 0));
  CHECK_OK(a2a_server_config_set_retention_ms(cfg, 1500));
  CHECK_RESULT(a2a_server_config_set_store_file(cfg, S("")), A2A_RESULT_INVALID_ARGUMENT);
  a2a_server *server = NULL;
  CHECK_OK(a2a_server_start_with(S("127.0.0.1:0"), U(card), agent, cfg, &server));
  if (!server) return;
  char url[64];
  a2a_str u = a2a_server_url(server);
  snprintf(url, sizeof url, "%.*s", (int)u.len, u.data);
  const char *bindings[] = {"JSONRPC", "HTTP+JSON", "GRPC"};
  char done[3][128], waiting[3][128];
  for (int b = 0; b < 3; b++) {
    a2a_client *c = NULL;
    CHECK_OK(a2a_client_connect(url, strlen(url), bindings[b], strlen(bindings[b]), S("1.0"), 10000, &c));
    if (!c) return;
    a2a_bytes *r = NULL;
    CHECK_OK(a2a_client_send_text(c, S("hello"), &r));
    id_of(r, done[b], sizeof done[b]);
    a2a_bytes_free(r);
    CHECK_OK(a2a_client_send_text(c, S("need-input"), &r));
    id_of(r, waiting[b], sizeof waiting[b]);
    a2a_bytes_free(r);
    a2a_client_free(c);
  }
  for (int b = 0; b < 3; b++) {
    a2a_client *c = NULL;
    CHECK_OK(a2a_client_connect(url, strlen(url), bindings[b], strlen(bindings[b]), S("1.0"), 10000, &c));
    if (!c) return;
    int kind = -1;
    for (int i = 0; i < 60 && (kind = get_kind(c, done[b])) == -1; i++) usleep(250 * 1000);
    CHECK(kind == A2A_ERROR_KIND_TASK_NOT_FOUND, "%s: the completed task is deleted by retention (%d)", bindings[b], kind);
    CHECK(get_kind(c, waiting[b]) == -1, "%s: the task waiting for input stays", bindings[b]);
    a2a_client_free(c);
  }
  a2a_server_free(server);
  /* The restart on the same file, without retention: the waiting tasks are still there. */
  a2a_server_config *plain = NULL;
  CHECK_OK(a2a_server_config_new(&plain));
  CHECK_OK(a2a_server_config_set_store_file(plain, path, strlen(path)));
  server = NULL;
  CHECK_OK(a2a_server_start_with(S("127.0.0.1:0"), U(card), agent, plain, &server));
  if (server) {
    u = a2a_server_url(server);
    snprintf(url, sizeof url, "%.*s", (int)u.len, u.data);
    a2a_client *c = NULL;
    CHECK_OK(a2a_client_connect(url, strlen(url), NULL, 0, NULL, 0, 10000, &c));
    if (c) {
      for (int b = 0; b < 3; b++) CHECK(get_kind(c, waiting[b]) == -1, "after the restart: %s", waiting[b]);
      CHECK(get_kind(c, done[0]) == A2A_ERROR_KIND_TASK_NOT_FOUND, "a deleted task stays deleted");
      a2a_client_free(c);
    }
    a2a_server_free(server);
  }
  /* A file (or a database) that cannot be opened. */
  CHECK_OK(a2a_server_config_set_store_file(plain, S("/nonexistent-dir/x/tasks.db")));
  a2a_server *bad = NULL;
  CHECK_RESULT(a2a_server_start_with(S("127.0.0.1:0"), U(card), agent, plain, &bad), A2A_RESULT_IO);
  CHECK(bad == NULL && str_contains((a2a_str){last_message(), strlen(last_message())}, "tasks.db"), "the error names the file: %s", last_message());
  a2a_server_config_free(plain);
  a2a_server_config_free(cfg);
  char cmd[200];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) printf("could not remove %s\n", dir);
}

int main(void) {
  a2a_agent agent = {.start = start, .cancel = cancel, .userdata = (void *)card};
  a2a_server *server = NULL;
  CHECK_OK(a2a_server_start(S("127.0.0.1:0"), U(card), &agent, &server));
  if (!server) return 1;
  CHECK(a2a_server_port(server) > 0, "a port was chosen");
  char url[64];
  a2a_str u = a2a_server_url(server);
  snprintf(url, sizeof url, "%.*s", (int)u.len, u.data);
  const char *bindings[] = {"JSONRPC", "HTTP+JSON", "GRPC"}, *versions[] = {"1.0", "0.3"};
  for (int b = 0; b < 3; b++)
    for (int v = 0; v < 2; v++) one_interface(url, bindings[b], versions[v]);

  /* A run the agent holds past the end of its server. */
  a2a_client *c = NULL;
  CHECK_OK(a2a_client_connect(url, strlen(url), NULL, 0, NULL, 0, 5000, &c));
  a2a_stream *s = NULL;
  CHECK_OK(a2a_client_stream(c, A2A_METHOD_SEND_STREAMING_MESSAGE, U("{\"message\":{\"messageId\":\"hold-1\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hold\"}]}}"), &s));
  pthread_mutex_lock(&lock);
  while (!held) pthread_cond_wait(&changed, &lock);
  while (workers > 0) pthread_cond_wait(&changed, &lock);
  pthread_mutex_unlock(&lock);
  CHECK(flush_on_server_thread == A2A_RESULT_WRONG_STATE, "a flush on the server's thread is refused (%u)", flush_on_server_thread);
  a2a_server_free(server);
  CHECK(cancels >= 1, "the held run got its cancel callback");
  a2a_bytes *ev = NULL;
  a2a_result r;
  int guard = 0;
  while ((r = a2a_stream_next(s, &ev)) == A2A_RESULT_OK && guard++ < 10) a2a_bytes_free(ev);
  CHECK(r != A2A_RESULT_OK, "the open stream ended with its server");
  a2a_stream_free(s);
  a2a_client_free(c);
  pthread_t t;
  if (pthread_create(&t, NULL, use_held_sink, NULL) == 0) pthread_join(t, NULL);

  store_and_retention(&agent, NULL);
  /* The same in PostgreSQL when the test command gives a cluster (A2A_PG_URL). */
  const char *pg = getenv("A2A_PG_URL");
  if (pg && strlen(pg) < 150) {
    char cmd[400], db[256];
    snprintf(cmd, sizeof cmd, "PGOPTIONS='-c client_min_messages=warning' psql -q '%s' -c 'DROP DATABASE IF EXISTS a2a_c_loopback' -c 'CREATE DATABASE a2a_c_loopback'", pg);
    CHECK(system(cmd) == 0, "%s", cmd);
    snprintf(db, sizeof db, "%.*s/a2a_c_loopback", (int)(strrchr(pg, '/') - pg), pg);
    store_and_retention(&agent, db);
    printf("loopback: the store and retention checks also ran on PostgreSQL\n");
  } else {
    CHECK(getenv("A2A_PG_REQUIRED") == NULL, "A2A_PG_REQUIRED is set but A2A_PG_URL is not");
  }
  /* A public URL: the card names it, the server still says where it listens. */
  a2a_server_config *pub = NULL;
  CHECK_OK(a2a_server_config_new(&pub));
  CHECK_RESULT(a2a_server_config_set_public_url(pub, S("https://agents.example/a2a")), A2A_RESULT_INVALID_ARGUMENT);
  CHECK(str_contains(a2a_error_message(a2a_error_last()), "origin only"), "the error says why: %s", last_message());
  CHECK_OK(a2a_server_config_set_public_url(pub, S("https://agents.example")));
  a2a_server *behind = NULL;
  CHECK_OK(a2a_server_start_with(S("127.0.0.1:0"), U(card), &agent, pub, &behind));
  if (behind) {
    CHECK(str_contains(a2a_server_url(behind), "http://127.0.0.1:"), "the listening URL");
    a2a_server_free(behind);
  }
  a2a_server_config_free(pub);

  /* Bad starts. */
  a2a_server *bad = NULL;
  CHECK_RESULT(a2a_server_start(S("not an address"), U(card), &agent, &bad), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_RESULT(a2a_server_start(S("127.0.0.1:0"), U(card), NULL, &bad), A2A_RESULT_NULL_PARAMETER);
  a2a_agent no_start = {.start = NULL, .cancel = NULL, .userdata = NULL};
  CHECK_RESULT(a2a_server_start(S("127.0.0.1:0"), U(card), &no_start, &bad), A2A_RESULT_NULL_PARAMETER);
  CHECK_RESULT(a2a_server_start(S("127.0.0.1:0"), U("{\"name\":1}"), &agent, &bad), A2A_RESULT_CARD);
  CHECK(bad == NULL, "no server written on failure");
  a2a_client *nc = NULL;
  CHECK_RESULT(a2a_client_connect(S("http://127.0.0.1:1"), NULL, 0, NULL, 0, 2000, &nc), A2A_RESULT_TRANSPORT);
  CHECK_RESULT(a2a_client_connect(S("ftp://127.0.0.1/"), NULL, 0, NULL, 0, 2000, &nc), A2A_RESULT_INVALID_ARGUMENT);
  CHECK(nc == NULL, "no client written on failure");
  a2a_server_free(NULL), a2a_client_free(NULL), a2a_stream_free(NULL), a2a_sink_free(NULL);
  CHECK_RESULT(a2a_sink_finish(NULL), A2A_RESULT_NULL_PARAMETER);
  printf("loopback: %d checks, %d failures\n", test_checks, test_failures);
  return test_failures ? 1 : 0;
}
