//! HTTP+JSON requests through the server endpoint: method, path, query, headers and body from
//! the input (`METHOD TARGET\nname: value\n...\n\nBODY`). Checks: no panic; a request that
//! decodes, sent again by our client, decodes to the same operation.
#![no_main]

use a2a_wire::card::{Binding, SelectedInterface};
use a2a_wire::client::Client;
use a2a_wire::http::HttpRequest;
use a2a_wire::server::Endpoint;
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use libfuzzer_sys::fuzz_target;

fn card() -> v1::AgentCard {
    v1::AgentCard {
        supported_interfaces: vec![v1::AgentInterface {
            url: "http://h/rest".into(),
            protocol_binding: "HTTP+JSON".into(),
            protocol_version: "1.0".into(),
            tenant: String::new(),
        }],
        capabilities: Some(v1::AgentCapabilities { streaming: Some(true), push_notifications: Some(true), extended_agent_card: Some(true), ..Default::default() }),
        ..Default::default()
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (head, body) = text.split_once("\n\n").unwrap_or((&text, ""));
    let mut lines = head.split('\n');
    let first = lines.next().unwrap_or("");
    let (method, target) = first.split_once(' ').unwrap_or(("GET", first));
    let mut headers: Vec<(&str, &str)> = lines.filter_map(|l| l.split_once(": ")).collect();
    headers.push(("a2a-version", "1.0"));
    let endpoint = Endpoint::new(card()).unwrap().with_extended_card(card());
    let target = format!("/rest{target}");
    let Ok(call) = endpoint.decode(&HttpRequest { method, target: &target, headers: &headers, body: body.as_bytes() }) else { return };
    let iface = SelectedInterface { url: "http://h/rest".into(), binding: Binding::HttpJson, version: ProtocolVersion::V1_0, tenant: String::new(), index: 0 };
    let mut client = Client::new(iface);
    let Ok(prepared) = client.prepare(call.operation.clone()) else { return };
    let t = prepared.request.url.trim_start_matches("http://h");
    let hs: Vec<(&str, &str)> = prepared.request.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let again = endpoint
        .decode(&HttpRequest { method: prepared.request.method, target: t, headers: &hs, body: &prepared.request.body })
        .unwrap_or_else(|r| panic!("our own request is refused: {} {}", r.status, String::from_utf8_lossy(&r.body)));
    assert_eq!(again.operation, call.operation);
});
