//! The cost of encryption at rest: a flush of the whole store and a cold open of what it
//! wrote, plain and sealed (memdag-core's `seal`), alternated in one run on one store.
//!
//! Each round rewrites the whole store twice (`Store::set_cipher` makes the next change set a
//! full rewrite): once plain, once sealed, and opens each image with `Store::load_with_cipher`.
//! One untimed round warms up (in wasm, the first calls run on the baseline compiler); the
//! report keeps the median of the timed rounds. Then seal v1 alone runs over the plain image
//! twice: a call per stored value (what the store does) and a call per 128 KiB block (what
//! sealing the blocks of a segment part instead would do).
//!
//! The host's seal v2 (WebCrypto's AES-GCM) is timed by `tests/bench/run-wasm.mjs --seal`
//! through the JS package, beside plain and v1 through the same package: it runs in the host,
//! not in this module.

use memdag_core::block::BLOCK_BYTES;
use memdag_core::{Change, Cipher, Store};
use serde::{Deserialize, Serialize};

use crate::workload::{percentile, Clock};

/// The key of the benchmark's sealed store.
const KEY: [u8; 32] = [0x5e; 32];

/// Flush and cold open, plain and sealed, at one size.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SealReport {
    pub runtime: String,
    pub records: usize,
    /// Timed rounds (each: one plain and one sealed flush and open).
    pub rounds: usize,
    /// Bytes of the plain image (keys and values), in MB (10^6).
    pub stored_mb: f64,
    /// Bytes the sealing adds to the image.
    pub sealed_extra_bytes: usize,
    /// `take_changes` of a full rewrite, plain and sealed: median ms.
    pub flush_ms: f64,
    pub flush_sealed_ms: f64,
    /// `Store::load_with_cipher` of that image, plain and sealed: median ms.
    pub open_ms: f64,
    pub open_sealed_ms: f64,
    /// Seal v1 alone over the plain image, a call per stored value: [seal, open] ms.
    pub cipher_value_ms: [f64; 2],
    /// The same, a call per 128 KiB block of each value.
    pub cipher_block_ms: [f64; 2],
}

impl SealReport {
    /// Sealed over plain flush time.
    pub fn flush_ratio(&self) -> f64 {
        self.flush_sealed_ms / self.flush_ms
    }

    /// Sealed over plain open time.
    pub fn open_ratio(&self) -> f64 {
        self.open_sealed_ms / self.open_ms
    }
}

/// One full rewrite and one open: (flush ms, open ms, image bytes).
fn round(store: &mut Store, sealed: bool, clock: Clock) -> (f64, f64, usize) {
    let cipher = || sealed.then(|| Cipher::new(&KEY).expect("32 bytes"));
    store.set_cipher(cipher());
    let t = clock();
    let changes = store.take_changes().expect("changes");
    let flush = clock() - t;
    let image: Vec<Change> = changes.into_iter().filter(|c| c.value.is_some()).collect();
    let bytes = image
        .iter()
        .map(|c| c.key.len() + c.value.as_ref().map_or(0, Vec::len))
        .sum();
    let t = clock();
    let loaded = Store::load_with_cipher(
        image
            .iter()
            .map(|c| (c.key.as_str(), c.value.as_deref().unwrap_or_default())),
        cipher(),
    )
    .expect("load");
    let open = clock() - t;
    assert_eq!(loaded.len(), store.len());
    (flush, open, bytes)
}

/// Measures `store` (left as it was, plain) over `rounds` timed rounds after one warm-up.
pub fn seal_costs(store: &mut Store, rounds: usize, clock: Clock, runtime: &str) -> SealReport {
    let rounds = rounds.max(1);
    let mut samples: [Vec<f64>; 4] = Default::default();
    let (mut plain_bytes, mut sealed_bytes) = (0, 0);
    for r in 0..=rounds {
        let (flush, open, bytes) = round(store, false, clock);
        let (flush_s, open_s, bytes_s) = round(store, true, clock);
        (plain_bytes, sealed_bytes) = (bytes, bytes_s);
        if r > 0 {
            for (s, v) in samples.iter_mut().zip([flush, flush_s, open, open_s]) {
                s.push(v);
            }
        }
    }
    store.set_cipher(None);
    store.take_changes().expect("changes");
    let image = store.snapshot().expect("snapshot");
    let value = cipher_costs(&image, usize::MAX, clock);
    let block = cipher_costs(&image, BLOCK_BYTES, clock);
    let median = |s: &[f64]| percentile(s, 50.0);
    SealReport {
        runtime: runtime.into(),
        records: store.len(),
        rounds,
        stored_mb: plain_bytes as f64 / 1e6,
        sealed_extra_bytes: sealed_bytes.saturating_sub(plain_bytes),
        flush_ms: median(&samples[0]),
        flush_sealed_ms: median(&samples[1]),
        open_ms: median(&samples[2]),
        open_sealed_ms: median(&samples[3]),
        cipher_value_ms: value,
        cipher_block_ms: block,
    }
}

