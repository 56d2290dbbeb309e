//! Search, grep and recall: WIT queries to the core's, core answers to WIT.
//!
//! A WIT `option` left none takes the core's default, which lives in the core's `Default`
//! impls only. Counts cross the boundary as `u32`; sizes beyond it saturate.

use memdag_core::recall::{Recall, RecallItem, RecallQuery, RecallSection, RecallWeights};
use memdag_core::search::{
    FieldWeights, Fusion, GrepMatch, GrepQuery, Scope, SearchFilter, SearchHit, SearchMode,
    SearchQuery, SearchResults, TimeUse,
};
use memdag_core::time::{Grain, TimeExpr};
use memdag_core::tokens::Encoding;

use super::items::{kind, kind_out, status};
use crate::bindings::memdag::core::query as wit;

/// A count as `u32`, saturating.
pub fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A WIT search query as the core's.
pub fn search_query(q: wit::SearchQuery) -> SearchQuery {
    let d = SearchQuery::default();
    let mut bm25 = d.bm25;
    if let Some(w) = q.field_weights {
        let f = bm25.weights;
        bm25.weights = FieldWeights {
            input: w.input.unwrap_or(f.input),
            output: w.output.unwrap_or(f.output),
            compact: w.compact.unwrap_or(f.compact),
            steps: w.steps.unwrap_or(f.steps),
            keys: w.keys.unwrap_or(f.keys),
        };
    }
    if q.derived_keys == Some(false) {
        bm25.weights.keys = 0.0;
    }
    SearchQuery {
        text: q.text,
        embedding: q.embedding,
        mode: match q.mode {
            wit::SearchMode::Bm25 => SearchMode::Bm25,
            wit::SearchMode::Vector => SearchMode::Vector,
            wit::SearchMode::Hybrid => SearchMode::Hybrid,
        },
        k: q.k as usize,
        filter: filter(q.filter),
        fusion: match q.fusion {
            wit::Fusion::Weighted => Fusion::Weighted,
            wit::Fusion::Rrf => Fusion::Rrf,
        },
        vector_weight: q.vector_weight.unwrap_or(d.vector_weight),
        rrf_k: q.rrf_k.unwrap_or(d.rrf_k),
        min_score: q.min_score,
        context: q.context.unwrap_or(d.context),
        thread_scope: q.thread_scope.unwrap_or(d.thread_scope),
        drop_stopwords: q.drop_stopwords.unwrap_or(d.drop_stopwords),
        bm25,
        dedup: q.dedup.unwrap_or(d.dedup),
        snippets: q.snippets.unwrap_or(d.snippets),
        now: crate::clock::or_now(q.now),
        offset_minutes: q.offset_minutes.unwrap_or(d.offset_minutes),
        time: q.time.map_or(d.time, |t| match t {
            wit::TimeUse::Filter => TimeUse::Filter,
            wit::TimeUse::Boost => TimeUse::Boost,
            wit::TimeUse::Off => TimeUse::Off,
        }),
        importance_weight: q.importance_weight.unwrap_or(d.importance_weight),
        recency_weight: q.recency_weight.unwrap_or(d.recency_weight),
        half_life_ms: q.half_life_ms.unwrap_or(d.half_life_ms),
        ..d
    }
}

fn filter(f: wit::SearchFilter) -> SearchFilter {
    SearchFilter {
        thread: f.thread,
        user: f.user,
        tags: f.tags,
        since: f.since,
        until: f.until,
        ids: f.ids,
        scope: f.scope.map_or(Scope::default(), |s| match s {
            wit::Scope::All => Scope::All,
            wit::Scope::Turns => Scope::Turns,
            wit::Scope::Items => Scope::Items,
        }),
        kinds: f.kinds.into_iter().map(kind).collect(),
        statuses: f.statuses.into_iter().map(status).collect(),
        now: crate::clock::or_now(f.now),
    }
}

/// A core search hit as the WIT one.
pub fn search_hit(h: SearchHit) -> wit::SearchHit {
    wit::SearchHit {
        id: h.id,
        score: h.score,
        bm25: h.bm25,
        vector: h.vector,
        snippet: h.snippet,
        kind: h.kind.map(kind_out),
    }
}

