//! `memdag work ...`: a thread's working memory through the component.
//!
//! A VALUE is read as JSON (`42`, `["a"]`, `{"k": 1}`, `"quoted"`), and anything that is not
//! JSON as a string, so `memdag work set --thread T goal "ship it"` sets the goal to the text
//! `ship it`.

use std::io::Write;

use memdag_host::{work_update, Error, Memory, WorkingMemory};

use crate::args::{Work, WorkAction};
use crate::{shape, show, Host};

/// A command-line VALUE as JSON text: itself if it is JSON, else as a JSON string.
pub fn json_value(arg: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(arg) {
        Ok(v) => v.to_string(),
        Err(_) => serde_json::Value::String(arg.into()).to_string(),
    }
}

fn show_fields(wm: &WorkingMemory, out: &mut dyn Write) -> Result<(), Error> {
    if wm.fields.is_empty() {
        writeln!(out, "thread {:?} has no working memory", wm.thread)?;
        return Ok(());
    }
    writeln!(out, "{}", wm.rendered)?;
    Ok(())
}

/// Runs `memdag work ...`.
pub fn run(
    memory: &mut Memory,
    w: &Work,
    host: &Host,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let user = w.user.as_deref();
    match &w.action {
        WorkAction::Show => {
            let wm = memory.working_memory(&w.thread, user)?;
            if json {
                writeln!(out, "{}", shape::line(&shape::working_memory(&wm)))?;
            } else {
                show_fields(&wm, out)?;
            }
        }
        WorkAction::History => {
            let wm = memory.working_memory(&w.thread, user)?;
            let changes: Vec<_> = wm.history.iter().map(shape::work_change).collect();
            if json {
                writeln!(out, "{}", shape::line(&changes))?;
            }
            for c in changes.iter().filter(|_| !json) {
                let value = c.value.as_ref().map(|v| v.to_string()).unwrap_or_default();
                let stale = if c.stale {
                    "  (stale: a newer change won)"
                } else {
                    ""
                };
                let op = serde_json::to_value(c.op).unwrap_or_default();
                writeln!(
                    out,
                    "{} UTC  {} {} {value}{stale}",
                    show::utc(c.at),
                    op.as_str().unwrap_or("?"),
                    c.field
                )?;
            }
        }
        WorkAction::Clear => {
            let had = memory.clear_work(&w.thread, user)?;
            if json {
                writeln!(
                    out,
                    "{}",
                    serde_json::json!({ "thread": w.thread, "cleared": had })
                )?;
            } else if had {
                writeln!(out, "cleared the working memory of {:?}", w.thread)?;
            } else {
                writeln!(out, "thread {:?} had no working memory", w.thread)?;
            }
        }
        WorkAction::Change { op, field, value } => {
            let value = value.as_deref().map(json_value);
            let mut u = work_update(&w.thread, field, *op, value.as_deref(), host.now);
            u.user = w.user.clone();
            let change = memory.update_work(&u)?;
            if json {
                writeln!(out, "{}", shape::line(&shape::work_change(&change)))?;
            } else {
                if change.stale {
                    writeln!(out, "not applied: {field} has a newer change")?;
                }
                show_fields(&memory.working_memory(&w.thread, user)?, out)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::json_value;

    #[test]
    fn values_are_json_or_else_strings() {
        assert_eq!(json_value("ship it"), "\"ship it\"");
        assert_eq!(json_value("42"), "42");
        assert_eq!(json_value("[\"a\", 1]"), "[\"a\",1]");
        assert_eq!(json_value("\"quoted\""), "\"quoted\"");
        assert_eq!(json_value("{oops"), "\"{oops\"");
    }
}
