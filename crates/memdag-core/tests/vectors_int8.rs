//! int8 vectors: the quantizer's bounds (property tests), a store kept at int8 (recall against
//! the exact `f32` neighbours, what `embedding` returns, reload, the precision changed on a
//! stored `f32` store), the exact re-scoring of `int8+f32`, and reindex keeping the settings.

mod common;

use std::collections::BTreeMap;

use common::{apply, reload, Rng};
use memdag_core::index::quant::{dot_codes, portable_dot_codes, query_max, Quantizer, CODE_MAX};
use memdag_core::index::vecstore::{Precision, VectorSettings};
use memdag_core::search::{SearchMode, SearchQuery};
use memdag_core::{NewTurn, Store};
use proptest::prelude::*;

fn normalize(v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.into_iter().map(|x| x / n).collect()
}

/// `n` vectors around `centres` centres, each dimension scaled differently (as real embeddings
/// are) and given at a norm other than 1.
fn clustered(rng: &mut Rng, n: usize, dim: usize, centres: usize) -> Vec<Vec<f32>> {
    let scale: Vec<f32> = (0..dim).map(|d| 0.5 + (d % 7) as f32 * 0.5).collect();
    let cs: Vec<Vec<f32>> = (0..centres)
        .map(|_| normalize((0..dim).map(|d| rng.gauss() * scale[d]).collect()))
        .collect();
    (0..n)
        .map(|i| {
            let c = &cs[(rng.next() % centres as u64) as usize];
            let v: Vec<f32> = c.iter().map(|x| x + 0.06 * rng.gauss()).collect();
            let norm = 1.0 + (i % 5) as f32;
            normalize(v).into_iter().map(|x| x * norm).collect()
        })
        .collect()
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    dot(a, b) / (dot(a, a).sqrt() * dot(b, b).sqrt())
}

fn int8(train: u32) -> VectorSettings {
    VectorSettings {
        precision: Precision::Int8,
        train,
    }
}

fn store_of(vectors: &[Vec<f32>], settings: VectorSettings) -> Store {
    let mut s = Store::new();
    s.set_vector_settings(settings).unwrap();
    for (i, v) in vectors.iter().enumerate() {
        s.add_turn(NewTurn {
            id: Some(format!("r{i}")),
            thread: format!("t{}", i % 7),
            input: format!("turn {i}"),
            created_at: i as i64,
            embedding: Some(v.clone()),
            ..Default::default()
        })
        .unwrap();
    }
    s
}

fn vq(v: &[f32], k: usize) -> SearchQuery {
    SearchQuery {
        embedding: Some(v.to_vec()),
        mode: SearchMode::Vector,
        k,
        context: 0.0,
        thread_scope: 0.0,
        ..Default::default()
    }
}

/// The ids of the `k` records nearest to `q` by the exact cosine of the given vectors.
fn exact_ids(vectors: &[Vec<f32>], q: &[f32], k: usize) -> Vec<String> {
    let mut scored: Vec<(f32, usize)> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| (cosine(q, v), i))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .iter()
        .take(k)
        .map(|(_, i)| format!("r{i}"))
        .collect()
}

/// Recall@k of `store` against the exact neighbours of `vectors`, over `queries`.
fn recall(store: &Store, vectors: &[Vec<f32>], queries: &[Vec<f32>], k: usize) -> f64 {
    let mut found = 0;
    for q in queries {
        let want = exact_ids(vectors, q, k);
        let hits = store.search(&vq(q, k)).unwrap();
        found += hits.iter().filter(|h| want.contains(&h.id)).count();
    }
    found as f64 / (queries.len() * k) as f64
}

