//! Push notifications (spec §4.3.3, §9, §13.2), sans-IO: what a delivery looks like, which
//! addresses a webhook must not reach, and the delivery queues with their retries.
//!
//! - [`request`] builds the whole delivery for a push config: `POST` to its URL, the body of
//!   [`body`], the config's credentials.
//! - The SSRF guard's judgment: [`guard_host`] on the URL's host as written (IP literals in
//!   every spelling a resolver reads, non-public names), [`guard_addresses`] on what a name
//!   resolves to, both through [`is_non_public`] and an allow-list of [`Allow`] entries; a
//!   host resolves and connects only to what they accept (unless the server allows private
//!   receivers).
//! - [`receiver::Receiver`] is the other end, for clients that host a webhook: credentials
//!   checked in constant time, only expected tasks, each event handed over once.
//! - [`Deliveries`] keeps one ordered queue per webhook (task and config): one delivery in
//!   flight per queue, a failed attempt retried with exponential backoff on the caller's
//!   clock ([`Deliveries::poll_timeout`]), a receiver that refuses or stays down dropped after
//!   the policy's attempts. It never sleeps: the time of the next retry is data.
//! - Deliveries outlive a restart: every queued delivery is a [`Queued`] record, handed to
//!   the store when queued and released when it is over ([`Deliveries::poll_change`]); a
//!   service over a persistent store gives the records it finds back
//!   ([`Deliveries::restore`]), which start again from their first attempt. So a delivery
//!   is made at least once even when the server dies between two attempts (the receiver's
//!   de-duplication, [`receiver::Receiver`], makes it once for the application).

use crate::proto::google::protobuf::Timestamp;
use crate::v1;
use crate::version::ProtocolVersion;
use alloc::collections::{BTreeMap, VecDeque};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::net::IpAddr;

pub mod receiver;

/// The body of a webhook delivery (§4.3.3): the ProtoJSON `StreamResponse` for configs
/// created in v1.0 (`Content-Type: application/a2a+json`), and for v0.3 configs the v0.3
/// JSON of the Task (`kind: "task"`, lowercase states), which is what v0.3 receivers read.
pub fn body(version: ProtocolVersion, event: &v1::StreamResponse) -> Result<Vec<u8>, crate::error::A2aError> {
    use crate::error::{A2aError, ErrorKind};
    let internal = |e: &dyn core::fmt::Display| A2aError::with_message(ErrorKind::Internal, format!("{e}"));
    if !version.is_legacy() {
        return crate::codec::json::encode(event).map_err(|e| internal(&e));
    }
    use crate::v03::ToV03;
    match &event.payload {
        Some(v1::stream_response::Payload::Task(t)) => {
            let t = t.to_v03().map_err(|e| internal(&e))?.value;
            crate::v03::encode(&t).map_err(|e| internal(&e))
        }
        _ => {
            let e = event.to_v03().map_err(|e| internal(&e))?.value;
            crate::v03::encode(&e).map_err(|e| internal(&e))
        }
    }
}

/// The whole webhook delivery for `config`: `POST` to its URL with the body of [`body`],
/// `Content-Type: application/a2a+json` (v1.0) or `application/json` (v0.3),
/// `Authorization: {scheme} {credentials}` when the config carries `authentication`, and its
/// `token`, when it has one, in both spellings receivers read: `A2A-Notification-Token` and
/// `X-A2A-Notification-Token` (v1.0.1 names no header for it; SDKs in the field use one or
/// the other, and a receiver ignores the one it does not know).
pub fn request(
    config: &v1::TaskPushNotificationConfig,
    version: ProtocolVersion,
    event: &v1::StreamResponse,
) -> Result<crate::http::OutgoingRequest, crate::error::A2aError> {
    let body = body(version, event)?;
    let ctype = if version.is_legacy() { "application/json" } else { crate::binding::rest::CONTENT_TYPE };
    let mut headers = alloc::vec![(String::from("Content-Type"), String::from(ctype))];
    if let Some(auth) = config.authentication.as_ref().filter(|a| !a.scheme.is_empty()) {
        let value = if auth.credentials.is_empty() { auth.scheme.clone() } else { format!("{} {}", auth.scheme, auth.credentials) };
        headers.push((String::from("Authorization"), value));
    }
    if !config.token.is_empty() {
        headers.push((String::from("A2A-Notification-Token"), config.token.clone()));
        headers.push((String::from("X-A2A-Notification-Token"), config.token.clone()));
    }
    Ok(crate::http::OutgoingRequest { method: "POST", url: config.url.clone(), headers, body })
}

/// True for addresses a webhook must not reach unless the server allows it: loopback,
/// private (RFC 1918, IPv6 ULA and site-local), link-local, CGNAT, unspecified, broadcast,
/// multicast, documentation, benchmarking (198.18.0.0/15) and reserved ranges, and the IPv6
/// forms that carry an IPv4 address — IPv4-mapped, IPv4-compatible, NAT64 (`64:ff9b::/96`)
/// and 6to4 (`2002::/16`) — judged by the address they carry.
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
                || (o[0] == 198 && (o[1] & 0xfe) == 18)
                || o[0] >= 240
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_non_public(IpAddr::V4(v4));
            }
            let s = v6.segments();
            let carried = |hi: u16, lo: u16| {
                let [a, b] = hi.to_be_bytes();
                let [c, d] = lo.to_be_bytes();
                is_non_public(IpAddr::V4(core::net::Ipv4Addr::new(a, b, c, d)))
            };
            // IPv4-compatible ::a.b.c.d (deprecated, still routed by some stacks).
            if s[..6] == [0; 6] && !v6.is_loopback() && !v6.is_unspecified() {
                return carried(s[6], s[7]);
            }
            // NAT64 64:ff9b::a.b.c.d, and 6to4 2002:aabb:ccdd::/48.
            if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                return carried(s[6], s[7]);
            }
            if s[0] == 0x2002 && carried(s[1], s[2]) {
                return true;
            }
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || (s[0] & 0xffc0) == 0xfec0
                || s[0] == 0x2001 && s[1] == 0x0db8
        }
    }
}

