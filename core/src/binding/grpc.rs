//! The gRPC binding, v1.0 (spec §10; WIRE-NOTES (a), (i)) over the HTTP shapes of
//! [`crate::http`]: the transport carries HTTP/2, this module the gRPC rules.
//!
//! - Paths: `/lf.a2a.v1.A2AService/<Rpc>` (v0.3: `/a2a.v1.A2AService/<Rpc>`).
//! - Messages: 5-byte prefix (compressed flag, big-endian length) + protobuf, with a size
//!   limit; compressed messages are refused (no `grpc-encoding` is negotiated).
//! - Metadata keys are lowercase: `a2a-version`, `a2a-extensions`.
//! - Status in trailers: `grpc-status`, `grpc-message` (percent-encoded as gRPC specifies)
//!   and `grpc-status-details-bin` (base64 `google.rpc.Status` with the `ErrorInfo`).

use crate::codec::protobuf;
use crate::error::ClientError;
use crate::error::{classify_grpc, A2aError, ErrorKind, GrpcCode};
use crate::op::{Method, Operation};
use crate::op::{Request, Response};
use crate::proto::google::rpc::Status;
use crate::v1;
use alloc::string::String;
use alloc::vec::Vec;
use prost::Message as _;

/// `Content-Type` of gRPC.
pub const CONTENT_TYPE: &str = "application/grpc";
/// The v1.0 service.
pub const SERVICE_V1: &str = "lf.a2a.v1.A2AService";
/// The v0.3 service.
pub const SERVICE_V03: &str = "a2a.v1.A2AService";

/// Default largest message accepted (4 MiB, gRPC's usual default).
pub const DEFAULT_MAX_MESSAGE: usize = 4 * 1024 * 1024;

/// Which service and operation a gRPC path names.
pub fn parse_path(path: &str) -> Option<(bool, Method)> {
    let rest = path.strip_prefix('/')?;
    let (service, rpc) = rest.split_once('/')?;
    match service {
        SERVICE_V1 => Method::from_v1(rpc).map(|m| (false, m)),
        SERVICE_V03 => Method::from_v03_grpc(rpc).map(|m| (true, m)),
        _ => None,
    }
}

/// The path of `method` in v1.0.
pub fn path_v1(method: Method) -> String {
    alloc::format!("/{SERVICE_V1}/{}", method.names().v1)
}

/// Appends one length-prefixed, uncompressed message.
pub fn encode_frame(message: &[u8], out: &mut Vec<u8>) {
    out.push(0);
    // Messages handed to this function come from our encoders, far below 4 GiB; a length
    // that does not fit is clamped, and the peer will refuse the frame.
    out.extend_from_slice(&u32::try_from(message.len()).unwrap_or(u32::MAX).to_be_bytes());
    out.extend_from_slice(message);
}

/// Splits a complete body into its messages. Errors name the gRPC status to answer with.
pub fn decode_frames(mut body: &[u8], max_message: usize) -> Result<Vec<&[u8]>, A2aError> {
    let mut out = Vec::new();
    while !body.is_empty() {
        if body.len() < 5 {
            return Err(A2aError::invalid_field("", "truncated gRPC message prefix"));
        }
        if body[0] != 0 {
            return Err(A2aError::unsupported("compressed gRPC messages are not supported"));
        }
        let len = u32::from_be_bytes([body[1], body[2], body[3], body[4]]) as usize;
        if len > max_message {
            return Err(A2aError::with_message(
                ErrorKind::InvalidRequest,
                alloc::format!("gRPC message of {len} bytes exceeds the limit of {max_message}"),
            ));
        }
        let rest = &body[5..];
        if rest.len() < len {
            return Err(A2aError::invalid_field("", "truncated gRPC message"));
        }
        out.push(&rest[..len]);
        body = &rest[len..];
    }
    Ok(out)
}

