//! Reindex: moving a store to another embedding model, with another dimension.

mod common;

use std::collections::BTreeMap;

use common::{apply, reload, turn};
use memdag_core::search::{SearchMode, SearchQuery};
use memdag_core::{Error, ErrorKind, NewTurn, ReindexPhase, ReindexProgress, Store};

/// A toy "model": a vector of `dim` numbers from the text's bytes, different per model.
fn model(text: &str, dim: usize, salt: u32) -> Vec<f32> {
    let mut v = vec![0.01f32; dim];
    for (i, b) in text.bytes().enumerate() {
        let k = (b as usize * 31 + i * 7 + salt as usize) % dim;
        v[k] += 1.0;
    }
    v
}

fn texts_of(turns: &[NewTurn]) -> Vec<String> {
    turns
        .iter()
        .map(|t| memdag_core::embedding_text(&t.input, &t.output))
        .collect()
}

/// A store of 30 turns embedded by the 4-dimensional model.
fn store_with_model4() -> Store {
    let mut s = Store::new();
    let mut turns = Vec::new();
    for i in 0..30 {
        let mut t = turn(
            &format!("t{i}"),
            "th",
            &format!("question number {i} about topic {}", i % 5),
            &[],
        );
        t.output = format!("answer {i}");
        turns.push(t);
    }
    let texts = texts_of(&turns);
    for (mut t, text) in turns.into_iter().zip(texts) {
        t.embedding = Some(model(&text, 4, 0));
        s.add_turn(t).unwrap();
    }
    s
}

fn vector_query(v: Vec<f32>, k: usize) -> SearchQuery {
    SearchQuery {
        embedding: Some(v),
        mode: SearchMode::Vector,
        k,
        context: 0.0,
        thread_scope: 0.0,
        ..Default::default()
    }
}

fn embed16(texts: &[String]) -> Result<Vec<Vec<f32>>, Error> {
    Ok(texts.iter().map(|t| model(t, 16, 3)).collect())
}

#[test]
fn reindex_changes_the_dimension_and_persists() {
    let mut s = store_with_model4();
    assert_eq!(s.search_index().vectors().dimension(), 4);
    let mut events: Vec<ReindexProgress> = Vec::new();
    let done = s.reindex(7, &mut embed16, &mut |p| events.push(p)).unwrap();
    assert_eq!(
        (done.records, done.previous_dimension, done.dimension),
        (30, 4, 16)
    );
    assert_eq!(s.search_index().vectors().dimension(), 16);
    assert!(s
        .iter()
        .all(|r| s.embedding(&r.id).map(|v| v.len()) == Some(16) && r.embedding.is_none()));

    // Progress: embedding batches of 7 up to 30, then the graph rebuilt.
    let embedding: Vec<usize> = events
        .iter()
        .filter(|p| p.phase == ReindexPhase::Embedding)
        .map(|p| p.done)
        .collect();
    assert_eq!(embedding, vec![7, 14, 21, 28, 30]);
    let last = events.last().unwrap();
    assert_eq!(
        (last.phase, last.done, last.total),
        (ReindexPhase::Indexing, 30, 30)
    );

    // The new model answers; the old dimension is refused.
    let t12 = s.get("t12").unwrap();
    let q = model(&memdag_core::embedding_text(&t12.input, &t12.output), 16, 3);
    let hits = s.search(&vector_query(q.clone(), 3)).unwrap();
    assert_eq!(hits[0].id, "t12");
    let old = s.search(&vector_query(vec![1.0; 4], 3)).unwrap_err();
    assert_eq!(old.kind(), ErrorKind::InvalidInput);

    // A turn of the new model is accepted, one of the old refused.
    let mut fresh = turn("new", "th", "fresh turn", &[]);
    fresh.embedding = Some(model("x", 16, 3));
    s.add_turn(fresh).unwrap();
    let mut stale = turn("stale", "th", "stale turn", &[]);
    stale.embedding = Some(vec![1.0; 4]);
    assert_eq!(
        s.add_turn(stale).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );

    // Stored and reopened: the same dimension and answers.
    let mut kv = BTreeMap::new();
    apply(&mut kv, &mut s);
    let back = reload(&kv).unwrap();
    assert_eq!(back.search_index().vectors().dimension(), 16);
    assert_eq!(back.search(&vector_query(q, 3)).unwrap()[0].id, "t12");
}

#[test]
fn a_reindex_over_a_stored_store_rewrites_it_once() {
    let mut s = store_with_model4();
    let mut kv = BTreeMap::new();
    apply(&mut kv, &mut s);
    s.reindex(64, &mut embed16, &mut |_| {}).unwrap();
    apply(&mut kv, &mut s);
    let back = reload(&kv).unwrap();
    assert_eq!(back.len(), 30);
    for r in back.iter() {
        assert_eq!(back.embedding(&r.id).map(|v| v.len()), Some(16), "{}", r.id);
    }
    // Nothing left to write after the rewrite.
    assert!(!s.has_changes());
}

