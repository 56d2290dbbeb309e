//! Choosing what fits the budget, and assembling the block.
//!
//! A *plan* lays the block out with the estimator (cheap at any text size):
//! 1. Candidates are taken by score, best first, in their short form (plus their section's
//!    heading when it is the section's first item). One that does not fit whole is cut to the
//!    room left, if at least [`MIN_ITEM_TOKENS`] remain and its id line survives the cut.
//! 2. Taken items with a tool log are upgraded to their raw form, best first, while the
//!    plan's budget allows.
//!
//! The planned block is then counted with the query's counter. Without the `tiktoken`
//! feature that is the estimator itself, so one plan is exact. With BPE, the plan's budget is
//! rescaled by `budget / counted` and the block re-planned, up to [`MAX_PLANS`] times, keeping
//! the fullest block that fits. Finally, while the block is over budget, the lowest-scored item
//! is dropped. So the block never exceeds the budget, whatever the tokenizer, and BPE counts
//! only a few whole blocks rather than every candidate.

use alloc::string::String;
use alloc::vec::Vec;

use super::gather::Cand;
use super::render;
use super::{Recall, RecallItem, RecallQuery, RecallSection};
use crate::tokens::TokenCounter;

/// The least room worth filling with a cut item.
pub const MIN_ITEM_TOKENS: usize = 24;
/// Most plans made for one recall with BPE counts.
pub const MAX_PLANS: usize = 3;

/// A taken candidate, in the priority order of `select`.
struct Taken {
    cand: usize,
    text: String,
    /// Planned (estimated) tokens, the joining newline included.
    tokens: usize,
    raw: bool,
}

/// Picks and renders the candidates that fit `q.budget_tokens`, after the working memory
/// `work`, if any (capped at `q.work_tokens` and half the budget).
pub(super) fn select(q: &RecallQuery, mut cands: Vec<Cand<'_>>, work: Option<&str>) -> Recall {
    let exact = TokenCounter::new(q.encoding);
    let est = TokenCounter::estimator(q.encoding);
    let mut header = render::header(q);
    let mut working = None;
    if let Some(text) = work {
        let room = q.work_tokens.min(q.budget_tokens / 2);
        let section = render::working(&exact, text, room.saturating_sub(exact.count(&header) / 4));
        let with = std::format!("{header}\n{section}");
        if exact.count(&with) < q.budget_tokens && !section.is_empty() {
            working = Some(section);
            header = with;
        }
    }
    if (cands.is_empty() && working.is_none()) || exact.count(&header) >= q.budget_tokens {
        let omitted = cands.len();
        return Recall {
            omitted,
            ..Recall::default()
        };
    }
    if cands.is_empty() {
        let tokens = exact.count(&header);
        return Recall {
            block: header,
            tokens,
            working,
            ..Recall::default()
        };
    }
    cands.sort_by(|a, b| {
        let by_score = b.score.total_cmp(&a.score);
        by_score
            .then(a.section.cmp(&b.section))
            .then(a.order.cmp(&b.order))
    });
    let mut plan_budget = q.budget_tokens;
    let mut best: Option<(Vec<Taken>, String, usize)> = None;
    let mut last = None;
    for _ in 0..MAX_PLANS {
        let taken = plan(&est, q, &cands, &header, plan_budget);
        let complete = taken.len() == cands.len()
            && taken
                .iter()
                .all(|t| t.raw || q.raw_item_tokens == 0 || cands[t.cand].rec.steps.is_empty());
        let (block, tokens) = assemble(&exact, &header, &cands, &taken);
        let fits = tokens <= q.budget_tokens;
        let done = !exact.is_exact()
            || (fits && (complete || tokens as u128 * 20 >= q.budget_tokens as u128 * 19));
        let next = (plan_budget as u128 * q.budget_tokens as u128 / tokens.max(1) as u128) as usize;
        if fits && best.as_ref().is_none_or(|b| tokens > b.2) {
            best = Some((taken, block, tokens));
        } else {
            last = Some((taken, block, tokens));
        }
        if done || next == plan_budget {
            break;
        }
        plan_budget = next;
    }
    let (mut taken, mut block, mut tokens) = best.or(last).unwrap_or_default();
    while tokens > q.budget_tokens && !taken.is_empty() {
        taken.pop();
        (block, tokens) = assemble(&exact, &header, &cands, &taken);
    }
    if taken.is_empty() && working.is_some() {
        block.clone_from(&header);
        tokens = exact.count(&block);
    }
    let mut recall = finish(&exact, &cands, taken, block, tokens);
    if recall.tokens > 0 {
        recall.working = working;
    }
    recall
}

