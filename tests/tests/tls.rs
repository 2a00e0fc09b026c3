//! TLS over real sockets on 127.0.0.1, with throwaway CAs made at test time: the demo server
//! behind TLS on all six interfaces (HTTP/1.1 and HTTP/2 by ALPN on one port), clients that
//! refuse what they cannot verify, plaintext and TLS that do not mix, a certificate reloaded
//! while the server runs, and webhooks to an `https://` receiver (verified, and with a client
//! certificate when the receiver asks for one).

use a2a_wire::card::ClientSupport;
use a2a_wire::client::Reply;
use a2a_wire::http::OutgoingRequest;
use a2a_wire::v1;
use a2a_wire::webhook::Outcome;
use a2a_wire_smol::agent::text_part;
use a2a_wire_smol::host::AgentKind;
use a2a_wire_smol::server::{concrete_addr, RunningServer};
use a2a_wire_smol::tls::{ClientTls, ServerTls};
use a2a_wire_smol::webhook::{deliver_once, WebhookPolicy};
use a2a_wire_smol::{Client, ClientOptions, Error, ServerConfig};
use a2a_wire_tests::testca::TestCa;
use std::sync::Arc;
use std::time::Duration;

/// The test's own setup cannot fail: `what` says why.
fn sure<T, E: std::fmt::Debug>(r: Result<T, E>, what: &str) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{what}: {e:?}"),
    }
}

fn ca(name: &str, names: &[&str]) -> TestCa {
    sure(TestCa::new(name, names), "rcgen makes a test CA")
}

fn server_tls(ca: &TestCa) -> ServerTls {
    sure(ServerTls::from_pem(ca.server_cert_pem.as_bytes(), ca.server_key_pem.as_bytes()), "the test certificate loads")
}

/// The demo agent behind TLS; the card lists `https://127.0.0.1:PORT` URLs.
fn tls_demo(tls: ServerTls) -> (RunningServer, String) {
    let addr = sure(concrete_addr(sure("127.0.0.1:0".parse(), "a literal address")), "a free port");
    let origin = format!("https://{addr}");
    let mut config = ServerConfig::new(a2a_wire_smol::demo::card_at(&origin));
    config.tls = Some(tls);
    config.log = Arc::new(|_, _: &str| {});
    let agent = AgentKind::Future(Arc::new(a2a_wire_smol::demo::EchoAgent::default()));
    let server = sure(RunningServer::start(addr, config, agent, a2a_wire::engine::MemoryStore::new()), "the server starts");
    (server, origin)
}

fn trusting(ca: &TestCa) -> ClientOptions {
    ClientOptions { tls: Some(sure(ClientTls::from_ca_pem(ca.ca_pem.as_bytes()), "the CA loads")), ..ClientOptions::default() }
}

