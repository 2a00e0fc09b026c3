//! The JSON Canonicalization Scheme (RFC 8785, "JCS"): the one byte form of a JSON value
//! that signers and verifiers agree on (the Agent Card signature payload, spec §8.4.1).
//!
//! - Objects: members sorted by their names as UTF-16 code units (RFC 8785 §3.2.3), so
//!   `"\u{1F600}"` (surrogates `D83D DE00`) sorts before `"\u{FB33}"`.
//! - Numbers: IEEE-754 doubles written as ECMAScript's `Number.prototype.toString` writes
//!   them (§3.2.2.3): the shortest digits that read back as the same double, in plain
//!   notation for exponents from -6 to 20 and as `1e+21`, `5e-324` otherwise; `-0` is `0`.
//!   Integers beyond 2^53 become the nearest double, as every JCS implementation reads them.
//! - Strings: as ECMAScript's `JSON.stringify`: `"` and `\` escaped, control characters as
//!   `\b \t \n \f \r` or `\u00xx` (lowercase hex), everything else as UTF-8.
//! - Literals as themselves, no whitespace anywhere.
//!
//! [`canonicalize_text`] also refuses what RFC 8785 requires its input not to have (I-JSON,
//! RFC 7493): duplicate member names, and (as serde_json does) invalid Unicode.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::{self, Write as _};
use serde_json::Value;

/// Why a text could not be canonicalized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JcsError(String);

impl fmt::Display for JcsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot canonicalize: {}", self.0)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for JcsError {}

/// The canonical form of `value`.
pub fn canonicalize(value: &Value) -> Vec<u8> {
    let mut out = String::new();
    write_value(value, &mut out);
    out.into_bytes()
}

/// The canonical form of the JSON text `text`; refuses text that is not I-JSON (duplicate
/// member names, invalid UTF-8 or lone surrogates) or not JSON at all.
pub fn canonicalize_text(text: &[u8]) -> Result<Vec<u8>, JcsError> {
    let text = core::str::from_utf8(text).map_err(|e| JcsError(alloc::format!("not UTF-8: {e}")))?;
    let Strict(value) = serde_json::from_str::<Strict>(text).map_err(|e| JcsError(e.to_string()))?;
    Ok(canonicalize(&value))
}

fn write_value(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(n.as_f64().unwrap_or(0.0), out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            out.push('{');
            for (i, (k, item)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(k, out);
                out.push(':');
                write_value(item, out);
            }
            out.push('}');
        }
    }
}

