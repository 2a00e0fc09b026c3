//! Runs every golden vector in `tests/vectors/` (format: `tests/vectors/README.md`).

use a2a_wire::codec::by_name::{self, ByNameError, Format};
use a2a_wire::codec::DecodeErrorKind;
use a2a_wire::error::{classify_grpc, classify_http, classify_jsonrpc, A2aError, ErrorKind, Received, ERROR_TABLE};
use a2a_wire::proto::google::protobuf::Any;
use a2a_wire::proto::google::rpc::{ErrorInfo, Status};
use a2a_wire::proto::validate::Violation;
use a2a_wire::v03::by_name::{self as v03_by_name, V03Error};
use prost::Message as _;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn vector_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).expect("vectors dir").map(|e| e.expect("dir entry").path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "json") {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors");
    let mut out = Vec::new();
    walk(&root, &mut out);
    out
}

fn wire_bytes(v: &Value) -> (Vec<u8>, Format) {
    if let Some(w) = v.get("wire") {
        (serde_json::to_vec(w).unwrap(), Format::Json)
    } else if let Some(Value::String(t)) = v.get("wire_text") {
        (t.as_bytes().to_vec(), Format::Json)
    } else if let Some(Value::String(b)) = v.get("wire_base64") {
        (a2a_wire::proto::json::base64::decode(b).expect("wire_base64 is base64"), Format::Protobuf)
    } else {
        panic!("vector has no wire, wire_text or wire_base64")
    }
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).expect("encoder output is JSON")
}

fn kind_name(k: DecodeErrorKind) -> &'static str {
    match k {
        DecodeErrorKind::Syntax => "syntax",
        DecodeErrorKind::InvalidValue => "invalid_value",
        DecodeErrorKind::MissingRequired => "missing_required",
        DecodeErrorKind::Protobuf => "protobuf",
        _ => "other",
    }
}

fn check_error(expected: &Value, kind: &str, field: &str, text: &str) -> Result<(), String> {
    let want_kind = expected["kind"].as_str().unwrap_or("");
    let want_field = expected["field"].as_str();
    let contains = expected["contains"].as_str().unwrap_or("");
    if want_kind != kind {
        return Err(format!("error kind: want {want_kind}, got {kind} ({text})"));
    }
    if let Some(f) = want_field {
        if f != field {
            return Err(format!("error field: want {f:?}, got {field:?} ({text})"));
        }
    }
    if !text.contains(contains) {
        return Err(format!("error text {text:?} does not contain {contains:?}"));
    }
    Ok(())
}

fn losses_of(v: &Value) -> Vec<String> {
    v.get("losses").and_then(Value::as_array).map(|a| a.iter().map(|x| x.as_str().unwrap_or("").to_string()).collect()).unwrap_or_default()
}

fn run_v1(v: &Value) -> Result<(), String> {
    let ty = v["type"].as_str().ok_or("no type")?;
    let (bytes, format) = wire_bytes(v);
    let valid = v["expect"] == "valid";
    let result = by_name::transcode(ty, &bytes, format, Format::Json);
    if !valid {
        return match result {
            Ok(out) => Err(format!("decoded but should fail: {}", String::from_utf8_lossy(&out))),
            Err(ByNameError::Decode(e)) => check_error(&v["error"], kind_name(e.kind()), e.field(), &e.to_string()),
            Err(e) => Err(format!("unexpected error {e}")),
        };
    }
    let out = result.map_err(|e| format!("should decode: {e}"))?;
    let canonical = v.get("canonical").or_else(|| v.get("wire")).ok_or("valid protobuf vector needs canonical")?;
    if &json(&out) != canonical {
        return Err(format!("canonical mismatch:\n  got  {}\n  want {}", String::from_utf8_lossy(&out), canonical));
    }
    // JSON -> model -> protobuf -> model -> JSON is the identity on the canonical form.
    let canonical_bytes = serde_json::to_vec(canonical).unwrap();
    let pb = by_name::transcode(ty, &canonical_bytes, Format::Json, Format::Protobuf).map_err(|e| format!("canonical to protobuf: {e}"))?;
    let back = by_name::transcode(ty, &pb, Format::Protobuf, Format::Json).map_err(|e| format!("protobuf back: {e}"))?;
    if &json(&back) != canonical {
        return Err(format!("protobuf round trip changed the message: {}", String::from_utf8_lossy(&back)));
    }
    if let Some(t) = v.get("v03") {
        let r = v03_by_name::translate_to_v03(ty, &canonical_bytes);
        if let Some(err) = t.get("error") {
            return match r {
                Ok(b) => Err(format!("v0.3 translation should be refused, got {}", String::from_utf8_lossy(&b.v03_json))),
                Err(V03Error::Convert(e)) => check_error(err, "conversion", e.path(), &e.to_string()),
                Err(e) => Err(format!("unexpected v0.3 translation error {e}")),
            };
        }
        let r = r.map_err(|e| format!("to v0.3: {e}"))?;
        if t.get("type").and_then(Value::as_str).is_some_and(|want| want != r.v03_type) {
            return Err(format!("v0.3 type: got {}", r.v03_type));
        }
        if json(&r.v03_json) != t["json"] {
            return Err(format!("v0.3 translation:\n  got  {}\n  want {}", String::from_utf8_lossy(&r.v03_json), t["json"]));
        }
        if r.losses != losses_of(t) {
            return Err(format!("v0.3 losses: got {:?}, want {:?}", r.losses, losses_of(t)));
        }
    }
    Ok(())
}

