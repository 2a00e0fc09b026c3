//! Agent Card helpers: reading cards of either version, choosing an interface, capability
//! and extension checks (spec §4.4, §4.6, §8; WIRE-NOTES (f), (h), (k)).
//!
//! ## Reading
//! [`read_card`] accepts a v1.0 card (`supportedInterfaces`), a v0.3 card (`url`,
//! `preferredTransport`, `additionalInterfaces`, card-level `protocolVersion`) and a card that
//! carries both shapes (what servers publish to serve both generations). The result is one
//! v1.0 card whose `supportedInterfaces` lists the v1.0 entries first, in their order, then
//! the interfaces the v0.3 fields describe that are not listed already.
//!
//! ## Selecting
//! [`select_interface`] walks `supportedInterfaces` in card order (the card's preference) and
//! stops at the first entry whose binding the client speaks and whose version the client
//! speaks. Among the entries of THAT binding it then takes the client's most preferred
//! version, so `[JSONRPC 0.3, JSONRPC 1.0]` gives a 1.0-capable client the 1.0 entry: when
//! several entries share a binding, the version decides, not the position. The selected
//! interface's `tenant` must be copied into every request (§8.3.2).

use crate::codec::json;
use crate::error::{A2aError, ErrorKind};
use crate::v03::{self, ToV1};
use crate::v1;
use crate::version::ProtocolVersion;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// A protocol binding (`AgentInterface.protocolBinding`, v0.3 `transport`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Binding {
    /// `JSONRPC`
    JsonRpc,
    /// `GRPC`
    Grpc,
    /// `HTTP+JSON`
    HttpJson,
    /// Any other value (custom bindings SHOULD be URIs, §5.8).
    Custom(String),
}

impl Binding {
    /// Reads a binding name; the three core names match case-insensitively.
    pub fn parse(s: &str) -> Binding {
        let t = s.trim();
        if t.eq_ignore_ascii_case("JSONRPC") {
            Binding::JsonRpc
        } else if t.eq_ignore_ascii_case("GRPC") {
            Binding::Grpc
        } else if t.eq_ignore_ascii_case("HTTP+JSON") {
            Binding::HttpJson
        } else {
            Binding::Custom(String::from(t))
        }
    }
    /// The canonical name.
    pub fn as_str(&self) -> &str {
        match self {
            Binding::JsonRpc => "JSONRPC",
            Binding::Grpc => "GRPC",
            Binding::HttpJson => "HTTP+JSON",
            Binding::Custom(s) => s,
        }
    }
}

impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which shapes a card document carried.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardShape {
    /// `supportedInterfaces` only.
    V1,
    /// v0.3 fields only.
    V03,
    /// Both.
    Both,
}

/// A card read by [`read_card`].
#[derive(Clone, Debug, PartialEq)]
pub struct CardView {
    /// The card in the v1.0 model, with the interfaces of both shapes.
    pub card: v1::AgentCard,
    /// What the document carried.
    pub shape: CardShape,
}

/// Why a card document could not be read.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum CardError {
    /// Not JSON, or neither a v1.0 nor a v0.3 card.
    Invalid(String),
}

