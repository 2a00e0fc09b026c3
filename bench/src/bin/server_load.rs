//! Load generator for the server benchmarks that `wrk` cannot do (driven by
//! `bench/server/run.py`; prints one JSON line per measurement). It speaks raw HTTP/1.1 and
//! counts SSE events without decoding them, so what is measured is the server.
//!
//! ```text
//! server-load sse-one  --addr HOST:PORT --path /a2a/jsonrpc --n N      # one stream of N events (demo agent `ticks N 0`)
//! server-load sse-fan  --addr HOST:PORT --path /a2a/jsonrpc --n N --subs S   # S subscribers to one task of N events (timed from the first event after the snapshot)
//! server-load floor-sse --addr HOST:PORT --n N --size B [--subs S]     # the same against floor-server's /sse
//! server-load mem      --addr HOST:PORT --path /a2a/jsonrpc --pid PID --conns C --tasks T
//! ```

use a2a_wire_smol::http1::ChunkedDecoder;
use smol::io::{AsyncReadExt, AsyncWriteExt};
use smol::net::TcpStream;
use std::time::{Duration, Instant};

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned()
}

fn num(args: &[String], name: &str, default: u64) -> u64 {
    arg(args, name).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn request(addr: &str, method: &str, path: &str, body: &str) -> Vec<u8> {
    format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\na2a-version: 1.0\r\naccept: text/event-stream, application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn message(text: &str, id: &str, immediate: bool) -> String {
    let cfg = if immediate { r#","configuration":{"returnImmediately":true}"# } else { "" };
    format!(r#"{{"message":{{"messageId":"{id}","role":"ROLE_USER","parts":[{{"text":"{text}"}}]}}{cfg}}}"#)
}

fn rpc(method: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}"#)
}

/// Reads a response head; returns (status, chunked, bytes after the head).
async fn read_head(s: &mut TcpStream) -> std::io::Result<(u16, bool, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16384];
    loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..p]).to_ascii_lowercase();
            let status = head.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0);
            return Ok((status, head.contains("transfer-encoding: chunked"), buf[p + 4..].to_vec()));
        }
        let n = s.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "closed before a head"));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Counts the SSE events of a chunked stream to its end: (events, data bytes, time of the
/// first event).
/// Reads a chunked SSE body to its end: the events after the first `skip` (a subscription's
/// task snapshot, sent long before the events measured), their bytes, and when the first of
/// them arrived.
async fn count_events(s: &mut TcpStream, mut pending: Vec<u8>, mut skip: u64) -> std::io::Result<(u64, u64, Option<Instant>)> {
    let mut dec = ChunkedDecoder::default();
    let mut data = Vec::new();
    let (mut events, mut bytes, mut first) = (0u64, 0u64, None);
    let mut chunk = vec![0u8; 65536];
    let mut tail = 0u8;
    loop {
        data.clear();
        let done = dec.decode(&mut pending, &mut data).map_err(|e| std::io::Error::other(format!("{e:?}")))?;
        if skip == 0 {
            bytes += data.len() as u64;
        }
        for &b in &data {
            if b == b'\n' && tail == b'\n' {
                if skip > 0 {
                    skip -= 1;
                } else {
                    events += 1;
                    first.get_or_insert_with(Instant::now);
                }
            }
            tail = b;
        }
        if done {
            return Ok((events, bytes, first));
        }
        let n = s.read(&mut chunk).await?;
        if n == 0 {
            return Ok((events, bytes, first));
        }
        pending.extend_from_slice(&chunk[..n]);
    }
}

async fn open_stream(addr: &str, req: &[u8]) -> std::io::Result<(TcpStream, Vec<u8>)> {
    let mut s = TcpStream::connect(addr).await?;
    let _ = s.set_nodelay(true);
    s.write_all(req).await?;
    let (status, chunked, rest) = read_head(&mut s).await?;
    if status != 200 || !chunked {
        return Err(std::io::Error::other(format!("not a stream: status {status}")));
    }
    Ok((s, rest))
}

/// A unary JSON-RPC call on a fresh connection; the body of the answer.
async fn unary(addr: &str, path: &str, body: &str) -> std::io::Result<String> {
    let mut s = TcpStream::connect(addr).await?;
    s.write_all(&request(addr, "POST", path, body)).await?;
    let (_, _, mut rest) = read_head(&mut s).await?;
    let mut chunk = [0u8; 16384];
    // Our answers carry Content-Length; read until the JSON closes.
    while serde_json::from_slice::<serde_json::Value>(&rest).is_err() {
        let n = s.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        rest.extend_from_slice(&chunk[..n]);
    }
    Ok(String::from_utf8_lossy(&rest).into_owned())
}

fn rss_kib(pid: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()))
        .unwrap_or(0)
}

