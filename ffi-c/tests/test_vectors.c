/* Every golden vector in tests/vectors/ through the C API: the codecs (v1/, bench/), the
 * v0.3 translation (v03/), the classification of received errors (errors/received-*), and
 * HTTP requests through the sans-IO service (http/). The same files the Rust tests read.
 *
 *   test_vectors VECTORS_DIR
 */
#define _GNU_SOURCE
#include "common.h"
#include <cjson/cJSON.h>
#include <ftw.h>

static const char *current; /* the vector being checked, for failure reports */
static int vectors_seen[5];  /* v1/bench, v03, errors, http, skipped */

/* The wire bytes of a message vector: "wire" (compact JSON), "wire_text" or "wire_base64". */
static uint8_t *wire_of(const cJSON *v, size_t *len, uint32_t *format) {
  const cJSON *w;
  *format = A2A_FORMAT_JSON;
  if ((w = cJSON_GetObjectItemCaseSensitive(v, "wire_text")) && cJSON_IsString(w)) {
    *len = strlen(w->valuestring);
    uint8_t *b = malloc(*len + 1);
    memcpy(b, w->valuestring, *len + 1);
    return b;
  }
  if ((w = cJSON_GetObjectItemCaseSensitive(v, "wire_base64")) && cJSON_IsString(w)) {
    *format = A2A_FORMAT_PROTOBUF;
    return base64_decode(w->valuestring, len);
  }
  char *s = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(v, "wire"));
  *len = s ? strlen(s) : 0;
  return (uint8_t *)s;
}

static int json_equal(const uint8_t *got, size_t len, const cJSON *want) {
  cJSON *g = cJSON_ParseWithLength((const char *)got, len);
  int eq = g && want && cJSON_Compare(g, want, 1);
  cJSON_Delete(g);
  return eq;
}

static const char *sval(const cJSON *o, const char *k) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(x) ? x->valuestring : NULL;
}

static const char *decode_kind_name(a2a_decode_kind k) {
  switch (k) {
    case A2A_DECODE_KIND_SYNTAX: return "syntax";
    case A2A_DECODE_KIND_INVALID_VALUE: return "invalid_value";
    case A2A_DECODE_KIND_MISSING_REQUIRED: return "missing_required";
    case A2A_DECODE_KIND_PROTOBUF: return "protobuf";
    case A2A_DECODE_KIND_CONVERSION: return "conversion";
    default: return "none";
  }
}

/* The thread's last error against a vector's "error": kind, field, contains. */
static void check_error(const cJSON *want) {
  const a2a_error *e = a2a_error_last();
  CHECK(e != NULL, "%s: no last error", current);
  if (!e) return;
  const char *kind = sval(want, "kind"), *field = sval(want, "field"), *contains = sval(want, "contains");
  const char *got = decode_kind_name(a2a_error_decode_kind(e));
  CHECK(kind && strcmp(kind, got) == 0, "%s: error kind %s, want %s (%s)", current, got, kind, last_message());
  a2a_str path = a2a_error_path(e);
  CHECK(!field || str_eq(path, field), "%s: error path %.*s, want %s", current, (int)path.len, path.data, field);
  CHECK(!contains || str_contains(a2a_error_message(e), contains), "%s: error %s lacks %s", current, last_message(), contains);
}

static void check_losses(const a2a_translation *t, const cJSON *want) {
  const cJSON *losses = cJSON_GetObjectItemCaseSensitive(want, "losses");
  size_t n = a2a_translation_loss_count(t), w = (size_t)cJSON_GetArraySize(losses);
  CHECK(n == w, "%s: %zu losses, want %zu", current, n, w);
  for (size_t i = 0; i < n && i < w; i++) {
    a2a_str l;
    CHECK_OK(a2a_translation_loss(t, i, &l));
    const char *wl = cJSON_GetArrayItem(losses, (int)i)->valuestring;
    CHECK(wl && str_eq(l, wl), "%s: loss %zu is %.*s, want %s", current, i, (int)l.len, l.data, wl);
  }
}

static int vec_typed[4];

static const char *state_name(a2a_task_state s) {
  static const char *names[] = {"TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED",
                                "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED",
                                "TASK_STATE_AUTH_REQUIRED"};
  return s < 9 ? names[s] : "?";
}

