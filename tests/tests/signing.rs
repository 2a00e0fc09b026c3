//! Signed Agent Cards over real sockets on 127.0.0.1: a server that signs its card, clients
//! that check it against their key set, refuse a card signed by another key, and (when they
//! require a signature) refuse an unsigned card.

use a2a_wire::card::ClientSupport;
use a2a_wire_smol::host::AgentKind;
use a2a_wire_smol::server::{concrete_addr, RunningServer};
use a2a_wire_smol::signing::{CardKeySet, SigningKey};
use a2a_wire_smol::{Client, ClientOptions, Error, ServerConfig};
use std::sync::Arc;

/// The test's own setup cannot fail: `what` says why.
fn sure<T, E: std::fmt::Debug>(r: Result<T, E>, what: &str) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{what}: {e:?}"),
    }
}

// RFC 8037 appendix A.1's Ed25519 key, and a P-256 key made for these tests.
const ED: &str = r#"{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"ed"}"#;
const EC: &str = r#"{"kty":"EC","crv":"P-256","x":"ZN9Zn66EGLiHDvZ3dmPGJINDMCpZXvBnWoQsSLw5G0s","y":"VON8Xibfnq4ATbojtj8EarQk6oVSgpIIsv3PpZwoxYQ","d":"8sP4ik2dsHAPsIvt-PgY4fI4pUu7GW9uB9_4ThAewqY","kid":"ec"}"#;

fn demo(key: Option<&SigningKey>) -> (RunningServer, String) {
    let addr = sure(concrete_addr(sure("127.0.0.1:0".parse(), "a literal address")), "a free port");
    let mut config = ServerConfig::new(a2a_wire_smol::demo::card(addr));
    config.log = Arc::new(|_, _: &str| {});
    if let Some(k) = key {
        sure(config.sign_cards(k, Some("https://keys.example/jwks.json")), "the card signs");
    }
    let agent = AgentKind::Future(Arc::new(a2a_wire_smol::demo::EchoAgent::default()));
    let server = sure(RunningServer::start(addr, config, agent, a2a_wire::engine::MemoryStore::new()), "the server starts");
    (server, format!("http://{addr}"))
}

fn trusting(keys: Option<CardKeySet>, require: bool) -> ClientOptions {
    ClientOptions { card_keys: keys.map(Arc::new), require_signed_card: require, ..ClientOptions::default() }
}

#[test]
fn a_signed_card_is_checked_on_connect_and_a_wrong_or_missing_signature_is_refused() {
    smol::block_on(async {
        let ed = sure(SigningKey::from_jwk(ED), "the Ed25519 key loads");
        let ec = sure(SigningKey::from_jwk(EC), "the P-256 key loads");
        let (_signed, url) = demo(Some(&ed));
        let (_unsigned, plain) = demo(None);
        // The right key: the card verifies, and the client works.
        let (view, verified) = sure(
            a2a_wire_smol::client::fetch_card_checked(&url, &trusting(Some(CardKeySet::default().with_key(&ed)), true)).await,
            "the signed card verifies",
        );
        let v = verified.expect("a signature verified");
        assert_eq!((v.kid.as_str(), v.alg.as_str(), v.jku.as_deref()), ("ed", "EdDSA", Some("https://keys.example/jwks.json")));
        assert_eq!(view.card.signatures.len(), 1);
        let (client, _) = sure(
            Client::connect_with(&url, &ClientSupport::default(), trusting(Some(CardKeySet::default().with_key(&ed)), true)).await,
            "connects",
        );
        sure(
            client.get_task(a2a_wire::v1::GetTaskRequest { id: "none".into(), ..Default::default() }).await.err().ok_or("an error"),
            "answers",
        );
        // Another key only: refused, whether required or not.
        for require in [false, true] {
            let r =
                Client::connect_with(&url, &ClientSupport::default(), trusting(Some(CardKeySet::default().with_key(&ec)), require)).await;
            assert!(matches!(&r, Err(Error::Signature(m)) if m.contains("no trusted key has kid ed")), "{:?}", r.err());
        }
        // An unsigned card: accepted with keys unless a signature is required.
        let keys = || Some(CardKeySet::default().with_key(&ed));
        assert!(Client::connect_with(&plain, &ClientSupport::default(), trusting(keys(), false)).await.is_ok());
        let r = Client::connect_with(&plain, &ClientSupport::default(), trusting(keys(), true)).await;
        assert!(matches!(&r, Err(Error::Signature(m)) if m.contains("not signed")), "{:?}", r.err());
        let r = Client::connect_with(&plain, &ClientSupport::default(), trusting(None, true)).await;
        assert!(matches!(&r, Err(Error::Signature(m)) if m.contains("no card keys")), "{:?}", r.err());
    });
}