/// A host or network that webhooks may reach although the SSRF guard would refuse it, for
/// local development: a name (`localhost`, `hooks.internal`), an address (`127.0.0.1`,
/// `[::1]`) or a network in CIDR form (`10.0.0.0/8`, `fd00::/8`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Allow {
    /// This host name (compared without case and without a trailing dot).
    Host(String),
    /// Every address in this network: the address and its prefix length.
    Net(IpAddr, u8),
}

impl core::str::FromStr for Allow {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s.is_empty() {
            return Err(String::from("an empty allow-list entry"));
        }
        let (addr, prefix) = match s.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s, None),
        };
        let addr = addr.strip_prefix('[').and_then(|a| a.strip_suffix(']')).unwrap_or(addr);
        match (addr.parse::<IpAddr>(), prefix) {
            (Ok(ip), None) => Ok(Allow::Net(ip, if ip.is_ipv4() { 32 } else { 128 })),
            (Ok(ip), Some(p)) => {
                let max = if ip.is_ipv4() { 32 } else { 128 };
                match p.parse::<u8>() {
                    Ok(n) if n <= max => Ok(Allow::Net(ip, n)),
                    _ => Err(format!("{s:?}: the prefix length must be 0 to {max}")),
                }
            }
            (Err(_), Some(_)) => Err(format!("{s:?}: a network is an IP address and a prefix length")),
            (Err(_), None) if ip_literal(addr).is_some() || looks_numeric(addr) => {
                Err(format!("{s:?}: write addresses in the usual dotted form"))
            }
            (Err(_), None) => Ok(Allow::Host(normal_name(addr))),
        }
    }
}

impl Allow {
    fn covers_ip(&self, ip: IpAddr) -> bool {
        let Allow::Net(net, len) = *self else { return false };
        match (net, canonical_ip(ip)) {
            (IpAddr::V4(n), IpAddr::V4(a)) => {
                let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
                u32::from(n) & mask == u32::from(a) & mask
            }
            (IpAddr::V6(n), IpAddr::V6(a)) => {
                let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
                u128::from(n) & mask == u128::from(a) & mask
            }
            _ => false,
        }
    }
    fn covers_name(&self, name: &str) -> bool {
        matches!(self, Allow::Host(h) if *h == name)
    }
}

/// An IPv4-mapped IPv6 address as the IPv4 address it carries; others unchanged.
fn canonical_ip(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

fn normal_name(name: &str) -> String {
    name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase()
}

/// Spelled like an IPv4 address, valid or not: dot-separated parts, each decimal digits or
/// `0x` and hex digits (a host a resolver may read as an address).
fn looks_numeric(host: &str) -> bool {
    let host = host.strip_suffix('.').unwrap_or(host);
    host.split('.').all(|p| {
        let hex = p.strip_prefix("0x").or_else(|| p.strip_prefix("0X"));
        match hex {
            Some(h) => h.bytes().all(|b| b.is_ascii_hexdigit()),
            None => !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()),
        }
    })
}

/// The address a URL's host spells when it is an IP literal: IPv6 in brackets, or IPv4 in
/// any spelling the C library's `inet_aton` accepts (and so a resolver would): dotted
/// decimal, one to four parts (`127.1`, `2130706433`), each part decimal, octal (`0177`) or
/// hex (`0x7f`). Judging these here means no spelling reaches the guard as a "name".
pub fn ip_literal(host: &str) -> Option<IpAddr> {
    if let Some(inner) = host.strip_prefix('[') {
        let inner = inner.strip_suffix(']')?;
        // A zone (`%eth0`) names an interface: link-local by definition.
        let inner = inner.split('%').next().unwrap_or(inner);
        return inner.parse::<core::net::Ipv6Addr>().ok().map(IpAddr::V6);
    }
    let host = host.strip_suffix('.').unwrap_or(host);
    let mut parts = [0u64; 4];
    let mut n = 0;
    for part in host.split('.') {
        if n == 4 || part.is_empty() {
            return None;
        }
        let (digits, radix) = if let Some(h) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            (h, 16)
        } else if part.len() > 1 && part.starts_with('0') {
            (&part[1..], 8)
        } else {
            (part, 10)
        };
        // "0x" alone is 0 to inet_aton.
        let v = if digits.is_empty() && radix == 16 { 0 } else { u64::from_str_radix(digits, radix).ok()? };
        parts[n] = v;
        n += 1;
    }
    // The last part fills the bytes the earlier ones leave (a.b.c.d, a.b.c16, a.b24, a32).
    let (head, last) = parts[..n].split_at(n - 1);
    if head.iter().any(|p| *p > 0xff) {
        return None;
    }
    let last_bits = 8 * (5 - n as u32);
    if last[0] >= 1u64 << last_bits.min(32) {
        return None;
    }
    let mut v: u64 = 0;
    for (i, p) in head.iter().enumerate() {
        v |= p << (24 - 8 * i as u32);
    }
    v |= last[0];
    let v = u32::try_from(v).ok()?;
    Some(IpAddr::V4(core::net::Ipv4Addr::from(v)))
}

