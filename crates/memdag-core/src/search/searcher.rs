//! The searcher: runs a [`SearchQuery`] against a store's indexes.
//!
//! 1. Validate: a query needs text or an embedding; `k` in 1..=[`MAX_K`]; text at most
//!    [`MAX_QUERY_BYTES`]; a vector finite, non-zero, in the store's dimension.
//! 2. Collect candidates from each signal with the filter applied inside the index walk.
//! 3. Context ([`super::thread_context`]): add to the pool the thread neighbours that pass the
//!    filter of the candidates in the top `max(k, 10)` of either signal.
//! 4. Give every pool member the exact score of each signal it lacks (BM25 by postings
//!    lookup, cosine by one dot product); hybrid fuses them (weighted min-max or RRF).
//! 5. Context: each member borrows `β ·` its best neighbour's score, and gains `γ ·` the best
//!    score in its thread (thread scope).
//! 6. When asked, weigh importance and recency into each score
//!    ([`SearchQuery::importance_weight`], [`SearchQuery::recency_weight`]).
//! 7. Drop hits under `min_score`, dedup identical input+output, truncate to `k`, and cut
//!    snippets for the survivors only.
//!
//! A query whose text has no indexed term, or a store with no vectors, gives an empty signal,
//! not an error.

use std::collections::BTreeSet;
use std::format;
use std::vec::Vec;

use super::by_slot::BySlot;
use super::filter::Compiled;
use super::query::{
    Fusion, GrepMatch, GrepQuery, SearchHit, SearchMode, SearchQuery, SearchResults, TimeUse,
    MAX_K, MAX_QUERY_BYTES,
};
use super::snippet::snippet;
use crate::error::{Error, Result};
use crate::float;
use crate::index::analyzer::{analyze, stem as stem_term};
use crate::index::embed::{embed, BUILTIN_DIMENSION};
use crate::index::stopwords::significant;
use crate::index::topk::TopK;
use crate::store::Store;
use memdag_types::Slot;

/// Candidates taken from each signal before fusion: at least this many, or `2·k`.
const MIN_CANDIDATES: usize = 50;
/// Thread context looks up the neighbours of the candidates in the top `max(k, this)` of
/// either signal.
const MIN_LENDERS: usize = 10;
/// Default HNSW search breadth.
pub const DEFAULT_EF: usize = 64;

/// A candidate with its exact per-signal scores.
#[derive(Debug, Clone, Copy, Default)]
struct Cand {
    bm25: Option<f32>,
    vector: Option<f32>,
    text_rank: Option<usize>,
    vector_rank: Option<usize>,
}

/// How much a record created in the query's time range gains with [`TimeUse::Boost`].
const TIME_BOOST: f32 = 0.5;

impl Store {
    /// Searches the store. See [`SearchQuery`] for the options and [`crate::search`] for the
    /// design. Errors are [`Error::InvalidInput`]; an unmatched query gives no hits.
    pub fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>> {
        Ok(self.search_full(q)?.hits)
    }

    /// [`Store::search`], with the time range the query's text named, when it gives `now`.
    /// A query that is only a time expression ("yesterday") lists the records of that range,
    /// newest first.
    pub fn search_full(&self, q: &SearchQuery) -> Result<SearchResults> {
        crate::scope::user_scope(q.filter.user.as_deref())?;
        let time = match (q.now, q.time) {
            (Some(now), TimeUse::Filter | TimeUse::Boost) => {
                crate::time::parse_time(&q.text, now, q.offset_minutes)
            }
            _ => None,
        };
        let Some(t) = time else {
            return Ok(SearchResults {
                hits: self.search_ranked(q, None)?,
                time: None,
            });
        };
        if q.time == TimeUse::Boost {
            return Ok(SearchResults {
                hits: self.search_ranked(q, Some((t.since, t.until)))?,
                time: Some(t),
            });
        }
        let mut narrowed = q.clone();
        narrowed.text = t.remainder(&q.text);
        narrowed.filter.since = Some(narrowed.filter.since.map_or(t.since, |s| s.max(t.since)));
        narrowed.filter.until = Some(narrowed.filter.until.map_or(t.until, |u| u.min(t.until)));
        let hits = if narrowed.text.trim().is_empty() && narrowed.embedding.is_none() {
            self.in_range(&narrowed)?
        } else {
            self.search_ranked(&narrowed, None)?
        };
        Ok(SearchResults {
            hits,
            time: Some(t),
        })
    }

