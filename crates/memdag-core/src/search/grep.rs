//! grep: a regular-expression search over the raw logs of the records.
//!
//! Patterns use the `regex` crate's syntax and run on its lazy DFA (`regex-automata`'s
//! hybrid engine), whose cost is linear in the text. What grep bounds is the work, not only
//! the matches, so that no pattern can stall a store: `(?:\w+\s+){30}zzz` once cost 4 s per
//! MB, because the `regex` crate moved to its PikeVM (whose cost per byte grows with the
//! pattern's automaton) when the automaton outgrew its DFA cache, for every byte of the store.
//! - A pattern is refused when its automaton is larger than [`REGEX_SIZE_LIMIT`] or needs a
//!   larger DFA cache than [`DFA_CACHE_BYTES`].
//! - What the lazy DFA cannot search goes to the `regex` crate: text that is not ASCII when
//!   the pattern has a Unicode word boundary (`\b`), and everything after the DFA gave up
//!   (its cache cleared [`CACHE_CLEARS`] times while it built a state for fewer than
//!   [`BYTES_PER_STATE`] bytes of text). That engine is charged the text's length times the
//!   automaton's states, at most [`FALLBACK_WORK`] per grep; beyond, grep stops with
//!   [`Error::InvalidInput`] ("too costly").
//! - Text holding none of the literals every match must start with, or none of those it must
//!   end with (`failed` for `\bfailed\b`, ` adoption` for `\w+ing\b adoption`), skips that
//!   engine and costs nothing: the package's `regex` is built without its own literal
//!   prefilters (see memdag-core's Cargo.toml), and `\bword\b` over text with a curly quote
//!   in it is the common case of the fallback.
//!
//! Other limits: the pattern at most [`MAX_PATTERN_BYTES`], and at most [`MAX_MATCHES`]
//! matches. Records are searched in insertion order; empty matches are skipped.

use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

use regex_automata::hybrid::{dfa, regex::Cache, regex::Regex as LazyRegex};
use regex_automata::nfa::thompson;
use regex_automata::util::iter::Searcher;
use regex_automata::util::syntax;
use regex_automata::{Input, MatchErrorKind};
use regex_syntax::hir::literal::{ExtractKind, Extractor};

use super::filter::Compiled;
use super::query::{GrepMatch, GrepQuery, LogField};
use crate::error::{Error, Result};
use crate::store::Store;

/// Longest pattern accepted, in bytes.
pub const MAX_PATTERN_BYTES: usize = 4096;
/// Size limit of a pattern's compiled automaton.
pub const REGEX_SIZE_LIMIT: usize = 4 << 20;
/// The lazy DFA's cache.
pub const DFA_CACHE_BYTES: usize = 4 << 20;
/// Cache clears the lazy DFA may need before it may give up ...
pub const CACHE_CLEARS: usize = 4;
/// ... when it built a state for fewer than this many bytes of text since.
pub const BYTES_PER_STATE: usize = 10;
/// Most work (bytes times automaton states) the fallback engine may do in one grep.
pub const FALLBACK_WORK: u64 = 1 << 30;
/// Most matches one grep returns.
pub const MAX_MATCHES: usize = 10_000;
/// Longest matched text carried in a [`GrepMatch`].
const MAX_TEXT: usize = 256;

const FIELDS: [&str; 4] = ["input", "output", "args", "results"];

/// A compiled pattern and what its searches may still spend.
struct Matcher {
    pattern: String,
    case_insensitive: bool,
    lazy: LazyRegex,
    cache: Cache,
    /// The pattern has a Unicode word boundary, which the lazy DFA reads in ASCII text only.
    unicode_boundary: bool,
    /// The lazy DFA gave up: the rest of the grep runs on the fallback.
    gave_up: bool,
    /// The `regex` crate's engine, built when first needed.
    fallback: Option<regex::Regex>,
    /// Literals one of which starts every match, and one of which ends it (see
    /// [`required_literals`]); `None` when the pattern has too many or any may do.
    prefixes: Option<Vec<Vec<u8>>>,
    suffixes: Option<Vec<Vec<u8>>>,
    states: u64,
    fallback_work: u64,
}

fn too_costly(why: &str) -> Error {
    Error::invalid(format!(
        "grep pattern is too costly to run over this store: {why}; use a simpler pattern (fewer or smaller repetitions, ASCII classes such as [a-z] instead of \\w)"
    ))
}

