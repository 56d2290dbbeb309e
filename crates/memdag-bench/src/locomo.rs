//! LoCoMo evidence recall: each dev conversation is one store; its questions are asked in
//! bm25, vector (the shipped MiniLM vectors) and hybrid mode, and recall@k is the fraction of a
//! question's evidence ids found in the hits of a search with that `k`, averaged over all
//! questions.
//!
//! The report covers every ranking technique on its own and all together ([`variants`]), per
//! conversation and per question category, and the Mode-1 row `recall_evidence_at_2000`.
//! The category labels are read here, for the report only: nothing in the ranking sees them.

use memdag_core::index::vecstore::VectorSettings;
use memdag_core::recall::RecallQuery;
use memdag_core::search::{Fusion, SearchMode, SearchQuery};
use memdag_core::{NewTurn, Store};
use serde::{Deserialize, Serialize};

/// The k of recall@k.
pub const KS: [usize; 4] = [5, 10, 25, 50];
/// The question categories of LoCoMo, by their number in the data.
pub const CATEGORIES: [(u8, &str); 5] = [
    (4, "single-hop"),
    (1, "multi-hop"),
    (2, "temporal"),
    (3, "open-domain"),
    (5, "adversarial"),
];
/// The name of the variant with the ranking before these techniques.
pub const BEFORE: &str = "before (w 0.7, none)";
/// The name of the variant with the default options.
pub const DEFAULT: &str = "all (default)";
/// The modes every variant is asked in.
pub const MODES: [(&str, SearchMode); 3] = [
    ("bm25", SearchMode::Bm25),
    ("vector", SearchMode::Vector),
    ("hybrid", SearchMode::Hybrid),
];

/// One dialog turn of a conversation file.
#[derive(Deserialize, Serialize, Clone)]
pub struct Turn {
    pub id: String,
    pub thread: String,
    pub user: String,
    /// ISO 8601, as in the file.
    pub created_at: String,
    pub text: String,
    pub embedding: Vec<f32>,
}

/// One question of a conversation file.
#[derive(Deserialize, Serialize, Clone)]
pub struct Question {
    pub question: String,
    #[serde(default)]
    pub category: u8,
    pub evidence: Vec<String>,
    pub embedding: Vec<f32>,
}

/// Recall@5, @10, @25 and @50 of one mode, over one group of questions.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Recall {
    pub mode: String,
    pub questions: usize,
    pub r5: f64,
    pub r10: f64,
    pub r25: f64,
    pub r50: f64,
}

/// The recall of one variant in one mode: overall, per conversation and per category.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct VariantRecall {
    pub variant: String,
    pub mode: String,
    pub all: Recall,
    /// (conversation name, recall).
    pub conversations: Vec<(String, Recall)>,
    /// (category name, recall).
    pub categories: Vec<(String, Recall)>,
}

/// One conversation's files, as text.
pub struct Conversation {
    pub name: String,
    pub turns_jsonl: String,
    pub questions_jsonl: String,
}

/// Parses JSON lines.
pub fn parse<T: for<'de> Deserialize<'de>>(jsonl: &str) -> Result<Vec<T>, String> {
    jsonl
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| e.to_string()))
        .collect()
}

/// Milliseconds since the epoch of `YYYY-MM-DDTHH:MM[:SS]Z` (UTC); `None` otherwise.
pub fn iso_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    let num = |r: core::ops::Range<usize>| -> Option<i64> { s.get(r)?.parse().ok() };
    if b.len() < 16 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' {
        return None;
    }
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm) = (num(11..13)?, num(14..16)?);
    let ss = if b.len() >= 19 { num(17..19)? } else { 0 };
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    Some(((days * 24 + hh) * 60 + mm) * 60_000 + ss * 1000)
}