static void check_parts(const cJSON *parts, size_t n, const a2a_part *(*get)(const void *, size_t), const void *owner) {
  CHECK((size_t)cJSON_GetArraySize(parts) == n, "%s: %zu parts, want %d", current, n, cJSON_GetArraySize(parts));
  for (size_t i = 0; i < n; i++) {
    const a2a_part *p = get(owner, i);
    const cJSON *w = cJSON_GetArrayItem(parts, (int)i);
    const char *text = sval(w, "text"), *url = sval(w, "url");
    uint32_t kind = a2a_part_get_kind(p);
    if (text) CHECK(kind == A2A_PART_KIND_TEXT && str_eq(a2a_part_text(p), text), "%s: part %zu text", current, i);
    else if (url) CHECK(kind == A2A_PART_KIND_URL && str_eq(a2a_part_url(p), url), "%s: part %zu url", current, i);
    else if (cJSON_GetObjectItemCaseSensitive(w, "raw")) CHECK(kind == A2A_PART_KIND_RAW, "%s: part %zu raw", current, i);
    else if (cJSON_GetObjectItemCaseSensitive(w, "data")) {
      a2a_bytes *d = NULL;
      CHECK(kind == A2A_PART_KIND_DATA && a2a_part_data_json(p, &d) == A2A_RESULT_OK, "%s: part %zu data", current, i);
      CHECK(d && json_equal(a2a_bytes_data(d), a2a_bytes_len(d), cJSON_GetObjectItemCaseSensitive(w, "data")), "%s: part %zu data JSON", current, i);
      a2a_bytes_free(d);
    }
    const char *mt = sval(w, "mediaType"), *fname = sval(w, "filename");
    CHECK(str_eq(a2a_part_media_type(p), mt ? mt : ""), "%s: part %zu mediaType", current, i);
    CHECK(str_eq(a2a_part_filename(p), fname ? fname : ""), "%s: part %zu filename", current, i);
  }
  CHECK(get(owner, n) == NULL, "%s: no part past the end", current);
}

static const a2a_part *message_part(const void *m, size_t i) { return a2a_message_part(m, i); }
static const a2a_part *artifact_part(const void *a, size_t i) { return a2a_artifact_part(a, i); }

static void check_message(const a2a_message *m, const cJSON *w) {
  CHECK(m != NULL, "%s: no message", current);
  if (!m) return;
  const char *id = sval(w, "messageId"), *task = sval(w, "taskId"), *ctx = sval(w, "contextId"), *role = sval(w, "role");
  CHECK(str_eq(a2a_message_id(m), id ? id : ""), "%s: messageId", current);
  CHECK(str_eq(a2a_message_task_id(m), task ? task : ""), "%s: message taskId", current);
  CHECK(str_eq(a2a_message_context_id(m), ctx ? ctx : ""), "%s: message contextId", current);
  CHECK(a2a_message_is_agent(m) == (role && strcmp(role, "ROLE_AGENT") == 0), "%s: role", current);
  check_parts(cJSON_GetObjectItemCaseSensitive(w, "parts"), a2a_message_part_count(m), message_part, m);
}

static void check_task(const a2a_task *t, const cJSON *w) {
  CHECK(t != NULL, "%s: no task", current);
  if (!t) return;
  const char *id = sval(w, "id"), *ctx = sval(w, "contextId");
  const cJSON *status = cJSON_GetObjectItemCaseSensitive(w, "status");
  const char *state = sval(status, "state");
  CHECK(str_eq(a2a_task_id(t), id ? id : ""), "%s: task id", current);
  CHECK(str_eq(a2a_task_context_id(t), ctx ? ctx : ""), "%s: contextId", current);
  CHECK(strcmp(state_name(a2a_task_get_state(t)), state ? state : "TASK_STATE_UNSPECIFIED") == 0, "%s: state %s, want %s", current,
        state_name(a2a_task_get_state(t)), state);
  const cJSON *sm = cJSON_GetObjectItemCaseSensitive(status, "message");
  if (sm) check_message(a2a_task_status_message(t), sm);
  else CHECK(a2a_task_status_message(t) == NULL, "%s: a status message from nowhere", current);
  const cJSON *arts = cJSON_GetObjectItemCaseSensitive(w, "artifacts"), *hist = cJSON_GetObjectItemCaseSensitive(w, "history");
  CHECK(a2a_task_artifact_count(t) == (size_t)cJSON_GetArraySize(arts), "%s: artifacts", current);
  for (size_t i = 0; i < a2a_task_artifact_count(t); i++) {
    const a2a_artifact *a = a2a_task_artifact(t, i);
    const cJSON *wa = cJSON_GetArrayItem(arts, (int)i);
    const char *aid = sval(wa, "artifactId"), *name = sval(wa, "name");
    CHECK(str_eq(a2a_artifact_id(a), aid ? aid : "") && str_eq(a2a_artifact_name(a), name ? name : ""), "%s: artifact %zu", current, i);
    check_parts(cJSON_GetObjectItemCaseSensitive(wa, "parts"), a2a_artifact_part_count(a), artifact_part, a);
  }
  CHECK(a2a_task_artifact(t, a2a_task_artifact_count(t)) == NULL, "%s: artifact past the end", current);
  CHECK(a2a_task_history_count(t) == (size_t)cJSON_GetArraySize(hist), "%s: history", current);
  for (size_t i = 0; i < a2a_task_history_count(t); i++) check_message(a2a_task_history(t, i), cJSON_GetArrayItem(hist, (int)i));
}

