// Push notifications end to end from C/C++: the ready server (a2a_server_start_with, the SSRF
// guard's allow-list naming 127.0.0.1) delivers a task's events to a webhook hosted in
// cpp-httplib, where a2a_receiver judges each delivery. The application fails the second
// event once (a2a_receiver_retry_later: 503), the server delivers it again, and the
// application sees every event exactly once, in order, the completed status last. A wrong
// token is refused (401) and never handed over, and a server without the allow-list entry
// (the SSRF guard on) delivers nothing to 127.0.0.1.
//
//   test_webhook
#include <a2a_wire.h>
#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <strings.h>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
#define S(lit) lit, sizeof(lit) - 1

int failures = 0, checks = 0;
#define CHECK(cond, ...)                                       \
  do {                                                         \
    checks++;                                                  \
    if (!(cond)) {                                             \
      failures++;                                              \
      std::fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      std::fprintf(stderr, __VA_ARGS__);                       \
      std::fprintf(stderr, "\n");                              \
    }                                                          \
  } while (0)

std::string last_message() {
  a2a_str m = a2a_error_message(a2a_error_last());
  return std::string(m.data, m.len);
}
#define CHECK_OK(call) CHECK((call) == A2A_RESULT_OK, "%s: %s", #call, last_message().c_str())

const char kCard[] =
    "{\"name\":\"hooks\",\"description\":\"C webhooks\",\"version\":\"1\","
    "\"capabilities\":{\"streaming\":true,\"pushNotifications\":true},"
    "\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":[\"text/plain\"],\"skills\":[]}";

// "wait" asks for input; its follow-up works in three chunks, then completes.
void start(void *, const a2a_run *run, a2a_sink *sink) {
  if (!a2a_run_is_follow_up(run)) {
    CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_INPUT_REQUIRED, S("go?")));
  } else {
    CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_WORKING, nullptr, 0));
    CHECK_OK(a2a_sink_artifact_text(sink, S("out"), S("one"), false, false));
    CHECK_OK(a2a_sink_artifact_text(sink, S("out"), S("two"), true, false));
    CHECK_OK(a2a_sink_artifact_text(sink, S("out"), S("three"), true, true));
    CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_COMPLETED, nullptr, 0));
  }
  a2a_sink_free(sink);
}

// What the application took: one line per event ("status WORKING", "artifact two", ...).
struct App {
  std::mutex mu;
  a2a_receiver *receiver = nullptr;
  std::vector<std::string> taken;
  int requests = 0, refused = 0, duplicates = 0, failed_once = 0;
};

std::string describe(const a2a_event *ev) {
  switch (a2a_event_get_kind(ev)) {
    case A2A_EVENT_KIND_STATUS_UPDATE:
      return "status " + std::to_string(a2a_event_state(ev));
    case A2A_EVENT_KIND_ARTIFACT_UPDATE: {
      const a2a_artifact *a = a2a_event_artifact(ev);
      a2a_str t = a2a_part_text(a2a_artifact_part(a, 0));
      return "artifact " + std::string(t.data, t.len);
    }
    case A2A_EVENT_KIND_TASK:
      return "task " + std::to_string(a2a_event_state(ev));
    default:
      return "other";
  }
}

