//! The floor for the server benchmarks: the cheapest HTTP/1.1 server we can write on the same
//! runtime (smol, one executor thread, httparse), with no A2A in it.
//!
//! ```text
//! floor-server --addr 127.0.0.1:PORT --body FILE
//! ```
//!
//! - any `POST`: reads the body (`Content-Length`) and answers `200` with the bytes of FILE
//!   (a real SendMessage answer of our server, so the answer has the same size), keep-alive;
//! - `GET /sse?n=N&size=S`: a chunked `text/event-stream` of `N` events of `S` bytes of data,
//!   each written and flushed on its own (what a server does per event).

use smol::io::{AsyncReadExt, AsyncWriteExt};
use smol::net::{TcpListener, TcpStream};
use std::sync::Arc;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |n: &str| args.iter().position(|a| a == n).and_then(|i| args.get(i + 1)).cloned();
    let (Some(addr), Some(body)) = (arg("--addr"), arg("--body")) else {
        eprintln!("usage: floor-server --addr HOST:PORT --body FILE");
        std::process::exit(2);
    };
    let body = Arc::new(std::fs::read(&body).unwrap_or_else(|e| {
        eprintln!("floor-server: {body}: {e}");
        std::process::exit(2)
    }));
    smol::block_on(async {
        let listener = TcpListener::bind(addr.as_str()).await.expect("floor-server: bind");
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let body = body.clone();
            smol::spawn(async move {
                let _ = serve(stream, &body).await;
            })
            .detach();
        }
    });
}

async fn serve(mut s: TcpStream, body: &[u8]) -> std::io::Result<()> {
    let _ = s.set_nodelay(true);
    let mut buf = Vec::with_capacity(8192);
    let mut chunk = [0u8; 8192];
    let head = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n", body.len());
    let mut answer = head.into_bytes();
    answer.extend_from_slice(body);
    loop {
        // One request: head, then Content-Length bytes.
        let (head_len, content_length, target, is_get) = loop {
            let mut headers = [httparse::EMPTY_HEADER; 32];
            let mut req = httparse::Request::new(&mut headers);
            if let Ok(httparse::Status::Complete(n)) = req.parse(&buf) {
                let cl = req
                    .headers
                    .iter()
                    .find(|h| h.name.eq_ignore_ascii_case("content-length"))
                    .and_then(|h| std::str::from_utf8(h.value).ok()?.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                break (n, cl, req.path.unwrap_or("/").to_string(), req.method == Some("GET"));
            }
            let n = s.read(&mut chunk).await?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&chunk[..n]);
        };
        while buf.len() < head_len + content_length {
            let n = s.read(&mut chunk).await?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        buf.drain(..head_len + content_length);
        if is_get && target.starts_with("/sse") {
            return sse(&mut s, &target).await;
        }
        s.write_all(&answer).await?;
    }
}

async fn sse(s: &mut TcpStream, target: &str) -> std::io::Result<()> {
    let q = |k: &str| {
        target
            .split_once('?')
            .and_then(|(_, q)| q.split('&').find_map(|kv| kv.strip_prefix(k).and_then(|v| v.strip_prefix('='))?.parse::<usize>().ok()))
    };
    let n = q("n").unwrap_or(1000).min(10_000_000);
    let size = q("size").unwrap_or(200).clamp(1, 1 << 20);
    s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n").await?;
    let mut event = b"data: ".to_vec();
    event.extend(std::iter::repeat_n(b'x', size));
    event.extend_from_slice(b"\n\n");
    let mut framed = format!("{:x}\r\n", event.len()).into_bytes();
    framed.extend_from_slice(&event);
    framed.extend_from_slice(b"\r\n");
    for _ in 0..n {
        s.write_all(&framed).await?;
        s.flush().await?;
    }
    s.write_all(b"0\r\n\r\n").await?;
    s.flush().await
}