fn run_v03(v: &Value) -> Result<(), String> {
    let ty = v["type"].as_str().ok_or("no type")?;
    let (bytes, _) = wire_bytes(v);
    let valid = v["expect"] == "valid";
    let result = v03_by_name::translate_to_v1(ty, &bytes);
    if !valid {
        return match result {
            Ok(t) => Err(format!("translated but should fail: {}", String::from_utf8_lossy(&t.v1_json))),
            Err(V03Error::Decode(e)) => check_error(&v["error"], kind_name(e.kind()), e.field(), &e.to_string()),
            Err(V03Error::Convert(e)) => check_error(&v["error"], "conversion", e.path(), &e.to_string()),
            Err(e) => Err(format!("unexpected error {e}")),
        };
    }
    let t = result.map_err(|e| format!("should translate: {e}"))?;
    let canonical = v.get("canonical").or_else(|| v.get("wire")).ok_or("needs canonical")?;
    if &json(&t.v03_json) != canonical {
        return Err(format!("v0.3 canonical mismatch:\n  got  {}\n  want {}", String::from_utf8_lossy(&t.v03_json), canonical));
    }
    let want = v.get("v1").ok_or("valid v0.3 vector needs its v1 translation")?;
    if want.get("type").and_then(Value::as_str).is_some_and(|w| w != t.v1_type) {
        return Err(format!("v1 type: got {}", t.v1_type));
    }
    if json(&t.v1_json) != want["json"] {
        return Err(format!("v1 translation:\n  got  {}\n  want {}", String::from_utf8_lossy(&t.v1_json), want["json"]));
    }
    if t.losses != losses_of(want) {
        return Err(format!("losses: got {:?}, want {:?}", t.losses, losses_of(want)));
    }
    Ok(())
}

fn kind_named(name: &str) -> Result<ErrorKind, String> {
    ERROR_TABLE.iter().map(|r| r.kind).find(|k| format!("{k:?}") == name).ok_or_else(|| format!("unknown error kind {name}"))
}

