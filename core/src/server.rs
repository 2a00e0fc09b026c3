//! The sans-IO server endpoint: an HTTP request in, a [`Call`] (or an immediate answer)
//! out; a result or a stream event in, bytes out.
//!
//! The interfaces served are read from the Agent Card the server publishes, so what the card
//! says and what is served cannot disagree: each `supportedInterfaces` entry of binding
//! `JSONRPC` or `HTTP+JSON` is served at its URL's path, with the versions of all entries at
//! that path and binding; `GRPC` entries make the gRPC service paths available with their
//! versions.
//!
//! [`Endpoint::decode`] checks, in this order: route and HTTP method, content type,
//! protocol version (before any operation is dispatched), required extensions, parsing,
//! validation, and the card's capabilities (streaming, push notifications, extended card).
//! A failure at any step is answered right away in the binding's error shape.
//!
//! Answers: [`Endpoint::respond`] for unary results; for streams, [`Endpoint::stream_start`]
//! (the response head), then [`Endpoint::stream_event`] per event and
//! [`Endpoint::stream_end`]. An error after a stream started is sent as a last event in the
//! binding's error shape: JSON-RPC an error response in an SSE event, HTTP+JSON an SSE event
//! carrying the `google.rpc.Status` body, gRPC the status trailers.

mod stream;
pub use stream::{EncodedEvent, EventShape};

use crate::binding::{grpc, jsonrpc, rest, sse};
use crate::card::{self, Binding};
use crate::error::{A2aError, ErrorKind};
use crate::http::{media_type, HttpRequest, HttpResponse};
use crate::op::Response;
use crate::op::{Method, Operation};
pub use crate::v03::pb::FileBytes;
use crate::v1;
use crate::version::{self, ProtocolVersion};
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde_json::Value;

/// Initial capacity of an encoded answer: most answers (a Task of a few parts) fit, so
/// encoding does not grow the buffer step by step.
const ANSWER_CAPACITY: usize = 1024;
/// Limits applied before any parsing.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest request body (bytes).
    pub max_body: usize,
    /// Largest gRPC message (bytes).
    pub max_grpc_message: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_body: 8 * 1024 * 1024, max_grpc_message: grpc::DEFAULT_MAX_MESSAGE }
    }
}

#[derive(Clone, Debug)]
struct Route {
    path: String,
    binding: Binding,
    versions: Vec<ProtocolVersion>,
}

impl Route {
    /// `path` relative to this route's path, when it is at or under it.
    fn relative<'p>(&self, path: &'p str) -> Option<&'p str> {
        if self.path == "/" {
            Some(path)
        } else {
            path.strip_prefix(self.path.as_str()).filter(|r| r.is_empty() || r.starts_with('/'))
        }
    }
}

/// Why an endpoint could not be built from a card.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "cannot serve this agent card: {}", self.0)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ConfigError {}

/// The path of an interface URL (`https://host:port/a2a/v1` -> `/a2a/v1`).
pub fn url_path(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = rest.find('/').map_or("/", |i| &rest[i..]);
    let path = path.split(['?', '#']).next().unwrap_or("/");
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        String::from("/")
    } else {
        String::from(trimmed)
    }
}

/// The request header (gRPC: metadata key) of a resuming subscriber: the id of the last
/// event it saw. `SubscribeToTask` with it replays what came after (see
/// [`crate::engine::EventId`]).
pub const LAST_EVENT_ID_HEADER: &str = "last-event-id";

/// The response header (gRPC: initial metadata) of a v1.0 gRPC stream: the id of its first
/// message; each later message's id is one more ([`crate::engine::EventId::plus`]).
pub const EVENT_ID_HEADER: &str = "a2a-event-id";

/// A decoded call, with everything needed to answer it.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The operation, in the v1.0 model.
    pub operation: Operation,
    /// The protocol version it is served with (its answers use that version's shapes).
    pub version: ProtocolVersion,
    /// The binding it came on.
    pub binding: Binding,
    /// Extensions active for the call (declared by the client and supported by the card).
    pub extensions: Vec<String>,
    /// The request's authentication-related headers (`Authorization`, `Cookie`, and the
    /// headers of the card's API-key schemes), for the application to judge.
    pub auth_headers: Vec<(String, String)>,
    /// The JSON-RPC request id (null for the other bindings).
    pub jsonrpc_id: Value,
    /// `SubscribeToTask`: the `Last-Event-ID` the subscriber resumes after (header
    /// `Last-Event-ID`; gRPC metadata `last-event-id`).
    pub last_event_id: Option<String>,
    /// HTTP+JSON answers are labelled `application/json` when the client used that type.
    plain_json: bool,
    /// HTTP+JSON errors are labelled `application/json` unless the client named
    /// `application/a2a+json` (AIP-193's type, as every SDK sends them).
    plain_errors: bool,
    /// A v0.3 JSON-RPC stream whose client accepts only `text/event-stream` in practice: an
    /// error before its first event is sent as an SSE event (see [`Endpoint::respond`]).
    sse_errors: bool,
    /// How v0.3 gRPC and HTTP+JSON answers carry file bytes: the endpoint's form, or raw
    /// bytes to a client whose request carried them raw.
    v03_files: FileBytes,
}

