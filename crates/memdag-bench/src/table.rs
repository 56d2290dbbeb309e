//! Plain-text tables of the reports.

use crate::locomo::Recall;
use crate::workload::SizeReport;

/// The size reports as a Markdown table.
pub fn sizes(reports: &[SizeReport]) -> String {
    let mut s = String::from(
        "| runtime | records | ingest/s | add p99 ms | bm25 p50/p99 ms | vector p50/p99 ms | hybrid p50/p99 ms | recall p50/p99 ms | exact p50 ms | recall@10 | index B/rec | stored B/rec | load ms | rebuild load ms | keys/add | bytes/add |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in reports {
        s.push_str(&format!(
            "| {} | {} | {:.0} | {:.3} | {:.3} / {:.3} | {:.3} / {:.3} | {:.3} / {:.3} | {:.3} / {:.3} | {:.3} | {:.4} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2} | {:.0} |\n",
            r.runtime,
            r.records,
            r.ingest_per_s,
            r.add_p99_ms,
            r.bm25_p50_ms,
            r.bm25_p99_ms,
            r.vector_p50_ms,
            r.vector_p99_ms,
            r.hybrid_p50_ms,
            r.hybrid_p99_ms,
            r.recall_p50_ms,
            r.recall_p99_ms,
            r.exact_p50_ms,
            r.vector_recall_at_10,
            r.index_bytes_per_record,
            r.stored_bytes_per_record,
            r.load_ms,
            r.rebuild_load_ms,
            r.keys_per_add,
            r.bytes_per_add,
        ));
    }
    s
}

/// LoCoMo evidence recall as a Markdown table.
pub fn recall(rows: &[Recall]) -> String {
    let mut s = String::from("| method | questions | R@5 | R@10 | R@25 |\n|---|---|---|---|---|\n");
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {:.3} | {:.3} | {:.3} |\n",
            r.mode, r.questions, r.r5, r.r10, r.r25
        ));
    }
    s
}
