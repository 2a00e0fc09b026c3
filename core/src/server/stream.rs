//! The stream side of [`Endpoint`]: the response head, each event in the binding's framing,
//! and the end.
//!
//! An event that goes to many streams (every subscriber of a task gets each of its events)
//! is encoded once per [`EventShape`] with [`Endpoint::encode_event`]; each stream's frame is
//! then made from that [`EncodedEvent`] with [`EncodedEvent::frame`], which only splices the
//! stream's own JSON-RPC id and event id around the shared bytes.

use super::{header_list, Call, Endpoint, StreamEnd, EVENT_ID_HEADER};
use crate::binding::{grpc, jsonrpc, rest, sse};
use crate::card::Binding;
use crate::engine::EventId;
use crate::error::{A2aError, ErrorKind};
use crate::http::HttpResponse;
use crate::v03::pb::FileBytes;
use crate::v1;
use crate::version::ProtocolVersion;
use alloc::string::ToString;
use alloc::vec::Vec;
use serde_json::Value;

/// What decides the bytes of an encoded event: two calls of the same shape can share one
/// [`EncodedEvent`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventShape {
    framing: Framing,
    version: ProtocolVersion,
    v03_files: FileBytes,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Framing {
    JsonRpc,
    Grpc,
    /// HTTP+JSON (and custom bindings, served in its shapes).
    Sse,
}

/// One stream event encoded for every stream of one [`EventShape`].
#[derive(Clone, Debug)]
pub struct EncodedEvent {
    version: ProtocolVersion,
    body: Body,
}

#[derive(Clone, Debug)]
enum Body {
    /// A JSON-RPC `result`, or the error each stream gets in its place.
    JsonRpc(Result<Json, A2aError>),
    /// A gRPC message; `None` when the version cannot carry the event (it is skipped).
    Grpc(Option<Vec<u8>>),
    /// An HTTP+JSON event's data, or the error body sent as the event instead.
    Sse(Result<Json, Vec<u8>>),
}

/// JSON text shared by the frames of many streams.
#[derive(Clone, Debug)]
struct Json {
    bytes: Vec<u8>,
    /// It goes out as one SSE `data:` line as it is: no line break in it and no CR at its
    /// end (true of all JSON the codecs write; checked once here rather than per frame).
    one_line: bool,
}

impl Json {
    fn new(bytes: Vec<u8>) -> Json {
        let one_line = !bytes.contains(&b'\n') && bytes.last() != Some(&b'\r');
        Json { bytes, one_line }
    }
}

/// Appends the `id:` line of an SSE event (what [`sse::encode_event_with_id`] writes for
/// it: an event id's text has no line break to cut at).
fn sse_id_line(id: Option<EventId>, out: &mut Vec<u8>) {
    struct Out<'a>(&'a mut Vec<u8>);
    impl core::fmt::Write for Out<'_> {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            self.0.extend_from_slice(s.as_bytes());
            Ok(())
        }
    }
    if let Some(id) = id {
        out.extend_from_slice(b"id: ");
        // Writing into a Vec cannot fail.
        let _ = core::fmt::write(&mut Out(out), format_args!("{id}"));
        out.push(b'\n');
    }
}

