//! The HTTP/1.1 framing table (`tests/vectors/http1/framing.json`, RFC 9112 and RFC 9110):
//! each case run as raw bytes on one socket against a live server ([`run_live`]), and the
//! sans-IO request reader's verdict on the same bytes ([`run_reader`]). The C, Python and
//! Node tests read the same file.

use a2a_wire::http1::{Event, Limits, RequestReader};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// One case of the table.
#[derive(Clone, Debug)]
pub struct Case {
    /// Its stable name.
    pub name: String,
    /// The rule it shows.
    pub rule: String,
    /// The RFC sections.
    pub rfc: String,
    /// `smuggling`, `control`, `expect`.
    pub tags: Vec<String>,
    /// The conversation.
    pub steps: Vec<Value>,
    /// The reader's verdict.
    pub reader: Value,
}

/// The table's file.
pub fn path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors/http1/framing.json")
}

/// Every case of the table, in order.
pub fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(path()).expect("the framing vectors");
    let doc: Value = serde_json::from_str(&text).expect("the framing vectors are JSON");
    doc["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| Case {
            name: c["name"].as_str().unwrap_or_default().to_owned(),
            rule: c["rule"].as_str().unwrap_or_default().to_owned(),
            rfc: c["rfc"].as_str().unwrap_or_default().to_owned(),
            tags: c["tags"].as_array().map(|t| t.iter().filter_map(Value::as_str).map(String::from).collect()).unwrap_or_default(),
            steps: c["steps"].as_array().cloned().unwrap_or_default(),
            reader: c["reader"].clone(),
        })
        .collect()
}

impl Case {
    /// The bytes the case sends, in order, with `{host}` and `{rpc}` filled in.
    pub fn sent(&self, host: &str, rpc: &str) -> Vec<Vec<u8>> {
        self.steps.iter().filter_map(|s| s["send"].as_str()).map(|t| t.replace("{host}", host).replace("{rpc}", rpc).into_bytes()).collect()
    }

    /// What the server must answer, for a table: the statuses in order, then whether the
    /// connection stays open.
    pub fn answers(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        for s in &self.steps {
            if let Some(n) = s["status"].as_u64() {
                out.push(n.to_string());
            } else if s["closed"].as_bool() == Some(true) {
                out.push(String::from("close"));
            } else if s["open"].as_bool() == Some(true) {
                out.push(String::from("keep open"));
            }
        }
        out.join(", ")
    }
}

/// The sans-IO reader's verdict on every byte the case sends, fed whole and one byte at a
/// time (the two must agree).
pub fn run_reader(case: &Case) -> Result<(), String> {
    let bytes: Vec<u8> = case.sent("h", "/rpc").concat();
    let whole = reader_verdict(&bytes, bytes.len());
    let bytewise = reader_verdict(&bytes, 1);
    if whole != bytewise {
        return Err(format!("{}: whole {whole:?} but byte by byte {bytewise:?}", case.name));
    }
    let (requests, heads, refused) = whole;
    let want = &case.reader;
    let ok = if let Some(n) = want["requests"].as_u64() {
        refused.is_none() && requests == n as usize && heads == requests
    } else if let Some(s) = want["refused"].as_u64() {
        refused == Some(s as u16)
    } else if let Some(n) = want["incomplete"].as_u64() {
        // The head, then the body never came: the end of the stream refuses it.
        heads == n as usize && requests + 1 == heads && refused == Some(400)
    } else {
        return Err(format!("{}: no reader verdict", case.name));
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{}: reader gave {requests} request(s), {heads} head(s), refused {refused:?}; expected {want}", case.name))
    }
}

/// (requests complete, heads, refusal status) for `bytes` fed `split` at a time.
fn reader_verdict(bytes: &[u8], split: usize) -> (usize, usize, Option<u16>) {
    let mut r = RequestReader::new(Limits::default());
    let (mut buf, mut fed) = (Vec::new(), 0);
    let (mut requests, mut heads) = (0, 0);
    loop {
        let (used, ev) = r.read(&buf);
        match ev {
            Event::Head(_) => heads += 1,
            Event::Data(_) => {}
            Event::End => requests += 1,
            Event::Refused(refusal) => return (requests, heads, Some(refusal.status)),
            Event::Closed => return (requests, heads, None),
            Event::NeedData => {
                buf.drain(..used);
                if fed == bytes.len() {
                    return match r.read_eof(&buf) {
                        Event::Refused(refusal) => (requests, heads, Some(refusal.status)),
                        Event::End => (requests + 1, heads, None),
                        _ => (requests, heads, None),
                    };
                }
                let n = split.min(bytes.len() - fed);
                buf.extend_from_slice(&bytes[fed..fed + n]);
                fed += n;
                continue;
            }
        }
        buf.drain(..used);
    }
}

/// One answer read off the socket.
struct Answer {
    status: u16,
    body: Vec<u8>,
}