/* The typed views of the C API against the vector's canonical JSON, and typed encode. */
static void run_typed(const char *type, const uint8_t *wire, size_t len, uint32_t format, int valid, const cJSON *canonical) {
  a2a_bytes *enc = NULL;
  a2a_result r;
  if (strcmp(type, "lf.a2a.v1.Task") == 0) {
    a2a_task *t = NULL;
    r = a2a_task_decode(format, wire, len, &t);
    if (valid && r == A2A_RESULT_OK) {
      check_task(t, canonical);
      CHECK_OK(a2a_task_encode(t, A2A_FORMAT_JSON, &enc));
    }
    a2a_task_free(t);
    vec_typed[0]++;
  } else if (strcmp(type, "lf.a2a.v1.Message") == 0) {
    a2a_message *m = NULL;
    r = a2a_message_decode(format, wire, len, &m);
    if (valid && r == A2A_RESULT_OK) {
      check_message(m, canonical);
      CHECK_OK(a2a_message_encode(m, A2A_FORMAT_JSON, &enc));
    }
    a2a_message_free(m);
    vec_typed[1]++;
  } else if (strcmp(type, "lf.a2a.v1.StreamResponse") == 0) {
    a2a_event *e = NULL;
    r = a2a_event_decode(format, wire, len, &e);
    if (valid && r == A2A_RESULT_OK) {
      const cJSON *x;
      uint32_t k = a2a_event_get_kind(e);
      if ((x = cJSON_GetObjectItemCaseSensitive(canonical, "task"))) {
        CHECK(k == A2A_EVENT_KIND_TASK, "%s: event kind", current);
        check_task(a2a_event_task(e), x);
      } else if ((x = cJSON_GetObjectItemCaseSensitive(canonical, "message"))) {
        CHECK(k == A2A_EVENT_KIND_MESSAGE, "%s: event kind", current);
        check_message(a2a_event_message(e), x);
      } else if ((x = cJSON_GetObjectItemCaseSensitive(canonical, "statusUpdate"))) {
        const char *st = sval(cJSON_GetObjectItemCaseSensitive(x, "status"), "state");
        CHECK(k == A2A_EVENT_KIND_STATUS_UPDATE && strcmp(state_name(a2a_event_state(e)), st ? st : "TASK_STATE_UNSPECIFIED") == 0, "%s: status update", current);
        CHECK(str_eq(a2a_event_task_id(e), sval(x, "taskId") ? sval(x, "taskId") : ""), "%s: status update task", current);
      } else if ((x = cJSON_GetObjectItemCaseSensitive(canonical, "artifactUpdate"))) {
        CHECK(k == A2A_EVENT_KIND_ARTIFACT_UPDATE && a2a_event_artifact(e) != NULL, "%s: artifact update", current);
        CHECK(a2a_event_is_append(e) == cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "append")) &&
              a2a_event_is_last_chunk(e) == cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, "lastChunk")), "%s: append/lastChunk", current);
      }
    }
    a2a_event_free(e);
    vec_typed[2]++;
  } else if (strcmp(type, "lf.a2a.v1.SendMessageResponse") == 0) {
    a2a_reply *rep = NULL;
    r = a2a_reply_decode(format, wire, len, &rep);
    if (valid && r == A2A_RESULT_OK) {
      const cJSON *x;
      if ((x = cJSON_GetObjectItemCaseSensitive(canonical, "task"))) {
        check_task(a2a_reply_task(rep), x);
        CHECK(!a2a_reply_message(rep), "%s: a message in a task reply", current);
      } else if ((x = cJSON_GetObjectItemCaseSensitive(canonical, "message"))) {
        check_message(a2a_reply_message(rep), x);
        CHECK(!a2a_reply_task(rep), "%s: a task in a message reply", current);
      }
    }
    a2a_reply_free(rep);
    vec_typed[3]++;
  } else {
    return;
  }
  CHECK(valid ? r == A2A_RESULT_OK : r == A2A_RESULT_DECODE, "%s: typed decode gave %s", current, a2a_result_message(r));
  if (enc) CHECK(json_equal(a2a_bytes_data(enc), a2a_bytes_len(enc), canonical), "%s: typed encode differs", current);
  a2a_bytes_free(enc);
}