/// Lays out the block within `budget` tokens of `c` (the estimator); see the module docs.
fn plan(
    c: &TokenCounter,
    q: &RecallQuery,
    cands: &[Cand<'_>],
    header: &str,
    budget: usize,
) -> Vec<Taken> {
    let mut taken: Vec<Taken> = Vec::new();
    let Some(mut remaining) = budget.checked_sub(c.count(header) + 1) else {
        return taken;
    };
    let mut opened = [false; 5];
    for (i, cand) in cands.iter().enumerate() {
        let section_cost = if opened[index(cand.section)] {
            0
        } else {
            c.count(render::section_header(cand.section)) + 1
        };
        let (text, tokens) = render::short(c, cand.rec, q);
        let tokens = tokens + 1;
        let fitted = if section_cost + tokens <= remaining {
            Some((text, tokens))
        } else if remaining >= section_cost + MIN_ITEM_TOKENS {
            cut(c, &text, &cand.rec.id, remaining - section_cost)
        } else {
            None
        };
        if let Some((text, tokens)) = fitted {
            remaining -= section_cost + tokens;
            opened[index(cand.section)] = true;
            taken.push(Taken {
                cand: i,
                text,
                tokens,
                raw: false,
            });
        }
    }
    if q.raw_item_tokens > 0 {
        for t in taken
            .iter_mut()
            .filter(|t| !cands[t.cand].rec.steps.is_empty())
        {
            let (text, tokens) = render::raw(c, cands[t.cand].rec, q);
            let tokens = tokens + 1;
            if tokens <= t.tokens + remaining {
                remaining = remaining + t.tokens - tokens;
                *t = Taken {
                    cand: t.cand,
                    text,
                    tokens,
                    raw: true,
                };
            }
        }
    }
    taken
}

/// `text` cut to `room` tokens (its newline included), if its id line survives.
fn cut(c: &TokenCounter, text: &str, id: &str, room: usize) -> Option<(String, usize)> {
    let mut cut = String::from(c.truncate(text, room.saturating_sub(1 + c.count("…"))));
    let first_line = text.find('\n').unwrap_or(text.len());
    if cut.len() < first_line || !cut.starts_with('[') || !cut[1..].starts_with(id) {
        return None;
    }
    cut.push('…');
    let tokens = c.count(&cut) + 1;
    (tokens <= room).then_some((cut, tokens))
}

fn index(s: RecallSection) -> usize {
    match s {
        RecallSection::Thread => 0,
        RecallSection::User => 1,
        RecallSection::Match => 2,
        RecallSection::Ancestor => 3,
        RecallSection::Known => 4,
    }
}

/// The taken items in display order: by section, then by order within it.
fn display_order(cands: &[Cand<'_>], taken: &[Taken]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..taken.len()).collect();
    order.sort_by_key(|&t| (cands[taken[t].cand].section, cands[taken[t].cand].order));
    order
}

fn assemble(
    c: &TokenCounter,
    header: &str,
    cands: &[Cand<'_>],
    taken: &[Taken],
) -> (String, usize) {
    if taken.is_empty() {
        return (String::new(), 0);
    }
    let mut block = String::from(header);
    let mut last: Option<RecallSection> = None;
    for t in display_order(cands, taken) {
        let section = cands[taken[t].cand].section;
        if last != Some(section) {
            block.push('\n');
            block.push_str(render::section_header(section));
            last = Some(section);
        }
        block.push('\n');
        block.push_str(&taken[t].text);
    }
    let tokens = c.count(&block);
    (block, tokens)
}

/// The recall of the taken items. Item tokens are counted with `c` when it is exact, else
/// they are the planned estimates.
fn finish(
    c: &TokenCounter,
    cands: &[Cand<'_>],
    taken: Vec<Taken>,
    block: String,
    tokens: usize,
) -> Recall {
    let order = display_order(cands, &taken);
    let omitted = cands.len() - taken.len();
    let mut slots: Vec<Option<Taken>> = taken.into_iter().map(Some).collect();
    let items = order
        .into_iter()
        .filter_map(|t| slots[t].take())
        .map(|t| {
            let cand = &cands[t.cand];
            RecallItem {
                id: cand.rec.id.clone(),
                section: cand.section,
                score: cand.score,
                tokens: if c.is_exact() {
                    c.count(&t.text)
                } else {
                    t.tokens - 1
                },
                text: t.text,
                raw: t.raw,
            }
        })
        .collect();
    Recall {
        items,
        block,
        tokens,
        omitted,
        working: None,
    }
}