// The webhook: every delivery through the receiver; the application fails the second
// event it is handed, once.
void serve_hook(App &app, const httplib::Request &req, httplib::Response &res) {
  std::vector<a2a_header> headers;
  for (const auto &h : req.headers) headers.push_back({h.first.data(), h.first.size(), h.second.data(), h.second.size()});
  std::lock_guard<std::mutex> lock(app.mu);
  app.requests++;
  a2a_delivery *d = nullptr;
  if (a2a_receiver_handle(app.receiver, req.method.data(), req.method.size(), headers.data(), headers.size(),
                          reinterpret_cast<const uint8_t *>(req.body.data()), req.body.size(), &d) != A2A_RESULT_OK) {
    res.status = 500;
    return;
  }
  uint32_t kind = a2a_delivery_get_kind(d);
  if (kind == A2A_DELIVERY_KIND_EVENT) {
    if (app.taken.size() == 1 && app.failed_once == 0) {
      app.failed_once++;  // "the database is down": the sender must deliver it again
      a2a_receiver_retry_later(app.receiver, d);
    } else {
      app.taken.push_back(describe(a2a_delivery_event(d)));
    }
  } else if (kind == A2A_DELIVERY_KIND_DUPLICATE) {
    app.duplicates++;
  } else {
    app.refused++;
  }
  res.status = a2a_delivery_status(d);
  std::string content_type = "text/plain";
  for (size_t i = 0;; i++) {
    a2a_str k, v;
    if (a2a_delivery_header(d, i, &k, &v) != A2A_RESULT_OK) break;
    std::string name(k.data, k.len), value(v.data, v.len);
    if (strcasecmp(name.c_str(), "Content-Type") == 0) content_type = value;
    else res.set_header(name, value);
  }
  a2a_str body = a2a_delivery_body(d);
  if (body.len) res.set_content(std::string(body.data, body.len), content_type);
  a2a_delivery_free(d);
}

std::string json_field(const std::string &json, const std::string &name) {
  std::string key = "\"" + name + "\":\"";
  size_t at = json.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  return json.substr(at, json.find('"', at) - at);
}

std::string bytes_string(a2a_bytes *b) {
  std::string s(reinterpret_cast<const char *>(a2a_bytes_data(b)), a2a_bytes_len(b));
  a2a_bytes_free(b);
  return s;
}

// Starts a task that waits for input, registers the webhook for it, and sends the follow-up
// that makes it work; returns the task id.
std::string run_task(a2a_client *c, App &app, const std::string &hook, const char *token) {
  a2a_bytes *r = nullptr;
  CHECK_OK(a2a_client_send_text(c, S("wait"), &r));
  if (!r) return "";
  std::string task = json_field(bytes_string(r), "id");
  {
    std::lock_guard<std::mutex> lock(app.mu);
    CHECK_OK(a2a_receiver_expect_task(app.receiver, task.data(), task.size()));
  }
  std::string config = "{\"taskId\":\"" + task + "\",\"url\":\"" + hook + "\",\"token\":\"" + token + "\"}";
  r = nullptr;
  CHECK_OK(a2a_client_call(c, A2A_METHOD_CREATE_TASK_PUSH_NOTIFICATION_CONFIG, reinterpret_cast<const uint8_t *>(config.data()),
                           config.size(), &r));
  if (r) a2a_bytes_free(r);
  std::string follow = "{\"message\":{\"messageId\":\"go-" + task + "\",\"role\":\"ROLE_USER\",\"taskId\":\"" + task +
                       "\",\"parts\":[{\"text\":\"go\"}]}}";
  r = nullptr;
  CHECK_OK(a2a_client_call(c, A2A_METHOD_SEND_MESSAGE, reinterpret_cast<const uint8_t *>(follow.data()), follow.size(), &r));
  if (r) a2a_bytes_free(r);
  return task;
}

a2a_server *start_server(bool allow) {
  a2a_server_config *cfg = nullptr;
  CHECK_OK(a2a_server_config_new(&cfg));
  if (allow) CHECK_OK(a2a_server_config_allow_webhook(cfg, S("127.0.0.1")));
  a2a_agent agent = {start, nullptr, nullptr};
  a2a_server *server = nullptr;
  CHECK_OK(a2a_server_start_with(S("127.0.0.1:0"), reinterpret_cast<const uint8_t *>(kCard), sizeof kCard - 1, &agent, cfg, &server));
  a2a_server_config_free(cfg);
  return server;
}