/// A pattern the lazy DFA cannot be built for: too large (its automaton, or the cache it
/// needs), or malformed.
fn build_error(e: regex_automata::hybrid::BuildError) -> Error {
    use std::error::Error as _;
    let nfa = e
        .source()
        .and_then(|s| s.downcast_ref::<thompson::BuildError>());
    match nfa {
        Some(n) if n.size_limit().is_some() => too_costly(&format!("{n}")),
        Some(n) => match n.source() {
            Some(syntax) => Error::invalid(format!("bad grep pattern: {syntax}")),
            None => Error::invalid(format!("bad grep pattern: {n}")),
        },
        None if e.to_string().contains("cache capacity") => too_costly(&format!("{e}")),
        None => Error::invalid(format!("bad grep pattern: {e}")),
    }
}

/// A pattern refused for a Unicode property class (`\p{Han}`) in a build that leaves their
/// tables out (the JS package: see the `grep-unicode-properties` feature) says so, where the
/// `regex` crate says only that the property was not found.
fn without_properties(e: Error, pattern: &str) -> Error {
    let has_class = pattern.contains("\\p") || pattern.contains("\\P");
    match e {
        Error::InvalidInput { message }
            if has_class && !cfg!(feature = "grep-unicode-properties") =>
        {
            Error::invalid(format!(
                "{message}; this build leaves out Unicode property classes such as \\p{{Han}} \
                 (memdag-core's `grep-unicode-properties` feature, off in the JS package to keep \
                 it small): use a range instead, such as [\\x{{4e00}}-\\x{{9fff}}]"
            ))
        }
        e => e,
    }
}

impl Matcher {
    fn new(pattern: &str, case_insensitive: bool) -> Result<Matcher> {
        let lazy = LazyRegex::builder()
            .syntax(syntax::Config::new().case_insensitive(case_insensitive))
            .thompson(
                thompson::Config::new()
                    .nfa_size_limit(Some(REGEX_SIZE_LIMIT))
                    .which_captures(thompson::WhichCaptures::None),
            )
            .dfa(
                dfa::Config::new()
                    .cache_capacity(DFA_CACHE_BYTES)
                    .minimum_cache_clear_count(Some(CACHE_CLEARS))
                    .minimum_bytes_per_state(Some(BYTES_PER_STATE))
                    .unicode_word_boundary(true),
            )
            .build(pattern)
            .map_err(|e| without_properties(build_error(e), pattern))?;
        let nfa = lazy.forward().get_nfa();
        let states = nfa.states().len() as u64;
        let unicode_boundary = nfa.look_set_any().contains_word_unicode();
        let cache = lazy.create_cache();
        // The lazy DFA parsed the pattern too, but keeps no syntax tree to read literals from.
        let config = syntax::Config::new().case_insensitive(case_insensitive);
        let hir = syntax::parse_with(pattern, &config).ok();
        let literals = |kind| hir.as_ref().and_then(|h| required_literals(h, kind));
        let (prefixes, suffixes) = (literals(ExtractKind::Prefix), literals(ExtractKind::Suffix));
        Ok(Matcher {
            pattern: pattern.into(),
            case_insensitive,
            lazy,
            cache,
            unicode_boundary,
            gave_up: false,
            fallback: None,
            prefixes,
            suffixes,
            states,
            fallback_work: 0,
        })
    }

    /// Calls `each` with the start and end of every match in `text`, in order, until it
    /// answers false.
    fn find_each(&mut self, text: &str, mut each: impl FnMut(usize, usize) -> bool) -> Result<()> {
        // Where the fallback takes over: after the last match the lazy DFA reported (both
        // engines find the same leftmost-first matches).
        let mut resume = 0;
        if !self.gave_up && (!self.unicode_boundary || text.is_ascii()) {
            let mut searcher = Searcher::new(Input::new(text));
            loop {
                let found =
                    searcher.try_advance(|input| self.lazy.try_search(&mut self.cache, input));
                match found {
                    Ok(Some(m)) => {
                        resume = m.end();
                        if !each(m.start(), m.end()) {
                            return Ok(());
                        }
                    }
                    Ok(None) => return Ok(()),
                    Err(e) if matches!(e.kind(), MatchErrorKind::GaveUp { .. }) => {
                        self.gave_up = true;
                        break;
                    }
                    Err(e) => return Err(too_costly(&format!("{e}"))),
                }
            }
        }
        // A match ends on a character boundary, so the rest is text.
        if let Some(rest) = text.get(resume..) {
            let lacks = |literals: &Option<Vec<Vec<u8>>>| {
                literals
                    .as_ref()
                    .is_some_and(|l| !l.iter().any(|x| contains(rest, x)))
            };
            if lacks(&self.prefixes) || lacks(&self.suffixes) {
                return Ok(());
            }
        }
        self.fallback_work += text.len() as u64 * self.states;
        if self.fallback_work > FALLBACK_WORK {
            return Err(too_costly(if self.gave_up {
                "its automaton outgrew the DFA cache, and the slower engine's budget is spent"
            } else {
                "its Unicode word boundary (\\b) over this much non-ASCII text needs the slower engine"
            }));
        }
        if self.fallback.is_none() {
            let built = regex::RegexBuilder::new(&self.pattern)
                .case_insensitive(self.case_insensitive)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
                .map_err(|e| too_costly(&format!("{e}")))?;
            self.fallback = Some(built);
        }
        let fallback = self.fallback.as_ref().expect("built above");
        for m in fallback.find_iter(text).filter(|m| m.start() >= resume) {
            if !each(m.start(), m.end()) {
                break;
            }
        }
        Ok(())
    }
}