/// An `error` vector: an A2aError and its form on every binding.
fn run_error_render(v: &Value) -> Result<(), String> {
    let e = &v["error"];
    let kind = kind_named(e["kind"].as_str().unwrap_or(""))?;
    let message = e["message"].as_str().unwrap_or("").to_string();
    let mut err = if let Some(vs) = e.get("violations").and_then(Value::as_array) {
        let list = vs
            .iter()
            .map(|x| Violation {
                field: x["field"].as_str().unwrap_or("").into(),
                description: x["description"].as_str().unwrap_or("").to_string().into(),
            })
            .collect();
        A2aError::invalid_params(list)
    } else {
        A2aError::with_message(kind, message.clone())
    };
    if let Some(Value::Object(m)) = e.get("metadata") {
        for (k, val) in m {
            err = err.meta(k, val.as_str().unwrap_or(""));
        }
    }
    if err.kind() != kind || err.message() != message {
        return Err(format!("built {err}, want {kind:?}: {message}"));
    }
    if err.to_jsonrpc_error() != v["jsonrpc"] {
        return Err(format!("JSON-RPC error:\n  got  {}\n  want {}", err.to_jsonrpc_error(), v["jsonrpc"]));
    }
    if Value::from(err.http_status()) != v["http"]["status"] || err.to_http_body() != v["http"]["body"] {
        return Err(format!("HTTP error:\n  got  {} {}\n  want {}", err.http_status(), err.to_http_body(), v["http"]));
    }
    let status = err.to_grpc_status();
    if Value::from(status.code) != v["grpc"]["code"] {
        return Err(format!("gRPC code {} want {}", status.code, v["grpc"]["code"]));
    }
    // The gRPC details and the HTTP details say the same.
    let back = classify_grpc(status.code, &status.message, Some(&status));
    match (back, err.reason()) {
        (Received::A2a(b), Some(_)) if b.kind() == kind && b.metadata() == err.metadata() && b.violations() == err.violations() => Ok(()),
        (Received::A2a(b), None) if b.kind() == kind => Ok(()),
        (other, _) => Err(format!("gRPC status does not classify back: {other:?}")),
    }
}

/// A `received-error` vector: bytes from a peer and their classification.
fn run_received(v: &Value) -> Result<(), String> {
    let r = &v["received"];
    let got = if let Some(h) = r.get("http") {
        classify_http(h["status"].as_u64().unwrap_or(0) as u16, h["body_text"].as_str().unwrap_or("").as_bytes())
    } else if let Some(g) = r.get("grpc") {
        let details: Option<Status> = g.get("details").and_then(Value::as_array).map(|ds| Status {
            code: g["code"].as_i64().unwrap_or(0) as i32,
            message: g["message"].as_str().unwrap_or("").into(),
            details: ds
                .iter()
                .map(|d| Any {
                    type_url: d["type_url"].as_str().unwrap_or("").into(),
                    value: ErrorInfo {
                        reason: d["reason"].as_str().unwrap_or("").into(),
                        domain: d["domain"].as_str().unwrap_or("").into(),
                        metadata: Default::default(),
                    }
                    .encode_to_vec(),
                })
                .collect(),
        });
        classify_grpc(g["code"].as_i64().unwrap_or(0) as i32, g["message"].as_str().unwrap_or(""), details.as_ref())
    } else if let Some(j) = r.get("jsonrpc") {
        classify_jsonrpc(j)
    } else {
        return Err("received needs http, grpc or jsonrpc".into());
    };
    let want = &v["classified"];
    match got {
        Received::NotA2a { status, .. } => {
            if want["not_a2a"] == true && Value::from(status) == want["status"] {
                Ok(())
            } else {
                Err(format!("classified as not A2A (status {status}), want {want}"))
            }
        }
        Received::A2a(e) => {
            let kind = kind_named(want["kind"].as_str().unwrap_or("(not an A2A error)"))?;
            if e.kind() != kind {
                return Err(format!("classified as {:?}, want {kind:?}", e.kind()));
            }
            if let Some(Value::Object(m)) = want.get("metadata") {
                for (k, val) in m {
                    if e.metadata().get(k).map(String::as_str) != val.as_str() {
                        return Err(format!("metadata {k}: got {:?}", e.metadata().get(k)));
                    }
                }
            }
            if let Some(fields) = want.get("violations").and_then(Value::as_array) {
                let got: Vec<&str> = e.violations().iter().map(|x| x.field.as_str()).collect();
                let want: Vec<&str> = fields.iter().filter_map(Value::as_str).collect();
                if got != want {
                    return Err(format!("violations {got:?}, want {want:?}"));
                }
            }
            Ok(())
        }
        other => Err(format!("a classification this test does not know: {other:?}")),
    }
}

