//! The HTTP+JSON binding, v1.0 (spec §11; WIRE-NOTES (c), (i)).
//!
//! - Routes are those of the proto's HTTP rules, each also under a `/{tenant}` prefix. A
//!   path that matches a route without a tenant is taken that way (so
//!   `/tasks/extendedAgentCard` is GetTask of task `extendedAgentCard`, not the extended card
//!   of tenant `tasks`); only a path that matches nothing is tried with its first segment as
//!   the tenant.
//! - `{id=*}` is one path segment, percent-decoded. The custom verbs `:cancel` and
//!   `:subscribe` are matched on the raw segment, so an id containing `:cancel` is sent as
//!   `%3Acancel` and stays an id.
//! - `SubscribeToTask` is served on GET (the proto) and POST (the spec's prose).
//! - GET and DELETE parameters come from the query: camelCase names (snake_case accepted),
//!   numbers in decimal, booleans `true`/`false`, enums by name or number, timestamps in
//!   RFC 3339; the last of repeated values wins; unknown parameters are ignored; `tenant` may
//!   also be given in the query on the routes without a tenant prefix.
//! - Bodies are the request message in ProtoJSON (`body: "*"`), path fields override them;
//!   an empty body is `{}`.
//! - Answers: the response message in ProtoJSON; DELETE answers `{}`; errors are the
//!   AIP-193 `google.rpc.Status` body with the HTTP status of the error table. A path that
//!   matches no route is a plain 404 without A2A `ErrorInfo`; a route with another verb
//!   is 405 with `Allow`.
//! - Streams carry the bare `StreamResponse` in each SSE event.

use crate::codec::json;
use crate::error::{A2aError, ErrorKind};
use crate::http::percent_decode;
use crate::op::{Method, Operation};
use crate::op::{Request, Response};
use crate::proto::google::protobuf::Timestamp;
use crate::v1;
use alloc::string::String;
use alloc::vec::Vec;

/// The preferred `Content-Type` (§11.1); `application/json` is accepted too.
pub const CONTENT_TYPE: &str = "application/a2a+json";

/// Result of matching a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RouteMatch {
    /// A route: the operation, its path parameters and the tenant ("" = none).
    Found {
        /// The operation.
        method: Method,
        /// `{id}` / `{task_id}` values (percent-decoded).
        params: PathParams,
        /// From the `/{tenant}` prefix.
        tenant: String,
    },
    /// The path exists, but not for this verb.
    MethodNotAllowed {
        /// The verbs the path has.
        allow: Vec<&'static str>,
    },
    /// No such path.
    NotFound,
}

/// Path parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathParams {
    /// `{id}` (task id, or config id on push-config routes).
    pub id: String,
    /// `{task_id}` on push-config routes.
    pub task_id: String,
}

#[derive(Clone, Copy)]
enum Seg {
    Lit(&'static str),
    /// `{id}` or `{task_id}`, optionally followed by a custom verb (`:cancel`).
    Var {
        task: bool,
        verb: Option<&'static str>,
    },
}

struct Route {
    verbs: &'static [&'static str],
    segs: &'static [Seg],
    method: Method,
}

const ID: Seg = Seg::Var { task: false, verb: None };
const TASK_ID: Seg = Seg::Var { task: true, verb: None };

/// The v1.0 routes (proto HTTP rules; SubscribeToTask also on POST).
const ROUTES: &[Route] = &[
    Route { verbs: &["POST"], segs: &[Seg::Lit("message:send")], method: Method::SendMessage },
    Route { verbs: &["POST"], segs: &[Seg::Lit("message:stream")], method: Method::SendStreamingMessage },
    Route { verbs: &["GET"], segs: &[Seg::Lit("tasks")], method: Method::ListTasks },
    Route { verbs: &["POST"], segs: &[Seg::Lit("tasks"), Seg::Var { task: false, verb: Some(":cancel") }], method: Method::CancelTask },
    Route {
        verbs: &["GET", "POST"],
        segs: &[Seg::Lit("tasks"), Seg::Var { task: false, verb: Some(":subscribe") }],
        method: Method::SubscribeToTask,
    },
    Route { verbs: &["GET"], segs: &[Seg::Lit("tasks"), ID], method: Method::GetTask },
    Route {
        verbs: &["POST"],
        segs: &[Seg::Lit("tasks"), TASK_ID, Seg::Lit("pushNotificationConfigs")],
        method: Method::CreateTaskPushNotificationConfig,
    },
    Route {
        verbs: &["GET"],
        segs: &[Seg::Lit("tasks"), TASK_ID, Seg::Lit("pushNotificationConfigs")],
        method: Method::ListTaskPushNotificationConfigs,
    },
    Route {
        verbs: &["GET"],
        segs: &[Seg::Lit("tasks"), TASK_ID, Seg::Lit("pushNotificationConfigs"), ID],
        method: Method::GetTaskPushNotificationConfig,
    },
    Route {
        verbs: &["DELETE"],
        segs: &[Seg::Lit("tasks"), TASK_ID, Seg::Lit("pushNotificationConfigs"), ID],
        method: Method::DeleteTaskPushNotificationConfig,
    },
    Route { verbs: &["GET"], segs: &[Seg::Lit("extendedAgentCard")], method: Method::GetExtendedAgentCard },
];

