//! The HTTP messages the sans-IO server endpoint and client exchange with a transport.
//!
//! Requests are borrowed (the transport owns the buffers); responses are owned. gRPC rides on
//! the same shapes: `:path` as the target, the 5-byte framed body, trailers on the response.

use alloc::string::String;
use alloc::vec::Vec;

/// An HTTP request as received (server side).
#[derive(Clone, Copy, Debug)]
pub struct HttpRequest<'a> {
    /// `GET`, `POST`, ... (any case is accepted).
    pub method: &'a str,
    /// The request target: path and optional `?query`, as on the request line or in `:path`.
    pub target: &'a str,
    /// Header fields, names in any case. Transports pass values that are not UTF-8 lossily.
    pub headers: &'a [(&'a str, &'a str)],
    /// The body (for gRPC: the length-prefixed frames).
    pub body: &'a [u8],
}

impl<'a> HttpRequest<'a> {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&'a str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| *v)
    }
    /// Every value of header `name` (case-insensitive), in order.
    pub fn headers_named(&self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers.iter().filter(move |(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| *v)
    }
    /// The path part of the target.
    pub fn path(&self) -> &'a str {
        self.target.split_once('?').map_or(self.target, |(p, _)| p)
    }
    /// The query part of the target (after `?`), if any.
    pub fn query(&self) -> Option<&'a str> {
        self.target.split_once('?').map(|(_, q)| q)
    }
}

/// An HTTP response to send (server side) or an owned request to send (client side).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HttpResponse {
    /// Status code.
    pub status: u16,
    /// Header fields.
    pub headers: Vec<(String, String)>,
    /// The body. For a streaming answer this is empty and the events follow.
    pub body: Vec<u8>,
    /// Trailer fields (gRPC status).
    pub trailers: Vec<(String, String)>,
    /// True when events follow (SSE or gRPC server streaming).
    pub streaming: bool,
}

impl HttpResponse {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
    /// The first value of trailer `name` (case-insensitive).
    pub fn trailer(&self, name: &str) -> Option<&str> {
        self.trailers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// An HTTP request to send (client side).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutgoingRequest {
    /// Method.
    pub method: &'static str,
    /// Absolute URL (or `host:port` + path for gRPC).
    pub url: String,
    /// Header fields.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: Vec<u8>,
}

/// Whether `name: value` may be sent as a header field a caller chose (credentials, say): the
/// name an RFC 9110 token, the value without CR, LF or NUL (which would end the field and
/// let the value write fields of its own). The error says which part is wrong.
pub fn check_header_field(name: &str, value: &str) -> Result<(), String> {
    let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if name.is_empty() || !name.bytes().all(token) {
        return Err(alloc::format!("header name {name:?} is not an HTTP token"));
    }
    if value.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
        return Err(alloc::format!("the value of header {name} holds a line break or NUL"));
    }
    Ok(())
}

/// The media type of a `Content-Type` value, lowercased, without parameters.
pub fn media_type(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

/// Percent-decodes a path segment or query component (`+` is a space in queries only).
/// `None` for malformed escapes or a result that is not UTF-8.
pub fn percent_decode(s: &str, plus_is_space: bool) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = |c: u8| -> Option<u8> {
                    match c {
                        b'0'..=b'9' => Some(c - b'0'),
                        b'a'..=b'f' => Some(c - b'a' + 10),
                        b'A'..=b'F' => Some(c - b'A' + 10),
                        _ => None,
                    }
                };
                let hi = hex(*b.get(i + 1)?)?;
                let lo = hex(*b.get(i + 2)?)?;
                out.push(hi << 4 | lo);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Percent-encodes a path segment (RFC 3986 unreserved characters stay).
pub fn percent_encode(s: &str) -> String {
    percent_encode_keeping(s, |b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// Percent-encodes every byte of `s` for which `keep` is false.
pub fn percent_encode_keeping(s: &str, keep: impl Fn(u8) -> bool) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if keep(b) {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b >> 4)]));
            out.push(char::from(b"0123456789ABCDEF"[usize::from(b & 15)]));
        }
    }
    out
}