/// Decodes the request message of a v1.0 RPC.
pub fn decode_request(method: Method, message: &[u8]) -> Result<Operation, A2aError> {
    let d = |e: crate::codec::DecodeError| A2aError::from(e);
    Ok(match method {
        Method::SendMessage => Operation::Task(Request::SendMessage(protobuf::decode(message).map_err(d)?)),
        Method::SendStreamingMessage => Operation::Task(Request::SendStreamingMessage(protobuf::decode(message).map_err(d)?)),
        Method::GetTask => Operation::Task(Request::GetTask(protobuf::decode(message).map_err(d)?)),
        Method::ListTasks => Operation::Task(Request::ListTasks(protobuf::decode(message).map_err(d)?)),
        Method::CancelTask => Operation::Task(Request::CancelTask(protobuf::decode(message).map_err(d)?)),
        Method::SubscribeToTask => Operation::Task(Request::SubscribeToTask(protobuf::decode(message).map_err(d)?)),
        Method::CreateTaskPushNotificationConfig => Operation::Task(Request::CreatePushConfig(protobuf::decode(message).map_err(d)?)),
        Method::GetTaskPushNotificationConfig => Operation::Task(Request::GetPushConfig(protobuf::decode(message).map_err(d)?)),
        Method::ListTaskPushNotificationConfigs => Operation::Task(Request::ListPushConfigs(protobuf::decode(message).map_err(d)?)),
        Method::DeleteTaskPushNotificationConfig => Operation::Task(Request::DeletePushConfig(protobuf::decode(message).map_err(d)?)),
        Method::GetExtendedAgentCard => Operation::GetExtendedAgentCard(protobuf::decode(message).map_err(d)?),
    })
}

/// The protobuf of a v1.0 response message (`google.protobuf.Empty` for a delete).
pub fn encode_response(response: &Response, out: &mut Vec<u8>) {
    match response {
        Response::SendMessage(r) => protobuf::encode_into(r, out),
        Response::Task(t) => protobuf::encode_into(t, out),
        Response::ListTasks(r) => protobuf::encode_into(r, out),
        Response::PushConfig(c) => protobuf::encode_into(c, out),
        Response::PushConfigs(r) => protobuf::encode_into(r, out),
        Response::Deleted => {}
        Response::AgentCard(c) => protobuf::encode_into(c, out),
    }
}

/// Percent-encodes a `grpc-message` value (bytes outside 0x20..=0x7E, and `%`).
pub fn encode_message(m: &str) -> String {
    crate::http::percent_encode_keeping(m, |b| (0x20..=0x7E).contains(&b) && b != b'%')
}

/// Decodes a `grpc-message` value; malformed escapes are kept as they are (gRPC says to
/// accept them).
pub fn decode_message(m: &str) -> String {
    crate::http::percent_decode(m, false).unwrap_or_else(|| String::from(m))
}

/// The trailers that end a call: `grpc-status` 0, or the error's status, message and details.
pub fn status_trailers(error: Option<&A2aError>) -> Vec<(String, String)> {
    match error {
        None => alloc::vec![(String::from("grpc-status"), String::from("0"))],
        Some(e) => {
            let status = e.to_grpc_status();
            let details = crate::proto::json::base64::encode(&status.encode_to_vec());
            alloc::vec![
                (String::from("grpc-status"), alloc::format!("{}", status.code)),
                (String::from("grpc-message"), encode_message(e.message())),
                (String::from("grpc-status-details-bin"), String::from(details.trim_end_matches('='))),
            ]
        }
    }
}

/// The trailers of a v0.3 interface: as [`status_trailers`], with the status message written
/// `TypeName: message` (see [`A2aError::grpc_message_v03`]).
pub fn status_trailers_v03(error: Option<&A2aError>) -> Vec<(String, String)> {
    let mut t = status_trailers(error);
    if let Some(e) = error {
        for (k, v) in &mut t {
            if k == "grpc-message" {
                *v = encode_message(&e.grpc_message_v03());
            }
        }
    }
    t
}

// ---------------------------------------------------------------- client

/// The request message of `operation` (v1.0).
pub fn encode_request(operation: &Operation, out: &mut Vec<u8>) {
    match operation {
        Operation::GetExtendedAgentCard(r) => protobuf::encode_into(r, out),
        Operation::Task(r) => match r {
            Request::SendMessage(x) | Request::SendStreamingMessage(x) => protobuf::encode_into(x, out),
            Request::GetTask(x) => protobuf::encode_into(x, out),
            Request::ListTasks(x) => protobuf::encode_into(x, out),
            Request::CancelTask(x) => protobuf::encode_into(x, out),
            Request::SubscribeToTask(x) => protobuf::encode_into(x, out),
            Request::CreatePushConfig(x) => protobuf::encode_into(x, out),
            Request::GetPushConfig(x) => protobuf::encode_into(x, out),
            Request::ListPushConfigs(x) => protobuf::encode_into(x, out),
            Request::DeletePushConfig(x) => protobuf::encode_into(x, out),
        },
    }
}

/// The call's status from its trailers (or trailers-only headers): `Ok` for status 0, else
/// the classified error.
pub fn check_status(fields: &[(String, String)]) -> Result<(), ClientError> {
    check_status_for(fields, false)
}