impl fmt::Display for CardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CardError::Invalid(m) => write!(f, "not an agent card: {m}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for CardError {}

/// The address a gRPC interface URL dials: `http://host:port/` and `host:port` are one
/// interface (v0.3 cards write absolute URLs, v1.0 cards bare `host:port`).
fn grpc_target(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.trim_end_matches('/')
}

fn same_interface(a: &v1::AgentInterface, b: &v1::AgentInterface) -> bool {
    let binding = Binding::parse(&a.protocol_binding);
    let same_url = if binding == Binding::Grpc { grpc_target(&a.url) == grpc_target(&b.url) } else { a.url == b.url };
    same_url && binding == Binding::parse(&b.protocol_binding) && a.protocol_version == b.protocol_version
}

/// A gRPC interface URL as the v0.3 releases' clients dial it: a gRPC target, `host:port`.
/// They hand the card's URL to their gRPC channel as it is, and a scheme makes it a name that
/// does not resolve (a2a-sdk 0.3.24 "Misformatted domain name", a2a-go v0.3.15 "too many
/// colons in address", @a2a-js/sdk 0.3.14 "Name resolution failed for target
/// dns:http://..."); so the scheme and a trailing slash are dropped.
fn v03_grpc_url(url: &str) -> String {
    String::from(grpc_target(url))
}

/// Reads an Agent Card document of either version, or both (see the module docs). The card
/// is read leniently (REQUIRED fields are not enforced: a client can still use a card whose
/// `description` is missing), but the JSON and every value in it must be well-formed.
pub fn read_card(bytes: &[u8]) -> Result<CardView, CardError> {
    let doc: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| CardError::Invalid(alloc::format!("{e}")))?;
    let has_v1 = doc.get("supportedInterfaces").is_some_and(|v| v.is_array());
    let has_v03 = doc.get("url").is_some_and(|v| v.is_string());
    let legacy = if has_v03 {
        let c: Option<v03::AgentCard> = v03::decode(bytes).ok();
        c.and_then(|c| c.to_v1().ok()).map(|c| c.value)
    } else {
        None
    };
    match (has_v1, legacy) {
        (true, legacy) => {
            let mut card: v1::AgentCard = json::decode_unchecked(bytes).map_err(|e| CardError::Invalid(alloc::format!("{e}")))?;
            let shape = if legacy.is_some() { CardShape::Both } else { CardShape::V1 };
            for iface in legacy.into_iter().flat_map(|l| l.supported_interfaces) {
                if !card.supported_interfaces.iter().any(|i| same_interface(i, &iface)) {
                    card.supported_interfaces.push(iface);
                }
            }
            Ok(CardView { card, shape })
        }
        (false, Some(card)) => Ok(CardView { card, shape: CardShape::V03 }),
        (false, None) => {
            Err(CardError::Invalid(String::from("neither supportedInterfaces (v1.0) nor a valid v0.3 url/preferredTransport card")))
        }
    }
}

/// The JSON an agent publishes at `/.well-known/agent-card.json`: the v1.0 card and, when
/// it lists a 0.x interface, the v0.3 fields too (`protocolVersion`, `url`,
/// `preferredTransport`, `additionalInterfaces`, `supportsAuthenticatedExtendedCard`,
/// `security`), so that v0.3 clients find their interface in the same document
/// ([`read_card`] reads such a card back). Fields both versions spell the same but shape
/// differently (`securitySchemes`, `capabilities`, `skills`) keep their v1.0 shape.
pub fn publish(card: &v1::AgentCard) -> Result<Vec<u8>, crate::codec::EncodeError> {
    use crate::v03::ToV03;
    let v1_json = json::encode(card)?;
    if !card.supported_interfaces.iter().any(|i| i.protocol_version.starts_with("0.")) {
        return Ok(v1_json);
    }
    let Ok(legacy) = card.to_v03() else { return Ok(v1_json) };
    let (Ok(serde_json::Value::Object(mut doc)), Ok(serde_json::Value::Object(old))) =
        (serde_json::from_slice::<serde_json::Value>(&v1_json), serde_json::to_value(&legacy.value))
    else {
        return Ok(v1_json);
    };
    let mut old = old;
    // gRPC URLs as the v0.3 clients dial them (a bare `host:port`, see `v03_grpc_url`); the
    // v1.0 fields (the `supportedInterfaces` above) keep the URL as configured.
    if old.get("preferredTransport").and_then(serde_json::Value::as_str) == Some("GRPC") {
        if let Some(serde_json::Value::String(u)) = old.get_mut("url") {
            *u = v03_grpc_url(u);
        }
    }
    if let Some(serde_json::Value::Array(list)) = old.get_mut("additionalInterfaces") {
        for iface in list.iter_mut() {
            if iface.get("transport").and_then(serde_json::Value::as_str) == Some("GRPC") {
                if let Some(serde_json::Value::String(u)) = iface.get_mut("url") {
                    *u = v03_grpc_url(u);
                }
            }
        }
    }
    for key in ["protocolVersion", "url", "preferredTransport", "additionalInterfaces", "supportsAuthenticatedExtendedCard", "security"] {
        if let Some(v) = old.get(key) {
            doc.entry(key).or_insert_with(|| v.clone());
        }
    }
    // v0.3 requires these even when empty; ProtoJSON leaves empty lists out.
    for key in ["skills", "defaultInputModes", "defaultOutputModes"] {
        doc.entry(key).or_insert_with(|| serde_json::Value::Array(Vec::new()));
    }
    doc.entry("capabilities").or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
    serde_json::to_vec(&doc).map_err(|e| crate::codec::EncodeError::new(alloc::format!("{e}")))
}

