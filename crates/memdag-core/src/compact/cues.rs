//! Text helpers of the extractive compactor: sentence splitting, cue words, and names (file
//! paths, function names) found in a turn.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

/// Most sentences [`pick`] returns.
pub const MAX_ITEMS: usize = 5;

pub const CONSTRAINT_CUES: &[&str] = &[
    "must",
    "never",
    "don't",
    "do not",
    "only",
    "should",
    "without",
    "at most",
    "at least",
    "no more than",
    "required",
    "必须",
    "不要",
    "不能",
    "只",
    "禁止",
    "务必",
    "しないで",
    "必ず",
    "하지 마",
];
pub const DECISION_CUES: &[&str] = &[
    "decid",
    "chose",
    "choos",
    "instead of",
    "going with",
    "opted",
    "switched to",
    "决定",
    "选择",
    "采用",
    "改用",
    "決定",
    "결정",
];
pub const NEXT_CUES: &[&str] = &[
    "next",
    "todo",
    "to do",
    "remaining",
    "follow-up",
    "follow up",
    "later",
    "下一步",
    "接下来",
    "待办",
    "还需",
    "次に",
    "다음",
];
pub const ERROR_CUES: &[&str] = &[
    "error",
    "panicked",
    "exception",
    "traceback",
    "failed",
    "错误",
    "失败",
    "エラー",
    "오류",
];
pub const FILE_EXTS: &[&str] = &[
    "rs", "py", "ts", "tsx", "js", "mjs", "json", "toml", "yaml", "yml", "md", "go", "java", "kt",
    "c", "h", "cc", "cpp", "hpp", "rb", "sh", "sql", "html", "css", "wit", "wasm", "txt", "lock",
    "cfg", "ini",
];

/// Splits text into trimmed sentences at line breaks and sentence punctuation (Latin and CJK).
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let end = match c {
            '\n' | '。' | '！' | '？' | '!' | '?' => i + c.len_utf8(),
            // A period ends a sentence only before whitespace or the end (not in "a.rs" or "1.5").
            '.' if text[i + 1..].starts_with(char::is_whitespace) || i + 1 == text.len() => i + 1,
            _ => continue,
        };
        push_sentence(&mut out, &text[start..end]);
        start = end;
    }
    push_sentence(&mut out, &text[start..]);
    out
}

fn push_sentence<'a>(out: &mut Vec<&'a str>, s: &'a str) {
    let s = s.trim();
    if s.chars().any(char::is_alphanumeric) {
        out.push(s);
    }
}

/// Up to [`MAX_ITEMS`] sentences containing a cue (ASCII case-insensitively), in order, unique.
pub fn pick<'a>(sentences: &[&'a str], cues: &[&str]) -> Vec<&'a str> {
    let mut seen = BTreeSet::new();
    sentences
        .iter()
        .filter(|s| has_cue(s, cues) && seen.insert(**s))
        .take(MAX_ITEMS)
        .copied()
        .collect()
}

pub fn has_cue(s: &str, cues: &[&str]) -> bool {
    let lower = s.to_ascii_lowercase();
    cues.iter().any(|c| lower.contains(c))
}

/// A file path (with a known extension) or a function name (`name(`, `a::b`), trimmed.
pub fn name_like(word: &str) -> Option<&str> {
    let w = word.trim_matches(|c: char| "().:".contains(c));
    if w.len() < 3 || w.len() > 160 {
        return None;
    }
    let ext_ok = w.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && FILE_EXTS.contains(&ext)
            && stem
                .chars()
                .all(|c| c.is_alphanumeric() || "/\\_-.".contains(c))
    });
    if ext_ok {
        return Some(w);
    }
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    if let Some((callee, _)) = word.split_once('(') {
        let callee = callee.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '_');
        if callee.split("::").all(ident) && callee.len() >= 3 {
            return Some(callee);
        }
    }
    (w.contains("::") && w.split("::").all(ident)).then_some(w)
}
