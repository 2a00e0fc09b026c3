//! A plain HTTP webhook receiver on 127.0.0.1 for the push tests: each request is read
//! whole (head, then a `content-length` body) and handed to the test's judge, which says
//! the status to answer. One thread; one request per connection.

use std::io::{Read, Write};
use std::net::TcpListener;

/// One request as received.
#[derive(Clone, Debug)]
pub struct Received {
    /// Request line's method.
    pub method: String,
    /// Request target.
    pub target: String,
    /// Header fields, as sent.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: Vec<u8>,
}

impl Received {
    /// The request as the core's receiver reads it.
    pub fn with_request<T>(&self, f: impl FnOnce(&a2a_wire::http::HttpRequest<'_>) -> T) -> T {
        let headers: Vec<(&str, &str)> = self.headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        f(&a2a_wire::http::HttpRequest { method: &self.method, target: &self.target, headers: &headers, body: &self.body })
    }
}

/// The receiver; it runs until the process ends.
pub struct PlainReceiver {
    /// `http://127.0.0.1:PORT/hook`.
    pub url: String,
}

impl PlainReceiver {
    /// Starts one: `judge` sees each request and returns the status to answer.
    pub fn start(mut judge: impl FnMut(Received) -> u16 + Send + 'static) -> std::io::Result<PlainReceiver> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let url = format!("http://127.0.0.1:{}/hook", listener.local_addr()?.port());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { continue };
                let _ = conn.set_read_timeout(Some(std::time::Duration::from_secs(10)));
                let Some(req) = read_request(&mut conn) else { continue };
                let status = judge(req);
                let _ = write!(conn, "HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            }
        });
        Ok(PlainReceiver { url })
    }
}

fn read_request(conn: &mut impl Read) -> Option<Received> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 8192];
    let end = loop {
        if let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
            break end;
        }
        let n = conn.read(&mut buf).ok().filter(|n| *n > 0)?;
        seen.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&seen[..end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, target) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':')).map(|(n, v)| (n.trim().to_string(), v.trim().to_string())).collect();
    let len =
        headers.iter().find(|(n, _)| n.eq_ignore_ascii_case("content-length")).and_then(|(_, v)| v.parse::<usize>().ok()).unwrap_or(0);
    let mut body = seen[end + 4..].to_vec();
    while body.len() < len {
        let n = conn.read(&mut buf).ok().filter(|n| *n > 0)?;
        body.extend_from_slice(&buf[..n]);
    }
    body.truncate(len);
    Some(Received { method, target, headers, body })
}