static void run_message(const cJSON *v) {
  const char *type = sval(v, "type");
  int valid = strcmp(sval(v, "expect"), "valid") == 0;
  uint32_t format;
  size_t len;
  uint8_t *wire = wire_of(v, &len, &format);
  a2a_bytes *json = NULL;
  a2a_result r = a2a_transcode(type, strlen(type), format, A2A_FORMAT_JSON, wire, len, &json);
  {
    const cJSON *canon = cJSON_GetObjectItemCaseSensitive(v, "canonical");
    run_typed(type, wire, len, format, valid, canon ? canon : cJSON_GetObjectItemCaseSensitive(v, "wire"));
  }
  if (!valid) {
    CHECK(r == A2A_RESULT_DECODE, "%s: decoded but should fail (%s)", current, a2a_result_message(r));
    if (r == A2A_RESULT_DECODE) check_error(cJSON_GetObjectItemCaseSensitive(v, "error"));
    a2a_bytes_free(json);
    free(wire);
    return;
  }
  const cJSON *canonical = cJSON_GetObjectItemCaseSensitive(v, "canonical");
  if (!canonical) canonical = cJSON_GetObjectItemCaseSensitive(v, "wire");
  CHECK(r == A2A_RESULT_OK, "%s: should decode: %s", current, last_message());
  if (r == A2A_RESULT_OK) {
    CHECK(json_equal(a2a_bytes_data(json), a2a_bytes_len(json), canonical), "%s: canonical JSON differs: %.*s", current,
          (int)a2a_bytes_len(json), (const char *)a2a_bytes_data(json));
    /* JSON -> protobuf -> JSON gives the canonical form again. */
    a2a_bytes *pb = NULL, *back = NULL;
    CHECK_OK(a2a_transcode(type, strlen(type), A2A_FORMAT_JSON, A2A_FORMAT_PROTOBUF, a2a_bytes_data(json), a2a_bytes_len(json), &pb));
    if (pb) {
      CHECK_OK(a2a_transcode(type, strlen(type), A2A_FORMAT_PROTOBUF, A2A_FORMAT_JSON, a2a_bytes_data(pb), a2a_bytes_len(pb), &back));
      CHECK(back && json_equal(a2a_bytes_data(back), a2a_bytes_len(back), canonical), "%s: protobuf round trip differs", current);
      /* The caller-buffer variant gives the same bytes, and refuses a buffer one byte short. */
      uint8_t buf[1 << 16];
      size_t n = 0;
      size_t need = a2a_bytes_len(pb);
      if (need < sizeof buf && need > 0) {
        CHECK_OK(a2a_transcode_into(type, strlen(type), A2A_FORMAT_JSON, A2A_FORMAT_PROTOBUF, a2a_bytes_data(json), a2a_bytes_len(json), buf, sizeof buf, &n));
        CHECK(n == need && memcmp(buf, a2a_bytes_data(pb), n) == 0, "%s: transcode_into differs", current);
        size_t untouched = 12345;
        CHECK_RESULT(a2a_transcode_into(type, strlen(type), A2A_FORMAT_JSON, A2A_FORMAT_PROTOBUF, a2a_bytes_data(json), a2a_bytes_len(json), buf, need - 1, &untouched),
                     A2A_RESULT_INSUFFICIENT_SIZE);
        CHECK(untouched == 12345, "%s: out_len written on failure", current);
      }
    }
    a2a_bytes_free(pb);
    a2a_bytes_free(back);
  }
  /* The v0.3 translation, when the vector states it. */
  const cJSON *v03 = cJSON_GetObjectItemCaseSensitive(v, "v03");
  if (v03 && r == A2A_RESULT_OK) {
    a2a_translation *t = NULL;
    a2a_result tr = a2a_v1_to_v03(type, strlen(type), a2a_bytes_data(json), a2a_bytes_len(json), &t);
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(v03, "error");
    if (err) {
      CHECK(tr == A2A_RESULT_CONVERSION, "%s: v0.3 translation should be refused (%s)", current, a2a_result_message(tr));
      if (tr == A2A_RESULT_CONVERSION) check_error(err);
    } else {
      CHECK(tr == A2A_RESULT_OK, "%s: v0.3 translation failed: %s", current, last_message());
      if (tr == A2A_RESULT_OK) {
        a2a_str tj = a2a_translation_json(t);
        CHECK(json_equal((const uint8_t *)tj.data, tj.len, cJSON_GetObjectItemCaseSensitive(v03, "json")), "%s: v0.3 JSON differs: %.*s", current, (int)tj.len, tj.data);
        const char *wt = sval(v03, "type");
        CHECK(!wt || str_eq(a2a_translation_type(t), wt), "%s: v0.3 type", current);
        check_losses(t, v03);
      }
    }
    a2a_translation_free(t);
  }
  a2a_bytes_free(json);
  free(wire);
}