/// [`check_status`] for an interface of v0.3 (`legacy`), whose peers may name the error only
/// in the status message (`TaskNotFoundError: ...`).
pub fn check_status_for(fields: &[(String, String)], legacy: bool) -> Result<(), ClientError> {
    let get = |n: &str| fields.iter().find(|(k, _)| k.eq_ignore_ascii_case(n)).map(|(_, v)| v.as_str());
    let code = match get("grpc-status") {
        None => return Err(ClientError::Protocol(String::from("the gRPC call ended without grpc-status"))),
        Some(c) => c.trim().parse::<i32>().map_err(|_| ClientError::Protocol(alloc::format!("invalid grpc-status {c:?}")))?,
    };
    if code == GrpcCode::Ok as i32 {
        return Ok(());
    }
    let message = get("grpc-message").map(decode_message).unwrap_or_default();
    let details = get("grpc-status-details-bin")
        .and_then(|b| crate::proto::json::base64::decode(b.trim()).ok())
        .and_then(|b| Status::decode(b.as_slice()).ok());
    let classify = if legacy { crate::error::classify_grpc_v03 } else { classify_grpc };
    Err(ClientError::Remote(classify(code, &message, details.as_ref())))
}

/// Reads the response message of `method` (v1.0).
pub fn decode_response(message: &[u8], method: Method) -> Result<Response, ClientError> {
    let p = |e: crate::codec::DecodeError| ClientError::Protocol(alloc::format!("invalid gRPC response: {e}"));
    Ok(match method {
        Method::SendMessage => Response::SendMessage(protobuf::decode_unchecked(message).map_err(p)?),
        Method::GetTask | Method::CancelTask => Response::Task(protobuf::decode_unchecked(message).map_err(p)?),
        Method::ListTasks => Response::ListTasks(protobuf::decode_unchecked(message).map_err(p)?),
        Method::CreateTaskPushNotificationConfig | Method::GetTaskPushNotificationConfig => {
            Response::PushConfig(protobuf::decode_unchecked(message).map_err(p)?)
        }
        Method::ListTaskPushNotificationConfigs => Response::PushConfigs(protobuf::decode_unchecked(message).map_err(p)?),
        Method::DeleteTaskPushNotificationConfig => Response::Deleted,
        Method::GetExtendedAgentCard => Response::AgentCard(protobuf::decode_unchecked(message).map_err(p)?),
        Method::SendStreamingMessage | Method::SubscribeToTask => {
            return Err(ClientError::Protocol(alloc::format!("{method:?} answers with a stream")))
        }
    })
}

