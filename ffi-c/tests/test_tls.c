/* TLS from C, with a throwaway CA made at test time (a2a-wire-testca writes DIR first):
 * the ready server with a2a_server_config_set_tls_files on every binding, the blocking
 * client with a2a_client_config_set_ca_file (and A2A_RESULT_TLS for what it cannot verify),
 * and the official Python SDK's client (tests/interop/python/their_client.py) against the
 * C agent over TLS on all three bindings, in v1.0 and v0.3.
 *
 *   test_tls DIR PYTHON THEIR_CLIENT_PY
 */
#define _GNU_SOURCE
#include "common.h"

static const char card[] =
  "{\"name\":\"tls\",\"description\":\"C agent over TLS\",\"version\":\"1\",\"capabilities\":{\"streaming\":true},"
  "\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":[\"text/plain\"],\"skills\":[]}";

/* The interop matrix's agent: need-input, slow (three appended chunks), message-only, echo. */
static void start(void *userdata, const a2a_run *run, a2a_sink *sink) {
  (void)userdata;
  a2a_str text = a2a_run_text(run);
  int follow = a2a_run_is_follow_up(run);
  if (!follow && str_eq(text, "need-input")) {
    CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_INPUT_REQUIRED, S("What should I echo?")));
  } else if (!follow && str_eq(text, "slow")) {
    CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_WORKING, NULL, 0));
    CHECK_OK(a2a_sink_artifact_text(sink, S("slow"), S("one "), false, false));
    CHECK_OK(a2a_sink_artifact_text(sink, S("slow"), S("two "), true, false));
    CHECK_OK(a2a_sink_artifact_text(sink, S("slow"), S("three"), true, true));
    CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_COMPLETED, NULL, 0));
  } else if (!follow && str_eq(text, "message-only")) {
    CHECK_OK(a2a_sink_message_text(sink, text.data, text.len));
  } else {
    CHECK_OK(a2a_sink_artifact_text(sink, S("echo"), text.data, text.len, false, true));
    CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_COMPLETED, NULL, 0));
  }
  a2a_sink_free(sink);
}

static char path_buf[8][512];
static const char *in_dir(int slot, const char *dir, const char *name) {
  snprintf(path_buf[slot], sizeof path_buf[slot], "%s/%s", dir, name);
  return path_buf[slot];
}

/* The SDK client against `url`; returns its exit status, counts its rows and failures. */
static int sdk_client(const char *python, const char *script, const char *url, const char *ca, int *rows, int *failed) {
  char *const argv[] = {(char *)python, (char *)script, "--url", (char *)url, "--ca-file", (char *)ca, NULL};
  return run_json_rows(argv, "sdk", 1, rows, failed);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: test_tls DIR PYTHON THEIR_CLIENT_PY\n");
    return 2;
  }
  const char *dir = argv[1];
  const char *cert = in_dir(0, dir, "server.pem"), *key = in_dir(1, dir, "server.key"), *ca = in_dir(2, dir, "ca.pem");

  a2a_server_config *scfg = NULL;
  CHECK_OK(a2a_server_config_new(&scfg));
  const char *missing = in_dir(3, dir, "missing.key");
  CHECK_RESULT(a2a_server_config_set_tls_files(scfg, cert, strlen(cert), missing, strlen(missing)), A2A_RESULT_TLS);
  CHECK_OK(a2a_server_config_set_tls_files(scfg, cert, strlen(cert), key, strlen(key)));
  a2a_agent agent = {start, NULL, NULL};
  a2a_server *server = NULL;
  CHECK_OK(a2a_server_start_with(S("127.0.0.1:0"), U(card), &agent, scfg, &server));
  a2a_server_config_free(scfg);
  if (!server) return 1;
  a2a_str u = a2a_server_url(server);
  char url[128];
  snprintf(url, sizeof url, "%.*s", (int)u.len, u.data);
  CHECK(strncmp(url, "https://127.0.0.1:", 18) == 0, "the server's URL is https://: %s", url);

  /* Our client, trusting the test CA, on every binding and version. */
  a2a_client_config *ccfg = NULL;
  CHECK_OK(a2a_client_config_new(&ccfg));
  CHECK_RESULT(a2a_client_config_set_ca_file(ccfg, missing, strlen(missing)), A2A_RESULT_TLS);
  CHECK_OK(a2a_client_config_set_ca_file(ccfg, ca, strlen(ca)));
  const char *client_cert = in_dir(4, dir, "client.pem"), *client_key = in_dir(5, dir, "client.key");
  CHECK_OK(a2a_client_config_set_client_cert_files(ccfg, client_cert, strlen(client_cert), client_key, strlen(client_key)));
  CHECK_RESULT(a2a_client_config_set_client_cert_files(ccfg, client_cert, strlen(client_cert), key, strlen(key)), A2A_RESULT_TLS);
  const char *bindings[] = {"JSONRPC", "HTTP+JSON", "GRPC"}, *versions[] = {"1.0", "0.3"};
  for (int b = 0; b < 3; b++) {
    for (int v = 0; v < 2; v++) {
      a2a_client *c = NULL;
      CHECK_OK(a2a_client_connect_with(url, strlen(url), bindings[b], strlen(bindings[b]), versions[v], strlen(versions[v]), 10000, ccfg, &c));
      if (!c) continue;
      a2a_bytes *r = NULL;
      CHECK_OK(a2a_client_send_text(c, S("hello"), &r));
      a2a_str body = {(const char *)a2a_bytes_data(r), a2a_bytes_len(r)};
      CHECK(str_contains(body, "TASK_STATE_COMPLETED") && str_contains(body, "hello"), "%s %s: %.*s", bindings[b], versions[v], (int)body.len, body.data);
      a2a_bytes_free(r);
      a2a_client_free(c);
    }
  }
  a2a_client_config_free(ccfg);

  /* Without the test CA (the platform's roots), or trusting nothing of it: A2A_RESULT_TLS. */
  a2a_client *c = NULL;
  CHECK_RESULT(a2a_client_connect(url, strlen(url), NULL, 0, NULL, 0, 10000, &c), A2A_RESULT_TLS);
  CHECK(strstr(last_message(), "TLS") != NULL, "the message says TLS: %s", last_message());

  /* The official Python SDK's client against the C agent over TLS. */
  int rows, failed;
  int code = sdk_client(argv[2], argv[3], url, ca, &rows, &failed);
  CHECK(code == 0 && failed == 0, "the SDK's checks over TLS: exit %d, %d of %d failed", code, failed, rows);
  CHECK(rows == 3 * (9 + 8), "nine checks in v1.0 and eight in v0.3 on three bindings: %d rows", rows);

  a2a_server_free(server);
  printf("tls: %d checks, %d failures\n", test_checks, test_failures);
  return test_failures ? 1 : 0;
}