/// What a client can speak, in its order of preference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientSupport {
    /// Bindings the client speaks.
    pub bindings: Vec<Binding>,
    /// Versions the client speaks, most preferred first.
    pub versions: Vec<ProtocolVersion>,
}

impl Default for ClientSupport {
    /// a2a-wire's client: all three bindings, v1.0 preferred over v0.3.
    fn default() -> Self {
        ClientSupport {
            bindings: alloc::vec![Binding::JsonRpc, Binding::HttpJson, Binding::Grpc],
            versions: alloc::vec![ProtocolVersion::V1_0, ProtocolVersion::V0_3],
        }
    }
}

/// The interface a client uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectedInterface {
    /// Where to send requests.
    pub url: String,
    /// Which binding.
    pub binding: Binding,
    /// Which protocol version (sent as `A2A-Version`, and deciding the wire model).
    pub version: ProtocolVersion,
    /// The tenant to copy into every request ("" = none).
    pub tenant: String,
    /// Index of the entry in `supportedInterfaces`.
    pub index: usize,
}

/// No interface of the card is usable by the client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoUsableInterface {
    /// What the card offered: `(binding, protocolVersion, url)` for each entry.
    pub offered: Vec<(String, String, String)>,
}

impl fmt::Display for NoUsableInterface {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no interface of the agent card is usable; offered:")?;
        if self.offered.is_empty() {
            f.write_str(" nothing")?;
        }
        for (b, v, u) in &self.offered {
            write!(f, " [{b} {v} {u}]")?;
        }
        Ok(())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for NoUsableInterface {}

/// Chooses the interface to use (see the module docs).
pub fn select_interface(card: &v1::AgentCard, client: &ClientSupport) -> Result<SelectedInterface, NoUsableInterface> {
    let usable = |i: &v1::AgentInterface| -> Option<(Binding, ProtocolVersion)> {
        let b = Binding::parse(&i.protocol_binding);
        let v = ProtocolVersion::parse(&i.protocol_version)?;
        (!i.url.is_empty() && client.bindings.contains(&b) && client.versions.contains(&v)).then_some((b, v))
    };
    let first = card.supported_interfaces.iter().find_map(usable);
    let Some((binding, _)) = first else {
        return Err(NoUsableInterface {
            offered: card
                .supported_interfaces
                .iter()
                .map(|i| (i.protocol_binding.clone(), i.protocol_version.clone(), i.url.clone()))
                .collect(),
        });
    };
    // Among the entries of that binding, the client's most preferred version wins; among
    // equal versions, the card's order.
    let mut best: Option<(usize, usize, ProtocolVersion)> = None; // (rank, index, version)
    for (index, iface) in card.supported_interfaces.iter().enumerate() {
        let Some((b, v)) = usable(iface) else { continue };
        if b != binding {
            continue;
        }
        let rank = client.versions.iter().position(|x| *x == v).unwrap_or(usize::MAX);
        if best.is_none_or(|(r, _, _)| rank < r) {
            best = Some((rank, index, v));
        }
    }
    // `first` found a usable entry of `binding`, so the loop above found at least that one.
    let (_, index, version) = best.ok_or(NoUsableInterface { offered: Vec::new() })?;
    let iface = &card.supported_interfaces[index];
    Ok(SelectedInterface { url: iface.url.clone(), binding, version, tenant: iface.tenant.clone(), index })
}

// ---------------------------------------------------------------- capabilities

fn caps(card: &v1::AgentCard) -> v1::AgentCapabilities {
    card.capabilities.clone().unwrap_or_default()
}

/// `SendStreamingMessage` and `SubscribeToTask` need `capabilities.streaming` (§3.3.4).
pub fn require_streaming(card: &v1::AgentCard) -> Result<(), A2aError> {
    match caps(card).streaming {
        Some(true) => Ok(()),
        _ => Err(A2aError::unsupported("Streaming is not supported by this agent (capabilities.streaming)")),
    }
}

/// The push-config operations need `capabilities.pushNotifications` (§3.3.4).
pub fn require_push_notifications(card: &v1::AgentCard) -> Result<(), A2aError> {
    match caps(card).push_notifications {
        Some(true) => Ok(()),
        _ => Err(A2aError::new(ErrorKind::PushNotificationNotSupported)),
    }
}

/// `GetExtendedAgentCard` needs `capabilities.extendedAgentCard`, and a configured card
/// (§3.3.4).
pub fn require_extended_card(card: &v1::AgentCard, configured: bool) -> Result<(), A2aError> {
    match (caps(card).extended_agent_card, configured) {
        (Some(true), true) => Ok(()),
        (Some(true), false) => Err(A2aError::new(ErrorKind::ExtendedAgentCardNotConfigured)),
        _ => Err(A2aError::unsupported("The extended agent card is not supported by this agent (capabilities.extendedAgentCard)")),
    }
}

// ---------------------------------------------------------------- extensions

/// The extension URIs of `A2A-Extensions` values (one or several header lines or metadata
/// entries): comma-separated, each trimmed, case kept, empty items dropped, duplicates kept
/// once in first-seen order.
pub fn parse_extensions<'a>(values: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for value in values {
        for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if !out.contains(&item) {
                out.push(item);
            }
        }
    }
    out
}