fn hello() -> v1::SendMessageRequest {
    v1::SendMessageRequest {
        message: Some(v1::Message {
            message_id: format!("tls-{:?}", std::time::Instant::now()),
            role: v1::Role::User as i32,
            parts: vec![text_part("hello")],
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[test]
fn every_interface_works_over_tls_with_the_test_ca() {
    let ca = ca("tls test CA", &["127.0.0.1"]);
    let (_server, origin) = tls_demo(server_tls(&ca));
    let options = trusting(&ca);
    smol::block_on(async {
        let view = sure(a2a_wire_smol::client::fetch_card_with(&origin, &options).await, "the card over TLS");
        assert_eq!(view.card.supported_interfaces.len(), 6);
        for iface in &view.card.supported_interfaces {
            assert!(iface.url.starts_with("https://127.0.0.1:"), "{}", iface.url);
            let binding = a2a_wire::card::Binding::parse(&iface.protocol_binding);
            let Some(version) = a2a_wire::version::ProtocolVersion::parse(&iface.protocol_version) else { panic!("{iface:?}") };
            let support = ClientSupport { bindings: vec![binding], versions: vec![version] };
            let selected = sure(a2a_wire::card::select_interface(&view.card, &support), "the interface is selectable");
            let what = format!("{} {}", iface.protocol_binding, iface.protocol_version);
            let c = Client::new(selected).with_options(options.clone());
            let Reply::Task(t) = sure(c.send_message(hello()).await, &what) else { panic!("{what}: a message, not a task") };
            let task = t.task().clone();
            assert_eq!(task.status.as_ref().map(|s| s.state()), Some(v1::TaskState::Completed), "{what}");
            let got = sure(c.get_task(v1::GetTaskRequest { id: task.id.clone(), ..Default::default() }).await, &what);
            assert_eq!(got.id, task.id, "{what}");
            let mut s = sure(c.send_streaming_message(hello()).await, &what);
            let mut events = 0;
            while let Some(ev) = s.next().await {
                sure(ev, &what);
                events += 1;
            }
            assert!(events >= 2, "{what}: {events} events");
            assert_eq!(s.task().state(), Some(v1::TaskState::Completed), "{what}");
        }
    });
}

fn tls_error(r: Result<impl std::fmt::Debug, Error>) -> String {
    match r {
        Err(Error::Tls(m)) => m,
        other => panic!("expected a TLS error, got {other:?}"),
    }
}

#[test]
fn a_client_refuses_a_server_it_cannot_verify() {
    let ca1 = ca("tls test CA", &["127.0.0.1"]);
    let other = ca("another CA", &["127.0.0.1"]);
    let localhost_only = ca("localhost CA", &["localhost"]);
    let (_s1, origin) = tls_demo(server_tls(&ca1));
    let (_s2, origin_localhost) = tls_demo(server_tls(&localhost_only));
    smol::block_on(async {
        // The platform's roots do not include a test CA.
        let m = tls_error(a2a_wire_smol::client::fetch_card(&origin).await);
        assert!(m.contains("UnknownIssuer") || m.contains("no trusted root"), "{m}");
        let m = tls_error(a2a_wire_smol::client::fetch_card_with(&origin, &trusting(&other)).await);
        assert!(m.contains("UnknownIssuer"), "{m}");
        // Trusted, but the certificate is for localhost, not 127.0.0.1.
        let m = tls_error(a2a_wire_smol::client::fetch_card_with(&origin_localhost, &trusting(&localhost_only)).await);
        assert!(m.contains("not valid for name"), "{m}");
        // gRPC over TLS verifies the same way.
        let iface = a2a_wire::card::SelectedInterface {
            url: origin.clone(),
            binding: a2a_wire::card::Binding::Grpc,
            version: a2a_wire::version::ProtocolVersion::V1_0,
            tenant: String::new(),
            index: 0,
        };
        let c = Client::new(iface).with_options(trusting(&other));
        let m = tls_error(c.send_message(hello()).await);
        assert!(m.contains("UnknownIssuer"), "{m}");
    });
}

#[test]
fn plaintext_and_tls_do_not_mix() {
    let ca = ca("tls test CA", &["127.0.0.1"]);
    let (tls_server, origin) = tls_demo(server_tls(&ca));
    let plain_addr = sure(concrete_addr(sure("127.0.0.1:0".parse(), "a literal address")), "a free port");
    let mut config = ServerConfig::new(a2a_wire_smol::demo::card(plain_addr));
    config.log = Arc::new(|_, _: &str| {});
    let agent = AgentKind::Future(Arc::new(a2a_wire_smol::demo::EchoAgent::default()));
    let _plain = sure(RunningServer::start(plain_addr, config, agent, a2a_wire::engine::MemoryStore::new()), "the server starts");
    smol::block_on(async {
        let quick = ClientOptions { deadline: Duration::from_secs(5), ..trusting(&ca) };
        // http:// to the TLS port: the server reads no TLS handshake and closes.
        let plain_to_tls = a2a_wire_smol::client::fetch_card_with(&origin.replace("https://", "http://"), &quick).await;
        assert!(matches!(plain_to_tls, Err(Error::Transport(_))), "{plain_to_tls:?}");
        // https:// to a plaintext port: no TLS server answers.
        tls_error(a2a_wire_smol::client::fetch_card_with(&format!("https://{plain_addr}"), &quick).await);
        // The TLS server still serves after both.
        sure(a2a_wire_smol::client::fetch_card_with(&origin, &quick).await, "the TLS server still serves");
    });
    drop(tls_server);
}

#[test]
fn a_reloaded_certificate_is_used_by_new_handshakes() {
    let (first, second) = (ca("first CA", &["127.0.0.1"]), ca("second CA", &["127.0.0.1"]));
    let tls = server_tls(&first);
    let (_server, origin) = tls_demo(tls.clone());
    smol::block_on(async {
        sure(a2a_wire_smol::client::fetch_card_with(&origin, &trusting(&first)).await, "the first certificate");
        // A bad pair changes nothing.
        let bad = tls.reload_pem(second.server_cert_pem.as_bytes(), first.server_key_pem.as_bytes());
        assert!(matches!(&bad, Err(Error::Tls(m)) if m.contains("does not belong")), "{bad:?}");
        sure(a2a_wire_smol::client::fetch_card_with(&origin, &trusting(&first)).await, "still the first certificate");
        sure(tls.reload_pem(second.server_cert_pem.as_bytes(), second.server_key_pem.as_bytes()), "the reload");
        sure(a2a_wire_smol::client::fetch_card_with(&origin, &trusting(&second)).await, "the second certificate");
        tls_error(a2a_wire_smol::client::fetch_card_with(&origin, &trusting(&first)).await);
    });
}

fn https_receiver(ca: &TestCa, client_ca: Option<&TestCa>) -> (String, a2a_wire_tests::testca::HttpsReceiver) {
    let r = sure(a2a_wire_tests::testca::HttpsReceiver::start(ca, client_ca), "the https receiver starts");
    (r.url.clone(), r)
}

fn delivery(url: &str) -> OutgoingRequest {
    OutgoingRequest {
        method: "POST",
        url: url.into(),
        headers: vec![("content-type".into(), "application/json".into())],
        body: b"{}".to_vec(),
    }
}

fn policy(tls: Option<ClientTls>) -> WebhookPolicy {
    WebhookPolicy {
        allow: vec![sure("127.0.0.1".parse(), "an allow-list entry")],
        tls,
        timeout: Duration::from_secs(5),
        ..WebhookPolicy::default()
    }
}

#[test]
fn webhooks_reach_an_https_receiver_they_can_verify() {
    let ca = ca("receiver CA", &["127.0.0.1"]);
    let (url, _receiver) = https_receiver(&ca, None);
    let trusted = sure(ClientTls::from_ca_pem(ca.ca_pem.as_bytes()), "the CA");
    smol::block_on(async {
        assert_eq!(deliver_once(&delivery(&url), &policy(Some(trusted))).await, Outcome::Delivered);
        let unverified = deliver_once(&delivery(&url), &policy(None)).await;
        assert!(matches!(&unverified, Outcome::Unreachable(m) if m.contains("TLS")), "{unverified:?}");
    });
}

#[test]
fn a_receiver_that_wants_a_client_certificate_gets_the_configured_one() {
    let ca = ca("receiver CA", &["127.0.0.1"]);
    let (url, _receiver) = https_receiver(&ca, Some(&ca));
    let trusted = sure(ClientTls::from_ca_pem(ca.ca_pem.as_bytes()), "the CA");
    let with_cert =
        sure(trusted.clone().with_client_cert_pem(ca.client_cert_pem.as_bytes(), ca.client_key_pem.as_bytes()), "the client cert");
    smol::block_on(async {
        assert_eq!(deliver_once(&delivery(&url), &policy(Some(with_cert))).await, Outcome::Delivered);
        let without = deliver_once(&delivery(&url), &policy(Some(trusted))).await;
        assert!(!matches!(without, Outcome::Delivered), "{without:?}");
    });
}
