//! One webhook delivery attempt over HTTP/1.1: the request is the core's
//! ([`a2a_wire::webhook::request`]) and so are the queues, the order and the retry schedule
//! ([`a2a_wire::webhook::Deliveries`], driven by the service); this module resolves the host,
//! keeps only the addresses the SSRF guard accepts ([`a2a_wire::webhook::is_non_public`]),
//! connects to one of those (never resolving again, so a rebinding DNS answer cannot slip a
//! private address in), posts, reads the status, and reports an [`Outcome`].

use crate::http1::{self, Buffer, Limits};
use crate::url::parse_url;
use a2a_wire::http::OutgoingRequest;
use a2a_wire::webhook::{is_non_public, Outcome};
use smol::net::TcpStream;
use std::net::SocketAddr;
use std::time::Duration;

/// How webhooks are delivered.
#[derive(Clone, Debug)]
pub struct WebhookPolicy {
    /// Allow loopback, private, link-local and other non-public addresses (tests and
    /// single-host setups). Off by default: the SSRF guard refuses them.
    pub allow_private: bool,
    /// Time allowed for one attempt (resolve, connect, send, answer).
    pub timeout: Duration,
    /// Attempts per delivery (at least one).
    pub attempts: u32,
    /// Wait before the second attempt; doubled after each failure.
    pub backoff: Duration,
}

impl Default for WebhookPolicy {
    fn default() -> Self {
        WebhookPolicy { allow_private: false, timeout: Duration::from_secs(10), attempts: 4, backoff: Duration::from_millis(500) }
    }
}

impl WebhookPolicy {
    /// The retry schedule, as the core's service runs it.
    pub fn schedule(&self) -> a2a_wire::webhook::Policy {
        a2a_wire::webhook::Policy {
            attempts: self.attempts.max(1),
            backoff_ms: u64::try_from(self.backoff.as_millis()).unwrap_or(u64::MAX),
            ..a2a_wire::webhook::Policy::default()
        }
    }
}

/// One attempt: resolve, check every address, connect to a checked one, post, read the
/// status. The address connected to is the one checked (no second lookup to rebind).
pub async fn deliver_once(req: &OutgoingRequest, policy: &WebhookPolicy) -> Outcome {
    let url = match parse_url(&req.url) {
        Ok(u) => u,
        Err(e) => return Outcome::Refused(e.to_string()),
    };
    let attempt = async {
        let addrs: Vec<SocketAddr> = match smol::net::resolve(url.authority.as_str()).await {
            Ok(a) => a,
            Err(e) => return Outcome::Unreachable(format!("resolving {}: {e}", url.authority)),
        };
        let allowed: Vec<SocketAddr> = addrs.iter().copied().filter(|a| policy.allow_private || !is_non_public(a.ip())).collect();
        let Some(addr) = allowed.first() else {
            return Outcome::Refused(format!("the SSRF guard refuses {}: it resolves to {addrs:?}", url.authority));
        };
        let mut stream = match TcpStream::connect(*addr).await {
            Ok(s) => s,
            Err(e) => return Outcome::Unreachable(e.to_string()),
        };
        let mut headers = req.headers.clone();
        headers.push((String::from("connection"), String::from("close")));
        if let Err(e) = http1::write_request(&mut stream, req.method, &url.target, &url.host, &headers, &req.body).await {
            return Outcome::Unreachable(e.to_string());
        }
        let limits = Limits { max_body: 64 * 1024, ..Limits::default() };
        let mut buf = Buffer::new();
        match buf.read_response_head(&mut stream, &limits).await {
            Ok(head) if (200..300).contains(&head.status) => Outcome::Delivered,
            Ok(head) => Outcome::Status(head.status),
            Err(e) => Outcome::Unreachable(format!("{e:?}")),
        }
    };
    crate::io::timeout(policy.timeout, attempt)
        .await
        .unwrap_or_else(|_| Outcome::Unreachable(format!("no answer within {:?}", policy.timeout)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deliveries_to_loopback_are_refused_unless_allowed() {
        let req = OutgoingRequest { method: "POST", url: String::from("http://127.0.0.1:9/hook"), headers: Vec::new(), body: Vec::new() };
        let r = smol::block_on(deliver_once(&req, &WebhookPolicy::default()));
        assert!(matches!(r, Outcome::Refused(_)), "{r:?}");
        let allowed = WebhookPolicy { allow_private: true, ..WebhookPolicy::default() };
        let r = smol::block_on(deliver_once(&req, &allowed));
        assert!(matches!(r, Outcome::Unreachable(_)), "allowed, and nothing listens on port 9: {r:?}");
        let https = OutgoingRequest { url: String::from("https://hooks.example/x"), ..req.clone() };
        assert!(matches!(smol::block_on(deliver_once(&https, &WebhookPolicy::default())), Outcome::Refused(_)));
    }
}
