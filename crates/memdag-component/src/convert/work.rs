//! Working memory: WIT changes to the core's and the core's state back, JSON values as text.
//!
//! A value given as text that is not JSON is refused with `INVALID_INPUT`; values going out
//! are the JSON text serde_json writes.

use memdag_core::work::{WorkChange, WorkOp, WorkUpdate, WorkingMemory};
use memdag_core::Error as CoreError;
use serde_json::Value;

use crate::bindings::memdag::core::work as wit;

/// A WIT change as the core's; `INVALID_INPUT` when its value is not JSON.
pub fn work_update(u: wit::WorkUpdate) -> Result<WorkUpdate, CoreError> {
    let value = u
        .value
        .as_deref()
        .map(|text| {
            serde_json::from_str::<Value>(text).map_err(|e| {
                CoreError::invalid(format!("work {:?}: the value is not JSON: {e}", u.field))
            })
        })
        .transpose()?;
    Ok(WorkUpdate {
        thread: u.thread,
        field: u.field,
        op: match u.op {
            wit::WorkOp::Set => WorkOp::Set,
            wit::WorkOp::Push => WorkOp::Push,
            wit::WorkOp::Pop => WorkOp::Pop,
            wit::WorkOp::Patch => WorkOp::Patch,
            wit::WorkOp::Remove => WorkOp::Remove,
        },
        value,
        at: u.at,
        user: u.user,
    })
}

fn op_out(op: WorkOp) -> wit::WorkOp {
    match op {
        WorkOp::Set => wit::WorkOp::Set,
        WorkOp::Push => wit::WorkOp::Push,
        WorkOp::Pop => wit::WorkOp::Pop,
        WorkOp::Patch => wit::WorkOp::Patch,
        WorkOp::Remove => wit::WorkOp::Remove,
    }
}

/// A core change as the WIT one.
pub fn work_change(c: WorkChange) -> wit::WorkChange {
    wit::WorkChange {
        at: c.at,
        field: c.field,
        op: op_out(c.op),
        value: c.value.map(|v| v.to_string()),
        previous: c.previous.map(|v| v.to_string()),
        stale: c.stale,
        user: c.user,
    }
}

/// A thread's working memory as WIT, with the rendering recall shows.
pub fn working_memory(w: WorkingMemory) -> wit::WorkingMemory {
    let rendered = w.render();
    wit::WorkingMemory {
        thread: w.thread,
        user: w.user,
        fields: w
            .fields
            .into_iter()
            .map(|(name, f)| wit::WorkField {
                name,
                value: f.value.to_string(),
                updated_at: f.updated_at,
                version: f.version,
            })
            .collect(),
        history: w.history.into_iter().map(work_change).collect(),
        rendered,
    }
}
