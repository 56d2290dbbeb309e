//! Derived keys: words a record is findable by that its own text may not hold.
//!
//! At index time each record gets a short key text, indexed beside its raw fields (never
//! instead of them) in postings of their own, and scored as one more BM25 field with the
//! weight [`FieldWeights::keys`](super::FieldWeights::keys) (0 turns the keys off per query):
//! - the record's user, so "what did ada say about backups" favours ada's records;
//! - the calendar forms of `created_at` (UTC): day of the month, month name, year and weekday,
//!   e.g. `8 May 2023 Monday`, so "what happened in May 2023" or "last Monday's plan" can
//!   match records whose text never names their date. A `created_at` of 0 (not given) has no
//!   date keys.
//!
//! The keys are a pure function of the record, so a reloaded store derives the same ones, and
//! nothing is persisted for them.

use std::format;
use std::string::String;

use crate::record::Record;

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
/// Weekdays from Sunday; day 0 of the epoch (1970-01-01) was a Thursday.
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const DAY_MS: i64 = 86_400_000;

/// The key text of a record: its user and the calendar forms of its creation time.
pub fn derived_keys(record: &Record) -> String {
    let mut keys = String::new();
    if record.created_at != 0 {
        keys.push_str(&date_forms(record.created_at));
    }
    if !record.user.is_empty() {
        if !keys.is_empty() {
            keys.push(' ');
        }
        keys.push_str(&record.user);
    }
    keys
}

/// `8 May 2023 Monday` for a time in ms since the epoch (UTC).
pub fn date_forms(ms: i64) -> String {
    let days = ms.div_euclid(DAY_MS);
    let (y, m, d) = civil_from_days(days);
    let weekday = WEEKDAYS[(days + 4).rem_euclid(7) as usize];
    format!("{d} {} {y} {weekday}", MONTHS[(m - 1) as usize])
}

/// The proleptic Gregorian date (year, month 1..=12, day 1..=31) of a day count since
/// 1970-01-01 (the inverse of the usual days-from-civil, by eras of 400 years).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar_forms_of_known_days() {
        assert_eq!(date_forms(0), "1 January 1970 Thursday");
        // 2023-05-08T13:56:00Z
        assert_eq!(date_forms(1_683_554_160_000), "8 May 2023 Monday");
        // 2000-02-29, a leap day, and the day before the epoch.
        assert_eq!(date_forms(951_782_400_000), "29 February 2000 Tuesday");
        assert_eq!(date_forms(-1), "31 December 1969 Wednesday");
    }

    #[test]
    fn keys_hold_user_and_date_but_no_date_when_unset() {
        let mut r = Record {
            id: "a".into(),
            seq: 0,
            thread: "t".into(),
            user: "ada".into(),
            created_at: 0,
            input: String::new(),
            output: String::new(),
            steps: Vec::new(),
            parents: Vec::new(),
            tags: Vec::new(),
            importance: 0.5,
            compact: None,
            embedding: None,
            item: None,
        };
        assert_eq!(derived_keys(&r), "ada");
        r.created_at = 1_683_554_160_000;
        assert_eq!(derived_keys(&r), "8 May 2023 Monday ada");
    }
}