    /// The newest `k` records that pass the filter, scored 1.
    fn in_range(&self, q: &SearchQuery) -> Result<Vec<SearchHit>> {
        if q.k == 0 || q.k > MAX_K {
            return Err(Error::invalid(format!("k must be 1 to {MAX_K}")));
        }
        let filter = Compiled::new(self, &q.filter)?;
        let mut found: Vec<(i64, u64, Slot)> = self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(slot, r)| {
                let r = r.as_ref()?;
                filter
                    .keep(slot as Slot)
                    .then_some((r.created_at, r.seq, slot as Slot))
            })
            .collect();
        found.sort_unstable_by(|a, b| b.cmp(a));
        Ok(found
            .into_iter()
            .take(q.k)
            .filter_map(|(_, _, slot)| self.slot(slot))
            .map(|r| SearchHit {
                id: r.id.clone(),
                score: 1.0,
                kind: r.item.as_ref().map(|m| m.kind),
                snippet: if q.snippets {
                    snippet(r, &BTreeSet::new(), self.search.text.stemming())
                } else {
                    std::string::String::new()
                },
                ..SearchHit::default()
            })
            .collect())
    }

    /// The search proper; records created in `boost` gain [`TIME_BOOST`] of the best score.
    fn search_ranked(&self, q: &SearchQuery, boost: Option<(i64, i64)>) -> Result<Vec<SearchHit>> {
        if q.k == 0 || q.k > MAX_K {
            return Err(Error::invalid(format!("k must be 1 to {MAX_K}")));
        }
        if q.text.len() > MAX_QUERY_BYTES {
            return Err(Error::invalid(format!(
                "query text is longer than {MAX_QUERY_BYTES} bytes"
            )));
        }
        if !q.bm25.is_valid()
            || !(0.0..=1.0).contains(&q.vector_weight)
            || !(0.0..=1.0).contains(&q.context)
            || !(0.0..=1.0).contains(&q.thread_scope)
            || q.rrf_k.is_nan()
            || q.rrf_k < 0.0
            || !(0.0..=1.0).contains(&q.importance_weight)
            || !(0.0..=1.0).contains(&q.recency_weight)
            || q.half_life_ms <= 0
        {
            return Err(Error::invalid(
                "bm25 parameters, vector_weight, context, thread_scope, rrf_k, importance_weight, recency_weight or half_life_ms out of range",
            ));
        }
        if q.min_score.is_some_and(|s| s.is_nan()) {
            return Err(Error::invalid("min_score must be a number"));
        }
        let has_text = !q.text.trim().is_empty();
        if !has_text && q.embedding.is_none() {
            return Err(Error::invalid("a search needs text or an embedding"));
        }
        let index = &self.search;
        let qvec = match (&q.embedding, q.mode) {
            (_, SearchMode::Bm25) => None,
            (Some(e), _) => Some(index.vectors.prepare(e)?),
            (None, _)
                if has_text
                    && index.vectors.dimension() == BUILTIN_DIMENSION
                    && index.auto_embed() =>
            {
                embed(&q.text)
            }
            (None, _) => None,
        };
        if q.mode == SearchMode::Vector && qvec.is_none() {
            return Err(Error::invalid(
                "vector mode needs an embedding (or a store using the built-in embedder)",
            ));
        }
        let tq = (q.mode != SearchMode::Vector && has_text)
            .then(|| index.text.query(&q.text, q.drop_stopwords));
        let filter = Compiled::new(self, &q.filter)?;
        let keep = |s: Slot| filter.keep(s);
        let depth = (q.k * 2).clamp(MIN_CANDIDATES, MAX_K * 2);
        let ef = q.ef.unwrap_or(DEFAULT_EF).clamp(1, 4096);

        let mut found: Vec<(Slot, Cand)> = Vec::new();
        if let Some(tq) = &tq {
            for (rank, s) in index
                .text
                .search(tq, &q.bm25, depth, keep)
                .into_iter()
                .enumerate()
            {
                let c = Cand {
                    bm25: Some(s.score),
                    text_rank: Some(rank + 1),
                    ..Cand::default()
                };
                found.push((s.doc, c));
            }
        }
        if let Some(v) = &qvec {
            for (rank, (slot, sim)) in index
                .vectors
                .search(v, depth, ef, filter.is_active(), &keep)
                .into_iter()
                .enumerate()
            {
                let c = Cand {
                    vector: Some(sim),
                    vector_rank: Some(rank + 1),
                    ..Cand::default()
                };
                found.push((slot, c));
            }
        }
        // A slot found by both signals is one candidate: what a later find says wins.
        let mut cands = BySlot::new(found, |kept, later| {
            kept.bm25 = later.bm25.or(kept.bm25);
            kept.text_rank = later.text_rank.or(kept.text_rank);
            kept.vector = later.vector.or(kept.vector);
            kept.vector_rank = later.vector_rank.or(kept.vector_rank);
        });
        let context = q.context > 0.0;
        if context {
            // Lenders: the candidates in the top `max(k, MIN_LENDERS)` of either signal. A
            // weaker one could seldom lift a neighbour into the top k, and each neighbour
            // costs its exact scores.
            let top = q.k.max(MIN_LENDERS);
            let strong = |c: &Cand| {
                c.text_rank.is_some_and(|r| r <= top) || c.vector_rank.is_some_and(|r| r <= top)
            };
            let lenders = cands.iter().filter(|(_, c)| strong(c)).map(|(s, _)| s);
            let mut pool = self.context_pool(lenders);
            pool.retain(|&slot| !cands.contains(slot) && keep(slot));
            cands.add(&pool, Cand::default);
        }
        // Complete each candidate's missing signal exactly.
        let vq = qvec.as_deref().map(|v| index.vectors.query(v));
        for (slot, c) in cands.iter_mut() {
            if let (None, Some(tq)) = (c.bm25, &tq) {
                let s = index.text.score_doc(tq, &q.bm25, slot);
                c.bm25 = (s > 0.0).then_some(s);
            }
            if let (None, Some(vq)) = (c.vector, &vq) {
                c.vector = index.vectors.similarity_to(slot, vq);
            }
        }
        let both = tq.as_ref().is_some_and(|t| !t.terms.is_empty()) && qvec.is_some();
        let mut scores = fuse(&cands, q, both, context);
        if context || q.thread_scope > 0.0 {
            let own = scores.clone();
            if context {
                self.borrow(&own, &mut scores, q.context);
            }
            if q.thread_scope > 0.0 {
                self.scope(&own, &mut scores, q.thread_scope);
            }
        }

        if let Some((since, until)) = boost {
            let best = scores.values().copied().fold(0.0f32, float::max);
            for (slot, s) in scores.iter_mut() {
                if self
                    .slot(slot)
                    .is_some_and(|r| (since..until).contains(&r.created_at))
                {
                    *s += TIME_BOOST * best;
                }
            }
        }
        if q.importance_weight > 0.0 || q.recency_weight > 0.0 {
            self.weigh_priors(&mut scores, q);
        }
        let mut top = TopK::new(cands.len());
        for (slot, &s) in scores.iter() {
            if q.min_score.is_none_or(|m| s >= m) {
                top.push(slot, s);
            }
        }
        let stem = index.text.stemming();
        let mut wanted: BTreeSet<std::string::String> = BTreeSet::new();
        if q.snippets {
            // Mark what the query matched by: without the stop words it dropped.
            let mut analyzed: Vec<std::string::String> = Vec::new();
            analyze(&q.text, |term, _| analyzed.push(term.into()));
            let all: Vec<&str> = analyzed.iter().map(|t| t.as_str()).collect();
            let marked = if q.drop_stopwords {
                significant(&all)
            } else {
                all
            };
            for term in marked {
                wanted.insert(match (stem, stem_term(term)) {
                    (true, (root, suffix)) => format!("{root}{suffix}"),
                    (false, _) => term.into(),
                });
            }
        }
        let mut seen = BTreeSet::new();
        let mut hits = Vec::with_capacity(q.k);
        for s in top.into_sorted() {
            if hits.len() >= q.k {
                break;
            }
            let content = index.content_of(s.doc);
            if q.dedup && content != 0 && !seen.insert(content) {
                continue;
            }
            let (Some(r), Some(c)) = (self.slot(s.doc), cands.get(s.doc)) else {
                continue;
            };
            hits.push(SearchHit {
                kind: r.item.as_ref().map(|m| m.kind),
                id: r.id.clone(),
                score: s.score,
                bm25: c.bm25,
                vector: c.vector,
                snippet: if q.snippets {
                    snippet(r, &wanted, stem)
                } else {
                    std::string::String::new()
                },
            });
        }
        Ok(hits)
    }

    /// Multiplies each score by the query's importance and recency factors (see
    /// [`SearchQuery::importance_weight`]); a negative score (a cosine below 0) is left alone,
    /// as a factor would lift it.
    fn weigh_priors(&self, scores: &mut BySlot<f32>, q: &SearchQuery) {
        let now = q.now.unwrap_or_else(|| {
            scores
                .keys()
                .filter_map(|s| self.slot(s).map(|r| r.created_at))
                .max()
                .unwrap_or(0)
        });
        for (slot, s) in scores.iter_mut() {
            let Some(r) = self.slot(slot) else { continue };
            if *s <= 0.0 {
                continue;
            }
            let importance = 1.0 + q.importance_weight * (2.0 * r.importance - 1.0);
            let age = now.saturating_sub(r.created_at).max(0) as f64;
            let decay = (-(age / q.half_life_ms as f64) * core::f64::consts::LN_2).exp() as f32;
            let recency = 1.0 - q.recency_weight * (1.0 - decay);
            *s *= importance * recency;
        }
    }

    /// Regular-expression search over raw logs; see [`crate::search::grep`].
    pub fn grep(&self, q: &GrepQuery) -> Result<Vec<GrepMatch>> {
        super::grep::grep(self, q)
    }

    /// Turns the built-in embedder on or off; see [`crate::index::SearchIndex::set_auto_embed`].
    pub fn set_auto_embed(&mut self, on: bool) {
        self.search.set_auto_embed(on);
    }

    /// Turns stemming of the full-text index on (the default) or off; see
    /// [`crate::index::postings::InvertedIndex::set_stemming`]. Only a store that never held
    /// a record can change; returns whether it did.
    pub fn set_stemming(&mut self, on: bool) -> bool {
        self.search.text.set_stemming(on)
    }

    /// Keeps the store's vectors as `settings` say from now on (see
    /// [`crate::index::vecstore::VectorSettings`]); persisted with the next change set. A
    /// `train` of 0 is an [`Error::InvalidInput`](crate::Error).
    pub fn set_vector_settings(
        &mut self,
        settings: crate::index::vecstore::VectorSettings,
    ) -> crate::Result<()> {
        if settings.train == 0 {
            return Err(crate::Error::invalid(
                "vector settings: train must be at least 1",
            ));
        }
        if settings != self.search.vectors.settings() {
            self.search.vectors.set_settings(settings);
            self.dirty.mark(crate::dirty::Touched::Counters);
        }
        Ok(())
    }

    /// How the store keeps its vectors.
    pub fn vector_settings(&self) -> crate::index::vecstore::VectorSettings {
        self.search.vectors.settings()
    }

    /// The search indexes of this store.
    pub fn search_index(&self) -> &crate::index::SearchIndex {
        &self.search
    }
}

