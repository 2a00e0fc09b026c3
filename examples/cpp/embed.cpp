// The demo echo agent served through cpp-httplib with a2a-wire's sans-IO service:
// `embed 127.0.0.1:PORT [--store memory|FILE] [--cache-mb N] [--retain-ms N]`. httplib does
// the HTTP; every A2A decision is the library's.
// "need-input" asks a question (a follow-up completes it), "slow" streams three chunks,
// "message-only" replies with a message, anything else is echoed as an artifact.
//
// The service handle is used by one thread at a time, so one mutex guards it (and all the
// state below). Each request registers a slot for its call id; draining the service routes
// answers and stream outputs to the slots, where the request's thread picks them up.
//
// With --store the service keeps its tasks in a store this program answers for: in memory
// or in a SQLite file (the one `a2a-wire serve --store FILE` uses). The service asks with
// STORE outputs; one store thread answers them in order, outside the lock (store IO
// blocks), and feeds each reply back. Calls that wait for the store are parked meanwhile.
#include <a2a_wire.h>
#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <strings.h>
#include <system_error>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
#define S(lit) lit, sizeof(lit) - 1

constexpr size_t kMaxQueuedFrames = 1024;  // per stream, for a client that reads slowly

struct Slot {  // one call in flight: the outputs routed to it, in order
  std::condition_variable ready;
  std::deque<a2a_output *> queue;
  bool ended = false;     // its STREAM_END was taken: the call is over
  bool released = false;  // httplib is done with the stream
};

struct Run {  // an agent run the service started and we have not ended yet
  bool canceled = false;
  bool done = false;  // a "slow" worker that ended its run (join it)
  std::thread worker;
};

// Everything below is guarded by `mu`.
std::mutex mu;
std::condition_variable changed;  // after every drain: timers, cancels, slots may have moved
a2a_service *svc;
std::map<uint64_t, std::shared_ptr<Slot>> slots;  // by call id
std::map<uint64_t, Run> runs;                     // by run id
std::deque<a2a_output *> to_start;                // START_RUN outputs, acted on after the drain
bool stopping = false;
a2a_store *store = nullptr;             // with --store
std::deque<a2a_output *> store_queue;   // STORE outputs for the store thread, in order
std::condition_variable store_wake;
bool store_stop = false;

int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string str(a2a_str s) { return std::string(s.data, s.len); }
const uint8_t *bytes(const std::string &s) { return reinterpret_cast<const uint8_t *>(s.data()); }

void drain();

// ---------------------------------------------------------------- the agent

void slow_worker(uint64_t id) {  // "slow": three chunks 0.7 s apart, off the HTTP threads
  static const char *const piece[] = {"one ", "two ", "three"};
  std::unique_lock<std::mutex> lock(mu);
  bool go = true;
  for (int i = 0; i < 3 && go; i++) {
    // Sleep without the lock; wake at once when the run is canceled or the server stops.
    go = !changed.wait_for(lock, 700ms, [&] { return runs.at(id).canceled || stopping; });
    go = go && a2a_service_agent_artifact_text(svc, id, S("slow"), piece[i], strlen(piece[i]), i > 0, i == 2, now_ms()) == A2A_RESULT_OK;
    drain();  // a refused event (the task is over) ends the loop too
  }
  if (go) a2a_service_agent_status(svc, id, A2A_TASK_STATE_COMPLETED, nullptr, 0, now_ms());
  a2a_service_run_end(svc, id, nullptr, 0, now_ms());
  drain();
  runs.at(id).done = true;  // last: a drain may reap other workers, never this one
}

