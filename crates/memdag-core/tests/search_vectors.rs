//! Vector and hybrid search: HNSW recall against brute force, dimensions, deletions that never
//! come back, and reload equivalence (the same queries give the same hits after a reload).

mod common;

use std::collections::BTreeMap;

use memdag_core::search::{Fusion, SearchFilter, SearchMode, SearchQuery};
use memdag_core::{NewTurn, Store};
use proptest::prelude::*;

use common::Rng;

/// `n` unit vectors around `centres` cluster centres, like real embeddings.
fn clustered(rng: &mut Rng, n: usize, dim: usize, centres: usize) -> Vec<Vec<f32>> {
    let cs: Vec<Vec<f32>> = (0..centres).map(|_| rng.unit_vector(dim)).collect();
    (0..n)
        .map(|_| {
            let c = &cs[(rng.next() % centres as u64) as usize];
            let v: Vec<f32> = c.iter().map(|x| x + 0.06 * rng.gauss()).collect();
            let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.into_iter().map(|x| x / n).collect()
        })
        .collect()
}

fn turn(id: &str, input: &str, embedding: Option<Vec<f32>>) -> NewTurn {
    NewTurn {
        id: Some(id.into()),
        thread: "t".into(),
        input: input.into(),
        embedding,
        ..Default::default()
    }
}

fn vq(v: &[f32], k: usize) -> SearchQuery {
    SearchQuery {
        embedding: Some(v.to_vec()),
        mode: SearchMode::Vector,
        k,
        // Nearest neighbours alone: no thread context.
        context: 0.0,
        thread_scope: 0.0,
        ..Default::default()
    }
}

fn reload(kv: &mut BTreeMap<String, Vec<u8>>, s: &mut Store) -> Store {
    for c in s.take_changes().unwrap() {
        match c.value {
            Some(v) => kv.insert(c.key, v),
            None => kv.remove(&c.key),
        };
    }
    Store::load(kv.iter().map(|(k, v)| (k.as_str(), v.as_slice()))).unwrap()
}

#[test]
fn hnsw_recall_at_10_against_brute_force() {
    let seed = 0x5eed_0001;
    println!("seed {seed:#x}");
    let mut rng = Rng(seed);
    let dim = 48;
    let data = clustered(&mut rng, 3000, dim, 40);
    let mut s = Store::new();
    for (i, v) in data.iter().enumerate() {
        s.add_turn(turn(&format!("n{i}"), "", Some(v.clone())))
            .unwrap();
    }
    let queries: Vec<Vec<f32>> = (0..100)
        .map(|_| clustered(&mut rng, 1, dim, 40).remove(0))
        .collect();
    let recall = recall_at_10(&s, &queries);
    println!("recall@10 {recall:.4} (seed {seed:#x})");
    assert!(recall >= 0.95, "recall@10 {recall} with seed {seed:#x}");
}

/// recall@10 of `s`'s vector search against its exact scan, on `queries`.
fn recall_at_10(s: &Store, queries: &[Vec<f32>]) -> f64 {
    let (mut hit, mut total) = (0, 0);
    for q in queries {
        let exact: Vec<String> = s
            .search_index()
            .vectors()
            .exact(q, 10)
            .into_iter()
            .map(|(slot, _)| s.slot(slot).unwrap().id.clone())
            .collect();
        let got: Vec<String> = s
            .search(&vq(q, 10))
            .unwrap()
            .into_iter()
            .map(|h| h.id)
            .collect();
        total += exact.len();
        hit += exact.iter().filter(|id| got.contains(id)).count();
    }
    hit as f64 / total as f64
}

/// Forgetting users removes their records from the graph in one batch (see
/// `Hnsw::delete_many`): a tenth of the records spread over the store, then the oldest tenth
/// (the nodes every later one linked to). Nothing of theirs comes back, recall holds, no live
/// node keeps a link to a removed one, and a reload walks as the store did.
#[test]
fn forgetting_many_records_at_once_keeps_the_graph_searchable() {
    let seed = 0x5eed_0003;
    println!("seed {seed:#x}");
    let mut rng = Rng(seed);
    let dim = 48;
    let data = clustered(&mut rng, 3000, dim, 40);
    let mut s = Store::new();
    for (i, v) in data.iter().enumerate() {
        let user = if i < 300 {
            "oldest"
        } else if i % 10 == 3 {
            "spread"
        } else {
            "kept"
        };
        s.add_turn(NewTurn {
            user: user.into(),
            ..turn(&format!("n{i}"), "", Some(v.clone()))
        })
        .unwrap();
    }
    let queries = clustered(&mut rng, 100, dim, 40);
    let before = recall_at_10(&s, &queries);
    let mut kv = BTreeMap::new();
    let mut s = reload(&mut kv, &mut s);
    for user in ["spread", "oldest"] {
        let gone = s.forget_user(user).unwrap();
        assert!(gone.records.len() >= 270, "{user}: {}", gone.records.len());
    }
    assert_eq!(s.len(), 3000 - 300 - 270);
    let vectors = s.search_index().vectors();
    assert_eq!(vectors.len(), s.len());
    for q in &queries {
        for h in s.search(&vq(q, 10)).unwrap() {
            assert_eq!(s.get(&h.id).unwrap().user, "kept", "{}", h.id);
        }
    }
    let after = recall_at_10(&s, &queries);
    println!("recall@10 before {before:.4}, after forgetting 19% {after:.4} (seed {seed:#x})");
    assert!(
        after >= 0.93,
        "recall@10 {after} after the batch (before {before})"
    );
    let hits: Vec<Vec<String>> = queries
        .iter()
        .map(|q| {
            s.search(&vq(q, 10))
                .unwrap()
                .into_iter()
                .map(|h| h.id)
                .collect()
        })
        .collect();
    let reloaded = reload(&mut kv, &mut s);
    for (q, want) in queries.iter().zip(&hits) {
        let got: Vec<String> = reloaded
            .search(&vq(q, 10))
            .unwrap()
            .into_iter()
            .map(|h| h.id)
            .collect();
        assert_eq!(&got, want);
    }
}

