//! Matching one of several literal words at a byte offset: the step every Chinese time
//! pattern is built from.

/// The first of `words` that `s` holds at byte `p`: its index and the byte after it.
pub(crate) fn lit(s: &str, p: usize, words: &[&str]) -> Option<(usize, usize)> {
    let rest = &s[p..];
    let k = words.iter().position(|w| rest.starts_with(w))?;
    Some((k, p + words[k].len()))
}
