//! Push-notification delivery: the request is the core's
//! ([`a2a_wire::binding::webhook_request`]); this module resolves the host, refuses
//! addresses an agent must not be made to call (SSRF guard, spec §13.2), posts, and retries
//! with exponential backoff. Deliveries to one webhook of one task go out in order.

use crate::client::parse_url;
use crate::http1::{self, Buffer, Limits};
use a2a_wire::http::OutgoingRequest;
use smol::net::TcpStream;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

/// How webhooks are delivered.
#[derive(Clone, Debug)]
pub struct WebhookPolicy {
    /// Allow loopback, private, link-local and other non-public addresses (tests and
    /// single-host setups). Off by default: the SSRF guard refuses them.
    pub allow_private: bool,
    /// Time allowed for one attempt (connect, send, answer).
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

/// True for addresses a webhook must not reach unless allowed: loopback, private (RFC 1918,
/// IPv6 ULA), link-local, CGNAT, unspecified, broadcast, multicast, documentation, and
/// IPv4-mapped forms of those.
pub fn is_non_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || o[0] == 0
                || (o[0] == 100 && (o[1] & 0xc0) == 64)
                || (o[0] == 192 && o[1] == 0 && o[2] == 0)
                || o[0] >= 240
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_non_public(IpAddr::V4(v4));
            }
            let s = v6.segments();
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || s[0] == 0x2001 && s[1] == 0x0db8
        }
    }
}

/// Why a delivery attempt failed.
#[derive(Debug, PartialEq, Eq)]
pub enum DeliveryError {
    /// The URL is not deliverable (e.g. https without TLS support, or malformed).
    Url(String),
    /// The host resolves only to addresses the SSRF guard refuses.
    Refused(String),
    /// Connection or HTTP failure, or a timeout.
    Transport(String),
    /// The receiver answered with a non-2xx status.
    Status(u16),
}

impl std::fmt::Display for DeliveryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeliveryError::Url(m) => write!(f, "undeliverable URL: {m}"),
            DeliveryError::Refused(m) => write!(f, "refused by the SSRF guard: {m}"),
            DeliveryError::Transport(m) => write!(f, "delivery failed: {m}"),
            DeliveryError::Status(s) => write!(f, "the receiver answered {s}"),
        }
    }
}

/// One attempt: resolve, check every address, connect to a checked one, post, read the
/// status. The address connected to is the one checked (no second lookup to rebind).
pub async fn deliver_once(req: &OutgoingRequest, policy: &WebhookPolicy) -> Result<(), DeliveryError> {
    let url = parse_url(&req.url).map_err(|e| DeliveryError::Url(e.to_string()))?;
    let attempt = async {
        let addrs: Vec<SocketAddr> = smol::net::resolve(url.authority.as_str())
            .await
            .map_err(|e| DeliveryError::Transport(format!("resolving {}: {e}", url.authority)))?;
        let allowed: Vec<SocketAddr> = addrs.iter().copied().filter(|a| policy.allow_private || !is_non_public(a.ip())).collect();
        let Some(addr) = allowed.first() else {
            return Err(DeliveryError::Refused(format!("{} resolves to {addrs:?}", url.authority)));
        };
        let mut stream = TcpStream::connect(*addr).await.map_err(|e| DeliveryError::Transport(e.to_string()))?;
        let mut headers = req.headers.clone();
        headers.push((String::from("connection"), String::from("close")));
        http1::write_request(&mut stream, req.method, &url.target, &url.host, &headers, &req.body)
            .await
            .map_err(|e| DeliveryError::Transport(e.to_string()))?;
        let limits = Limits { max_body: 64 * 1024, ..Limits::default() };
        let mut buf = Buffer::new();
        let head = buf.read_response_head(&mut stream, &limits).await.map_err(|e| DeliveryError::Transport(format!("{e:?}")))?;
        if (200..300).contains(&head.status) {
            Ok(())
        } else {
            Err(DeliveryError::Status(head.status))
        }
    };
    http1::timeout(policy.timeout, attempt).await.map_err(|_| DeliveryError::Transport(String::from("timed out")))?
}

/// Delivers with retries; the last error when every attempt failed. Refused and
/// undeliverable URLs are not retried.
pub async fn deliver(req: &OutgoingRequest, policy: &WebhookPolicy) -> Result<(), DeliveryError> {
    let mut wait = policy.backoff;
    let mut last = DeliveryError::Transport(String::from("no attempt made"));
    for attempt in 0..policy.attempts.max(1) {
        if attempt > 0 {
            smol::Timer::after(wait).await;
            wait = wait.saturating_mul(2);
        }
        match deliver_once(req, policy).await {
            Ok(()) => return Ok(()),
            Err(e @ (DeliveryError::Url(_) | DeliveryError::Refused(_))) => return Err(e),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// A queue per webhook: deliveries to it go out one after another, in order. The worker ends
/// after a quiet period and is started again by the next delivery.
#[derive(Debug, Default)]
pub(crate) struct Queues {
    queues: std::collections::HashMap<String, async_channel::Sender<OutgoingRequest>>,
}

impl Queues {
    pub(crate) fn push(&mut self, key: String, req: OutgoingRequest, policy: &WebhookPolicy) {
        self.queues.retain(|_, q| !q.is_closed());
        let req = match self.queues.get(&key) {
            Some(q) => match q.try_send(req) {
                Ok(()) => return,
                Err(e) => e.into_inner(),
            },
            None => req,
        };
        let (tx, rx) = async_channel::unbounded::<OutgoingRequest>();
        // Just created and unbounded: the send cannot fail.
        let _ = tx.try_send(req);
        let policy = policy.clone();
        smol::spawn(async move {
            loop {
                let next = http1::timeout(Duration::from_secs(30), rx.recv()).await;
                let req = match next {
                    Ok(Ok(r)) => r,
                    _ => {
                        // Quiet: close, then deliver whatever slipped in before the close.
                        rx.close();
                        while let Ok(r) = rx.try_recv() {
                            report(&r, deliver(&r, &policy).await);
                        }
                        return;
                    }
                };
                report(&req, deliver(&req, &policy).await);
            }
        })
        .detach();
        self.queues.insert(key, tx);
    }
}

fn report(req: &OutgoingRequest, r: Result<(), DeliveryError>) {
    if let Err(e) = r {
        eprintln!("a2a-wire: webhook {} not delivered: {e}", req.url);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ssrf_guard_knows_non_public_addresses() {
        for a in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "255.255.255.255",
            "224.0.0.1",
        ] {
            assert!(is_non_public(a.parse().unwrap()), "{a}");
        }
        for a in ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"] {
            assert!(!is_non_public(a.parse().unwrap()), "{a}");
        }
    }

    #[test]
    fn deliveries_to_loopback_are_refused_unless_allowed() {
        let req = OutgoingRequest { method: "POST", url: String::from("http://127.0.0.1:9/hook"), headers: Vec::new(), body: Vec::new() };
        let r = smol::block_on(deliver(&req, &WebhookPolicy::default()));
        assert!(matches!(r, Err(DeliveryError::Refused(_))), "{r:?}");
        let https = OutgoingRequest { url: String::from("https://hooks.example/x"), ..req.clone() };
        assert!(matches!(smol::block_on(deliver(&https, &WebhookPolicy::default())), Err(DeliveryError::Url(_))));
    }
}