/// Most literals of one kind grep checks a text for before the fallback engine runs on it.
const MAX_LITERALS: usize = 64;

/// The literals one of which starts (`kind` prefix) or ends (suffix) every match of the
/// pattern parsed as `hir`, by regex-syntax's extraction, or `None`: too many, an empty one (a
/// match may start or end with anything), or none.
fn required_literals(hir: &regex_syntax::hir::Hir, kind: ExtractKind) -> Option<Vec<Vec<u8>>> {
    let seq = Extractor::new().kind(kind).extract(hir);
    let literals = seq.literals()?;
    let usable = !literals.is_empty()
        && literals.len() <= MAX_LITERALS
        && literals.iter().all(|l| !l.as_bytes().is_empty());
    usable.then(|| literals.iter().map(|l| l.as_bytes().to_vec()).collect())
}

/// Whether the bytes `needle` occur in `haystack` (a literal may end inside a character).
fn contains(haystack: &str, needle: &[u8]) -> bool {
    match core::str::from_utf8(needle) {
        Ok(n) => haystack.contains(n),
        Err(_) => haystack
            .as_bytes()
            .windows(needle.len())
            .any(|w| w == needle),
    }
}

/// Runs `query` over `store`.
pub fn grep(store: &Store, query: &GrepQuery) -> Result<Vec<GrepMatch>> {
    if query.pattern.is_empty() {
        return Err(Error::invalid("grep pattern must not be empty"));
    }
    if query.pattern.len() > MAX_PATTERN_BYTES {
        return Err(Error::invalid(format!(
            "grep pattern is longer than {MAX_PATTERN_BYTES} bytes"
        )));
    }
    if let Some(f) = query.fields.iter().find(|f| !FIELDS.contains(&f.as_str())) {
        return Err(Error::invalid(format!(
            "unknown grep field {f:?}; use input, output, args or results"
        )));
    }
    if query.max_matches == 0 || query.max_matches > MAX_MATCHES {
        return Err(Error::invalid(format!(
            "max_matches must be 1 to {MAX_MATCHES}"
        )));
    }
    let mut matcher = Matcher::new(&query.pattern, query.case_insensitive)?;
    let wants = |f: &str| query.fields.is_empty() || query.fields.iter().any(|x| x == f);
    let filter = Compiled::new(store, &query.filter)?;
    let mut out = Vec::new();
    for (slot, r) in store.slots.iter().enumerate() {
        let Some(r) = r else { continue };
        if filter.is_active() && !filter.keep(slot as u32) {
            continue;
        }
        let mut fields: Vec<LogField> = Vec::new();
        if wants("input") {
            fields.push(LogField::Input);
        }
        if wants("output") {
            fields.push(LogField::Output);
        }
        for i in 0..r.steps.len() {
            if wants("args") {
                fields.push(LogField::StepArgs(i));
            }
            if wants("results") {
                fields.push(LogField::StepResult(i));
            }
        }
        for field in fields {
            let Some(text) = field.text_of(r) else {
                continue;
            };
            let name = field.name();
            let mut line = 1u32;
            let mut counted = 0;
            let mut full = false;
            matcher.find_each(text, |start, end| {
                if start == end {
                    return true;
                }
                line += text.as_bytes()[counted..start]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count() as u32;
                counted = start;
                let mut cut = end.min(start + MAX_TEXT);
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                out.push(GrepMatch {
                    id: r.id.clone(),
                    field: name.clone(),
                    line,
                    start,
                    end,
                    text: text[start..cut].to_string(),
                });
                full = out.len() >= query.max_matches;
                !full
            })?;
            if full {
                return Ok(out);
            }
        }
    }
    Ok(out)
}
