//! ISO 8601 times, the one reading and writing of them for every face: turns in JSON
//! (`"createdAt": "2024-05-08T13:56:00Z"` or milliseconds), tool arguments and exports.

use std::format;
use std::string::String;

use super::civil::{civil_from_days, days_from_civil};

/// Milliseconds since the epoch of `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.fff]]` with an
/// optional `Z` or `±HH:MM` (or `±HHMM`) offset; a space may replace the `T`; no offset means
/// UTC. `None` for anything else.
pub fn parse_iso8601(s: &str) -> Option<i64> {
    let s = s.trim();
    let num = |t: &str| -> Option<i64> {
        (!t.is_empty() && t.len() <= 9 && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    };
    let (date, rest) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, ""),
    };
    let mut d = date.split('-');
    let (year, month, day) = (num(d.next()?)?, num(d.next()?)?, num(d.next()?)?);
    if d.next().is_some() || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    if day > i64::from(super::civil::days_in_month(year, month as u32)) {
        return None;
    }
    let (time, offset_min) = if let Some(t) = rest.strip_suffix(['Z', 'z']) {
        (t, 0)
    } else if let Some(i) = rest.rfind(['+', '-']) {
        let sign = if rest.as_bytes()[i] == b'-' { -1 } else { 1 };
        let off = &rest[i + 1..];
        let (h, m) = off
            .split_once(':')
            .unwrap_or((off.get(..2)?, off.get(2..)?));
        let (h, m) = (num(h)?, num(m)?);
        if h > 23 || m > 59 {
            return None;
        }
        (&rest[..i], sign * (h * 60 + m))
    } else {
        (rest, 0)
    };
    let (mut hour, mut minute, mut ms) = (0, 0, 0);
    if !time.is_empty() {
        let mut t = time.split(':');
        hour = num(t.next()?)?;
        minute = num(t.next()?)?;
        if let Some(sec) = t.next() {
            let (whole, frac) = sec.split_once(['.', ',']).unwrap_or((sec, ""));
            ms = num(whole)? * 1000;
            if !frac.is_empty() {
                let digits: String = frac.chars().chain("000".chars()).take(3).collect();
                ms += num(&digits)?;
            }
        }
        if t.next().is_some() || hour > 23 || minute > 59 || ms >= 61_000 {
            return None;
        }
    } else if !rest.is_empty() {
        return None;
    }
    let days = days_from_civil(year, month as u32, day as u32);
    Some(((days * 24 + hour) * 60 + minute - offset_min) * 60_000 + ms)
}

/// `YYYY-MM-DDTHH:MM:SSZ` (UTC), with `.fff` when the time has milliseconds, so that
/// [`parse_iso8601`] gives back exactly `ms`.
pub fn format_iso8601(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let frac = ms.rem_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let (hh, mm, ss) = (rem / 3600, rem % 3600 / 60, rem % 60);
    let year = if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else {
        format!("{y:+05}")
    };
    if frac == 0 {
        format!("{year}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z")
    } else {
        format!("{year}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}.{frac:03}Z")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_round_trips() {
        assert_eq!(parse_iso8601("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_iso8601("2026-11-27T09:00:00Z"),
            Some(1_795_770_000_000)
        );
        assert_eq!(
            parse_iso8601("2026-11-27 17:00:00+08:00"),
            Some(1_795_770_000_000)
        );
        assert_eq!(
            parse_iso8601("2026-11-27T04:00-0500"),
            Some(1_795_770_000_000)
        );
        assert_eq!(parse_iso8601("2000-02-29"), Some(951_782_400_000));
        assert_eq!(parse_iso8601("1969-12-31T23:59:00Z"), Some(-60_000));
        for bad in [
            "",
            "yesterday",
            "2026-13-01",
            "2026-02-30",
            "2026-11-27T25:00Z",
            "2026-11-27T09",
        ] {
            assert_eq!(parse_iso8601(bad), None, "{bad}");
        }
        for ms in [0, 1, 999, 1_795_770_000_250, -60_000, -1] {
            assert_eq!(parse_iso8601(&format_iso8601(ms)), Some(ms), "{ms}");
        }
        assert_eq!(format_iso8601(1_795_770_000_000), "2026-11-27T09:00:00Z");
    }
}