/// Matches `segments` (raw, not yet decoded) against one route; `None` when the shape
/// differs.
fn match_segments(route: &Route, segments: &[&str]) -> Option<PathParams> {
    if route.segs.len() != segments.len() {
        return None;
    }
    let mut params = PathParams::default();
    for (seg, raw) in route.segs.iter().zip(segments) {
        match seg {
            Seg::Lit(l) => {
                if raw != l {
                    return None;
                }
            }
            Seg::Var { task, verb } => {
                let value = match verb {
                    Some(v) => raw.strip_suffix(v)?,
                    None => {
                        // A literal custom verb belongs to another route.
                        if raw.ends_with(":cancel") || raw.ends_with(":subscribe") {
                            return None;
                        }
                        raw
                    }
                };
                let decoded = percent_decode(value, false)?;
                if decoded.is_empty() {
                    return None;
                }
                if *task {
                    params.task_id = decoded;
                } else {
                    params.id = decoded;
                }
            }
        }
    }
    Some(params)
}

fn match_table(table: &[Route], http_method: &str, segments: &[&str]) -> RouteMatch {
    let mut allow = Vec::new();
    for r in table {
        if let Some(params) = match_segments(r, segments) {
            if r.verbs.iter().any(|v| v.eq_ignore_ascii_case(http_method)) {
                return RouteMatch::Found { method: r.method, params, tenant: String::new() };
            }
            allow.extend_from_slice(r.verbs);
        }
    }
    if allow.is_empty() {
        RouteMatch::NotFound
    } else {
        allow.sort_unstable();
        allow.dedup();
        RouteMatch::MethodNotAllowed { allow }
    }
}

fn split_path(rel_path: &str) -> Vec<&str> {
    let trimmed = rel_path.trim_start_matches('/').trim_end_matches('/');
    if trimmed.is_empty() {
        Vec::new()
    } else {
        trimmed.split('/').collect()
    }
}

/// Matches a request path relative to the interface's base path (e.g. `/tasks/t1`).
pub fn match_route(http_method: &str, rel_path: &str) -> RouteMatch {
    let segments = split_path(rel_path);
    let direct = match_table(ROUTES, http_method, &segments);
    if !matches!(direct, RouteMatch::NotFound) || segments.len() < 2 {
        return direct;
    }
    let Some(tenant) = percent_decode(segments[0], false).filter(|t| !t.is_empty()) else { return RouteMatch::NotFound };
    match match_table(ROUTES, http_method, &segments[1..]) {
        RouteMatch::Found { method, params, .. } => RouteMatch::Found { method, params, tenant },
        other => other,
    }
}

/// Query parameters, decoded.
struct Query(Vec<(String, String)>);

impl Query {
    fn parse(q: Option<&str>) -> Result<Query, A2aError> {
        let mut out = Vec::new();
        for pair in q.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let k = percent_decode(k, true).ok_or_else(|| A2aError::invalid_field("", "malformed query string"))?;
            let v = percent_decode(v, true).ok_or_else(|| A2aError::invalid_field(&k, "malformed percent-encoding"))?;
            out.push((k, v));
        }
        Ok(Query(out))
    }
    /// The last value of `camel` (or its snake_case form).
    fn get(&self, camel: &str, snake: &str) -> Option<&str> {
        self.0.iter().rev().find(|(k, _)| k == camel || k == snake).map(|(_, v)| v.as_str())
    }
    fn int(&self, camel: &str, snake: &str) -> Result<Option<i32>, A2aError> {
        self.get(camel, snake)
            .map(|v| v.trim().parse::<i32>().map_err(|_| A2aError::invalid_field(camel, "must be a 32-bit integer")))
            .transpose()
    }
    fn boolean(&self, camel: &str, snake: &str) -> Result<Option<bool>, A2aError> {
        self.get(camel, snake)
            .map(|v| match v {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(A2aError::invalid_field(camel, "must be true or false")),
            })
            .transpose()
    }
    fn string(&self, camel: &str, snake: &str) -> String {
        self.get(camel, snake).map(String::from).unwrap_or_default()
    }
}

fn body_or_empty(body: &[u8]) -> &[u8] {
    if body.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        body
    }
}

fn decode_body<T: crate::codec::Message>(body: &[u8]) -> Result<T, A2aError> {
    json::decode_unchecked::<T>(body_or_empty(body)).map_err(A2aError::from)
}

fn validated<T: crate::proto::validate::Validate>(msg: T) -> Result<T, A2aError> {
    msg.validate().map_err(|v| A2aError::invalid_params(v.into_vec()))?;
    Ok(msg)
}