impl Call {
    /// The operation's method.
    pub fn method(&self) -> Method {
        self.operation.method()
    }
    /// True when the answer is a stream.
    pub fn is_streaming(&self) -> bool {
        self.method().is_streaming()
    }
    /// The engine's context for this call, with the principal the application authenticated
    /// (`None` when it did not).
    pub fn engine_context(&self, principal: Option<String>) -> crate::engine::CallContext {
        crate::engine::CallContext {
            principal,
            extensions: self.extensions.clone(),
            version: self.version,
            last_event_id: self.last_event_id.clone(),
        }
    }
}

impl Call {
    /// A call without its operation yet (a placeholder, for a request known from its head
    /// only, or until the body is decoded).
    fn placeholder(
        version: ProtocolVersion,
        binding: Binding,
        extensions: Vec<String>,
        auth_headers: Vec<(String, String)>,
        (plain_json, plain_errors): (bool, bool),
    ) -> Call {
        Call {
            operation: Operation::GetExtendedAgentCard(v1::GetExtendedAgentCardRequest::default()),
            version,
            binding,
            extensions,
            auth_headers,
            jsonrpc_id: Value::Null,
            last_event_id: None,
            plain_json,
            plain_errors,
            sse_errors: false,
            v03_files: FileBytes::default(),
        }
    }

    /// How this call's v0.3 gRPC and HTTP+JSON answers carry file bytes.
    pub fn v03_file_bytes(&self) -> FileBytes {
        self.v03_files
    }
}

/// What a request's head told [`Endpoint::check_head`]: enough to judge its credentials
/// and to answer it in its binding's and version's shape.
#[derive(Clone, Debug, PartialEq)]
pub struct HeadCall {
    call: Call,
    method: Option<Method>,
    tenant: String,
}

impl HeadCall {
    /// The operation, when the head names it (HTTP+JSON routes); `None` for JSON-RPC, whose
    /// method is in the body.
    pub fn method(&self) -> Option<Method> {
        self.method
    }
    /// The tenant the route names ("" = none).
    pub fn tenant(&self) -> &str {
        &self.tenant
    }
    /// The binding.
    pub fn binding(&self) -> &Binding {
        &self.call.binding
    }
    /// The protocol version the request would be served with.
    pub fn version(&self) -> ProtocolVersion {
        self.call.version
    }
    /// The credentials the head carries (see [`Call::auth_headers`]).
    pub fn auth_headers(&self) -> &[(String, String)] {
        &self.call.auth_headers
    }
    /// A call to answer an error with ([`Endpoint::respond`]); its operation is a
    /// placeholder.
    pub fn call(&self) -> &Call {
        &self.call
    }
}

/// The end of a stream: bytes to send and trailers (gRPC).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StreamEnd {
    /// A last event (an error), if any.
    pub body: Vec<u8>,
    /// Trailers (gRPC status).
    pub trailers: Vec<(String, String)>,
}

/// The server endpoint. See the module docs.
#[derive(Clone, Debug)]
pub struct Endpoint {
    card: v1::AgentCard,
    extended_card: Option<v1::AgentCard>,
    routes: Vec<Route>,
    grpc_versions: Vec<ProtocolVersion>,
    limits: Limits,
    v03_files: FileBytes,
    /// The `WWW-Authenticate` challenge of an HTTP 401 (RFC 9110 §11.6.1), from the card's
    /// security schemes.
    challenge: String,
}

fn header_list(name: &str, value: &str) -> (String, String) {
    (String::from(name), String::from(value))
}

impl Endpoint {
    /// An endpoint serving the interfaces of `card`.
    pub fn new(card: v1::AgentCard) -> Result<Endpoint, ConfigError> {
        let mut routes: Vec<Route> = Vec::new();
        let mut grpc_versions = Vec::new();
        for iface in &card.supported_interfaces {
            let binding = Binding::parse(&iface.protocol_binding);
            let Some(v) = ProtocolVersion::parse(&iface.protocol_version) else {
                return Err(ConfigError(alloc::format!("interface {} has protocolVersion {:?}", iface.url, iface.protocol_version)));
            };
            match binding {
                Binding::Grpc => {
                    if !grpc_versions.contains(&v) {
                        grpc_versions.push(v);
                    }
                }
                Binding::JsonRpc | Binding::HttpJson => {
                    let path = url_path(&iface.url);
                    if let Some(r) = routes.iter_mut().find(|r| r.path == path && r.binding == binding) {
                        if !r.versions.contains(&v) {
                            r.versions.push(v);
                        }
                    } else {
                        if routes.iter().any(|r| r.path == path) {
                            return Err(ConfigError(alloc::format!("JSON-RPC and HTTP+JSON both at path {path}")));
                        }
                        routes.push(Route { path, binding, versions: alloc::vec![v] });
                    }
                }
                Binding::Custom(_) => {}
            }
        }
        if routes.is_empty() && grpc_versions.is_empty() {
            return Err(ConfigError(String::from("the card lists no JSONRPC, HTTP+JSON or GRPC interface")));
        }
        // Longest paths first, so that the most specific interface wins.
        routes.sort_by(|a, b| b.path.len().cmp(&a.path.len()));
        let challenge = crate::auth::challenge(&card);
        Ok(Endpoint {
            card,
            extended_card: None,
            routes,
            grpc_versions,
            limits: Limits::default(),
            v03_files: FileBytes::default(),
            challenge,
        })
    }

