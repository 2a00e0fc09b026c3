//! The eleven A2A operations as data: [`Method`] (which operation, with its names on every
//! binding and version in the one table [`METHODS`]), [`Operation`] (a decoded request in the
//! v1.0 model), [`Request`] (the task operations the engine runs) and [`Response`] (their
//! answers). Everything above this module (bindings, engine, endpoint, client, service)
//! shares these types; this module depends on nothing but the model.
//!
//! For embedders that hold JSON rather than typed values (the language bindings),
//! [`Operation::from_json`] builds any operation from its method and ProtoJSON params, and
//! [`Response::to_json`] / [`Response::from_json`] turn any answer into ProtoJSON and back:
//! no binding re-derives the method-to-type table.

use crate::codec::{json, DecodeError, EncodeError};
use crate::error::A2aError;
use crate::v1;
use alloc::vec::Vec;

/// One of the eleven A2A operations.
///
/// The numbers are stable: a foreign language may store them, and a number is never reused
/// for another operation (a test pins them). 0 is never an operation.
#[allow(missing_docs)]
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u32)]
pub enum Method {
    SendMessage = 1,
    SendStreamingMessage = 2,
    GetTask = 3,
    ListTasks = 4,
    CancelTask = 5,
    SubscribeToTask = 6,
    CreateTaskPushNotificationConfig = 7,
    GetTaskPushNotificationConfig = 8,
    ListTaskPushNotificationConfigs = 9,
    DeleteTaskPushNotificationConfig = 10,
    GetExtendedAgentCard = 11,
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
        // METHODS lists the operations in the order of their numbers, from 1 (checked by a
        // unit test); the search is a fallback that the test shows is never taken.
        match METHODS.get((self as usize).wrapping_sub(1)) {
            Some(n) if n.method == self => n,
            _ => METHODS.iter().find(|n| n.method == self).unwrap_or(&METHODS[0]),
        }
    }
    /// The stable number of this operation (see the type's docs).
    pub fn number(self) -> u32 {
        self as u32
    }
    /// The operation with this stable number.
    pub fn from_number(n: u32) -> Option<Method> {
        METHODS.iter().map(|m| m.method).find(|m| m.number() == n)
    }
    /// The v1.0 name (`SendMessage`, also the gRPC RPC name).
    pub fn name(self) -> &'static str {
        self.names().v1
    }
    /// The operation of a name in any version: a v1.0 name (`GetTask`), a v0.3 JSON-RPC
    /// method (`tasks/get`) or a v0.3 gRPC RPC name (`TaskSubscription`).
    pub fn from_any_name(name: &str) -> Option<Method> {
        Self::from_v1(name).or_else(|| Self::from_v03_jsonrpc(name)).or_else(|| Self::from_v03_grpc(name))
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

/// A task operation.
#[allow(missing_docs)]
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    SendMessage(v1::SendMessageRequest),
    SendStreamingMessage(v1::SendMessageRequest),
    GetTask(v1::GetTaskRequest),
    ListTasks(v1::ListTasksRequest),
    CancelTask(v1::CancelTaskRequest),
    SubscribeToTask(v1::SubscribeToTaskRequest),
    CreatePushConfig(v1::TaskPushNotificationConfig),
    GetPushConfig(v1::GetTaskPushNotificationConfigRequest),
    ListPushConfigs(v1::ListTaskPushNotificationConfigsRequest),
    DeletePushConfig(v1::DeleteTaskPushNotificationConfigRequest),
}

/// The answer to a unary call.
#[allow(missing_docs)]
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum Response {
    SendMessage(v1::SendMessageResponse),
    Task(v1::Task),
    ListTasks(v1::ListTasksResponse),
    PushConfig(v1::TaskPushNotificationConfig),
    PushConfigs(v1::ListTaskPushNotificationConfigsResponse),
    /// DeleteTaskPushNotificationConfig succeeded (`google.protobuf.Empty`).
    Deleted,
    /// The answer to GetExtendedAgentCard (given by the application, never by the engine).
    AgentCard(v1::AgentCard),
}

/// A decoded operation with its v1.0 request.
#[non_exhaustive]
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