static void run_v03(const cJSON *v) {
  const char *type = sval(v, "type");
  int valid = strcmp(sval(v, "expect"), "valid") == 0;
  uint32_t format;
  size_t len;
  uint8_t *wire = wire_of(v, &len, &format);
  a2a_translation *t = NULL;
  a2a_result r = a2a_v03_to_v1(type, strlen(type), wire, len, &t);
  if (!valid) {
    CHECK(r == A2A_RESULT_DECODE || r == A2A_RESULT_CONVERSION, "%s: translated but should fail", current);
    if (r != A2A_RESULT_OK) check_error(cJSON_GetObjectItemCaseSensitive(v, "error"));
  } else {
    CHECK(r == A2A_RESULT_OK, "%s: should translate: %s", current, last_message());
    if (r == A2A_RESULT_OK) {
      const cJSON *canonical = cJSON_GetObjectItemCaseSensitive(v, "canonical");
      if (!canonical) canonical = cJSON_GetObjectItemCaseSensitive(v, "wire");
      a2a_str src = a2a_translation_source_json(t), j = a2a_translation_json(t);
      CHECK(json_equal((const uint8_t *)src.data, src.len, canonical), "%s: v0.3 canonical differs", current);
      const cJSON *want = cJSON_GetObjectItemCaseSensitive(v, "v1");
      const char *wt = sval(want, "type");
      CHECK(!wt || str_eq(a2a_translation_type(t), wt), "%s: v1 type", current);
      CHECK(json_equal((const uint8_t *)j.data, j.len, cJSON_GetObjectItemCaseSensitive(want, "json")), "%s: v1 translation differs: %.*s", current, (int)j.len, j.data);
      check_losses(t, want);
    }
  }
  a2a_translation_free(t);
  free(wire);
}

/* --- protobuf, written by hand, for received gRPC errors (an independent encoder) --- */
typedef struct { uint8_t b[4096]; size_t n; } pbuf;
static void pb_varint(pbuf *p, uint64_t v) {
  do { p->b[p->n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)); v >>= 7; } while (v && p->n < sizeof p->b);
}
static void pb_bytes(pbuf *p, int field, const void *data, size_t len) {
  if (p->n + len + 12 > sizeof p->b) return;
  pb_varint(p, (uint64_t)field << 3 | 2), pb_varint(p, len);
  memcpy(p->b + p->n, data, len), p->n += len;
}

static void run_received(const cJSON *v) {
  const cJSON *rec = cJSON_GetObjectItemCaseSensitive(v, "received"), *want = cJSON_GetObjectItemCaseSensitive(v, "classified");
  const char *version = sval(v, "version") ? sval(v, "version") : "1.0";
  a2a_error *e = NULL;
  const cJSON *h = NULL, *g = NULL, *j = NULL;
  if ((h = cJSON_GetObjectItemCaseSensitive(rec, "http"))) {
    const char *body = sval(h, "body_text") ? sval(h, "body_text") : "";
    CHECK_OK(a2a_classify_http(version, strlen(version), (uint16_t)cJSON_GetObjectItemCaseSensitive(h, "status")->valueint, (const uint8_t *)body, strlen(body), &e));
  } else if ((g = cJSON_GetObjectItemCaseSensitive(rec, "grpc"))) {
    int code = cJSON_GetObjectItemCaseSensitive(g, "code")->valueint;
    const char *msg = sval(g, "message") ? sval(g, "message") : "";
    const cJSON *details = cJSON_GetObjectItemCaseSensitive(g, "details");
    pbuf status = {.n = 0};
    if (details) {
      pb_varint(&status, 1 << 3), pb_varint(&status, (uint64_t)code);
      pb_bytes(&status, 2, msg, strlen(msg));
      const cJSON *d;
      cJSON_ArrayForEach(d, details) {
        pbuf info = {.n = 0}, any = {.n = 0};
        const char *reason = sval(d, "reason") ? sval(d, "reason") : "", *domain = sval(d, "domain") ? sval(d, "domain") : "";
        pb_bytes(&info, 1, reason, strlen(reason)), pb_bytes(&info, 2, domain, strlen(domain));
        const char *url = sval(d, "type_url") ? sval(d, "type_url") : "";
        pb_bytes(&any, 1, url, strlen(url)), pb_bytes(&any, 2, info.b, info.n);
        pb_bytes(&status, 3, any.b, any.n);
      }
    }
    CHECK_OK(a2a_classify_grpc(version, strlen(version), code, msg, strlen(msg), details ? status.b : NULL, status.n, &e));
  } else if ((j = cJSON_GetObjectItemCaseSensitive(rec, "jsonrpc"))) {
    char *s = cJSON_PrintUnformatted(j);
    CHECK_OK(a2a_classify_jsonrpc((const uint8_t *)s, strlen(s), &e));
    free(s);
  }
  if (!e) return;
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(want, "not_a2a"))) {
    CHECK(a2a_error_result(e) == A2A_RESULT_NOT_A2A, "%s: should not be an A2A error", current);
    CHECK(a2a_error_get_kind(e) == A2A_ERROR_KIND_NONE, "%s: a kind for a non-A2A error", current);
    /* The status reads back from the accessor of the binding it came on, and only there. */
    int status = cJSON_GetObjectItemCaseSensitive(want, "status")->valueint;
    int got = h ? a2a_error_http_status(e) : g ? a2a_error_grpc_status(e) : a2a_error_jsonrpc_code(e);
    CHECK(got == status, "%s: status of the non-A2A error %d, want %d", current, got, status);
    if (h) CHECK(a2a_error_grpc_status(e) == -1 && a2a_error_jsonrpc_code(e) == 0, "%s: an HTTP status read as another code", current);
  } else {
    const char *kind = sval(want, "kind");
    const char *got = a2a_error_kind_name(a2a_error_get_kind(e));
    CHECK(kind && strcmp(got, kind) == 0, "%s: classified as %s, want %s", current, got, kind);
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(want, "metadata"), *m;
    cJSON_ArrayForEach(m, meta) {
      a2a_str val;
      a2a_result r = a2a_error_metadata_get(e, m->string, strlen(m->string), &val);
      CHECK(r == A2A_RESULT_OK && str_eq(val, m->valuestring), "%s: metadata %s", current, m->string);
    }
  }
  a2a_error_free(e);
}

