//! HTTP/1.1 framing as a new user meets it: raw requests to `a2a-wire serve --store memory`,
//! one row per rule of RFC 9112 (request smuggling, Transfer-Encoding, Content-Length, Host,
//! Connection, `Expect: 100-continue`) with controls that must keep working, from
//! `tests/vectors/http1/framing.json`; and `Expect: 100-continue` where the credentials
//! decide.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

mod common;
use common::Served;

fn serve(extra: &[&str]) -> (Served, SocketAddr) {
    let addr = common::free_addr();
    let mut args: Vec<&std::ffi::OsStr> = vec!["--store".as_ref(), "memory".as_ref()];
    args.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
    (common::serve_args(addr, &args), addr)
}

#[test]
fn every_framing_rule_holds_against_a2a_wire_serve() {
    let (_server, addr) = serve(&[]);
    let rpc = a2a_wire_tests::framing::rpc_path(addr).unwrap();
    let cases = a2a_wire_tests::framing::cases();
    assert!(cases.len() >= 40, "the table has {} cases", cases.len());
    let failures: Vec<String> = cases.iter().filter_map(|c| a2a_wire_tests::framing::run_live(addr, &rpc, c).err()).collect();
    assert!(failures.is_empty(), "{} of {} framing cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
    // The server still serves after every refusal.
    let last = cases.iter().find(|c| c.name == "content-length-body").unwrap();
    a2a_wire_tests::framing::run_live(addr, &rpc, last).unwrap();
}

/// Reads from `s` until `want` is among the bytes, or the stream ends; the bytes read (and
/// a read error, if one ended it).
fn read_until(s: &mut TcpStream, want: &str) -> String {
    let mut got = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains(want) {
        match s.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&chunk[..n]),
            Err(e) => {
                got.extend_from_slice(format!("[read error: {e}]").as_bytes());
                break;
            }
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

#[test]
fn expect_100_continue_hears_the_credentials_verdict_before_the_body() {
    let dir = std::env::temp_dir().join(format!("a2a-wire-framing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tokens = dir.join("tokens.txt");
    std::fs::write(&tokens, "alice-token alice\n").unwrap();
    let (_server, addr) = serve(&["--bearer-tokens", tokens.to_str().unwrap()]);
    let body = r#"{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hello"}]}}"#;
    let head = |auth: &str| {
        format!(
            "POST /a2a/rest/message:send HTTP/1.1\r\nHost: {addr}\r\nA2A-Version: 1.0\r\nContent-Type: application/a2a+json\r\n\
             {auth}Content-Length: {}\r\nExpect: 100-continue\r\n\r\n",
            body.len()
        )
    };
    // No token: 401 at once, the body never sent, the connection closed.
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(head("").as_bytes()).unwrap();
    // Read until the server closes: one answer, whose body names the A2A error.
    let answer = read_until(&mut s, "until the end of the stream");
    assert!(answer.starts_with("HTTP/1.1 401 "), "{answer}");
    assert!(!answer.contains(" 100 "), "{answer}");
    assert!(answer.contains("UNAUTHENTICATED") && answer.matches("HTTP/1.1 ").count() == 1, "{answer}");
    assert!(!answer.contains("[read error"), "the server closes cleanly: {answer}");
    // A wrong token: the same.
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(head("Authorization: Bearer nobody\r\n").as_bytes()).unwrap();
    assert!(read_until(&mut s, "\r\n\r\n").starts_with("HTTP/1.1 401 "));
    // The right token: 100 Continue, then the body, then the task.
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(head("Authorization: Bearer alice-token\r\n").as_bytes()).unwrap();
    assert_eq!(read_until(&mut s, "\r\n\r\n"), "HTTP/1.1 100 Continue\r\n\r\n");
    s.write_all(body.as_bytes()).unwrap();
    let answer = read_until(&mut s, "TASK_STATE_");
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    // JSON-RPC names its method in the body: its credentials are judged after it.
    let get = r#"{"jsonrpc":"2.0","id":7,"method":"GetTask","params":{"id":"t"}}"#;
    let rpc = format!(
        "POST /a2a/jsonrpc HTTP/1.1\r\nHost: {addr}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Expect: 100-continue\r\n\r\n",
        get.len()
    );
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(rpc.as_bytes()).unwrap();
    assert_eq!(read_until(&mut s, "\r\n\r\n"), "HTTP/1.1 100 Continue\r\n\r\n");
    s.write_all(get.as_bytes()).unwrap();
    let answer = read_until(&mut s, "-31401");
    assert!(answer.starts_with("HTTP/1.1 "), "{answer}");
    assert!(answer.contains(r#""id":7"#) && answer.contains("-31401"), "Unauthenticated, for the call's id, after the body: {answer}");
}