/// `Number.prototype.toString` of a finite double (ECMA-262 `Number::toString`, radix 10).
/// serde_json holds no NaN or infinity, so every number here is finite.
fn write_number(v: f64, out: &mut String) {
    if v == 0.0 || !v.is_finite() {
        out.push('0');
        return;
    }
    if v < 0.0 {
        out.push('-');
    }
    // Rust's `{:e}` writes the shortest digits that round-trip: `d[.ddd]e[-]x`.
    let mut sci = String::new();
    // Writing to a String cannot fail.
    let _ = write!(sci, "{:e}", v.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let mut digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exp = exp.parse::<i64>().unwrap_or(0);
    ties_to_even(&mut digits, exp, v.abs());
    let k = digits.len() as i64;
    // ECMA-262's n: the value is 0.d1d2... x 10^n.
    let n = exp + 1;
    if k <= n && n <= 21 {
        out.push_str(&digits);
        for _ in 0..(n - k) {
            out.push('0');
        }
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        for _ in 0..(-n) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push('e');
        out.push(if n - 1 < 0 { '-' } else { '+' });
        let _ = write!(out, "{}", (n - 1).abs());
    }
}

/// ECMA-262 picks, of two shortest digit strings as close to the value as each other, the
/// even one; Rust's shortest form rounds such a tie up. A tie needs the exact value to end
/// one digit further in a 5, so the exact expansion (at most 767 significant digits for a
/// double) is read only then.
fn ties_to_even(digits: &mut String, exp: i64, v: f64) {
    let k = digits.len();
    let Some(&last) = digits.as_bytes().last() else { return };
    if last % 2 == 0 {
        return;
    }
    let mut probe = String::new();
    let _ = write!(probe, "{:.*e}", k, v);
    if probe.split_once('e').map(|(m, _)| m.ends_with('5')) != Some(true) {
        return;
    }
    let mut exact = String::new();
    let _ = write!(exact, "{:.*e}", k + 800, v);
    let Some((m, e)) = exact.split_once('e') else { return };
    let all: String = m.chars().filter(char::is_ascii_digit).collect();
    let mid_is_exact = e.parse::<i64>() == Ok(exp)
        && all.as_bytes().get(..k - 1) == digits.as_bytes().get(..k - 1)
        && all.as_bytes().get(k - 1) == Some(&(last - 1))
        && all.as_bytes().get(k) == Some(&b'5')
        && all.bytes().skip(k + 1).all(|b| b == b'0');
    if !mid_is_exact {
        return;
    }
    // The even neighbour below, if it reads back as the same double.
    let mut below = String::from(&digits[..k - 1]);
    below.push(char::from(last - 1));
    let mut text = String::new();
    let _ = write!(text, "0.{below}e{}", exp + 1);
    if text.parse::<f64>() == Ok(v) {
        *digits = below;
    }
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{0c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A JSON value whose objects have no duplicate member names (I-JSON).
struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(String::from(v)))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element::<Strict>()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(v) = map.next_value::<Strict>()?;
            if members.insert(key.clone(), v).is_some() {
                return Err(serde::de::Error::custom(alloc::format!("duplicate member name {key:?}")));
            }
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared vectors (`tests/vectors/jcs/rfc8785.json`): RFC 8785's own examples.
    const VECTORS: &str = include_str!("../../tests/vectors/jcs/rfc8785.json");

    /// The vector file's cases under `list`. Cannot fail on the committed file (a JSON object
    /// with `numbers` and `documents` arrays); if the file were broken, failing is the test's
    /// right answer.
    fn cases(list: &str) -> Vec<Value> {
        let v: Value = serde_json::from_str(VECTORS).expect("the vector file is JSON");
        v[list].as_array().cloned().expect("the vector file lists its cases as arrays")
    }

    /// A text member of a case (the committed file has every one it is asked for).
    fn text<'a>(case: &'a Value, key: &str) -> &'a str {
        case[key].as_str().expect("the vector names this member, as text")
    }

    #[test]
    fn rfc8785_number_samples() {
        let numbers = cases("numbers");
        assert!(numbers.len() >= 20, "the RFC's appendix B table");
        for case in &numbers {
            let hex = text(case, "ieee754");
            let Ok(bits) = u64::from_str_radix(hex, 16) else { panic!("{hex}: not 16 hex digits") };
            let f = f64::from_bits(bits);
            match case["canonical"].as_str() {
                Some(expected) => {
                    let mut out = String::new();
                    write_number(f, &mut out);
                    assert_eq!(out, expected, "{hex}");
                    // And through a JSON value, as a card's numbers go.
                    let text = alloc::format!("[{expected}]");
                    assert_eq!(canonicalize_text(text.as_bytes()).as_deref(), Ok(alloc::format!("[{expected}]").as_bytes()), "{hex}");
                }
                None => assert!(!f.is_finite(), "{hex}: only NaN and infinities have no JSON form"),
            }
        }
    }

    #[test]
    fn rfc8785_documents() {
        let docs = cases("documents");
        assert!(!docs.is_empty());
        for case in &docs {
            let name = case["name"].as_str().unwrap_or("?");
            let (input, expected) = (text(case, "input"), text(case, "canonical"));
            let got = canonicalize_text(input.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(core::str::from_utf8(&got), Ok(expected), "{name}");
            // Canonical text is a fixed point.
            assert_eq!(canonicalize_text(&got).as_deref(), Ok(got.as_slice()), "{name}: canonical twice");
        }
    }

    #[test]
    fn not_i_json_is_refused() {
        assert!(canonicalize_text(br#"{"a":1,"a":2}"#).is_err(), "duplicate names");
        assert!(canonicalize_text(br#"{"x":{"b":1,"b":1}}"#).is_err(), "nested duplicates");
        assert!(canonicalize_text(br#""\ud800""#).is_err(), "a lone surrogate");
        assert!(canonicalize_text(b"\"\xff\"").is_err(), "not UTF-8");
        assert!(canonicalize_text(b"{").is_err());
        assert_eq!(canonicalize_text(b" [ 1 , 2.50 , -0 , 1E2 ] ").as_deref(), Ok(&b"[1,2.5,0,100]"[..]));
    }
}
