//! Our client against a server that breaks every rule of HTTP/1.1 framing it can
//! (`a2a_wire_tests::hostile`): every attack ends in a clean error, within its time limit,
//! and nothing buffers without bound.

use a2a_wire::card::{Binding, SelectedInterface};
use a2a_wire::v1;
use a2a_wire::version::ProtocolVersion;
use a2a_wire_smol::{Client, ClientOptions, Error};
use a2a_wire_tests::hostile;
use std::time::{Duration, Instant};

fn client(addr: std::net::SocketAddr, scenario: &str, binding: Binding) -> Client {
    let path = if binding == Binding::JsonRpc { "rpc" } else { "rest" };
    let iface = SelectedInterface {
        url: format!("http://{addr}/{scenario}/{path}"),
        binding,
        version: ProtocolVersion::V1_0,
        tenant: String::new(),
        index: 0,
    };
    let options =
        ClientOptions { deadline: Duration::from_secs(10), stream_idle_timeout: Duration::from_secs(10), ..ClientOptions::default() };
    Client::new(iface).with_options(options)
}

fn message() -> v1::SendMessageRequest {
    v1::SendMessageRequest {
        message: Some(v1::Message {
            message_id: "m".into(),
            role: v1::Role::User as i32,
            parts: vec![a2a_wire_smol::agent::text_part("hi")],
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A clean error: the transport or the protocol named what went wrong.
fn assert_clean(what: &str, e: &Error) {
    match e {
        Error::Transport(m) => assert!(!m.is_empty(), "{what}"),
        Error::A2a(a2a_wire::client::ClientError::Protocol(m)) => assert!(!m.is_empty(), "{what}"),
        other => panic!("{what}: not a transport or protocol error: {other}"),
    }
}

#[test]
fn every_hostile_framing_ends_in_a_clean_error() {
    let addr = hostile::start("huge-chunk");
    smol::block_on(async {
        for scenario in hostile::SCENARIOS.iter().filter(|s| **s != "drip") {
            for binding in [Binding::JsonRpc, Binding::HttpJson] {
                let what = format!("{scenario} {binding:?}");
                let started = Instant::now();
                let e = client(addr, scenario, binding.clone()).send_message(message()).await.unwrap_err();
                assert_clean(&format!("{what} unary"), &e);
                let r = client(addr, scenario, binding.clone()).send_streaming_message(message()).await;
                let e = match r {
                    Err(e) => e,
                    Ok(mut stream) => {
                        let mut last = None;
                        for _ in 0..100 {
                            match stream.next().await {
                                Some(Ok(_)) => continue,
                                Some(Err(e)) => {
                                    last = Some(e);
                                    break;
                                }
                                None => break,
                            }
                        }
                        last.unwrap_or_else(|| panic!("{what}: the stream ended without an error"))
                    }
                };
                assert_clean(&format!("{what} stream"), &e);
                assert!(started.elapsed() < Duration::from_secs(10), "{what}: {:?}", started.elapsed());
            }
        }
    });
}

#[test]
fn a_dripping_server_times_out_at_the_configured_deadline() {
    let addr = hostile::start("drip");
    smol::block_on(async {
        let options = ClientOptions { deadline: Duration::from_secs(2), ..ClientOptions::default() };
        let started = Instant::now();
        let e = client(addr, "drip", Binding::JsonRpc).with_options(options).send_message(message()).await.unwrap_err();
        let took = started.elapsed();
        assert!(matches!(e, Error::Timeout { after, .. } if after == Duration::from_secs(2)), "{e}");
        assert!(took >= Duration::from_secs(2) && took < Duration::from_secs(4), "timed out after {took:?}");
    });
}

#[test]
fn an_answer_split_at_every_byte_of_its_framing_is_read_whole() {
    // Every chunk-size line, CRLF and event arrives in pieces: the client must wait for the
    // rest, never spin on the bytes it already has.
    let addr = hostile::start("fragmented");
    // On its own thread: a client that spins on bytes it already has never yields, so only
    // another thread can notice (the test then fails instead of hanging).
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        smol::block_on(read_fragmented(addr));
        let _ = done.send(());
    });
    finished.recv_timeout(Duration::from_secs(20)).expect("the client read the fragmented answers within 20 s");
}

async fn read_fragmented(addr: std::net::SocketAddr) {
    {
        let reply = client(addr, "fragmented", Binding::JsonRpc).send_message(message()).await.unwrap();
        let a2a_wire::client::Reply::Task(t) = reply else { panic!("a task") };
        assert_eq!(t.state(), Some(v1::TaskState::Completed));
        let mut stream = client(addr, "fragmented", Binding::JsonRpc).send_streaming_message(message()).await.unwrap();
        let mut n = 0;
        while let Some(ev) = stream.next().await {
            ev.unwrap();
            n += 1;
        }
        assert_eq!((n, stream.task().state()), (2, Some(v1::TaskState::Completed)));
    }
}
