//! The three protocol bindings, both versions: how each operation travels.
//!
//! [`METHODS`] is the one table of the eleven operations and their names on every binding
//! and version. The binding modules turn bytes into [`Operation`]s and results into bytes;
//! [`crate::server`] and [`crate::client`] put them together.

pub mod grpc;
pub mod jsonrpc;
pub mod rest;
pub mod sse;

use crate::engine::Request;
use crate::v1;

/// One of the eleven A2A operations.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    SendMessage,
    SendStreamingMessage,
    GetTask,
    ListTasks,
    CancelTask,
    SubscribeToTask,
    CreateTaskPushNotificationConfig,
    GetTaskPushNotificationConfig,
    ListTaskPushNotificationConfigs,
    DeleteTaskPushNotificationConfig,
    GetExtendedAgentCard,
}

/// Names of one operation on every binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodNames {
    /// The operation.
    pub method: Method,
    /// v1.0 JSON-RPC method and gRPC RPC name (they are the same, §9.1).
    pub v1: &'static str,
    /// v0.3 JSON-RPC method, if the operation exists there.
    pub v03_jsonrpc: Option<&'static str>,
    /// v0.3 gRPC RPC name, if the operation exists there.
    pub v03_grpc: Option<&'static str>,
    /// Answers with a stream of events.
    pub streaming: bool,
}

const fn m(
    method: Method,
    v1: &'static str,
    v03_jsonrpc: Option<&'static str>,
    v03_grpc: Option<&'static str>,
    streaming: bool,
) -> MethodNames {
    MethodNames { method, v1, v03_jsonrpc, v03_grpc, streaming }
}

/// THE table of operations (WIRE-NOTES (c), (k)).
pub const METHODS: [MethodNames; 11] = {
    use Method::*;
    [
        m(SendMessage, "SendMessage", Some("message/send"), Some("SendMessage"), false),
        m(SendStreamingMessage, "SendStreamingMessage", Some("message/stream"), Some("SendStreamingMessage"), true),
        m(GetTask, "GetTask", Some("tasks/get"), Some("GetTask"), false),
        m(ListTasks, "ListTasks", None, None, false),
        m(CancelTask, "CancelTask", Some("tasks/cancel"), Some("CancelTask"), false),
        m(SubscribeToTask, "SubscribeToTask", Some("tasks/resubscribe"), Some("TaskSubscription"), true),
        m(
            CreateTaskPushNotificationConfig,
            "CreateTaskPushNotificationConfig",
            Some("tasks/pushNotificationConfig/set"),
            Some("CreateTaskPushNotificationConfig"),
            false,
        ),
        m(
            GetTaskPushNotificationConfig,
            "GetTaskPushNotificationConfig",
            Some("tasks/pushNotificationConfig/get"),
            Some("GetTaskPushNotificationConfig"),
            false,
        ),
        m(
            ListTaskPushNotificationConfigs,
            "ListTaskPushNotificationConfigs",
            Some("tasks/pushNotificationConfig/list"),
            Some("ListTaskPushNotificationConfig"),
            false,
        ),
        m(
            DeleteTaskPushNotificationConfig,
            "DeleteTaskPushNotificationConfig",
            Some("tasks/pushNotificationConfig/delete"),
            Some("DeleteTaskPushNotificationConfig"),
            false,
        ),
        m(GetExtendedAgentCard, "GetExtendedAgentCard", Some("agent/getAuthenticatedExtendedCard"), Some("GetAgentCard"), false),
    ]
};