impl EncodedEvent {
    /// Appends the event in the framing of a stream of this event's shape, with the
    /// stream's JSON-RPC `jsonrpc_id` and the event's `id` (SSE `id:`; gRPC messages carry
    /// none: the stream head's `a2a-event-id` numbers them).
    pub fn frame(&self, jsonrpc_id: &Value, id: Option<EventId>, out: &mut Vec<u8>) {
        match &self.body {
            // The usual case, written straight into `out`: the bytes are those of the
            // general path below (a JSON-RPC id's JSON has no raw line break either).
            Body::JsonRpc(Ok(result)) if result.one_line => {
                out.reserve(result.bytes.len() + 64);
                sse_id_line(id, out);
                out.extend_from_slice(b"data: ");
                jsonrpc::frame_stream_result(jsonrpc_id, &result.bytes, out);
                out.extend_from_slice(b"\n\n");
            }
            Body::Sse(Ok(data)) if data.one_line => {
                out.reserve(data.bytes.len() + 32);
                sse_id_line(id, out);
                out.extend_from_slice(b"data: ");
                out.extend_from_slice(&data.bytes);
                out.extend_from_slice(b"\n\n");
            }
            Body::JsonRpc(result) => {
                let mut data = Vec::new();
                match result {
                    Ok(result) => jsonrpc::frame_stream_result(jsonrpc_id, &result.bytes, &mut data),
                    Err(e) => jsonrpc::encode_error_for(jsonrpc_id, self.version, e, &mut data),
                }
                let id = id.map(|i| i.to_string());
                sse::encode_event_with_id(id.as_deref(), &data, out);
            }
            Body::Grpc(Some(msg)) => grpc::encode_frame(msg, out),
            Body::Grpc(None) => {}
            Body::Sse(Ok(data)) => {
                let id = id.map(|i| i.to_string());
                sse::encode_event_with_id(id.as_deref(), &data.bytes, out);
            }
            Body::Sse(Err(body)) => sse::encode_event(body, out),
        }
    }
}

impl Endpoint {
    /// The response head of a stream whose first event has id `first`: a v1.0 gRPC stream
    /// says it in the `a2a-event-id` header (its messages carry no id; the later ones count
    /// up from it by one). SSE events carry their own ids.
    pub fn stream_start_at(&self, call: &Call, first: Option<EventId>) -> HttpResponse {
        let mut head = self.stream_start(call);
        if let Some(first) = first.filter(|_| call.binding == Binding::Grpc && !call.version.is_legacy()) {
            head.headers.push(header_list(EVENT_ID_HEADER, &first.to_string()));
        }
        head
    }

    /// The response head of a stream.
    pub fn stream_start(&self, call: &Call) -> HttpResponse {
        let ctype = if call.binding == Binding::Grpc { grpc::CONTENT_TYPE } else { sse::CONTENT_TYPE };
        let mut headers = alloc::vec![header_list("content-type", ctype)];
        if call.binding != Binding::Grpc {
            headers.push(header_list("cache-control", "no-cache"));
        }
        self.with_extensions(call, HttpResponse { status: 200, headers, body: Vec::new(), trailers: Vec::new(), streaming: true })
    }

    /// Appends one stream event in the binding's framing; SSE events carry `id` (gRPC
    /// messages cannot: the stream head's `a2a-event-id` numbers them, see
    /// [`Endpoint::stream_start_at`]). The same as [`Endpoint::encode_event`] followed by
    /// [`EncodedEvent::frame`].
    pub fn stream_event(&self, call: &Call, event: &v1::StreamResponse, id: Option<EventId>, out: &mut Vec<u8>) {
        self.encode_event(call, event).frame(&call.jsonrpc_id, id, out);
    }

    /// What decides how `call`'s stream encodes an event: calls of equal shapes can share
    /// one [`EncodedEvent`].
    pub fn event_shape(&self, call: &Call) -> EventShape {
        let framing = match call.binding {
            Binding::JsonRpc => Framing::JsonRpc,
            Binding::Grpc => Framing::Grpc,
            _ => Framing::Sse,
        };
        EventShape { framing, version: call.version, v03_files: call.v03_files }
    }

