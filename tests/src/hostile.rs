//! A server that attacks its clients: on 127.0.0.1 it answers every A2A request with one of
//! the framings a malicious server might send, chosen by the request path's first segment.
//! It serves an Agent Card too (every interface of it points at one scenario), so a client
//! that starts from the card — the `a2a-wire` command — meets the same attacks.
//!
//! | path                   | the answer                                                         |
//! |------------------------|--------------------------------------------------------------------|
//! | `/huge-chunk`          | chunked, chunk size `ffffffffffffffff`                             |
//! | `/overflow-chunk`      | chunked, a chunk size that does not fit 64 bits                    |
//! | `/negative-length`     | `Content-Length: -1`                                               |
//! | `/conflicting-length`  | two different `Content-Length`s                                     |
//! | `/lying-length`        | `Content-Length: 100000`, ten bytes, then the connection closes    |
//! | `/endless-head`        | header fields without end                                          |
//! | `/endless-body`        | no length, then 20 MB until close                                  |
//! | `/sse-3mb-line`        | an event stream whose first line is 3 MB long                     |
//! | `/deep-json`           | a result 100,000 arrays deep (unary and as a stream event)        |
//! | `/drip`                | a valid answer, one byte every 500 ms                              |
//!
//! And one that is not hostile but awkward: `/fragmented` answers correctly (a completed task,
//! or a stream of two events), chunked, written one byte at a time, so every chunk-size line,
//! every CRLF and every event is split across reads.
//!
//! Every loop is bounded: a writer stops at its size or when the client has gone.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

/// The scenarios, by path.
pub const SCENARIOS: [&str; 10] = [
    "huge-chunk",
    "overflow-chunk",
    "negative-length",
    "conflicting-length",
    "lying-length",
    "endless-head",
    "endless-body",
    "sse-3mb-line",
    "deep-json",
    "drip",
];

/// Starts the server on an ephemeral port; `card_scenario` is where the card's interfaces
/// point. The server lives as long as the process (its threads are detached).
pub fn start(card_scenario: &str) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("local address");
    let scenario = String::from(card_scenario);
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let scenario = scenario.clone();
            std::thread::spawn(move || {
                let _ = serve(conn, addr, &scenario);
            });
        }
    });
    addr
}

/// Reads one request: its path and whether it asks for a stream.
fn read_request(conn: &mut TcpStream) -> std::io::Result<(String, bool)> {
    conn.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut buf = Vec::new();
    let mut byte = [0u8; 4096];
    let head_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        if buf.len() > 64 * 1024 {
            return Err(std::io::Error::other("request head too long"));
        }
        let n = conn.read(&mut byte)?;
        if n == 0 {
            return Err(std::io::Error::other("closed"));
        }
        buf.extend_from_slice(&byte[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    let length: usize = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap_or(0)))
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < length.min(1 << 20) {
        let n = conn.read(&mut byte)?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&byte[..n]);
    }
    let body = String::from_utf8_lossy(&body);
    let streaming =
        head.to_ascii_lowercase().contains("text/event-stream") || body.contains("SendStreamingMessage") || path.contains(":stream");
    Ok((path, streaming))
}

fn card(addr: SocketAddr, scenario: &str) -> String {
    format!(
        r#"{{"name":"hostile","description":"attacks its clients","version":"1","supportedInterfaces":[{{"url":"http://{addr}/{scenario}/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}},{{"url":"http://{addr}/{scenario}/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}}],"capabilities":{{"streaming":true}},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}}"#
    )
}

/// Writes `total` bytes of `fill` in pieces; stops quietly when the client has gone.
fn write_many(conn: &mut TcpStream, fill: u8, total: usize) {
    let piece = vec![fill; 64 * 1024];
    let mut sent = 0;
    while sent < total {
        let n = piece.len().min(total - sent);
        if conn.write_all(&piece[..n]).is_err() {
            return;
        }
        sent += n;
    }
}