fn unit_vectors(dim: usize) -> impl Strategy<Value = Vec<Vec<f32>>> {
    prop::collection::vec(prop::collection::vec(-1.0f32..1.0, dim), 2..40).prop_filter_map(
        "non-zero",
        |vs| {
            vs.into_iter()
                .map(|v| {
                    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                    (n > 1e-3).then(|| v.into_iter().map(|x| x / n).collect::<Vec<f32>>())
                })
                .collect()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every component of a vector the steps were trained on comes back within half a step,
    /// and every code is within ±127.
    #[test]
    fn trained_vectors_come_back_within_half_a_step(vs in unit_vectors(24)) {
        let q = Quantizer::train(24, vs.iter().map(Vec::as_slice));
        for v in &vs {
            let mut codes = Vec::new();
            q.quantize(v, &mut codes);
            prop_assert_eq!(codes.len(), 24);
            let mut back = Vec::new();
            q.dequantize(&codes, &mut back);
            for ((x, y), s) in v.iter().zip(&back).zip(q.steps()) {
                prop_assert!((x - y).abs() <= s * 0.5 + 1e-6, "{} vs {} (step {})", x, y, s);
            }
            prop_assert!(codes.iter().all(|c| i32::from(*c).abs() <= CODE_MAX));
        }
    }

    /// A component outside the trained range saturates: its code is ±127 with its sign, and
    /// what comes back is the end of the range.
    #[test]
    fn components_outside_the_range_saturate(vs in unit_vectors(8), d in 0usize..8, big in 2.0f32..100.0) {
        let q = Quantizer::train(8, vs.iter().map(Vec::as_slice));
        let mut v = vs[0].clone();
        v[d] = q.steps()[d] * CODE_MAX as f32 * big * if vs[0][d] < 0.0 { -1.0 } else { 1.0 };
        let mut codes = Vec::new();
        q.quantize(&v, &mut codes);
        prop_assert_eq!(i32::from(codes[d]).abs(), CODE_MAX);
        prop_assert_eq!(codes[d] < 0, v[d] < 0.0);
    }

    /// The folded query's integer dot product is the query's dot product with what the codes
    /// stand for, to a small error, and the SIMD-or-portable dot is the portable one exactly.
    #[test]
    fn folded_queries_score_like_the_dequantized_vector(vs in unit_vectors(40), qv in prop::collection::vec(-1.0f32..1.0, 40)) {
        let q = Quantizer::train(40, vs.iter().map(Vec::as_slice));
        let n = qv.iter().map(|x| x * x).sum::<f32>().sqrt();
        prop_assume!(n > 1e-3);
        let unit: Vec<f32> = qv.iter().map(|x| x / n).collect();
        let mut folded = Default::default();
        q.query_into(&unit, &mut folded);
        let memdag_core::index::quant::QueryCodes { q16, factor } = &folded;
        prop_assert!(q16.iter().all(|x| i32::from(*x).abs() <= query_max(40)));
        for v in &vs {
            let mut codes = Vec::new();
            q.quantize(v, &mut codes);
            let mut back = Vec::new();
            q.dequantize(&codes, &mut back);
            let want = dot(&unit, &back);
            let got = dot_codes(q16, &codes) as f32 * factor;
            prop_assert_eq!(dot_codes(q16, &codes), portable_dot_codes(q16, &codes));
            // Each folded component is off by at most half a unit of `factor`, times a code.
            let bound = 0.5 * factor * codes.iter().map(|c| f32::from(*c).abs()).sum::<f32>() + 1e-5;
            prop_assert!((got - want).abs() <= bound, "{} vs {} (bound {})", got, want, bound);
        }
    }
}

#[test]
fn an_integer_dot_never_overflows_at_the_extremes() {
    for dim in [1usize, 15, 16, 384, 516, 1536, 4096] {
        let m = query_max(dim) as i16;
        let q16 = vec![m; dim];
        let codes = vec![127i8; dim];
        let want = i64::from(m) * 127 * dim as i64;
        assert_eq!(i64::from(dot_codes(&q16, &codes)), want, "dim {dim}");
        let neg = vec![-127i8; dim];
        assert_eq!(i64::from(dot_codes(&q16, &neg)), -want, "dim {dim}");
    }
}

/// A store kept at int8 finds the exact neighbours of the given `f32` vectors (recall@10 ≥
/// 0.9), keeps `dim + 8` bytes a vector, returns what the codes stand for at the given norm, and
/// gives the same hits after a reload.
#[test]
fn an_int8_store_searches_returns_dequantized_vectors_and_reloads_the_same() {
    let mut rng = Rng(7);
    let all = clustered(&mut rng, 1_540, 48, 20);
    let (vectors, queries) = all.split_at(1_500);
    let mut s = store_of(vectors, int8(256));
    let index = s.search_index().vectors();
    assert_eq!(index.precision(), Precision::Int8);
    let steps = index.steps().expect("trained after 256 vectors").to_vec();
    assert_eq!(steps.len(), 48);
    // The steps follow each dimension's range.
    assert!(steps[6] > steps[0] * 2.0, "{} vs {}", steps[6], steps[0]);
    let r = recall(&s, vectors, queries, 10);
    assert!(r >= 0.95, "int8 recall@10 {r}");
    let f32_store = store_of(vectors, VectorSettings::F32);
    let exact = recall(&f32_store, vectors, queries, 10);
    assert!(r <= exact + 1e-9, "int8 {r} vs f32 {exact}");
    // What embedding returns: near the given vector, at its norm; each component within a
    // step times the norm (half a step for the codes, and the renormalization).
    for i in [0usize, 300, 1_499] {
        let given = &vectors[i];
        let back = s.embedding(&format!("r{i}")).unwrap();
        assert_eq!(back.len(), 48);
        let norm = dot(given, given).sqrt();
        assert!((dot(&back, &back).sqrt() - norm).abs() < 1e-3 * norm);
        assert!(
            cosine(given, &back) > 0.99,
            "r{i}: {}",
            cosine(given, &back)
        );
    }
    let before: Vec<Vec<String>> = queries
        .iter()
        .map(|q| {
            s.search(&vq(q, 10))
                .unwrap()
                .into_iter()
                .map(|h| h.id)
                .collect()
        })
        .collect();
    let embedding = s.embedding("r42").unwrap().into_owned();
    let mut kv = BTreeMap::new();
    apply(&mut kv, &mut s);
    let back = reload(&kv).unwrap();
    assert_eq!(back.vector_settings(), int8(256));
    assert_eq!(back.search_index().vectors().steps(), Some(&steps[..]));
    assert_eq!(back.embedding("r42").unwrap().into_owned(), embedding);
    let after: Vec<Vec<String>> = queries
        .iter()
        .map(|q| {
            back.search(&vq(q, 10))
                .unwrap()
                .into_iter()
                .map(|h| h.id)
                .collect()
        })
        .collect();
    assert_eq!(before, after);
    // Memory: a vector takes its codes and two norms (48 + 8 bytes) instead of 48 floats and
    // a norm.
    let vectors = |s: &Store| s.search_index().vectors().heap_parts()[0];
    assert_eq!(vectors(&back), ("vectors", 1_500 * (48 + 8)));
    assert_eq!(vectors(&f32_store), ("vectors", 1_500 * (48 * 4 + 4)));
}

/// `int8+f32` walks with the codes and re-scores exactly: its scores are the exact cosines and
/// its recall is the f32 store's.
#[test]
fn int8_with_f32_rescores_exactly() {
    let mut rng = Rng(11);
    let all = clustered(&mut rng, 1_240, 32, 12);
    let (vectors, queries) = all.split_at(1_200);
    let settings = VectorSettings {
        precision: Precision::Int8Exact,
        train: 200,
    };
    let mut s = store_of(vectors, settings);
    assert!(s.search_index().vectors().steps().is_some());
    let f32_store = store_of(vectors, VectorSettings::F32);
    assert!(recall(&s, vectors, queries, 10) >= recall(&f32_store, vectors, queries, 10) - 0.02);
    for q in queries {
        for h in s.search(&vq(q, 5)).unwrap() {
            let i: usize = h.id[1..].parse().unwrap();
            assert!((h.score - cosine(q, &vectors[i])).abs() < 1e-4, "{}", h.id);
        }
    }
    // It keeps the given vectors, bit for bit, and stores them as f32.
    assert_eq!(s.embedding("r3").as_deref(), Some(&vectors[3][..]));
    let mut kv = BTreeMap::new();
    apply(&mut kv, &mut s);
    let back = reload(&kv).unwrap();
    assert_eq!(back.vector_settings(), settings);
    assert_eq!(back.embedding("r3").as_deref(), Some(&vectors[3][..]));
    assert_eq!(
        back.search_index().vectors().steps(),
        s.search_index().vectors().steps()
    );
}

/// A stored f32 store set to int8 trains on what it holds, writes its next vectors as codes,
/// and reopens at int8 with its old f32 segments quantized under the same steps; set back to
/// f32 it keeps what the codes stand for.
#[test]
fn the_precision_of_a_stored_store_changes_and_persists() {
    let mut rng = Rng(3);
    let vectors = clustered(&mut rng, 700, 16, 8);
    let mut s = store_of(&vectors[..600], VectorSettings::F32);
    let mut kv = BTreeMap::new();
    apply(&mut kv, &mut s);
    let mut s = reload(&kv).unwrap();
    assert_eq!(s.vector_settings(), VectorSettings::F32);
    assert!(s.search_index().vectors().steps().is_none());
    s.set_vector_settings(int8(500)).unwrap();
    let steps = s
        .search_index()
        .vectors()
        .steps()
        .expect("600 ≥ 500")
        .to_vec();
    for (i, v) in vectors.iter().enumerate().skip(600) {
        s.add_turn(NewTurn {
            id: Some(format!("r{i}")),
            thread: "t".into(),
            input: format!("turn {i}"),
            embedding: Some(v.clone()),
            ..Default::default()
        })
        .unwrap();
    }
    apply(&mut kv, &mut s);
    let back = reload(&kv).unwrap();
    assert_eq!(back.vector_settings(), int8(500));
    assert_eq!(back.search_index().vectors().steps(), Some(&steps[..]));
    for id in ["r5", "r650"] {
        assert_eq!(back.embedding(id), s.embedding(id), "{id}");
    }
    let hits = |st: &Store| -> Vec<String> {
        st.search(&vq(&vectors[650], 10))
            .unwrap()
            .into_iter()
            .map(|h| h.id)
            .collect()
    };
    assert_eq!(hits(&back), hits(&s));
    assert_eq!(hits(&s)[0], "r650");
    // Back to f32: the codes' vectors are kept as f32, the steps stay (old segments hold codes).
    let mut s = back;
    let lossy = s.embedding("r650").unwrap().into_owned();
    s.set_vector_settings(VectorSettings::F32).unwrap();
    assert_eq!(s.embedding("r650").as_deref(), Some(&lossy[..]));
    apply(&mut kv, &mut s);
    let back = reload(&kv).unwrap();
    assert_eq!(back.vector_settings(), VectorSettings::F32);
    assert_eq!(back.embedding("r650").as_deref(), Some(&lossy[..]));
    assert_eq!(back.search_index().vectors().steps(), Some(&steps[..]));
}

/// A store below its training count keeps f32 (and stores f32); the vector that reaches it
/// trains the steps.
#[test]
fn vectors_stay_f32_until_the_training_count() {
    let mut rng = Rng(5);
    let vectors = clustered(&mut rng, 10, 8, 2);
    let mut s = store_of(&vectors[..9], int8(10));
    assert!(s.search_index().vectors().steps().is_none());
    assert_eq!(s.embedding("r4").as_deref(), Some(&vectors[4][..]));
    let mut kv = BTreeMap::new();
    apply(&mut kv, &mut s);
    let mut s = reload(&kv).unwrap();
    assert_eq!(s.vector_settings(), int8(10));
    s.add_turn(NewTurn {
        id: Some("r9".into()),
        thread: "t".into(),
        embedding: Some(vectors[9].clone()),
        ..Default::default()
    })
    .unwrap();
    assert!(s.search_index().vectors().steps().is_some());
    assert_ne!(s.embedding("r4").as_deref(), Some(&vectors[4][..]));
    assert!(cosine(&s.embedding("r4").unwrap(), &vectors[4]) > 0.99);
}

/// A reindex keeps the store's vector settings and trains new steps on the new vectors.
#[test]
fn a_reindex_keeps_the_settings_and_trains_anew() {
    let mut rng = Rng(9);
    let vectors = clustered(&mut rng, 40, 12, 3);
    let mut s = store_of(&vectors, int8(8));
    let old = s.search_index().vectors().steps().unwrap().to_vec();
    let fresh = clustered(&mut rng, 40, 6, 3);
    let mut embed = |texts: &[String]| -> memdag_core::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let i: usize = t.split_whitespace().nth(1).unwrap().parse().unwrap();
                fresh[i].clone()
            })
            .collect())
    };
    let done = s.reindex(16, &mut embed, &mut |_| {}).unwrap();
    assert_eq!(done.dimension, 6);
    assert_eq!(s.vector_settings(), int8(8));
    let new = s.search_index().vectors().steps().unwrap().to_vec();
    assert_eq!(new.len(), 6);
    assert_ne!(new, old[..6]);
    let mut kv = BTreeMap::new();
    apply(&mut kv, &mut s);
    let back = reload(&kv).unwrap();
    assert_eq!(back.search_index().vectors().steps(), Some(&new[..]));
    assert_eq!(back.search(&vq(&fresh[17], 1)).unwrap()[0].id, "r17");
}

