//! Bearer-token authentication (RFC 6750 §2.1) for a server's authentication hook.
//!
//! A [`BearerTokens`] table maps each token to the principal it stands for. A host answers
//! the service's [`Output::Authenticate`](crate::service::Output::Authenticate) with
//! [`BearerTokens::authenticate`]: the principal, or the A2A unauthenticated error (HTTP 401,
//! gRPC `UNAUTHENTICATED`, JSON-RPC -31401) when the `Authorization: Bearer` header is missing,
//! malformed or names no token of the table. [`BearerTokens::declare`] adds the matching
//! `securitySchemes` entry and requirement to the Agent Card, so clients know what to send.
//!
//! Tokens are compared in constant time: a lookup reads every entry of the table whatever the
//! token, and each comparison takes a time that depends on the lengths only.
//!
//! ```
//! use a2a_wire::auth::BearerTokens;
//!
//! let tokens = BearerTokens::parse("# token principal\nalice-token alice\nbob-token bob\n")?;
//! let alice = [(String::from("Authorization"), String::from("Bearer alice-token"))];
//! assert_eq!(tokens.authenticate(&alice)?.as_deref(), Some("alice"));
//! let nobody = [(String::from("authorization"), String::from("Bearer guess"))];
//! assert!(tokens.authenticate(&nobody).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{A2aError, ErrorKind};
use crate::v1;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

/// The name under which [`BearerTokens::declare`] lists the scheme in a card's
/// `securitySchemes`.
pub const SCHEME_NAME: &str = "bearer";

/// The token of an `Authorization` value of the `Bearer` scheme (scheme name in any case,
/// RFC 7235 §2.1), or `None` when the value is of another scheme or the token is not an
/// RFC 6750 `b64token`.
pub fn bearer_token(authorization: &str) -> Option<&str> {
    let (scheme, rest) = authorization.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("Bearer") {
        return None;
    }
    let token = rest.trim_start_matches(' ');
    is_b64token(token).then_some(token)
}

/// RFC 6750 §2.1: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
fn is_b64token(t: &str) -> bool {
    let body = t.trim_end_matches('=');
    !body.is_empty() && body.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/'))
}

/// Equal bytes, in a time that depends on the lengths only.
pub(crate) fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = u64::from(a.len() != b.len());
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        diff |= u64::from(x ^ y);
    }
    core::hint::black_box(diff) == 0
}

/// Why a token table could not be built: the line (1-based; 0 for [`BearerTokens::insert`])
/// and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableError {
    /// The line of the text, counted from 1 (0: not from a text).
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.reason)
        } else {
            write!(f, "line {}: {}", self.line, self.reason)
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for TableError {}

/// Bearer tokens and the principals they stand for.
#[derive(Clone, Default)]
pub struct BearerTokens {
    entries: Vec<(String, String)>,
}

impl fmt::Debug for BearerTokens {
    // The tokens are secrets: a log of the table shows the principals only.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BearerTokens").field("principals", &self.entries.iter().map(|(_, p)| p.as_str()).collect::<Vec<_>>()).finish()
    }
}

impl BearerTokens {
    /// An empty table (it authenticates nobody).
    pub fn new() -> Self {
        BearerTokens::default()
    }

