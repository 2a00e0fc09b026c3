/* Sends one message to an A2A agent and prints the reply: `client URL TEXT`.
 * The reply is a task (its artifacts' text and state) or a direct message. */
#include <a2a_wire.h>
#include <stdio.h>
#include <string.h>

static int fail(const char *what, a2a_result r) {
  const a2a_error *e = a2a_error_last();
  a2a_str m = a2a_error_message(e);
  fprintf(stderr, "%s: %s", what, a2a_result_message(r));
  if (a2a_error_get_kind(e) != A2A_ERROR_KIND_NONE)
    fprintf(stderr, " [%s, JSON-RPC %d, HTTP %u, gRPC %d]", a2a_error_kind_name(a2a_error_get_kind(e)),
            a2a_error_jsonrpc_code(e), a2a_error_http_status(e), a2a_error_grpc_status(e));
  fprintf(stderr, ": %.*s\n", (int)m.len, m.data);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: %s URL TEXT\n", argv[0]), 2;
  a2a_client *client;
  a2a_result r = a2a_client_connect(argv[1], strlen(argv[1]), NULL, 0, NULL, 0, 0, &client);
  if (r != A2A_RESULT_OK) return fail("connect", r);
  const a2a_interface *via = a2a_client_interface(client);
  a2a_str binding = a2a_interface_binding(via), version = a2a_interface_version(via);
  fprintf(stderr, "using %.*s %.*s\n", (int)binding.len, binding.data, (int)version.len, version.data);
  a2a_bytes *reply;
  r = a2a_client_send_text(client, argv[2], strlen(argv[2]), &reply);
  if (r != A2A_RESULT_OK) {
    a2a_client_free(client);
    return fail("send", r);
  }
  /* The reply as ProtoJSON (lf.a2a.v1.SendMessageResponse). */
  printf("%.*s\n", (int)a2a_bytes_len(reply), (const char *)a2a_bytes_data(reply));
  a2a_bytes_free(reply);
  a2a_client_free(client);
  return 0;
}