/// The card every `http-request` vector is decoded against (see tests/vectors/README.md).
fn vector_endpoint() -> a2a_wire::server::Endpoint {
    use a2a_wire::v1;
    let iface = |url: &str, b: &str, v: &str| v1::AgentInterface {
        url: url.into(),
        protocol_binding: b.into(),
        protocol_version: v.into(),
        tenant: String::new(),
    };
    let card = v1::AgentCard {
        name: "vectors".into(),
        supported_interfaces: vec![
            iface("http://a2a.example/rpc", "JSONRPC", "1.0"),
            iface("http://a2a.example/rpc", "JSONRPC", "0.3"),
            iface("http://a2a.example/rest", "HTTP+JSON", "1.0"),
            iface("http://a2a.example/rest", "HTTP+JSON", "0.3"),
            iface("a2a.example:443", "GRPC", "1.0"),
            iface("a2a.example:443", "GRPC", "0.3"),
        ],
        capabilities: Some(v1::AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(true),
            extended_agent_card: Some(true),
            ..Default::default()
        }),
        ..Default::default()
    };
    a2a_wire::server::Endpoint::new(card.clone()).unwrap().with_extended_card(card)
}

fn operation_json(op: &a2a_wire::binding::Operation) -> Value {
    let mut bytes = Vec::new();
    op.to_json(&mut bytes).expect("a decoded request encodes");
    json(&bytes)
}

/// The answer the whole server (`core::service`, no authentication configured, the extended
/// card configured) gives `req` at once, if it answers at once.
fn served_answer(card: a2a_wire::v1::AgentCard, req: &a2a_wire::http::HttpRequest<'_>) -> Option<a2a_wire::http::HttpResponse> {
    use a2a_wire::service::{Output, Service, ServiceConfig};
    let mut config = ServiceConfig::new(card.clone());
    config.extended_card = Some(card);
    let now = a2a_wire::proto::google::protobuf::Timestamp { seconds: 1_800_000_000, nanos: 0 };
    let mut service = Service::new(config, a2a_wire::engine::MemoryStore::new(), 1, now).ok()?;
    let call = service.handle_request(req, now);
    std::iter::from_fn(|| service.poll_output()).find_map(|o| match o {
        Output::Answer { call: c, response } if c == call => Some(response),
        _ => None,
    })
}

