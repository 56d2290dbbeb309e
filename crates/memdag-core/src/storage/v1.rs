//! Opening a format-v1 store (one key per record, see [`crate::codec`]): it is read whole and
//! rewritten as one segment by its first change set, which then deletes every v1 key.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::string::{String, ToString};
use std::vec::Vec;

use super::restore::{restore_search, RecordVectors};
use super::skip_orphan_generations;
use super::values::Values;
use crate::codec::{self, Meta, StoredNode};
use crate::error::Result;
use crate::index::postings::InvertedIndex;
use crate::index::restore::GraphSource;
use crate::keys;
use crate::record::Record;
use crate::store::Store;

/// v1 graph nodes by sequence number.
struct V1Graph(HashMap<u64, StoredNode>);

impl GraphSource for V1Graph {
    fn level(&self, seq: u64) -> Option<u8> {
        self.0
            .get(&seq)
            .filter(|n| n.links.len() == n.level as usize + 1)
            .map(|n| n.level)
    }

    fn links(&self, seq: u64, out: &mut Vec<(u8, u64)>) {
        if let Some(n) = self.0.get(&seq) {
            for (lc, layer) in n.links.iter().enumerate() {
                out.extend(layer.iter().map(|&s| (lc as u8, s)));
            }
        }
    }
}

/// Opens a v1 store (or a new, empty one: no values at all).
pub(super) fn load_v1(values: &Values) -> Result<Store> {
    let mut records = Vec::new();
    let mut meta = Meta::default();
    let mut blobs = BTreeMap::new();
    let mut nodes: BTreeMap<String, StoredNode> = BTreeMap::new();
    let mut orphans = BTreeSet::new();
    // In key order, so that a store with several bad values names the same one every time
    // (`values` is a hash map, whose order changes from one open to the next).
    let mut ordered: Vec<_> = values
        .iter()
        .filter(|(key, _)| keys::is_v1_key(key))
        .collect();
    ordered.sort_unstable_by_key(|(&key, _)| key);
    for (&key, value) in ordered {
        // Only v1 keys are read and collected: a `seg/` key of another shape is not memdag's.
        let value = *value.as_ref().map_err(Clone::clone)?;
        if key == keys::V1_META_KEY {
            meta = codec::decode_meta(value)?;
        } else if key.starts_with(keys::V1_RECORD_PREFIX) {
            records.push((key.to_string(), codec::decode_record(key, value)?));
        } else if let Some(id) = key.strip_prefix(keys::V1_BLOB_PREFIX) {
            blobs.insert(id.to_string(), codec::decode_blob(key, value)?);
        } else if let Some(id) = key.strip_prefix(keys::V1_HNSW_PREFIX) {
            nodes.insert(id.to_string(), codec::decode_node(key, value)?);
        }
        orphans.insert(key.to_string());
    }
    crate::sort::sort_by_key(&mut records, |(_, r): &(String, Record)| r.seq);
    let keys: Vec<String> = records.iter().map(|(k, _)| k.clone()).collect();
    let records = records.into_iter().map(|(_, r)| r).collect();
    let mut store = Store::from_records(records, meta.next_seq, &|i| keys[i].clone())?;
    if !orphans.is_empty() {
        // A v1 store kept its vectors as `f32`, and keeps them so; only a new one (no keys)
        // takes the default.
        store
            .search
            .vectors
            .set_settings(crate::index::vecstore::VectorSettings::unstated());
    }
    store.blobs = blobs;
    // A v1 node belongs to the record of its key, and only if the sequence numbers agree.
    let by_seq: HashMap<u64, StoredNode> = nodes
        .into_iter()
        .filter_map(|(id, n)| {
            store
                .get(&id)
                .filter(|r| r.seq == n.seq)
                .map(|_| (n.seq, n))
        })
        .collect();
    let mut vectors = RecordVectors(store.iter().filter(|r| r.embedding.is_some()).count());
    restore_search(
        &mut store,
        meta.dimension as usize,
        &mut vectors,
        &V1Graph(by_seq),
        InvertedIndex::default(),
        &mut |_, _, _| false,
    )?;
    store.persist.full_rewrite =
        !store.is_empty() || !store.blobs.is_empty() || !orphans.is_empty();
    store.persist.orphans = orphans;
    skip_orphan_generations(&mut store.persist);
    Ok(store)
}
