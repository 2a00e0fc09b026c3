/* The demo echo agent on a2a-wire's ready server: `agent 127.0.0.1:PORT`. "need-input" asks a
 * question, "slow" streams three chunks, "message-only" replies with a message, else echo. */
#include <a2a_wire.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define S(lit) lit, sizeof(lit) - 1
#define IS(s, lit) ((s).len == sizeof(lit) - 1 && memcmp((s).data, lit, (s).len) == 0)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle = PTHREAD_COND_INITIALIZER;
static int running; /* "slow" threads still publishing */
static void *slow(void *arg) {
  a2a_sink *sink = arg;
  const char *piece[] = {"one ", "two ", "three"};
  for (int i = 0; i < 3 && !a2a_sink_is_canceled(sink); i++) {
    usleep(700 * 1000);
    a2a_sink_artifact_text(sink, S("slow"), piece[i], strlen(piece[i]), i > 0, i == 2);
  }
  a2a_sink_status(sink, A2A_TASK_STATE_COMPLETED, NULL, 0); /* refused if canceled */
  a2a_sink_free(sink);
  pthread_mutex_lock(&lock);
  if (--running == 0) pthread_cond_signal(&idle);
  return pthread_mutex_unlock(&lock), NULL;
}

/* Called on the server's thread: must not block. The sink is ours to free. */
static void start(void *userdata, const a2a_run *run, a2a_sink *sink) {
  (void)userdata;
  a2a_str text = a2a_run_text(run);
  bool first = !a2a_run_is_follow_up(run); /* a follow-up of need-input is echoed */
  if (first && IS(text, "need-input")) {
    a2a_sink_status(sink, A2A_TASK_STATE_INPUT_REQUIRED, S("What should I echo?"));
  } else if (first && IS(text, "slow")) {
    pthread_t t;
    a2a_sink_status(sink, A2A_TASK_STATE_WORKING, NULL, 0);
    pthread_mutex_lock(&lock);
    bool started = pthread_create(&t, NULL, slow, sink) == 0 && pthread_detach(t) == 0 && ++running;
    pthread_mutex_unlock(&lock);
    if (started) return;
    a2a_sink_fail(sink, S("no thread for the slow run"));
  } else if (first && IS(text, "message-only")) {
    a2a_sink_message_text(sink, text.data, text.len);
  } else {
    a2a_sink_artifact_text(sink, S("echo"), text.data, text.len, false, true);
    a2a_sink_status(sink, A2A_TASK_STATE_COMPLETED, NULL, 0);
  }
  a2a_sink_free(sink);
}

int main(int argc, char **argv) {
  static const char card[] = "{\"name\":\"a2a-wire C echo\",\"description\":\"Echoes text back\","
    "\"version\":\"1.0.0\",\"capabilities\":{\"streaming\":true},\"defaultInputModes\":[\"text/plain\"],"
    "\"defaultOutputModes\":[\"text/plain\"],\"skills\":[{\"id\":\"echo\",\"name\":\"Echo\","
    "\"description\":\"Echoes the text of a message\",\"tags\":[\"echo\"]}]}";
  if (argc != 2) return fprintf(stderr, "usage: %s 127.0.0.1:PORT\n", argv[0]), 2;
  sigset_t stop;
  sigemptyset(&stop), sigaddset(&stop, SIGINT), sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, NULL); /* before any thread starts: they inherit it */
  a2a_agent agent = {.start = start, .cancel = NULL, .userdata = NULL};
  a2a_server *server;
  a2a_result r = a2a_server_start(argv[1], strlen(argv[1]), (const uint8_t *)card, sizeof card - 1, &agent, &server);
  if (r != A2A_RESULT_OK) {
    a2a_str why = a2a_error_message(a2a_error_last());
    return fprintf(stderr, "cannot serve: %s: %.*s\n", a2a_result_message(r), (int)why.len, why.data), 1;
  }
  a2a_str url = a2a_server_url(server);
  printf("serving %.*s\n", (int)url.len, url.data), fflush(stdout);
  int sig;
  sigwait(&stop, &sig);
  a2a_server_free(server); /* stops the server; "slow" threads see their sinks canceled */
  pthread_mutex_lock(&lock);
  while (running > 0) pthread_cond_wait(&idle, &lock);
  pthread_mutex_unlock(&lock);
  return 0;
}