/// True for names that no public receiver has: `localhost` and `*.localhost` (RFC 6761),
/// `*.local` (mDNS), `*.internal` and `*.home.arpa` (private use), Kubernetes service names
/// (`*.svc`), single-label names (resolved through the local search domains), and the cloud
/// metadata services' names (`metadata.google.internal`, `metadata.goog`, `instance-data`).
/// They resolve to private addresses anyway; refusing them by name keeps a resolver that
/// says otherwise from mattering.
pub fn is_non_public_name(name: &str) -> bool {
    let n = normal_name(name);
    const NAMES: &[&str] = &["localhost", "metadata", "metadata.goog", "instance-data", "kubernetes.default.svc"];
    const SUFFIXES: &[&str] = &[".localhost", ".local", ".internal", ".home.arpa", ".svc"];
    NAMES.contains(&n.as_str()) || SUFFIXES.iter().any(|s| n.ends_with(s)) || !n.contains('.')
}

/// The first half of the SSRF guard: the webhook URL's `host` (without port) on its own.
/// `Ok(Some(ip))`: an IP literal the guard accepts (connect to it, resolve nothing);
/// `Ok(None)`: a name to resolve, whose addresses then go to [`guard_addresses`]; `Err`: why
/// the guard refuses it (a non-public address in any spelling, a non-public name, a host a
/// resolver could read as an address but that is no valid one). `allow` is the allow-list.
pub fn guard_host(host: &str, allow: &[Allow]) -> Result<Option<IpAddr>, String> {
    if let Some(ip) = ip_literal(host) {
        if is_non_public(ip) && !allow.iter().any(|a| a.covers_ip(ip)) {
            return Err(format!("the SSRF guard refuses {host}: {ip} is not a public address"));
        }
        return Ok(Some(ip));
    }
    if host.starts_with('[') || looks_numeric(host) {
        return Err(format!("the SSRF guard refuses {host}: not a valid address, and it could be read as one"));
    }
    let name = normal_name(host);
    if allow.iter().any(|a| a.covers_name(&name)) {
        return Ok(None);
    }
    if is_non_public_name(&name) {
        return Err(format!("the SSRF guard refuses {host}: not a public host name"));
    }
    Ok(None)
}

/// The second half of the SSRF guard: the addresses `host` resolved to. Refused when any of
/// them is non-public (a name that answers with a private address among public ones is not
/// to be trusted with a choice), unless the allow-list covers the host or the address.
pub fn guard_addresses(host: &str, addrs: &[IpAddr], allow: &[Allow]) -> Result<(), String> {
    let name = normal_name(host);
    if allow.iter().any(|a| a.covers_name(&name)) {
        return Ok(());
    }
    match addrs.iter().find(|ip| is_non_public(**ip) && !allow.iter().any(|a| a.covers_ip(**ip))) {
        Some(ip) => Err(format!("the SSRF guard refuses {host}: it resolves to {ip}, which is not a public address")),
        None => Ok(()),
    }
}

/// How webhooks are delivered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Attempts per delivery (at least one).
    pub attempts: u32,
    /// Wait before the second attempt, in milliseconds; doubled after each failure.
    pub backoff_ms: u64,
    /// The longest wait between two attempts, in milliseconds.
    pub max_backoff_ms: u64,
    /// Jitter: each wait is cut by up to this share of it (percent, 0 to 100), by an amount
    /// that differs per webhook and per attempt, so that receivers that failed together are
    /// not retried in lockstep. The spread is a hash of the queue and the attempt number:
    /// the core has no randomness of its own, and the schedule stays reproducible.
    pub jitter_percent: u8,
    /// Deliveries waiting per webhook beyond the one in flight; when a receiver falls
    /// further behind, the oldest waiting delivery is dropped (and logged): the newest task
    /// state is worth more than an old one, and the receiver can always GetTask.
    pub max_queued: usize,
}

impl Default for Policy {
    fn default() -> Self {
        Policy { attempts: 4, backoff_ms: 500, max_backoff_ms: 60_000, jitter_percent: 50, max_queued: 1024 }
    }
}

/// FNV-1a (64 bits): a cheap, stable spread of bytes (no defence against chosen inputs; the
/// jitter and the receiver's redelivery digests need none).
pub(crate) fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// `full` cut by up to `percent` of it, by a share taken from a hash (FNV-1a) of the queue
/// and the attempt number.
fn jittered(full: u64, percent: u8, queue: &str, attempt: u32) -> u64 {
    let share = u128::from(fnv1a(queue.bytes().chain(attempt.to_le_bytes())) % 1_000);
    let cut = u128::from(full) * u128::from(percent.min(100)) * share / 100_000;
    // `cut` is at most `full` (percent <= 100, share < 1000), so this stays in range.
    full - u64::try_from(cut).unwrap_or(full)
}

