//! The owned open (`Store::load_owned`) of an int8 store whose codes move into one pool that
//! the vector index takes: with records deleted in later segments (rows no node names), with
//! a segment written at f32 before the store went int8 (no pool), sealed and plain. Each
//! open is checked against the borrowing one (`common::compared_open`: records, snapshot,
//! warnings, the next change set), and searched alike.

mod common;

use std::collections::BTreeMap;

use common::{apply, compared_open, Rng};
use memdag_core::index::vecstore::{Precision, VectorSettings};
use memdag_core::search::{SearchMode, SearchQuery};
use memdag_core::{Cipher, NewTurn, Store};

const DIM: usize = 16;

fn int8(train: u32) -> VectorSettings {
    VectorSettings {
        precision: Precision::Int8,
        train,
    }
}

fn add(store: &mut Store, rng: &mut Rng, i: usize) {
    store
        .add_turn(NewTurn {
            id: Some(format!("r{i}")),
            thread: format!("t{}", i % 5),
            input: format!("turn {i} about topic {}", i % 13),
            created_at: i as i64,
            embedding: Some(rng.unit_vector(DIM)),
            ..Default::default()
        })
        .unwrap();
}

/// The ids a vector query finds, in order.
fn nearest(store: &Store, q: &[f32]) -> Vec<String> {
    let query = SearchQuery {
        embedding: Some(q.to_vec()),
        mode: SearchMode::Vector,
        k: 10,
        context: 0.0,
        thread_scope: 0.0,
        ..Default::default()
    };
    store
        .search(&query)
        .unwrap()
        .into_iter()
        .map(|h| h.id)
        .collect()
}

/// Opens `kv` both ways (checked alike) and searches both alike; returns the owned open.
fn open_both(kv: &BTreeMap<String, Vec<u8>>, cipher: Option<&Cipher>) -> Store {
    let owned = compared_open(kv, || cipher.cloned()).unwrap();
    let borrowed = Store::load_with_cipher(
        kv.iter().map(|(k, v)| (k.as_str(), v.as_slice())),
        cipher.cloned(),
    )
    .unwrap();
    let mut rng = Rng(99);
    for _ in 0..20 {
        let q = rng.unit_vector(DIM);
        assert_eq!(nearest(&owned, &q), nearest(&borrowed, &q));
    }
    for (a, b) in owned.iter().zip(borrowed.iter()) {
        assert_eq!(owned.embedding_of(a), borrowed.embedding_of(b));
    }
    owned
}

/// A store written over several flushes, with deletions in later segments.
fn grown(cipher: Option<&Cipher>, f32_first: bool) -> BTreeMap<String, Vec<u8>> {
    let mut rng = Rng(7);
    let mut kv = BTreeMap::new();
    let mut store = Store::new();
    if let Some(c) = cipher {
        store.set_cipher(Some(c.clone()));
    }
    store.set_part_bytes(4 * 1024);
    if f32_first {
        store.set_vector_settings(VectorSettings::F32).unwrap();
        for i in 0..120 {
            add(&mut store, &mut rng, i);
        }
        apply(&mut kv, &mut store);
    }
    store.set_vector_settings(int8(64)).unwrap();
    for i in 120..600 {
        add(&mut store, &mut rng, i);
        if i % 97 == 0 {
            apply(&mut kv, &mut store);
        }
        // Records of earlier segments deleted: their codes stay in those segments.
        if i % 150 == 0 {
            for j in (i - 140..i - 20).step_by(9) {
                let _ = store.delete(&format!("r{j}"));
            }
        }
    }
    apply(&mut kv, &mut store);
    kv
}

#[test]
fn an_int8_store_with_deletions_opens_owned_as_borrowed() {
    let kv = grown(None, false);
    let mut owned = open_both(&kv, None);
    // And it writes on, and opens again alike.
    let mut kv = kv;
    let mut rng = Rng(3);
    for i in 600..650 {
        add(&mut owned, &mut rng, i);
    }
    apply(&mut kv, &mut owned);
    open_both(&kv, None);
}

#[test]
fn an_int8_store_with_f32_vectors_before_opens_owned_as_borrowed() {
    let kv = grown(None, true);
    open_both(&kv, None);
}

#[test]
fn a_sealed_int8_store_opens_owned_as_borrowed() {
    let cipher = Cipher::new(&[5; 32]).unwrap();
    let kv = grown(Some(&cipher), false);
    open_both(&kv, Some(&cipher));
}
