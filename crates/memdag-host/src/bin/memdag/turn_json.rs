//! A turn as JSON, for the bundled demo session and `memdag ingest`: the WIT `new-turn` with
//! defaults, `created_at` as milliseconds or an ISO 8601 string.

use serde::Deserialize;

use memdag_host::{CompactNode, NewTurn, Section, Step};

/// One turn of a JSON file.
#[derive(Deserialize)]
pub struct JsonTurn {
    pub id: Option<String>,
    pub thread: String,
    #[serde(default)]
    pub user: String,
    #[serde(default)]
    pub created_at: Option<Time>,
    #[serde(default)]
    pub input: String,
    #[serde(default)]
    pub output: String,
    #[serde(default)]
    pub steps: Vec<JsonStep>,
    #[serde(default)]
    pub parents: Vec<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    pub importance: Option<f32>,
    pub compact: Option<JsonCompact>,
    pub embedding: Option<Vec<f32>>,
}

/// A time: ms since the epoch, or an ISO 8601 string.
#[derive(Deserialize)]
#[serde(untagged)]
pub enum Time {
    Ms(i64),
    Text(String),
}

#[derive(Deserialize)]
pub struct JsonStep {
    tool: String,
    #[serde(default)]
    args: String,
    #[serde(default)]
    result: String,
    #[serde(default = "yes")]
    ok: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
pub struct JsonCompact {
    summary: String,
    #[serde(default)]
    sections: Vec<JsonSection>,
}

#[derive(Deserialize)]
pub struct JsonSection {
    name: String,
    text: String,
}

impl JsonTurn {
    /// The turn for the component; an unparsable time is an error naming it.
    pub fn into_new_turn(self) -> Result<NewTurn, String> {
        let created_at = match self.created_at {
            None => 0,
            Some(Time::Ms(ms)) => ms,
            Some(Time::Text(s)) => parse_iso8601(&s)
                .ok_or_else(|| format!("created_at {s:?} is not an ISO 8601 time"))?,
        };
        Ok(NewTurn {
            id: self.id,
            thread: self.thread,
            user: self.user,
            created_at,
            input: self.input,
            output: self.output,
            steps: self
                .steps
                .into_iter()
                .map(|s| Step {
                    tool: s.tool,
                    args: s.args,
                    result: s.result,
                    ok: s.ok,
                })
                .collect(),
            parents: self.parents,
            tags: self.tags,
            importance: self.importance,
            compact: self.compact.map(|c| CompactNode {
                summary: c.summary,
                sections: c
                    .sections
                    .into_iter()
                    .map(|s| Section {
                        name: s.name,
                        text: s.text,
                    })
                    .collect(),
            }),
            embedding: self.embedding,
        })
    }
}

/// Milliseconds since the epoch of `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.fff]]` with an
/// optional `Z` or `±HH:MM` offset (a space may replace the `T`; no offset means UTC).
pub fn parse_iso8601(s: &str) -> Option<i64> {
    let s = s.trim();
    let num = |t: &str| -> Option<i64> {
        (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
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
    // Split off the offset: `Z`, or the last `+`/`-` of the time part.
    let (time, offset_min) = if let Some(t) = rest.strip_suffix(['Z', 'z']) {
        (t, 0)
    } else if let Some(i) = rest.rfind(['+', '-']) {
        let sign = if rest.as_bytes()[i] == b'-' { -1 } else { 1 };
        let off = &rest[i + 1..];
        let (h, m) = off
            .split_once(':')
            .unwrap_or((off.get(..2)?, off.get(2..)?));
        (&rest[..i], sign * (num(h)? * 60 + num(m)?))
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
    }
    let days = days_from_civil(year, month, day);
    Some(((days * 24 + hour) * 60 + minute - offset_min) * 60_000 + ms)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_iso8601() {
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
            parse_iso8601("2026-11-27T09:00:00.250Z"),
            Some(1_795_770_000_250)
        );
        assert_eq!(parse_iso8601("2000-02-29"), Some(951_782_400_000));
        assert_eq!(parse_iso8601("1969-12-31T23:59:00Z"), Some(-60_000));
        assert_eq!(
            parse_iso8601("2026-11-27T04:00-0500"),
            Some(1_795_770_000_000)
        );
        for bad in [
            "",
            "yesterday",
            "2026-13-01",
            "2026-11-27T25:00Z",
            "2026-11-27T09",
        ] {
            assert_eq!(parse_iso8601(bad), None, "{bad}");
        }
    }
}