/* --- HTTP requests through the sans-IO service ---------------------------------------- */
static const char vector_card[] =
  "{\"name\":\"vectors\",\"description\":\"\",\"version\":\"1\",\"defaultInputModes\":[],\"defaultOutputModes\":[],\"skills\":[],"
  "\"capabilities\":{\"streaming\":true,\"pushNotifications\":true,\"extendedAgentCard\":true},\"supportedInterfaces\":["
  "{\"url\":\"http://a2a.example/rpc\",\"protocolBinding\":\"JSONRPC\",\"protocolVersion\":\"1.0\"},"
  "{\"url\":\"http://a2a.example/rpc\",\"protocolBinding\":\"JSONRPC\",\"protocolVersion\":\"0.3\"},"
  "{\"url\":\"http://a2a.example/rest\",\"protocolBinding\":\"HTTP+JSON\",\"protocolVersion\":\"1.0\"},"
  "{\"url\":\"http://a2a.example/rest\",\"protocolBinding\":\"HTTP+JSON\",\"protocolVersion\":\"0.3\"},"
  "{\"url\":\"a2a.example:443\",\"protocolBinding\":\"GRPC\",\"protocolVersion\":\"1.0\"},"
  "{\"url\":\"a2a.example:443\",\"protocolBinding\":\"GRPC\",\"protocolVersion\":\"0.3\"}]}";

static int find_field(const a2a_output *o, int trailers, const char *name, a2a_str *value) {
  size_t n = trailers ? a2a_output_trailer_count(o) : a2a_output_header_count(o);
  for (size_t i = 0; i < n; i++) {
    a2a_str k, v;
    if ((trailers ? a2a_output_trailer(o, i, &k, &v) : a2a_output_header(o, i, &k, &v)) != A2A_RESULT_OK) continue;
    if (k.len == strlen(name) && strncasecmp(k.data, name, k.len) == 0) return *value = v, 1;
  }
  return 0;
}

static void percent_decode(char *s) {
  char *o = s;
  for (char *p = s; *p; p++) {
    if (p[0] == '%' && p[1] && p[2]) {
      char hex[3] = {p[1], p[2], 0};
      *o++ = (char)strtol(hex, NULL, 16), p += 2;
    } else *o++ = *p;
  }
  *o = 0;
}