/// After `delete_many`, no live node links a node it deleted, on any layer.
#[test]
fn a_batch_delete_leaves_no_link_to_its_nodes() {
    use memdag_core::index::hnsw::{Hnsw, HnswParams};
    use memdag_core::index::vecstore::VectorSettings;
    let mut rng = Rng(0x5eed_0004);
    let data = clustered(&mut rng, 2000, 24, 20);
    let mut h = Hnsw::new(24, HnswParams::default(), VectorSettings::F32);
    for (i, v) in data.iter().enumerate() {
        h.insert(i as u64, v, 1.0);
    }
    let doomed: Vec<u32> = (0..2000u32).filter(|n| n % 7 == 2 || *n < 150).collect();
    let repaired = h.delete_many(&doomed);
    assert!(!repaired.is_empty());
    assert_eq!(h.len(), 2000 - doomed.len());
    for n in (0..2000u32).filter(|&n| h.is_live(n)) {
        for lc in 0..=16u8 {
            for &x in h.links(n, lc) {
                assert!(
                    !doomed.contains(&x),
                    "node {n} layer {lc} links deleted {x}"
                );
            }
        }
    }
    // Deleting them again changes nothing.
    assert!(h.delete_many(&doomed).is_empty());
}

#[test]
fn dimension_is_fixed_and_bad_vectors_are_refused() {
    let mut s = Store::new();
    s.add_turn(turn("a", "x", Some(vec![1.0, 0.0, 0.0])))
        .unwrap();
    let code = |s: &mut Store, e: Vec<f32>| s.add_turn(turn("b", "x", Some(e))).unwrap_err().code();
    assert_eq!(code(&mut s, vec![1.0, 0.0]), "INVALID_INPUT");
    assert_eq!(code(&mut s, vec![0.0, 0.0, 0.0]), "INVALID_INPUT");
    assert_eq!(code(&mut s, vec![f32::NAN, 0.0, 1.0]), "INVALID_INPUT");
    assert_eq!(s.len(), 1, "a refused turn changes nothing");
    assert_eq!(
        s.search(&vq(&[1.0, 0.0], 5)).unwrap_err().code(),
        "INVALID_INPUT"
    );
    let mut kv = BTreeMap::new();
    let loaded = reload(&mut kv, &mut s);
    assert_eq!(loaded.meta().dimension, 3);
    assert_eq!(loaded.search(&vq(&[1.0, 0.0, 0.0], 5)).unwrap()[0].id, "a");
}

#[test]
fn deleted_records_never_come_back() {
    let mut rng = Rng(7);
    let data = clustered(&mut rng, 400, 16, 8);
    let mut s = Store::new();
    for (i, v) in data.iter().enumerate() {
        s.add_turn(turn(
            &format!("n{i}"),
            &format!("word{} common", i % 10),
            Some(v.clone()),
        ))
        .unwrap();
    }
    let mut kv = BTreeMap::new();
    let mut deleted = Vec::new();
    for round in 0..3 {
        for i in (round..400).step_by(4) {
            let id = format!("n{i}");
            if s.get(&id).is_some() {
                s.delete(&id).unwrap();
                deleted.push(id);
            }
        }
        s = reload(&mut kv, &mut s);
        for (i, v) in data.iter().enumerate().take(20) {
            s.add_turn(turn(&format!("r{round}-{i}"), "common", Some(v.clone())))
                .unwrap();
        }
        for q in data.iter().take(30) {
            for mode in [SearchMode::Vector, SearchMode::Hybrid] {
                let query = SearchQuery {
                    text: "common word3".into(),
                    mode,
                    k: 50,
                    ..vq(q, 50)
                };
                for h in s.search(&query).unwrap() {
                    assert!(!deleted.contains(&h.id), "deleted {} came back", h.id);
                }
            }
        }
    }
    assert!(
        !kv.keys()
            .any(|k| deleted.iter().any(|d| k.ends_with(&format!("/{d}")))),
        "stale keys left"
    );
}