    /// Serves `card` to authenticated `GetExtendedAgentCard` callers.
    pub fn with_extended_card(mut self, card: v1::AgentCard) -> Self {
        self.extended_card = Some(card);
        self
    }

    /// Replaces the limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// How v0.3 gRPC and HTTP+JSON carry file bytes ([`FileBytes::Base64Text`] by default,
    /// as the v0.3 releases of a2a-sdk and a2a-go do; [`FileBytes::Raw`] for peers on
    /// @a2a-js/sdk 0.3). Whatever the form, a client whose request carried file bytes raw is
    /// answered raw.
    pub fn with_v03_file_bytes(mut self, files: FileBytes) -> Self {
        self.v03_files = files;
        self
    }

    /// The public card.
    pub fn card(&self) -> &v1::AgentCard {
        &self.card
    }

    /// The extended card, if configured.
    pub fn extended_card(&self) -> Option<&v1::AgentCard> {
        self.extended_card.as_ref()
    }

    /// True when a request for `path` (no query) with this `Content-Type` is one of this
    /// endpoint's: gRPC when a gRPC interface is served, or a path at or under an
    /// interface's path (JSON-RPC: exactly its path). A host mounted among other routes
    /// (a framework middleware) passes the others on instead of answering them 404.
    pub fn serves(&self, path: &str, content_type: Option<&str>) -> bool {
        if content_type.map(media_type).is_some_and(|c| c.starts_with("application/grpc")) && !self.grpc_versions.is_empty() {
            return true;
        }
        self.routes.iter().any(|route| {
            let rel = route.relative(path);
            match (rel, &route.binding) {
                (Some(rel), Binding::JsonRpc) => rel.is_empty() || rel == "/",
                (Some(_), _) => true,
                (None, _) => false,
            }
        })
    }

    // ------------------------------------------------------------------ decode

    /// Decodes a request into a call, or gives the answer to send right away.
    pub fn decode(&self, req: &HttpRequest<'_>) -> Result<Call, HttpResponse> {
        let mut call = self.decode_any(req)?;
        if call.method() == Method::SubscribeToTask {
            // The same header name on every binding (gRPC metadata keys are lowercase
            // headers); an id too long to be one of ours is not looked at.
            call.last_event_id =
                req.header(LAST_EVENT_ID_HEADER).map(str::trim).filter(|v| v.len() <= crate::engine::MAX_EVENT_ID_LEN).map(String::from);
        }
        Ok(call)
    }

    fn decode_any(&self, req: &HttpRequest<'_>) -> Result<Call, HttpResponse> {
        let ctype = req.header("content-type").map(media_type).unwrap_or_default();
        if ctype.starts_with("application/grpc") && !self.grpc_versions.is_empty() {
            return self.decode_grpc(req, &ctype);
        }
        let path = req.path();
        for route in &self.routes {
            let rel = route.relative(path);
            let Some(rel) = rel else { continue };
            return match route.binding {
                Binding::JsonRpc => {
                    if !rel.is_empty() && rel != "/" {
                        continue;
                    }
                    self.decode_jsonrpc(req, route, &ctype)
                }
                _ => self.decode_rest(req, route, rel, &ctype),
            };
        }
        Err(plain_404())
    }

    fn extensions_and_auth(
        &self,
        req: &HttpRequest<'_>,
        version: ProtocolVersion,
    ) -> Result<(Vec<String>, Vec<(String, String)>), A2aError> {
        // v0.3 named the header X-A2A-Extensions; a v0.3 call may carry either.
        let declared = if version.is_legacy() {
            card::parse_extensions(req.headers_named("x-a2a-extensions").chain(req.headers_named("a2a-extensions")))
        } else {
            card::parse_extensions(req.headers_named("a2a-extensions"))
        };
        let active = card::check_extensions(&self.card, &declared)?.into_iter().map(String::from).collect();
        let mut names: Vec<String> = alloc::vec![String::from("authorization"), String::from("cookie")];
        for scheme in self.card.security_schemes.values() {
            if let Some(v1::security_scheme::Scheme::ApiKeySecurityScheme(k)) = &scheme.scheme {
                if k.location.eq_ignore_ascii_case("header") {
                    names.push(k.name.to_ascii_lowercase());
                }
            }
        }
        let auth =
            req.headers.iter().filter(|(n, _)| names.iter().any(|x| n.eq_ignore_ascii_case(x))).map(|(n, v)| header_list(n, v)).collect();
        Ok((active, auth))
    }