#[test]
fn a_failing_embedder_changes_nothing() {
    let mut s = store_with_model4();
    let before: Vec<_> = s
        .iter()
        .map(|r| s.embedding(&r.id).map(|v| v.into_owned()))
        .collect();
    let mut calls = 0;
    let err = s
        .reindex(
            10,
            &mut |texts| {
                calls += 1;
                if calls == 2 {
                    Err(Error::Host {
                        message: "rate limited".into(),
                    })
                } else {
                    embed16(texts)
                }
            },
            &mut |_| {},
        )
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Host);
    assert_eq!(s.search_index().vectors().dimension(), 4);
    let after: Vec<_> = s
        .iter()
        .map(|r| s.embedding(&r.id).map(|v| v.into_owned()))
        .collect();
    assert_eq!(before, after);
    assert!(!s
        .search(&vector_query(vec![1.0, 0.0, 0.0, 0.0], 3))
        .unwrap()
        .is_empty());
}

#[test]
fn bad_vectors_are_refused_and_the_job_survives() {
    let s = store_with_model4();
    let mut job = s.begin_reindex();
    let texts = s.reindex_batch(&mut job, 3).unwrap();
    assert_eq!(texts.len(), 3);
    // Another batch before this one is supplied: refused.
    assert_eq!(
        s.reindex_batch(&mut job, 3).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    for bad in [
        vec![vec![1.0; 8], vec![1.0; 8]],                    // too few
        vec![vec![1.0; 8], vec![1.0; 9], vec![1.0; 8]],      // two lengths
        vec![vec![1.0; 8], vec![f32::NAN; 8], vec![1.0; 8]], // not finite
        vec![vec![1.0; 8], vec![0.0; 8], vec![1.0; 8]],      // zero
    ] {
        assert_eq!(job.supply(bad).unwrap_err().kind(), ErrorKind::InvalidInput);
        assert_eq!(job.done(), 0);
    }
    job.supply(vec![vec![1.0; 8]; 3]).unwrap();
    assert_eq!((job.done(), job.total(), job.dimension()), (3, 30, 8));
    // Later batches must keep the job's dimension.
    let _ = s.reindex_batch(&mut job, 2).unwrap();
    assert_eq!(
        job.supply(vec![vec![1.0; 4]; 2]).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
}

#[test]
fn records_added_during_the_job_fail_the_finish_and_deleted_ones_are_skipped() {
    let mut s = store_with_model4();
    let mut job = s.begin_reindex();
    let texts = s.reindex_batch(&mut job, 10).unwrap();
    job.supply(embed16(&texts).unwrap()).unwrap();
    // t3 was embedded already, t20 not yet: both deleted now.
    s.delete("t3").unwrap();
    s.delete("t20").unwrap();
    loop {
        let texts = s.reindex_batch(&mut job, 10).unwrap();
        if texts.is_empty() {
            break;
        }
        job.supply(embed16(&texts).unwrap()).unwrap();
    }
    assert!(job.is_complete());
    assert_eq!(job.total(), 30);

    // A turn added meanwhile carries the old model: the finish refuses and changes nothing.
    let mut late = turn("late", "th", "late turn", &[]);
    late.embedding = Some(vec![1.0, 2.0, 3.0, 4.0]);
    s.add_turn(late).unwrap();
    let refused = s.finish_reindex(job.clone(), &mut |_| {}).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::InvalidInput);
    assert!(refused.to_string().contains("added"), "{refused}");
    assert_eq!(s.search_index().vectors().dimension(), 4);

    s.delete("late").unwrap();
    let done = s.finish_reindex(job, &mut |_| {}).unwrap();
    assert_eq!(done.records, 28);
    assert_eq!(s.search_index().vectors().len(), 28);
}

#[test]
fn an_incomplete_job_cannot_finish() {
    let mut s = store_with_model4();
    let mut job = s.begin_reindex();
    let texts = s.reindex_batch(&mut job, 5).unwrap();
    job.supply(embed16(&texts).unwrap()).unwrap();
    let err = s.finish_reindex(job, &mut |_| {}).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert_eq!(s.search_index().vectors().dimension(), 4);
}

#[test]
fn back_to_the_builtin_embedder() {
    let mut s = store_with_model4();
    let mut empty = turn("empty", "th", "", &[]);
    empty.output = String::new();
    empty.embedding = Some(vec![1.0; 4]);
    s.add_turn(empty).unwrap();
    let done = s.reindex_builtin().unwrap();
    assert_eq!(done.dimension, memdag_core::search::BUILTIN_DIMENSION);
    // A turn with no words gets no vector from the built-in embedder.
    assert_eq!(done.records, 31);
    assert_eq!(s.search_index().vectors().len(), 30);
    assert!(s.embedding("empty").is_none());
    let q =
        memdag_core::search::builtin_embed("question number 17 about topic 2\nanswer 17").unwrap();
    assert_eq!(s.search(&vector_query(q, 1)).unwrap()[0].id, "t17");
}

#[test]
fn an_empty_store_unsets_its_dimension() {
    let mut s = store_with_model4();
    let ids: Vec<String> = s.iter().map(|r| r.id.clone()).collect();
    for id in ids {
        s.delete(&id).unwrap();
    }
    let done = s.reindex(8, &mut embed16, &mut |_| {}).unwrap();
    assert_eq!((done.records, done.dimension), (0, 0));
    let mut t = turn("n", "th", "next model", &[]);
    t.embedding = Some(vec![1.0; 32]);
    s.add_turn(t).unwrap();
    assert_eq!(s.search_index().vectors().dimension(), 32);
}