void start_run(a2a_output *start) {  // lock held; `start` is a START_RUN output
  const a2a_run *run = a2a_output_run(start);  // borrowed from `start`
  uint64_t id = a2a_run_id(run);
  std::string text = str(a2a_run_text(run));
  bool first = !a2a_run_is_follow_up(run);
  int64_t now = now_ms();
  Run &r = runs[id];
  if (r.canceled || stopping) {
    // Canceled before it began: nothing to publish.
  } else if (first && text == "need-input") {
    a2a_service_agent_status_text(svc, id, A2A_TASK_STATE_INPUT_REQUIRED, S("What should I echo?"), now);
  } else if (first && text == "slow") {
    a2a_service_agent_status(svc, id, A2A_TASK_STATE_WORKING, nullptr, 0, now);
    for (auto it = runs.begin(); it != runs.end();)  // join the workers that have finished
      if (it->second.done) it->second.worker.join(), it = runs.erase(it); else ++it;
    try {
      r.worker = std::thread(slow_worker, id);  // it ends the run
      return a2a_output_free(start);
    } catch (const std::system_error &) {
      a2a_service_run_end(svc, id, S("no thread for the slow run"), now);
      runs.erase(id);
      return a2a_output_free(start);
    }
  } else if (first && text == "message-only") {
    a2a_service_agent_message_text(svc, id, text.data(), text.size(), now);
  } else {
    a2a_service_agent_artifact_text(svc, id, S("echo"), text.data(), text.size(), false, true, now);
    a2a_service_agent_status(svc, id, A2A_TASK_STATE_COMPLETED, nullptr, 0, now);
  }
  a2a_service_run_end(svc, id, nullptr, 0, now);
  runs.erase(id);
  a2a_output_free(start);
}

// ---------------------------------------------------------------- driving the service

void carry_out(a2a_output *o) {  // lock held; takes `o`
  switch (a2a_output_get_kind(o)) {
    case A2A_OUTPUT_KIND_ANSWER:
    case A2A_OUTPUT_KIND_STREAM_HEAD:
    case A2A_OUTPUT_KIND_STREAM_FRAME:
    case A2A_OUTPUT_KIND_STREAM_END: {
      uint64_t call = a2a_output_call(o);
      auto it = slots.find(call);
      if (it == slots.end()) break;  // the caller is gone: ignore it
      Slot &slot = *it->second;
      slot.queue.push_back(o);
      slot.ready.notify_one();
      // Too far behind: the service cuts the stream off with an error event (its END
      // still goes into this queue, which has no hard limit for that reason).
      if (a2a_output_get_kind(o) == A2A_OUTPUT_KIND_STREAM_FRAME && slot.queue.size() > kMaxQueuedFrames)
        a2a_service_slow_consumer(svc, call);
      return;
    }
    case A2A_OUTPUT_KIND_START_RUN:
      runs[a2a_output_run_id(o)];  // known from now on, so that a CANCEL_RUN behind it counts
      to_start.push_back(o);       // publishing now would feed the service mid-drain
      return;
    case A2A_OUTPUT_KIND_CANCEL_RUN: {
      auto it = runs.find(a2a_output_run_id(o));
      if (it != runs.end()) it->second.canceled = true;
      break;
    }
    case A2A_OUTPUT_KIND_STORE:  // comes only with --store
      store_queue.push_back(o);
      store_wake.notify_one();
      return;
    case A2A_OUTPUT_KIND_SEND_WEBHOOK:
      a2a_service_handle_webhook_result(svc, a2a_output_delivery_id(o), A2A_WEBHOOK_OUTCOME_REFUSED, 0,
                                        S("this example sends no webhooks"), now_ms());
      break;
    default:  // AUTHENTICATE never comes: the service was made without A2A_SERVICE_AUTHENTICATE
      break;
  }
  a2a_output_free(o);
}

void drain() {  // lock held: after every input, carry out the outputs until there are none
  for (;;) {
    a2a_output *o = nullptr;
    if (a2a_service_poll_output(svc, &o) == A2A_RESULT_OK) {
      carry_out(o);
    } else if (!to_start.empty()) {
      a2a_output *start = to_start.front();
      to_start.pop_front();
      start_run(start);  // its events are new inputs: go on draining
    } else {
      break;
    }
  }
  changed.notify_all();
}

