/* Per-principal authorization from C: the ready server with bearer tokens
 * (a2a_server_config_set_bearer_tokens), checked by the two-principal matrix
 * (a2a-wire-isolation, tests/src/bin/isolation.rs) over all six interfaces: principal B
 * tries every operation on principal A's tasks and push configs and must get exactly the
 * answer a task that does not exist gets. Then the same matrix must catch two tokens of one
 * principal, and bad token tables are refused with the line named and no token repeated.
 *
 *   test_isolation PATH-TO-a2a-wire-isolation
 */
#define _GNU_SOURCE
#include "common.h"

static const char card[] =
  "{\"name\":\"isolation\",\"description\":\"two principals\",\"version\":\"1\","
  "\"capabilities\":{\"streaming\":true,\"pushNotifications\":true},"
  "\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":[\"text/plain\"],\"skills\":[]}";

/* The two behaviours the matrix needs: a task left waiting, and a finished one. */
static void start(void *userdata, const a2a_run *run, a2a_sink *sink) {
  (void)userdata;
  a2a_str text = a2a_run_text(run), principal;
  CHECK(a2a_run_principal(run, &principal) == A2A_RESULT_OK && principal.len > 0, "every run has its caller's principal");
  if (!a2a_run_is_follow_up(run) && str_eq(text, "need-input")) {
    CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_INPUT_REQUIRED, S("What should I echo?")));
  } else {
    CHECK_OK(a2a_sink_artifact_text(sink, S("echo"), text.data, text.len, false, true));
    CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_COMPLETED, NULL, 0));
  }
  a2a_sink_free(sink);
}

/* Runs the matrix against `server`; returns its exit status, counts its rows and failures
 * (printed when `show`: the run that must pass). */
static int run_matrix(const char *matrix, a2a_server *server, int *rows, int *failed, int show) {
  a2a_str url = a2a_server_url(server);
  char url_z[128];
  snprintf(url_z, sizeof url_z, "%.*s", (int)url.len, url.data);
  char *const argv[] = {(char *)matrix, "--url", url_z, "--token-a", "alice-token", "--token-b", "bob-token", NULL};
  return run_json_rows(argv, "matrix", show, rows, failed);
}

static a2a_server *serve(const char *tokens) {
  a2a_server_config *cfg = NULL;
  a2a_server *server = NULL;
  CHECK_OK(a2a_server_config_new(&cfg));
  CHECK_OK(a2a_server_config_set_bearer_tokens(cfg, tokens, strlen(tokens)));
  a2a_agent agent = {start, NULL, NULL};
  CHECK_OK(a2a_server_start_with(S("127.0.0.1:0"), U(card), &agent, cfg, &server));
  a2a_server_config_free(cfg); /* the server keeps what it needs */
  return server;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_isolation PATH-TO-a2a-wire-isolation\n");
    return 2;
  }
  int rows, failed;
  a2a_server *server = serve("# TOKEN PRINCIPAL\nalice-token alice\nbob-token bob\n");
  if (!server) return 1;
  int code = run_matrix(argv[1], server, &rows, &failed, 1);
  CHECK(code == 0 && failed == 0, "the matrix passes: exit %d, %d of %d rows failed", code, failed, rows);
  CHECK(rows == 6 * 14, "every check on all six interfaces: %d rows", rows);
  a2a_server_free(server);

  server = serve("alice-token alice\nbob-token alice\n");
  if (!server) return 1;
  code = run_matrix(argv[1], server, &rows, &failed, 0);
  CHECK(code == 1 && failed > 0, "two tokens of one principal are caught: exit %d, %d failures", code, failed);
  a2a_server_free(server);

  a2a_server_config *cfg = NULL;
  CHECK_OK(a2a_server_config_new(&cfg));
  CHECK_RESULT(a2a_server_config_set_bearer_tokens(cfg, S("alice-token alice\nsecret-x\n")), A2A_RESULT_INVALID_ARGUMENT);
  CHECK(strstr(last_message(), "line 2") != NULL && strstr(last_message(), "secret-x") == NULL, "names the line, not the token: %s", last_message());
  CHECK_RESULT(a2a_server_config_set_bearer_tokens(cfg, S("# nobody\n")), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_RESULT(a2a_server_config_set_bearer_tokens(NULL, S("a b\n")), A2A_RESULT_NULL_PARAMETER);
  a2a_server_config_free(cfg);
  a2a_server_config_free(NULL);

  printf("isolation: %d checks, %d failures\n", test_checks, test_failures);
  return test_failures ? 1 : 0;
}
