/* Agent Cards from C: signatures (spec 8.4) with ES256 and EdDSA keys — sign, verify,
 * tampered, other key, unsigned, jku — the ready server signing what it publishes and the
 * ready client checking it (a2a_client_config_set_card_keys, _set_require_signed_card), and
 * extended cards per identity on the ready server (bearer tokens) and on the sans-IO service
 * (a2a_service_config_set_extended_card). Everything listens on 127.0.0.1. */
#define _GNU_SOURCE
#include "common.h"

/* RFC 8037 appendix A.1's Ed25519 key, and a P-256 key made for the tests. */
static const char ED[] =
  "{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"d\":\"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A\","
  "\"x\":\"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo\",\"kid\":\"ed\"}";
static const char EC[] =
  "{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"ZN9Zn66EGLiHDvZ3dmPGJINDMCpZXvBnWoQsSLw5G0s\","
  "\"y\":\"VON8Xibfnq4ATbojtj8EarQk6oVSgpIIsv3PpZwoxYQ\",\"d\":\"8sP4ik2dsHAPsIvt-PgY4fI4pUu7GW9uB9_4ThAewqY\",\"kid\":\"ec\"}";

#define CARD(name, caps)                                                                                  \
  "{\"name\":\"" name "\",\"description\":\"C cards\",\"version\":\"1\",\"capabilities\":{" caps "},"    \
  "\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":[\"text/plain\"],\"skills\":[]}"
/* A whole card (with an interface), as a2a_card_sign and the sans-IO service take it. */
#define FULL_CARD(name)                                                                                    \
  "{\"name\":\"" name "\",\"description\":\"C cards\",\"version\":\"1\",\"capabilities\":{},"              \
  "\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":[\"text/plain\"],\"skills\":[],"              \
  "\"supportedInterfaces\":[{\"url\":\"http://127.0.0.1:1/a2a/jsonrpc\",\"protocolBinding\":\"JSONRPC\",\"protocolVersion\":\"1.0\"}]}"

static void start(void *userdata, const a2a_run *run, a2a_sink *sink) {
  (void)userdata;
  a2a_str text = a2a_run_text(run);
  CHECK_OK(a2a_sink_artifact_text(sink, S("echo"), text.data, text.len, false, true));
  CHECK_OK(a2a_sink_status(sink, A2A_TASK_STATE_COMPLETED, NULL, 0));
  a2a_sink_free(sink);
}

static a2a_str str_of(const a2a_bytes *b) {
  a2a_str s = {(const char *)a2a_bytes_data(b), a2a_bytes_len(b)};
  return s;
}

static a2a_card_keys *keys_of(const a2a_signing_key *key) {
  a2a_bytes *jwk = NULL;
  a2a_card_keys *keys = NULL;
  CHECK_OK(a2a_signing_key_public_jwk(key, &jwk));
  CHECK(!str_contains(str_of(jwk), "\"d\""), "the public JWK has no private member: %.*s", (int)a2a_bytes_len(jwk), a2a_bytes_data(jwk));
  CHECK_OK(a2a_card_keys_new((const char *)a2a_bytes_data(jwk), a2a_bytes_len(jwk), &keys));
  a2a_bytes_free(jwk);
  return keys;
}

/* Sign and verify without a server. */
static void signatures(void) {
  a2a_signing_key *ed = NULL, *ec = NULL, *bad = NULL;
  CHECK_OK(a2a_signing_key_new(S(ED), NULL, 0, &ed));
  CHECK_OK(a2a_signing_key_new(S(EC), NULL, 0, &ec));
  if (!ed || !ec) return;
  CHECK(str_eq(a2a_signing_key_alg(ed), "EdDSA") && str_eq(a2a_signing_key_kid(ed), "ed"), "the Ed25519 key");
  CHECK(str_eq(a2a_signing_key_alg(ec), "ES256") && str_eq(a2a_signing_key_kid(ec), "ec"), "the P-256 key");
  /* Keys that are no keys, and a PEM key without a kid, say why. */
  CHECK_RESULT(a2a_signing_key_new(S("{\"kty\":\"RSA\",\"kid\":\"r\"}"), NULL, 0, &bad), A2A_RESULT_INVALID_ARGUMENT);
  CHECK(strstr(last_message(), "RSA") != NULL, "names the key type: %s", last_message());
  CHECK_RESULT(a2a_signing_key_new(S("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), NULL, 0, &bad), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_RESULT(a2a_signing_key_from_file(S("/nonexistent/key.jwk"), NULL, 0, &bad), A2A_RESULT_INVALID_ARGUMENT);
  CHECK(bad == NULL, "no key on failure");
  /* kid given: it replaces the JWK's. */
  a2a_signing_key *renamed = NULL;
  CHECK_OK(a2a_signing_key_new(S(ED), S("ed-2026"), &renamed));
  CHECK(str_eq(a2a_signing_key_kid(renamed), "ed-2026"), "kid replaced");
  a2a_signing_key_free(renamed);

  const a2a_signing_key *both[] = {ed, ec};
  for (int i = 0; i < 2; i++) {
    a2a_bytes *signed_card = NULL, *verified = NULL;
    CHECK_OK(a2a_card_sign(U(FULL_CARD("signed")), both[i], S("https://keys.example/jwks.json"), &signed_card));
    if (!signed_card) continue;
    a2a_str s = str_of(signed_card);
    CHECK(str_contains(s, "\"signatures\":[{\"protected\":"), "one signature: %.*s", (int)s.len, s.data);
    a2a_card_keys *mine = keys_of(both[i]), *theirs = keys_of(both[1 - i]);
    CHECK_OK(a2a_card_verify(a2a_bytes_data(signed_card), a2a_bytes_len(signed_card), mine, 0, &verified));
    a2a_str v = str_of(verified);
    CHECK(str_contains(v, i == 0 ? "\"kid\":\"ed\"" : "\"kid\":\"ec\"") && str_contains(v, "\"form\":\"spec\"") &&
          str_contains(v, "\"jku\":\"https://keys.example/jwks.json\"") && str_contains(v, "\"index\":0"),
          "what verified: %.*s", (int)v.len, v.data);
    a2a_bytes_free(verified);
    verified = NULL;
    CHECK_OK(a2a_card_verify(a2a_bytes_data(signed_card), a2a_bytes_len(signed_card), mine, A2A_CARD_VERIFY_SPEC_FORM_ONLY, &verified));
    a2a_bytes_free(verified);
    verified = NULL;
    /* Another key: refused, and the reason names the kid. */
    CHECK_RESULT(a2a_card_verify(a2a_bytes_data(signed_card), a2a_bytes_len(signed_card), theirs, 0, &verified), A2A_RESULT_SIGNATURE);
    CHECK(strstr(last_message(), "no trusted key has kid") != NULL, "why: %s", last_message());
    /* A changed card: the signature no longer covers it. */
    char *tampered = strndup(s.data, s.len);
    char *name = tampered ? strstr(tampered, "\"signed\"") : NULL;
    if (name) name[1] = 'S';
    CHECK_RESULT(a2a_card_verify((const uint8_t *)tampered, s.len, mine, 0, &verified), A2A_RESULT_SIGNATURE);
    CHECK(verified == NULL, "no output on failure");
    free(tampered);
    /* The key set also takes the signing key itself (its public half). */
    a2a_card_keys *added = keys_of(both[1 - i]);
    CHECK_OK(a2a_card_keys_add_key(added, both[i]));
    CHECK_OK(a2a_card_verify(a2a_bytes_data(signed_card), a2a_bytes_len(signed_card), added, 0, &verified));
    a2a_bytes_free(verified);
    verified = NULL;
    a2a_card_keys_free(added);
    /* An unsigned card, and no card at all. */
    CHECK_RESULT(a2a_card_verify(U(FULL_CARD("plain")), mine, 0, &verified), A2A_RESULT_SIGNATURE);
    CHECK(strstr(last_message(), "not signed") != NULL, "unsigned: %s", last_message());
    CHECK_RESULT(a2a_card_verify(U("not json"), mine, 0, &verified), A2A_RESULT_DECODE);
    CHECK_RESULT(a2a_card_verify(U(FULL_CARD("plain")), mine, 7, &verified), A2A_RESULT_INVALID_ARGUMENT);
    CHECK_RESULT(a2a_card_sign(U(CARD("no interfaces", "")), both[i], NULL, 0, &verified), A2A_RESULT_DECODE);
    a2a_card_keys_free(mine);
    a2a_card_keys_free(theirs);
    a2a_bytes_free(signed_card);
  }
  a2a_bytes *out = NULL;
  CHECK_RESULT(a2a_card_sign(U("{\"name\":\"no description\"}"), ed, NULL, 0, &out), A2A_RESULT_DECODE);
  a2a_card_keys *k = NULL;
  CHECK_RESULT(a2a_card_keys_new(S("{\"keys\":[]}"), &k), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_RESULT(a2a_card_keys_new(S("{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo\"}"), &k),
               A2A_RESULT_INVALID_ARGUMENT);
  CHECK(strstr(last_message(), "kid") != NULL, "a key without kid: %s", last_message());
  a2a_signing_key_free(ed);
  a2a_signing_key_free(ec);
  a2a_signing_key_free(NULL);
  a2a_card_keys_free(NULL);
}

/* A client of `url` with `config` and an optional bearer token; NULL when connecting fails
 * (its result in *result). */
static a2a_client *connect_as(const char *url, a2a_client_config *config, const char *token, a2a_result *result) {
  a2a_client *c = NULL;
  if (token) {
    char value[64];
    snprintf(value, sizeof value, "Bearer %s", token);
    CHECK_OK(a2a_client_config_add_header(config, S("Authorization"), value, strlen(value)));
  }
  *result = a2a_client_connect_with(url, strlen(url), S("JSONRPC"), NULL, 0, 10000, config, &c);
  return c;
}

static void ready_server(void) {
  a2a_signing_key *ed = NULL, *ec = NULL;
  CHECK_OK(a2a_signing_key_new(S(ED), NULL, 0, &ed));
  CHECK_OK(a2a_signing_key_new(S(EC), NULL, 0, &ec));
  a2a_server_config *scfg = NULL;
  CHECK_OK(a2a_server_config_new(&scfg));
  CHECK_OK(a2a_server_config_set_bearer_tokens(scfg, S("tok-a alice\ntok-b bob\ntok-c carol\n")));
  CHECK_OK(a2a_server_config_set_extended_card(scfg, S("alice"), U(CARD("for alice", ""))));
  CHECK_OK(a2a_server_config_set_extended_card(scfg, S("bob"), U(CARD("for bob", ""))));
  CHECK_OK(a2a_server_config_set_extended_card(scfg, NULL, 0, U(CARD("for members", ""))));
  CHECK_RESULT(a2a_server_config_set_extended_card(scfg, S("dave"), U("{")), A2A_RESULT_DECODE);
  CHECK_OK(a2a_server_config_set_signing_key(scfg, ed, S("https://keys.example/jwks.json")));
  CHECK_RESULT(a2a_server_config_allow_webhook(scfg, S("10.0.0.0/99")), A2A_RESULT_INVALID_ARGUMENT);
  a2a_agent agent = {start, NULL, NULL};
  a2a_server *server = NULL;
  CHECK_OK(a2a_server_start_with(S("127.0.0.1:0"), U(CARD("public", "\"streaming\":true")), &agent, scfg, &server));
  a2a_server_config_free(scfg);
  /* An unsigned server beside it. */
  a2a_server *plain = NULL;
  CHECK_OK(a2a_server_start(S("127.0.0.1:0"), U(CARD("plain", "")), &agent, &plain));
  if (!server || !plain) return;
  char url[128], plain_url[128];
  a2a_str u = a2a_server_url(server);
  snprintf(url, sizeof url, "%.*s", (int)u.len, u.data);
  u = a2a_server_url(plain);
  snprintf(plain_url, sizeof plain_url, "%.*s", (int)u.len, u.data);

  a2a_card_keys *trusted = keys_of(ed), *other = keys_of(ec);
  const char *tokens[] = {"tok-a", "tok-b", "tok-c"}, *want[] = {"for alice", "for bob", "for members"};
  for (int i = 0; i < 3; i++) {
    a2a_client_config *cc = NULL;
    CHECK_OK(a2a_client_config_new(&cc));
    CHECK_OK(a2a_client_config_set_card_keys(cc, trusted));
    CHECK_OK(a2a_client_config_set_require_signed_card(cc, true));
    CHECK_OK(a2a_client_config_set_stream_resumes(cc, 2));
    a2a_result r;
    a2a_client *c = connect_as(url, cc, tokens[i], &r);
    CHECK(r == A2A_RESULT_OK, "%s connects to the signed server: %s", tokens[i], last_message());
    a2a_client_config_free(cc);
    if (!c) continue;
    a2a_str card = a2a_client_card_json(c);
    CHECK(str_contains(card, "\"extendedAgentCard\":true") && str_contains(card, "\"signatures\""), "the public card: signed, declares it");
    a2a_bytes *ext = NULL;
    CHECK_OK(a2a_client_call(c, A2A_METHOD_GET_EXTENDED_AGENT_CARD, NULL, 0, &ext));
    if (ext) {
      a2a_str e = str_of(ext);
      char name[64];
      snprintf(name, sizeof name, "\"name\":\"%s\"", want[i]);
      CHECK(str_contains(e, name), "%s gets %s: %.*s", tokens[i], want[i], (int)e.len, e.data);
      for (int j = 0; j < 3; j++)
        if (j != i && strcmp(want[j], want[i]) != 0) {
          snprintf(name, sizeof name, "\"name\":\"%s\"", want[j]);
          CHECK(!str_contains(e, name), "%s never sees %s", tokens[i], want[j]);
        }
      /* The extended card is signed too, and interfaces were given to it. */
      a2a_bytes *v = NULL;
      CHECK_OK(a2a_card_verify(a2a_bytes_data(ext), a2a_bytes_len(ext), trusted, A2A_CARD_VERIFY_SPEC_FORM_ONLY, &v));
      CHECK(str_contains(e, "\"supportedInterfaces\":[{"), "the extended card lists the server's interfaces");
      a2a_bytes_free(v);
      a2a_bytes_free(ext);
    }
    a2a_bytes *reply = NULL;
    CHECK_OK(a2a_client_send_text(c, S("hello"), &reply));
    CHECK(reply && str_contains(str_of(reply), "TASK_STATE_COMPLETED"), "the bearer header reaches every call");
    a2a_bytes_free(reply);
    a2a_client_free(c);
  }
  /* Without a token: the card is public, the extended card is not. */
  a2a_client_config *cc = NULL;
  CHECK_OK(a2a_client_config_new(&cc));
  a2a_result r;
  a2a_client *anon = connect_as(url, cc, NULL, &r);
  if (anon) {
    a2a_bytes *ext = NULL;
    CHECK_RESULT(a2a_client_call(anon, A2A_METHOD_GET_EXTENDED_AGENT_CARD, NULL, 0, &ext), A2A_RESULT_A2A_ERROR);
    CHECK(a2a_error_get_kind(a2a_error_last()) == A2A_ERROR_KIND_UNAUTHENTICATED, "anonymous: unauthenticated");
    a2a_client_free(anon);
  }
  /* Keys that did not sign it: refused whether a signature is required or not. */
  CHECK_OK(a2a_client_config_set_card_keys(cc, other));
  CHECK(connect_as(url, cc, NULL, &r) == NULL && r == A2A_RESULT_SIGNATURE, "another key set: %u", r);
  CHECK(strstr(last_message(), "no trusted key has kid ed") != NULL, "why: %s", last_message());
  /* The unsigned server: accepted with keys, refused once a signature is required. */
  a2a_client *c = connect_as(plain_url, cc, NULL, &r);
  CHECK(r == A2A_RESULT_OK, "unsigned, not required: %s", last_message());
  a2a_client_free(c);
  CHECK_OK(a2a_client_config_set_require_signed_card(cc, true));
  CHECK(connect_as(plain_url, cc, NULL, &r) == NULL && r == A2A_RESULT_SIGNATURE, "unsigned, required: %u", r);
  CHECK(strstr(last_message(), "not signed") != NULL, "why: %s", last_message());
  CHECK_OK(a2a_client_config_set_card_keys(cc, NULL));
  CHECK(connect_as(url, cc, NULL, &r) == NULL && r == A2A_RESULT_SIGNATURE, "required without keys: %u", r);
  CHECK_RESULT(a2a_client_config_add_header(cc, S("Bad Name"), S("x")), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_RESULT(a2a_client_config_add_header(cc, S("X-Ok"), S("a\r\nInjected: 1")), A2A_RESULT_INVALID_ARGUMENT);
  a2a_client_config_free(cc);
  a2a_card_keys_free(trusted);
  a2a_card_keys_free(other);
  a2a_signing_key_free(ed);
  a2a_signing_key_free(ec);
  a2a_server_free(server);
  a2a_server_free(plain);
}

/* The sans-IO service: GetExtendedAgentCard over JSON-RPC, the host's verdict naming the
 * principal. Returns the answer's body in `body`. */
static void extended_for(a2a_service *svc, const char *token, char *body, size_t cap) {
  static const char req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"GetExtendedAgentCard\",\"params\":{}}";
  char auth[64];
  snprintf(auth, sizeof auth, "Bearer %s", token);
  a2a_header h[] = {{S("Content-Type"), S("application/json")}, {S("A2A-Version"), S("1.0")}, {S("Authorization"), auth, strlen(auth)}};
  uint64_t call = 0;
  body[0] = 0;
  CHECK_OK(a2a_service_handle_request(svc, S("POST"), S("/a2a/jsonrpc"), h, 3, U(req), 1000, &call));
  a2a_output *o;
  while (a2a_service_poll_output(svc, &o) == A2A_RESULT_OK) {
    uint32_t kind = a2a_output_get_kind(o);
    if (kind == A2A_OUTPUT_KIND_AUTHENTICATE) {
      const char *who = strcmp(token, "a") == 0 ? "alice" : strcmp(token, "b") == 0 ? "bob" : NULL;
      if (who) CHECK_OK(a2a_service_handle_authenticated(svc, a2a_output_call(o), who, strlen(who), 0, NULL, 0, 1000));
      else CHECK_OK(a2a_service_handle_authenticated(svc, a2a_output_call(o), NULL, 0, A2A_ERROR_KIND_UNAUTHENTICATED, NULL, 0, 1000));
    } else if (kind == A2A_OUTPUT_KIND_ANSWER && a2a_output_call(o) == call) {
      a2a_str b = a2a_output_body(o);
      snprintf(body, cap, "%.*s", (int)b.len, b.data);
    }
    a2a_output_free(o);
  }
}

static void sans_io_service(void) {
  static const char card[] =
    "{\"name\":\"svc\",\"description\":\"d\",\"version\":\"1\",\"capabilities\":{\"extendedAgentCard\":true},"
    "\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":[\"text/plain\"],\"skills\":[],"
    "\"supportedInterfaces\":[{\"url\":\"http://127.0.0.1:1/a2a/jsonrpc\",\"protocolBinding\":\"JSONRPC\",\"protocolVersion\":\"1.0\"}]}";
  a2a_service_config *cfg = NULL;
  CHECK_RESULT(a2a_service_config_new(U("{}"), &cfg), A2A_RESULT_CARD);
  CHECK_OK(a2a_service_config_new(U(card), &cfg));
  if (!cfg) return;
  CHECK_OK(a2a_service_config_set_extended_card(cfg, S("alice"), U(FULL_CARD("alice's"))));
  CHECK_RESULT(a2a_service_config_set_extended_card(cfg, S("bob"), U("{}")), A2A_RESULT_CARD);
  CHECK_RESULT(a2a_service_config_set_flags(cfg, 64), A2A_RESULT_INVALID_ARGUMENT);
  CHECK_OK(a2a_service_config_set_flags(cfg, A2A_SERVICE_AUTHENTICATE));
  a2a_service *svc = NULL;
  CHECK_OK(a2a_service_new_with(cfg, 1000, &svc));
  a2a_service_config_free(cfg);
  if (!svc) return;
  char body[8192];
  extended_for(svc, "a", body, sizeof body);
  CHECK(strstr(body, "\"name\":\"alice's\"") != NULL, "alice gets her card: %s", body);
  /* Bob has no card of his own and there is no default one. */
  extended_for(svc, "b", body, sizeof body);
  CHECK(strstr(body, "-32007") != NULL || strstr(body, "ExtendedAgentCardNotConfigured") != NULL || strstr(body, "EXTENDED_AGENT_CARD_NOT_CONFIGURED") != NULL,
        "bob gets ExtendedAgentCardNotConfigured: %s", body);
  CHECK(strstr(body, "alice's") == NULL, "bob never sees alice's card");
  extended_for(svc, "x", body, sizeof body);
  CHECK(strstr(body, "\"error\"") != NULL && strstr(body, "alice's") == NULL, "an unknown caller gets an error: %s", body);
  a2a_service_free(svc);
  a2a_service_config_free(NULL);
}

int main(void) {
  signatures();
  ready_server();
  sans_io_service();
  printf("cards: %d checks, %d failures\n", test_checks, test_failures);
  return test_failures ? 1 : 0;
}