/// A named set of ranking options: a technique on its own, or several.
#[derive(Debug, Clone, Copy)]
pub struct Variant {
    pub name: &'static str,
    /// Equal-weight fusion (vector weight 0.5) instead of 0.7.
    pub equal_fusion: bool,
    /// Reciprocal-rank fusion instead of weighted.
    pub rrf: bool,
    pub stopwords: bool,
    pub derived_keys: bool,
    pub context: bool,
    pub scope: bool,
    /// Stemmed terms (an index-time choice: the variant is asked of a store built with it).
    pub stemming: bool,
}

impl Variant {
    const NONE: Variant = Variant {
        name: "",
        equal_fusion: false,
        rrf: false,
        stopwords: false,
        derived_keys: false,
        context: false,
        scope: false,
        stemming: false,
    };

    /// The query of this variant, from the defaults.
    pub fn query(&self, text: &str, embedding: &[f32], mode: SearchMode, k: usize) -> SearchQuery {
        let d = SearchQuery::default();
        let mut q = SearchQuery {
            text: text.into(),
            embedding: Some(embedding.to_vec()),
            mode,
            k,
            snippets: false,
            vector_weight: if self.equal_fusion { 0.5 } else { 0.7 },
            fusion: if self.rrf {
                Fusion::Rrf
            } else {
                Fusion::Weighted
            },
            drop_stopwords: self.stopwords,
            context: if self.context { d.context } else { 0.0 },
            thread_scope: if self.scope { d.thread_scope } else { 0.0 },
            ..d
        };
        if !self.derived_keys {
            q.bm25.weights.keys = 0.0;
        }
        q
    }
}

/// The variants of the report: the ranking before this work, each technique alone, all of
/// them (the default), and all but one.
pub fn variants() -> Vec<Variant> {
    let all = Variant {
        name: DEFAULT,
        equal_fusion: true,
        stopwords: true,
        derived_keys: true,
        context: true,
        scope: true,
        stemming: true,
        ..Variant::NONE
    };
    vec![
        Variant {
            name: BEFORE,
            ..Variant::NONE
        },
        Variant {
            name: "equal-weight fusion",
            equal_fusion: true,
            ..Variant::NONE
        },
        Variant {
            name: "rrf fusion",
            rrf: true,
            ..Variant::NONE
        },
        Variant {
            name: "stop words",
            stopwords: true,
            ..Variant::NONE
        },
        Variant {
            name: "derived keys",
            derived_keys: true,
            ..Variant::NONE
        },
        Variant {
            name: "thread context",
            context: true,
            ..Variant::NONE
        },
        Variant {
            name: "thread scope",
            scope: true,
            ..Variant::NONE
        },
        Variant {
            name: "stemming",
            stemming: true,
            ..Variant::NONE
        },
        all,
        Variant {
            name: "all but equal fusion",
            equal_fusion: false,
            ..all
        },
        Variant {
            name: "all but stop words",
            stopwords: false,
            ..all
        },
        Variant {
            name: "all but derived keys",
            derived_keys: false,
            ..all
        },
        Variant {
            name: "all but context",
            context: false,
            ..all
        },
        Variant {
            name: "all but scope",
            scope: false,
            ..all
        },
        Variant {
            name: "all but stemming",
            stemming: false,
            ..all
        },
    ]
}

/// A conversation loaded into a store: turns with their real times, user and thread.
pub struct Loaded {
    pub name: String,
    /// The default store (stemmed terms).
    pub store: Store,
    /// The same turns in a store without stemming, for the variants without it.
    pub exact: Store,
    pub turns: Vec<Turn>,
    pub questions: Vec<Question>,
}

/// Builds one store per conversation.
pub fn load(convs: &[Conversation]) -> Result<Vec<Loaded>, String> {
    load_with(convs, VectorSettings::default())
}