    /// The card's capability checks for an operation. (The extended card also requires an
    /// authenticated caller, §3.1.11; whether the caller is authenticated is the
    /// application's judgement, which [`crate::service::Service`] asks for and checks.)
    fn capabilities(&self, method: Method) -> Result<(), A2aError> {
        match method {
            Method::SendStreamingMessage | Method::SubscribeToTask => card::require_streaming(&self.card),
            Method::CreateTaskPushNotificationConfig
            | Method::GetTaskPushNotificationConfig
            | Method::ListTaskPushNotificationConfigs
            | Method::DeleteTaskPushNotificationConfig => card::require_push_notifications(&self.card),
            Method::GetExtendedAgentCard => card::require_extended_card(&self.card, self.extended_card.is_some()),
            _ => Ok(()),
        }
    }

    fn negotiate(&self, req: &HttpRequest<'_>, served: &[ProtocolVersion]) -> Result<ProtocolVersion, A2aError> {
        let raw = version::find_raw(req.headers.iter().copied(), req.query());
        version::negotiate(version::requested(raw), served)
    }

    /// The checks of a JSON-RPC request that its head decides: the HTTP method, the content
    /// type, the size, the version and the extensions. Errors answer the id of `req.body`
    /// when it has one (null for a head alone).
    fn jsonrpc_head(
        &self,
        req: &HttpRequest<'_>,
        route: &Route,
        ctype: &str,
        body_len: usize,
    ) -> Result<(ProtocolVersion, Vec<String>, Vec<(String, String)>), HttpResponse> {
        let fail = |id: &Value, e: &A2aError| {
            let mut body = Vec::new();
            jsonrpc::encode_error(id, e, &mut body);
            json_response(200, jsonrpc::CONTENT_TYPE, body)
        };
        if !req.method.eq_ignore_ascii_case("POST") {
            let mut r = HttpResponse { status: 405, ..Default::default() };
            r.headers.push(header_list("allow", "POST"));
            return Err(r);
        }
        if !ctype.is_empty() && ctype != "application/json" && ctype != "application/a2a+json" {
            return Err(fail(
                &Value::Null,
                &A2aError::with_message(
                    ErrorKind::ContentTypeNotSupported,
                    alloc::format!("JSON-RPC needs Content-Type application/json, not {ctype}"),
                ),
            ));
        }
        if body_len > self.limits.max_body {
            return Err(fail(&Value::Null, &too_large(body_len, self.limits.max_body)));
        }
        let version = self.negotiate(req, &route.versions).map_err(|e| fail(&jsonrpc::peek_id(req.body), &e))?;
        // From here on, errors use the negotiated version's codes.
        let (extensions, auth_headers) = self.extensions_and_auth(req, version).map_err(|e| {
            let mut body = Vec::new();
            jsonrpc::encode_error_for(&jsonrpc::peek_id(req.body), version, &e, &mut body);
            json_response(200, jsonrpc::CONTENT_TYPE, body)
        })?;
        Ok((version, extensions, auth_headers))
    }

    fn decode_jsonrpc(&self, req: &HttpRequest<'_>, route: &Route, ctype: &str) -> Result<Call, HttpResponse> {
        let (version, extensions, auth_headers) = self.jsonrpc_head(req, route, ctype, req.body.len())?;
        let fail = |id: &Value, e: &A2aError| {
            let mut body = Vec::new();
            jsonrpc::encode_error_for(id, version, e, &mut body);
            json_response(200, jsonrpc::CONTENT_TYPE, body)
        };
        let decoded = jsonrpc::decode_request(req.body, version).map_err(|(id, e)| fail(&id, &e))?;
        self.capabilities(decoded.operation.method()).map_err(|e| fail(&decoded.id, &e))?;
        // The v0.3 releases' clients open their streams as SSE and fail on any other content
        // type, so an error of `message/stream` or `tasks/resubscribe` (an unknown or finished
        // task) reaches them only as an SSE event (found by the official TCK).
        let sse_errors = version.is_legacy()
            && decoded.operation.method().is_streaming()
            && req.header("accept").and_then(|a| crate::http::accept_quality(a, sse::CONTENT_TYPE)).is_some_and(|q| q > 0);
        Ok(Call {
            operation: decoded.operation,
            version,
            binding: Binding::JsonRpc,
            extensions,
            auth_headers,
            jsonrpc_id: decoded.id,
            last_event_id: None,
            plain_json: false,
            plain_errors: false,
            sse_errors,
            v03_files: self.v03_files,
        })
    }

