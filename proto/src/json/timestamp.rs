//! RFC 3339 timestamps for `google.protobuf.Timestamp` (spec §5.6.1).
//!
//! Output is always UTC with a `Z` suffix and millisecond precision
//! (`2026-01-15T10:20:30.123Z`); a value with sub-millisecond precision is written with 6 or
//! 9 fractional digits instead, so that no information is lost. Input accepts 0 to 9
//! fractional digits, `Z`/`z` or a numeric offset (normalised to UTC), and `T`/`t` as the
//! separator. The range is that of ProtoJSON: `0001-01-01T00:00:00Z` to
//! `9999-12-31T23:59:59.999999999Z`; leap seconds (`:60`) are refused.

use core::fmt;

/// Seconds of `0001-01-01T00:00:00Z` since the Unix epoch.
pub const MIN_SECONDS: i64 = -62_135_596_800;
/// Seconds of `9999-12-31T23:59:59Z` since the Unix epoch.
pub const MAX_SECONDS: i64 = 253_402_300_799;

/// Why a timestamp text or value was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimestampError {
    /// Not of the form `YYYY-MM-DDTHH:MM:SS[.fffffffff](Z|±HH:MM)`.
    Syntax,
    /// A field out of its range (month 13, February 30, hour 24, ...).
    FieldRange,
    /// Outside years 0001 to 9999, or nanos outside 0..1e9.
    OutOfRange,
}