impl Operation {
    /// The operation `method` with its request as v1.0 ProtoJSON (`params` of a v1.0
    /// JSON-RPC request): decoded and validated, errors naming the JSON path. `None` params
    /// are allowed only for `GetExtendedAgentCard`.
    pub fn from_json(method: Method, params: Option<&[u8]>) -> Result<Operation, A2aError> {
        fn need(params: Option<&[u8]>) -> Result<&[u8], A2aError> {
            params.ok_or_else(|| A2aError::invalid_field("params", "required for this method"))
        }
        fn p<T: crate::codec::Message>(params: Option<&[u8]>) -> Result<T, A2aError> {
            json::decode::<T>(need(params)?).map_err(A2aError::from)
        }
        Ok(match method {
            Method::SendMessage => Operation::Task(Request::SendMessage(p(params)?)),
            Method::SendStreamingMessage => Operation::Task(Request::SendStreamingMessage(p(params)?)),
            Method::GetTask => Operation::Task(Request::GetTask(p(params)?)),
            Method::ListTasks => Operation::Task(Request::ListTasks(p(params)?)),
            Method::CancelTask => Operation::Task(Request::CancelTask(p(params)?)),
            Method::SubscribeToTask => Operation::Task(Request::SubscribeToTask(p(params)?)),
            Method::CreateTaskPushNotificationConfig => Operation::Task(Request::CreatePushConfig(p(params)?)),
            Method::GetTaskPushNotificationConfig => Operation::Task(Request::GetPushConfig(p(params)?)),
            Method::ListTaskPushNotificationConfigs => Operation::Task(Request::ListPushConfigs(p(params)?)),
            Method::DeleteTaskPushNotificationConfig => Operation::Task(Request::DeletePushConfig(p(params)?)),
            Method::GetExtendedAgentCard => Operation::GetExtendedAgentCard(match params {
                Some(b) => json::decode(b).map_err(A2aError::from)?,
                None => v1::GetExtendedAgentCardRequest::default(),
            }),
        })
    }

    /// [`Operation::from_json`] with the method by name, in any version's spelling
    /// (`SendMessage`, `message/send`, `TaskSubscription`); an unknown name is
    /// `MethodNotFound`.
    pub fn from_json_named(method: &str, params: Option<&[u8]>) -> Result<Operation, A2aError> {
        let m = Method::from_any_name(method)
            .ok_or_else(|| A2aError::with_message(crate::error::ErrorKind::MethodNotFound, alloc::format!("Method not found: {method}")))?;
        Self::from_json(m, params)
    }

    /// The request as v1.0 ProtoJSON, appended to `out` (what [`Operation::from_json`] reads).
    pub fn to_json(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match self {
            Operation::GetExtendedAgentCard(r) => json::encode_into(r, out),
            Operation::Task(r) => match r {
                Request::SendMessage(x) | Request::SendStreamingMessage(x) => json::encode_into(x, out),
                Request::GetTask(x) => json::encode_into(x, out),
                Request::ListTasks(x) => json::encode_into(x, out),
                Request::CancelTask(x) => json::encode_into(x, out),
                Request::SubscribeToTask(x) => json::encode_into(x, out),
                Request::CreatePushConfig(x) => json::encode_into(x, out),
                Request::GetPushConfig(x) => json::encode_into(x, out),
                Request::ListPushConfigs(x) => json::encode_into(x, out),
                Request::DeletePushConfig(x) => json::encode_into(x, out),
            },
        }
    }
}

impl Response {
    /// The answer as v1.0 ProtoJSON, appended to `out`: the proto message of the answer
    /// (`SendMessageResponse`, `Task`, `ListTasksResponse`, ...), `{}` for a delete.
    pub fn to_json(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match self {
            Response::SendMessage(r) => json::encode_into(r, out),
            Response::Task(t) => json::encode_into(t, out),
            Response::ListTasks(r) => json::encode_into(r, out),
            Response::PushConfig(c) => json::encode_into(c, out),
            Response::PushConfigs(r) => json::encode_into(r, out),
            Response::Deleted => {
                out.extend_from_slice(b"{}");
                Ok(())
            }
            Response::AgentCard(c) => json::encode_into(c, out),
        }
    }