    fn decode_rest(&self, req: &HttpRequest<'_>, route: &Route, rel: &str, ctype: &str) -> Result<Call, HttpResponse> {
        let plain_json = answers_plain_json(req.header("accept"), ctype);
        let plain_errors = errors_plain_json(req.header("accept"), ctype);
        let fail = |e: &A2aError| rest_error(e, plain_errors, false);
        // Some clients send the JSON `null` for "no body" (a2a-go's CancelTask): it is read as
        // an empty body, as the official Python SDK's server reads it.
        let body = if req.body.trim_ascii() == b"null" { &b""[..] } else { req.body };
        let (version, method, params, tenant) = self.rest_route(req, route, rel, plain_errors)?;
        let has_body = !body.iter().all(u8::is_ascii_whitespace);
        if has_body && !ctype.is_empty() && ctype != "application/json" && ctype != "application/a2a+json" {
            return Err(fail(&A2aError::with_message(
                ErrorKind::ContentTypeNotSupported,
                alloc::format!("HTTP+JSON bodies are application/a2a+json or application/json, not {ctype}"),
            )));
        }
        if req.body.len() > self.limits.max_body {
            return Err(fail(&too_large(req.body.len(), self.limits.max_body)));
        }
        let version = version.map_err(|e| fail(&e))?;
        // From here on, errors take the negotiated version's shape.
        let fail = |e: &A2aError| rest_error(e, plain_errors, version.is_legacy());
        let (extensions, auth_headers) = self.extensions_and_auth(req, version).map_err(|e| fail(&e))?;
        let (operation, v03_files) = if version.is_legacy() {
            rest::decode_request_v03_with(method, params, req.query(), body, self.v03_files)
        } else {
            rest::decode_request(method, params, &tenant, req.query(), body).map(|op| (op, self.v03_files))
        }
        .map_err(|e| fail(&e))?;
        self.capabilities(method).map_err(|e| fail(&e))?;
        let mut call = Call::placeholder(version, Binding::HttpJson, extensions, auth_headers, (plain_json, plain_errors));
        call.operation = operation;
        call.v03_files = v03_files;
        Ok(call)
    }

    /// The route of an HTTP+JSON request: the version negotiated (or why not), the
    /// operation, its path parameters and the tenant; 404 for a path that is no route of
    /// either version, whatever the version header says, and 405 for a verb the path lacks.
    #[allow(clippy::type_complexity)]
    fn rest_route(
        &self,
        req: &HttpRequest<'_>,
        route: &Route,
        rel: &str,
        plain_errors: bool,
    ) -> Result<(Result<ProtocolVersion, A2aError>, Method, rest::PathParams, String), HttpResponse> {
        // HEAD is GET without the body (RFC 9110 §9.3.2): the host sends the head only.
        let verb = if req.method.eq_ignore_ascii_case("HEAD") { "GET" } else { req.method };
        // The routes depend on the version (v0.3 lives under /v1 with the v0.3 proto's JSON).
        let negotiated = self.negotiate(req, &route.versions);
        let found = match &negotiated {
            Ok(v) if v.is_legacy() => rest::match_route_v03(verb, rel),
            Ok(_) => rest::match_route(verb, rel),
            Err(e) => {
                let any = [rest::match_route(verb, rel), rest::match_route_v03(verb, rel)];
                if any.iter().all(|m| *m == rest::RouteMatch::NotFound) {
                    return Err(plain_404());
                }
                return Err(rest_error(e, plain_errors, false));
            }
        };
        match found {
            rest::RouteMatch::Found { method, params, tenant } => Ok((negotiated, method, params, tenant)),
            rest::RouteMatch::MethodNotAllowed { allow } => {
                let mut r = HttpResponse { status: 405, ..Default::default() };
                r.headers.push(header_list("allow", &allow.join(", ")));
                Err(r)
            }
            rest::RouteMatch::NotFound => Err(plain_404()),
        }
    }