async fn fan(addr: &str, subs: u64, skip: u64, make: impl Fn() -> Vec<u8>) -> std::io::Result<(u64, u64, f64)> {
    let mut streams = Vec::new();
    for _ in 0..subs {
        streams.push(open_stream(addr, &make()).await?);
    }
    let started = Instant::now();
    let tasks: Vec<_> =
        streams.into_iter().map(|(mut s, rest)| smol::spawn(async move { count_events(&mut s, rest, skip).await })).collect();
    let (mut events, mut bytes, mut first) = (0, 0, None::<Instant>);
    for t in tasks {
        let (e, b, f) = t.await?;
        events += e;
        bytes += b;
        if let Some(f) = f {
            first = Some(first.map_or(f, |x| x.min(f)));
        }
    }
    let secs = first.unwrap_or(started).elapsed().as_secs_f64().max(1e-9);
    Ok((events, bytes, secs))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).cloned().unwrap_or_default();
    let addr = arg(&args, "--addr").unwrap_or_else(|| String::from("127.0.0.1:7420"));
    let path = arg(&args, "--path").unwrap_or_else(|| String::from("/a2a/jsonrpc"));
    let n = num(&args, "--n", 100_000);
    let subs = num(&args, "--subs", 1);
    let out = smol::block_on(async {
        match mode.as_str() {
            "sse-one" => {
                let body =
                    rpc("SendStreamingMessage", &message(&format!("ticks {n} 0"), &format!("sse-one-{}", std::process::id()), false));
                let (mut s, rest) = open_stream(&addr, &request(&addr, "POST", &path, &body)).await?;
                let (events, bytes, first) = count_events(&mut s, rest, 0).await?;
                let secs = first.map_or(1e-9, |f| f.elapsed().as_secs_f64());
                Ok(
                    serde_json::json!({"mode": mode, "events": events, "bytes_per_event": bytes / events.max(1), "secs": secs, "events_per_s": events as f64 / secs}),
                )
            }
            "sse-fan" => {
                // A task that waits 3 s, then emits N events as fast as it can; S subscribers.
                let wait = 3000 + subs * 3;
                let send = rpc("SendMessage", &message(&format!("ticks {n} 0 {wait}"), &format!("fan-{}", std::process::id()), true));
                let answer: serde_json::Value = serde_json::from_str(&unary(&addr, &path, &send).await?).map_err(std::io::Error::other)?;
                let id =
                    answer["result"]["task"]["id"].as_str().ok_or_else(|| std::io::Error::other(format!("no task: {answer}")))?.to_string();
                let sub = rpc("SubscribeToTask", &format!(r#"{{"id":"{id}"}}"#));
                let t0 = Instant::now();
                let (events, bytes, secs) = fan(&addr, subs, 1, || request(&addr, "POST", &path, &sub)).await?;
                let subscribed_in = t0.elapsed().as_secs_f64() - secs;
                Ok(serde_json::json!({"mode": mode, "subscribers": subs, "events": events, "bytes_per_event": bytes / events.max(1),
                    "secs": secs, "events_per_s": events as f64 / secs, "subscribe_secs": subscribed_in}))
            }
            "floor-sse" => {
                let size = num(&args, "--size", 200);
                let req = format!("GET /sse?n={n}&size={size} HTTP/1.1\r\nhost: {addr}\r\n\r\n").into_bytes();
                let (events, bytes, secs) = fan(&addr, subs, 0, || req.clone()).await?;
                Ok(
                    serde_json::json!({"mode": mode, "subscribers": subs, "events": events, "bytes_per_event": bytes / events.max(1), "secs": secs, "events_per_s": events as f64 / secs}),
                )
            }
            "mem" => {
                let pid = arg(&args, "--pid").unwrap_or_default();
                let conns = num(&args, "--conns", 1000);
                let tasks = num(&args, "--tasks", 10_000);
                smol::Timer::after(Duration::from_millis(300)).await;
                let base = rss_kib(&pid);
                let mut idle = Vec::new();
                for _ in 0..conns {
                    idle.push(TcpStream::connect(addr.as_str()).await?);
                }
                // One request on each, so every connection is accepted and its buffers exist.
                for s in &mut idle {
                    s.write_all(format!("GET /.well-known/agent-card.json HTTP/1.1\r\nhost: {addr}\r\n\r\n").as_bytes()).await?;
                }
                for s in &mut idle {
                    read_head(s).await?;
                }
                smol::Timer::after(Duration::from_millis(500)).await;
                let with_conns = rss_kib(&pid);
                drop(idle);
                smol::Timer::after(Duration::from_millis(500)).await;
                let before_tasks = rss_kib(&pid);
                let mut s = TcpStream::connect(addr.as_str()).await?;
                let mut chunk = vec![0u8; 65536];
                for i in 0..tasks {
                    let body = rpc("SendMessage", &message(&format!("hello {i}"), &format!("mem-{}-{i}", std::process::id()), false));
                    s.write_all(&request(&addr, "POST", &path, &body)).await?;
                    let (_, _, mut rest) = read_head(&mut s).await?;
                    while !rest.ends_with(b"}") || serde_json::from_slice::<serde_json::Value>(&rest).is_err() {
                        let k = s.read(&mut chunk).await?;
                        if k == 0 {
                            break;
                        }
                        rest.extend_from_slice(&chunk[..k]);
                    }
                }
                smol::Timer::after(Duration::from_millis(500)).await;
                let after_tasks = rss_kib(&pid);
                Ok(serde_json::json!({"mode": mode, "connections": conns, "tasks": tasks,
                    "rss_base_kib": base, "bytes_per_idle_connection": (with_conns.saturating_sub(base)) * 1024 / conns.max(1),
                    "bytes_per_task": (after_tasks.saturating_sub(before_tasks)) * 1024 / tasks.max(1)}))
            }
            _ => Err(std::io::Error::other("usage: server-load sse-one|sse-fan|floor-sse|mem --addr HOST:PORT ...")),
        }
    });
    match out {
        Ok(v) => println!("{v}"),
        Err(e) => {
            eprintln!("server-load: {e}");
            std::process::exit(1);
        }
    }
}