/// Identifies one delivery attempt (one [`Attempt`]). A plain integer, never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeliveryId(pub u64);

/// One attempt to make: send `request`, then report with [`Deliveries::handle_result`].
#[derive(Clone, Debug, PartialEq)]
pub struct Attempt {
    /// This attempt.
    pub id: DeliveryId,
    /// The request to send (POST to the receiver).
    pub request: crate::http::OutgoingRequest,
    /// The queue it belongs to (task and config): attempts of one queue never overlap.
    pub queue: String,
    /// 1 for the first attempt of a delivery, 2 for its first retry, ...
    pub attempt: u32,
}

/// What became of an attempt, as the host saw it.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The receiver answered 2xx.
    Delivered,
    /// The receiver answered with this (non-2xx) status.
    Status(u16),
    /// No answer: the name did not resolve, the connection failed or timed out.
    Unreachable(String),
    /// Not attempted: the URL cannot be delivered to (malformed, an unsupported scheme), or
    /// the SSRF guard refused the host (its spelling, its name, or an address it resolves to).
    Refused(String),
}

impl Outcome {
    /// Whether another attempt may succeed: timeouts, connection failures, 5xx, 408 and 429
    /// are worth retrying; a refused URL and other 4xx answers are not.
    pub fn is_retryable(&self) -> bool {
        match self {
            Outcome::Delivered | Outcome::Refused(_) => false,
            Outcome::Unreachable(_) => true,
            Outcome::Status(s) => *s >= 500 || *s == 408 || *s == 429,
        }
    }
}

/// A delivery as a store keeps it until it is over: its number (deliveries are made in
/// this order within their queue), its queue (task and config), and the request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Queued {
    /// Its number, unique and increasing over the life of the store.
    pub seq: u64,
    /// The queue it belongs to.
    pub queue: String,
    /// The receiver's URL.
    pub url: String,
    /// The request's headers (credentials included: the store keeps them as it keeps the
    /// push configs they come from).
    pub headers: Vec<(String, String)>,
    /// The request's body.
    pub body: Vec<u8>,
}

impl Queued {
    /// The request to send (always a `POST`).
    pub fn request(&self) -> crate::http::OutgoingRequest {
        crate::http::OutgoingRequest { method: "POST", url: self.url.clone(), headers: self.headers.clone(), body: self.body.clone() }
    }
}

/// What a store must do to keep [`Deliveries`] across a restart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Keep this delivery.
    Queued(Queued),
    /// Delivery `seq` is over (delivered, given up, or dropped): forget it.
    Done(u64),
}

#[derive(Debug, Default)]
struct Queue {
    waiting: VecDeque<(u64, crate::http::OutgoingRequest)>,
    /// The delivery being attempted: its number, request, attempt number and current
    /// attempt id.
    current: Option<(u64, crate::http::OutgoingRequest, u32, Option<DeliveryId>)>,
    /// When the current delivery's next attempt is due (while it waits to retry).
    retry_at: Option<Timestamp>,
}

/// Something the host should know about a delivery that gave up (for its log).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GaveUp {
    /// The receiver's URL.
    pub url: String,
    /// Why.
    pub reason: String,
}

/// The delivery queues (see the module docs).
#[derive(Debug, Default)]
pub struct Deliveries {
    policy: Policy,
    queues: BTreeMap<String, Queue>,
    in_flight: BTreeMap<DeliveryId, String>,
    next: u64,
    ready: VecDeque<Attempt>,
    gave_up: VecDeque<GaveUp>,
    /// The number of the next delivery.
    next_seq: u64,
    /// For the store, in order.
    changes: VecDeque<Change>,
}

/// `t` plus `ms` milliseconds.
pub fn add_millis(t: Timestamp, ms: u64) -> Timestamp {
    let total = i128::from(t.nanos) + i128::from(ms) * 1_000_000;
    let secs = t.seconds.saturating_add(i64::try_from(total.div_euclid(1_000_000_000)).unwrap_or(i64::MAX));
    // rem_euclid of a positive modulus is in 0..1e9, which fits an i32.
    Timestamp { seconds: secs, nanos: i32::try_from(total.rem_euclid(1_000_000_000)).unwrap_or(0) }
}

fn not_after(a: &Timestamp, b: &Timestamp) -> bool {
    (a.seconds, a.nanos) <= (b.seconds, b.nanos)
}

impl Deliveries {
    /// Queues with `policy`.
    pub fn new(policy: Policy) -> Self {
        Deliveries { policy, ..Default::default() }
    }

    /// Queues a delivery behind the others of its webhook.
    pub fn push(&mut self, queue: String, request: crate::http::OutgoingRequest) {
        self.next_seq += 1;
        let seq = self.next_seq;
        self.changes.push_back(Change::Queued(Queued {
            seq,
            queue: queue.clone(),
            url: request.url.clone(),
            headers: request.headers.clone(),
            body: request.body.clone(),
        }));
        self.enqueue(seq, queue, request);
    }

    /// Reserves `n` delivery numbers (for deliveries a store may hand over, see
    /// [`crate::engine::StoreRequest::Claim`]) and returns the first.
    pub fn reserve(&mut self, n: u64) -> u64 {
        let first = self.next_seq + 1;
        self.next_seq = self.next_seq.saturating_add(n);
        first
    }

