//! Exact BPE counts through tiktoken-rs (feature `tiktoken`). Without the feature this module
//! has the same functions over an uninhabited `CoreBPE`, so no call site needs a `cfg`.

#[cfg(feature = "tiktoken")]
mod imp {
    use super::super::Encoding;
    use std::sync::OnceLock;
    pub use tiktoken_rs::CoreBPE;

    static CL100K: OnceLock<Option<CoreBPE>> = OnceLock::new();
    static O200K: OnceLock<Option<CoreBPE>> = OnceLock::new();

    /// The shared BPE of an encoding, parsed on first use. `None` only if the bundled rank
    /// table failed to parse, in which case counting falls back to the estimate.
    pub fn bpe(encoding: Encoding) -> Option<&'static CoreBPE> {
        match encoding {
            Encoding::Cl100kBase => CL100K
                .get_or_init(|| tiktoken_rs::cl100k_base().ok())
                .as_ref(),
            Encoding::O200kBase => O200K
                .get_or_init(|| tiktoken_rs::o200k_base().ok())
                .as_ref(),
        }
    }

    pub fn count(bpe: &CoreBPE, text: &str) -> usize {
        bpe.count_ordinary(text)
    }

    /// Byte lengths of the text of the first and of the last `max` tokens of `text`, or `None`
    /// when it has at most `max` tokens. A guess: the caller snaps and re-counts.
    pub fn head_tail_bytes(bpe: &CoreBPE, text: &str, max: usize) -> Option<(usize, usize)> {
        let tokens = bpe.encode_ordinary(text);
        if tokens.len() <= max {
            return None;
        }
        let head = bpe.decode_bytes(&tokens[..max]).map_or(0, |b| b.len());
        let tail = bpe
            .decode_bytes(&tokens[tokens.len() - max..])
            .map_or(0, |b| b.len());
        Some((head, tail))
    }
}

#[cfg(not(feature = "tiktoken"))]
mod imp {
    use super::super::Encoding;

    /// Never constructed: without the feature there is no BPE.
    pub enum CoreBPE {}

    pub fn bpe(_: Encoding) -> Option<&'static CoreBPE> {
        None
    }

    pub fn count(bpe: &CoreBPE, _: &str) -> usize {
        match *bpe {}
    }

    pub fn head_tail_bytes(bpe: &CoreBPE, _: &str, _: usize) -> Option<(usize, usize)> {
        match *bpe {}
    }
}

pub use imp::*;
