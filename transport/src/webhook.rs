//! One webhook delivery attempt over HTTP/1.1: the request is the core's
//! ([`a2a_wire::webhook::request`]) and so are the queues, the order and the retry schedule
//! ([`a2a_wire::webhook::Deliveries`], driven by the service) and the SSRF guard's judgment
//! ([`a2a_wire::webhook::guard_host`] on the URL's host in any spelling,
//! [`a2a_wire::webhook::guard_addresses`] on what a name resolves to). This module resolves
//! the host, connects to an address the guard accepted (never resolving again, so a
//! rebinding DNS answer cannot slip a private address in), posts, reads the status (a
//! redirect is reported, never followed; the answer's head is bounded, and so is the time
//! the whole attempt may take), and reports an [`Outcome`].

use crate::http1::{self, Buffer, Limits};
use crate::io::Stream;
use crate::url::parse_url;
use a2a_wire::http::OutgoingRequest;
use a2a_wire::webhook::{guard_addresses, guard_host, ip_literal, Allow, Outcome};
use smol::net::TcpStream;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

/// Resolves a webhook's host name (`name`, `port`) to addresses: the application's own DNS,
/// or a test's. Without one, the system resolver is used.
#[derive(Clone)]
pub struct Resolver(Arc<ResolveFn>);

/// What a [`Resolver`] calls: a name and port in, its addresses out.
type ResolveFn = dyn Fn(&str, u16) -> std::io::Result<Vec<SocketAddr>> + Send + Sync;

impl Resolver {
    /// A resolver calling `f` (it may block: it runs on a blocking-task thread).
    pub fn new(f: impl Fn(&str, u16) -> std::io::Result<Vec<SocketAddr>> + Send + Sync + 'static) -> Self {
        Resolver(Arc::new(f))
    }
}

impl fmt::Debug for Resolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Resolver(..)")
    }
}

/// How webhooks are delivered.
#[derive(Clone, Debug)]
pub struct WebhookPolicy {
    /// Allow loopback, private, link-local and other non-public addresses and names (tests
    /// and single-host setups). Off by default: the SSRF guard refuses them.
    pub allow_private: bool,
    /// Hosts and networks allowed although not public (local development), with the guard
    /// on for everything else: `localhost`, `127.0.0.1`, `10.0.0.0/8`, ...
    pub allow: Vec<Allow>,
    /// Resolves host names (default: the system's resolver).
    pub resolver: Option<Resolver>,
    /// Time allowed for one attempt (resolve, connect, send, answer).
    pub timeout: Duration,
    /// Attempts per delivery (at least one).
    pub attempts: u32,
    /// Wait before the second attempt; doubled after each failure.
    pub backoff: Duration,
    /// TLS for `https://` receivers: the roots trusted (and a client certificate, if the
    /// receiver wants one). `None`: the platform's roots.
    pub tls: Option<crate::tls::ClientTls>,
}

impl Default for WebhookPolicy {
    fn default() -> Self {
        WebhookPolicy {
            allow_private: false,
            allow: Vec::new(),
            resolver: None,
            timeout: Duration::from_secs(10),
            attempts: 4,
            backoff: Duration::from_millis(500),
            tls: None,
        }
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

/// The host and port of an authority (`host:port`, `[v6]:port`).
fn split_authority(authority: &str) -> Option<(&str, u16)> {
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']')?;
        (&authority[..=end], authority[end + 1..].strip_prefix(':')?)
    } else {
        authority.rsplit_once(':')?
    };
    Some((host, port.parse().ok()?))
}

