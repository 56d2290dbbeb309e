//! BM25F scoring: the parameters, the per-query statistics and the formula.
//!
//! A record has four [`Field`]s. Each field's term frequency is normalized by that field's
//! length against its average, weighted, and summed before the usual BM25 saturation
//! (Robertson and Zaragoza's BM25F):
//!
//! ```text
//! tf~(t, d) = Σ_f w_f · tf_f(t, d) / (1 − b + b · len_f(d) / avglen_f)
//! score(q, d) = Σ_{t ∈ q} idf(t) · tf~ · (k1 + 1) / (k1 + tf~)
//! idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))
//! ```
//! The index keeps raw frequencies and lengths, so `k1`, `b` and the weights are chosen per
//! query at no cost.
//!
//! The derived keys of a record ([`super::derived`]) are a fifth field kept in postings of their
//! own, so the raw fields' postings stay as small as they were. Their part is scored on its
//! own, with the same `k1` and `b` and the weight `w_keys`, and added to the score:
//! `Σ_{t ∈ q} idf_keys(t) · tf~_keys · (k1 + 1) / (k1 + tf~_keys)`.

use serde::{Deserialize, Serialize};

use crate::float;

/// Number of indexed fields.
pub const FIELDS: usize = 4;

/// The indexed fields of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The turn's input.
    Input = 0,
    /// The turn's output.
    Output = 1,
    /// The compact node: summary, section names and texts.
    Compact = 2,
    /// The steps: tool names, arguments and results.
    Steps = 3,
}

/// Per-field weights of BM25F.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FieldWeights {
    pub input: f32,
    pub output: f32,
    pub compact: f32,
    pub steps: f32,
    /// The derived keys (user, calendar forms of `created_at`); 0 turns them off.
    pub keys: f32,
}

impl Default for FieldWeights {
    fn default() -> Self {
        FieldWeights {
            input: 1.0,
            output: 1.0,
            compact: 1.0,
            steps: 0.5,
            keys: 1.0,
        }
    }
}

impl FieldWeights {
    fn as_array(&self) -> [f32; FIELDS] {
        [self.input, self.output, self.compact, self.steps]
    }
}

/// BM25 parameters: `k1` (term-frequency saturation), `b` (length normalization), weights.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Bm25Params {
    pub k1: f32,
    pub b: f32,
    pub weights: FieldWeights,
}

impl Default for Bm25Params {
    fn default() -> Self {
        Bm25Params {
            k1: 1.2,
            b: 0.75,
            weights: FieldWeights::default(),
        }
    }
}

impl Bm25Params {
    /// Whether every parameter is finite and in range (`k1 ≥ 0`, `0 ≤ b ≤ 1`, weights ≥ 0).
    pub fn is_valid(&self) -> bool {
        let w = self.weights.as_array();
        self.k1.is_finite()
            && self.k1 >= 0.0
            && (0.0..=1.0).contains(&self.b)
            && w.iter().all(|x| x.is_finite() && *x >= 0.0)
            && self.weights.keys.is_finite()
            && self.weights.keys >= 0.0
    }
}

/// The collection statistics one query needs, folded with the parameters.
#[derive(Debug, Clone, Copy)]
pub struct Bm25Weight {
    k1: f32,
    /// `w_f` for each field.
    weight: [f32; FIELDS],
    /// `1 − b`.
    base: f32,
    /// `b / avglen_f` for each field (0 when the field is empty everywhere).
    per_len: [f32; FIELDS],
    docs: f32,
    /// `w_keys` and `b / avglen_keys`.
    keys_weight: f32,
    keys_per_len: f32,
}

impl Bm25Weight {
    /// Statistics for a collection of `docs` documents whose field lengths sum to `total_len`
    /// and whose derived keys sum to `keys_len` terms.
    pub fn new(params: &Bm25Params, docs: u32, total_len: &[u64; FIELDS], keys_len: u64) -> Self {
        let per = |total: u64| {
            if docs > 0 && total > 0 {
                params.b * docs as f32 / total as f32
            } else {
                0.0
            }
        };
        Bm25Weight {
            k1: params.k1,
            weight: params.weights.as_array(),
            base: 1.0 - params.b,
            per_len: total_len.map(per),
            docs: docs as f32,
            keys_weight: params.weights.keys,
            keys_per_len: per(keys_len),
        }
    }

    /// Whether the derived keys count at all.
    pub fn uses_keys(&self) -> bool {
        self.keys_weight > 0.0
    }

    /// The score of one term in one document's derived keys, before multiplying by its
    /// `idf` among the keys.
    #[inline]
    pub fn keys_part(&self, tf: u8, len: u32) -> f32 {
        let norm = self.base + self.keys_per_len * len as f32;
        let t = self.keys_weight * f32::from(tf) / float::max(norm, 1e-6);
        t * (self.k1 + 1.0) / float::max(self.k1 + t, 1e-6)
    }

    /// The inverse document frequency of a term found in `df` documents.
    pub fn idf(&self, df: usize) -> f32 {
        let df = df as f32;
        (1.0 + (self.docs - df + 0.5) / (df + 0.5)).ln()
    }

    /// The BM25F score of one term in one document, before multiplying by `idf`.
    #[inline]
    pub fn tf_part(&self, tf: &[u8; FIELDS], len: &[u32; FIELDS]) -> f32 {
        let mut t = 0.0;
        for f in 0..FIELDS {
            if tf[f] != 0 {
                let norm = self.base + self.per_len[f] * len[f] as f32;
                t += self.weight[f] * f32::from(tf[f]) / float::max(norm, 1e-6);
            }
        }
        t * (self.k1 + 1.0) / float::max(self.k1 + t, 1e-6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rarer_terms_and_shorter_fields_score_higher() {
        let w = Bm25Weight::new(&Bm25Params::default(), 100, &[1000, 1000, 0, 0], 500);
        assert!(w.idf(1) > w.idf(50));
        let short = w.tf_part(&[1, 0, 0, 0], &[5, 10, 0, 0]);
        let long = w.tf_part(&[1, 0, 0, 0], &[50, 10, 0, 0]);
        assert!(short > long && long > 0.0);
        assert!(w.uses_keys() && w.keys_part(1, 5) > 0.0);
        let off = FieldWeights {
            keys: 0.0,
            ..Default::default()
        };
        let w = Bm25Weight::new(
            &Bm25Params {
                weights: off,
                ..Default::default()
            },
            100,
            &[1000, 1000, 0, 0],
            500,
        );
        assert!(!w.uses_keys() && w.keys_part(1, 5) == 0.0);
        assert!(!Bm25Params {
            b: 2.0,
            ..Default::default()
        }
        .is_valid());
    }
}
