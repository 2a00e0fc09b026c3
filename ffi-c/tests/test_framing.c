/* HTTP/1.1 framing on the C ready server: the request-smuggling cases of the framing table
 * (tests/vectors/http1/framing.json, the file the Rust, Python and Node tests read) and its
 * controls, as raw bytes on a socket. The ready server reads HTTP/1.1 through the core's
 * request reader, so a request with two framings is refused and nothing smuggled in its body
 * is ever answered.
 *
 *   test_framing tests/vectors/http1/framing.json
 */
#define _GNU_SOURCE
#include "common.h"
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static const char card[] =
  "{\"name\":\"framing\",\"description\":\"C agent\",\"version\":\"1\",\"capabilities\":{\"streaming\":true},"
  "\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":[\"text/plain\"],\"skills\":[]}";

static void start(void *userdata, const a2a_run *run, a2a_sink *sink) {
  (void)userdata;
  a2a_str text = a2a_run_text(run);
  CHECK_OK(a2a_sink_artifact_text(sink, S("echo"), text.data, text.len, false, true));
  CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_COMPLETED, NULL, 0));
  CHECK_OK(a2a_sink_finish(sink));
  a2a_sink_free(sink);
}

static void cancel(void *userdata, uint64_t run) { (void)userdata, (void)run; }

/* What one connection has read and not used yet. */
typedef struct {
  int fd;
  char buf[65536];
  size_t len;
} conn;

/* Reads once more; 0 at the end of the stream (a reset after the answer counts as its end). */
static int fill(conn *c) {
  if (c->len == sizeof c->buf) return 0;
  ssize_t n = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
  if (n <= 0) return 0;
  c->len += (size_t)n;
  return 1;
}

static void consume(conn *c, size_t n) {
  memmove(c->buf, c->buf + n, c->len - n);
  c->len -= n;
}

static char *find(conn *c, const char *needle) { return memmem(c->buf, c->len, needle, strlen(needle)); }

/* One answer: its status (0 when none came), its body copied to body (NUL-terminated). */
static int read_answer(conn *c, char *body, size_t cap) {
  body[0] = 0;
  while (!find(c, "\r\n\r\n"))
    if (!fill(c)) return 0;
  size_t end = (size_t)(find(c, "\r\n\r\n") - c->buf) + 4;
  int status = atoi(c->buf + 9);
  char head[8192];
  snprintf(head, sizeof head, "%.*s", (int)end, c->buf);
  consume(c, end);
  if (status >= 100 && status < 200) return status;
  for (char *p = head; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
  size_t out = 0;
  if (strstr(head, "\r\ntransfer-encoding: chunked")) {
    for (;;) {
      while (!find(c, "\r\n"))
        if (!fill(c)) return 0;
      size_t line = (size_t)(find(c, "\r\n") - c->buf);
      size_t size = strtoul(c->buf, NULL, 16);
      while (c->len < line + 2 + size + 2)
        if (!fill(c)) return 0;
      size_t take = size < cap - 1 - out ? size : cap - 1 - out;
      memcpy(body + out, c->buf + line + 2, take), out += take, body[out] = 0;
      consume(c, line + 2 + size + 2);
      if (size == 0) return status;
    }
  }
  const char *cl = strstr(head, "\r\ncontent-length:");
  size_t n = cl ? strtoul(cl + 17, NULL, 10) : 0;
  while (c->len < n)
    if (!fill(c)) return 0;
  size_t take = n < cap - 1 ? n : cap - 1;
  memcpy(body, c->buf, take), body[take] = 0;
  consume(c, n);
  return status;
}

/* `text` with {host} and {rpc} filled in, into out. */
static size_t fill_in(const char *text, const char *host, const char *rpc, char *out, size_t cap) {
  size_t o = 0;
  for (const char *p = text; *p && o + 1 < cap;) {
    const char *with = NULL;
    if (strncmp(p, "{host}", 6) == 0) with = host, p += 6;
    else if (strncmp(p, "{rpc}", 5) == 0) with = rpc, p += 5;
    if (with) {
      size_t n = strlen(with);
      if (o + n >= cap) break;
      memcpy(out + o, with, n), o += n;
    } else {
      out[o++] = *p++;
    }
  }
  out[o] = 0;
  return o;
}

static int dial(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  struct timeval tv = {.tv_sec = 5};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) return close(fd), -1;
  return fd;
}

