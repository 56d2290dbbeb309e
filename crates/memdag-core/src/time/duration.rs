//! Durations as people write them: `90s`, `15m`, `12h`, `30d`, `2w`, or a bare number of
//! seconds; also `1.5h` and words (`30 days`, `2 weeks`). The one parser of time to live for
//! every face (`memdag memory add --ttl 30d`, `ttl: "30d"` in JS).

use std::format;
use std::string::String;

use crate::error::{Error, Result};

/// The milliseconds of a duration. [`Error::InvalidInput`] for anything else, a zero, a
/// negative or an overflowing duration.
pub fn parse_duration(text: &str) -> Result<i64> {
    let t = text.trim().to_ascii_lowercase();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let unit = unit.trim();
    let bad = || {
        Error::invalid(format!(
            "{text:?} is not a duration (like 90s, 15m, 12h, 30d, 2w)"
        ))
    };
    let n: f64 = number.parse().map_err(|_| bad())?;
    let ms_per: f64 = match unit {
        "" | "s" | "sec" | "secs" | "second" | "seconds" => 1_000.0,
        "ms" => 1.0,
        "m" | "min" | "mins" | "minute" | "minutes" => 60_000.0,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3_600_000.0,
        "d" | "day" | "days" => 86_400_000.0,
        "w" | "wk" | "week" | "weeks" => 604_800_000.0,
        _ => return Err(bad()),
    };
    let ms = n * ms_per;
    if !ms.is_finite() || !(1.0..=9.0e15).contains(&ms) {
        return Err(bad());
    }
    Ok(ms.round() as i64)
}

/// A duration in the largest whole unit that fits: `30d`, `12h`, `90s`.
pub fn format_duration(ms: i64) -> String {
    for (unit, size) in [
        ("w", 604_800_000),
        ("d", 86_400_000),
        ("h", 3_600_000),
        ("m", 60_000),
        ("s", 1_000),
    ] {
        if ms >= size && ms % size == 0 {
            return format!("{}{unit}", ms / size);
        }
    }
    format!("{ms}ms")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_errors() {
        assert_eq!(parse_duration("90s").unwrap(), 90_000);
        assert_eq!(parse_duration("30d").unwrap(), 30 * 86_400_000);
        assert_eq!(parse_duration("1.5h").unwrap(), 5_400_000);
        assert_eq!(parse_duration("2 weeks").unwrap(), 2 * 604_800_000);
        assert_eq!(parse_duration("45").unwrap(), 45_000);
        for bad in ["", "0s", "-3d", "3 fortnights", "d", "1e400d"] {
            assert_eq!(
                parse_duration(bad).unwrap_err().code(),
                "INVALID_INPUT",
                "{bad}"
            );
        }
        assert_eq!(format_duration(30 * 86_400_000), "30d");
        assert_eq!(format_duration(90_000), "90s");
    }
}
