//! The built-in embedder: a lexical stand-in for a real embedding model.
//!
//! It hashes features of the analyzed text into [`BUILTIN_DIMENSION`] signed buckets (the
//! "hashing trick") and normalizes the result: every term (weight 1), and the character
//! trigrams of each alphabetic term with `^`/`$` boundary marks (weight 0.5), which let
//! "memories" come close to "memory". It captures spelling, not meaning: synonyms and
//! paraphrases do not meet. It needs no model and no host, so it is the zero-configuration
//! default; a host model (e.g. MiniLM) replaces it in production.
//!
//! The function is fixed: changing the features, hash or dimension changes every stored
//! vector, so it would be a new embedder with a new name.

use std::vec::Vec;

use super::analyzer::{analyze, is_cjk};

/// Dimension of the built-in embedder's vectors.
pub const BUILTIN_DIMENSION: usize = 256;

/// Embeds `text` with the built-in lexical embedder. `None` when the text has no term.
pub fn embed(text: &str) -> Option<Vec<f32>> {
    let mut v = vec![0f32; BUILTIN_DIMENSION];
    let mut any = false;
    analyze(text, |term, _| {
        any = true;
        add(&mut v, fnv1a(term.as_bytes(), 0), 1.0);
        if term.chars().next().is_some_and(is_cjk) {
            return;
        }
        let chars: Vec<char> = core::iter::once('^')
            .chain(term.chars())
            .chain(core::iter::once('$'))
            .collect();
        if chars.len() > 4 {
            let mut buf = [0u8; 16];
            for w in chars.windows(3) {
                let mut n = 0;
                for c in w {
                    n += c.encode_utf8(&mut buf[n..]).len();
                }
                add(&mut v, fnv1a(&buf[..n], 1), 0.5);
            }
        }
    });
    if !any {
        return None;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm == 0.0 {
        return None;
    }
    v.iter_mut().for_each(|x| *x /= norm);
    Some(v)
}

fn add(v: &mut [f32], h: u64, w: f32) {
    let bucket = (h % BUILTIN_DIMENSION as u64) as usize;
    let sign = if (h >> 63) == 0 { 1.0 } else { -1.0 };
    v[bucket] += sign * w;
}

/// 64-bit FNV-1a over `bytes`, salted by the feature kind.
fn fnv1a(bytes: &[u8], kind: u8) -> u64 {
    let mut h = crate::hash::Fnv::new();
    h.write_u8(kind);
    h.write(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::distance::dot;

    #[test]
    fn similar_spelling_is_closer() {
        let a = embed("agent memory system").unwrap();
        let b = embed("memories of an agent").unwrap();
        let c = embed("weather forecast tomorrow").unwrap();
        assert!(dot(&a, &b) > dot(&a, &c));
        assert!((dot(&a, &a) - 1.0).abs() < 1e-5);
        assert!(embed("  ?? ").is_none());
    }
}
