//! The URLs a2a-wire-smol dials: `http://host[:port][/path]`, or a bare `host:port[/path]`
//! (how v1.0 cards publish gRPC interfaces).

use crate::error::Error;

/// A parsed URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    /// `host:port` to dial.
    pub authority: String,
    /// `Host` header value.
    pub host: String,
    /// Path and query, at least `/`.
    pub target: String,
}

/// Parses `http://host[:port][/path]`, or a bare `host:port[/path]`.
pub fn parse_url(url: &str) -> Result<Url, Error> {
    let rest = if let Some(r) = url.strip_prefix("http://") {
        r
    } else if url.starts_with("https://") {
        return Err(Error::Url(format!("{url}: TLS is not built into a2a-wire-smol yet; put a TLS-terminating proxy in front")));
    } else if url.contains("://") {
        return Err(Error::Url(format!("{url}: only http:// is supported")));
    } else {
        url
    };
    let (auth, path) = match rest.find(['/', '?']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    if auth.is_empty() || auth.contains('@') {
        return Err(Error::Url(format!("{url}: no host, or credentials in the URL")));
    }
    let has_port = if auth.starts_with('[') { auth.contains("]:") } else { auth.contains(':') };
    let authority = if has_port { String::from(auth) } else { format!("{auth}:80") };
    let target = if path.starts_with('?') { format!("/{path}") } else { String::from(path) };
    Ok(Url { authority, host: String::from(auth), target })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_to_authority_host_and_target() {
        let u = parse_url("http://127.0.0.1:8080/a2a/v1?x=1").unwrap();
        assert_eq!((u.authority.as_str(), u.host.as_str(), u.target.as_str()), ("127.0.0.1:8080", "127.0.0.1:8080", "/a2a/v1?x=1"));
        let u = parse_url("http://example.org").unwrap();
        assert_eq!((u.authority.as_str(), u.target.as_str()), ("example.org:80", "/"));
        let u = parse_url("localhost:50051").unwrap();
        assert_eq!((u.authority.as_str(), u.target.as_str()), ("localhost:50051", "/"));
        let u = parse_url("http://[::1]:9/x").unwrap();
        assert_eq!(u.authority, "[::1]:9");
        assert!(matches!(parse_url("https://a/"), Err(Error::Url(m)) if m.contains("TLS")));
        assert!(matches!(parse_url("ftp://a/"), Err(Error::Url(_))));
        assert!(matches!(parse_url("http://user:pw@a/"), Err(Error::Url(_))));
        assert!(matches!(parse_url("http:///x"), Err(Error::Url(_))));
    }
}
