//! Tool and procedural memory from a turn's steps: what the tool calls themselves show.
//!
//! - A call that failed and a later call of the same tool that succeeded with other arguments
//!   give a `tool` item: which arguments changed (added, removed, renamed or given another
//!   value, read from the JSON of the arguments when they are JSON objects), the error, and the
//!   arguments that worked. Its relation is `fix` and its object the changed argument names,
//!   so the same fix learned twice corroborates one item.
//! - A call that failed, then another tool that succeeded, then the first tool succeeding
//!   gives a `procedural` item: to do the first, run the second before it (relation `needs`).
//! - A call that fails and never succeeds, or a loop where nothing failed, gives nothing.

use std::collections::BTreeSet;
use std::string::String;
use std::vec::Vec;

use serde_json::Value;

use super::Extracted;
use crate::item::ItemKind;
use crate::record::Step;

/// Longest error and argument excerpts kept in an item's text, in bytes.
const EXCERPT: usize = 160;

/// The tool and procedural items a turn's steps show.
pub fn from_steps(steps: &[Step]) -> Vec<Extracted> {
    let mut out = Vec::new();
    let mut learned: BTreeSet<(String, String)> = BTreeSet::new();
    for (i, failed) in steps.iter().enumerate() {
        if failed.ok || failed.tool.is_empty() {
            continue;
        }
        let Some(j) = steps[i + 1..]
            .iter()
            .position(|s| s.tool == failed.tool && s.ok)
            .map(|p| i + 1 + p)
        else {
            continue;
        };
        let fixed = &steps[j];
        let between: Vec<&Step> = steps[i + 1..j]
            .iter()
            .filter(|s| s.ok && s.tool != failed.tool && !s.tool.is_empty())
            .collect();
        if let Some(helper) = between
            .first()
            .filter(|_| same_args(&failed.args, &fixed.args))
        {
            if learned.insert(("needs".into(), helper.tool.clone())) {
                out.push(Extracted {
                    kind: ItemKind::Procedural,
                    text: std::format!(
                        "To {tool}: run {helper} first ({tool} failed with: {error})",
                        tool = failed.tool,
                        helper = helper.tool,
                        error = excerpt(&failed.result),
                    ),
                    relation: Some("needs".into()),
                    object: Some(helper.tool.clone()),
                    subject: Some(failed.tool.clone()),
                    task: Some(failed.tool.clone()),
                    tool: Some(failed.tool.clone()),
                    retract: false,
                    standing: false,
                    confidence: super::PATTERN_CONFIDENCE,
                    class: None,
                });
            }
            continue;
        }
        let change = describe_change(&failed.args, &fixed.args);
        let Some((keys, how)) = change else { continue };
        if !learned.insert(("fix".into(), keys.clone())) {
            continue;
        }
        out.push(Extracted {
            kind: ItemKind::Tool,
            text: std::format!(
                "{tool}: {how}. It failed with {error}; it worked with {args}",
                tool = failed.tool,
                error = excerpt(&failed.result),
                args = excerpt(&fixed.args),
            ),
            relation: Some("fix".into()),
            object: Some(keys),
            subject: Some(failed.tool.clone()),
            task: None,
            tool: Some(failed.tool.clone()),
            retract: false,
            standing: false,
            confidence: super::PATTERN_CONFIDENCE,
            class: None,
        });
    }
    out
}

/// Whether two argument texts say the same (as JSON when both are JSON).
fn same_args(a: &str, b: &str) -> bool {
    match (
        serde_json::from_str::<Value>(a),
        serde_json::from_str::<Value>(b),
    ) {
        (Ok(x), Ok(y)) => x == y,
        _ => a.trim() == b.trim(),
    }
}

/// The names of the arguments that changed and a phrase saying how; `None` when nothing did.
fn describe_change(failed: &str, fixed: &str) -> Option<(String, String)> {
    let (Ok(Value::Object(a)), Ok(Value::Object(b))) = (
        serde_json::from_str::<Value>(failed),
        serde_json::from_str::<Value>(fixed),
    ) else {
        return (failed.trim() != fixed.trim())
            .then(|| ("args".into(), "other arguments fixed the call".into()));
    };
    let added: Vec<&String> = b.keys().filter(|k| !a.contains_key(*k)).collect();
    let removed: Vec<&String> = a.keys().filter(|k| !b.contains_key(*k)).collect();
    let changed: Vec<&String> = a
        .iter()
        .filter(|(k, v)| b.get(*k).is_some_and(|w| w != *v))
        .map(|(k, _)| k)
        .collect();
    let mut parts: Vec<String> = Vec::new();
    let quoted = |ks: &[&String]| {
        ks.iter()
            .map(|k| std::format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if removed.len() == 1 && added.len() == 1 {
        parts.push(std::format!(
            "use `{}` instead of `{}`",
            added[0],
            removed[0]
        ));
    } else {
        if !added.is_empty() {
            parts.push(std::format!("it needs {}", quoted(&added)));
        }
        if !removed.is_empty() {
            parts.push(std::format!("it does not take {}", quoted(&removed)));
        }
    }
    for k in &changed {
        parts.push(std::format!(
            "`{k}` must look like {} (not {})",
            excerpt(&b[k.as_str()].to_string()),
            excerpt(&a[k.as_str()].to_string())
        ));
    }
    if parts.is_empty() {
        return None;
    }
    let mut keys: Vec<&String> = added.into_iter().chain(changed).collect();
    if keys.is_empty() {
        keys = removed;
    }
    keys.sort();
    let names = keys
        .iter()
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .join(",");
    Some((names, parts.join("; ")))
}

/// At most [`EXCERPT`] bytes of `s`, on a character boundary, on one line.
fn excerpt(s: &str) -> String {
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.len() <= EXCERPT {
        return one_line;
    }
    let mut end = EXCERPT;
    while !one_line.is_char_boundary(end) {
        end -= 1;
    }
    std::format!("{}…", &one_line[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(tool: &str, args: &str, ok: bool, result: &str) -> Step {
        Step {
            tool: tool.into(),
            args: args.into(),
            result: result.into(),
            ok,
        }
    }

    #[test]
    fn a_fixed_call_teaches_the_fix_and_a_helper_teaches_the_order() {
        let tool = from_steps(&[
            step("weather", r#"{"city":"Paris"}"#, false, "missing units"),
            step(
                "weather",
                r#"{"city":"Paris","units":"metric"}"#,
                true,
                "14C",
            ),
        ]);
        assert_eq!(tool.len(), 1);
        assert_eq!(tool[0].kind, ItemKind::Tool);
        assert_eq!(tool[0].object.as_deref(), Some("units"));
        assert!(tool[0].text.contains("`units`"), "{}", tool[0].text);
        let renamed = from_steps(&[
            step("cal", r#"{"time":"3pm"}"#, false, "unknown field time"),
            step("cal", r#"{"start":"15:00"}"#, true, "ok"),
        ]);
        assert!(renamed[0].text.contains("use `start` instead of `time`"));
        let order = from_steps(&[
            step("deploy", r#"{"env":"prod"}"#, false, "pending migrations"),
            step("run_migrations", "{}", true, "done"),
            step("deploy", r#"{"env":"prod"}"#, true, "ok"),
        ]);
        assert_eq!(order[0].kind, ItemKind::Procedural);
        assert!(order[0].text.contains("run run_migrations first"));
        assert!(from_steps(&[step("x", "{}", false, "boom")]).is_empty());
        assert!(from_steps(&[step("x", "{}", true, "fine")]).is_empty());
    }
}