/// Builds one store per conversation, its vectors kept as `settings` say (the exact-match
/// store keeps them as `f32`).
pub fn load_with(convs: &[Conversation], settings: VectorSettings) -> Result<Vec<Loaded>, String> {
    convs
        .iter()
        .map(|conv| {
            let turns: Vec<Turn> = parse(&conv.turns_jsonl)?;
            let questions: Vec<Question> = parse(&conv.questions_jsonl)?;
            let mut store = Store::new();
            store
                .set_vector_settings(settings)
                .map_err(|e| e.to_string())?;
            let mut exact = Store::new();
            exact.set_stemming(false);
            for t in &turns {
                let turn = NewTurn {
                    id: Some(t.id.clone()),
                    thread: t.thread.clone(),
                    user: t.user.clone(),
                    created_at: iso_ms(&t.created_at)
                        .ok_or_else(|| format!("bad created_at {:?}", t.created_at))?,
                    input: t.text.clone(),
                    embedding: Some(t.embedding.clone()),
                    ..Default::default()
                };
                exact.add_turn(turn.clone()).map_err(|e| e.to_string())?;
                store.add_turn(turn).map_err(|e| e.to_string())?;
            }
            Ok(Loaded {
                name: conv.name.clone(),
                store,
                exact,
                turns,
                questions,
            })
        })
        .collect()
}

/// The hits of one question: the ids of a search with `k` = each of [`KS`], in that order.
pub type Ranked = Vec<Vec<String>>;

/// Sums of recall@k over questions.
#[derive(Default, Clone, Copy)]
struct Sums {
    r: [f64; 4],
    n: usize,
}

impl Sums {
    fn add(&mut self, evidence: &[String], hits: &Ranked) {
        for (j, k) in KS.iter().enumerate() {
            let hits = &hits[j.min(hits.len() - 1)];
            let top = &hits[..hits.len().min(*k)];
            let found = evidence.iter().filter(|e| top.contains(e)).count();
            self.r[j] += found as f64 / evidence.len().max(1) as f64;
        }
        self.n += 1;
    }

    fn recall(&self, mode: &str) -> Recall {
        let n = self.n.max(1) as f64;
        Recall {
            mode: mode.into(),
            questions: self.n,
            r5: self.r[0] / n,
            r10: self.r[1] / n,
            r25: self.r[2] / n,
            r50: self.r[3] / n,
        }
    }
}

/// Recall of the ranked ids of every question of every (conversation name, questions), per
/// conversation and per category.
pub fn score(
    variant: &str,
    mode: &str,
    convs_questions: &[(&str, &[Question])],
    ranked: &[Vec<Ranked>],
) -> VariantRecall {
    let mut all = Sums::default();
    let mut convs = Vec::new();
    let mut cats = [Sums::default(); CATEGORIES.len()];
    for ((name, questions), hits) in convs_questions.iter().zip(ranked) {
        let mut conv = Sums::default();
        for (q, h) in questions.iter().zip(hits) {
            all.add(&q.evidence, h);
            conv.add(&q.evidence, h);
            if let Some(c) = CATEGORIES.iter().position(|c| c.0 == q.category) {
                cats[c].add(&q.evidence, h);
            }
        }
        convs.push((name.to_string(), conv.recall(mode)));
    }
    VariantRecall {
        variant: variant.into(),
        mode: mode.into(),
        all: all.recall(mode),
        conversations: convs,
        categories: CATEGORIES
            .iter()
            .zip(cats)
            .map(|(c, s)| (c.1.to_string(), s.recall(mode)))
            .collect(),
    }
}

/// (name, questions) of every loaded conversation.
pub fn questions_of(loaded: &[Loaded]) -> Vec<(&str, &[Question])> {
    loaded
        .iter()
        .map(|l| (l.name.as_str(), l.questions.as_slice()))
        .collect()
}

