//! Plain-text tables of the reports.

use crate::locomo::{Recall, VariantRecall};
use crate::workload::SizeReport;

/// The size reports as a Markdown table.
pub fn sizes(reports: &[SizeReport]) -> String {
    let mut s = String::from(
        "| runtime | records | ingest/s | add p99 ms | bm25 p50/p99 ms | vector p50/p99 ms | hybrid p50/p99 ms | recall p50/p99 ms | exact p50 ms | recall@10 | index B/rec | stored B/rec | load ms (first / warm) | rebuild load ms | keys/add | bytes/add | prepare p50 ms |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in reports {
        s.push_str(&format!(
            "| {} | {} | {:.0} | {:.3} | {:.3} / {:.3} | {:.3} / {:.3} | {:.3} / {:.3} | {:.3} / {:.3} | {:.3} | {:.4} | {:.0} | {:.0} | {:.0} / {:.0} | {:.0} | {:.2} | {:.0} | {:.2} |\n",
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
            r.load_warm_ms,
            r.rebuild_load_ms,
            r.keys_per_add,
            r.bytes_per_add,
            r.prepare_p50_ms,
        ));
    }
    s
}

/// Memory a record by part (the index's own heap accounting), one column per report.
pub fn memory(reports: &[SizeReport]) -> String {
    let mut s = String::from("| B/rec |");
    for r in reports {
        s.push_str(&format!(" {} {} {} |", r.runtime, r.records, r.precision));
    }
    s.push_str("\n|---|");
    s.push_str(&"---|".repeat(reports.len()));
    s.push('\n');
    let names: Vec<&str> = reports
        .first()
        .map(|r| r.index_parts.iter().map(|(n, _)| n.as_str()).collect())
        .unwrap_or_default();
    for name in names {
        s.push_str(&format!("| {name} |"));
        for r in reports {
            let v = r
                .index_parts
                .iter()
                .find(|(n, _)| n == name)
                .map_or(0.0, |p| p.1);
            s.push_str(&format!(" {v:.0} |"));
        }
        s.push('\n');
    }
    s.push_str("| **total** |");
    for r in reports {
        s.push_str(&format!(" **{:.0}** |", r.index_bytes_per_record));
    }
    s.push('\n');
    s
}

/// LoCoMo evidence recall as a Markdown table.
pub fn recall(rows: &[Recall]) -> String {
    let mut s = String::from(
        "| method | questions | R@5 | R@10 | R@25 | R@50 |\n|---|---|---|---|---|---|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} |\n",
            r.mode, r.questions, r.r5, r.r10, r.r25, r.r50
        ));
    }
    s
}

/// Every variant in every mode: R@5..R@50 over all questions, R@10 per conversation.
pub fn variants(rows: &[VariantRecall]) -> String {
    let convs: Vec<&str> = rows
        .first()
        .map(|r| r.conversations.iter().map(|c| c.0.as_str()).collect())
        .unwrap_or_default();
    let mut s = String::from("| technique | mode | R@5 | R@10 | R@25 | R@50 |");
    for c in &convs {
        s.push_str(&format!(" {c} R@10 |"));
    }
    s.push_str("\n|---|---|---|---|---|---|");
    s.push_str(&"---|".repeat(convs.len()));
    s.push('\n');
    for r in rows {
        let a = &r.all;
        s.push_str(&format!(
            "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} |",
            r.variant, r.mode, a.r5, a.r10, a.r25, a.r50
        ));
        for c in &r.conversations {
            s.push_str(&format!(" {:.3} |", c.1.r10));
        }
        s.push('\n');
    }
    s
}

/// R@10 (and R@50) per question category, one row per variant, for one mode.
pub fn categories(rows: &[VariantRecall], mode: &str) -> String {
    let cats: Vec<(String, usize)> = rows
        .first()
        .map(|r| {
            r.categories
                .iter()
                .map(|c| (c.0.clone(), c.1.questions))
                .collect()
        })
        .unwrap_or_default();
    let mut s = format!("| technique ({mode}) |");
    for (c, n) in &cats {
        s.push_str(&format!(" {c} ({n}) R@10 / R@50 |"));
    }
    s.push_str("\n|---|");
    s.push_str(&"---|".repeat(cats.len()));
    s.push('\n');
    for r in rows.iter().filter(|r| r.mode == mode) {
        s.push_str(&format!("| {} |", r.variant));
        for c in &r.categories {
            s.push_str(&format!(" {:.3} / {:.3} |", c.1.r10, c.1.r50));
        }
        s.push('\n');
    }
    s
}

/// R@5..R@50 per conversation, for the variants named in `names`, in every mode.
pub fn conversations(rows: &[VariantRecall], names: &[&str]) -> String {
    let mut s = String::from(
        "| technique | mode | conversation | questions | R@5 | R@10 | R@25 | R@50 |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for r in rows.iter().filter(|r| names.contains(&r.variant.as_str())) {
        for (c, x) in &r.conversations {
            s.push_str(&format!(
                "| {} | {} | {c} | {} | {:.3} | {:.3} | {:.3} | {:.3} |\n",
                r.variant, r.mode, x.questions, x.r5, x.r10, x.r25, x.r50
            ));
        }
    }
    s
}