fn deep_json() -> String {
    let depth = 100_000;
    format!(r#"{{"jsonrpc":"2.0","id":1,"result":{}{}}}"#, "[".repeat(depth), "]".repeat(depth))
}

fn serve(mut conn: TcpStream, addr: SocketAddr, card_scenario: &str) -> std::io::Result<()> {
    conn.set_write_timeout(Some(Duration::from_secs(10)))?;
    loop {
        let (path, streaming) = read_request(&mut conn)?;
        if path.starts_with("/.well-known/agent-card.json") {
            let body = card(addr, card_scenario);
            write!(conn, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}", body.len())?;
            continue;
        }
        let scenario = path.trim_start_matches('/').split('/').next().unwrap_or("").to_string();
        let ctype = if streaming { "text/event-stream" } else { "application/json" };
        match scenario.as_str() {
            "huge-chunk" => {
                write!(conn, "HTTP/1.1 200 OK\r\ncontent-type: {ctype}\r\ntransfer-encoding: chunked\r\n\r\nffffffffffffffff\r\n")?;
                write!(conn, "data: {{}}\n\n")?;
            }
            "overflow-chunk" => {
                write!(conn, "HTTP/1.1 200 OK\r\ncontent-type: {ctype}\r\ntransfer-encoding: chunked\r\n\r\n1ffffffffffffffff\r\nabc")?;
            }
            "negative-length" => write!(conn, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: -1\r\n\r\n{{}}")?,
            "conflicting-length" => {
                write!(conn, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\ncontent-length: 5\r\n\r\n{{}}")?
            }
            "lying-length" => write!(conn, "HTTP/1.1 200 OK\r\ncontent-type: {ctype}\r\ncontent-length: 100000\r\n\r\n0123456789")?,
            "endless-head" => {
                write!(conn, "HTTP/1.1 200 OK\r\n")?;
                for i in 0..200_000 {
                    if write!(conn, "x-endless-{i}: {}\r\n", "a".repeat(40)).is_err() {
                        break;
                    }
                }
            }
            "endless-body" => {
                write!(conn, "HTTP/1.1 200 OK\r\ncontent-type: {ctype}\r\n\r\n")?;
                write_many(&mut conn, b'a', 20 << 20);
            }
            "sse-3mb-line" => {
                write!(conn, "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: ")?;
                write_many(&mut conn, b'a', 3 << 20);
                write!(conn, "\n\n")?;
            }
            "deep-json" => {
                let json = deep_json();
                if streaming {
                    let event = format!("data: {json}\n\n");
                    write!(conn, "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n{event}", event.len())?;
                } else {
                    write!(conn, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{json}", json.len())?;
                }
            }
            "fragmented" => {
                let events = [
                    r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}}"#,
                    r#"{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}}"#,
                ];
                let answer =
                    r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}}"#;
                let mut body = Vec::new();
                if streaming {
                    for e in events {
                        let event = format!("data: {e}\n\n");
                        body.extend_from_slice(format!("{:x}\r\n{event}\r\n", event.len()).as_bytes());
                    }
                } else {
                    body.extend_from_slice(format!("{:x}\r\n{answer}\r\n", answer.len()).as_bytes());
                }
                body.extend_from_slice(b"0\r\n\r\n");
                write!(conn, "HTTP/1.1 200 OK\r\ncontent-type: {ctype}\r\ntransfer-encoding: chunked\r\n\r\n")?;
                conn.flush()?;
                conn.set_nodelay(true)?;
                for b in body {
                    conn.write_all(&[b])?;
                    std::thread::sleep(Duration::from_micros(300));
                }
            }
            "drip" => {
                let body =
                    r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}}}"#;
                let answer = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}", body.len());
                for b in answer.bytes().take(120) {
                    if conn.write_all(&[b]).is_err() {
                        return Ok(());
                    }
                    std::thread::sleep(Duration::from_millis(500));
                }
            }
            _ => write!(conn, "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")?,
        }
        let _ = conn.flush();
        return Ok(());
    }
}
