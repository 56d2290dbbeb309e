//! The JSON the CLI prints: what the component answered, turned into the core's types, whose
//! serde is the one JSON shape of each (camelCase, as the JS package and the tools write it).
//! So `--json` output is the shape every face shares, and this face only converts.

mod context;
mod items;
mod work;

pub use context::{blob_page, config, config_in, message_in, prepared};
pub use items::{history_entry, item, kind, learned, logged, refusal_code, report, status};
pub use work::{edge, purged, subgraph, time_expr, timeline_day, work_change, working_memory};

/// A value as one line of JSON.
pub fn line(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"error\": {:?}}}", e.to_string()))
}
