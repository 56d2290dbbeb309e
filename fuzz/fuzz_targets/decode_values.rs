//! Stored values that pass their checksum: the bytes behind the envelope are arbitrary, so the
//! decoders past the checksum (commit, block frames, segment chunks and every section) see
//! everything.
#![no_main]
use libfuzzer_sys::fuzz_target;
use memdag_core::envelope::{seal, Kind};
use memdag_core::index::vecstore::{Precision, VectorSettings};
use memdag_core::segment::{encode_commit, Commit, SegmentInfo};
use memdag_core::Store;

fuzz_target!(|data: &[u8]| {
    let Some((&which, body)) = data.split_first() else {
        return;
    };
    if which % 2 == 0 {
        // Any commit body.
        let _ = Store::load([("head", seal(Kind::Commit, body))]);
        return;
    }
    // A commit naming one one-part segment, whose chunk is the input.
    let commit = Commit {
        generation: 1,
        next_seq: u64::from(which),
        dimension: u32::from(which % 8),
        segments: vec![SegmentInfo {
            generation: 1,
            parts: 1,
            level: 0,
            entries: 1,
            bytes: body.len() as u64,
            ..SegmentInfo::default()
        }],
        retired: Vec::new(),
        // Format v6: the vectors' precision and the int8 steps the codes need, or none.
        vectors: VectorSettings {
            precision: match (which >> 2) % 3 {
                0 => Precision::F32,
                1 => Precision::Int8,
                _ => Precision::Int8Exact,
            },
            train: 1,
        },
        steps: if which & 16 == 0 {
            vec![0.01; usize::from(which % 8)]
        } else {
            Vec::new()
        },
    };
    let mut part = Vec::with_capacity(20 + body.len());
    part.extend_from_slice(&1u64.to_le_bytes());
    part.extend_from_slice(&0u32.to_le_bytes());
    part.extend_from_slice(&1u32.to_le_bytes());
    part.extend_from_slice(&1u32.to_le_bytes());
    // Format v5: the chunk in its block frame, half of the time; raw otherwise (a frame header
    // that does not parse must be refused as well).
    if which & 2 == 0 {
        memdag_core::block::push_frame(&mut part, body);
    } else {
        part.extend_from_slice(body);
    }
    let Ok(head) = encode_commit(&commit) else {
        return;
    };
    if let Ok(mut store) = Store::load([
        ("head", head),
        ("seg/0000000000000001/0", seal(Kind::SegmentPart, &part)),
    ]) {
        // A store that loads must also write itself out and load again.
        let _ = store.take_changes();
        let _ = store.snapshot().map(|s| Store::load(s));
    }
});