/// Builds the operation of a matched route from the query and body. Path fields are set
/// before REQUIRED fields are checked.
pub fn decode_request(method: Method, params: PathParams, tenant: &str, query: Option<&str>, body: &[u8]) -> Result<Operation, A2aError> {
    let q = Query::parse(query)?;
    // The tenant comes from the path prefix, else the query, else (for bodies) the body.
    let tenant = if tenant.is_empty() { q.string("tenant", "tenant") } else { String::from(tenant) };
    let keep = |body_tenant: &mut String| {
        if !tenant.is_empty() {
            body_tenant.clone_from(&tenant);
        }
    };
    let op = match method {
        Method::SendMessage | Method::SendStreamingMessage => {
            let mut r: v1::SendMessageRequest = decode_body(body)?;
            keep(&mut r.tenant);
            let r = validated(r)?;
            Operation::Task(if method == Method::SendMessage { Request::SendMessage(r) } else { Request::SendStreamingMessage(r) })
        }
        Method::GetTask => Operation::Task(Request::GetTask(validated(v1::GetTaskRequest {
            tenant,
            id: params.id,
            history_length: q.int("historyLength", "history_length")?,
        })?)),
        Method::ListTasks => {
            let status = match q.get("status", "status") {
                None => 0,
                Some(s) => match <v1::TaskState as crate::proto::json::JsonEnum>::from_json_name(s) {
                    Some(n) => n,
                    None => s.trim().parse::<i32>().map_err(|_| A2aError::invalid_field("status", "not a TaskState name or number"))?,
                },
            };
            let status_timestamp_after = match q.get("statusTimestampAfter", "status_timestamp_after") {
                None => None,
                Some(t) => {
                    let (seconds, nanos) = crate::proto::json::timestamp::parse(t)
                        .map_err(|e| A2aError::invalid_field("statusTimestampAfter", alloc::format!("{e}")))?;
                    Some(Timestamp { seconds, nanos })
                }
            };
            Operation::Task(Request::ListTasks(v1::ListTasksRequest {
                tenant,
                context_id: q.string("contextId", "context_id"),
                status,
                page_size: q.int("pageSize", "page_size")?,
                page_token: q.string("pageToken", "page_token"),
                history_length: q.int("historyLength", "history_length")?,
                status_timestamp_after,
                include_artifacts: q.boolean("includeArtifacts", "include_artifacts")?,
            }))
        }
        Method::CancelTask => {
            let mut r: v1::CancelTaskRequest = decode_body(body)?;
            keep(&mut r.tenant);
            r.id = params.id;
            Operation::Task(Request::CancelTask(validated(r)?))
        }
        Method::SubscribeToTask => {
            Operation::Task(Request::SubscribeToTask(validated(v1::SubscribeToTaskRequest { tenant, id: params.id })?))
        }
        Method::CreateTaskPushNotificationConfig => {
            let mut r: v1::TaskPushNotificationConfig = decode_body(body)?;
            keep(&mut r.tenant);
            r.task_id = params.task_id;
            Operation::Task(Request::CreatePushConfig(validated(r)?))
        }
        Method::GetTaskPushNotificationConfig => {
            Operation::Task(Request::GetPushConfig(validated(v1::GetTaskPushNotificationConfigRequest {
                tenant,
                task_id: params.task_id,
                id: params.id,
            })?))
        }
        Method::ListTaskPushNotificationConfigs => {
            Operation::Task(Request::ListPushConfigs(validated(v1::ListTaskPushNotificationConfigsRequest {
                tenant,
                task_id: params.task_id,
                page_size: q.int("pageSize", "page_size")?.unwrap_or(0),
                page_token: q.string("pageToken", "page_token"),
            })?))
        }
        Method::DeleteTaskPushNotificationConfig => {
            Operation::Task(Request::DeletePushConfig(validated(v1::DeleteTaskPushNotificationConfigRequest {
                tenant,
                task_id: params.task_id,
                id: params.id,
            })?))
        }
        Method::GetExtendedAgentCard => Operation::GetExtendedAgentCard(v1::GetExtendedAgentCardRequest { tenant }),
    };
    Ok(op)
}

/// Writes the answer body (ProtoJSON of the response; `{}` for a delete).
pub fn encode_response(response: &Response, out: &mut Vec<u8>) -> Result<(), A2aError> {
    super::encode_response_json(response, out)
}

/// Writes an error body (AIP-193 `google.rpc.Status`).
pub fn encode_error(error: &A2aError, out: &mut Vec<u8>) {
    let _ = json::write_serde(&error.to_http_body(), out);
}

/// The error body of a v0.3 interface ([`A2aError::to_http_body_v03`]).
pub fn encode_error_v03(error: &A2aError, out: &mut Vec<u8>) {
    let _ = json::write_serde(&error.to_http_body_v03(), out);
}