/// Evidence recall of every variant in every mode.
pub fn evaluate_variants(
    loaded: &[Loaded],
    variants: &[Variant],
) -> Result<Vec<VariantRecall>, String> {
    let mut out = Vec::new();
    for v in variants {
        for (mode_name, mode) in MODES {
            let mut ranked = Vec::new();
            for l in loaded {
                let store = if v.stemming { &l.store } else { &l.exact };
                let mut per = Vec::new();
                for q in &l.questions {
                    let mut at_k = Vec::new();
                    for k in KS {
                        let query = v.query(&q.question, &q.embedding, mode, k);
                        let hits = store.search(&query).map_err(|e| e.to_string())?;
                        at_k.push(hits.into_iter().map(|h| h.id).collect());
                    }
                    per.push(at_k);
                }
                ranked.push(per);
            }
            out.push(score(v.name, mode_name, &questions_of(loaded), &ranked));
        }
    }
    Ok(out)
}

/// Evidence recall of the default options (the "all (default)" rows), for bm25, vector and
/// hybrid.
pub fn evaluate(convs: &[Conversation]) -> Result<Vec<Recall>, String> {
    evaluate_with(convs, VectorSettings::default())
}

/// [`evaluate`] with the stores' vectors kept as `settings` say.
pub fn evaluate_with(
    convs: &[Conversation],
    settings: VectorSettings,
) -> Result<Vec<Recall>, String> {
    let loaded = load_with(convs, settings)?;
    let all = variants()
        .into_iter()
        .filter(|v| v.name == DEFAULT)
        .collect::<Vec<_>>();
    Ok(evaluate_variants(&loaded, &all)?
        .into_iter()
        .map(|v| v.all)
        .collect())
}

/// The Mode-1 row: the share of a question's evidence turns found in its recall block, with
/// the question as query text (and its vector), the conversation's last session as the
/// thread, and a 2,000-token budget. Per conversation, then over all questions.
pub fn recall_evidence_at_2000(loaded: &[Loaded]) -> Result<Vec<(String, f64, usize)>, String> {
    let (mut sum, mut n) = (0.0, 0usize);
    let mut out = Vec::new();
    for l in loaded {
        let Some(last) = l.turns.last() else {
            continue;
        };
        let (mut csum, mut cn) = (0.0, 0usize);
        for q in &l.questions {
            let query = RecallQuery {
                thread: last.thread.clone(),
                query_text: Some(q.question.clone()),
                embedding: Some(q.embedding.clone()),
                budget_tokens: 2000,
                ..Default::default()
            };
            let block = l.store.recall_view(&query).map_err(|e| e.to_string())?;
            let found = q
                .evidence
                .iter()
                .filter(|e| block.items.iter().any(|i| &i.id == *e))
                .count();
            csum += found as f64 / q.evidence.len().max(1) as f64;
            cn += 1;
        }
        out.push((l.name.clone(), csum / cn.max(1) as f64, cn));
        sum += csum;
        n += cn;
    }
    out.push(("all".into(), sum / n.max(1) as f64, n));
    Ok(out)
}

/// The question texts of the given conversations (the BM25 query set of the workload).
pub fn question_texts(convs: &[Conversation]) -> Vec<String> {
    convs
        .iter()
        .flat_map(|c| parse::<Question>(&c.questions_jsonl).unwrap_or_default())
        .map(|q| q.question)
        .collect()
}

/// The turn texts of the given conversations (the base of the replicated text corpus).
pub fn turn_texts(convs: &[Conversation]) -> Vec<String> {
    convs
        .iter()
        .flat_map(|c| parse::<Turn>(&c.turns_jsonl).unwrap_or_default())
        .map(|t| t.text)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_times_parse() {
        assert_eq!(iso_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(iso_ms("2023-05-08T13:56:00Z"), Some(1_683_554_160_000));
        assert_eq!(iso_ms("2023-05-08"), None);
    }

    #[test]
    fn recall_counts_the_share_of_evidence_in_the_top_k() {
        let mut s = Sums::default();
        let hits: Ranked = vec![(0..60).map(|i| format!("d{i}")).collect()];
        s.add(&["d0".into(), "d7".into()], &hits);
        s.add(&["d30".into()], &hits);
        let r = s.recall("x");
        assert_eq!((r.r5, r.r10, r.r25, r.r50), (0.25, 0.5, 0.5, 1.0));
    }
}