    /// The deliveries a store kept from before a restart (in any order): they are queued
    /// again, in their order, each from its first attempt. Deliveries pushed later are
    /// numbered after them.
    pub fn restore(&mut self, mut kept: Vec<Queued>) {
        kept.sort_by_key(|q| q.seq);
        for k in kept {
            self.next_seq = self.next_seq.max(k.seq);
            let request = k.request();
            self.enqueue(k.seq, k.queue, request);
        }
    }

    fn enqueue(&mut self, seq: u64, queue: String, request: crate::http::OutgoingRequest) {
        let max = self.policy.max_queued;
        let q = self.queues.entry(queue.clone()).or_default();
        if q.current.is_none() {
            q.current = Some((seq, request, 1, None));
            self.start(&queue);
            return;
        }
        q.waiting.push_back((seq, request));
        if q.waiting.len() > max {
            if let Some((old_seq, old)) = q.waiting.pop_front() {
                self.changes.push_back(Change::Done(old_seq));
                self.gave_up.push_back(GaveUp {
                    url: old.url,
                    reason: format!("the receiver fell more than {max} deliveries behind; the oldest waiting one was dropped"),
                });
            }
        }
    }

    /// Forgets delivery `seq` if no attempt of it went out yet (its event was not kept);
    /// the deliveries behind it move up. Returns whether it was forgotten. The store is told
    /// nothing: such a delivery was never written.
    pub fn discard(&mut self, seq: u64) -> bool {
        let Some(name) = self
            .queues
            .iter()
            .find(|(_, q)| q.current.as_ref().is_some_and(|c| c.0 == seq) || q.waiting.iter().any(|(s, _)| *s == seq))
            .map(|(k, _)| k.clone())
        else {
            return false;
        };
        let Some(q) = self.queues.get_mut(&name) else { return false };
        if let Some(pos) = q.waiting.iter().position(|(s, _)| *s == seq) {
            q.waiting.remove(pos);
            return true;
        }
        // The current delivery: only while its first attempt still waits to go out.
        let Some((_, _, 1, Some(id))) = q.current.as_ref() else { return false };
        let id = *id;
        let Some(pos) = self.ready.iter().position(|a| a.id == id) else { return false };
        self.ready.remove(pos);
        self.in_flight.remove(&id);
        q.current = q.waiting.pop_front().map(|(n, r)| (n, r, 1, None));
        if q.current.is_some() {
            self.start(&name);
        } else {
            self.queues.remove(&name);
        }
        true
    }

    /// The next change for a persistent store to make, in order (see the module docs).
    pub fn poll_change(&mut self) -> Option<Change> {
        self.changes.pop_front()
    }

    /// Makes the queue's current delivery an attempt to send now.
    fn start(&mut self, queue: &str) {
        let Some(q) = self.queues.get_mut(queue) else { return };
        let Some((_, request, attempt, id)) = q.current.as_mut() else { return };
        self.next += 1;
        let new = DeliveryId(self.next);
        *id = Some(new);
        q.retry_at = None;
        self.in_flight.insert(new, String::from(queue));
        self.ready.push_back(Attempt { id: new, request: request.clone(), queue: String::from(queue), attempt: *attempt });
    }

    /// The next attempt to make, if any.
    pub fn poll_attempt(&mut self) -> Option<Attempt> {
        self.ready.pop_front()
    }

    /// The next attempt to make if `ready(seq)` says its delivery may go out (a store keeps
    /// it); attempts go out in order, so the ones behind it wait too.
    pub fn poll_attempt_if(&mut self, ready: impl Fn(u64) -> bool) -> Option<Attempt> {
        let first = self.ready.front()?;
        let seq = self.queues.get(&first.queue).and_then(|q| q.current.as_ref()).map(|c| c.0);
        if seq.is_some_and(|s| !ready(s)) {
            return None;
        }
        self.ready.pop_front()
    }

    /// The next delivery that was given up, for the log.
    pub fn poll_gave_up(&mut self) -> Option<GaveUp> {
        self.gave_up.pop_front()
    }

    /// The outcome of attempt `id`. Unknown ids (an attempt reported twice) change nothing.
    pub fn handle_result(&mut self, id: DeliveryId, outcome: Outcome, now: Timestamp) {
        let Some(queue) = self.in_flight.remove(&id) else { return };
        let Some(q) = self.queues.get_mut(&queue) else { return };
        let Some((seq, request, attempt, _)) = q.current.as_mut() else { return };
        let seq = *seq;
        if outcome != Outcome::Delivered {
            if outcome.is_retryable() && *attempt < self.policy.attempts.max(1) {
                let shift = (*attempt - 1).min(30);
                let full = self.policy.backoff_ms.saturating_mul(1u64 << shift).min(self.policy.max_backoff_ms);
                let wait = jittered(full, self.policy.jitter_percent, &queue, *attempt);
                *attempt += 1;
                q.retry_at = Some(add_millis(now, wait));
                return;
            }
            let reason = match &outcome {
                Outcome::Status(s) => format!("the receiver answered {s} (attempt {attempt})"),
                Outcome::Unreachable(m) => format!("unreachable after {attempt} attempt(s): {m}"),
                Outcome::Refused(m) => format!("not attempted: {m}"),
                Outcome::Delivered => String::new(),
            };
            self.gave_up.push_back(GaveUp { url: request.url.clone(), reason });
        }
        // This delivery is over: the next one of the queue goes.
        self.changes.push_back(Change::Done(seq));
        q.current = q.waiting.pop_front().map(|(n, r)| (n, r, 1, None));
        if q.current.is_some() {
            self.start(&queue);
        } else {
            self.queues.remove(&queue);
        }
    }

