//! The Agent Card answer: `GET` and `HEAD` of `/.well-known/agent-card.json`, with `ETag`,
//! `Last-Modified` and `Cache-Control`, and `304 Not Modified` for `If-None-Match` (weak
//! comparison) or, without it, `If-Modified-Since` (RFC 9110 §13.1, §13.2.2; spec §8.6).

use crate::http::{http_date, if_none_match, parse_http_date, HttpRequest, HttpResponse};
use crate::v1;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Where the card is served (spec §8.2).
pub const CARD_PATH: &str = "/.well-known/agent-card.json";

/// An FNV-1a hash, for the card's ETag (a content hash: the same card gives the same tag
/// across restarts and processes).
fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The published card and its validators.
#[derive(Clone, Debug)]
pub(crate) struct CardAnswer {
    body: Vec<u8>,
    etag: String,
    modified: i64,
    last_modified: String,
    max_age: u32,
}

fn header(name: &str, value: &str) -> (String, String) {
    (String::from(name), String::from(value))
}

impl CardAnswer {
    pub(crate) fn new(card: &v1::AgentCard, max_age: u32, modified_unix_seconds: i64) -> Result<Self, crate::codec::EncodeError> {
        let body = crate::card::publish(card)?;
        let etag = format!("\"{:016x}\"", fnv1a(&body));
        Ok(CardAnswer { body, etag, modified: modified_unix_seconds, last_modified: http_date(modified_unix_seconds), max_age })
    }

    pub(crate) fn etag(&self) -> &str {
        &self.etag
    }

    /// The answer to a request for the card path.
    pub(crate) fn answer(&self, req: &HttpRequest<'_>) -> HttpResponse {
        let get = req.method.eq_ignore_ascii_case("GET") || req.method.eq_ignore_ascii_case("HEAD");
        if !get {
            return HttpResponse { status: 405, headers: alloc::vec![header("allow", "GET, HEAD")], ..HttpResponse::default() };
        }
        let validators = || {
            alloc::vec![
                header("etag", &self.etag),
                header("last-modified", &self.last_modified),
                header("cache-control", &format!("public, max-age={}", self.max_age)),
            ]
        };
        // If-None-Match, when present, decides alone (RFC 9110 §13.2.2).
        let fresh = match req.header("if-none-match") {
            Some(inm) => if_none_match(inm, &self.etag),
            None => req.header("if-modified-since").and_then(parse_http_date).is_some_and(|since| self.modified <= since),
        };
        if fresh {
            return HttpResponse { status: 304, headers: validators(), ..HttpResponse::default() };
        }
        let mut headers = alloc::vec![header("content-type", "application/json")];
        headers.extend(validators());
        HttpResponse { status: 200, headers, body: self.body.clone(), ..HttpResponse::default() }
    }
}