static void run_case(int port, const char *rpc, const cJSON *kase) {
  const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(kase, "name"));
  char host[32], out[8192], body[8192];
  snprintf(host, sizeof host, "127.0.0.1:%d", port);
  conn *c = calloc(1, sizeof *c);
  c->fd = dial(port);
  CHECK(c->fd >= 0, "%s: connect", name);
  const cJSON *step;
  cJSON_ArrayForEach(step, cJSON_GetObjectItemCaseSensitive(kase, "steps")) {
    const cJSON *send_ = cJSON_GetObjectItemCaseSensitive(step, "send"), *status = cJSON_GetObjectItemCaseSensitive(step, "status");
    if (cJSON_IsString(send_)) {
      size_t n = fill_in(send_->valuestring, host, rpc, out, sizeof out);
      CHECK(send(c->fd, out, n, MSG_NOSIGNAL) == (ssize_t)n, "%s: send", name);
    } else if (cJSON_IsNumber(status)) {
      int got = read_answer(c, body, sizeof body);
      CHECK(got == status->valueint, "%s: answered %d (%s), expected %d", name, got, body, status->valueint);
    } else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(step, "closed"))) {
      while (fill(c)) {}
      CHECK(c->len == 0, "%s: more came after the answer: %.*s", name, (int)c->len, c->buf);
      break;
    } else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(step, "open"))) {
      size_t n = fill_in("GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {host}\r\n\r\n", host, rpc, out, sizeof out);
      CHECK(send(c->fd, out, n, MSG_NOSIGNAL) == (ssize_t)n, "%s: send on the kept connection", name);
      CHECK(read_answer(c, body, sizeof body) == 200, "%s: the connection did not stay open", name);
    }
  }
  if (c->fd >= 0) close(c->fd);
  free(c);
}

static int tagged(const cJSON *kase, const char *tag) {
  const cJSON *t;
  cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(kase, "tags")) if (cJSON_IsString(t) && strcmp(t->valuestring, tag) == 0) return 1;
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: %s tests/vectors/http1/framing.json\n", argv[0]), 2;
  size_t len;
  char *text = read_file(argv[1], &len);
  cJSON *table = text ? cJSON_ParseWithLength(text, len) : NULL;
  if (!table) return fprintf(stderr, "%s: not readable JSON\n", argv[1]), 2;
  a2a_agent agent = {.start = start, .cancel = cancel, .userdata = NULL};
  a2a_server *server = NULL;
  CHECK_OK(a2a_server_start(S("127.0.0.1:0"), U(card), &agent, &server));
  if (!server) return 1;
  int port = a2a_server_port(server);
  /* The JSON-RPC v1.0 path from the card the server publishes. */
  char rpc[256] = "", body[8192];
  conn *c = calloc(1, sizeof *c);
  c->fd = dial(port);
  const char probe[] = "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: x\r\n\r\n";
  CHECK(send(c->fd, probe, sizeof probe - 1, MSG_NOSIGNAL) > 0, "card request");
  CHECK(read_answer(c, body, sizeof body) == 200, "the card");
  close(c->fd), free(c);
  cJSON *got = cJSON_Parse(body);
  const cJSON *i;
  cJSON_ArrayForEach(i, cJSON_GetObjectItemCaseSensitive(got, "supportedInterfaces")) {
    const char *b = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(i, "protocolBinding"));
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(i, "protocolVersion"));
    const char *url = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(i, "url"));
    const char *scheme = url ? strstr(url, "://") : NULL, *path = scheme ? strchr(scheme + 3, '/') : NULL; /* gRPC URLs have none */
    if (b && v && path && strcmp(b, "JSONRPC") == 0 && strcmp(v, "1.0") == 0 && !rpc[0]) snprintf(rpc, sizeof rpc, "%s", path);
  }
  cJSON_Delete(got);
  CHECK(rpc[0] == '/', "the card lists a JSON-RPC v1.0 interface");
  int ran = 0, smuggling = 0;
  const cJSON *kase;
  cJSON_ArrayForEach(kase, cJSON_GetObjectItemCaseSensitive(table, "cases")) {
    if (!tagged(kase, "smuggling") && !tagged(kase, "control")) continue;
    run_case(port, rpc, kase), ran++, smuggling += tagged(kase, "smuggling");
  }
  CHECK(smuggling >= 5 && ran > smuggling, "%d cases run, %d of them smuggling", ran, smuggling);
  /* Still serving after every refusal. */
  cJSON_ArrayForEach(kase, cJSON_GetObjectItemCaseSensitive(table, "cases")) {
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(kase, "name"));
    if (name && strcmp(name, "pipelined-requests") == 0) run_case(port, rpc, kase);
  }
  a2a_server_free(server);
  cJSON_Delete(table);
  free(text);
  printf("framing: %d cases, %d checks, %d failures\n", ran, test_checks, test_failures);
  return test_failures ? 1 : 0;
}