    /// Reads the v1.0 ProtoJSON answer to `method` (what [`Response::to_json`] writes). A
    /// received answer is read leniently (no REQUIRED-field check), as clients read peers.
    /// The streaming methods have no single answer: `None`.
    pub fn from_json(method: Method, b: &[u8]) -> Option<Result<Response, DecodeError>> {
        fn r<T: crate::codec::Message>(b: &[u8]) -> Result<T, DecodeError> {
            json::decode_unchecked::<T>(b)
        }
        Some(match method {
            Method::SendMessage => r(b).map(Response::SendMessage),
            Method::GetTask | Method::CancelTask => r(b).map(Response::Task),
            Method::ListTasks => r(b).map(Response::ListTasks),
            Method::CreateTaskPushNotificationConfig | Method::GetTaskPushNotificationConfig => r(b).map(Response::PushConfig),
            Method::ListTaskPushNotificationConfigs => r(b).map(Response::PushConfigs),
            Method::DeleteTaskPushNotificationConfig => Ok(Response::Deleted),
            Method::GetExtendedAgentCard => r(b).map(Response::AgentCard),
            Method::SendStreamingMessage | Method::SubscribeToTask => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_method_table_is_in_declaration_order_with_unique_names() {
        for (i, n) in METHODS.iter().enumerate() {
            assert_eq!(n.method as usize, i + 1);
            assert_eq!(Method::from_number(n.method.number()), Some(n.method));
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

    #[test]
    fn method_numbers_are_pinned() {
        // These numbers cross the C, Python and Node boundaries: never change or reuse one.
        let pinned = [
            (Method::SendMessage, 1),
            (Method::SendStreamingMessage, 2),
            (Method::GetTask, 3),
            (Method::ListTasks, 4),
            (Method::CancelTask, 5),
            (Method::SubscribeToTask, 6),
            (Method::CreateTaskPushNotificationConfig, 7),
            (Method::GetTaskPushNotificationConfig, 8),
            (Method::ListTaskPushNotificationConfigs, 9),
            (Method::DeleteTaskPushNotificationConfig, 10),
            (Method::GetExtendedAgentCard, 11),
        ];
        assert_eq!(pinned.len(), METHODS.len());
        for (m, n) in pinned {
            assert_eq!(m.number(), n, "{m:?}");
        }
        assert_eq!(Method::from_number(0), None);
        assert_eq!(Method::from_number(12), None);
    }

    #[test]
    fn every_operation_goes_to_json_and_back_by_its_method() {
        let samples: [(Method, &[u8]); 5] = [
            (Method::SendMessage, br#"{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}"#),
            (Method::GetTask, br#"{"id":"t1","historyLength":2}"#),
            (Method::ListTasks, br#"{"contextId":"c"}"#),
            (Method::SubscribeToTask, br#"{"id":"t1"}"#),
            (Method::GetExtendedAgentCard, br#"{}"#),
        ];
        for (m, json) in samples {
            let op = Operation::from_json(m, Some(json)).unwrap();
            assert_eq!(op.method(), m);
            let mut out = Vec::new();
            op.to_json(&mut out).unwrap();
            assert_eq!(out, json, "{m:?}");
        }
        let e = Operation::from_json(Method::SendMessage, Some(br#"{"message":{"messageId":"m","role":"ROLE_USER","parts":[{}]}}"#))
            .unwrap_err();
        assert!(e.message().contains("message.parts[0]"), "{e}");
        assert!(Operation::from_json(Method::GetTask, None).is_err());
        let named = Operation::from_json_named("tasks/get", Some(br#"{"id":"t1"}"#)).unwrap();
        assert_eq!(named.method(), Method::GetTask);
        let e = Operation::from_json_named("NoSuchMethod", Some(b"{}")).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::MethodNotFound);
        let t = Response::from_json(Method::GetTask, br#"{"id":"t1"}"#).unwrap().unwrap();
        let mut out = Vec::new();
        t.to_json(&mut out).unwrap();
        assert_eq!(out, br#"{"id":"t1"}"#);
        assert!(Response::from_json(Method::SubscribeToTask, b"{}").is_none());
    }
}
