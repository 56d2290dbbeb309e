//! The rule-based extractor on any text (and any steps); the body is `fuzz/bodies/`, shared
//! with the regression test of committed crash inputs.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../bodies/extract_rules.rs"]
mod extract_rules;

fuzz_target!(|data: &[u8]| extract_rules::run(data));
