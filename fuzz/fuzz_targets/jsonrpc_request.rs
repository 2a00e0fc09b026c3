//! JSON-RPC request decoding, both versions. Checks: no panic; a request that decodes, sent
//! again by our client encoder, decodes to the same operation.
#![no_main]

use a2a_wire::binding::jsonrpc;
use a2a_wire::version::ProtocolVersion;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let _ = jsonrpc::peek_id(data);
        let Ok(decoded) = jsonrpc::decode_request(data, version) else { continue };
        let mut again = Vec::new();
        if jsonrpc::encode_request(&decoded.id, version, &decoded.operation, &mut again).is_err() {
            continue;
        }
        let back = jsonrpc::decode_request(&again, version).unwrap_or_else(|(_, e)| panic!("our own request does not decode: {e}"));
        if version == ProtocolVersion::V1_0 {
            assert_eq!(back.operation, decoded.operation);
        }
    }
});
