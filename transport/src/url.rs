//! The URLs a2a-wire-smol dials: `http://host[:port][/path]`, `https://host[:port][/path]`
//! (TLS), or a bare `host:port[/path]` (how v1.0 cards publish cleartext gRPC interfaces).

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
    /// `https://`: the connection runs TLS.
    pub tls: bool,
    /// The host as TLS verifies it: a DNS name or an IP address, without port or brackets.
    pub server_name: String,
}

/// Parses `http://host[:port][/path]`, `https://host[:port][/path]`, or a bare
/// `host:port[/path]` (cleartext).
pub fn parse_url(url: &str) -> Result<Url, Error> {
    let (rest, tls) = if let Some(r) = url.strip_prefix("http://") {
        (r, false)
    } else if let Some(r) = url.strip_prefix("https://") {
        (r, true)
    } else if url.contains("://") {
        return Err(Error::Url(format!("{url}: only http:// and https:// are supported")));
    } else {
        (url, false)
    };
    let (auth, path) = match rest.find(['/', '?']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    if auth.is_empty() || auth.contains('@') {
        return Err(Error::Url(format!("{url}: no host, or credentials in the URL")));
    }
    let (name, has_port) = match auth.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((addr, after)) if after.is_empty() || after.starts_with(':') => (addr, !after.is_empty()),
            _ => return Err(Error::Url(format!("{url}: an IPv6 address needs its closing ]"))),
        },
        None => (auth.split(':').next().unwrap_or(auth), auth.contains(':')),
    };
    let authority = match (has_port, tls) {
        (true, _) => String::from(auth),
        (false, true) => format!("{auth}:443"),
        (false, false) => format!("{auth}:80"),
    };
    let target = if path.starts_with('?') { format!("/{path}") } else { String::from(path) };
    Ok(Url { authority, host: String::from(auth), target, tls, server_name: String::from(name) })
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
        let u = parse_url("https://agent.example/a2a").unwrap();
        assert_eq!(
            (u.authority.as_str(), u.host.as_str(), u.server_name.as_str(), u.tls),
            ("agent.example:443", "agent.example", "agent.example", true)
        );
        let u = parse_url("https://[::1]:8443/").unwrap();
        assert_eq!((u.authority.as_str(), u.server_name.as_str()), ("[::1]:8443", "::1"));
        let u = parse_url("https://127.0.0.1:9").unwrap();
        assert_eq!((u.server_name.as_str(), u.target.as_str()), ("127.0.0.1", "/"));
        assert!(!parse_url("http://a:1/").unwrap().tls);
        assert!(matches!(parse_url("https://[::1/"), Err(Error::Url(_))));
        assert!(matches!(parse_url("ftp://a/"), Err(Error::Url(_))));
        assert!(matches!(parse_url("http://user:pw@a/"), Err(Error::Url(_))));
        assert!(matches!(parse_url("http:///x"), Err(Error::Url(_))));
    }
}