#[test]
fn filtered_vector_search_fills_k() {
    let mut rng = Rng(11);
    let data = clustered(&mut rng, 600, 16, 4);
    let mut s = Store::new();
    for (i, v) in data.iter().enumerate() {
        let mut t = turn(&format!("n{i}"), &format!("x{i}"), Some(v.clone()));
        t.thread = if i % 50 == 0 {
            "rare".into()
        } else {
            "common".into()
        };
        s.add_turn(t).unwrap();
    }
    let q = SearchQuery {
        filter: SearchFilter {
            thread: Some("rare".into()),
            ..Default::default()
        },
        ..vq(&data[1], 5)
    };
    let hits = s.search(&q).unwrap();
    assert_eq!(hits.len(), 5);
    assert!(hits.iter().all(|h| s.get(&h.id).unwrap().thread == "rare"));
}

#[test]
fn builtin_embedder_when_enabled() {
    let mut s = Store::new();
    s.set_auto_embed(true);
    s.add_turn(turn("a", "the deployment of the web service failed", None))
        .unwrap();
    s.add_turn(turn("b", "lunch menu for friday", None))
        .unwrap();
    assert_eq!(
        s.search_index().vectors().dimension(),
        memdag_core::search::BUILTIN_DIMENSION
    );
    let q = SearchQuery {
        text: "deployments failing".into(),
        mode: SearchMode::Vector,
        ..Default::default()
    };
    assert_eq!(s.search(&q).unwrap()[0].id, "a");
}

fn all_queries(data: &[Vec<f32>]) -> Vec<SearchQuery> {
    let mut out = Vec::new();
    for (i, v) in data.iter().enumerate().take(6) {
        let text = format!("topic{} shared", i % 5);
        out.push(SearchQuery {
            text: text.clone(),
            mode: SearchMode::Bm25,
            k: 20,
            ..Default::default()
        });
        out.push(vq(v, 20));
        out.push(SearchQuery {
            text: text.clone(),
            k: 20,
            ..vq(v, 20)
        });
        out.push(SearchQuery {
            text,
            k: 20,
            mode: SearchMode::Hybrid,
            fusion: Fusion::Rrf,
            ..vq(v, 20)
        });
    }
    out
}

fn same_results(a: &Store, b: &Store, queries: &[SearchQuery]) {
    for q in queries {
        let (x, y) = (a.search(q).unwrap(), b.search(q).unwrap());
        assert_eq!(x, y, "query {q:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any sequence of adds, deletes, compactions and reloads: a reloaded store answers every
    /// query exactly as the store it was saved from.
    #[test]
    fn reload_gives_the_same_results(seed in any::<u64>(), ops in prop::collection::vec(0u8..10, 20..120)) {
        let mut rng = Rng(seed);
        let data = clustered(&mut rng, 120, 8, 6);
        let queries = all_queries(&data);
        let mut s = Store::new();
        let mut kv = BTreeMap::new();
        let mut next = 0usize;
        for op in ops {
            match op {
                0..=5 => {
                    let v = data[next % data.len()].clone();
                    let text = format!("topic{} shared item{next}", next % 5);
                    let emb = (op != 5).then_some(v);
                    s.add_turn(turn(&format!("n{next}"), &text, emb)).unwrap();
                    next += 1;
                }
                6 | 7 => {
                    let ids: Vec<String> = s.iter().map(|r| r.id.clone()).collect();
                    if !ids.is_empty() {
                        let id = &ids[(rng.next() % ids.len() as u64) as usize];
                        s.delete(id).unwrap();
                    }
                }
                8 => {
                    let first = s.iter().next().map(|r| r.id.clone());
                    if let Some(id) = first {
                        let c = memdag_core::CompactNode { summary: "shared summary".into(), sections: vec![] };
                        s.set_compact(&id, Some(c)).unwrap();
                    }
                }
                _ => {
                    let loaded = reload(&mut kv, &mut s);
                    same_results(&s, &loaded, &queries);
                    s = loaded;
                }
            }
        }
        let loaded = reload(&mut kv, &mut s);
        same_results(&s, &loaded, &queries);
    }
}

#[test]
fn a_query_wants_a_vector_only_for_vector_modes_and_text_with_words() {
    let q = |text: &str, mode: SearchMode| SearchQuery {
        text: text.into(),
        mode,
        ..SearchQuery::default()
    };
    assert!(q("deploy", SearchMode::Hybrid).wants_vector());
    assert!(q(" deploy ", SearchMode::Vector).wants_vector());
    assert!(!q("deploy", SearchMode::Bm25).wants_vector());
    for blank in ["", " ", "\t\n", "\u{3000}"] {
        assert!(!q(blank, SearchMode::Hybrid).wants_vector(), "{blank:?}");
    }
    let given = SearchQuery {
        embedding: Some(vec![1.0, 0.0]),
        ..q("deploy", SearchMode::Vector)
    };
    assert!(
        !given.wants_vector(),
        "a query with its own vector is not embedded"
    );
}