/// An `http-request` vector: a request through the server endpoint (and, for a refusal
/// the endpoint does not make itself, through the service).
fn run_http(v: &Value) -> Result<(), String> {
    let endpoint = vector_endpoint();
    let r = &v["request"];
    let headers: Vec<(String, String)> = r["headers"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string())).collect())
        .unwrap_or_default();
    let hs: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let body: Vec<u8> = if let Some(b) = r.get("body") {
        serde_json::to_vec(b).unwrap()
    } else if let Some(Value::String(t)) = r.get("body_text") {
        t.as_bytes().to_vec()
    } else if let Some(Value::String(b)) = r.get("body_base64") {
        a2a_wire::proto::json::base64::decode(b).map_err(|e| e.to_string())?
    } else {
        Vec::new()
    };
    let req = a2a_wire::http::HttpRequest {
        method: r["method"].as_str().unwrap_or(""),
        target: r["target"].as_str().unwrap_or(""),
        headers: &hs,
        body: &body,
    };
    let result = endpoint.decode(&req);
    if v["expect"] == "valid" {
        let call = result.map_err(|resp| format!("refused: {} {}", resp.status, String::from_utf8_lossy(&resp.body)))?;
        let want = &v["operation"];
        if call.method().names().v1 != want["method"].as_str().unwrap_or("") {
            return Err(format!("method {:?}, want {}", call.method(), want["method"]));
        }
        let got = operation_json(&call.operation);
        if got != want["request"] {
            return Err(format!("request:\n  got  {got}\n  want {}", want["request"]));
        }
        if let Some(id) = want.get("jsonrpc_id") {
            if &call.jsonrpc_id != id {
                return Err(format!("jsonrpc id {}, want {id}", call.jsonrpc_id));
            }
        }
        let vv = want_version(v);
        if call.version.to_string() != vv {
            return Err(format!("served as {}, want {vv}", call.version));
        }
        return Ok(());
    }
    let resp = match result {
        // Decoded: the refusal, if any, is the whole server's (the extended card needs an
        // authenticated caller), so the request goes through the service.
        Ok(call) => match served_answer(endpoint.card().clone(), &req) {
            Some(resp) => resp,
            None => return Err(format!("decoded as {:?} and served, want a refusal", call.method())),
        },
        Err(resp) => resp,
    };
    let want = &v["response"];
    if let Some(s) = want.get("status") {
        if Value::from(resp.status) != *s {
            return Err(format!("status {}, want {s}: {}", resp.status, String::from_utf8_lossy(&resp.body)));
        }
    }
    let body_json: Value = serde_json::from_slice(&resp.body).unwrap_or(Value::Null);
    if let Some(code) = want.get("jsonrpc_code") {
        if body_json["error"]["code"] != *code {
            return Err(format!("JSON-RPC code {}, want {code}", body_json["error"]["code"]));
        }
        if let Some(id) = want.get("jsonrpc_id") {
            if body_json["id"] != *id {
                return Err(format!("JSON-RPC id {}, want {id}", body_json["id"]));
            }
        }
    }
    if let Some(g) = want.get("grpc_status") {
        if resp.trailer("grpc-status").map(|s| s.to_string()) != Some(g.to_string()) {
            return Err(format!("grpc-status {:?}, want {g}", resp.trailer("grpc-status")));
        }
    }
    if let Some(reason) = want.get("reason").and_then(Value::as_str) {
        let reasons: Vec<String> = if let Some(b64) = resp.trailer("grpc-status-details-bin") {
            let bytes = a2a_wire::proto::json::base64::decode(b64).map_err(|e| e.to_string())?;
            let st = Status::decode(bytes.as_slice()).map_err(|e| e.to_string())?;
            st.details.iter().filter_map(|a| ErrorInfo::decode(a.value.as_slice()).ok()).map(|i| i.reason).collect()
        } else {
            let details = body_json["error"].get("details").or_else(|| body_json["error"].get("data"));
            details
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|d| d["reason"].as_str().map(String::from)).collect())
                .unwrap_or_default()
        };
        if !reasons.iter().any(|r| r == reason) {
            return Err(format!("reasons {reasons:?}, want {reason}"));
        }
    }
    if let Some(ct) = want.get("content_type").and_then(Value::as_str) {
        if resp.header("content-type") != Some(ct) {
            return Err(format!("Content-Type {:?}, want {ct}", resp.header("content-type")));
        }
    }
    if let Some(subset) = want.get("body_subset").and_then(Value::as_object) {
        for (k, w) in subset {
            if body_json.get(k) != Some(w) {
                return Err(format!("body {k} = {:?}, want {w}", body_json.get(k)));
            }
        }
    }
    if let Some(prefix) = want.get("grpc_message_prefix").and_then(Value::as_str) {
        let msg = resp.trailer("grpc-message").map(a2a_wire::binding::grpc::decode_message).unwrap_or_default();
        if !msg.starts_with(prefix) {
            return Err(format!("grpc-message {msg:?}, want it to start with {prefix:?}"));
        }
    }
    if let Some(allow) = want.get("allow").and_then(Value::as_str) {
        if resp.header("allow") != Some(allow) {
            return Err(format!("Allow {:?}, want {allow}", resp.header("allow")));
        }
    }
    if want.get("no_errorinfo") == Some(&Value::Bool(true)) && String::from_utf8_lossy(&resp.body).contains("ErrorInfo") {
        return Err("a plain 404 must carry no ErrorInfo".into());
    }
    Ok(())
}

/// RFC 8785 vectors (`jcs/`): number samples by their IEEE-754 bits, and whole documents.
fn run_jcs(v: &Value) -> Result<(), String> {
    for case in v["numbers"].as_array().ok_or("no numbers")? {
        let hex = case["ieee754"].as_str().ok_or("ieee754 is a hex string")?;
        let f = f64::from_bits(u64::from_str_radix(hex, 16).map_err(|e| format!("{hex}: {e}"))?);
        let Some(want) = case["canonical"].as_str() else {
            if f.is_finite() {
                return Err(format!("{hex}: a finite number needs its canonical text"));
            }
            continue;
        };
        let got = a2a_wire::jcs::canonicalize(&serde_json::json!([f]));
        if got != format!("[{want}]").into_bytes() {
            return Err(format!("{hex}: got {}, want [{want}]", String::from_utf8_lossy(&got)));
        }
    }
    for case in v["documents"].as_array().ok_or("no documents")? {
        let input = case["input"].as_str().ok_or("input is text")?;
        let want = case["canonical"].as_str().ok_or("canonical is text")?;
        let got = a2a_wire::jcs::canonicalize_text(input.as_bytes()).map_err(|e| format!("{}: {e}", case["name"]))?;
        if got != want.as_bytes() {
            return Err(format!("{}: got {}, want {want}", case["name"], String::from_utf8_lossy(&got)));
        }
    }
    Ok(())
}

