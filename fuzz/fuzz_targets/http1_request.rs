//! What a (malicious) client sends a server: bytes on an HTTP/1.1 connection, through the
//! core's request reader (`a2a_wire::http1::RequestReader`). The oracle checks invariants,
//! not only "no panic":
//! - the events are the same whether the bytes arrive at once, split in two at every offset,
//!   or one byte at a time (body data compared joined);
//! - no body is longer than its head declared (`Content-Length`), or than the limit (chunked);
//! - after a refusal nothing more comes from the same bytes (every later read is the same
//!   refusal), and after `Closed` nothing but `Closed`;
//! - every read consumes at most what it was given, and the reader always makes progress.
#![no_main]

use a2a_wire::http1::{BodyLength, Event, Limits, Refusal, RequestHead, RequestReader};
use libfuzzer_sys::fuzz_target;

const LIMITS: Limits = Limits { max_head: 256, max_headers: 8, max_body: 512 };
/// Longest input split at every offset (each split runs the whole input again).
const MAX_SPLIT_INPUT: usize = 1024;

#[derive(Debug, PartialEq, Eq)]
enum Seen {
    Head(RequestHead),
    Data(Vec<u8>),
    End,
    Refused(Refusal),
    Closed,
}

/// The events of `input` fed in the pieces `cuts` ends (ascending offsets; the last is
/// `input.len()`), then the end of the stream.
fn run(input: &[u8], cuts: &mut dyn Iterator<Item = usize>) -> Vec<Seen> {
    let mut r = RequestReader::new(LIMITS);
    let mut buf: Vec<u8> = Vec::new();
    let mut fed = 0;
    let mut seen: Vec<Seen> = Vec::new();
    let mut declared: Option<usize> = None;
    let mut body = 0usize;
    let mut steps = 0usize;
    loop {
        steps += 1;
        assert!(steps < 16 * input.len() + 64, "the reader stopped making progress");
        let (used, ev) = r.read(&buf);
        assert!(used <= buf.len(), "consumed more than it was given");
        match ev {
            Event::NeedData => {
                buf.drain(..used);
                match cuts.next() {
                    Some(to) => {
                        buf.extend_from_slice(&input[fed..to]);
                        fed = to;
                    }
                    None => {
                        let end = r.read_eof(&buf);
                        match end {
                            Event::End => seen.push(Seen::End),
                            Event::Refused(x) => seen.push(Seen::Refused(x)),
                            Event::Closed => seen.push(Seen::Closed),
                            other => panic!("the end of the stream gave {other:?}"),
                        }
                        return seen;
                    }
                }
                continue;
            }
            Event::Head(h) => {
                declared = match h.body {
                    BodyLength::Length(n) => Some(n),
                    BodyLength::Chunked => None,
                };
                body = 0;
                seen.push(Seen::Head(h));
            }
            Event::Data(d) => {
                assert!(!d.is_empty(), "an empty data event");
                let offset = d.as_ptr() as usize - buf.as_ptr() as usize;
                assert!(offset + d.len() <= used, "data is a part of what was consumed");
                body += d.len();
                assert!(body <= declared.unwrap_or(LIMITS.max_body), "a body longer than its head declared or the limit");
                match seen.last_mut() {
                    Some(Seen::Data(prev)) => prev.extend_from_slice(d),
                    _ => seen.push(Seen::Data(d.to_vec())),
                }
            }
            Event::End => {
                if let Some(n) = declared {
                    assert_eq!(body, n, "a body ended before its Content-Length");
                }
                seen.push(Seen::End);
            }
            Event::Refused(x) => {
                // Nothing more, from these bytes or any others.
                assert_eq!(r.read(&buf).1, Event::Refused(x));
                assert_eq!(r.read(&input[..]).1, Event::Refused(x));
                assert_eq!(r.read_eof(&buf), Event::Refused(x));
                seen.push(Seen::Refused(x));
                return seen;
            }
            Event::Closed => {
                assert_eq!(r.read(&input[..]).1, Event::Closed);
                seen.push(Seen::Closed);
                return seen;
            }
        }
        buf.drain(..used);
    }
}

fuzz_target!(|data: &[u8]| {
    let whole = run(data, &mut std::iter::once(data.len()));
    let bytewise = run(data, &mut (1..=data.len()));
    assert_eq!(whole, bytewise, "byte by byte");
    if data.len() <= MAX_SPLIT_INPUT {
        for at in 0..=data.len() {
            let split = run(data, &mut [at, data.len()].into_iter());
            assert_eq!(whole, split, "split at {at}");
        }
    }
    // No request head is produced after a refusal (the reader returned at once), and heads
    // and ends alternate.
    let mut open = false;
    for s in &whole {
        match s {
            Seen::Head(_) => {
                assert!(!open, "a head inside a request");
                open = true;
            }
            Seen::End => {
                assert!(open, "an end without a head");
                open = false;
            }
            Seen::Data(_) => assert!(open, "data outside a request"),
            _ => {}
        }
    }
});