    /// A table from text: one `TOKEN PRINCIPAL` pair a line, separated by spaces or tabs;
    /// blank lines and lines starting with `#` are skipped. A token must be an RFC 6750
    /// `b64token` and appear once; the principal is the rest of the line, trimmed, not empty.
    pub fn parse(text: &str) -> Result<BearerTokens, TableError> {
        let mut table = BearerTokens::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (token, principal) = match line.split_once([' ', '\t']) {
                Some((t, p)) => (t, p.trim()),
                None => (line, ""),
            };
            table.insert(token, principal).map_err(|e| TableError { line: n + 1, reason: e.reason })?;
        }
        Ok(table)
    }

    /// Adds `token` for `principal`. Refuses a token that is not an RFC 6750 `b64token`, a
    /// token already in the table and an empty principal.
    pub fn insert(&mut self, token: &str, principal: &str) -> Result<(), TableError> {
        let refuse = |reason: String| Err(TableError { line: 0, reason });
        if !is_b64token(token) {
            return refuse(String::from("a token is letters, digits and - . _ ~ + / (then = padding only)"));
        }
        if principal.is_empty() {
            return refuse(String::from("a token needs a principal after it (TOKEN PRINCIPAL)"));
        }
        if self.principal_of(token).is_some() {
            return refuse(format!("a token appears twice (the second is for {principal:?})"));
        }
        self.entries.push((token.to_string(), principal.to_string()));
        Ok(())
    }

    /// The number of tokens.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table has no token.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The principal `token` stands for. Reads every entry whatever the token.
    pub fn principal_of(&self, token: &str) -> Option<&str> {
        let mut found = None;
        for (t, p) in &self.entries {
            let eq = ct_eq(t.as_bytes(), token.as_bytes());
            found = if eq { Some(p.as_str()) } else { found };
        }
        found
    }

    /// The principal of a call, given its credential headers (as in
    /// [`AuthRequest::headers`](crate::service::AuthRequest::headers); names in any case), or
    /// the A2A unauthenticated error.
    pub fn authenticate(&self, headers: &[(String, String)]) -> Result<Option<String>, A2aError> {
        let mut values = headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case("authorization")).map(|(_, v)| v.as_str());
        let (Some(value), None) = (values.next(), values.next()) else {
            return Err(A2aError::with_message(ErrorKind::Unauthenticated, "this agent requires one Authorization: Bearer header"));
        };
        let Some(token) = bearer_token(value) else {
            return Err(A2aError::with_message(ErrorKind::Unauthenticated, "the Authorization header is not of the Bearer scheme"));
        };
        match self.principal_of(token) {
            Some(p) => Ok(Some(p.to_string())),
            None => Err(A2aError::with_message(ErrorKind::Unauthenticated, "the bearer token is not valid")),
        }
    }

    /// Declares the scheme in `card`: `securitySchemes["bearer"]` (HTTP auth, scheme `Bearer`)
    /// and a security requirement naming it, unless the card already has them.
    pub fn declare(&self, card: &mut v1::AgentCard) {
        card.security_schemes.entry(SCHEME_NAME.to_string()).or_insert_with(|| v1::SecurityScheme {
            scheme: Some(v1::security_scheme::Scheme::HttpAuthSecurityScheme(v1::HttpAuthSecurityScheme {
                description: String::from("A bearer token: Authorization: Bearer TOKEN"),
                scheme: String::from("Bearer"),
                bearer_format: String::new(),
            })),
        });
        if !card.security_requirements.iter().any(|r| r.schemes.contains_key(SCHEME_NAME)) {
            let mut schemes = alloc::collections::BTreeMap::new();
            schemes.insert(SCHEME_NAME.to_string(), v1::StringList::default());
            card.security_requirements.push(v1::SecurityRequirement { schemes });
        }
    }
}