impl fmt::Display for TimestampError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimestampError::Syntax => "invalid timestamp: expected RFC 3339, e.g. 2026-01-15T10:20:30.123Z",
            TimestampError::FieldRange => "invalid timestamp: a date or time field is out of range",
            TimestampError::OutOfRange => "invalid timestamp: outside 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999999Z",
        })
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (also the core's HTTP dates).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Proleptic Gregorian date of a day count since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// A formatted timestamp: at most `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`, 30 bytes, on the stack.
pub struct Formatted {
    buf: [u8; 30],
    len: usize,
}

impl Formatted {
    /// The text.
    pub fn as_str(&self) -> &str {
        // Only ASCII digits and the separators "-T:.Z" are ever written into `buf`, so the
        // slice is valid UTF-8 and this cannot fail.
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

/// Formats a timestamp as RFC 3339 UTC (`Z`) with milliseconds (see the module docs).
pub fn format(seconds: i64, nanos: i32) -> Result<Formatted, TimestampError> {
    if !(MIN_SECONDS..=MAX_SECONDS).contains(&seconds) || !(0..1_000_000_000).contains(&nanos) {
        return Err(TimestampError::OutOfRange);
    }
    let days = seconds.div_euclid(86_400);
    let secs = seconds.rem_euclid(86_400) as u32;
    let (y, mo, d) = civil_from_days(days);
    let mut buf = [0u8; 30];
    let mut len = 0;
    let nanos = nanos as u32;
    let (frac, width) = if nanos % 1_000_000 == 0 {
        (nanos / 1_000_000, 3)
    } else if nanos % 1_000 == 0 {
        (nanos / 1_000, 6)
    } else {
        (nanos, 9)
    };
    // y is within 1..=9999 because `seconds` is within MIN_SECONDS..=MAX_SECONDS.
    let parts: [(u32, u32, u8); 7] = [
        (y as u32, 4, b'-'),
        (mo, 2, b'-'),
        (d, 2, b'T'),
        (secs / 3600, 2, b':'),
        (secs / 60 % 60, 2, b':'),
        (secs % 60, 2, b'.'),
        (frac, width, b'Z'),
    ];
    for (v, w, sep) in parts {
        let mut div = 10u32.pow(w - 1);
        while div > 0 {
            buf[len] = b'0' + ((v / div) % 10) as u8;
            len += 1;
            div /= 10;
        }
        buf[len] = sep;
        len += 1;
    }
    Ok(Formatted { buf, len })
}

/// Parses an RFC 3339 timestamp into `(seconds, nanos)` since the Unix epoch, UTC.
pub fn parse(s: &str) -> Result<(i64, i32), TimestampError> {
    let b = s.as_bytes();
    let num = |range: core::ops::Range<usize>| -> Result<u32, TimestampError> {
        let digits = b.get(range).ok_or(TimestampError::Syntax)?;
        digits.iter().try_fold(
            0u32,
            |acc, &c| {
                if c.is_ascii_digit() {
                    Ok(acc * 10 + u32::from(c - b'0'))
                } else {
                    Err(TimestampError::Syntax)
                }
            },
        )
    };
    let sep = |at: usize, allowed: &[u8]| -> Result<(), TimestampError> {
        match b.get(at) {
            Some(c) if allowed.contains(c) => Ok(()),
            _ => Err(TimestampError::Syntax),
        }
    };
    let year = i64::from(num(0..4)?);
    sep(4, b"-")?;
    let month = num(5..7)?;
    sep(7, b"-")?;
    let day = num(8..10)?;
    sep(10, b"Tt")?;
    let hour = num(11..13)?;
    sep(13, b":")?;
    let minute = num(14..16)?;
    sep(16, b":")?;
    let second = num(17..19)?;
    let mut i = 19;
    let mut nanos = 0u32;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let n = i - start;
        if n == 0 || n > 9 {
            return Err(TimestampError::Syntax);
        }
        nanos = num(start..i)? * 10u32.pow(9 - n as u32);
    }
    let offset_secs: i64 = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(&c @ (b'+' | b'-')) if i + 6 == b.len() => {
            let oh = num(i + 1..i + 3)?;
            sep(i + 3, b":")?;
            let om = num(i + 4..i + 6)?;
            if oh > 23 || om > 59 {
                return Err(TimestampError::FieldRange);
            }
            let off = i64::from(oh * 3600 + om * 60);
            if c == b'+' {
                off
            } else {
                -off
            }
        }
        _ => return Err(TimestampError::Syntax),
    };
    if year < 1 || !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) || hour > 23 || minute > 59 || second > 59 {
        return Err(if year < 1 { TimestampError::OutOfRange } else { TimestampError::FieldRange });
    }
    let seconds = days_from_civil(year, month, day) * 86_400 + i64::from(hour * 3600 + minute * 60 + second) - offset_secs;
    if !(MIN_SECONDS..=MAX_SECONDS).contains(&seconds) {
        return Err(TimestampError::OutOfRange);
    }
    Ok((seconds, nanos as i32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_and_known_instants() {
        assert_eq!(parse("1970-01-01T00:00:00Z"), Ok((0, 0)));
        assert_eq!(parse("2026-01-15T10:20:30.123Z"), Ok((1_768_472_430, 123_000_000)));
        assert_eq!(format(1_768_472_430, 123_000_000).unwrap().as_str(), "2026-01-15T10:20:30.123Z");
        assert_eq!(format(0, 0).unwrap().as_str(), "1970-01-01T00:00:00.000Z");
        assert_eq!(format(-1, 0).unwrap().as_str(), "1969-12-31T23:59:59.000Z");
    }

    #[test]
    fn extremes_round_trip() {
        assert_eq!(format(MIN_SECONDS, 0).unwrap().as_str(), "0001-01-01T00:00:00.000Z");
        assert_eq!(format(MAX_SECONDS, 999_999_999).unwrap().as_str(), "9999-12-31T23:59:59.999999999Z");
        assert_eq!(parse("0001-01-01T00:00:00Z"), Ok((MIN_SECONDS, 0)));
        assert_eq!(parse("9999-12-31T23:59:59.999999999Z"), Ok((MAX_SECONDS, 999_999_999)));
        assert_eq!(format(MAX_SECONDS + 1, 0).err(), Some(TimestampError::OutOfRange));
        assert_eq!(format(0, -1).err(), Some(TimestampError::OutOfRange));
        assert_eq!(parse("9999-12-31T23:59:59-01:00"), Err(TimestampError::OutOfRange));
        assert_eq!(parse("0000-12-31T23:59:59Z"), Err(TimestampError::OutOfRange));
    }

    #[test]
    fn offsets_are_normalised() {
        assert_eq!(parse("2026-01-15T12:20:30+02:00"), parse("2026-01-15T10:20:30Z"));
        assert_eq!(parse("2026-01-15T05:50:30-04:30"), parse("2026-01-15T10:20:30Z"));
    }

    #[test]
    fn precision_is_kept() {
        assert_eq!(format(0, 1_000).unwrap().as_str(), "1970-01-01T00:00:00.000001Z");
        assert_eq!(format(0, 1).unwrap().as_str(), "1970-01-01T00:00:00.000000001Z");
        assert_eq!(parse("1970-01-01T00:00:00.5Z"), Ok((0, 500_000_000)));
    }

    #[test]
    fn every_day_of_four_centuries_round_trips() {
        let start = days_from_civil(1900, 1, 1);
        for d in start..start + 146_097 {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
            assert!(dd <= days_in_month(y, m));
        }
    }

    #[test]
    fn malformed_input_is_rejected() {
        for bad in [
            "",
            "2026-01-15",
            "2026-01-15 10:20:30Z",
            "2026-01-15T10:20:30",
            "2026-01-15T10:20:30.Z",
            "2026-01-15T10:20:30.1234567890Z",
            "2026-01-15T10:20:30+0200",
            "2026-1-15T10:20:30Z",
            "2026-01-15T10:20:30ZZ",
            "+2026-01-15T10:20:30Z",
        ] {
            assert_eq!(parse(bad), Err(TimestampError::Syntax), "{bad}");
        }
        for bad in
            ["2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-15T24:00:00Z", "2026-12-31T23:59:60Z", "2026-01-15T10:20:30+24:00"]
        {
            assert_eq!(parse(bad), Err(TimestampError::FieldRange), "{bad}");
        }
        assert!(parse("2024-02-29T00:00:00Z").is_ok());
    }
}
