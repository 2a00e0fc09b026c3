//! Per-principal authorization over real sockets: the demo agent behind bearer tokens, and the
//! two-principal matrix (`a2a-wire-isolation`) over all six interfaces. The same matrix runs
//! against the C, Python and Node servers in their own tests.

use a2a_wire::auth::BearerTokens;
use a2a_wire_smol::host::AgentKind;
use a2a_wire_smol::server::{concrete_addr, RunningServer};
use a2a_wire_smol::ServerConfig;
use std::collections::BTreeMap;
use std::process::Command;
use std::sync::Arc;

const MATRIX: &str = env!("CARGO_BIN_EXE_a2a-wire-isolation");

/// The test's own setup cannot fail: `what` says why.
fn sure<T, E: std::fmt::Debug>(r: Result<T, E>, what: &str) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{what}: {e:?}"),
    }
}

fn demo_server(tokens: &str) -> RunningServer {
    let addr = sure(concrete_addr(sure("127.0.0.1:0".parse(), "a literal address")), "a free port on 127.0.0.1");
    let tokens = sure(BearerTokens::parse(tokens), "the test's token table");
    let mut config = ServerConfig::new(a2a_wire_smol::demo::card(addr)).with_bearer_tokens(tokens);
    config.log = Arc::new(|_, _: &str| {});
    let agent = AgentKind::Future(Arc::new(a2a_wire_smol::demo::EchoAgent::default()));
    sure(RunningServer::start(addr, config, agent, a2a_wire::engine::MemoryStore::new()), "the demo server starts")
}

/// (binding, version) to check to (ok, detail).
type Rows = BTreeMap<(String, String), BTreeMap<String, (bool, String)>>;

/// The matrix's exit code and its rows.
fn matrix(url: &str) -> (i32, Rows) {
    let out =
        sure(Command::new(MATRIX).args(["--url", url, "--token-a", "alice-token", "--token-b", "bob-token"]).output(), "the matrix runs");
    let mut rows = Rows::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: serde_json::Value = sure(serde_json::from_str(line), "the matrix prints JSON lines");
        let s = |k: &str| v[k].as_str().unwrap_or_default().to_string();
        rows.entry((s("binding"), s("version"))).or_default().insert(s("check"), (v["ok"] == true, s("detail")));
    }
    (out.status.code().unwrap_or(-1), rows)
}

const CHECKS: [&str; 14] = [
    "get",
    "cancel",
    "subscribe",
    "follow_up",
    "streaming_follow_up",
    "create_push_config",
    "get_push_config",
    "list_push_configs",
    "delete_push_config",
    "timing",
    "list",
    "message_ids",
    "intact",
    "unauthenticated",
];

#[test]
fn two_principals_observe_nothing_of_each_other_on_every_operation_and_interface() {
    let server = demo_server("alice-token alice\nbob-token bob\n");
    let (code, rows) = matrix(&format!("http://{}", server.local_addr()));
    assert_eq!(rows.len(), 6, "every binding in both versions: {rows:?}");
    for (iface, checks) in &rows {
        for c in CHECKS {
            let got = checks.get(c);
            assert!(matches!(got, Some((true, _))), "{iface:?} {c}: {got:?}");
        }
    }
    assert_eq!(code, 0);
}

#[test]
fn the_matrix_sees_a_leak_when_two_tokens_are_one_principal() {
    // Both tokens stand for alice: "B" sees A's tasks, and the matrix must say so.
    let server = demo_server("alice-token alice\nbob-token alice\n");
    let (code, rows) = matrix(&format!("http://{}", server.local_addr()));
    assert_eq!(code, 1);
    assert_eq!(rows.len(), 6, "{rows:?}");
    for (iface, checks) in &rows {
        for c in ["get", "cancel", "subscribe", "follow_up", "create_push_config", "get_push_config", "list_push_configs"] {
            let got = checks.get(c);
            assert!(matches!(got, Some((false, _))), "{iface:?} {c}: {got:?}");
        }
        if iface.1 == "1.0" {
            assert!(matches!(checks.get("list"), Some((false, _))), "{iface:?}: {:?}", checks.get("list"));
        }
    }
}

#[test]
fn the_public_card_declares_the_bearer_scheme() {
    let server = demo_server("alice-token alice\n");
    let base = format!("http://{}", server.local_addr());
    let view = sure(smol::block_on(a2a_wire_smol::client::fetch_card(&base)), "the public card needs no token");
    let scheme = view.card.security_schemes.get(a2a_wire::auth::SCHEME_NAME).and_then(|s| s.scheme.clone());
    assert!(
        matches!(&scheme, Some(a2a_wire::v1::security_scheme::Scheme::HttpAuthSecurityScheme(h)) if h.scheme == "Bearer"),
        "{scheme:?}"
    );
    assert!(view.card.security_requirements.iter().any(|r| r.schemes.contains_key("bearer")));
}