/// Reads one answer (head and body, by its framing) from `s`, `buf` holding what was read
/// and not used yet.
fn read_answer(s: &mut TcpStream, buf: &mut Vec<u8>) -> Result<Answer, String> {
    let end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        fill(s, buf)?
            .then_some(())
            .ok_or_else(|| format!("the connection closed before an answer (got {:?})", String::from_utf8_lossy(buf)))?;
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    buf.drain(..end);
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status: u16 =
        status_line.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or_else(|| format!("bad status line {status_line:?}"))?;
    let field = |name: &str| {
        head.split("\r\n")
            .skip(1)
            .find_map(|l| l.split_once(':').filter(|(k, _)| k.trim().eq_ignore_ascii_case(name)).map(|(_, v)| v.trim().to_owned()))
    };
    if (100..200).contains(&status) {
        return Ok(Answer { status, body: Vec::new() });
    }
    let mut body = Vec::new();
    if field("transfer-encoding").is_some_and(|t| t.eq_ignore_ascii_case("chunked")) {
        let mut d = a2a_wire::http1::ChunkedDecoder::default();
        while !d.decode(buf, &mut body).map_err(|e| e.to_string())? {
            fill(s, buf)?.then_some(()).ok_or("the connection closed inside a chunked answer")?;
        }
    } else if let Some(n) = field("content-length").and_then(|v| v.parse::<usize>().ok()) {
        while buf.len() < n {
            fill(s, buf)?.then_some(()).ok_or("the connection closed inside an answer")?;
        }
        body = buf.drain(..n).collect();
    } else {
        while fill(s, buf)? {}
        body = std::mem::take(buf);
    }
    Ok(Answer { status, body })
}

/// Reads once more into `buf`; false at the end of the stream.
fn fill(s: &mut TcpStream, buf: &mut Vec<u8>) -> Result<bool, String> {
    let mut chunk = [0u8; 8192];
    match s.read(&mut chunk) {
        Ok(0) => Ok(false),
        Ok(n) => {
            buf.extend_from_slice(&chunk[..n]);
            Ok(true)
        }
        // A reset after the server's answer and close is a close.
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => Ok(false),
        Err(e) => Err(format!("reading: {e}")),
    }
}

/// Runs `case` on a new connection to `addr`, whose JSON-RPC v1.0 interface is at `rpc`.
pub fn run_live(addr: SocketAddr, rpc: &str, case: &Case) -> Result<(), String> {
    let fail = |m: String| format!("{} ({}): {m}", case.name, case.rule);
    let mut s = TcpStream::connect(addr).map_err(|e| fail(e.to_string()))?;
    s.set_read_timeout(Some(Duration::from_secs(5))).map_err(|e| fail(e.to_string()))?;
    let host = addr.to_string();
    let mut buf = Vec::new();
    for step in &case.steps {
        if let Some(text) = step["send"].as_str() {
            s.write_all(text.replace("{host}", &host).replace("{rpc}", rpc).as_bytes()).map_err(|e| fail(format!("sending: {e}")))?;
        } else if let Some(want) = step["status"].as_u64() {
            let a = read_answer(&mut s, &mut buf).map_err(fail)?;
            if u64::from(a.status) != want {
                return Err(fail(format!("answered {} ({}), expected {want}", a.status, String::from_utf8_lossy(&a.body))));
            }
            if let Some(sub) = step["body_contains"].as_str() {
                if !String::from_utf8_lossy(&a.body).contains(sub) {
                    return Err(fail(format!("the answer's body {:?} lacks {sub:?}", String::from_utf8_lossy(&a.body))));
                }
            }
        } else if step["closed"].as_bool() == Some(true) {
            while fill(&mut s, &mut buf).map_err(&fail)? {}
            if !buf.is_empty() {
                return Err(fail(format!("more came after the answer: {:?}", String::from_utf8_lossy(&buf))));
            }
            return Ok(());
        } else if step["open"].as_bool() == Some(true) {
            let card = format!("GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {host}\r\n\r\n");
            s.write_all(card.as_bytes()).map_err(|e| fail(format!("the connection did not stay open: {e}")))?;
            let a = read_answer(&mut s, &mut buf).map_err(|e| fail(format!("the connection did not stay open: {e}")))?;
            if a.status != 200 {
                return Err(fail(format!("a card request on the kept connection answered {}", a.status)));
            }
        }
    }
    Ok(())
}

/// The path of the JSON-RPC v1.0 interface the card at `addr` lists.
pub fn rpc_path(addr: SocketAddr) -> Result<String, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(5))).map_err(|e| e.to_string())?;
    s.write_all(format!("GET /.well-known/agent-card.json HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes())
        .map_err(|e| e.to_string())?;
    let a = read_answer(&mut s, &mut Vec::new())?;
    let card: Value = serde_json::from_slice(&a.body).map_err(|e| e.to_string())?;
    let url = card["supportedInterfaces"]
        .as_array()
        .and_then(|i| i.iter().find(|i| i["protocolBinding"] == "JSONRPC" && i["protocolVersion"] == "1.0"))
        .and_then(|i| i["url"].as_str())
        .ok_or("the card lists no JSON-RPC v1.0 interface")?;
    Ok(a2a_wire::server::url_path(url))
}