/// Core search results as the WIT ones.
pub fn search_results(r: SearchResults) -> wit::SearchResults {
    wit::SearchResults {
        hits: r.hits.into_iter().map(search_hit).collect(),
        time: r.time.map(time_expr),
    }
}

/// A core time expression as the WIT one.
pub fn time_expr(t: TimeExpr) -> wit::TimeExpr {
    wit::TimeExpr {
        since: t.since,
        until: t.until,
        matched: t.matched,
        start: count(t.start),
        end: count(t.end),
        grain: match t.grain {
            Grain::Day => wit::Grain::Day,
            Grain::Week => wit::Grain::Week,
            Grain::Month => wit::Grain::Month,
            Grain::Year => wit::Grain::Year,
            Grain::Span => wit::Grain::Span,
        },
    }
}

/// A WIT grep query as the core's.
pub fn grep_query(q: wit::GrepQuery) -> GrepQuery {
    let d = GrepQuery::default();
    GrepQuery {
        pattern: q.pattern,
        case_insensitive: q.case_insensitive,
        fields: q.fields,
        filter: filter(q.filter),
        max_matches: q.max_matches.map_or(d.max_matches, |n| n as usize),
    }
}

/// A core grep match as the WIT one.
pub fn grep_match(m: GrepMatch) -> wit::GrepMatch {
    wit::GrepMatch {
        id: m.id,
        field: m.field,
        line: m.line,
        start: count(m.start),
        end: count(m.end),
        text: m.text,
    }
}

/// A WIT encoding as the core's.
pub fn encoding(e: wit::Encoding) -> Encoding {
    match e {
        wit::Encoding::Cl100kBase => Encoding::Cl100kBase,
        wit::Encoding::O200kBase => Encoding::O200kBase,
    }
}

/// A WIT recall query as the core's.
pub fn recall_query(q: wit::RecallQuery) -> RecallQuery {
    let d = RecallQuery::default();
    let or = |v: Option<u32>, default: usize| v.map_or(default, |n| n as usize);
    RecallQuery {
        thread: q.thread,
        user: q.user,
        keywords: q.keywords,
        query_text: q.query_text,
        embedding: q.embedding,
        budget_tokens: or(q.budget_tokens, d.budget_tokens),
        encoding: q.encoding.map_or(d.encoding, encoding),
        now: crate::clock::or_now(q.now),
        thread_limit: or(q.thread_limit, d.thread_limit),
        user_limit: or(q.user_limit, d.user_limit),
        match_limit: or(q.match_limit, d.match_limit),
        ancestor_depth: or(q.ancestor_depth, d.ancestor_depth),
        ancestor_limit: or(q.ancestor_limit, d.ancestor_limit),
        known_limit: or(q.known_limit, d.known_limit),
        work_tokens: or(q.work_tokens, d.work_tokens),
        since: q.since,
        until: q.until,
        half_life_ms: q.half_life_ms.unwrap_or(d.half_life_ms),
        match_user_only: q.match_user_only.unwrap_or(d.match_user_only),
        item_tokens: or(q.item_tokens, d.item_tokens),
        raw_item_tokens: or(q.raw_item_tokens, d.raw_item_tokens),
        weights: q.weights.map_or(d.weights, |w| RecallWeights {
            recency: w.recency,
            importance: w.importance,
            access: w.access,
            relevance: w.relevance,
            known: w.known,
            thread: w.thread,
            user: w.user,
            matched: w.matched,
            ancestor: w.ancestor,
        }),
    }
}

/// A core recall as the WIT one.
pub fn recall(r: Recall) -> wit::Recall {
    wit::Recall {
        items: r.items.into_iter().map(recall_item).collect(),
        block: r.block,
        tokens: count(r.tokens),
        omitted: count(r.omitted),
        working: r.working,
    }
}

fn recall_item(i: RecallItem) -> wit::RecallItem {
    wit::RecallItem {
        id: i.id,
        section: match i.section {
            RecallSection::Known => wit::RecallSection::Known,
            RecallSection::Thread => wit::RecallSection::Thread,
            RecallSection::User => wit::RecallSection::User,
            RecallSection::Match => wit::RecallSection::Match,
            RecallSection::Ancestor => wit::RecallSection::Ancestor,
        },
        score: i.score,
        text: i.text,
        tokens: count(i.tokens),
        raw: i.raw,
    }
}