    /// What the head of a request alone decides, before its body is read: for a client that
    /// sent `Expect: 100-continue` (RFC 9110 §10.1.1), which waits for the server's word
    /// before it sends a body that may be large. `body_len` is the declared length (`None`
    /// for a chunked body, whose size is checked as it arrives).
    ///
    /// `Err` is the final answer, the one [`Endpoint::decode`] would give the whole request:
    /// an unknown route (404) or verb (405), a body over the limit, an unsupported version or
    /// a missing required extension; for HTTP+JSON also a capability the card lacks. Only
    /// checks whose outcome cannot depend on the body are made, so a request the head lets
    /// through may still be refused once its body is read (a JSON-RPC content type, the
    /// operation and its parameters are in the body). `Ok(None)`: nothing to check from the
    /// head (the card, gRPC).
    pub fn check_head(&self, req: &HttpRequest<'_>, body_len: Option<usize>) -> Result<Option<HeadCall>, HttpResponse> {
        let ctype = req.header("content-type").map(media_type).unwrap_or_default();
        if ctype.starts_with("application/grpc") && !self.grpc_versions.is_empty() {
            return Ok(None);
        }
        let path = req.path();
        for route in &self.routes {
            let Some(rel) = route.relative(path) else { continue };
            return match route.binding {
                Binding::JsonRpc => {
                    if !rel.is_empty() && rel != "/" {
                        continue;
                    }
                    let (version, extensions, auth_headers) = self.jsonrpc_head(req, route, &ctype, body_len.unwrap_or(0))?;
                    let call = Call::placeholder(version, Binding::JsonRpc, extensions, auth_headers, (false, false));
                    Ok(Some(HeadCall { call, method: None, tenant: String::new() }))
                }
                _ => {
                    let plain_json = answers_plain_json(req.header("accept"), &ctype);
                    let plain_errors = errors_plain_json(req.header("accept"), &ctype);
                    let (version, method, _, tenant) = self.rest_route(req, route, rel, plain_errors)?;
                    let fail = |e: &A2aError, legacy: bool| rest_error(e, plain_errors, legacy);
                    if let Some(len) = body_len.filter(|l| *l > self.limits.max_body) {
                        return Err(fail(&too_large(len, self.limits.max_body), false));
                    }
                    let version = version.map_err(|e| fail(&e, false))?;
                    let legacy = version.is_legacy();
                    let (extensions, auth_headers) = self.extensions_and_auth(req, version).map_err(|e| fail(&e, legacy))?;
                    self.capabilities(method).map_err(|e| fail(&e, legacy))?;
                    let call = Call::placeholder(version, Binding::HttpJson, extensions, auth_headers, (plain_json, plain_errors));
                    Ok(Some(HeadCall { call, method: Some(method), tenant }))
                }
            };
        }
        Err(plain_404())
    }

    fn decode_grpc(&self, req: &HttpRequest<'_>, ctype: &str) -> Result<Call, HttpResponse> {
        let fail = |e: &A2aError| grpc_error(e, false);
        if ctype != "application/grpc" && ctype != "application/grpc+proto" {
            return Err(fail(&A2aError::with_message(
                ErrorKind::ContentTypeNotSupported,
                alloc::format!("unsupported gRPC content type {ctype}"),
            )));
        }
        let Some((legacy, method)) = grpc::parse_path(req.path()) else {
            return Err(fail(&A2aError::with_message(ErrorKind::MethodNotFound, alloc::format!("unknown gRPC method {}", req.path()))));
        };
        // The service path tells the version's error convention.
        let fail = |e: &A2aError| grpc_error(e, legacy);
        let version = self.negotiate(req, &self.grpc_versions).map_err(|e| fail(&e))?;
        if legacy != version.is_legacy() {
            // The service path says which version's messages follow; it must agree with the
            // negotiated version.
            return Err(fail(&A2aError::version_not_supported(&version.to_string(), &self.grpc_versions)));
        }
        let (extensions, auth_headers) = self.extensions_and_auth(req, version).map_err(|e| fail(&e))?;
        let frames = grpc::decode_frames(req.body, self.limits.max_grpc_message).map_err(|e| fail(&e))?;
        let [message] = frames.as_slice() else {
            return Err(fail(&A2aError::invalid_field("", "a unary or server-streaming call carries exactly one request message")));
        };
        let (operation, v03_files) = if legacy {
            grpc::decode_request_v03_with(method, message, self.v03_files)
        } else {
            grpc::decode_request(method, message).map(|op| (op, self.v03_files))
        }
        .map_err(|e| fail(&e))?;
        self.capabilities(method).map_err(|e| fail(&e))?;
        let mut call = Call::placeholder(version, Binding::Grpc, extensions, auth_headers, (false, false));
        call.operation = operation;
        call.v03_files = v03_files;
        Ok(call)
    }

    // ------------------------------------------------------------------ encode

    fn with_extensions(&self, call: &Call, mut r: HttpResponse) -> HttpResponse {
        if !call.extensions.is_empty() {
            let name = match (call.binding == Binding::Grpc, call.version.is_legacy()) {
                (true, false) => "a2a-extensions",
                (true, true) => "x-a2a-extensions",
                (false, false) => "A2A-Extensions",
                (false, true) => "X-A2A-Extensions",
            };
            r.headers.push(header_list(name, &call.extensions.join(",")));
        }
        r
    }

