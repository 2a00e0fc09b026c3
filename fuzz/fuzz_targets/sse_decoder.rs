//! The SSE decoder under arbitrary bytes and chunkings. Checks: no panic; the events do not
//! depend on where the input is split; nothing larger than the limit is buffered.
#![no_main]

use a2a_wire::binding::sse::SseDecoder;
use libfuzzer_sys::fuzz_target;

fn run(parts: &[&[u8]]) -> (Vec<String>, bool) {
    let mut d = SseDecoder::new(256);
    let mut out = Vec::new();
    let mut failed = false;
    for p in parts {
        d.feed(p);
        loop {
            match d.next_event() {
                Ok(Some(e)) => {
                    assert!(e.data.len() <= 256);
                    out.push(e.data);
                }
                Ok(None) => break,
                Err(_) => {
                    failed = true;
                    break;
                }
            }
        }
    }
    (out, failed)
}

fuzz_target!(|data: &[u8]| {
    let Some((&cut, input)) = data.split_first() else { return };
    let whole = run(&[input]);
    let at = usize::from(cut) % (input.len() + 1);
    let split = run(&[&input[..at], &input[at..]]);
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    let bytewise = run(&bytes);
    if !whole.1 {
        assert_eq!(whole, split);
        assert_eq!(whole, bytewise);
    }
});