a2a_client *connect(a2a_server *server) {
  a2a_str u = a2a_server_url(server);
  a2a_client *c = nullptr;
  CHECK_OK(a2a_client_connect(u.data, u.len, S("JSONRPC"), nullptr, 0, 10000, &c));
  return c;
}

}  // namespace

int main() {
  App app;
  CHECK_OK(a2a_receiver_new(S("hook-token"), nullptr, 0, &app.receiver));
  httplib::Server hooks;
  hooks.Post("/hook", [&](const httplib::Request &req, httplib::Response &res) { serve_hook(app, req, res); });
  int port = hooks.bind_to_any_port("127.0.0.1");
  std::thread listener([&] { hooks.listen_after_bind(); });
  std::string hook = "http://127.0.0.1:" + std::to_string(port) + "/hook";

  // The allow-list lets 127.0.0.1 through: every event arrives once, in order.
  a2a_server *server = start_server(true);
  a2a_client *c = server ? connect(server) : nullptr;
  if (c) {
    run_task(c, app, hook, "hook-token");
    const std::vector<std::string> want = {"status " + std::to_string(A2A_TASK_STATE_WORKING), "artifact one", "artifact two",
                                           "artifact three", "status " + std::to_string(A2A_TASK_STATE_COMPLETED)};
    // Bounded wait: the failed delivery is retried after the default backoff (0.5 s).
    for (int i = 0; i < 200; i++) {
      {
        std::lock_guard<std::mutex> lock(app.mu);
        if (app.taken.size() >= want.size()) break;
      }
      std::this_thread::sleep_for(50ms);
    }
    std::this_thread::sleep_for(300ms);  // anything sent twice would arrive meanwhile
    std::lock_guard<std::mutex> lock(app.mu);
    std::string got;
    for (const auto &t : app.taken) got += t + "; ";
    CHECK(app.taken == want, "every event once, in order: %s", got.c_str());
    CHECK(app.failed_once == 1, "the application failed one delivery");
    CHECK(app.requests == static_cast<int>(want.size()) + 1 + app.duplicates, "%d requests: each event once, the failed one twice",
          app.requests);
    CHECK(app.refused == 0, "nothing refused: %d", app.refused);
  }

  // A forged delivery (wrong token) is refused with 401 and never handed over.
  {
    httplib::Client forger("127.0.0.1", port);
    {
      std::lock_guard<std::mutex> lock(app.mu);
      CHECK_OK(a2a_receiver_expect_task(app.receiver, S("forged")));
    }
    std::string body = "{\"statusUpdate\":{\"taskId\":\"forged\",\"contextId\":\"c\",\"status\":{\"state\":\"TASK_STATE_COMPLETED\"}}}";
    auto r = forger.Post("/hook", httplib::Headers{{"A2A-Notification-Token", "not-it"}}, body, "application/a2a+json");
    CHECK(r && r->status == 401, "a wrong token: 401, got %d", r ? r->status : -1);
    std::lock_guard<std::mutex> lock(app.mu);
    CHECK(app.refused == 1 && app.taken.size() == 5, "refused, not handed over");
  }
  if (c) a2a_client_free(c);
  if (server) a2a_server_free(server);

  // Without the allow-list entry the SSRF guard refuses 127.0.0.1: nothing arrives.
  server = start_server(false);
  c = server ? connect(server) : nullptr;
  if (c) {
    int before;
    {
      std::lock_guard<std::mutex> lock(app.mu);
      before = app.requests;
    }
    run_task(c, app, hook, "hook-token");
    std::this_thread::sleep_for(1500ms);
    std::lock_guard<std::mutex> lock(app.mu);
    CHECK(app.requests == before, "the guard delivered nothing to 127.0.0.1: %d requests", app.requests - before);
    a2a_client_free(c);
  }
  if (server) a2a_server_free(server);
  hooks.stop();
  listener.join();
  a2a_receiver_free(app.receiver);
  std::printf("webhook: %d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