/// The final score of every candidate. With one signal, a candidate without it has no score,
/// unless `context` is on: a neighbour in the pool for context is there at 0 of its own.
fn fuse(cands: &BySlot<Cand>, q: &SearchQuery, both: bool, context: bool) -> BySlot<f32> {
    let single = |c: &Cand| match q.mode {
        SearchMode::Bm25 => c.bm25,
        SearchMode::Vector => c.vector,
        SearchMode::Hybrid => c.vector.or(c.bm25),
    };
    if q.mode != SearchMode::Hybrid || !both {
        let pooled = context.then_some(0.0);
        return BySlot::sorted(
            cands
                .iter()
                .filter_map(|(s, c)| single(c).or(pooled).map(|v| (s, v)))
                .collect(),
        );
    }
    if q.fusion == Fusion::Rrf {
        let rrf = |r: Option<usize>| r.map_or(0.0, |r| 1.0 / (q.rrf_k + r as f32));
        return BySlot::sorted(
            cands
                .iter()
                .map(|(s, c)| (s, rrf(c.text_rank) + rrf(c.vector_rank)))
                .collect(),
        );
    }
    let range = |f: &dyn Fn(&Cand) -> Option<f32>| {
        let vals = cands.values().filter_map(f);
        vals.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), v| {
            (float::min(lo, v), float::max(hi, v))
        })
    };
    let (tlo, thi) = range(&|c| Some(c.bm25.unwrap_or(0.0)));
    let (vlo, vhi) = range(&|c| c.vector);
    let norm = |v: f32, lo: f32, hi: f32| if hi > lo { (v - lo) / (hi - lo) } else { 1.0 };
    let w = q.vector_weight;
    BySlot::sorted(
        cands
            .iter()
            .map(|(s, c)| {
                let t = norm(c.bm25.unwrap_or(0.0), tlo, thi);
                let v = c.vector.map_or(0.0, |v| norm(v, vlo, vhi));
                (s, w * v + (1.0 - w) * t)
            })
            .collect(),
    )
}