/// Reads one streamed message (a v1.0 `StreamResponse`).
pub fn decode_stream_event(message: &[u8]) -> Result<v1::StreamResponse, ClientError> {
    protobuf::decode_unchecked(message).map_err(|e| ClientError::Protocol(alloc::format!("invalid gRPC stream message: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_limits_hold() {
        let mut body = Vec::new();
        encode_frame(b"abc", &mut body);
        encode_frame(b"", &mut body);
        assert_eq!(decode_frames(&body, 16).unwrap(), [&b"abc"[..], &b""[..]]);
        assert!(decode_frames(&body[..6], 16).is_err());
        assert!(decode_frames(&[0, 0, 0, 0], 16).is_err());
        assert_eq!(decode_frames(&[0, 0, 0, 1, 0], 16).unwrap_err().kind(), ErrorKind::InvalidRequest);
        assert_eq!(decode_frames(&[1, 0, 0, 0, 0], 16).unwrap_err().kind(), ErrorKind::UnsupportedOperation);
    }

    #[test]
    fn paths_name_the_service_and_version() {
        assert_eq!(parse_path("/lf.a2a.v1.A2AService/SendMessage"), Some((false, Method::SendMessage)));
        assert_eq!(parse_path("/a2a.v1.A2AService/TaskSubscription"), Some((true, Method::SubscribeToTask)));
        assert_eq!(parse_path("/a2a.v1.A2AService/SubscribeToTask"), None);
        assert_eq!(parse_path("/lf.a2a.v1.A2AService/Nope"), None);
        assert_eq!(path_v1(Method::GetTask), "/lf.a2a.v1.A2AService/GetTask");
    }

    #[test]
    fn status_trailers_round_trip_through_classification() {
        let e = A2aError::task_not_found("t-1");
        let t = status_trailers(Some(&e));
        assert_eq!(t[0], (String::from("grpc-status"), String::from("5")));
        match check_status(&t) {
            Err(ClientError::Remote(crate::error::Received::A2a(back))) => {
                assert_eq!(back.kind(), ErrorKind::TaskNotFound);
                assert_eq!(back.metadata().get("taskId").map(String::as_str), Some("t-1"));
            }
            other => panic!("{other:?}"),
        }
        assert!(check_status(&status_trailers(None)).is_ok());
        assert_eq!(encode_message("100% sûr\n"), "100%25 s%C3%BBr%0A");
        assert_eq!(decode_message("100%25 s%C3%BBr%0A"), "100% sûr\n");
    }
}

// ---------------------------------------------------------------- v0.3 (a2a.v1)

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
    // v0.3's REQUIRED marks (e.g. `config_id`, which clients leave empty for a
    // server-assigned id) are not enforced on the v0.3 message; the v1.0 translation is
    // validated instead, so every request meets the same rules whatever its version.
    fn dec<T: crate::codec::Message>(m: &[u8]) -> Result<T, A2aError> {
        protobuf::decode_unchecked(m).map_err(A2aError::from)
    }
    fn up<T: ToV1>(v: T) -> Result<T::V1, A2aError>
    where
        T::V1: crate::proto::validate::Validate,
    {
        let v1 = v.to_v1().map(|c| c.value).map_err(bad)?;
        crate::proto::validate::Validate::validate(&v1).map_err(|v| A2aError::invalid_params(v.into_vec()))?;
        Ok(v1)
    }

    /// Decodes the request message of a v0.3 RPC (package `a2a.v1`) into the v1.0 operation
    /// (file bytes read as [`FileBytes::Base64Text`] reads them).
    pub fn decode_request_v03(method: Method, message: &[u8]) -> Result<Operation, A2aError> {
        decode_request_v03_with(method, message, FileBytes::default()).map(|(op, _)| op)
    }

    /// [`decode_request_v03`], file bytes read as `files` says; also gives the form the
    /// client's file bytes came in (to answer it in that form).
    pub fn decode_request_v03_with(method: Method, message: &[u8], files: FileBytes) -> Result<(Operation, FileBytes), A2aError> {
        let mut seen = files;
        let op = match method {
            Method::SendMessage | Method::SendStreamingMessage => {
                let r: pb::SendMessageRequest = dec(message)?;
                let read = conv::from_pb_with::<model::MessageSendParams>(&r, files).map_err(bad)?;
                seen = read.files_seen;
                let params = read.converted.value;
                let v1req = up(params)?;
                Operation::Task(if method == Method::SendMessage {
                    Request::SendMessage(v1req)
                } else {
                    Request::SendStreamingMessage(v1req)
                })
            }
            Method::GetTask => {
                Operation::Task(Request::GetTask(up(conv::from_pb::<model::TaskQueryParams>(&dec::<pb::GetTaskRequest>(message)?)
                    .map_err(bad)?
                    .value)?))
            }
            Method::CancelTask => {
                Operation::Task(Request::CancelTask(up(conv::from_pb::<model::TaskIdParams>(&dec::<pb::CancelTaskRequest>(message)?)
                    .map_err(bad)?
                    .value)?))
            }
            Method::SubscribeToTask => {
                let p = conv::subscription_from_pb(&dec::<pb::TaskSubscriptionRequest>(message)?).map_err(bad)?;
                Operation::Task(Request::SubscribeToTask(p.to_v1_subscribe().value))
            }
            Method::CreateTaskPushNotificationConfig => {
                let c = conv::create_config_from_pb(&dec::<pb::CreateTaskPushNotificationConfigRequest>(message)?).map_err(bad)?;
                Operation::Task(Request::CreatePushConfig(up(c)?))
            }
            Method::GetTaskPushNotificationConfig => {
                let r: pb::GetTaskPushNotificationConfigRequest = dec(message)?;
                Operation::Task(Request::GetPushConfig(up(conv::get_config_from_pb(&r.name).map_err(bad)?)?))
            }
            Method::ListTaskPushNotificationConfigs => {
                let r: pb::ListTaskPushNotificationConfigRequest = dec(message)?;
                Operation::Task(Request::ListPushConfigs(up(conv::list_configs_from_pb(&r.parent).map_err(bad)?)?))
            }
            Method::DeleteTaskPushNotificationConfig => {
                let r: pb::DeleteTaskPushNotificationConfigRequest = dec(message)?;
                Operation::Task(Request::DeletePushConfig(up(conv::delete_config_from_pb(&r.name).map_err(bad)?)?))
            }
            Method::GetExtendedAgentCard => {
                let _: pb::GetAgentCardRequest = dec(message)?;
                Operation::GetExtendedAgentCard(v1::GetExtendedAgentCardRequest::default())
            }
            Method::ListTasks => return Err(A2aError::new(ErrorKind::MethodNotFound)),
        };
        Ok((op, seen))
    }

    /// The protobuf of a v1.0 response in v0.3's messages (file bytes as base64 text).
    pub fn encode_response_v03(response: &Response, out: &mut Vec<u8>) -> Result<(), A2aError> {
        encode_response_v03_with(response, FileBytes::default(), out)
    }

    /// [`encode_response_v03`] with file bytes in the form `files`.
    pub fn encode_response_v03_with(response: &Response, files: FileBytes, out: &mut Vec<u8>) -> Result<(), A2aError> {
        match response {
            Response::SendMessage(r) => {
                protobuf::encode_into(&conv::to_pb_with(&r.to_v03().map_err(internal)?.value, files).map_err(internal)?.value, out)
            }
            Response::Task(t) => {
                protobuf::encode_into(&conv::to_pb_with(&t.to_v03().map_err(internal)?.value, files).map_err(internal)?.value, out)
            }
            Response::PushConfig(c) => {
                protobuf::encode_into(&conv::to_pb_with(&c.to_v03().map_err(internal)?.value, files).map_err(internal)?.value, out)
            }
            Response::PushConfigs(r) => {
                protobuf::encode_into(&conv::to_pb_with(&r.to_v03().map_err(internal)?.value, files).map_err(internal)?.value, out)
            }
            Response::AgentCard(c) => {
                protobuf::encode_into(&conv::to_pb_with(&c.to_v03().map_err(internal)?.value, files).map_err(internal)?.value, out)
            }
            Response::Deleted => {}
            Response::ListTasks(_) => return Err(A2aError::new(ErrorKind::MethodNotFound)),
        }
        Ok(())
    }

    /// One stream event in v0.3's `StreamResponse` (file bytes as base64 text).
    pub fn encode_stream_event_v03(event: &v1::StreamResponse, out: &mut Vec<u8>) -> Result<(), A2aError> {
        encode_stream_event_v03_with(event, FileBytes::default(), out)
    }

    /// [`encode_stream_event_v03`] with file bytes in the form `files`.
    pub fn encode_stream_event_v03_with(event: &v1::StreamResponse, files: FileBytes, out: &mut Vec<u8>) -> Result<(), A2aError> {
        let e = event.to_v03().map_err(internal)?.value;
        protobuf::encode_into(&conv::to_pb_with(&e, files).map_err(internal)?.value, out);
        Ok(())
    }

    fn local(e: impl core::fmt::Display) -> ClientError {
        ClientError::Local(alloc::format!("{e}"))
    }

    /// The v0.3 request message of `operation` (client side; file bytes as base64 text).
    pub fn encode_request_v03(operation: &Operation, out: &mut Vec<u8>) -> Result<(), ClientError> {
        encode_request_v03_with(operation, FileBytes::default(), out)
    }

    /// [`encode_request_v03`] with file bytes in the form `files`.
    pub fn encode_request_v03_with(operation: &Operation, files: FileBytes, out: &mut Vec<u8>) -> Result<(), ClientError> {
        match operation {
            Operation::GetExtendedAgentCard(_) => protobuf::encode_into(&pb::GetAgentCardRequest {}, out),
            Operation::Task(r) => match r {
                Request::SendMessage(x) | Request::SendStreamingMessage(x) => {
                    protobuf::encode_into(&conv::to_pb_with(&x.to_v03().map_err(local)?.value, files).map_err(local)?.value, out)
                }
                Request::GetTask(x) => {
                    protobuf::encode_into(&conv::to_pb_with(&x.to_v03().map_err(local)?.value, files).map_err(local)?.value, out)
                }
                Request::CancelTask(x) => {
                    protobuf::encode_into(&conv::to_pb_with(&x.to_v03().map_err(local)?.value, files).map_err(local)?.value, out)
                }
                Request::SubscribeToTask(x) => {
                    protobuf::encode_into(&pb::TaskSubscriptionRequest { name: alloc::format!("tasks/{}", x.id) }, out)
                }
                Request::CreatePushConfig(x) => protobuf::encode_into(&conv::create_config_to_pb(&x.to_v03().map_err(local)?.value), out),
                Request::GetPushConfig(x) => protobuf::encode_into(
                    &pb::GetTaskPushNotificationConfigRequest {
                        name: alloc::format!("tasks/{}/pushNotificationConfigs/{}", x.task_id, x.id),
                    },
                    out,
                ),
                Request::ListPushConfigs(x) => protobuf::encode_into(
                    &pb::ListTaskPushNotificationConfigRequest {
                        parent: alloc::format!("tasks/{}", x.task_id),
                        page_size: x.page_size,
                        page_token: x.page_token.clone(),
                    },
                    out,
                ),
                Request::DeletePushConfig(x) => protobuf::encode_into(
                    &pb::DeleteTaskPushNotificationConfigRequest {
                        name: alloc::format!("tasks/{}/pushNotificationConfigs/{}", x.task_id, x.id),
                    },
                    out,
                ),
                Request::ListTasks(_) => return Err(ClientError::Local(String::from("ListTasks does not exist in A2A 0.3"))),
            },
        }
        Ok(())
    }

    fn proto_err(e: impl core::fmt::Display) -> ClientError {
        ClientError::Protocol(alloc::format!("invalid v0.3 gRPC response: {e}"))
    }

    fn read<P: crate::codec::Message, M: conv::FromPb<Pb = P> + ToV1>(message: &[u8], files: FileBytes) -> Result<M::V1, ClientError> {
        let p: P = protobuf::decode_unchecked(message).map_err(proto_err)?;
        let m = conv::from_pb_with::<M>(&p, files).map_err(proto_err)?.converted.value;
        m.to_v1().map(|c| c.value).map_err(proto_err)
    }

    /// Reads a v0.3 response message of `method` as the v1.0 response (file bytes read as
    /// [`FileBytes::Base64Text`] reads them).
    pub fn decode_response_v03(message: &[u8], method: Method) -> Result<Response, ClientError> {
        decode_response_v03_with(message, method, FileBytes::default())
    }

    /// [`decode_response_v03`], file bytes read as `files` says.
    pub fn decode_response_v03_with(message: &[u8], method: Method, files: FileBytes) -> Result<Response, ClientError> {
        Ok(match method {
            Method::SendMessage => Response::SendMessage(read::<pb::SendMessageResponse, model::SendMessageResult>(message, files)?),
            Method::GetTask | Method::CancelTask => Response::Task(read::<pb::Task, model::Task>(message, files)?),
            Method::CreateTaskPushNotificationConfig | Method::GetTaskPushNotificationConfig => {
                Response::PushConfig(read::<pb::TaskPushNotificationConfig, model::TaskPushNotificationConfig>(message, files)?)
            }
            Method::ListTaskPushNotificationConfigs => Response::PushConfigs(read::<
                pb::ListTaskPushNotificationConfigResponse,
                Vec<model::TaskPushNotificationConfig>,
            >(message, files)?),
            Method::DeleteTaskPushNotificationConfig => Response::Deleted,
            Method::GetExtendedAgentCard => Response::AgentCard(read::<pb::AgentCard, model::AgentCard>(message, files)?),
            Method::SendStreamingMessage | Method::SubscribeToTask | Method::ListTasks => {
                return Err(ClientError::Protocol(alloc::format!("{method:?} has no single v0.3 response")))
            }
        })
    }

    /// Reads one v0.3 streamed `StreamResponse` as v1.0 (file bytes read as
    /// [`FileBytes::Base64Text`] reads them).
    pub fn decode_stream_event_v03(message: &[u8]) -> Result<v1::StreamResponse, ClientError> {
        decode_stream_event_v03_with(message, FileBytes::default())
    }

    /// [`decode_stream_event_v03`], file bytes read as `files` says.
    pub fn decode_stream_event_v03_with(message: &[u8], files: FileBytes) -> Result<v1::StreamResponse, ClientError> {
        read::<pb::StreamResponse, model::StreamEvent>(message, files)
    }
}

pub use crate::v03::pb::FileBytes;
pub use v03_impl::{
    decode_request_v03, decode_request_v03_with, decode_response_v03, decode_response_v03_with, decode_stream_event_v03,
    decode_stream_event_v03_with, encode_request_v03, encode_request_v03_with, encode_response_v03, encode_response_v03_with,
    encode_stream_event_v03, encode_stream_event_v03_with,
};

/// The path of `method` in v0.3, if it exists there.
pub fn path_v03(method: Method) -> Option<String> {
    method.names().v03_grpc.map(|rpc| alloc::format!("/{SERVICE_V03}/{rpc}"))
}