static void run_http(const cJSON *v) {
  const cJSON *req = cJSON_GetObjectItemCaseSensitive(v, "request");
  const cJSON *hs = cJSON_GetObjectItemCaseSensitive(req, "headers"), *h;
  a2a_header headers[32];
  size_t nh = 0;
  cJSON_ArrayForEach(h, hs) {
    if (nh == 32) break;
    headers[nh++] = (a2a_header){h->string, strlen(h->string), h->valuestring, strlen(h->valuestring)};
  }
  uint8_t *body = NULL;
  size_t body_len = 0;
  const cJSON *b;
  if ((b = cJSON_GetObjectItemCaseSensitive(req, "body"))) {
    char *s = cJSON_PrintUnformatted(b);
    body = (uint8_t *)s, body_len = strlen(s);
  } else if (sval(req, "body_text")) {
    body_len = strlen(sval(req, "body_text"));
    body = malloc(body_len + 1);
    memcpy(body, sval(req, "body_text"), body_len + 1);
  } else if (sval(req, "body_base64")) {
    body = base64_decode(sval(req, "body_base64"), &body_len);
  }
  const char *method = sval(req, "method"), *target = sval(req, "target");
  const char *version = sval(v, "version") ? sval(v, "version") : "1.0";
  a2a_service *svc = NULL;
  CHECK_OK(a2a_service_new(U(vector_card), U(vector_card), 0, 1800000000000, &svc));
  if (!svc) goto out;
  if (strcmp(sval(v, "expect"), "valid") == 0) {
    a2a_bytes *d = NULL;
    a2a_result r = a2a_service_decode(svc, method, strlen(method), target, strlen(target), headers, nh, body, body_len, &d);
    CHECK(r == A2A_RESULT_OK, "%s: refused: %s", current, last_message());
    if (r == A2A_RESULT_OK) {
      cJSON *got = cJSON_ParseWithLength((const char *)a2a_bytes_data(d), a2a_bytes_len(d));
      const cJSON *want = cJSON_GetObjectItemCaseSensitive(v, "operation");
      CHECK(got && strcmp(sval(got, "method"), sval(want, "method")) == 0, "%s: method %s, want %s", current, sval(got, "method"), sval(want, "method"));
      CHECK(got && cJSON_Compare(cJSON_GetObjectItemCaseSensitive(got, "request"), cJSON_GetObjectItemCaseSensitive(want, "request"), 1),
            "%s: request differs: %.*s", current, (int)a2a_bytes_len(d), (const char *)a2a_bytes_data(d));
      const cJSON *id = cJSON_GetObjectItemCaseSensitive(want, "jsonrpc_id");
      CHECK(!id || cJSON_Compare(cJSON_GetObjectItemCaseSensitive(got, "jsonrpc_id"), id, 1), "%s: jsonrpc id", current);
      CHECK(got && strcmp(sval(got, "version"), version) == 0, "%s: served as %s, want %s", current, sval(got, "version"), version);
      cJSON_Delete(got);
    }
    a2a_bytes_free(d);
    goto out;
  }
  uint64_t call = 0;
  CHECK_OK(a2a_service_handle_request(svc, method, strlen(method), target, strlen(target), headers, nh, body, body_len, 1800000000000, &call));
  a2a_output *o = NULL, *answer = NULL;
  while (a2a_service_poll_output(svc, &o) == A2A_RESULT_OK) {
    if (!answer && a2a_output_get_kind(o) == A2A_OUTPUT_KIND_ANSWER && a2a_output_call(o) == call) answer = o;
    else a2a_output_free(o);
  }
  CHECK(answer != NULL, "%s: no answer", current);
  if (!answer) goto out;
  const cJSON *want = cJSON_GetObjectItemCaseSensitive(v, "response"), *w;
  a2a_str ab = a2a_output_body(answer), val;
  cJSON *bj = cJSON_ParseWithLength(ab.data, ab.len);
  if ((w = cJSON_GetObjectItemCaseSensitive(want, "status")))
    CHECK(a2a_output_status(answer) == w->valueint, "%s: status %u, want %d", current, a2a_output_status(answer), w->valueint);
  const cJSON *err = cJSON_GetObjectItemCaseSensitive(bj, "error");
  if ((w = cJSON_GetObjectItemCaseSensitive(want, "jsonrpc_code"))) {
    CHECK(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(err, "code"), w, 1), "%s: JSON-RPC code", current);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(want, "jsonrpc_id");
    CHECK(!id || cJSON_Compare(cJSON_GetObjectItemCaseSensitive(bj, "id"), id, 1), "%s: JSON-RPC id", current);
  }
  int have_status = find_field(answer, 1, "grpc-status", &val);
  if ((w = cJSON_GetObjectItemCaseSensitive(want, "grpc_status"))) {
    char want_s[16];
    snprintf(want_s, sizeof want_s, "%d", w->valueint);
    CHECK(have_status && str_eq(val, want_s), "%s: grpc-status, want %s", current, want_s);
  }
  if (sval(want, "reason")) {
    int found = 0;
    a2a_str details;
    if (find_field(answer, 1, "grpc-status-details-bin", &details)) {
      /* Read the reason back the way a client would: classify the received status. */
      char *b64 = strndup(details.data, details.len), msg[1024] = "";
      size_t dl = 0;
      uint8_t *bin = base64_decode(b64, &dl);
      a2a_str m;
      if (find_field(answer, 1, "grpc-message", &m)) snprintf(msg, sizeof msg, "%.*s", (int)m.len, m.data), percent_decode(msg);
      a2a_error *e = NULL;
      if (bin && a2a_classify_grpc(version, strlen(version), atoi(strndupa(val.data, val.len)), msg, strlen(msg), bin, dl, &e) == A2A_RESULT_OK)
        found = str_eq(a2a_error_reason(e), sval(want, "reason"));
      a2a_error_free(e);
      free(bin), free(b64);
    } else {
      const cJSON *details_j = cJSON_GetObjectItemCaseSensitive(err, "details");
      if (!details_j) details_j = cJSON_GetObjectItemCaseSensitive(err, "data");
      const cJSON *d;
      cJSON_ArrayForEach(d, details_j) if (sval(d, "reason") && strcmp(sval(d, "reason"), sval(want, "reason")) == 0) found = 1;
    }
    CHECK(found, "%s: no reason %s", current, sval(want, "reason"));
  }
  if (sval(want, "content_type")) CHECK(find_field(answer, 0, "content-type", &val) && str_eq(val, sval(want, "content_type")), "%s: Content-Type", current);
  if (sval(want, "allow")) CHECK(find_field(answer, 0, "allow", &val) && str_eq(val, sval(want, "allow")), "%s: Allow", current);
  const cJSON *subset = cJSON_GetObjectItemCaseSensitive(want, "body_subset"), *s;
  cJSON_ArrayForEach(s, subset) CHECK(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(bj, s->string), s, 1), "%s: body %s", current, s->string);
  if (sval(want, "grpc_message_prefix")) {
    char msg[1024] = "";
    if (find_field(answer, 1, "grpc-message", &val)) snprintf(msg, sizeof msg, "%.*s", (int)val.len, val.data), percent_decode(msg);
    CHECK(strncmp(msg, sval(want, "grpc_message_prefix"), strlen(sval(want, "grpc_message_prefix"))) == 0, "%s: grpc-message %s", current, msg);
  }
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(want, "no_errorinfo"))) CHECK(!str_contains(ab, "ErrorInfo"), "%s: ErrorInfo in a plain 404", current);
  cJSON_Delete(bj);
  a2a_output_free(answer);
