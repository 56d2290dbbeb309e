//! The text analyzer on any text: no panic, and every term is short and non-empty.
#![no_main]
use libfuzzer_sys::fuzz_target;
use memdag_core::search::analyzer::{analyze, MAX_TERM_BYTES};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    analyze(&text, |term, span| {
        assert!(!term.is_empty() && term.len() <= MAX_TERM_BYTES.max(8));
        assert!(span.start <= span.end && span.end <= text.len());
    });
});