/// The body of a plain 404 for a path that is no route (no A2A `ErrorInfo`).
pub fn not_found_body() -> Vec<u8> {
    Vec::from(&br#"{"error":{"code":404,"status":"NOT_FOUND","message":"no A2A route at this path"}}"#[..])
}

// ---------------------------------------------------------------- client

/// How a client sends `operation` on this binding: HTTP method, path (relative to the
/// interface URL, with the tenant prefix when the request names one), and body.
pub fn encode_request(operation: &Operation) -> Result<(&'static str, String, Vec<u8>), A2aError> {
    use crate::http::percent_encode as enc;
    let tenant = operation.tenant();
    let prefix = if tenant.is_empty() { String::new() } else { alloc::format!("/{}", enc(tenant)) };
    let mut body = Vec::new();
    let err = |e: crate::codec::EncodeError| A2aError::with_message(ErrorKind::Internal, alloc::format!("{e}"));
    let mut query: Vec<(String, String)> = Vec::new();
    let (verb, path) = match operation {
        Operation::GetExtendedAgentCard(_) => ("GET", String::from("/extendedAgentCard")),
        Operation::Task(r) => match r {
            Request::SendMessage(x) | Request::SendStreamingMessage(x) => {
                let mut x = x.clone();
                x.tenant.clear();
                json::encode_into(&x, &mut body).map_err(err)?;
                let stream = matches!(r, Request::SendStreamingMessage(_));
                ("POST", String::from(if stream { "/message:stream" } else { "/message:send" }))
            }
            Request::GetTask(x) => {
                if let Some(h) = x.history_length {
                    query.push((String::from("historyLength"), alloc::format!("{h}")));
                }
                ("GET", alloc::format!("/tasks/{}", enc(&x.id)))
            }
            Request::ListTasks(x) => {
                if !x.context_id.is_empty() {
                    query.push((String::from("contextId"), x.context_id.clone()));
                }
                if x.status != 0 {
                    let name = v1::TaskState::try_from(x.status)
                        .map(|s| String::from(s.as_str_name()))
                        .unwrap_or_else(|_| alloc::format!("{}", x.status));
                    query.push((String::from("status"), name));
                }
                if let Some(p) = x.page_size {
                    query.push((String::from("pageSize"), alloc::format!("{p}")));
                }
                if !x.page_token.is_empty() {
                    query.push((String::from("pageToken"), x.page_token.clone()));
                }
                if let Some(h) = x.history_length {
                    query.push((String::from("historyLength"), alloc::format!("{h}")));
                }
                if let Some(t) = &x.status_timestamp_after {
                    let text = crate::proto::json::timestamp::format(t.seconds, t.nanos)
                        .map_err(|e| A2aError::invalid_field("statusTimestampAfter", alloc::format!("{e}")))?;
                    query.push((String::from("statusTimestampAfter"), String::from(text.as_str())));
                }
                if let Some(i) = x.include_artifacts {
                    query.push((String::from("includeArtifacts"), String::from(if i { "true" } else { "false" })));
                }
                ("GET", String::from("/tasks"))
            }
            Request::CancelTask(x) => {
                let body_msg = v1::CancelTaskRequest { metadata: x.metadata.clone(), ..Default::default() };
                json::encode_into(&body_msg, &mut body).map_err(err)?;
                ("POST", alloc::format!("/tasks/{}:cancel", enc(&x.id)))
            }
            Request::SubscribeToTask(x) => ("GET", alloc::format!("/tasks/{}:subscribe", enc(&x.id))),
            Request::CreatePushConfig(x) => {
                let mut x = x.clone();
                let task = core::mem::take(&mut x.task_id);
                x.tenant.clear();
                json::encode_into(&x, &mut body).map_err(err)?;
                ("POST", alloc::format!("/tasks/{}/pushNotificationConfigs", enc(&task)))
            }
            Request::GetPushConfig(x) => ("GET", alloc::format!("/tasks/{}/pushNotificationConfigs/{}", enc(&x.task_id), enc(&x.id))),
            Request::ListPushConfigs(x) => {
                if x.page_size != 0 {
                    query.push((String::from("pageSize"), alloc::format!("{}", x.page_size)));
                }
                if !x.page_token.is_empty() {
                    query.push((String::from("pageToken"), x.page_token.clone()));
                }
                ("GET", alloc::format!("/tasks/{}/pushNotificationConfigs", enc(&x.task_id)))
            }
            Request::DeletePushConfig(x) => ("DELETE", alloc::format!("/tasks/{}/pushNotificationConfigs/{}", enc(&x.task_id), enc(&x.id))),
        },
    };
    let mut full = prefix + &path;
    for (i, (k, v)) in query.iter().enumerate() {
        full.push(if i == 0 { '?' } else { '&' });
        full.push_str(k);
        full.push('=');
        full.push_str(&enc(v));
    }
    Ok((verb, full, body))
}

/// Reads a success body for `method` as a v1.0 response.
pub fn decode_response(body: &[u8], method: Method) -> Result<Response, crate::error::ClientError> {
    match Response::from_json(method, body) {
        Some(r) => r.map_err(|e| crate::error::ClientError::Protocol(alloc::format!("invalid answer: {e}"))),
        None => Err(crate::error::ClientError::Protocol(alloc::format!("{method:?} answers with a stream"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(m: &str, p: &str) -> (Method, PathParams, String) {
        match match_route(m, p) {
            RouteMatch::Found { method, params, tenant } => (method, params, tenant),
            other => panic!("{m} {p}: {other:?}"),
        }
    }

    #[test]
    fn every_route_with_and_without_tenant() {
        assert_eq!(found("POST", "/message:send").0, Method::SendMessage);
        assert_eq!(found("POST", "/acme/message:stream"), (Method::SendStreamingMessage, PathParams::default(), "acme".into()));
        let (m, p, t) = found("GET", "/tasks/t%2F1");
        assert_eq!((m, p.id.as_str(), t.as_str()), (Method::GetTask, "t/1", ""));
        assert_eq!(found("GET", "/tasks").0, Method::ListTasks);
        assert_eq!(found("GET", "/acme/tasks").2, "acme");
        assert_eq!(found("POST", "/tasks/t1:cancel").0, Method::CancelTask);
        assert_eq!(found("GET", "/tasks/t1:subscribe").0, Method::SubscribeToTask);
        assert_eq!(found("POST", "/tasks/t1:subscribe").0, Method::SubscribeToTask);
        let (m, p, _) = found("GET", "/tasks/t1/pushNotificationConfigs/c1");
        assert_eq!((m, p.task_id.as_str(), p.id.as_str()), (Method::GetTaskPushNotificationConfig, "t1", "c1"));
        assert_eq!(found("DELETE", "/x/tasks/t1/pushNotificationConfigs/c1").0, Method::DeleteTaskPushNotificationConfig);
        assert_eq!(found("POST", "/tasks/t1/pushNotificationConfigs").0, Method::CreateTaskPushNotificationConfig);
        assert_eq!(found("GET", "/tasks/t1/pushNotificationConfigs").0, Method::ListTaskPushNotificationConfigs);
        assert_eq!(found("GET", "/extendedAgentCard").0, Method::GetExtendedAgentCard);
        assert_eq!(found("GET", "/acme/extendedAgentCard").2, "acme");
    }

    #[test]
    fn ambiguous_paths_prefer_the_route_without_tenant_and_encoded_verbs_are_ids() {
        assert_eq!(found("GET", "/tasks/extendedAgentCard").0, Method::GetTask);
        let (m, p, _) = found("GET", "/tasks/a%3Acancel");
        assert_eq!((m, p.id.as_str()), (Method::GetTask, "a:cancel"));
    }

    #[test]
    fn unknown_paths_are_404_and_wrong_verbs_405() {
        assert_eq!(match_route("GET", "/nope"), RouteMatch::NotFound);
        assert_eq!(match_route("GET", "/"), RouteMatch::NotFound);
        assert_eq!(match_route("GET", "/a/b/c/d/e/f"), RouteMatch::NotFound);
        assert_eq!(match_route("PUT", "/tasks/t1"), RouteMatch::MethodNotAllowed { allow: alloc::vec!["GET"] });
        assert_eq!(match_route("GET", "/message:send"), RouteMatch::MethodNotAllowed { allow: alloc::vec!["POST"] });
        assert_eq!(
            match_route("PATCH", "/tasks/t1/pushNotificationConfigs/c"),
            RouteMatch::MethodNotAllowed { allow: alloc::vec!["DELETE", "GET"] }
        );
    }

    #[test]
    fn query_parameters_are_typed() {
        let op = decode_request(
            Method::ListTasks,
            PathParams::default(),
            "",
            Some("contextId=c%201&status=TASK_STATE_WORKING&page_size=10&includeArtifacts=true&statusTimestampAfter=2026-01-01T00%3A00%3A00Z&tenant=t"),
            b"",
        )
        .unwrap();
        let Operation::Task(Request::ListTasks(r)) = op else { panic!() };
        assert_eq!(
            (r.context_id.as_str(), r.status, r.page_size, r.include_artifacts, r.tenant.as_str()),
            ("c 1", 2, Some(10), Some(true), "t")
        );
        assert_eq!(r.status_timestamp_after.unwrap().seconds, 1_767_225_600);
        let e = decode_request(Method::ListTasks, PathParams::default(), "", Some("pageSize=ten"), b"").unwrap_err();
        assert_eq!(e.violations()[0].field, "pageSize");
        let e = decode_request(Method::ListTasks, PathParams::default(), "", Some("includeArtifacts=yes"), b"").unwrap_err();
        assert_eq!(e.violations()[0].field, "includeArtifacts");
        let e = decode_request(Method::ListTasks, PathParams::default(), "", Some("status=completed"), b"").unwrap_err();
        assert_eq!(e.violations()[0].field, "status");
    }

    #[test]
    fn client_paths_match_server_routes() {
        let ops = [
            Operation::Task(Request::GetTask(v1::GetTaskRequest {
                id: "a/b:cancel".into(),
                tenant: "t 1".into(),
                history_length: Some(3),
            })),
            Operation::Task(Request::CancelTask(v1::CancelTaskRequest { id: "x".into(), ..Default::default() })),
            Operation::Task(Request::DeletePushConfig(v1::DeleteTaskPushNotificationConfigRequest {
                task_id: "t".into(),
                id: "c".into(),
                ..Default::default()
            })),
        ];
        for op in ops {
            let (verb, path, body) = encode_request(&op).unwrap();
            let (p, q) = path.split_once('?').map_or((path.as_str(), None), |(a, b)| (a, Some(b)));
            let RouteMatch::Found { method, params, tenant } = match_route(verb, p) else { panic!("{path}") };
            assert_eq!(decode_request(method, params, &tenant, q, &body).unwrap(), op);
        }
    }
}

// ---------------------------------------------------------------- v0.3 (`/v1/...` routes)

/// The v0.3 routes (v0.3 spec §3.5.6 and the v0.3 proto's HTTP rules): under `/v1`, bodies
/// in the v0.3 proto's ProtoJSON. The create rule of the proto says `task/{id}` (singular):
/// both spellings are served. ListTasks has no v0.3 RPC and is not served.
const ROUTES_V03: &[Route] = &[
    Route { verbs: &["POST"], segs: &[Seg::Lit("v1"), Seg::Lit("message:send")], method: Method::SendMessage },
    Route { verbs: &["POST"], segs: &[Seg::Lit("v1"), Seg::Lit("message:stream")], method: Method::SendStreamingMessage },
    Route {
        verbs: &["POST"],
        segs: &[Seg::Lit("v1"), Seg::Lit("tasks"), Seg::Var { task: false, verb: Some(":cancel") }],
        method: Method::CancelTask,
    },
    Route {
        verbs: &["GET", "POST"],
        segs: &[Seg::Lit("v1"), Seg::Lit("tasks"), Seg::Var { task: false, verb: Some(":subscribe") }],
        method: Method::SubscribeToTask,
    },
    Route { verbs: &["GET"], segs: &[Seg::Lit("v1"), Seg::Lit("tasks"), ID], method: Method::GetTask },
    Route {
        verbs: &["POST"],
        segs: &[Seg::Lit("v1"), Seg::Lit("tasks"), TASK_ID, Seg::Lit("pushNotificationConfigs")],
        method: Method::CreateTaskPushNotificationConfig,
    },
    Route {
        verbs: &["POST"],
        segs: &[Seg::Lit("v1"), Seg::Lit("task"), TASK_ID, Seg::Lit("pushNotificationConfigs")],
        method: Method::CreateTaskPushNotificationConfig,
    },
    Route {
        verbs: &["GET"],
        segs: &[Seg::Lit("v1"), Seg::Lit("tasks"), TASK_ID, Seg::Lit("pushNotificationConfigs")],
        method: Method::ListTaskPushNotificationConfigs,
    },
    Route {
        verbs: &["GET"],
        segs: &[Seg::Lit("v1"), Seg::Lit("tasks"), TASK_ID, Seg::Lit("pushNotificationConfigs"), ID],
        method: Method::GetTaskPushNotificationConfig,
    },
    Route {
        verbs: &["DELETE"],
        segs: &[Seg::Lit("v1"), Seg::Lit("tasks"), TASK_ID, Seg::Lit("pushNotificationConfigs"), ID],
        method: Method::DeleteTaskPushNotificationConfig,
    },
    Route { verbs: &["GET"], segs: &[Seg::Lit("v1"), Seg::Lit("card")], method: Method::GetExtendedAgentCard },
];

/// Matches a v0.3 request path (relative to the interface's base path).
pub fn match_route_v03(http_method: &str, rel_path: &str) -> RouteMatch {
    match_table(ROUTES_V03, http_method, &split_path(rel_path))
}

mod v03_impl {
    use super::*;
    use crate::proto::v03 as pb;
    use crate::v03::{self as model, pb as conv, ToV03, ToV1};
    use conv::FileBytes;

    fn bad(e: crate::v03::ConvertError) -> A2aError {
        A2aError::invalid_field(e.path(), alloc::format!("{e}"))
    }
    fn internal(e: impl core::fmt::Display) -> A2aError {
        A2aError::with_message(ErrorKind::Internal, alloc::format!("cannot answer in v0.3: {e}"))
    }
    fn up<T: ToV1>(v: T) -> Result<T::V1, A2aError>
    where
        T::V1: crate::proto::validate::Validate,
    {
        validated(v.to_v1().map(|c| c.value).map_err(bad)?)
    }

    /// Builds the v1.0 operation of a matched v0.3 route (file bytes read as
    /// [`FileBytes::Base64Text`] reads them).
    pub fn decode_request_v03(method: Method, params: PathParams, query: Option<&str>, body: &[u8]) -> Result<Operation, A2aError> {
        decode_request_v03_with(method, params, query, body, FileBytes::default()).map(|(op, _)| op)
    }

    /// [`decode_request_v03`], file bytes read as `files` says; also gives the form the
    /// client's file bytes came in (to answer it in that form).
    pub fn decode_request_v03_with(
        method: Method,
        params: PathParams,
        query: Option<&str>,
        body: &[u8],
        files: FileBytes,
    ) -> Result<(Operation, FileBytes), A2aError> {
        let q = Query::parse(query)?;
        let mut seen = files;
        let op = match method {
            Method::SendMessage | Method::SendStreamingMessage => {
                let r: pb::SendMessageRequest = decode_body(body)?;
                let read = conv::from_pb_with::<model::MessageSendParams>(&r, files).map_err(bad)?;
                seen = read.files_seen;
                let v1req = up(read.converted.value)?;
                Operation::Task(if method == Method::SendMessage {
                    Request::SendMessage(v1req)
                } else {
                    Request::SendStreamingMessage(v1req)
                })
            }
            Method::GetTask => {
                let h = q.int("historyLength", "history_length")?.filter(|h| *h != 0);
                Operation::Task(Request::GetTask(up(model::TaskQueryParams { id: params.id, history_length: h, metadata: None })?))
            }
            Method::CancelTask => Operation::Task(Request::CancelTask(up(model::TaskIdParams { id: params.id, metadata: None })?)),
            Method::SubscribeToTask => Operation::Task(Request::SubscribeToTask(validated(
                model::TaskIdParams { id: params.id, metadata: None }.to_v1_subscribe().value,
            )?)),
            Method::CreateTaskPushNotificationConfig => {
                let c: pb::TaskPushNotificationConfig = decode_body(body)?;
                let config_id = conv::config_from_name(&c.name).map(|(_, id)| String::from(id)).unwrap_or_default();
                let req = pb::CreateTaskPushNotificationConfigRequest {
                    parent: alloc::format!("tasks/{}", params.task_id),
                    config_id,
                    config: Some(c),
                };
                Operation::Task(Request::CreatePushConfig(up(conv::create_config_from_pb(&req).map_err(bad)?)?))
            }
            Method::GetTaskPushNotificationConfig => {
                Operation::Task(Request::GetPushConfig(up(model::GetTaskPushNotificationConfigParams {
                    id: params.task_id,
                    push_notification_config_id: Some(params.id),
                    metadata: None,
                })?))
            }
            Method::ListTaskPushNotificationConfigs => {
                Operation::Task(Request::ListPushConfigs(up(model::ListTaskPushNotificationConfigParams {
                    id: params.task_id,
                    metadata: None,
                })?))
            }
            Method::DeleteTaskPushNotificationConfig => {
                Operation::Task(Request::DeletePushConfig(up(model::DeleteTaskPushNotificationConfigParams {
                    id: params.task_id,
                    push_notification_config_id: params.id,
                    metadata: None,
                })?))
            }
            Method::GetExtendedAgentCard => Operation::GetExtendedAgentCard(v1::GetExtendedAgentCardRequest::default()),
            Method::ListTasks => return Err(A2aError::new(ErrorKind::MethodNotFound)),
        };
        Ok((op, seen))
    }

    fn pbjson<T: crate::codec::Message>(m: &T, out: &mut Vec<u8>) -> Result<(), A2aError> {
        json::encode_into(m, out).map_err(internal)
    }

    /// Writes a v0.3 answer body: the v0.3 proto's ProtoJSON (the card: the v0.3 JSON card,
    /// as the v0.3 SDKs serve it).
    pub fn encode_response_v03(response: &Response, out: &mut Vec<u8>) -> Result<(), A2aError> {
        encode_response_v03_with(response, FileBytes::default(), out)
    }

    /// [`encode_response_v03`] with file bytes in the form `files`.
    pub fn encode_response_v03_with(response: &Response, files: FileBytes, out: &mut Vec<u8>) -> Result<(), A2aError> {
        match response {
            Response::SendMessage(r) => {
                pbjson(&conv::to_pb_with(&r.to_v03().map_err(internal)?.value, files).map_err(internal)?.value, out)
            }
            Response::Task(t) => pbjson(&conv::to_pb_with(&t.to_v03().map_err(internal)?.value, files).map_err(internal)?.value, out),
            Response::PushConfig(c) => pbjson(&conv::to_pb_with(&c.to_v03().map_err(internal)?.value, files).map_err(internal)?.value, out),
            Response::PushConfigs(r) => {
                pbjson(&conv::to_pb_with(&r.to_v03().map_err(internal)?.value, files).map_err(internal)?.value, out)
            }
            Response::Deleted => {
                out.extend_from_slice(b"{}");
                Ok(())
            }
            Response::AgentCard(c) => {
                let card = c.to_v03().map_err(internal)?.value;
                out.extend_from_slice(&model::encode(&card).map_err(internal)?);
                Ok(())
            }
            Response::ListTasks(_) => Err(A2aError::new(ErrorKind::MethodNotFound)),
        }
    }

    /// One v0.3 stream event (the v0.3 proto's `StreamResponse` in ProtoJSON; file bytes as
    /// base64 text).
    pub fn encode_stream_event_v03(event: &v1::StreamResponse, out: &mut Vec<u8>) -> Result<(), A2aError> {
        encode_stream_event_v03_with(event, FileBytes::default(), out)
    }

    /// [`encode_stream_event_v03`] with file bytes in the form `files`.
    pub fn encode_stream_event_v03_with(event: &v1::StreamResponse, files: FileBytes, out: &mut Vec<u8>) -> Result<(), A2aError> {
        pbjson(&conv::to_pb_with(&event.to_v03().map_err(internal)?.value, files).map_err(internal)?.value, out)
    }

    fn local(e: impl core::fmt::Display) -> A2aError {
        A2aError::with_message(ErrorKind::Internal, alloc::format!("{e}"))
    }

    /// How a client sends `operation` to a v0.3 HTTP+JSON server (file bytes as base64 text).
    pub fn encode_request_v03(operation: &Operation) -> Result<(&'static str, String, Vec<u8>), A2aError> {
        encode_request_v03_with(operation, FileBytes::default())
    }

    /// [`encode_request_v03`] with file bytes in the form `files`.
    pub fn encode_request_v03_with(operation: &Operation, files: FileBytes) -> Result<(&'static str, String, Vec<u8>), A2aError> {
        use crate::http::percent_encode as enc;
        let mut body = Vec::new();
        let (verb, path) = match operation {
            Operation::GetExtendedAgentCard(_) => ("GET", String::from("/v1/card")),
            Operation::Task(r) => match r {
                Request::SendMessage(x) | Request::SendStreamingMessage(x) => {
                    pbjson(&conv::to_pb_with(&x.to_v03().map_err(local)?.value, files).map_err(local)?.value, &mut body)?;
                    ("POST", String::from(if matches!(r, Request::SendMessage(_)) { "/v1/message:send" } else { "/v1/message:stream" }))
                }
                Request::GetTask(x) => {
                    let h = x.history_length.filter(|h| *h > 0).map(|h| alloc::format!("?historyLength={h}")).unwrap_or_default();
                    ("GET", alloc::format!("/v1/tasks/{}{h}", enc(&x.id)))
                }
                Request::CancelTask(x) => {
                    body.extend_from_slice(b"{}");
                    ("POST", alloc::format!("/v1/tasks/{}:cancel", enc(&x.id)))
                }
                Request::SubscribeToTask(x) => ("GET", alloc::format!("/v1/tasks/{}:subscribe", enc(&x.id))),
                Request::CreatePushConfig(x) => {
                    let c = conv::create_config_to_pb(&x.to_v03().map_err(local)?.value);
                    if let Some(cfg) = &c.config {
                        pbjson(cfg, &mut body)?;
                    }
                    ("POST", alloc::format!("/v1/tasks/{}/pushNotificationConfigs", enc(&x.task_id)))
                }
                Request::GetPushConfig(x) => {
                    ("GET", alloc::format!("/v1/tasks/{}/pushNotificationConfigs/{}", enc(&x.task_id), enc(&x.id)))
                }
                Request::ListPushConfigs(x) => ("GET", alloc::format!("/v1/tasks/{}/pushNotificationConfigs", enc(&x.task_id))),
                Request::DeletePushConfig(x) => {
                    ("DELETE", alloc::format!("/v1/tasks/{}/pushNotificationConfigs/{}", enc(&x.task_id), enc(&x.id)))
                }
                Request::ListTasks(_) => return Err(A2aError::unsupported("ListTasks does not exist in A2A 0.3")),
            },
        };
        Ok((verb, path, body))
    }

    fn proto_err(e: impl core::fmt::Display) -> crate::error::ClientError {
        crate::error::ClientError::Protocol(alloc::format!("invalid v0.3 answer: {e}"))
    }

    fn read<P: crate::codec::Message, M: conv::FromPb<Pb = P> + ToV1>(
        body: &[u8],
        files: FileBytes,
    ) -> Result<M::V1, crate::error::ClientError> {
        let p: P = json::decode_unchecked(body).map_err(proto_err)?;
        let m = conv::from_pb_with::<M>(&p, files).map_err(proto_err)?.converted.value;
        m.to_v1().map(|c| c.value).map_err(proto_err)
    }

    /// Reads a v0.3 answer body for `method` as the v1.0 response (file bytes read as
    /// [`FileBytes::Base64Text`] reads them).
    pub fn decode_response_v03(body: &[u8], method: Method) -> Result<Response, crate::error::ClientError> {
        decode_response_v03_with(body, method, FileBytes::default())
    }

    /// [`decode_response_v03`], file bytes read as `files` says.
    pub fn decode_response_v03_with(body: &[u8], method: Method, files: FileBytes) -> Result<Response, crate::error::ClientError> {
        Ok(match method {
            Method::SendMessage => Response::SendMessage(read::<pb::SendMessageResponse, model::SendMessageResult>(body, files)?),
            Method::GetTask | Method::CancelTask => Response::Task(read::<pb::Task, model::Task>(body, files)?),
            Method::CreateTaskPushNotificationConfig | Method::GetTaskPushNotificationConfig => {
                Response::PushConfig(read::<pb::TaskPushNotificationConfig, model::TaskPushNotificationConfig>(body, files)?)
            }
            Method::ListTaskPushNotificationConfigs => Response::PushConfigs(read::<
                pb::ListTaskPushNotificationConfigResponse,
                Vec<model::TaskPushNotificationConfig>,
            >(body, files)?),
            Method::DeleteTaskPushNotificationConfig => Response::Deleted,
            Method::GetExtendedAgentCard => {
                let c: model::AgentCard = model::decode(body).map_err(proto_err)?;
                Response::AgentCard(c.to_v1().map_err(proto_err)?.value)
            }
            Method::SendStreamingMessage | Method::SubscribeToTask | Method::ListTasks => {
                return Err(crate::error::ClientError::Protocol(alloc::format!("{method:?} has no single v0.3 answer")))
            }
        })
    }

    /// Reads one v0.3 stream event (file bytes read as [`FileBytes::Base64Text`] reads them).
    pub fn decode_stream_event_v03(data: &[u8]) -> Result<v1::StreamResponse, crate::error::ClientError> {
        decode_stream_event_v03_with(data, FileBytes::default())
    }

    /// [`decode_stream_event_v03`], file bytes read as `files` says.
    pub fn decode_stream_event_v03_with(data: &[u8], files: FileBytes) -> Result<v1::StreamResponse, crate::error::ClientError> {
        read::<pb::StreamResponse, model::StreamEvent>(data, files)
    }
}

pub use v03_impl::{
    decode_request_v03, decode_request_v03_with, decode_response_v03, decode_response_v03_with, decode_stream_event_v03,
    decode_stream_event_v03_with, encode_request_v03, encode_request_v03_with, encode_response_v03, encode_response_v03_with,
    encode_stream_event_v03, encode_stream_event_v03_with,
};