use crate::proto::json::timestamp::{civil_from_days, days_from_civil};

const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];

/// An HTTP-date in the preferred IMF-fixdate form (RFC 9110 §5.6.7), e.g.
/// `Sun, 06 Nov 1994 08:49:37 GMT`, for whole seconds since the Unix epoch.
pub fn http_date(unix_seconds: i64) -> String {
    let days = unix_seconds.div_euclid(86_400);
    let secs = unix_seconds.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    // rem_euclid keeps both indices in range.
    let wd = WEEKDAYS[usize::try_from(days.rem_euclid(7)).unwrap_or(0)];
    let mon = MONTHS[usize::try_from(m - 1).unwrap_or(0)];
    alloc::format!("{wd}, {d:02} {mon} {y:04} {:02}:{:02}:{:02} GMT", secs / 3600, secs % 3600 / 60, secs % 60)
}

/// Reads an HTTP-date in any of the three forms a recipient must accept (RFC 9110 §5.6.7):
/// IMF-fixdate, RFC 850 (two-digit years read as 19xx/20xx within fifty years of 2000) and
/// asctime. Seconds since the Unix epoch, or `None` for anything else.
pub fn parse_http_date(s: &str) -> Option<i64> {
    let month = |m: &str| MONTHS.iter().position(|x| *x == m).and_then(|i| u32::try_from(i + 1).ok());
    let time = |t: &str| -> Option<i64> {
        let mut p = t.split(':');
        let h: i64 = p.next()?.parse().ok()?;
        let mi: i64 = p.next()?.parse().ok()?;
        let se: i64 = p.next()?.parse().ok()?;
        (p.next().is_none() && h < 24 && mi < 60 && se < 61).then_some(h * 3600 + mi * 60 + se)
    };
    let s = s.trim();
    let parts: Vec<&str> = s.split_ascii_whitespace().collect();
    let (y, m, d, t) = match parts.as_slice() {
        // Sun, 06 Nov 1994 08:49:37 GMT
        [_, d, mon, y, t, "GMT"] if parts[0].ends_with(',') => (y.parse::<i64>().ok()?, month(mon)?, d.parse::<u32>().ok()?, time(t)?),
        // Sunday, 06-Nov-94 08:49:37 GMT
        [_, date, t, "GMT"] => {
            let mut p = date.split('-');
            let d: u32 = p.next()?.parse().ok()?;
            let m = month(p.next()?)?;
            let yy: i64 = p.next()?.parse().ok()?;
            (if yy < 50 { 2000 + yy } else { 1900 + yy }, m, d, time(t)?)
        }
        // Sun Nov  6 08:49:37 1994
        [_, mon, d, t, y] => (y.parse::<i64>().ok()?, month(mon)?, d.parse::<u32>().ok()?, time(t)?),
        _ => return None,
    };
    if !(1..=31).contains(&d) || !(0..=9999).contains(&y) {
        return None;
    }
    Some(days_from_civil(y, m, d) * 86_400 + t)
}

/// Whether an `If-None-Match` value matches `etag` (weak comparison, RFC 9110 §13.1.2:
/// `W/"x"` matches `"x"`), or is `*`.
pub fn if_none_match(header: &str, etag: &str) -> bool {
    let bare = |t: &str| -> String { String::from(t.trim().trim_start_matches("W/")) };
    let ours = bare(etag);
    header.split(',').any(|t| t.trim() == "*" || bare(t) == ours)
}

