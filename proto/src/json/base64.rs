//! Base64 for ProtoJSON `bytes`: standard alphabet with padding on output; standard or
//! URL-safe alphabet, padded or unpadded, on input (WIRE-NOTES (b)).

use alloc::string::String;
use alloc::vec::Vec;

const STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Why a base64 text was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base64Error {
    /// A byte outside both alphabets, at this offset.
    InvalidByte(usize),
    /// A length no encoding produces (one character left over), or misplaced `=`.
    InvalidLength,
}

impl core::fmt::Display for Base64Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Base64Error::InvalidByte(at) => write!(f, "invalid base64: unexpected character at offset {at}"),
            Base64Error::InvalidLength => f.write_str("invalid base64: bad length or padding"),
        }
    }
}

/// Standard base64 with padding.
pub fn encode(input: &[u8]) -> String {
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    encode_into(input, &mut out);
    out
}

/// Appends the standard padded base64 of `input` to `out`.
pub fn encode_into(input: &[u8], out: &mut String) {
    let mut chunks = input.chunks_exact(3);
    for c in &mut chunks {
        let n = (u32::from(c[0]) << 16) | (u32::from(c[1]) << 8) | u32::from(c[2]);
        for shift in [18, 12, 6, 0] {
            out.push(STD[((n >> shift) & 63) as usize] as char);
        }
    }
    match *chunks.remainder() {
        [a] => {
            let n = u32::from(a) << 16;
            out.push(STD[((n >> 18) & 63) as usize] as char);
            out.push(STD[((n >> 12) & 63) as usize] as char);
            out.push_str("==");
        }
        [a, b] => {
            let n = (u32::from(a) << 16) | (u32::from(b) << 8);
            out.push(STD[((n >> 18) & 63) as usize] as char);
            out.push(STD[((n >> 12) & 63) as usize] as char);
            out.push(STD[((n >> 6) & 63) as usize] as char);
            out.push('=');
        }
        _ => {}
    }
}

fn sextet(b: u8) -> Option<u32> {
    Some(match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    } as u32)
}

/// Decodes standard or URL-safe base64, with or without `=` padding.
pub fn decode(input: &str) -> Result<Vec<u8>, Base64Error> {
    let bytes = input.as_bytes();
    let body = match bytes {
        [rest @ .., b'=', b'='] => {
            if bytes.len() % 4 != 0 {
                return Err(Base64Error::InvalidLength);
            }
            rest
        }
        [rest @ .., b'='] => {
            if bytes.len() % 4 != 0 {
                return Err(Base64Error::InvalidLength);
            }
            rest
        }
        _ => bytes,
    };
    if body.len() % 4 == 1 {
        return Err(Base64Error::InvalidLength);
    }
    let mut out = Vec::with_capacity(body.len() / 4 * 3 + 2);
    let mut chunks = body.chunks_exact(4);
    let mut offset = 0;
    for c in &mut chunks {
        let mut n = 0u32;
        for (i, &b) in c.iter().enumerate() {
            n = (n << 6) | sextet(b).ok_or(Base64Error::InvalidByte(offset + i))?;
        }
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
        offset += 4;
    }
    let rest = chunks.remainder();
    let mut n = 0u32;
    for (i, &b) in rest.iter().enumerate() {
        n = (n << 6) | sextet(b).ok_or(Base64Error::InvalidByte(offset + i))?;
    }
    match rest.len() {
        2 => out.push((n >> 4) as u8),
        3 => out.extend_from_slice(&[(n >> 10) as u8, (n >> 2) as u8]),
        _ => {}
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4648_vectors_round_trip() {
        let cases: &[(&str, &str)] = &[
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, enc) in cases {
            assert_eq!(encode(plain.as_bytes()), *enc);
            assert_eq!(decode(enc).unwrap(), plain.as_bytes());
            assert_eq!(decode(enc.trim_end_matches('=')).unwrap(), plain.as_bytes(), "unpadded {enc}");
        }
    }

    #[test]
    fn url_safe_alphabet_is_accepted() {
        assert_eq!(decode("-_8").unwrap(), [0xfb, 0xff]);
        assert_eq!(decode("+/8=").unwrap(), [0xfb, 0xff]);
    }

    #[test]
    fn malformed_input_is_rejected() {
        assert_eq!(decode("Zg="), Err(Base64Error::InvalidLength));
        assert_eq!(decode("Z"), Err(Base64Error::InvalidLength));
        assert_eq!(decode("Zm9v!A=="), Err(Base64Error::InvalidByte(4)));
        assert_eq!(decode("Zm=v"), Err(Base64Error::InvalidByte(2)));
    }
}
