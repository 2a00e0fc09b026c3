//! A2A protocol version negotiation (spec §3.6, §14.2.1; WIRE-NOTES (h)).
//!
//! - A version is `Major.Minor`. A patch part is accepted and ignored: `1.0.1` means `1.0`
//!   (the spec says patch numbers "are not used and are ignored in negotiation"), so a client
//!   that sends its library's full version still gets served.
//! - Surrounding whitespace is trimmed. A missing or empty value means `0.3` (§3.6.2).
//! - Anything else (`v1`, `1`, `one.zero`, `1.0-beta`) is not a version: it is answered with
//!   `VersionNotSupported` and the supported list, like an unknown version, because the
//!   client needs the same information either way.
//! - Where it travels: the `A2A-Version` HTTP header (name case-insensitive), the gRPC
//!   metadata key `a2a-version`, or the `A2A-Version` query parameter. When both a header and
//!   a query parameter are present, the header wins.
//! - The check runs before any operation is dispatched ([`negotiate`]).

use crate::error::A2aError;
use core::fmt;

/// A protocol version, `Major.Minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProtocolVersion {
    /// Major number.
    pub major: u16,
    /// Minor number.
    pub minor: u16,
}

impl ProtocolVersion {
    /// v0.3, also what a request without a version means.
    pub const V0_3: ProtocolVersion = ProtocolVersion { major: 0, minor: 3 };
    /// v1.0.
    pub const V1_0: ProtocolVersion = ProtocolVersion { major: 1, minor: 0 };

    /// Parses `Major.Minor` or `Major.Minor.Patch` (patch ignored), whitespace trimmed.
    /// `None` for anything else, including the empty string (see [`requested`]).
    pub fn parse(s: &str) -> Option<ProtocolVersion> {
        let s = s.trim();
        let mut parts = s.split('.');
        let major = number(parts.next()?)?;
        let minor = number(parts.next()?)?;
        match (parts.next(), parts.next()) {
            (None, _) => {}
            (Some(patch), None) => {
                number(patch)?;
            }
            _ => return None,
        }
        Some(ProtocolVersion { major, minor })
    }

    /// True for 0.x versions, which use the v0.3 wire model.
    pub fn is_legacy(self) -> bool {
        self.major == 0
    }
}

fn number(s: &str) -> Option<u16> {
    if s.is_empty() || s.len() > 5 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// What a request asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requested<'a> {
    /// A version (from the header, metadata or query parameter; or 0.3 when absent or empty).
    Version(ProtocolVersion),
    /// A value that is not a version; kept for the error message.
    Malformed(&'a str),
}

/// The requested version from the raw value of the `A2A-Version` header (or metadata entry,
/// or query parameter): absent or blank means 0.3.
pub fn requested(value: Option<&str>) -> Requested<'_> {
    match value.map(str::trim) {
        None | Some("") => Requested::Version(ProtocolVersion::V0_3),
        Some(v) => ProtocolVersion::parse(v).map_or(Requested::Malformed(v), Requested::Version),
    }
}

/// Finds the raw `A2A-Version` value of a request: the first header named `A2A-Version`
/// (any case; gRPC's `a2a-version` metadata is the same) that is not blank, else the
/// `A2A-Version` query parameter (any case) of `query` (the part after `?`,
/// percent-decoding not needed for a version), else `None`.
pub fn find_raw<'a>(headers: impl IntoIterator<Item = (&'a str, &'a str)>, query: Option<&'a str>) -> Option<&'a str> {
    for (name, value) in headers {
        if name.eq_ignore_ascii_case("a2a-version") && !value.trim().is_empty() {
            return Some(value);
        }
    }
    let query = query?;
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k.eq_ignore_ascii_case("a2a-version") && !v.trim().is_empty()).then_some(v)
    })
}

/// Decides the version a request is served with: the requested version if the interface
/// serves it (`supported`, Major.Minor), else `VersionNotSupported` naming the requested
/// value and carrying the supported list.
pub fn negotiate(requested: Requested<'_>, supported: &[ProtocolVersion]) -> Result<ProtocolVersion, A2aError> {
    match requested {
        Requested::Version(v) if supported.contains(&v) => Ok(v),
        Requested::Version(v) => Err(A2aError::version_not_supported(&alloc::format!("{v}"), supported)),
        Requested::Malformed(raw) => Err(A2aError::version_not_supported(raw, supported)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use alloc::string::String;

    #[test]
    fn parses_major_minor_and_ignores_patch() {
        assert_eq!(ProtocolVersion::parse("1.0"), Some(ProtocolVersion::V1_0));
        assert_eq!(ProtocolVersion::parse(" 0.3 "), Some(ProtocolVersion::V0_3));
        assert_eq!(ProtocolVersion::parse("1.0.1"), Some(ProtocolVersion::V1_0));
        assert_eq!(ProtocolVersion::parse("0.3.0"), Some(ProtocolVersion::V0_3));
        assert_eq!(ProtocolVersion::parse("12.34"), Some(ProtocolVersion { major: 12, minor: 34 }));
        for bad in ["", "1", "v1.0", "1.0.", ".1", "1..0", "1.0.1.2", "1.0-beta", "one.zero", "1.x", "+1.0", "1.0 0", "99999999.0"] {
            assert_eq!(ProtocolVersion::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn missing_or_blank_means_0_3() {
        assert_eq!(requested(None), Requested::Version(ProtocolVersion::V0_3));
        assert_eq!(requested(Some("")), Requested::Version(ProtocolVersion::V0_3));
        assert_eq!(requested(Some("  ")), Requested::Version(ProtocolVersion::V0_3));
        assert_eq!(requested(Some("1.0")), Requested::Version(ProtocolVersion::V1_0));
        assert_eq!(requested(Some("latest")), Requested::Malformed("latest"));
    }

    #[test]
    fn header_names_are_case_insensitive_and_the_header_beats_the_query() {
        let h = [("content-type", "application/json"), ("A2A-VERSION", "1.0")];
        assert_eq!(find_raw(h, Some("A2A-Version=0.3")), Some("1.0"));
        assert_eq!(find_raw([("a2a-version", "0.3")], None), Some("0.3"));
        assert_eq!(find_raw([], Some("historyLength=2&a2a-version=1.0")), Some("1.0"));
        assert_eq!(find_raw([("A2A-Version", " ")], Some("A2A-Version=1.0")), Some("1.0"));
        assert_eq!(find_raw([], Some("x=1")), None);
        assert_eq!(find_raw([], None), None);
    }

    #[test]
    fn unsupported_versions_carry_the_supported_list() {
        let served = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];
        assert_eq!(negotiate(requested(Some("1.0.1")), &served), Ok(ProtocolVersion::V1_0));
        assert_eq!(negotiate(requested(None), &served), Ok(ProtocolVersion::V0_3));
        let err = negotiate(requested(None), &[ProtocolVersion::V1_0]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::VersionNotSupported);
        assert_eq!(err.metadata().get("supportedVersions").map(String::as_str), Some("1.0"));
        assert_eq!(err.metadata().get("requestedVersion").map(String::as_str), Some("0.3"));
        let err = negotiate(requested(Some("2.0")), &served).unwrap_err();
        assert_eq!(err.metadata().get("supportedVersions").map(String::as_str), Some("1.0,0.3"));
        let err = negotiate(requested(Some("banana")), &served).unwrap_err();
        assert_eq!(err.metadata().get("requestedVersion").map(String::as_str), Some("banana"));
    }
}