void timer_loop() {  // calls a2a_service_handle_timeout when the service's deadline passes
  std::unique_lock<std::mutex> lock(mu);
  while (!stopping) {
    int64_t deadline = 0;
    if (a2a_service_poll_timeout(svc, &deadline) != A2A_RESULT_OK) {
      changed.wait(lock);
    } else if (now_ms() < deadline) {
      changed.wait_until(lock, std::chrono::system_clock::time_point(std::chrono::milliseconds(deadline)));
    } else {
      a2a_service_handle_timeout(svc, now_ms());
      drain();
    }
  }
}

void store_loop() {  // the store thread: answers STORE outputs in the order they came
  std::unique_lock<std::mutex> lock(mu);
  for (;;) {
    store_wake.wait(lock, [] { return !store_queue.empty() || store_stop; });
    if (store_queue.empty()) return;  // stopping, and nothing is left to write
    a2a_output *o = store_queue.front();
    store_queue.pop_front();
    lock.unlock();
    a2a_store_reply *reply = nullptr;  // the store's IO, without the lock
    a2a_result r = a2a_store_answer(store, o, &reply);
    a2a_output_free(o);
    lock.lock();
    if (r != A2A_RESULT_OK) {  // cannot happen for a STORE output; say so if it does
      fprintf(stderr, "store: %s\n", str(a2a_error_message(a2a_error_last())).c_str());
      continue;
    }
    a2a_service_handle_store(svc, reply, now_ms());  // takes `reply`
    drain();  // the calls that waited for it go on (and may ask the store again)
  }
}

// ---------------------------------------------------------------- HTTP

void serve(const httplib::Request &req, httplib::Response &res) {
  std::vector<a2a_header> headers;
  for (const auto &h : req.headers) {
    static const char *const own[] = {"REMOTE_ADDR", "REMOTE_PORT", "LOCAL_ADDR", "LOCAL_PORT"};
    bool added_by_httplib = false;
    for (const char *name : own) added_by_httplib |= h.first == name;
    if (!added_by_httplib) headers.push_back({h.first.data(), h.first.size(), h.second.data(), h.second.size()});
  }
  auto slot = std::make_shared<Slot>();
  std::unique_lock<std::mutex> lock(mu);
  uint64_t call = 0;
  a2a_result r = a2a_service_handle_request(svc, req.method.data(), req.method.size(), req.target.data(), req.target.size(),
                                            headers.data(), headers.size(), bytes(req.body), req.body.size(), now_ms(), &call);
  if (r != A2A_RESULT_OK) {  // the library refused the input itself (a header name that is not UTF-8)
    res.status = 400;
    return res.set_content(str(a2a_error_message(a2a_error_last())) + "\n", "text/plain");
  }
  slots[call] = slot;
  drain();
  slot->ready.wait(lock, [&] { return !slot->queue.empty(); });
  a2a_output *first = slot->queue.front();  // an ANSWER or a STREAM_HEAD
  slot->queue.pop_front();
  bool answer = a2a_output_get_kind(first) == A2A_OUTPUT_KIND_ANSWER;
  if (answer) slots.erase(call), changed.notify_all();  // the call is over
  lock.unlock();

  res.status = a2a_output_status(first);
  std::string content_type;  // httplib writes Content-Type itself for a stream
  a2a_str name, value;
  for (size_t i = 0; a2a_output_header(first, i, &name, &value) == A2A_RESULT_OK; i++) {
    if (name.len == 12 && strncasecmp(name.data, "content-type", 12) == 0) content_type = str(value);
    else res.set_header(str(name), str(value));
  }
  if (answer) {
    if (!content_type.empty()) res.set_header("Content-Type", content_type);
    a2a_str body = a2a_output_body(first);
    res.body.assign(body.data, body.len);  // to a HEAD request httplib sends the head only
    return a2a_output_free(first);
  }
  a2a_output_free(first);
  // The stream: httplib calls the provider until it calls sink.done() or returns false.
  auto provider = [slot](size_t, httplib::DataSink &sink) {
    std::unique_lock<std::mutex> lock(mu);
    if (!slot->ready.wait_for(lock, 1s, [&] { return !slot->queue.empty(); })) {
      lock.unlock();
      return sink.is_writable();  // quiet stream: false once the client has gone away
    }
    a2a_output *o = slot->queue.front();
    slot->queue.pop_front();
    bool end = a2a_output_get_kind(o) == A2A_OUTPUT_KIND_STREAM_END;
    slot->ended |= end;
    lock.unlock();
    a2a_str frame = a2a_output_body(o);  // SSE-framed already; the END's bytes may be empty
    bool ok = frame.len == 0 || sink.write(frame.data, frame.len);
    a2a_output_free(o);
    if (ok && end) sink.done();
    return ok;
  };
  // Called once httplib is done with the response, however it went.
  auto releaser = [slot, call](bool) {
    std::lock_guard<std::mutex> lock(mu);
    if (slot->released) return;
    slot->released = true;
    if (!slot->ended) a2a_service_caller_gone(svc, call);
    for (a2a_output *o : slot->queue) a2a_output_free(o);
    slot->queue.clear();
    slots.erase(call);
    drain();
  };
  res.set_chunked_content_provider(content_type, provider, releaser);
}

}  // namespace

