//! What a damaged store lost ([`memdag_core::damage`]) as the WIT `damage` and `verified`
//! records, keys with the store's prefix.

use memdag_core::commit::Warning;
use memdag_core::damage::{Damage, DamagedBlock, Verified};

use crate::bindings::memdag::core::types as wit;

/// A core load warning as the WIT one, its key with the prefix.
pub fn warning(prefix: &str, w: &Warning) -> wit::LoadWarning {
    wit::LoadWarning {
        code: w.code.to_string(),
        key: format!("{prefix}{}", w.key),
        message: w.message.clone(),
    }
}

fn block(prefix: &str, d: DamagedBlock) -> wit::DamagedBlock {
    wit::DamagedBlock {
        key: format!("{prefix}{}", d.key),
        block: d.block,
        reason: d.reason,
        records: d.records,
        items: d.items,
        ids_known: d.ids_known,
        after_seq: d.after_seq,
        before_seq: d.before_seq,
    }
}

/// The core's damage report as the WIT one.
pub fn damage(prefix: &str, d: Damage) -> wit::Damage {
    wit::Damage {
        damaged: d.damaged.into_iter().map(|b| block(prefix, b)).collect(),
        lost_records: d.lost_records,
        lost_items: d.lost_items,
        lost_blobs: d.lost_blobs,
        lost_documents: d.lost_documents,
        older_versions: d.older_versions,
        detached: d.detached.into_iter().map(|[r, p]| (r, p)).collect(),
    }
}

/// What `verify` found, as the WIT record.
pub fn verified(prefix: &str, v: Verified) -> wit::Verified {
    wit::Verified {
        intact: v.intact,
        keys: v.keys as u64,
        records: v.records as u64,
        items: v.items as u64,
        blobs: v.blobs as u64,
        documents: v.documents as u64,
        warnings: v.warnings.iter().map(|w| warning(prefix, w)).collect(),
        damage: damage(prefix, v.damage),
    }
}