    /// The time of the next retry, if one waits.
    pub fn poll_timeout(&self) -> Option<Timestamp> {
        self.queues.values().filter_map(|q| q.retry_at).min_by_key(|t| (t.seconds, t.nanos))
    }

    /// Time passed: the retries due at `now` become attempts.
    pub fn handle_timeout(&mut self, now: Timestamp) {
        let due: Vec<String> =
            self.queues.iter().filter(|(_, q)| q.retry_at.is_some_and(|t| not_after(&t, &now))).map(|(k, _)| k.clone()).collect();
        for k in due {
            self.start(&k);
        }
    }

    /// Deliveries in flight or waiting (0 when every receiver is up to date).
    pub fn pending(&self) -> usize {
        self.queues.values().map(|q| q.waiting.len() + usize::from(q.current.is_some())).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(n: u32) -> crate::http::OutgoingRequest {
        crate::http::OutgoingRequest { method: "POST", url: format!("http://hook/{n}"), headers: Vec::new(), body: Vec::new() }
    }

    fn at(ms: u64) -> Timestamp {
        add_millis(Timestamp { seconds: 1_000, nanos: 0 }, ms)
    }

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
            "198.18.0.1",
            "198.19.255.255",
            "::127.0.0.1",
            "64:ff9b::7f00:1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::",
            "2002:c0a8:101::1",
            "fec0::1",
        ] {
            assert!(is_non_public(a.parse().unwrap()), "{a}");
        }
        for a in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "198.20.0.1",
        ] {
            assert!(!is_non_public(a.parse().unwrap()), "{a}");
        }
    }

    #[test]
    fn ip_literals_in_every_spelling_a_resolver_reads() {
        use alloc::string::ToString;
        let v4 = |s: &str| ip_literal(s).map(|ip| ip.to_string());
        for (spelling, addr) in [
            ("127.0.0.1", "127.0.0.1"),
            ("127.1", "127.0.0.1"),
            ("127.0.1", "127.0.0.1"),
            ("2130706433", "127.0.0.1"),
            ("0x7f000001", "127.0.0.1"),
            ("0177.0.0.1", "127.0.0.1"),
            ("0x7f.0.0.1", "127.0.0.1"),
            ("0", "0.0.0.0"),
            ("0x", "0.0.0.0"),
            ("169.254.43518", "169.254.169.254"),
            ("127.0.0x100", "127.0.1.0"),
            ("8.8.8.8.", "8.8.8.8"),
            ("[::1]", "::1"),
            ("[fe80::1%25eth0]", "fe80::1"),
        ] {
            assert_eq!(v4(spelling).as_deref(), Some(addr), "{spelling}");
        }
        for not_literal in
            ["999.1.1.1", "1.2.3.4.5", "08.0.0.1", "1.256.0.0", "127.0.0.0x100", "4294967296", "example.com", "1e100.net", "[::1", "", "."]
        {
            assert_eq!(v4(not_literal), None, "{not_literal}");
        }
    }

    /// An address or allow-list entry written in the test (every one is well-formed).
    fn ip(s: &str) -> IpAddr {
        s.parse().expect("the test writes valid addresses")
    }
    fn entry(s: &str) -> Allow {
        s.parse().expect("the test writes valid allow-list entries")
    }

    #[test]
    fn the_guard_judges_hosts_names_and_resolved_addresses() {
        let none: &[Allow] = &[];
        assert!(guard_host("8.8.8.8", none).is_ok_and(|got| got == Some(ip("8.8.8.8"))));
        assert_eq!(guard_host("hooks.example.com", none), Ok(None));
        assert_eq!(guard_host("123.abc", none), Ok(None), "a name whose last label is not numeric is a name");
        for refused in [
            "127.1",
            "0x7f.1",
            "999.1.1.1",
            "[::ffff:127.0.0.1]",
            "localhost",
            "a.localhost",
            "x.local",
            "metadata.google.internal",
            "metadata.goog",
            "intranet",
            "[not-v6]",
        ] {
            assert!(guard_host(refused, none).is_err(), "{refused}");
        }
        let public: [IpAddr; 2] = [ip("93.184.216.34"), ip("2606:2800:220:1::")];
        assert_eq!(guard_addresses("example.com", &public, none), Ok(()));
        let mixed: [IpAddr; 2] = [ip("93.184.216.34"), ip("10.0.0.1")];
        assert!(guard_addresses("example.com", &mixed, none).is_err(), "one private address refuses the name");

        let allow: Vec<Allow> = ["localhost", "10.0.0.0/8", "[fd00::]/8", "127.0.0.1"].iter().map(|a| entry(a)).collect();
        assert_eq!(guard_host("LOCALHOST.", &allow), Ok(None));
        assert!(guard_host("10.200.0.1", &allow).is_ok());
        assert!(guard_host("[::ffff:10.0.0.1]", &allow).is_ok(), "a mapped address is judged as the IPv4 one it carries");
        assert!(guard_host("[fd12::1]", &allow).is_ok());
        assert!(guard_host("127.0.0.2", &allow).is_err());
        assert!(guard_host("192.168.0.1", &allow).is_err());
        assert!(guard_host("[fe80::1]", &allow).is_err());
        assert_eq!(guard_addresses("dev.example.com", &mixed, &allow), Ok(()));
        let loopback: [IpAddr; 1] = [ip("127.0.0.1")];
        assert_eq!(guard_addresses("localhost", &loopback, &allow), Ok(()), "an allowed name may resolve anywhere");

        for bad in ["", "10.0.0.0/33", "::/129", "host/8", "0x7f.1", "127.1"] {
            assert!(bad.parse::<Allow>().is_err(), "{bad:?}");
        }
        assert_eq!("0.0.0.0/0".parse::<Allow>(), Ok(Allow::Net(ip("0.0.0.0"), 0)));
        assert!(guard_host("192.168.1.1", &[entry("0.0.0.0/0")]).is_ok(), "a /0 allows every IPv4 address");
    }

    #[test]
    fn one_queue_delivers_in_order_and_retries_with_backoff_on_the_callers_clock() {
        let mut d = Deliveries::new(Policy { attempts: 3, backoff_ms: 100, max_backoff_ms: 1_000, jitter_percent: 0, max_queued: 8 });
        d.push("t\0c".into(), req(1));
        d.push("t\0c".into(), req(2));
        let a = d.poll_attempt().unwrap();
        assert_eq!((a.request.url.as_str(), a.attempt), ("http://hook/1", 1));
        assert!(d.poll_attempt().is_none(), "one delivery in flight per queue");
        d.handle_result(a.id, Outcome::Status(503), at(0));
        assert_eq!(d.poll_timeout(), Some(at(100)));
        d.handle_timeout(at(99));
        assert!(d.poll_attempt().is_none(), "not before the backoff");
        d.handle_timeout(at(100));
        let b = d.poll_attempt().unwrap();
        assert_eq!((b.request.url.as_str(), b.attempt), ("http://hook/1", 2));
        d.handle_result(b.id, Outcome::Unreachable("timed out".into()), at(100));
        assert_eq!(d.poll_timeout(), Some(at(300)), "the wait doubles");
        d.handle_timeout(at(300));
        let c = d.poll_attempt().unwrap();
        d.handle_result(c.id, Outcome::Status(500), at(300));
        let gave_up = d.poll_gave_up().unwrap();
        assert!(gave_up.reason.contains("500"), "{gave_up:?}");
        // The next delivery goes out at once.
        let next = d.poll_attempt().unwrap();
        assert_eq!((next.request.url.as_str(), next.attempt), ("http://hook/2", 1));
        d.handle_result(next.id, Outcome::Delivered, at(300));
        d.handle_result(next.id, Outcome::Delivered, at(300));
        assert_eq!((d.pending(), d.poll_timeout()), (0, None));
    }

    #[test]
    fn jitter_cuts_each_wait_by_up_to_its_share_and_spreads_webhooks_apart() {
        let policy = Policy { attempts: 3, backoff_ms: 1_000, max_backoff_ms: 10_000, jitter_percent: 50, max_queued: 8 };
        let mut waits = Vec::new();
        // Each unwrap below is one of the test's assertions: at that point the queue has an
        // attempt to make, or a retry due.
        for n in 0..20 {
            let mut d = Deliveries::new(policy.clone());
            d.push(format!("task-{n}\0cfg"), req(n));
            let a = d.poll_attempt().unwrap();
            d.handle_result(a.id, Outcome::Status(503), at(0));
            let due = d.poll_timeout().unwrap();
            let wait = (due.seconds - at(0).seconds) * 1_000 + i64::from(due.nanos - at(0).nanos) / 1_000_000;
            assert!((500..=1_000).contains(&wait), "a 1 s backoff cut by at most half: {wait} ms");
            waits.push(wait);
            // The second wait doubles before its cut.
            d.handle_timeout(due);
            let b = d.poll_attempt().unwrap();
            d.handle_result(b.id, Outcome::Status(503), due);
            let due2 = d.poll_timeout().unwrap();
            let wait2 = (due2.seconds - due.seconds) * 1_000 + i64::from(due2.nanos - due.nanos) / 1_000_000;
            assert!((1_000..=2_000).contains(&wait2), "{wait2} ms");
        }
        waits.sort_unstable();
        waits.dedup();
        assert!(waits.len() >= 10, "twenty webhooks failing together retry at different times: {waits:?}");
        assert_eq!(jittered(1_000, 0, "q", 1), 1_000);
        // No overflow at the extremes: a full cut leaves at least a thousandth of the wait,
        // and a share above 100% is taken as 100%.
        assert!(jittered(u64::MAX, 100, "q", 7) >= u64::MAX / 1_000);
        assert!(jittered(1_000, 255, "q", 7) >= 1);
    }

    #[test]
    fn refusals_and_client_errors_are_not_retried_and_a_full_queue_drops_its_oldest() {
        let mut d = Deliveries::new(Policy { max_queued: 2, ..Policy::default() });
        d.push("q".into(), req(1));
        for n in 2..=5 {
            d.push("q".into(), req(n));
        }
        // Waiting: 4 and 5 (2 and 3 were dropped), behind 1 in flight.
        assert_eq!(d.pending(), 3);
        assert_eq!(core::iter::from_fn(|| d.poll_gave_up()).count(), 2);
        let a = d.poll_attempt().unwrap();
        d.handle_result(a.id, Outcome::Refused("loopback".into()), at(0));
        let b = d.poll_attempt().unwrap();
        assert_eq!(b.request.url, "http://hook/4");
        d.handle_result(b.id, Outcome::Status(404), at(0));
        assert!(d.poll_timeout().is_none(), "a 404 is not retried");
        assert_eq!(d.poll_attempt().unwrap().request.url, "http://hook/5");
    }

    #[test]
    fn every_delivery_is_reported_queued_and_over_and_restored_deliveries_go_out_again_in_order() {
        let policy = Policy { attempts: 2, backoff_ms: 100, max_backoff_ms: 1_000, jitter_percent: 0, max_queued: 1 };
        let mut d = Deliveries::new(policy.clone());
        d.push("a".into(), req(1));
        d.push("a".into(), req(2));
        d.push("b".into(), req(3));
        let changes: Vec<Change> = core::iter::from_fn(|| d.poll_change()).collect();
        let seqs: Vec<u64> = changes.iter().map(|c| if let Change::Queued(q) = c { q.seq } else { 0 }).collect();
        assert_eq!(seqs, [1, 2, 3]);
        assert_eq!(
            changes[1],
            Change::Queued(Queued { seq: 2, queue: "a".into(), url: "http://hook/2".into(), headers: Vec::new(), body: Vec::new() })
        );
        // A full queue drops its oldest waiting delivery: it is over too.
        d.push("a".into(), req(4));
        assert!(matches!(d.poll_change(), Some(Change::Queued(q)) if q.seq == 4));
        assert_eq!(d.poll_change(), Some(Change::Done(2)));
        // Delivered, and given up after its attempts: over.
        let first = d.poll_attempt().unwrap();
        d.handle_result(first.id, Outcome::Delivered, at(0));
        assert_eq!(d.poll_change(), Some(Change::Done(1)));
        let b = d.poll_attempt().unwrap();
        assert_eq!(b.request.url, "http://hook/3");
        d.handle_result(b.id, Outcome::Status(503), at(0));
        assert_eq!(d.poll_change(), None, "a retry is still the same delivery");
        let fourth = d.poll_attempt().unwrap();
        assert_eq!(fourth.request.url, "http://hook/4", "queue a goes on meanwhile");
        d.handle_timeout(at(100));
        let again = d.poll_attempt().unwrap();
        assert_eq!((again.request.url.as_str(), again.attempt), ("http://hook/3", 2));
        d.handle_result(again.id, Outcome::Status(503), at(100));
        assert_eq!(d.poll_change(), Some(Change::Done(3)));
        d.handle_result(fourth.id, Outcome::Delivered, at(100));
        assert_eq!(d.poll_change(), Some(Change::Done(4)));
        // A restart: what was kept goes out again, in order, from the first attempt, and new
        // deliveries are numbered after it.
        let kept = [
            Queued { seq: 9, queue: "a".into(), url: "http://hook/9".into(), headers: Vec::new(), body: Vec::new() },
            Queued { seq: 7, queue: "a".into(), url: "http://hook/7".into(), headers: Vec::new(), body: Vec::new() },
        ];
        let mut r = Deliveries::new(policy);
        r.restore(kept.to_vec());
        assert_eq!(r.poll_change(), None, "restored deliveries are already kept");
        let a = r.poll_attempt().unwrap();
        assert_eq!((a.request.url.as_str(), a.attempt, a.request.method), ("http://hook/7", 1, "POST"));
        r.push("c".into(), req(5));
        assert!(matches!(r.poll_change(), Some(Change::Queued(q)) if q.seq == 10));
        r.handle_result(a.id, Outcome::Delivered, at(0));
        assert_eq!(r.poll_change(), Some(Change::Done(7)));
        assert_eq!(r.poll_attempt().map(|a| a.request.url), Some("http://hook/5".into()));
        assert_eq!(r.poll_attempt().map(|a| a.request.url), Some("http://hook/9".into()));
    }

    #[test]
    fn a_delivery_not_yet_attempted_can_be_discarded_and_the_next_moves_up() {
        let policy = Policy { attempts: 2, backoff_ms: 100, max_backoff_ms: 1_000, jitter_percent: 0, max_queued: 8 };
        let mut d = Deliveries::new(policy);
        for n in 1..=4 {
            d.push("a".into(), req(n));
        }
        while d.poll_change().is_some() {}
        // The current one (its attempt not taken yet) and a waiting one.
        assert!(d.discard(1));
        assert!(d.discard(3));
        assert!(!d.discard(3), "already gone");
        assert!(!d.discard(42), "never queued");
        assert_eq!(d.pending(), 2);
        let a = d.poll_attempt().unwrap();
        assert_eq!(a.request.url, "http://hook/2", "the next one moved up");
        assert!(d.poll_attempt().is_none(), "one attempt per queue at a time");
        // Once its attempt went out, a delivery is no longer discarded.
        assert!(!d.discard(2));
        d.handle_result(a.id, Outcome::Delivered, at(0));
        assert_eq!(d.poll_change(), Some(Change::Done(2)));
        assert_eq!(d.poll_attempt().map(|a| a.request.url), Some("http://hook/4".into()));
        assert!(!d.discard(4), "its attempt went out");
        assert_eq!(d.pending(), 1);
    }
}