/// HTTP/1.1 framing vectors (`http1/`): the sans-IO request reader's verdict on each case's
/// bytes (the live servers get the same cases in `cli/tests/framing.rs` and the bindings'
/// tests).
fn run_http1_framing() -> Result<(), String> {
    let cases = a2a_wire_tests::framing::cases();
    if cases.len() < 40 {
        return Err(format!("only {} framing cases", cases.len()));
    }
    let failed: Vec<String> = cases.iter().filter_map(|c| a2a_wire_tests::framing::run_reader(c).err()).collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("; "))
    }
}

/// Agent Card signature vectors (`signing/`): each card's payload in both forms, and one
/// deterministic EdDSA signature made by the official Python SDK, which ours must equal and
/// verify.
fn run_card_signing(v: &Value) -> Result<(), String> {
    use a2a_wire::signing::{payload, PayloadForm, Verification};
    let card = |name: &str| -> Result<a2a_wire::v1::AgentCard, String> {
        let text = serde_json::to_vec(&v["cards"][name]).map_err(|e| e.to_string())?;
        a2a_wire::codec::json::decode(&text).map_err(|e| format!("card {name}: {e}"))
    };
    for case in v["cases"].as_array().ok_or("no cases")? {
        let name = case["card"].as_str().ok_or("card is a name")?;
        let c = card(name)?;
        for (form, key) in [(PayloadForm::Spec, "spec_payload"), (PayloadForm::SdkEmptiesRemoved, "sdk_payload")] {
            let got = payload(&c, form).map_err(|e| e.to_string())?;
            let want = case[key].as_str().ok_or("payloads are text")?;
            if got != want.as_bytes() {
                return Err(format!("{name} {key}: got {}, want {want}", String::from_utf8_lossy(&got)));
            }
        }
    }
    let s = &v["signature"];
    let key = a2a_wire_smol::signing::SigningKey::from_jwk(&s["key"].to_string()).map_err(|e| e.to_string())?;
    let signed = key.sign_card(&card(s["card"].as_str().ok_or("card is a name")?)?, None).map_err(|e| e.to_string())?;
    let ours = &signed.signatures[0];
    if ours.protected != s["protected"] || ours.signature != s["signature"] {
        return Err(format!("the EdDSA signature differs: got {} {}", ours.protected, ours.signature));
    }
    let keys = a2a_wire_smol::signing::CardKeySet::default().with_key(&key);
    keys.verify_card(&signed, Verification { accept_sdk_form: false }).map_err(|e| e.to_string())?;
    Ok(())
}

fn want_version(v: &Value) -> String {
    v["version"].as_str().unwrap_or("1.0").to_string()
}

#[test]
fn every_vector_gives_its_stated_result() {
    let files = vector_files();
    let mut failures = Vec::new();
    let (mut valid, mut invalid) = (0, 0);
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let v: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{}: vector file is not JSON: {e}", path.display()));
                continue;
            }
        };
        if v["expect"] == "valid" {
            valid += 1
        } else {
            invalid += 1
        }
        let r = match (v["version"].as_str(), v["type"].as_str()) {
            (_, Some("error")) => run_error_render(&v),
            (_, Some("received-error")) => run_received(&v),
            (_, Some("http-request")) => run_http(&v),
            (_, Some("jcs")) => run_jcs(&v),
            (_, Some("card_signing")) => run_card_signing(&v),
            (_, Some("http1-framing")) => run_http1_framing(),
            (Some("1.0"), _) => run_v1(&v),
            (Some("0.3"), _) => run_v03(&v),
            (other, _) => Err(format!("unknown version {other:?}")),
        };
        if let Err(e) = r {
            failures.push(format!("{}: {e}", path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(path).display()));
        }
    }
    eprintln!("{} vectors: {valid} valid, {invalid} invalid", files.len());
    assert!(failures.is_empty(), "{} of {} vectors failed:\n{}", failures.len(), files.len(), failures.join("\n"));
    assert!(files.len() >= 120, "the suite must hold at least 120 vectors, found {}", files.len());
    assert!(invalid >= 30, "too few invalid vectors: {invalid}");
}
