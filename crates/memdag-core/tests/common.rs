//! Helpers shared by the core's integration tests.
#![allow(dead_code)]

use memdag_core::{NewTurn, Step, Store};

/// A turn on `thread` with the given input and parents.
pub fn turn(id: &str, thread: &str, input: &str, parents: &[&str]) -> NewTurn {
    NewTurn {
        id: Some(id.into()),
        thread: thread.into(),
        user: "ada".into(),
        created_at: 1_700_000_000_000,
        input: input.into(),
        output: format!("answer to {input}"),
        steps: vec![Step {
            tool: "search".into(),
            args: "{\"q\":1}".into(),
            result: "ok".into(),
            ok: true,
        }],
        parents: parents.iter().map(|p| p.to_string()).collect(),
        ..Default::default()
    }
}

/// Applies a change set to a key-value map, as a host would.
pub fn apply(kv: &mut std::collections::BTreeMap<String, Vec<u8>>, store: &mut Store) {
    for c in store.take_changes().expect("encode") {
        match c.value {
            Some(v) => {
                kv.insert(c.key, v);
            }
            None => {
                kv.remove(&c.key);
            }
        }
    }
}

/// Loads a store from a key-value map, twice: borrowing the values (`Store::load`) and taking
/// a copy of them (`Store::load_owned`, which frees each part once read), which must agree
/// (see [`compared_open`]).
pub fn reload(
    kv: &std::collections::BTreeMap<String, Vec<u8>>,
) -> Result<Store, memdag_core::Error> {
    compared_open(kv, || None)
}

/// Opens a store from a key-value map with the cipher `cipher` makes, borrowing the values
/// (`Store::load_with_cipher`) and taking a copy of them (`Store::load_owned`), and checks
/// that the two agree ([`same_owned_open`]). The store returned is an owned open's, so that
/// what a test does next runs on it; an error is the borrowing open's.
pub fn compared_open(
    kv: &std::collections::BTreeMap<String, Vec<u8>>,
    cipher: impl Fn() -> Option<memdag_core::Cipher>,
) -> Result<Store, memdag_core::Error> {
    let owned = || {
        Store::load_owned(
            kv.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            cipher(),
            None::<Vec<String>>,
        )
    };
    let mut borrowed =
        Store::load_with_cipher(kv.iter().map(|(k, v)| (k.as_str(), v.as_slice())), cipher());
    let mut first = owned();
    same_owned_open(&mut borrowed, &mut first);
    match (borrowed, first) {
        // The two were compared by their change sets, which takes them: a third open.
        (Ok(_), Ok(_)) => owned(),
        (borrowed, _) => borrowed,
    }
}

/// Checks that a borrowing open and `Store::load_owned` over the same values agree: the same
/// store (every record, blob, document and index entry, as a snapshot writes them, and the
/// change set that follows the open, which takes the pending one of each), or the same error.
/// Only its reason may differ, for an error the owned open finds once it has freed values: it
/// cannot list the store's other damage, and says how to salvage instead.
#[allow(dead_code)]
pub fn same_owned_open(
    borrowed: &mut Result<Store, memdag_core::Error>,
    owned: &mut Result<Store, memdag_core::Error>,
) {
    use memdag_core::Error::CorruptData;
    match (borrowed, owned) {
        (Ok(a), Ok(b)) => {
            assert_eq!(dump(a), dump(b));
            assert_eq!(a.snapshot().unwrap(), b.snapshot().unwrap());
            assert_eq!(a.load_warnings(), b.load_warnings());
            assert_eq!(a.is_encrypted(), b.is_encrypted());
            assert_eq!(a.take_changes().unwrap(), b.take_changes().unwrap());
        }
        (Err(CorruptData { key: a, reason: ra }), Err(CorruptData { key: b, reason: rb }))
            if ra != rb =>
        {
            assert_eq!(a, b, "the opens fail naming different keys");
            assert!(rb.contains("open it salvaging"), "owned open's error: {rb}");
        }
        (Err(a), Err(b)) => assert_eq!(a, b),
        (a, b) => panic!(
            "the opens disagree: borrowed {:?}, owned {:?}",
            a.as_ref().err(),
            b.as_ref().err()
        ),
    }
}

/// Everything a store holds that its stored form must keep: every record, field by field, in
/// id order, and every blob.
pub fn dump(store: &Store) -> (Vec<memdag_core::Record>, Vec<(String, String)>) {
    // Each record with its vector, wherever the store keeps it.
    let mut records: Vec<memdag_core::Record> = store.iter().map(|r| whole(store, r)).collect();
    records.sort_by(|a, b| a.id.cmp(&b.id));
    let blobs = store
        .blob_ids()
        .map(|id| (id.to_string(), store.blob(id).unwrap().to_string()))
        .collect();
    (records, blobs)
}

/// A record of `store` with its embedding in the record, as a store before the single copy
/// of vectors held it.
pub fn whole(store: &Store, r: &memdag_core::Record) -> memdag_core::Record {
    let mut r = r.clone();
    r.embedding = store.embedding_of(&r).map(|v| v.into_owned());
    r
}

/// The v1 image of a store (one key per record, blob and graph node, and `meta`), as format
/// v1 wrote it: to test opening and migrating v1 stores.
pub fn v1_image(store: &Store) -> std::collections::BTreeMap<String, Vec<u8>> {
    use memdag_core::codec;
    let mut kv = std::collections::BTreeMap::new();
    for r in store.iter() {
        kv.insert(
            codec::record_key(&r.id),
            codec::encode_record(&whole(store, r)).unwrap(),
        );
    }
    for id in store.blob_ids() {
        kv.insert(
            codec::blob_key(id),
            codec::encode_blob(store.blob(id).unwrap()).unwrap(),
        );
    }
    kv.insert("meta".into(), codec::encode_meta(&store.meta()).unwrap());
    kv
}

/// SplitMix64 random numbers, with uniform and Gaussian draws: reproducible from a printed
/// seed.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits (a plain method: the tests call it as they would an iterator's).
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    pub fn gauss(&mut self) -> f32 {
        let (u, v) = (self.unit().max(1e-7), self.unit());
        (-2.0 * u.ln()).sqrt() * (std::f32::consts::TAU * v).cos()
    }
    pub fn unit_vector(&mut self, dim: usize) -> Vec<f32> {
        let v: Vec<f32> = (0..dim).map(|_| self.gauss()).collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / n).collect()
    }
}

/// Checks that two opens of the same entries agree (the borrowing `Store::load_with_cipher` or
/// `Store::load_host_sealed`, and `Store::load_owned`, which opens sealed values in place):
/// both open the same store, sealed alike, or both fail with the same error.
pub fn same_open(
    borrowed: &Result<Store, memdag_core::Error>,
    owned: &Result<Store, memdag_core::Error>,
) {
    match (borrowed, owned) {
        (Ok(a), Ok(b)) => {
            assert_eq!(dump(a), dump(b));
            assert_eq!(a.is_encrypted(), b.is_encrypted());
        }
        (Err(a), Err(b)) => assert_eq!(a, b),
        (a, b) => panic!(
            "the opens disagree: borrowed {:?}, owned {:?}",
            a.as_ref().err(),
            b.as_ref().err()
        ),
    }
}