impl Method {
    /// This operation's row of [`METHODS`].
    pub fn names(self) -> &'static MethodNames {
        // METHODS lists the operations in declaration order (checked by a unit test).
        match METHODS.get(self as usize) {
            Some(n) if n.method == self => n,
            _ => METHODS.iter().find(|n| n.method == self).unwrap_or(&METHODS[0]),
        }
    }
    /// Answers with a stream.
    pub fn is_streaming(self) -> bool {
        self.names().streaming
    }
    /// The operation of a v1.0 JSON-RPC method / gRPC RPC name.
    pub fn from_v1(name: &str) -> Option<Method> {
        METHODS.iter().find(|n| n.v1 == name).map(|n| n.method)
    }
    /// The operation of a v0.3 JSON-RPC method name.
    pub fn from_v03_jsonrpc(name: &str) -> Option<Method> {
        METHODS.iter().find(|n| n.v03_jsonrpc == Some(name)).map(|n| n.method)
    }
    /// The operation of a v0.3 gRPC RPC name.
    pub fn from_v03_grpc(name: &str) -> Option<Method> {
        METHODS.iter().find(|n| n.v03_grpc == Some(name)).map(|n| n.method)
    }
}

/// Writes the v1.0 ProtoJSON of a response (`{}` for a delete), as JSON-RPC results and
/// HTTP+JSON bodies carry it.
pub fn encode_response_json(response: &crate::engine::Response, out: &mut alloc::vec::Vec<u8>) -> Result<(), crate::error::A2aError> {
    use crate::codec::json::encode_into;
    use crate::engine::Response;
    let r = match response {
        Response::SendMessage(r) => encode_into(r, out),
        Response::Task(t) => encode_into(t, out),
        Response::ListTasks(r) => encode_into(r, out),
        Response::PushConfig(c) => encode_into(c, out),
        Response::PushConfigs(r) => encode_into(r, out),
        Response::Deleted => {
            out.extend_from_slice(b"{}");
            Ok(())
        }
        Response::AgentCard(c) => encode_into(c, out),
    };
    r.map_err(|e| crate::error::A2aError::with_message(crate::error::ErrorKind::Internal, alloc::format!("{e}")))
}

/// The body of a webhook delivery (§4.3.3): the ProtoJSON `StreamResponse` for configs
/// created in v1.0 (`Content-Type: application/a2a+json`), and for v0.3 configs the v0.3
/// JSON of the Task (`kind: "task"`, lowercase states), which is what v0.3 receivers read.
pub fn webhook_body(
    version: crate::version::ProtocolVersion,
    event: &v1::StreamResponse,
) -> Result<alloc::vec::Vec<u8>, crate::error::A2aError> {
    use crate::error::{A2aError, ErrorKind};
    let internal = |e: &dyn core::fmt::Display| A2aError::with_message(ErrorKind::Internal, alloc::format!("{e}"));
    if !version.is_legacy() {
        return crate::codec::json::encode(event).map_err(|e| internal(&e));
    }
    use crate::v03::ToV03;
    match &event.payload {
        Some(v1::stream_response::Payload::Task(t)) => {
            let t = t.to_v03().map_err(|e| internal(&e))?.value;
            crate::v03::encode(&t).map_err(|e| internal(&e))
        }
        _ => {
            let e = event.to_v03().map_err(|e| internal(&e))?.value;
            crate::v03::encode(&e).map_err(|e| internal(&e))
        }
    }
}

/// The whole webhook delivery for `config`: `POST` to its URL with the body of
/// [`webhook_body`], `Content-Type: application/a2a+json` (v1.0) or `application/json`
/// (v0.3), `Authorization: {scheme} {credentials}` when the config carries
/// `authentication`, and `X-A2A-Notification-Token` when it carries a `token` (v1.0.1 names
/// no header for it; v0.3 receivers read this one, and v1.0 receivers ignore it).
pub fn webhook_request(
    config: &v1::TaskPushNotificationConfig,
    version: crate::version::ProtocolVersion,
    event: &v1::StreamResponse,
) -> Result<crate::http::OutgoingRequest, crate::error::A2aError> {
    use alloc::string::String;
    let body = webhook_body(version, event)?;
    let ctype = if version.is_legacy() { "application/json" } else { rest::CONTENT_TYPE };
    let mut headers = alloc::vec![(String::from("Content-Type"), String::from(ctype))];
    if let Some(auth) = config.authentication.as_ref().filter(|a| !a.scheme.is_empty()) {
        let value = if auth.credentials.is_empty() { auth.scheme.clone() } else { alloc::format!("{} {}", auth.scheme, auth.credentials) };
        headers.push((String::from("Authorization"), value));
    }
    if !config.token.is_empty() {
        headers.push((String::from("X-A2A-Notification-Token"), config.token.clone()));
    }
    Ok(crate::http::OutgoingRequest { method: "POST", url: config.url.clone(), headers, body })
}

