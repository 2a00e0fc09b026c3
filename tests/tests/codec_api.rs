//! The codec API beyond what the golden vectors show: error reports, buffers, limits.

use a2a_wire::codec::by_name::{self, ByNameError, Format};
use a2a_wire::codec::{json, protobuf, DecodeErrorKind};
use a2a_wire::proto::google::protobuf::{value::Kind, Timestamp, Value};
use a2a_wire::proto::validate::Violations;
use a2a_wire::v03::{self, LossKind, ToV1};
use a2a_wire::v1;

fn task(state: v1::TaskState) -> v1::Task {
    v1::Task { id: "t-1".into(), status: Some(v1::TaskStatus { state: state as i32, ..Default::default() }), ..Default::default() }
}

#[test]
fn encode_into_appends_and_leaves_the_buffer_as_it_was_on_error() {
    let mut buf = b"prefix:".to_vec();
    json::encode_into(&task(v1::TaskState::Working), &mut buf).unwrap();
    assert_eq!(buf, br#"prefix:{"id":"t-1","status":{"state":"TASK_STATE_WORKING"}}"#);

    let mut bad = task(v1::TaskState::Working);
    bad.status.as_mut().unwrap().timestamp = Some(Timestamp { seconds: 253_402_300_800, nanos: 0 }); // year 10000
    let mut buf = b"prefix:".to_vec();
    let err = json::encode_into(&bad, &mut buf).unwrap_err();
    assert_eq!(buf, b"prefix:", "a failed encode must not leave partial output");
    assert!(err.to_string().contains("outside 0001-01-01"), "{err}");
}

#[test]
fn a_nan_number_cannot_be_encoded_and_is_reported_by_protobuf_validation() {
    let mut part =
        v1::Part { content: Some(v1::part::Content::Data(Value { kind: Some(Kind::NumberValue(f64::NAN)) })), ..Default::default() };
    assert!(json::encode(&part).unwrap_err().to_string().contains("NaN"));
    let msg = v1::Message { message_id: "m".into(), role: v1::Role::User as i32, parts: vec![part.clone()], ..Default::default() };
    let err = protobuf::decode::<v1::Message>(&protobuf::encode(&msg)).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::MissingRequired);
    assert_eq!(err.field(), "parts[0].data");
    part.content = Some(v1::part::Content::Data(Value { kind: Some(Kind::NumberValue(1.5)) }));
    assert_eq!(json::encode(&part).unwrap(), br#"{"data":1.5}"#);
}

#[test]
fn every_missing_required_field_is_reported_with_its_path() {
    let err = json::decode::<v1::SendMessageRequest>(br#"{"message":{"parts":[{"text":"a"},{}]}}"#).unwrap_err();
    let fields: Vec<&str> = err.violations().iter().map(|v| v.field.as_str()).collect();
    assert_eq!(fields, ["message.messageId", "message.role", "message.parts[1]"]);
    assert_eq!(err.to_string(), "message.messageId: required field is missing");
}

#[test]
fn the_violation_report_is_bounded() {
    let parts = vec!["{}"; 1000].join(",");
    let body = format!(r#"{{"messageId":"m","role":"ROLE_USER","parts":[{parts}]}}"#);
    let err = json::decode::<v1::Message>(body.as_bytes()).unwrap_err();
    assert_eq!(err.violations().len(), Violations::LIMIT);
    assert_eq!(err.field(), "parts[0]");
}

#[test]
fn syntax_errors_carry_their_position_and_invalid_utf8_is_a_syntax_error() {
    let err = json::decode::<v1::Task>(b"{\n  \"id\": \"t\",\n  oops\n}").unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::Syntax);
    assert_eq!(err.position(), Some((3, 3)));
    let err = json::decode::<v1::Task>(b"{\"id\":\"t\xff\"}").unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::Syntax);
    assert_eq!(err.position(), Some((1, 9)));
    assert!(err.to_string().contains("UTF-8"));
}

#[test]
fn unchecked_decode_skips_only_the_required_field_checks() {
    let t = json::decode_unchecked::<v1::Task>(br#"{"contextId":"c"}"#).unwrap();
    assert_eq!(t.context_id, "c");
    assert!(json::decode::<v1::Task>(br#"{"contextId":"c"}"#).is_err());
    assert_eq!(json::decode_unchecked::<v1::Task>(br#"{"status":{"state":"NOPE"}}"#).unwrap_err().kind(), DecodeErrorKind::InvalidValue);
}

#[test]
fn hostile_nesting_is_an_error_not_a_stack_overflow() {
    let depth = 100_000;
    let body = format!(r#"{{"data":{}1{}}}"#, "[".repeat(depth), "]".repeat(depth));
    let err = json::decode::<v1::Part>(body.as_bytes()).unwrap_err();
    assert!(err.to_string().contains("recursion limit"), "{err}");
    // The protobuf decoder has its own limit.
    let mut v = Value { kind: Some(Kind::NumberValue(1.0)) };
    for _ in 0..200 {
        v = Value { kind: Some(Kind::ListValue(a2a_wire::proto::google::protobuf::ListValue { values: vec![v] })) };
    }
    let part = v1::Part { content: Some(v1::part::Content::Data(v)), ..Default::default() };
    assert_eq!(protobuf::decode::<v1::Part>(&protobuf::encode(&part)).unwrap_err().kind(), DecodeErrorKind::Protobuf);
}

#[test]
fn truncated_protobuf_is_a_protobuf_error() {
    let bytes = protobuf::encode(&task(v1::TaskState::Completed));
    let err = protobuf::decode::<v1::Task>(&bytes[..bytes.len() - 1]).unwrap_err();
    assert_eq!(err.kind(), DecodeErrorKind::Protobuf);
}

#[test]
fn by_name_knows_every_message_and_refuses_unknown_names() {
    assert!(by_name::TYPE_NAMES.len() >= 44 + 5);
    for name in by_name::TYPE_NAMES {
        // Every type's empty object decodes without checks and re-encodes.
        let empty: &[u8] = if *name == "google.protobuf.Value" {
            b"null"
        } else if *name == "google.protobuf.ListValue" {
            b"[]"
        } else if *name == "google.protobuf.Timestamp" {
            br#""1970-01-01T00:00:00Z""#
        } else {
            b"{}"
        };
        by_name::transcode_unchecked(name, empty, Format::Json, Format::Protobuf).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    assert_eq!(
        by_name::transcode("lf.a2a.v1.Nope", b"{}", Format::Json, Format::Json),
        Err(ByNameError::UnknownType("lf.a2a.v1.Nope".into()))
    );
}

#[test]
fn resubscribe_params_report_their_dropped_metadata() {
    let p: v03::TaskIdParams = v03::decode(br#"{"id":"t-1","metadata":{"k":1}}"#).unwrap();
    let sub = p.to_v1_subscribe();
    assert_eq!(sub.value.id, "t-1");
    assert_eq!(sub.losses.len(), 1);
    assert_eq!((sub.losses[0].kind, sub.losses[0].path.as_str()), (LossKind::Dropped, "metadata"));
    // Cancel keeps it.
    let cancel = p.to_v1().unwrap();
    assert!(cancel.losses.is_empty());
    assert!(cancel.value.metadata.is_some());
}

#[test]
fn the_classic_outage_cannot_happen_in_either_direction() {
    // A v0.3 client must never see v1.0 state names, and a v1.0 decoder must refuse v0.3 ones.
    let v1_task = task(v1::TaskState::Completed);
    let v03_task = a2a_wire::v03::ToV03::to_v03(&v1_task).unwrap().value;
    let text = String::from_utf8(v03::encode(&v03_task).unwrap()).unwrap();
    assert!(text.contains(r#""state":"completed""#) && !text.contains("TASK_STATE"), "{text}");
    assert!(json::decode::<v1::Task>(br#"{"id":"t","status":{"state":"completed"}}"#).is_err());
    assert!(v03::decode::<v03::Task>(br#"{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}"#).is_err());
}