/// The `WWW-Authenticate` value for `card`: the auth scheme of each HTTP scheme it declares
/// (`Bearer`, `Basic`, ...), `Bearer` for OAuth 2.0 and OpenID Connect (RFC 6750), and
/// `Bearer` when it declares none of those (API keys and mTLS have no challenge of their own).
pub fn challenge(card: &crate::v1::AgentCard) -> String {
    use crate::v1::security_scheme::Scheme;
    let mut names: alloc::vec::Vec<String> = alloc::vec::Vec::new();
    for s in card.security_schemes.values() {
        let name = match &s.scheme {
            Some(Scheme::HttpAuthSecurityScheme(h))
                if !h.scheme.is_empty() && h.scheme.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~+!#$%&'*^`|".contains(&b)) =>
            {
                let mut n = h.scheme.to_ascii_lowercase();
                // Conventional capitalisation: `Bearer`, `Basic`, `Digest`.
                if let Some(first) = n.get_mut(0..1) {
                    first.make_ascii_uppercase();
                }
                n
            }
            Some(Scheme::Oauth2SecurityScheme(_)) | Some(Scheme::OpenIdConnectSecurityScheme(_)) => String::from("Bearer"),
            _ => continue,
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    if names.is_empty() {
        names.push(String::from("Bearer"));
    }
    names.iter().map(|n| alloc::format!("{n} realm=\"a2a\"")).collect::<alloc::vec::Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn h(name: &str, value: &str) -> (String, String) {
        (name.to_string(), value.to_string())
    }

    fn table() -> BearerTokens {
        match BearerTokens::parse("alice-token alice\n\n# a comment\n  bob.token~2==\tBob Smith  \n") {
            Ok(t) => t,
            Err(e) => panic!("the test table parses: {e}"),
        }
    }

    #[test]
    fn a_known_token_names_its_principal_and_others_are_unauthenticated() {
        let t = table();
        assert_eq!(t.len(), 2);
        assert_eq!(t.authenticate(&[h("Authorization", "Bearer alice-token")]), Ok(Some("alice".into())));
        assert_eq!(t.authenticate(&[h("authorization", "bearer   bob.token~2==")]), Ok(Some("Bob Smith".into())));
        for bad in [
            vec![],
            vec![h("Authorization", "Bearer alice-toke")],
            vec![h("Authorization", "Bearer alice-token2")],
            vec![h("Authorization", "Basic YWxpY2U6eA==")],
            vec![h("Authorization", "Bearer")],
            vec![h("Authorization", "Bearer a b")],
            vec![h("Authorization", "Bearer alice-token"), h("Authorization", "Bearer bob.token~2==")],
            vec![h("Cookie", "alice-token")],
        ] {
            let e = t.authenticate(&bad).err().map(|e| e.kind());
            assert_eq!(e, Some(ErrorKind::Unauthenticated), "{bad:?}");
        }
    }

    #[test]
    fn bearer_values_follow_rfc_6750() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("BEARER a+/b=="), Some("a+/b=="));
        assert_eq!(bearer_token("Bearer =="), None);
        assert_eq!(bearer_token("Bearer a=b"), None);
        assert_eq!(bearer_token("Bearerabc"), None);
        assert_eq!(bearer_token("Token abc"), None);
    }

    #[test]
    fn a_bad_table_names_the_line() {
        let err = |text: &str| BearerTokens::parse(text).err().map(|e| e.to_string());
        assert_eq!(err("a x\na y\n"), Some("line 2: a token appears twice (the second is for \"y\")".into()));
        assert!(err("\n\nlonely\n").is_some_and(|e| e.starts_with("line 3: ")));
        assert!(err("to\"ken p\n").is_some_and(|e| e.starts_with("line 1: a token is")));
        assert_eq!(BearerTokens::parse("# nothing\n").map(|t| t.is_empty()), Ok(true));
    }

    #[test]
    fn the_debug_form_keeps_the_tokens_secret() {
        let shown = format!("{:?}", table());
        assert!(shown.contains("alice") && !shown.contains("alice-token"), "{shown}");
    }

    #[test]
    fn declaring_adds_the_scheme_and_its_requirement_once() {
        let mut card = v1::AgentCard::default();
        table().declare(&mut card);
        table().declare(&mut card);
        assert_eq!(card.security_requirements.len(), 1);
        let scheme = card.security_schemes.get(SCHEME_NAME).and_then(|s| s.scheme.clone());
        assert!(matches!(scheme, Some(v1::security_scheme::Scheme::HttpAuthSecurityScheme(ref h)) if h.scheme == "Bearer"), "{scheme:?}");
    }

    #[test]
    fn constant_time_equality_is_equality() {
        assert!(ct_eq(b"abc", b"abc"));
        assert!(!ct_eq(b"abc", b"abd"));
        assert!(!ct_eq(b"abc", b"abcd"));
        assert!(!ct_eq(b"", b"a"));
        assert!(ct_eq(b"", b""));
    }
}
