//! Derived keys: words a record is findable by that its own text may not hold.
//!
//! At index time each record gets a short key text, indexed beside its raw fields (never
//! instead of them) in postings of their own, and scored as one more BM25 field with the
//! weight [`FieldWeights::keys`](super::bm25::FieldWeights::keys) (0 turns the keys off per query):
//! - the record's user, so "what did ada say about backups" favours ada's records;
//! - the calendar forms of `created_at` (UTC): day of the month, month name, year and weekday,
//!   e.g. `8 May 2023 Monday`, so "what happened in May 2023" or "last Monday's plan" can
//!   match records whose text never names their date. A `created_at` of 0 (not given) has no
//!   date keys. The calendar is [`crate::time::civil`]'s.
//!
//! The keys are a pure function of the record, so a reloaded store derives the same ones, and
//! nothing is persisted for them.

use std::format;
use std::string::String;

use crate::record::Record;
use crate::time::civil;

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
    let days = civil::local_day(ms, 0);
    let (y, m, d) = civil::civil_from_days(days);
    let month = civil::MONTH_NAMES[(m - 1) as usize];
    let weekday = civil::WEEKDAY_NAMES[civil::weekday(days) as usize];
    format!("{d} {month} {y} {weekday}")
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
            user: "ada".into(),
            ..crate::index::test_record(0)
        };
        assert_eq!(derived_keys(&r), "ada");
        r.created_at = 1_683_554_160_000;
        assert_eq!(derived_keys(&r), "8 May 2023 Monday ada");
    }
}
