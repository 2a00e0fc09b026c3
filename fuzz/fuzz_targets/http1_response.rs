//! What a (malicious) server sends a client: an HTTP/1.1 response head, its framing, a
//! chunked body, and the bytes the core's step-function client reads as a unary answer or a
//! stream. Checks: no panic; the chunked decoder gives the same bytes however the input is
//! split, never more than its limit, and never consumes bytes past the body's end; a head
//! over the limit is refused; the exchange never buffers more than its limits.
#![no_main]

use a2a_wire::card::{Binding, SelectedInterface};
use a2a_wire::client::{Client, ClientLimits, Step};
use a2a_wire::op::{Operation, Request};
use a2a_wire::proto::google::protobuf::Timestamp;
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use a2a_wire::http1::{parse_response_head, response_framing, ChunkedDecoder};
use libfuzzer_sys::fuzz_target;

const LIMIT: usize = 4096;

fn chunked(parts: &[&[u8]]) -> (Vec<u8>, Option<bool>, usize) {
    let mut d = ChunkedDecoder::with_limit(LIMIT);
    let mut input = Vec::new();
    let mut out = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        input.extend_from_slice(p);
        match d.decode(&mut input, &mut out) {
            // What is left: the unread bytes, and the parts not fed yet.
            Ok(true) => return (out, Some(true), input.len() + parts[i + 1..].iter().map(|p| p.len()).sum::<usize>()),
            Ok(false) => {}
            Err(_) => return (out, None, 0),
        }
        assert!(out.len() <= LIMIT, "the chunked decoder passed its limit");
    }
    (out, Some(false), 0)
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, input)) = data.split_first() else { return };
    match parse_response_head(input, 512, 16) {
        Ok(Some((head, len))) => {
            assert!(len <= 512 && len <= input.len());
            let _ = response_framing(&head, mode & 1 == 1);
            let _ = (head.keep_alive(), head.is_interim());
        }
        Ok(None) => assert!(input.len() <= 512),
        Err(_) => {}
    }

    let whole = chunked(&[input]);
    let at = usize::from(mode) % (input.len() + 1);
    let split = chunked(&[&input[..at], &input[at..]]);
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    let bytewise = chunked(&bytes);
    if whole.1.is_some() && split.1.is_some() && bytewise.1.is_some() {
        assert_eq!(whole.0, split.0);
        assert_eq!(whole.0, bytewise.0);
    }
    if whole.1 == Some(true) && split.1 == Some(true) {
        assert_eq!(whole.2, split.2, "bytes after the body stay, whatever the split");
    }

    // The same bytes as the body of an answer, through the core's client.
    let binding = match mode % 3 {
        0 => Binding::JsonRpc,
        1 => Binding::HttpJson,
        _ => Binding::Grpc,
    };
    let version = if mode & 8 == 8 { ProtocolVersion::V0_3 } else { ProtocolVersion::V1_0 };
    let iface = SelectedInterface { url: "http://h/a2a".into(), binding: binding.clone(), version, tenant: String::new(), index: 0 };
    let mut client = Client::new(iface);
    let streaming = mode & 4 == 4;
    let op = if streaming {
        Operation::Task(Request::SubscribeToTask(v1::SubscribeToTaskRequest { id: "t".into(), ..Default::default() }))
    } else {
        Operation::Task(Request::GetTask(v1::GetTaskRequest { id: "t".into(), ..Default::default() }))
    };
    let Ok(mut x) = client.start_with(op, ClientLimits { max_body: 2048, max_event: 1024 }) else { return };
    let now = Timestamp::default();
    let ctype = match (binding, streaming) {
        (Binding::Grpc, _) => "application/grpc",
        (_, true) => "text/event-stream",
        _ => "application/json",
    };
    let headers = vec![(String::from("content-type"), String::from(ctype))];
    let mut fed = false;
    for _ in 0..10_000 {
        match x.poll(now) {
            Step::Send(_) => x.handle_head(if mode & 16 == 16 { 405 } else { 200 }, &headers),
            Step::Read if !fed => {
                for c in input.chunks(usize::from(mode % 7) + 1) {
                    x.handle_body(c);
                }
                fed = true;
            }
            Step::Read => x.handle_end(&[(String::from("grpc-status"), String::from("0"))]),
            Step::Event(_) => {}
            Step::Done(_) => break,
            _ => break,
        }
    }
});
