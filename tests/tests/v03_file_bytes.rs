//! File bytes on v0.3 gRPC and HTTP+JSON (INTEROP.md, "File bytes in v0.3"): written as
//! their base64 text by default, raw on request; both forms read; a server answers a client
//! that sent raw bytes in raw bytes.

use a2a_wire::binding::{grpc, rest};
use a2a_wire::card::{Binding, SelectedInterface};
use a2a_wire::client::{Client, FileBytes};
use a2a_wire::http::HttpRequest;
use a2a_wire::op::Response;
use a2a_wire::op::{Operation, Request};
use a2a_wire::proto::json::base64;
use a2a_wire::proto::v03 as pb;
use a2a_wire::server::Endpoint;
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use prost::Message as _;

/// Not UTF-8 and not base64 text (the interop `file` check's bytes, tests/interop/CHECKS.md).
const FILE: &[u8] = b"a2a-wire \x00\x01\x02\xfe\xff file bytes \x89PNG\r\n";

fn file_part(bytes: &[u8]) -> v1::Part {
    v1::Part { content: Some(v1::part::Content::Raw(bytes.to_vec())), media_type: "application/octet-stream".into(), ..Default::default() }
}

fn send(bytes: &[u8]) -> Operation {
    Operation::Task(Request::SendMessage(v1::SendMessageRequest {
        message: Some(v1::Message {
            message_id: "m-1".into(),
            role: v1::Role::User as i32,
            parts: vec![file_part(bytes)],
            ..Default::default()
        }),
        ..Default::default()
    }))
}

fn task_with(bytes: &[u8]) -> Response {
    Response::Task(v1::Task {
        id: "t-1".into(),
        context_id: "c-1".into(),
        status: Some(v1::TaskStatus { state: v1::TaskState::Completed as i32, ..Default::default() }),
        artifacts: vec![v1::Artifact { artifact_id: "file".into(), parts: vec![file_part(bytes)], ..Default::default() }],
        ..Default::default()
    })
}

/// The `file_with_bytes` of the first file part of a v0.3 message or task.
fn field_of(parts: &[pb::Part]) -> Vec<u8> {
    for p in parts {
        if let Some(pb::part::Part::File(f)) = &p.part {
            if let Some(pb::file_part::File::FileWithBytes(b)) = &f.file {
                return b.clone();
            }
        }
    }
    panic!("no file part with bytes in {parts:?}")
}

fn raw_of(parts: &[v1::Part]) -> Vec<u8> {
    match parts.iter().find_map(|p| if let Some(v1::part::Content::Raw(b)) = &p.content { Some(b.clone()) } else { None }) {
        Some(b) => b,
        None => panic!("no raw part in {parts:?}"),
    }
}

fn v03_client(binding: Binding, files: FileBytes) -> Client {
    let url = if binding == Binding::Grpc { "http://a2a.example:443" } else { "http://a2a.example/rest" };
    let iface = SelectedInterface { url: url.into(), binding, version: ProtocolVersion::V0_3, tenant: String::new(), index: 0 };
    Client::new(iface).with_v03_file_bytes(files)
}

fn endpoint() -> Endpoint {
    let iface = |url: &str, b: &str| v1::AgentInterface {
        url: url.into(),
        protocol_binding: b.into(),
        protocol_version: "0.3".into(),
        tenant: String::new(),
    };
    let card = v1::AgentCard {
        name: "files".into(),
        supported_interfaces: vec![iface("http://a2a.example/rest", "HTTP+JSON"), iface("a2a.example:443", "GRPC")],
        ..Default::default()
    };
    Endpoint::new(card).expect("a card of two v0.3 interfaces makes an endpoint")
}

fn grpc_message(body: &[u8]) -> &[u8] {
    &body[5..]
}