    /// Encodes `event` for the streams of `call`'s [`EventShape`] (the part of the frame they
    /// all share).
    pub fn encode_event(&self, call: &Call, event: &v1::StreamResponse) -> EncodedEvent {
        let body = match self.event_shape(call).framing {
            Framing::JsonRpc => {
                let mut result = Vec::new();
                Body::JsonRpc(jsonrpc::encode_stream_result(call.version, event, &mut result).map(|()| Json::new(result)))
            }
            Framing::Grpc => {
                let mut msg = Vec::new();
                Body::Grpc(if call.version.is_legacy() {
                    // An event v0.3 cannot carry is skipped rather than sent malformed.
                    grpc::encode_stream_event_v03_with(event, call.v03_files, &mut msg).ok().map(|_| msg)
                } else {
                    crate::codec::protobuf::encode_into(event, &mut msg);
                    Some(msg)
                })
            }
            Framing::Sse => {
                let mut data = Vec::new();
                let r = if call.version.is_legacy() {
                    rest::encode_stream_event_v03_with(event, call.v03_files, &mut data)
                } else {
                    crate::codec::json::encode_into(event, &mut data)
                        .map_err(|e| A2aError::with_message(ErrorKind::Internal, alloc::format!("{e}")))
                };
                Body::Sse(r.map(|()| Json::new(data)).map_err(|e| {
                    let mut body = Vec::new();
                    if call.version.is_legacy() {
                        rest::encode_error_v03(&e, &mut body);
                    } else {
                        rest::encode_error(&e, &mut body);
                    }
                    body
                }))
            }
        };
        EncodedEvent { version: call.version, body }
    }

    /// The end of a stream, with the error that ended it, if any.
    pub fn stream_end(&self, call: &Call, error: Option<&A2aError>) -> StreamEnd {
        match (call.binding.clone(), error) {
            (Binding::Grpc, e) if call.version.is_legacy() => StreamEnd { body: Vec::new(), trailers: grpc::status_trailers_v03(e) },
            (Binding::Grpc, e) => StreamEnd { body: Vec::new(), trailers: grpc::status_trailers(e) },
            (_, None) => StreamEnd::default(),
            (Binding::JsonRpc, Some(e)) => {
                let mut data = Vec::new();
                jsonrpc::encode_error_for(&call.jsonrpc_id, call.version, e, &mut data);
                let mut body = Vec::new();
                sse::encode_event(&data, &mut body);
                StreamEnd { body, trailers: Vec::new() }
            }
            (_, Some(e)) => {
                let mut data = Vec::new();
                if call.version.is_legacy() {
                    rest::encode_error_v03(e, &mut data);
                } else {
                    rest::encode_error(e, &mut data);
                }
                let mut body = Vec::new();
                sse::encode_event(&data, &mut body);
                StreamEnd { body, trailers: Vec::new() }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The frame by the general rule: the whole JSON-RPC response, then SSE's encoding of it.
    fn general(jsonrpc_id: &Value, result: &[u8], id: Option<EventId>) -> Vec<u8> {
        let mut data = Vec::new();
        jsonrpc::frame_stream_result(jsonrpc_id, result, &mut data);
        let mut out = Vec::new();
        sse::encode_event_with_id(id.map(|i| i.to_string()).as_deref(), &data, &mut out);
        out
    }

    #[test]
    fn a_frame_is_the_general_sse_encoding_of_its_event_with_or_without_line_breaks() {
        let results: [&[u8]; 5] = [b"{}", br#"{"text":"a\nb"}"#, b"{\n\"a\":1\n}", b"[1]\r", b"{\"a\":\"\r\"}"];
        let ids = [Value::from(7), Value::from("x\ny"), Value::Null];
        for result in results {
            for jsonrpc_id in &ids {
                for id in [None, Some(EventId { epoch: 0xab, seq: 12 })] {
                    let e = EncodedEvent { version: ProtocolVersion::V1_0, body: Body::JsonRpc(Ok(Json::new(result.to_vec()))) };
                    let mut got = Vec::new();
                    e.frame(jsonrpc_id, id, &mut got);
                    assert_eq!(got, general(jsonrpc_id, result, id), "{:?}", core::str::from_utf8(result));

                    let e = EncodedEvent { version: ProtocolVersion::V1_0, body: Body::Sse(Ok(Json::new(result.to_vec()))) };
                    let mut got = Vec::new();
                    e.frame(jsonrpc_id, id, &mut got);
                    let mut want = Vec::new();
                    sse::encode_event_with_id(id.map(|i| i.to_string()).as_deref(), result, &mut want);
                    assert_eq!(got, want, "{:?}", core::str::from_utf8(result));
                }
            }
        }
        assert!(Json::new(b"{}".to_vec()).one_line && !Json::new(b"{\n}".to_vec()).one_line && !Json::new(b"1\r".to_vec()).one_line);
    }
}
