//! Section (c) of a recall: keyword and hybrid matches, through [`Store::search`].

use alloc::string::String;
use alloc::vec::Vec;

use super::RecallQuery;
use crate::error::Result;
use crate::record::Record;
use crate::search::{Scope, SearchFilter, SearchMode, SearchQuery};
use crate::store::Store;

/// Keyword and hybrid matches with relevance in 0..=1 (score over the best score), best first;
/// twice `match_limit` of them, so some remain after dedup against the other sections.
/// One [`Store::search`] query: BM25 over the index, plus vectors when there is an embedding.
pub(super) fn matches<'a>(store: &'a Store, q: &RecallQuery) -> Result<Vec<(&'a Record, f32)>> {
    let filter = SearchFilter {
        scope: Scope::Turns,
        ..SearchFilter::default()
    };
    search(store, q, filter, q.match_limit.saturating_mul(2))
}

/// The matches of the query text among the records `filter` admits (the query's user
/// applied), with relevance in 0..=1, best first.
pub(super) fn search<'a>(
    store: &'a Store,
    q: &RecallQuery,
    filter: SearchFilter,
    k: usize,
) -> Result<Vec<(&'a Record, f32)>> {
    Ok(search_hits(store, q, filter, k)?
        .into_iter()
        .map(|(r, rel, _)| (r, rel))
        .collect())
}

/// The cosine above which a hit that shares no word with the query still matches it. Below,
/// a vector hit is only "nearest", which means nothing when nothing is near: with two items
/// in a store, one is always the nearest to any query.
pub(super) const MATCHING_COSINE: f32 = 0.35;

/// Like [`search`], with whether each hit truly matches: it shares a term with the query, or
/// its cosine reaches [`MATCHING_COSINE`].
pub(super) fn search_hits<'a>(
    store: &'a Store,
    q: &RecallQuery,
    mut filter: SearchFilter,
    k: usize,
) -> Result<Vec<(&'a Record, f32, bool)>> {
    let text = q.match_text();
    if k == 0 || (text.trim().is_empty() && q.embedding.is_none()) {
        return Ok(Vec::new());
    }
    filter.user = q.user.clone().filter(|_| q.match_user_only);
    filter.now = q.now;
    filter.since = q.since;
    filter.until = q.until;
    let query = SearchQuery {
        text: truncate_query(text),
        embedding: q.embedding.clone(),
        mode: SearchMode::Hybrid,
        k: k.min(crate::search::query::MAX_K),
        filter,
        snippets: false,
        // A time expression in the text ("what did we decide last week") keeps the matches
        // to that range.
        now: q.now,
        ..SearchQuery::default()
    };
    let hits = store.search(&query)?;
    let best = hits.iter().map(|h| h.score).fold(0.0f32, f32::max);
    let out = hits
        .iter()
        .filter_map(|h| {
            store.get(&h.id).map(|r| {
                (
                    r,
                    if best > 0.0 {
                        (h.score / best).clamp(0.0, 1.0)
                    } else {
                        1.0
                    },
                    h.bm25.is_some() || h.vector.is_some_and(|c| c >= MATCHING_COSINE),
                )
            })
        })
        .collect();
    Ok(out)
}

impl RecallQuery {
    /// The text a recall matches: its keywords, then its query text, joined by spaces. The one
    /// rule for every face (a face that embeds the query embeds this text).
    pub fn match_text(&self) -> String {
        let mut text = self.keywords.join(" ");
        if let Some(t) = &self.query_text {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(t);
        }
        text
    }
}

/// Query text within the search's byte limit, cut at a char boundary.
fn truncate_query(mut text: String) -> String {
    let max = crate::search::query::MAX_QUERY_BYTES;
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}
