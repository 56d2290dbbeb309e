//! Text output: one-line turns, full turns, and the ancestor DAG as an indented tree.

use std::collections::{BTreeMap, BTreeSet};

use memdag_host::Record;

/// `t03  2026-11-27 09:10  [repo-ci]  Fix it, and keep the fix small.`
pub fn line(r: &Record) -> String {
    format!(
        "{}  {}  [{}]  {}",
        r.id,
        utc(r.created_at),
        r.thread,
        clip(&r.input, 48)
    )
}

/// Every field of a turn, for `memdag get`.
pub fn full(r: &Record) -> String {
    let mut out = format!(
        "id:         {}\nseq:        {}\nthread:     {}\nuser:       {}\ncreated:    {} UTC\nimportance: {}\n",
        r.id,
        r.seq,
        r.thread,
        r.user,
        utc(r.created_at),
        r.importance
    );
    if !r.parents.is_empty() {
        out += &format!("parents:    {}\n", r.parents.join(", "));
    }
    if !r.tags.is_empty() {
        out += &format!("tags:       {}\n", r.tags.join(", "));
    }
    out += &format!("input:      {}\n", r.input);
    for (i, s) in r.steps.iter().enumerate() {
        let mark = if s.ok { "ok" } else { "failed" };
        out += &format!(
            "step {}:     {}({}) -> {} [{mark}]\n",
            i + 1,
            s.tool,
            clip(&s.args, 60),
            clip(&s.result, 60)
        );
    }
    out += &format!("output:     {}\n", r.output);
    if let Some(c) = &r.compact {
        out += &format!("compact:    {}\n", c.summary);
        for s in &c.sections {
            out += &format!("  {}: {}\n", s.name, s.text);
        }
    }
    out
}

/// A turn with its tool log unabridged: every step's arguments and result in full.
pub fn raw(r: &Record) -> String {
    let mut out = format!(
        "id:      {}\nthread:  {}\nuser:    {}\ncreated: {} UTC\n",
        r.id,
        r.thread,
        r.user,
        utc(r.created_at)
    );
    if !r.parents.is_empty() {
        out += &format!("parents: {}\n", r.parents.join(", "));
    }
    out += &format!("\n--- input\n{}\n", r.input);
    for (i, s) in r.steps.iter().enumerate() {
        let mark = if s.ok { "ok" } else { "failed" };
        out += &format!(
            "\n--- step {} {} [{mark}]\nargs:\n{}\nresult:\n{}\n",
            i + 1,
            s.tool,
            s.args,
            s.result
        );
    }
    out += &format!("\n--- output\n{}\n", r.output);
    out
}

/// The descendants of `root` as a tree following child edges, as [`ancestor_tree`] draws
/// ancestors: a record reached again is marked `(see above)`.
pub fn descendant_tree(root: &Record, descendants: &[Record]) -> String {
    let mut children: BTreeMap<&str, Vec<&Record>> = BTreeMap::new();
    for d in descendants {
        for p in &d.parents {
            children.entry(p.as_str()).or_default().push(d);
        }
    }
    let mut out = line(root) + "\n";
    let mut seen = BTreeSet::from([root.id.as_str()]);
    let next = |r: &Record| children.get(r.id.as_str()).cloned().unwrap_or_default();
    tree(root, &next, "", &mut seen, &mut out);
    out
}

/// The ancestors of `root` as a tree following parent edges. A record reached a second time
/// is printed once more as `(see above)` without its parents, so the DAG stays readable.
pub fn ancestor_tree(root: &Record, ancestors: &[Record]) -> String {
    let by_id: BTreeMap<&str, &Record> = ancestors.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut out = line(root) + "\n";
    let mut seen = BTreeSet::from([root.id.as_str()]);
    // Parents beyond the walked depth are not in `by_id`; they are left out.
    let next = |r: &Record| {
        r.parents
            .iter()
            .filter_map(|p| by_id.get(p.as_str()).copied())
            .collect::<Vec<_>>()
    };
    tree(root, &next, "", &mut seen, &mut out);
    out
}

/// Draws the records `next` gives for `r`, recursively, each once in full.
fn tree<'a>(
    r: &'a Record,
    next: &dyn Fn(&'a Record) -> Vec<&'a Record>,
    indent: &str,
    seen: &mut BTreeSet<&'a str>,
    out: &mut String,
) {
    let items = next(r);
    for (i, p) in items.iter().enumerate() {
        let last = i + 1 == items.len();
        let (stem, more) = if last {
            ("└── ", "    ")
        } else {
            ("├── ", "│   ")
        };
        if seen.insert(&p.id) {
            *out += &format!("{indent}{stem}{}\n", line(p));
            tree(p, next, &format!("{indent}{more}"), seen, out);
        } else {
            *out += &format!("{indent}{stem}{} (see above)\n", p.id);
        }
    }
}

/// The first `n` characters of the first line of `s`, with `…` when cut.
pub fn clip(s: &str, n: usize) -> String {
    let first = s.lines().next().unwrap_or("");
    let mut out: String = first.chars().take(n).collect();
    if first.chars().count() > n || s.lines().nth(1).is_some() {
        out.push('…');
    }
    out
}

/// Milliseconds since the epoch as `YYYY-MM-DD HH:MM` (UTC), by the core's calendar.
pub fn utc(ms: i64) -> String {
    let minutes = ms.div_euclid(60_000);
    let (y, m, d) = memdag_core::time::civil::civil_from_days(minutes.div_euclid(1440));
    format!("{y:04}-{m:02}-{d:02} {}", clock(ms, 0))
}

/// The time of day of `ms` as `HH:MM`, `offset_minutes` east of UTC.
pub fn clock(ms: i64, offset_minutes: i32) -> String {
    let minute = (ms.div_euclid(60_000) + i64::from(offset_minutes)).rem_euclid(1440);
    format!("{:02}:{:02}", minute / 60, minute % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_utc() {
        assert_eq!(utc(0), "1970-01-01 00:00");
        assert_eq!(utc(1_795_770_000_000), "2026-11-27 09:00");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00");
        assert_eq!(utc(-60_000), "1969-12-31 23:59");
    }

    #[test]
    fn clips_by_characters() {
        assert_eq!(clip("周末计划很好", 4), "周末计划…");
        assert_eq!(clip("short", 10), "short");
        assert_eq!(clip("a\nb", 10), "a…");
    }
}