/// Settings are refused whole when bad (a training count of 0, an unknown precision or name),
/// and their JSON names are the faces' (`f32`, `int8`, `int8+f32`; `train`).
#[test]
fn bad_settings_are_refused_and_change_nothing() {
    let mut s = Store::new();
    let e = s.set_vector_settings(int8(0)).unwrap_err();
    assert_eq!(e.code(), "INVALID_INPUT");
    assert_eq!(s.vector_settings(), VectorSettings::default());
    let parse = |j: &str| serde_json::from_str::<VectorSettings>(j);
    assert_eq!(
        parse(r#"{"precision":"int8+f32"}"#).unwrap(),
        VectorSettings {
            precision: Precision::Int8Exact,
            train: 1024
        }
    );
    assert_eq!(parse(r#"{"train":5}"#).unwrap().precision, Precision::Int8);
    assert!(parse(r#"{"precision":"int4"}"#).is_err());
    assert!(parse(r#"{"trian":5}"#).is_err());
    assert_eq!(
        serde_json::to_string(&int8(9)).unwrap(),
        r#"{"precision":"int8","train":9}"#
    );
}

/// A new store keeps int8 (the default) and its commit says so; an `f32` store's commit leaves
/// the settings out, as every commit before int8 became the default did, and one that leaves
/// them out opens at `f32` (the format fixtures check stores written then: codec_format.rs).
#[test]
fn a_new_store_keeps_int8_and_a_store_that_states_no_settings_keeps_f32() {
    let mut rng = Rng(13);
    let vectors = clustered(&mut rng, 40, 16, 4);
    let fresh = Store::load(Vec::<(String, Vec<u8>)>::new()).unwrap();
    assert_eq!(fresh.vector_settings(), VectorSettings::default());
    assert_eq!(VectorSettings::default().precision, Precision::Int8);
    let head_of = |settings: VectorSettings| {
        let mut s = store_of(&vectors, settings);
        let mut kv = BTreeMap::new();
        apply(&mut kv, &mut s);
        let back = reload(&kv).unwrap();
        assert_eq!(back.vector_settings(), settings);
        assert_eq!(back.embedding("r3"), s.embedding("r3"));
        kv.remove("head").expect("a head")
    };
    let states = |head: &[u8]| head.windows(9).any(|w| w == b"precision");
    assert!(states(&head_of(VectorSettings::default())));
    assert!(!states(&head_of(VectorSettings::F32)));
    // Below the training count an int8 store still holds what it was given.
    let s = store_of(&vectors, VectorSettings::default());
    assert_eq!(s.embedding("r3").as_deref(), Some(&vectors[3][..]));
}