int main(int argc, char **argv) {
  std::string addr, store_arg;
  long long cache_mb = 64, retain_ms = 0;
  bool bad = false;
  for (int i = 1; i < argc && !bad; i++) {
    std::string a = argv[i];
    bool has_value = i + 1 < argc;
    char *end = nullptr;
    if (a == "--store" && has_value) {
      store_arg = argv[++i];
      bad = store_arg.empty();
    } else if ((a == "--cache-mb" || a == "--retain-ms") && has_value) {
      long long v = strtoll(argv[++i], &end, 10);
      bad = *argv[i] == '\0' || *end != '\0' || v < 0 || v > (1LL << 40);
      (a == "--cache-mb" ? cache_mb : retain_ms) = v;
    } else if (addr.empty() && a.rfind("--", 0) != 0) {
      addr = a;
    } else {
      bad = true;
    }
  }
  size_t colon = addr.rfind(':');
  if (bad || colon == std::string::npos || colon == 0 || colon + 1 == addr.size())
    return fprintf(stderr, "usage: %s 127.0.0.1:PORT [--store memory|FILE] [--cache-mb N] [--retain-ms N]\n", argv[0]), 2;
  std::string host = addr.substr(0, colon);
  if (host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);  // [::1]:PORT
  int port = atoi(addr.c_str() + colon + 1);

  // Before any thread starts (they inherit the mask): SIGINT and SIGTERM come to sigwait.
  sigset_t stop;
  sigemptyset(&stop), sigaddset(&stop, SIGINT), sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a client that went away is a failed write, not a signal

  std::string base = "http://" + addr;  // IP:PORT: nothing in it needs JSON escaping
  auto iface = [&](const char *path, const char *binding, const char *version) {
    return "{\"url\":\"" + base + path + "\",\"protocolBinding\":\"" + binding + "\",\"protocolVersion\":\"" +
           version + "\"}";
  };
  std::string card = "{\"name\":\"a2a-wire C++ embed\",\"description\":\"Echoes text back: need-input asks a question, "
    "slow streams three chunks, message-only replies with a message.\",\"version\":\"1.0.0\",\"supportedInterfaces\":[" +
    iface("/a2a/jsonrpc", "JSONRPC", "1.0") + "," + iface("/a2a/rest", "HTTP+JSON", "1.0") + "," +
    iface("/a2a/v03/jsonrpc", "JSONRPC", "0.3") + "," + iface("/a2a/v03/rest", "HTTP+JSON", "0.3") +
    "],\"capabilities\":{\"streaming\":true},\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":"
    "[\"text/plain\"],\"skills\":[{\"id\":\"echo\",\"name\":\"Echo\",\"description\":\"Echoes the text of a message\","
    "\"tags\":[\"echo\"]}]}";
  auto failed = [](const char *what) {
    fprintf(stderr, "%s: %s\n", what, str(a2a_error_message(a2a_error_last())).c_str());
    a2a_store_free(store);
    return 1;
  };
  if (!store_arg.empty()) {
    a2a_result r = store_arg == "memory" ? a2a_store_new_memory(&store)
                                         : a2a_store_open_sqlite(store_arg.data(), store_arg.size(), &store);
    if (r != A2A_RESULT_OK) return failed("cannot open the store");
  }
  a2a_service_config *config = nullptr;
  if (a2a_service_config_new(bytes(card), card.size(), &config) != A2A_RESULT_OK) return failed("bad card");
  if (store) a2a_service_config_set_external_store(config, size_t(cache_mb) << 20);
  a2a_service_config_set_retention_ms(config, uint64_t(retain_ms));
  a2a_result made = a2a_service_new_with(config, now_ms(), &svc);
  a2a_service_config_free(config);
  if (made != A2A_RESULT_OK) return failed("bad card");

  httplib::Server server;
  server.new_task_queue = [] { return new httplib::ThreadPool(32); };  // a thread per connection
  server.set_keep_alive_timeout(1);  // httplib 0.11 lets an idle connection hold up stop() this long
  httplib::Server::Handler handler = serve;  // HEAD requests come to the GET handler
  server.Get(".*", handler).Post(".*", handler).Put(".*", handler).Patch(".*", handler);
  server.Delete(".*", handler).Options(".*", handler);
  // httplib 0.11's defaults: SO_REUSEPORT (a second server on the port would share it
  // silently) and a listen backlog of 5 (a burst of connections gets resets). Not here:
  int listening = -1;
  server.set_socket_options([&](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listening = sock;
  });
  if (!server.bind_to_port(host, port) || listen(listening, SOMAXCONN) != 0) {
    a2a_service_free(svc), a2a_store_free(store);
    return fprintf(stderr, "cannot listen on %s\n", addr.c_str()), 1;
  }
  std::thread store_thread;
  if (store) store_thread = std::thread(store_loop);
  std::thread listener([&] { server.listen_after_bind(); });
  std::thread timer(timer_loop);
  printf("serving %s\n", base.c_str()), fflush(stdout);

  int sig;
  sigwait(&stop, &sig);
  std::vector<std::thread> workers;
  {
    // Open streams get their end, waiting calls an Unavailable answer, runs a cancel.
    std::unique_lock<std::mutex> lock(mu);
    a2a_service_shutdown(svc);
    stopping = true;
    drain();
    // Give the streams a moment to write their last bytes and the workers to end their runs.
    changed.wait_for(lock, 3s, [] {
      bool runs_done = true;
      for (auto &r : runs) runs_done &= r.second.done;
      return slots.empty() && runs_done;
    });
    for (auto &r : runs)
      if (r.second.worker.joinable()) workers.push_back(std::move(r.second.worker));
  }
  for (auto &w : workers) w.join();
  server.stop();  // ends the streams still open (their clients are told they are gone)
  listener.join();
  timer.join();
  if (store) {
    // Writes still on their way land before the store closes: wait until none is pending.
    std::unique_lock<std::mutex> lock(mu);
    changed.wait_for(lock, 5s, [] { return a2a_service_is_idle(svc); });
    store_stop = true;
    store_wake.notify_one();
    lock.unlock();
    store_thread.join();
  }
  a2a_service_free(svc);
  a2a_store_free(store);
  return 0;
}