    /// The answer to a unary call (or the error answer to a streaming call that never
    /// started).
    pub fn respond(&self, call: &Call, result: Result<Response, A2aError>) -> HttpResponse {
        if let (true, Err(e)) = (call.sse_errors, &result) {
            // A v0.3 JSON-RPC stream that fails before its first event, to a client that
            // reads SSE only: the error as the stream's one event.
            let mut r = self.stream_start(call);
            r.body = self.stream_end(call, Some(e)).body;
            r.streaming = false;
            return r;
        }
        let r = match call.binding {
            Binding::JsonRpc => {
                let mut body = Vec::with_capacity(ANSWER_CAPACITY);
                match &result {
                    Ok(resp) => jsonrpc::encode_response(&call.jsonrpc_id, call.version, resp, &mut body),
                    Err(e) => jsonrpc::encode_error_for(&call.jsonrpc_id, call.version, e, &mut body),
                }
                json_response(200, jsonrpc::CONTENT_TYPE, body)
            }
            Binding::Grpc => match result.and_then(|resp| {
                let mut msg = Vec::with_capacity(ANSWER_CAPACITY);
                if call.version.is_legacy() {
                    grpc::encode_response_v03_with(&resp, call.v03_files, &mut msg)?;
                } else {
                    grpc::encode_response(&resp, &mut msg);
                }
                Ok(msg)
            }) {
                Ok(msg) => {
                    let mut body = Vec::new();
                    grpc::encode_frame(&msg, &mut body);
                    HttpResponse {
                        status: 200,
                        headers: alloc::vec![header_list("content-type", grpc::CONTENT_TYPE)],
                        body,
                        trailers: grpc::status_trailers(None),
                        streaming: false,
                    }
                }
                Err(e) => grpc_error(&e, call.version.is_legacy()),
            },
            _ => match &result {
                Ok(resp) => {
                    let mut body = Vec::with_capacity(ANSWER_CAPACITY);
                    let r = if call.version.is_legacy() {
                        rest::encode_response_v03_with(resp, call.v03_files, &mut body)
                    } else {
                        rest::encode_response(resp, &mut body)
                    };
                    // v0.3 HTTP+JSON MUST use application/json (v0.3 §3.2.3).
                    match r {
                        Ok(()) => json_response(200, rest_type(call.plain_json || call.version.is_legacy()), body),
                        Err(e) => rest_error(&e, call.plain_errors, call.version.is_legacy()),
                    }
                }
                Err(e) => rest_error(e, call.plain_errors, call.version.is_legacy()),
            },
        };
        let mut r = r;
        if r.status == 401 {
            r.headers.push(header_list("www-authenticate", &self.challenge));
        }
        self.with_extensions(call, r)
    }
}

fn too_large(len: usize, max: usize) -> A2aError {
    A2aError::with_message(ErrorKind::InvalidRequest, alloc::format!("request body of {len} bytes exceeds the limit of {max}"))
}

/// Whether an HTTP+JSON answer is labelled `application/json` rather than
/// `application/a2a+json`: what the client accepts decides (case-insensitive, with `q`
/// values; a type refused with `q=0` is never used), and where `Accept` does not choose, the
/// type the client sent.
fn answers_plain_json(accept: Option<&str>, ctype: &str) -> bool {
    use crate::http::accept_quality;
    let q = |t: &str| accept.and_then(|a| accept_quality(a, t)).unwrap_or(0);
    let (json, a2a) = (q("application/json"), q(rest::CONTENT_TYPE));
    if json != a2a {
        return json > a2a;
    }
    ctype == "application/json"
}

/// Whether an HTTP+JSON error is labelled `application/json`: unless the client named
/// `application/a2a+json` (preferred in `Accept`, or where `Accept` does not choose, as its
/// `Content-Type`). A request that names neither (a GET without `Accept`) gets AIP-193's
/// `application/json`, the type every SDK's errors have (found by the official TCK).
fn errors_plain_json(accept: Option<&str>, ctype: &str) -> bool {
    use crate::http::accept_quality;
    let q = |t: &str| accept.and_then(|a| accept_quality(a, t)).unwrap_or(0);
    let (json, a2a) = (q("application/json"), q(rest::CONTENT_TYPE));
    if json != a2a {
        return json > a2a;
    }
    ctype != rest::CONTENT_TYPE
}

fn rest_type(plain_json: bool) -> &'static str {
    if plain_json {
        "application/json"
    } else {
        rest::CONTENT_TYPE
    }
}

fn json_response(status: u16, ctype: &str, body: Vec<u8>) -> HttpResponse {
    HttpResponse { status, headers: alloc::vec![header_list("content-type", ctype)], body, trailers: Vec::new(), streaming: false }
}

fn rest_error(e: &A2aError, plain_json: bool, legacy: bool) -> HttpResponse {
    let mut body = Vec::new();
    if legacy {
        rest::encode_error_v03(e, &mut body);
    } else {
        rest::encode_error(e, &mut body);
    }
    let status = if legacy { e.http_status_v03() } else { e.http_status() };
    json_response(status, rest_type(plain_json || legacy), body)
}

fn grpc_error(e: &A2aError, legacy: bool) -> HttpResponse {
    HttpResponse {
        status: 200,
        headers: alloc::vec![header_list("content-type", grpc::CONTENT_TYPE)],
        body: Vec::new(),
        trailers: if legacy { grpc::status_trailers_v03(Some(e)) } else { grpc::status_trailers(Some(e)) },
        streaming: false,
    }
}

