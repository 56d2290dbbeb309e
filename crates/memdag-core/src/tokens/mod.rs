//! Token counting: exact BPE counts with the `tiktoken` feature, a cheap estimate without it.
//!
//! [`TokenCounter`] has the same API either way, so callers never need a `cfg`:
//! - with the cargo feature `tiktoken`, counts come from tiktoken-rs for the chosen
//!   [`Encoding`]. Each encoding's rank table is parsed once, lazily, on first use
//!   (about 0.6 s in wasm), and shared by every counter;
//! - without it, the [estimate](mod@estimate) is used for both encodings: a deterministic
//!   scan that aims to be an upper bound of the real count for ordinary prose and code.
//!
//! BPE counts are not additive: `count(a + b)` may differ from `count(a) + count(b)`. Code that
//! must stay under a budget (recall) therefore re-counts the final text.

pub mod estimate;
mod exact;

use serde::{Deserialize, Serialize};

#[allow(deprecated)]
pub use estimate::{estimate, is_cjk, is_cjk_token};

/// A BPE vocabulary of the OpenAI tokenizers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Encoding {
    /// GPT-4 and GPT-3.5 (the default).
    #[default]
    #[serde(rename = "cl100k_base")]
    Cl100kBase,
    /// GPT-4o, GPT-4.1, o-series and later models.
    #[serde(rename = "o200k_base")]
    O200kBase,
}

impl Encoding {
    /// The encoding's name as tiktoken spells it, e.g. `"cl100k_base"`.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Cl100kBase => "cl100k_base",
            Encoding::O200kBase => "o200k_base",
        }
    }

    /// Parses an encoding name as given by [`Encoding::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "cl100k_base" => Some(Encoding::Cl100kBase),
            "o200k_base" => Some(Encoding::O200kBase),
            _ => None,
        }
    }
}

/// With BPE, truncation tokenizes only this many bytes per wanted token from the cut end.
const WINDOW_BYTES_PER_TOKEN: usize = 64;

/// Counts tokens of text for one [`Encoding`]. Cheap to create and copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TokenCounter {
    encoding: Encoding,
    /// Always estimate, even when BPE is available.
    estimate_only: bool,
}

/// Counts tokens with the default encoding ([`Encoding::Cl100kBase`]).
pub fn count_tokens(text: &str) -> usize {
    TokenCounter::default().count(text)
}

impl TokenCounter {
    /// A counter for `encoding`.
    pub fn new(encoding: Encoding) -> Self {
        TokenCounter {
            encoding,
            estimate_only: false,
        }
    }

    /// A counter that always uses the estimator, with or without the `tiktoken` feature: for
    /// layout decisions where speed matters more than exactness.
    pub fn estimator(encoding: Encoding) -> Self {
        TokenCounter {
            encoding,
            estimate_only: true,
        }
    }

    /// The BPE this counter uses, if any.
    fn bpe(&self) -> Option<&'static exact::CoreBPE> {
        if self.estimate_only {
            None
        } else {
            exact::bpe(self.encoding)
        }
    }

    /// The encoding this counter was made for.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Whether counts are exact BPE counts (feature `tiktoken`) rather than estimates.
    pub fn is_exact(&self) -> bool {
        self.bpe().is_some()
    }

    /// The number of tokens of `text` (special-token text counts as ordinary text).
    pub fn count(&self, text: &str) -> usize {
        match self.bpe() {
            Some(bpe) => exact::count(bpe, text),
            None => estimate(text),
        }
    }

    /// A prefix of `text`, cut at a char boundary, of at most `max_tokens` tokens: the whole
    /// text when it fits, else as long as the estimator allows in one pass, or (BPE) the text
    /// of the first `max_tokens` tokens of a window of `64 · max_tokens` bytes, re-counted and
    /// bisected when needed. Cost: O(prefix) with the estimator, O(window) with BPE.
    pub fn truncate<'a>(&self, text: &'a str, max_tokens: usize) -> &'a str {
        let Some(bpe) = self.bpe() else {
            return &text[..estimate::prefix_end(text, max_tokens)];
        };
        // Tokenize a window, not a whole long text: a token rarely spans more than 64 bytes.
        let text = &text[..floor_boundary(
            text,
            WINDOW_BYTES_PER_TOKEN.saturating_mul(max_tokens.max(1)),
        )];
        let Some((head, _)) = exact::head_tail_bytes(bpe, text, max_tokens) else {
            return text;
        };
        let down = |n| floor_boundary(text, n);
        let up = |n| ceil_boundary(text, n);
        let end = self.fit(down(head), max_tokens, down, up, |n| &text[..n]);
        &text[..end]
    }

    /// A suffix of `text`, cut at a char boundary, of at most `max_tokens` tokens; see
    /// [`TokenCounter::truncate`].
    pub fn truncate_start<'a>(&self, text: &'a str, max_tokens: usize) -> &'a str {
        let Some(bpe) = self.bpe() else {
            return &text[estimate::suffix_start(text, max_tokens)..];
        };
        let window = WINDOW_BYTES_PER_TOKEN.saturating_mul(max_tokens.max(1));
        let text = &text[ceil_boundary(text, text.len().saturating_sub(window))..];
        let Some((_, tail)) = exact::head_tail_bytes(bpe, text, max_tokens) else {
            return text;
        };
        let len = text.len();
        // Here `n` is the length of the suffix, so rounding it down moves its start up.
        let down = |n: usize| len - ceil_boundary(text, len - n);
        let up = |n: usize| len - floor_boundary(text, len - n);
        let take = self.fit(down(tail.min(len)), max_tokens, down, up, |n| {
            &text[len - n..]
        });
        &text[len - take..]
    }

    /// The largest length `n <= len` found whose `slice(n)` has at most `max` tokens, where
    /// lengths are snapped to char boundaries by `down`/`up`: `len` itself when it fits, else a
    /// bisection. `slice(0)` is empty and always fits.
    fn fit<'a>(
        &self,
        len: usize,
        max: usize,
        down: impl Fn(usize) -> usize,
        up: impl Fn(usize) -> usize,
        slice: impl Fn(usize) -> &'a str,
    ) -> usize {
        let fits = |n: usize| self.count(slice(n)) <= max;
        if fits(len) {
            return len;
        }
        // Invariant: slice(lo) fits and slice(hi) does not.
        let (mut lo, mut hi) = (0usize, len);
        while lo < hi {
            let mut mid = down(lo + (hi - lo) / 2);
            if mid <= lo {
                mid = up(lo + 1);
            }
            if mid >= hi {
                break;
            }
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

fn floor_boundary(text: &str, mut n: usize) -> usize {
    n = n.min(text.len());
    while !text.is_char_boundary(n) {
        n -= 1;
    }
    n
}

fn ceil_boundary(text: &str, mut n: usize) -> usize {
    n = n.min(text.len());
    while !text.is_char_boundary(n) {
        n += 1;
    }
    n
}