/// Whether a media type is acceptable per an `Accept` header value, and how much (its `q`,
/// 0 to 1000): `None` when the header does not mention it (neither exactly nor by `type/*`
/// or `*/*`). Names are compared without case.
pub fn accept_quality(accept: &str, media_type: &str) -> Option<u16> {
    let (want_type, _) = media_type.split_once('/').unwrap_or((media_type, ""));
    let mut best: Option<(u8, u16)> = None;
    for range in accept.split(',') {
        let mut params = range.split(';');
        let name = params.next().unwrap_or("").trim();
        let specificity = if name.eq_ignore_ascii_case(media_type) {
            3
        } else if name.strip_suffix("/*").is_some_and(|t| t.eq_ignore_ascii_case(want_type)) {
            2
        } else if name == "*/*" {
            1
        } else {
            continue;
        };
        let mut q = 1000u16;
        for p in params {
            if let Some((k, v)) = p.split_once('=') {
                if k.trim().eq_ignore_ascii_case("q") {
                    q = parse_q(v.trim()).unwrap_or(0);
                }
            }
        }
        if best.is_none_or(|(s, _)| specificity > s) {
            best = Some((specificity, q));
        }
    }
    best.map(|(_, q)| q)
}

/// A `q` value (`0`, `0.5`, `1.000`) in thousandths.
fn parse_q(v: &str) -> Option<u16> {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut thousandths: u16 = 0;
    for (i, b) in frac.bytes().enumerate() {
        thousandths += u16::from(b - b'0') * [100, 10, 1][i];
    }
    match int {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_fields_a_caller_chooses_cannot_write_fields_of_their_own() {
        assert!(check_header_field("Authorization", "Bearer abc.def~").is_ok());
        assert!(check_header_field("X-Api-Key", "").is_ok());
        for (name, value) in
            [("", "v"), ("Bad Name", "v"), ("Bad:Name", "v"), ("Ünï", "v"), ("X", "a\r\nInjected: 1"), ("X", "a\nb"), ("X", "a\0b")]
        {
            assert!(check_header_field(name, value).is_err(), "{name:?}: {value:?}");
        }
    }

    #[test]
    fn percent_coding_round_trips() {
        for s in ["plain", "a b/c?d#e%f", "ünïcödé", ""] {
            assert_eq!(percent_decode(&percent_encode(s), false).as_deref(), Some(s));
        }
        assert_eq!(percent_decode("a+b", true).as_deref(), Some("a b"));
        assert_eq!(percent_decode("a+b", false).as_deref(), Some("a+b"));
        assert_eq!(percent_decode("%zz", false), None);
        assert_eq!(percent_decode("%4", false), None);
        assert_eq!(percent_decode("%ff", false), None);
    }

    #[test]
    fn http_dates_round_trip_in_all_three_forms() {
        assert_eq!(http_date(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT");
        for form in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            assert_eq!(parse_http_date(form), Some(784_111_777), "{form}");
        }
        for t in [0, 951_782_400, 1_800_000_000, 4_102_444_800] {
            assert_eq!(parse_http_date(&http_date(t)), Some(t), "{}", http_date(t));
        }
        for bad in ["", "yesterday", "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:00:00 GMT"] {
            assert_eq!(parse_http_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn entity_tags_compare_weakly() {
        assert!(if_none_match("\"abc\"", "\"abc\""));
        assert!(if_none_match("W/\"abc\"", "\"abc\""));
        assert!(if_none_match("\"x\", W/\"abc\"", "\"abc\""));
        assert!(if_none_match("*", "\"abc\""));
        assert!(!if_none_match("\"abd\"", "\"abc\""));
    }

    #[test]
    fn accept_headers_give_the_quality_of_a_type() {
        assert_eq!(accept_quality("Application/JSON", "application/json"), Some(1000));
        assert_eq!(accept_quality("application/json;q=1, application/a2a+json;q=0", "application/a2a+json"), Some(0));
        assert_eq!(accept_quality("application/*;q=0.5", "application/a2a+json"), Some(500));
        assert_eq!(accept_quality("*/*", "application/a2a+json"), Some(1000));
        assert_eq!(accept_quality("text/event-stream", "application/json"), None);
        assert_eq!(accept_quality("application/json;q=0.25, */*;q=0.9", "application/json"), Some(250), "the most specific range wins");
    }

    #[test]
    fn media_types_ignore_case_and_parameters() {
        assert_eq!(media_type("Application/JSON; charset=utf-8"), "application/json");
    }
}
