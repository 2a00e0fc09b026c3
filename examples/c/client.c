/* Sends one message to an A2A agent and prints the reply: `client URL TEXT`.
 * The reply is a task (its state and its artifacts' text) or a direct message. */
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

static void print_text(const char *label, const a2a_part *(*part)(const void *, size_t), const void *owner) {
  printf("%s:", label);
  for (size_t i = 0; part(owner, i); i++) {
    a2a_str t = a2a_part_text(part(owner, i));
    printf(" %.*s", (int)t.len, t.data);
  }
  printf("\n");
}
static const a2a_part *artifact_part(const void *a, size_t i) { return a2a_artifact_part(a, i); }
static const a2a_part *message_part(const void *m, size_t i) { return a2a_message_part(m, i); }

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: %s URL TEXT\n", argv[0]), 2;
  a2a_client *client;
  a2a_result r = a2a_client_connect(argv[1], strlen(argv[1]), NULL, 0, NULL, 0, 0, &client);
  if (r != A2A_RESULT_OK) return fail("connect", r);
  const a2a_interface *via = a2a_client_interface(client);
  a2a_str binding = a2a_interface_binding(via), version = a2a_interface_version(via);
  fprintf(stderr, "using %.*s %.*s\n", (int)binding.len, binding.data, (int)version.len, version.data);
  a2a_bytes *json;
  a2a_reply *reply;
  r = a2a_client_send_text(client, argv[2], strlen(argv[2]), &json);
  a2a_client_free(client);
  if (r != A2A_RESULT_OK) return fail("send", r);
  r = a2a_reply_decode(A2A_FORMAT_JSON, a2a_bytes_data(json), a2a_bytes_len(json), &reply);
  a2a_bytes_free(json);
  if (r != A2A_RESULT_OK) return fail("reply", r);
  const a2a_task *task = a2a_reply_task(reply);
  if (task) {
    a2a_str id = a2a_task_id(task);
    printf("task %.*s %s\n", (int)id.len, id.data, a2a_task_state_name(a2a_task_get_state(task)));
    const a2a_message *question = a2a_task_status_message(task);
    if (question) print_text("agent", message_part, question);
    for (size_t i = 0; i < a2a_task_artifact_count(task); i++) {
      a2a_str name = a2a_artifact_id(a2a_task_artifact(task, i));
      char label[64];
      snprintf(label, sizeof label, "artifact %.*s", (int)name.len, name.data);
      print_text(label, artifact_part, a2a_task_artifact(task, i));
    }
  } else {
    print_text("message", message_part, a2a_reply_message(reply));
  }
  a2a_reply_free(reply);
  return 0;
}