out:
  a2a_service_free(svc);
  free(body);
}

static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)ftw;
  size_t n = strlen(path);
  if (flag != FTW_F || n < 5 || strcmp(path + n - 5, ".json") != 0) return 0;
  size_t len;
  char *text = read_file(path, &len);
  cJSON *v = text ? cJSON_ParseWithLength(text, len) : NULL;
  current = path;
  CHECK(v != NULL, "%s: not readable JSON", path);
  if (v) {
    const char *type = sval(v, "type");
    if (strstr(path, "/v03/")) run_v03(v), vectors_seen[1]++;
    else if (strstr(path, "/http/")) run_http(v), vectors_seen[3]++;
    else if (strstr(path, "/errors/") && type && strcmp(type, "received-error") == 0) run_received(v), vectors_seen[2]++;
    else if (strstr(path, "/errors/")) vectors_seen[4]++; /* rendering: the service's answers show it (http/) */
    else if (strstr(path, "/jcs/")) vectors_seen[4]++; /* RFC 8785: the core's canonicalizer, not in the C API yet */
    else if (strstr(path, "/signing/")) vectors_seen[4]++; /* card signatures: not in the C API yet */
    else if (strstr(path, "/http1/")) vectors_seen[4]++; /* HTTP/1.1 framing: test_framing.c, against the ready server */
    else run_message(v), vectors_seen[0]++;
  }
  cJSON_Delete(v);
  free(text);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: %s tests/vectors\n", argv[0]), 2;
  if (nftw(argv[1], visit, 16, FTW_PHYS) != 0) return perror(argv[1]), 2;
  printf("vectors: %d messages (typed views: %d Task, %d Message, %d StreamResponse, %d SendMessageResponse), %d v0.3, "
         "%d received errors, %d HTTP requests (%d rendering, JCS and card-signing vectors are the Rust tests'); %d checks, %d failures\n",
         vectors_seen[0], vec_typed[0], vec_typed[1], vec_typed[2], vec_typed[3], vectors_seen[1], vectors_seen[2], vectors_seen[3],
         vectors_seen[4], test_checks, test_failures);
  CHECK(vectors_seen[0] > 100 && vectors_seen[1] > 50 && vectors_seen[3] > 50, "too few vectors found under %s", argv[1]);
  return test_failures ? 1 : 0;
}