fn plain_404() -> HttpResponse {
    json_response(404, "application/json", rest::not_found_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_paths() {
        assert_eq!(url_path("https://a.example:8443/a2a/v1/"), "/a2a/v1");
        assert_eq!(url_path("http://127.0.0.1:9"), "/");
        assert_eq!(url_path("/rpc?x=1"), "/rpc");
        assert_eq!(url_path("grpc.example:443"), "/");
    }

    fn iface(url: &str, binding: &str, version: &str) -> v1::AgentInterface {
        v1::AgentInterface { url: url.into(), protocol_binding: binding.into(), protocol_version: version.into(), ..Default::default() }
    }

    #[test]
    fn serves_only_its_interfaces() {
        let card = v1::AgentCard {
            supported_interfaces: alloc::vec![
                iface("http://h/a2a/rpc", "JSONRPC", "1.0"),
                iface("http://h/a2a/rest/", "HTTP+JSON", "1.0"),
                iface("http://h/a2a/rest", "HTTP+JSON", "0.3"),
            ],
            ..Default::default()
        };
        let e = Endpoint::new(card).expect("a card with two routes");
        assert!(e.serves("/a2a/rpc", Some("application/json")));
        assert!(e.serves("/a2a/rpc/", None));
        // JSON-RPC is one path; HTTP+JSON is everything under its path.
        assert!(!e.serves("/a2a/rpc/tasks", None));
        assert!(e.serves("/a2a/rest/tasks/t1:cancel", None));
        assert!(e.serves("/a2a/rest", None));
        assert!(!e.serves("/a2a/restless", None));
        assert!(!e.serves("/", None));
        assert!(!e.serves("/health", Some("text/plain")));
        // No gRPC interface: a gRPC request is not this endpoint's.
        assert!(!e.serves("/lf.a2a.v1.A2AService/SendMessage", Some("application/grpc")));
        let grpc = Endpoint::new(v1::AgentCard { supported_interfaces: alloc::vec![iface("h:1", "GRPC", "1.0")], ..Default::default() })
            .expect("a gRPC card");
        assert!(grpc.serves("/lf.a2a.v1.A2AService/SendMessage", Some("Application/GRPC+proto")));
        assert!(!grpc.serves("/lf.a2a.v1.A2AService/SendMessage", None));
    }

    #[test]
    fn v03_stream_errors_go_as_sse_and_rest_errors_are_plain_json_unless_a2a_json_was_named() {
        let card = v1::AgentCard {
            supported_interfaces: alloc::vec![iface("http://h/v03", "JSONRPC", "0.3"), iface("http://h/rest", "HTTP+JSON", "1.0")],
            capabilities: Some(v1::AgentCapabilities { streaming: Some(true), ..Default::default() }),
            ..Default::default()
        };
        let e = Endpoint::new(card).expect("a card with two routes");
        let not_found = || A2aError::new(ErrorKind::TaskNotFound);
        let body = br#"{"jsonrpc":"2.0","id":3,"method":"tasks/resubscribe","params":{"id":"t"}}"#;
        let sse_accept = [("content-type", "application/json"), ("accept", "text/event-stream")];
        let call = e.decode(&HttpRequest { method: "POST", target: "/v03", headers: &sse_accept, body }).expect("a resubscribe");
        let r = e.respond(&call, Err(not_found()));
        assert_eq!((r.status, r.header("content-type")), (200, Some("text/event-stream")), "{r:?}");
        let text = String::from_utf8(r.body.clone()).unwrap();
        assert!(text.starts_with("data: ") && text.contains("-32001") && text.contains(r#""id":3"#), "{text}");
        assert!(!r.streaming, "a whole answer");
        // Without text/event-stream in Accept, the JSON-RPC error as JSON.
        let json_only = [("content-type", "application/json")];
        let call = e.decode(&HttpRequest { method: "POST", target: "/v03", headers: &json_only, body }).expect("a resubscribe");
        assert_eq!(e.respond(&call, Err(not_found())).header("content-type"), Some("application/json"));
        // HTTP+JSON: a GET that names no type gets its error as application/json.
        let get = |headers: &[(&str, &str)]| {
            let call = e.decode(&HttpRequest { method: "GET", target: "/rest/tasks/t", headers, body: b"" }).expect("a GetTask");
            let r = e.respond(&call, Err(not_found()));
            String::from(r.header("content-type").unwrap_or_default())
        };
        assert_eq!(get(&[("A2A-Version", "1.0")]), "application/json");
        assert_eq!(get(&[("A2A-Version", "1.0"), ("accept", "*/*")]), "application/json");
        assert_eq!(get(&[("A2A-Version", "1.0"), ("accept", "application/a2a+json")]), "application/a2a+json");
        // Success answers keep their type: application/a2a+json unless plain JSON was named.
        let call =
            e.decode(&HttpRequest { method: "GET", target: "/rest/tasks/t", headers: &[("A2A-Version", "1.0")], body: b"" }).unwrap();
        let ok = e.respond(&call, Ok(Response::Task(v1::Task { id: "t".into(), ..Default::default() })));
        assert_eq!(ok.header("content-type"), Some("application/a2a+json"));
    }
}