/// A decoded operation with its v1.0 request.
#[derive(Clone, Debug, PartialEq)]
pub enum Operation {
    /// A task operation, for the engine.
    Task(Request),
    /// `GetExtendedAgentCard`: the application answers it (it MUST require authentication).
    GetExtendedAgentCard(v1::GetExtendedAgentCardRequest),
}

impl Operation {
    /// Which operation.
    pub fn method(&self) -> Method {
        match self {
            Operation::GetExtendedAgentCard(_) => Method::GetExtendedAgentCard,
            Operation::Task(r) => match r {
                Request::SendMessage(_) => Method::SendMessage,
                Request::SendStreamingMessage(_) => Method::SendStreamingMessage,
                Request::GetTask(_) => Method::GetTask,
                Request::ListTasks(_) => Method::ListTasks,
                Request::CancelTask(_) => Method::CancelTask,
                Request::SubscribeToTask(_) => Method::SubscribeToTask,
                Request::CreatePushConfig(_) => Method::CreateTaskPushNotificationConfig,
                Request::GetPushConfig(_) => Method::GetTaskPushNotificationConfig,
                Request::ListPushConfigs(_) => Method::ListTaskPushNotificationConfigs,
                Request::DeletePushConfig(_) => Method::DeleteTaskPushNotificationConfig,
            },
        }
    }

    /// The tenant the request names ("" = none).
    pub fn tenant(&self) -> &str {
        match self {
            Operation::GetExtendedAgentCard(r) => &r.tenant,
            Operation::Task(r) => match r {
                Request::SendMessage(x) | Request::SendStreamingMessage(x) => &x.tenant,
                Request::GetTask(x) => &x.tenant,
                Request::ListTasks(x) => &x.tenant,
                Request::CancelTask(x) => &x.tenant,
                Request::SubscribeToTask(x) => &x.tenant,
                Request::CreatePushConfig(x) => &x.tenant,
                Request::GetPushConfig(x) => &x.tenant,
                Request::ListPushConfigs(x) => &x.tenant,
                Request::DeletePushConfig(x) => &x.tenant,
            },
        }
    }

    /// Sets the tenant (from an HTTP+JSON path prefix).
    pub fn set_tenant(&mut self, tenant: &str) {
        let t = alloc::string::String::from(tenant);
        match self {
            Operation::GetExtendedAgentCard(r) => r.tenant = t,
            Operation::Task(r) => match r {
                Request::SendMessage(x) | Request::SendStreamingMessage(x) => x.tenant = t,
                Request::GetTask(x) => x.tenant = t,
                Request::ListTasks(x) => x.tenant = t,
                Request::CancelTask(x) => x.tenant = t,
                Request::SubscribeToTask(x) => x.tenant = t,
                Request::CreatePushConfig(x) => x.tenant = t,
                Request::GetPushConfig(x) => x.tenant = t,
                Request::ListPushConfigs(x) => x.tenant = t,
                Request::DeletePushConfig(x) => x.tenant = t,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_method_table_is_in_declaration_order_with_unique_names() {
        for (i, n) in METHODS.iter().enumerate() {
            assert_eq!(n.method as usize, i);
            assert_eq!(Method::from_v1(n.v1), Some(n.method));
            if let Some(j) = n.v03_jsonrpc {
                assert_eq!(Method::from_v03_jsonrpc(j), Some(n.method));
            }
            if let Some(g) = n.v03_grpc {
                assert_eq!(Method::from_v03_grpc(g), Some(n.method));
            }
        }
        assert_eq!(Method::from_v03_jsonrpc("SendMessage"), None, "versions never share a method name");
        assert_eq!(Method::from_v1("message/send"), None);
    }
}
