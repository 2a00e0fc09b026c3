//! Service parameters and cards: `A2A-Version` (header or query), `A2A-Extensions`,
//! binding names and Agent Card documents. Checks: a negotiated version is one the interface
//! serves; a parsed version prints back to itself; extension lists hold no empty or
//! duplicate items; a card that reads has a usable selection or a report of what it offered.
#![no_main]

use a2a_wire::card::{self, Binding, ClientSupport};
use a2a_wire::version::{self, ProtocolVersion};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let query = lines.next().unwrap_or("");
    let headers: Vec<(&str, &str)> = lines.filter_map(|l| l.split_once(':')).collect();
    let raw = version::find_raw(headers.iter().copied(), Some(query));
    let served = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];
    match version::negotiate(version::requested(raw), &served) {
        Ok(v) => assert!(served.contains(&v)),
        Err(e) => assert!(e.metadata().contains_key("supportedVersions")),
    }
    if let Some(v) = raw.and_then(ProtocolVersion::parse) {
        assert_eq!(ProtocolVersion::parse(&v.to_string()), Some(v));
    }
    let exts = card::parse_extensions(headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case("a2a-extensions")).map(|(_, v)| *v));
    for (i, e) in exts.iter().enumerate() {
        assert!(!e.is_empty() && e.trim() == *e);
        assert!(!exts[..i].contains(e));
    }
    for (n, _) in &headers {
        let b = Binding::parse(n);
        assert_eq!(Binding::parse(b.as_str()), b);
    }
    if let Ok(view) = card::read_card(data) {
        match card::select_interface(&view.card, &ClientSupport::default()) {
            Ok(sel) => assert!(sel.index < view.card.supported_interfaces.len()),
            Err(none) => assert_eq!(none.offered.len(), view.card.supported_interfaces.len()),
        }
    }
});
