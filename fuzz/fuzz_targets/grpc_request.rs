//! gRPC frames and request messages of every RPC. Checks: no panic; the frame splitter
//! never reads past the input; a message that decodes re-encodes and decodes to the same
//! operation.
#![no_main]

use a2a_wire::binding::{grpc, METHODS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    if let Ok(frames) = grpc::decode_frames(rest, 1 << 20) {
        let total: usize = frames.iter().map(|f| f.len() + 5).sum();
        assert_eq!(total, rest.len());
    }
    let method = METHODS[usize::from(selector) % METHODS.len()].method;
    if let Ok(op) = grpc::decode_request(method, rest) {
        let mut again = Vec::new();
        grpc::encode_request(&op, &mut again);
        assert_eq!(grpc::decode_request(method, &again).ok(), Some(op));
    }
});