#[test]
fn a_client_writes_the_base64_text_by_default_and_raw_bytes_on_request() {
    for (files, want) in [(FileBytes::Base64Text, base64::encode(FILE).into_bytes()), (FileBytes::Raw, FILE.to_vec())] {
        let call = v03_client(Binding::Grpc, files).prepare(send(FILE)).expect("a v0.3 SendMessage prepares");
        let req = pb::SendMessageRequest::decode(grpc_message(&call.request.body)).expect("the request is a v0.3 SendMessageRequest");
        assert_eq!(field_of(&req.request.expect("the request names its message").content), want, "gRPC, {files:?}");

        let call = v03_client(Binding::HttpJson, files).prepare(send(FILE)).expect("a v0.3 SendMessage prepares");
        let body: serde_json::Value = serde_json::from_slice(&call.request.body).expect("the body is JSON");
        let on_wire = body["message"]["content"][0]["file"]["fileWithBytes"].as_str().expect("fileWithBytes is a string");
        assert_eq!(base64::decode(on_wire).expect("fileWithBytes is base64"), want, "HTTP+JSON, {files:?}");
    }
}

#[test]
fn both_forms_read_as_the_bytes_sent_and_raw_mode_reads_the_field_as_it_is() {
    for answer in [base64::encode(FILE).into_bytes(), FILE.to_vec()] {
        let task = pb::Task {
            id: "t-1".into(),
            status: Some(pb::TaskStatus { state: pb::TaskState::Completed as i32, ..Default::default() }),
            artifacts: vec![pb::Artifact {
                artifact_id: "file".into(),
                parts: vec![pb::Part {
                    part: Some(pb::part::Part::File(pb::FilePart {
                        file: Some(pb::file_part::File::FileWithBytes(answer.clone())),
                        mime_type: "application/octet-stream".into(),
                    })),
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let msg = task.encode_to_vec();
        let Response::Task(t) = grpc::decode_response_v03(&msg, a2a_wire::op::Method::GetTask).expect("the task reads") else {
            panic!("GetTask answers a task")
        };
        assert_eq!(raw_of(&t.artifacts[0].parts), FILE, "default read of {:?}", String::from_utf8_lossy(&answer));
        let Response::Task(t) =
            grpc::decode_response_v03_with(&msg, a2a_wire::op::Method::GetTask, FileBytes::Raw).expect("the task reads")
        else {
            panic!("GetTask answers a task")
        };
        assert_eq!(raw_of(&t.artifacts[0].parts), answer, "raw read");
    }
    // The one ambiguity of the default: raw bytes that are themselves canonical base64 text.
    let Response::Task(t) = grpc::decode_response_v03(
        &pb::Task {
            id: "t-1".into(),
            status: Some(pb::TaskStatus { state: pb::TaskState::Completed as i32, ..Default::default() }),
            artifacts: vec![pb::Artifact {
                artifact_id: "a".into(),
                parts: vec![pb::Part {
                    part: Some(pb::part::Part::File(pb::FilePart {
                        file: Some(pb::file_part::File::FileWithBytes(b"abcd".to_vec())),
                        mime_type: String::new(),
                    })),
                }],
                ..Default::default()
            }],
            ..Default::default()
        }
        .encode_to_vec(),
        a2a_wire::op::Method::GetTask,
    )
    .expect("the task reads") else {
        panic!("GetTask answers a task")
    };
    assert_eq!(raw_of(&t.artifacts[0].parts), b"i\xb7\x1d", "`abcd` reads as base64 text by default");
}

/// The answer `endpoint` gives a v0.3 SendMessage carrying `field` in file_with_bytes, when
/// the agent answers with a task holding FILE: the answer's file_with_bytes.
fn answered(endpoint: &Endpoint, binding: Binding, field: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let (target, ctype, body) = match binding {
        Binding::Grpc => {
            let req = pb::SendMessageRequest {
                request: Some(pb::Message {
                    message_id: "m-1".into(),
                    role: pb::Role::User as i32,
                    content: vec![pb::Part {
                        part: Some(pb::part::Part::File(pb::FilePart {
                            file: Some(pb::file_part::File::FileWithBytes(field.to_vec())),
                            mime_type: "application/octet-stream".into(),
                        })),
                    }],
                    ..Default::default()
                }),
                ..Default::default()
            };
            let mut body = Vec::new();
            grpc::encode_frame(&req.encode_to_vec(), &mut body);
            ("/a2a.v1.A2AService/SendMessage", "application/grpc", body)
        }
        _ => {
            let body = serde_json::json!({"message": {"messageId": "m-1", "role": "ROLE_USER",
                "content": [{"file": {"fileWithBytes": base64::encode(field), "mimeType": "application/octet-stream"}}]}});
            ("/rest/v1/message:send", "application/json", serde_json::to_vec(&body).expect("JSON encodes"))
        }
    };
    let headers = [("content-type", ctype), ("te", "trailers")];
    let req = HttpRequest { method: "POST", target, headers: &headers, body: &body };
    let call = endpoint.decode(&req).unwrap_or_else(|r| panic!("refused: {} {}", r.status, String::from_utf8_lossy(&r.body)));
    let Operation::Task(Request::SendMessage(sent)) = &call.operation else { panic!("decoded as {:?}", call.method()) };
    let received = raw_of(&sent.message.as_ref().expect("the message is there").parts);
    let answer = endpoint.respond(&call, Ok(task_with(FILE)));
    let field = match binding {
        Binding::Grpc => {
            let task = pb::Task::decode(grpc_message(&answer.body)).expect("the answer is a v0.3 Task");
            field_of(&task.artifacts[0].parts)
        }
        _ => {
            let v: serde_json::Value = serde_json::from_slice(&answer.body).expect("the answer is JSON");
            let text = v["task"]["artifacts"][0]["parts"][0]["file"]["fileWithBytes"]
                .as_str()
                .or_else(|| v["artifacts"][0]["parts"][0]["file"]["fileWithBytes"].as_str())
                .unwrap_or_else(|| panic!("no fileWithBytes in {v}"));
            base64::decode(text).expect("fileWithBytes is base64")
        }
    };
    (received, field)
}

#[test]
fn a_server_answers_in_base64_text_and_a_raw_client_in_raw_bytes() {
    let text = base64::encode(FILE).into_bytes();
    for binding in [Binding::Grpc, Binding::HttpJson] {
        // A client writing base64 text (a2a-sdk 0.3, a2a-go v0.3) is answered so.
        assert_eq!(answered(&endpoint(), binding.clone(), &text), (FILE.to_vec(), text.clone()), "{binding:?}, base64 text in");
        // A client writing raw bytes (@a2a-js/sdk 0.3) is answered raw.
        assert_eq!(answered(&endpoint(), binding.clone(), FILE), (FILE.to_vec(), FILE.to_vec()), "{binding:?}, raw in");
        // A raw endpoint reads the field as it is and answers raw.
        let raw = endpoint().with_v03_file_bytes(FileBytes::Raw);
        assert_eq!(answered(&raw, binding.clone(), &text), (text.clone(), FILE.to_vec()), "{binding:?}, raw endpoint");
    }
}

#[test]
fn an_encoded_answer_in_either_form_reads_back_as_the_same_bytes() {
    for files in [FileBytes::Base64Text, FileBytes::Raw] {
        let mut out = Vec::new();
        grpc::encode_response_v03_with(&task_with(FILE), files, &mut out).expect("the task encodes");
        let Response::Task(t) = grpc::decode_response_v03_with(&out, a2a_wire::op::Method::GetTask, files).expect("it reads") else {
            panic!("a task")
        };
        assert_eq!(raw_of(&t.artifacts[0].parts), FILE, "gRPC {files:?}");
        let mut out = Vec::new();
        rest::encode_response_v03_with(&task_with(FILE), files, &mut out).expect("the task encodes");
        let Response::Task(t) = rest::decode_response_v03_with(&out, a2a_wire::op::Method::GetTask, files).expect("it reads") else {
            panic!("a task")
        };
        assert_eq!(raw_of(&t.artifacts[0].parts), FILE, "HTTP+JSON {files:?}");
    }
    assert_eq!(FileBytes::from_name("raw"), Some(FileBytes::Raw));
    assert_eq!(FileBytes::from_name(FileBytes::Base64Text.name()), Some(FileBytes::Base64Text));
    assert_eq!(FileBytes::from_name("hex"), None);
}