/// The addresses to try for `host`, or the outcome that ends the attempt.
async fn addresses(host: &str, port: u16, policy: &WebhookPolicy) -> Result<Vec<SocketAddr>, Outcome> {
    let literal = if policy.allow_private { ip_literal(host) } else { guard_host(host, &policy.allow).map_err(Outcome::Refused)? };
    if let Some(ip) = literal {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    let name = host.to_string();
    let resolved = match &policy.resolver {
        Some(r) => {
            let r = r.clone();
            smol::unblock(move || (r.0)(&name, port)).await
        }
        None => smol::net::resolve((name, port)).await,
    };
    let addrs = resolved.map_err(|e| Outcome::Unreachable(format!("resolving {host}: {e}")))?;
    if addrs.is_empty() {
        return Err(Outcome::Unreachable(format!("{host} resolves to no address")));
    }
    if !policy.allow_private {
        let ips: Vec<IpAddr> = addrs.iter().map(SocketAddr::ip).collect();
        guard_addresses(host, &ips, &policy.allow).map_err(Outcome::Refused)?;
    }
    Ok(addrs)
}

/// One attempt: judge the host, resolve a name, judge its addresses, connect to a checked
/// one, post, read the status. The address connected to is one checked (no second lookup
/// to rebind).
pub async fn deliver_once(req: &OutgoingRequest, policy: &WebhookPolicy) -> Outcome {
    let url = match parse_url(&req.url) {
        Ok(u) => u,
        Err(e) => return Outcome::Refused(e.to_string()),
    };
    let Some((host, port)) = split_authority(&url.authority) else {
        return Outcome::Refused(format!("{}: no host and port", req.url));
    };
    let attempt = async {
        let addrs = match addresses(host, port, policy).await {
            Ok(a) => a,
            Err(outcome) => return outcome,
        };
        let mut stream = None;
        let mut last = String::new();
        for addr in &addrs {
            match TcpStream::connect(*addr).await {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = format!("{addr}: {e}"),
            }
        }
        let Some(tcp) = stream else { return Outcome::Unreachable(last) };
        let mut stream = if url.tls {
            let tls = match policy.tls.clone().map_or_else(crate::tls::default_client, Ok) {
                Ok(t) => t,
                Err(e) => return Outcome::Unreachable(e.to_string()),
            };
            // The certificate must be for the name in the URL, whichever address answered.
            match tls.connect(&url.server_name, crate::tls::ALPN_HTTP1, tcp).await {
                Ok(s) => s,
                Err(e) => return Outcome::Unreachable(e.to_string()),
            }
        } else {
            Stream::Plain(tcp)
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
    use smol::io::{AsyncReadExt, AsyncWriteExt};
    use std::time::Instant;

    fn post(url: &str) -> OutgoingRequest {
        OutgoingRequest { method: "POST", url: String::from(url), headers: Vec::new(), body: b"{}".to_vec() }
    }

    /// The test resolver: names that answer with private addresses, as hostile DNS would
    /// (its table holds literal addresses only, so the parse cannot fail).
    fn hostile_dns() -> Resolver {
        Resolver::new(|name, port| {
            let ips: &[&str] = match name {
                "internal.example.com" => &["10.1.2.3"],
                "metadata.example.com" => &["169.254.169.254"],
                "v6-private.example.com" => &["fd00::1"],
                "mixed.example.com" => &["93.184.216.34", "192.168.1.10"],
                "127.0.0.1.nip.io" => &["127.0.0.1"],
                "mapped.example.com" => &["::ffff:10.0.0.1"],
                _ => return Err(std::io::Error::new(std::io::ErrorKind::NotFound, "unknown test name")),
            };
            Ok(ips.iter().map(|ip| SocketAddr::new(ip.parse().expect("the test table holds addresses"), port)).collect())
        })
    }

    fn guarded() -> WebhookPolicy {
        WebhookPolicy { resolver: Some(hostile_dns()), timeout: Duration::from_secs(2), ..WebhookPolicy::default() }
    }

    fn assert_refused(url: &str) {
        match smol::block_on(deliver_once(&post(url), &guarded())) {
            Outcome::Refused(why) => assert!(why.contains("SSRF guard"), "{url}: refused, but not by the guard: {why}"),
            other => panic!("{url}: not refused: {other:?}"),
        }
    }

    /// One test per hostile target: every one is refused before any connection is made.
    macro_rules! hostile {
        ($($name:ident: $url:literal,)*) => {
            $(#[test] fn $name() { assert_refused($url); })*
        };
    }

    hostile! {
        loopback: "http://127.0.0.1/hook",
        loopback_other_port_and_address: "http://127.9.8.7:8080/hook",
        loopback_short_form: "http://127.1/hook",
        loopback_decimal: "http://2130706433/hook",
        loopback_hex: "http://0x7f000001/hook",
        loopback_octal: "http://0177.0.0.1/hook",
        loopback_dotted_hex: "http://0x7f.0x0.0x0.0x1/hook",
        loopback_trailing_dot: "http://127.0.0.1./hook",
        rfc1918_10: "http://10.0.0.1/hook",
        rfc1918_172: "http://172.16.5.4/hook",
        rfc1918_192: "http://192.168.0.1/hook",
        rfc1918_octal: "http://012.0.0.1/hook",
        link_local_metadata: "http://169.254.169.254/latest/meta-data/",
        link_local_metadata_decimal: "http://2852039166/latest/meta-data/",
        metadata_name_google: "http://metadata.google.internal/computeMetadata/v1/",
        metadata_name_goog: "http://metadata.goog/computeMetadata/v1/",
        metadata_name_aws: "http://instance-data/latest/",
        metadata_alibaba_cgnat: "http://100.100.100.200/latest/meta-data/",
        metadata_oracle: "http://192.0.0.192/opc/v2/",
        cgnat: "http://100.64.0.1/hook",
        unspecified: "http://0.0.0.0/hook",
        unspecified_zero: "http://0/hook",
        broadcast: "http://255.255.255.255/hook",
        multicast: "http://224.0.0.1/hook",
        benchmarking: "http://198.18.0.1/hook",
        reserved: "http://240.0.0.1/hook",
        not_an_address_but_spelled_like_one: "http://999.1.1.1/hook",
        v6_loopback: "http://[::1]/hook",
        v6_unspecified: "http://[::]/hook",
        v6_mapped_loopback: "http://[::ffff:127.0.0.1]/hook",
        v6_mapped_metadata_hex: "http://[::ffff:a9fe:a9fe]/hook",
        v6_mapped_full_form: "http://[0:0:0:0:0:ffff:7f00:1]/hook",
        v6_compatible: "http://[::127.0.0.1]/hook",
        v6_nat64_metadata: "http://[64:ff9b::a9fe:a9fe]/hook",
        v6_nat64_private: "http://[64:ff9b::10.0.0.1]/hook",
        v6_6to4_private: "http://[2002:c0a8:0101::1]/hook",
        v6_unique_local: "http://[fd12:3456::1]/hook",
        v6_link_local: "http://[fe80::1]/hook",
        v6_link_local_zone: "http://[fe80::1%25eth0]/hook",
        v6_multicast: "http://[ff02::1]/hook",
        name_localhost: "http://localhost/hook",
        name_localhost_subdomain: "http://evil.localhost/hook",
        name_localhost_upper_trailing_dot: "http://LOCALHOST./hook",
        name_mdns: "http://printer.local/hook",
        name_single_label: "http://intranet/hook",
        name_kubernetes: "http://api.default.svc/hook",
        dns_to_rfc1918: "http://internal.example.com/hook",
        dns_to_metadata: "http://metadata.example.com/latest/meta-data/",
        dns_to_v6_unique_local: "http://v6-private.example.com/hook",
        dns_mixed_public_and_private: "http://mixed.example.com/hook",
        dns_wildcard_loopback: "http://127.0.0.1.nip.io/hook",
        dns_to_v6_mapped_private: "http://mapped.example.com/hook",
    }

    #[test]
    fn credentials_in_the_url_and_other_schemes_are_refused() {
        for url in ["http://user:pw@hooks.example.com/x", "ftp://hooks.example.com/x", "file:///etc/passwd"] {
            assert!(matches!(smol::block_on(deliver_once(&post(url), &guarded())), Outcome::Refused(_)), "{url}");
        }
    }

    /// A receiver on 127.0.0.1 (allowed by the test's allow-list) that answers each
    /// connection with `answer` (None: reads and never answers); counts connections. Its
    /// expects hold on any machine the tests run on (binding port 0 on loopback); if one
    /// did not, the test could not run at all, and failing says so.
    fn receiver(answer: Option<&'static [u8]>) -> (u16, Arc<std::sync::atomic::AtomicUsize>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("a bound listener has an address").port();
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = count.clone();
        std::thread::spawn(move || {
            let listener = smol::Async::new(listener).expect("a listener can be made async");
            smol::block_on(async move {
                while let Ok((mut s, _)) = listener.accept().await {
                    seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    smol::spawn(async move {
                        let mut buf = [0u8; 4096];
                        let _ = s.read(&mut buf).await;
                        match answer {
                            Some(a) => {
                                let _ = s.write_all(a).await;
                            }
                            None => {
                                smol::Timer::after(Duration::from_secs(30)).await;
                            }
                        }
                    })
                    .detach();
                }
            });
        });
        (port, count)
    }

    /// The guard with 127.0.0.1 on the allow-list (the entry is a literal address).
    fn local_dev() -> WebhookPolicy {
        WebhookPolicy { allow: vec!["127.0.0.1".parse().expect("an address")], timeout: Duration::from_millis(500), ..guarded() }
    }

    #[test]
    fn the_allow_list_lets_local_development_through_and_nothing_else() {
        let (port, count) = receiver(Some(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n"));
        let url = format!("http://127.0.0.1:{port}/hook");
        assert_eq!(smol::block_on(deliver_once(&post(&url), &local_dev())), Outcome::Delivered);
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 1);
        // The guard stays on for everything the list does not name.
        for other in [format!("http://127.0.0.2:{port}/hook"), format!("http://localhost:{port}/hook"), String::from("http://10.0.0.1/x")] {
            assert!(matches!(smol::block_on(deliver_once(&post(&other), &local_dev())), Outcome::Refused(_)), "{other}");
        }
        // A network on the list covers its addresses only (the core's tests cover the rest).
        let net = WebhookPolicy { allow: vec!["10.0.0.0/8".parse().expect("a network")], ..guarded() };
        assert!(matches!(smol::block_on(deliver_once(&post("http://192.168.0.1/x"), &net)), Outcome::Refused(_)));
        assert!(matches!(smol::block_on(deliver_once(&post("http://metadata.example.com/x"), &net)), Outcome::Refused(_)));
    }

    #[test]
    fn redirects_are_reported_not_followed() {
        let (port, count) =
            receiver(Some(b"HTTP/1.1 302 Found\r\nlocation: http://169.254.169.254/latest/meta-data/\r\ncontent-length: 0\r\n\r\n"));
        let r = smol::block_on(deliver_once(&post(&format!("http://127.0.0.1:{port}/hook")), &local_dev()));
        assert_eq!(r, Outcome::Status(302));
        assert!(!r.is_retryable(), "a redirect is not retried either");
        assert_eq!(count.load(std::sync::atomic::Ordering::SeqCst), 1, "one request, to the receiver only");
    }

    #[test]
    fn an_oversized_answer_head_is_cut_off() {
        static HUGE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        let huge = HUGE.get_or_init(|| {
            let mut h = b"HTTP/1.1 200 OK\r\n".to_vec();
            while h.len() < 64 * 1024 {
                h.extend_from_slice(b"x-filler: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
            }
            h
        });
        let (port, _) = receiver(Some(huge.as_slice()));
        let r = smol::block_on(deliver_once(&post(&format!("http://127.0.0.1:{port}/hook")), &local_dev()));
        assert!(matches!(r, Outcome::Unreachable(_)), "a head past the limit is no answer: {r:?}");
    }

    #[test]
    fn a_receiver_that_never_answers_costs_one_timeout() {
        let (port, _) = receiver(None);
        let started = Instant::now();
        let r = smol::block_on(deliver_once(&post(&format!("http://127.0.0.1:{port}/hook")), &local_dev()));
        assert!(matches!(r, Outcome::Unreachable(_)), "{r:?}");
        assert!(started.elapsed() < Duration::from_secs(5), "bounded by the policy's 500 ms, took {:?}", started.elapsed());
    }

    #[test]
    fn deliveries_to_loopback_are_refused_unless_allowed() {
        let req = post("http://127.0.0.1:9/hook");
        let r = smol::block_on(deliver_once(&req, &WebhookPolicy::default()));
        assert!(matches!(r, Outcome::Refused(_)), "{r:?}");
        let allowed = WebhookPolicy { allow_private: true, ..WebhookPolicy::default() };
        let r = smol::block_on(deliver_once(&req, &allowed));
        assert!(matches!(r, Outcome::Unreachable(_)), "allowed, and nothing listens on port 9: {r:?}");
        // The guard judges https:// receivers the same way, before any handshake.
        let https = post("https://127.0.0.1:9/x");
        assert!(matches!(smol::block_on(deliver_once(&https, &WebhookPolicy::default())), Outcome::Refused(_)));
    }
}