/// Checks the client's declared extensions against the card: every extension the card marks
/// `required: true` must be declared, else `ExtensionSupportRequired` listing the missing
/// ones. Returns the extensions that are active for the request (declared and supported),
/// for the `A2A-Extensions` response echo; declared but unsupported ones are ignored (§4.6).
pub fn check_extensions<'a>(card: &'a v1::AgentCard, declared: &[&str]) -> Result<Vec<&'a str>, A2aError> {
    let exts = card.capabilities.as_ref().map(|c| c.extensions.as_slice()).unwrap_or_default();
    let missing: Vec<&str> = exts.iter().filter(|e| e.required && !declared.contains(&e.uri.as_str())).map(|e| e.uri.as_str()).collect();
    if !missing.is_empty() {
        return Err(A2aError::extension_support_required(&missing));
    }
    Ok(exts.iter().filter(|e| declared.contains(&e.uri.as_str())).map(|e| e.uri.as_str()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;

    fn iface(url: &str, b: &str, v: &str, tenant: &str) -> v1::AgentInterface {
        v1::AgentInterface { url: url.into(), protocol_binding: b.into(), protocol_version: v.into(), tenant: tenant.into() }
    }

    fn card(ifaces: Vec<v1::AgentInterface>) -> v1::AgentCard {
        v1::AgentCard { supported_interfaces: ifaces, ..Default::default() }
    }

    #[test]
    fn first_usable_entry_in_card_order() {
        let c = card(vec![
            iface("grpc://a", "GRPC", "1.0", ""),
            iface("https://a/rest", "HTTP+JSON", "1.0", "t1"),
            iface("https://a/rpc", "JSONRPC", "1.0", ""),
        ]);
        let only_rest_and_rpc =
            ClientSupport { bindings: vec![Binding::JsonRpc, Binding::HttpJson], versions: vec![ProtocolVersion::V1_0] };
        let s = select_interface(&c, &only_rest_and_rpc).unwrap();
        assert_eq!((s.binding, s.url.as_str(), s.tenant.as_str(), s.index), (Binding::HttpJson, "https://a/rest", "t1", 1));
    }

    #[test]
    fn entries_of_one_binding_are_chosen_by_version_not_position() {
        let c = card(vec![iface("https://a/v03", "JSONRPC", "0.3", ""), iface("https://a/v1", "JSONRPC", "1.0", "")]);
        let s = select_interface(&c, &ClientSupport::default()).unwrap();
        assert_eq!((s.version, s.url.as_str()), (ProtocolVersion::V1_0, "https://a/v1"));
        let legacy_client = ClientSupport { bindings: vec![Binding::JsonRpc], versions: vec![ProtocolVersion::V0_3] };
        let s = select_interface(&c, &legacy_client).unwrap();
        assert_eq!((s.version, s.url.as_str()), (ProtocolVersion::V0_3, "https://a/v03"));
    }

    #[test]
    fn no_usable_entry_lists_what_was_offered() {
        let c = card(vec![iface("https://a", "JSONRPC", "2.0", ""), iface("https://b", "urn:x:carrier-pigeon", "1.0", "")]);
        let e = select_interface(&c, &ClientSupport::default()).unwrap_err();
        assert_eq!(e.offered.len(), 2);
        assert!(e.to_string().contains("JSONRPC 2.0 https://a"), "{e}");
    }

    #[test]
    fn a_published_card_with_v03_interfaces_reads_back_with_both_shapes() {
        let mut c = card(vec![iface("http://a/v1", "JSONRPC", "1.0", ""), iface("http://a/v03", "JSONRPC", "0.3", "")]);
        c.name = "n".into();
        c.description = "d".into();
        c.version = "1".into();
        c.capabilities = Some(v1::AgentCapabilities::default());
        c.default_input_modes = vec!["text/plain".into()];
        c.default_output_modes = vec!["text/plain".into()];
        let bytes = publish(&c).unwrap();
        let v = read_card(&bytes).unwrap();
        assert_eq!(v.shape, CardShape::Both);
        assert_eq!(v.card.supported_interfaces.len(), 2);
        let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!((doc["url"].as_str(), doc["protocolVersion"].as_str()), (Some("http://a/v03"), Some("0.3.0")));
        // A v1.0-only card is the plain v1.0 JSON.
        let only = card(vec![iface("http://a/v1", "JSONRPC", "1.0", "")]);
        assert_eq!(publish(&only).unwrap(), json::encode(&only).unwrap());
    }

    #[test]
    fn v03_fields_write_grpc_urls_as_grpc_targets_and_v1_fields_keep_them() {
        let mut c = card(vec![
            iface("a.example:50051", "GRPC", "1.0", ""),
            iface("http://a.example:50051/", "GRPC", "0.3", ""),
            iface("http://a.example/v03", "JSONRPC", "0.3", ""),
            iface("https://b.example:443", "GRPC", "0.3", ""),
        ]);
        c.capabilities = Some(v1::AgentCapabilities::default());
        let bytes = publish(&c).unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(doc["supportedInterfaces"][0]["url"], "a.example:50051", "v1.0 cards keep host:port");
        assert_eq!(doc["supportedInterfaces"][1]["url"], "http://a.example:50051/", "and the URL as configured");
        assert_eq!((doc["url"].as_str(), doc["preferredTransport"].as_str()), (Some("a.example:50051"), Some("GRPC")));
        let extra = doc["additionalInterfaces"].as_array().unwrap();
        assert!(extra.iter().all(|i| i["transport"] != "GRPC" || !i["url"].as_str().unwrap().contains("://")), "{extra:?}");
        assert!(extra.iter().any(|i| i["transport"] == "GRPC" && i["url"] == "b.example:443"), "{extra:?}");
        assert!(extra.iter().any(|i| i["transport"] == "JSONRPC" && i["url"] == "http://a.example/v03"));
        // Read back: the absolute and the bare form are one interface, not two.
        let v = read_card(&bytes).unwrap();
        assert_eq!(v.card.supported_interfaces.len(), 4, "{:?}", v.card.supported_interfaces);
    }

    #[test]
    fn v03_cards_and_cards_with_both_shapes_are_read() {
        let v03 = br#"{"name":"A","description":"d","url":"https://a/rpc","version":"1","protocolVersion":"0.3.0",
            "preferredTransport":"JSONRPC","additionalInterfaces":[{"url":"https://a/rpc","transport":"JSONRPC"},{"url":"https://a/rest","transport":"HTTP+JSON"}],
            "capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}"#;
        let v = read_card(v03).unwrap();
        assert_eq!(v.shape, CardShape::V03);
        let urls: Vec<(&str, &str)> = v.card.supported_interfaces.iter().map(|i| (i.url.as_str(), i.protocol_version.as_str())).collect();
        assert_eq!(urls, [("https://a/rpc", "0.3"), ("https://a/rest", "0.3")]);

        let both = br#"{"name":"A","description":"d","version":"1",
            "supportedInterfaces":[{"url":"https://a/v1","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
            "url":"https://a/rpc","protocolVersion":"0.3.0","preferredTransport":"JSONRPC",
            "capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}"#;
        let v = read_card(both).unwrap();
        assert_eq!(v.shape, CardShape::Both);
        assert_eq!(v.card.supported_interfaces.len(), 2);
        assert_eq!(select_interface(&v.card, &ClientSupport::default()).unwrap().url, "https://a/v1");
        let legacy_client = ClientSupport { bindings: vec![Binding::JsonRpc], versions: vec![ProtocolVersion::V0_3] };
        assert_eq!(select_interface(&v.card, &legacy_client).unwrap().url, "https://a/rpc");

        assert!(read_card(br#"{"name":"x"}"#).is_err());
        assert!(read_card(b"not json").is_err());
    }

    #[test]
    fn capabilities_gate_operations_with_the_spec_errors() {
        let mut c = card(vec![]);
        assert_eq!(require_streaming(&c).unwrap_err().kind(), ErrorKind::UnsupportedOperation);
        assert_eq!(require_push_notifications(&c).unwrap_err().kind(), ErrorKind::PushNotificationNotSupported);
        assert_eq!(require_extended_card(&c, true).unwrap_err().kind(), ErrorKind::UnsupportedOperation);
        c.capabilities = Some(v1::AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(true),
            extended_agent_card: Some(true),
            ..Default::default()
        });
        assert!(require_streaming(&c).is_ok() && require_push_notifications(&c).is_ok() && require_extended_card(&c, true).is_ok());
        assert_eq!(require_extended_card(&c, false).unwrap_err().kind(), ErrorKind::ExtendedAgentCardNotConfigured);
    }

    #[test]
    fn required_extensions_must_be_declared() {
        assert_eq!(parse_extensions([" urn:a , urn:B", "", "urn:a,,urn:c "]), ["urn:a", "urn:B", "urn:c"]);
        let mut c = card(vec![]);
        c.capabilities = Some(v1::AgentCapabilities {
            extensions: vec![
                v1::AgentExtension { uri: "urn:req".into(), required: true, ..Default::default() },
                v1::AgentExtension { uri: "urn:opt".into(), ..Default::default() },
            ],
            ..Default::default()
        });
        let e = check_extensions(&c, &["urn:opt"]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ExtensionSupportRequired);
        assert_eq!(e.metadata().get("extensions").map(|s| s.as_str()), Some("urn:req"));
        // Case is kept: a differently-cased URI is a different extension.
        assert!(check_extensions(&c, &["URN:REQ"]).is_err());
        assert_eq!(check_extensions(&c, &["urn:req", "urn:unknown"]).unwrap(), ["urn:req"]);
    }
}