/// Seal v1 over every value of `image` in pieces of at most `piece` bytes, each under its own
/// key, then opening them: [seal, open] ms, the better of two passes.
fn cipher_costs(image: &[(String, Vec<u8>)], piece: usize, clock: Clock) -> [f64; 2] {
    let cipher = Cipher::new(&KEY).expect("32 bytes");
    let mut best = [f64::INFINITY; 2];
    for _ in 0..2 {
        let t = clock();
        let sealed: Vec<(String, Vec<u8>)> = image
            .iter()
            .flat_map(|(k, v)| {
                v.chunks(piece.max(1))
                    .enumerate()
                    .map(move |(i, c)| (format!("{k}#{i}"), c))
            })
            .map(|(k, c)| {
                let s = cipher.seal(&k, c);
                (k, s)
            })
            .collect();
        let seal = clock() - t;
        let t = clock();
        let bytes: usize = sealed
            .iter()
            .map(|(k, s)| cipher.open(k, s).expect("opens").len())
            .sum();
        let open = clock() - t;
        assert_eq!(bytes, image.iter().map(|(_, v)| v.len()).sum::<usize>());
        best = [best[0].min(seal), best[1].min(open)];
    }
    best
}

/// The plain image of `store` as an export file (for the JS package's side of the benchmark).
pub fn image(store: &Store) -> Vec<u8> {
    let entries = store.snapshot().expect("snapshot");
    memdag_core::export::snapshot::encode_snapshot(&entries)
}

/// The reports as a Markdown table.
pub fn table(reports: &[SealReport]) -> String {
    let mut s = String::from(
        "| runtime | records | rounds | stored MB | flush ms plain / sealed | ratio | cold open ms plain / sealed | ratio | sealing adds B | v1 alone, seal / open ms: per value | per 128 KiB block |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in reports {
        s.push_str(&format!(
            "| {} | {} | {} | {:.1} | {:.0} / {:.0} | {:.3} | {:.0} / {:.0} | {:.3} | {} | {:.0} / {:.0} | {:.0} / {:.0} |\n",
            r.runtime,
            r.records,
            r.rounds,
            r.stored_mb,
            r.flush_ms,
            r.flush_sealed_ms,
            r.flush_ratio(),
            r.open_ms,
            r.open_sealed_ms,
            r.open_ratio(),
            r.sealed_extra_bytes,
            r.cipher_value_ms[0],
            r.cipher_value_ms[1],
            r.cipher_block_ms[0],
            r.cipher_block_ms[1],
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{build, Options};

    #[test]
    fn seal_costs_measures_both_forms_and_leaves_the_store_plain() {
        let start = std::time::Instant::now();
        let clock = move || start.elapsed().as_secs_f64() * 1000.0;
        let base = vec!["a turn about the deploy".to_string()];
        let opts = Options {
            vector_queries: 1,
            ..Options::default()
        };
        let mut built = build(40, &base, &opts, &clock);
        let r = seal_costs(&mut built.store, 1, &clock, "test");
        assert_eq!((r.records, r.rounds), (40, 1));
        assert!(r.flush_ms > 0.0 && r.flush_sealed_ms > 0.0 && r.open_sealed_ms > 0.0);
        assert!(r.sealed_extra_bytes > 0 && r.stored_mb > 0.0);
        assert!(r.flush_ratio().is_finite() && r.open_ratio().is_finite());
        assert!(r
            .cipher_value_ms
            .iter()
            .chain(&r.cipher_block_ms)
            .all(|&ms| ms > 0.0));
        assert!(!image(&built.store).is_empty());
        assert!(!built.store.is_encrypted());
        assert!(table(&[r]).contains("| test | 40 | 1 |"));
    }
}
