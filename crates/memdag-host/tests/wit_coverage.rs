//! Every function of the WIT face is run by a test. A static scan, as the JS package's
//! tests/node/api-coverage.test.mjs is for its face:
//! - the functions are those of `wit/*.wit` (`name: func(` and `name: static func(`);
//! - the host library calls each through a wrapper whose body names `call_<name>` (kebab-case
//!   as snake_case); the wrappers are found in this crate's sources;
//! - a function counts as run when a test of this crate calls one of its wrappers (`.wrapper(`
//!   or `Type::wrapper(`), or when the jco tests (tests/component-js) call it by its JS name.
//!
//! It cannot tell which object a call is on, so a common name (`get`, `len`) passes whenever
//! any test calls a method of that name; the names below are few and each has tests of its own.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files(&path, ext));
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// `name: func(` and `name: static func(` in a WIT text.
fn wit_functions(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let (name, rest) = line.trim().split_once(": ")?;
            let is_func = rest.starts_with("func(") || rest.starts_with("static func(");
            let plain = name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            (is_func && plain && !name.is_empty()).then(|| name.to_string())
        })
        .collect()
}

/// The functions of the host's sources and the `call_<x>` each body names: x -> wrappers.
fn wrappers(sources: &[PathBuf]) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in sources {
        let text = read(path);
        for chunk in text.split("fn ").skip(1) {
            let name: String = chunk
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            // The body runs to the next `fn ` (the split) — enough for one-call wrappers.
            for (at, _) in chunk.match_indices("call_") {
                let called: String = chunk[at + 5..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if chunk[at + 5 + called.len()..].starts_with('(') {
                    out.entry(called).or_default().insert(name.clone());
                }
            }
        }
    }
    out
}

fn camel(kebab: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in kebab.chars() {
        if c == '-' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn every_wit_function_is_run_by_a_test() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = crate_dir.join("../..");
    let mut functions = BTreeSet::new();
    for wit in files(&root.join("wit"), "wit") {
        functions.extend(wit_functions(&read(&wit)));
    }
    let wrappers = wrappers(&files(&crate_dir.join("src"), "rs"));
    let this = crate_dir.join("tests/wit_coverage.rs");
    let rust_tests: String = files(&crate_dir.join("tests"), "rs")
        .into_iter()
        .filter(|p| *p != this)
        .map(|p| read(&p))
        .collect();
    let jco_tests: String = files(&root.join("tests/component-js"), "mjs")
        .into_iter()
        .filter(|p| !p.components().any(|c| c.as_os_str() == "node_modules"))
        .map(|p| read(&p))
        .collect();
    let called = |name: &str, text: &str| {
        text.contains(&format!(".{name}(")) || text.contains(&format!("::{name}("))
    };
    // Functions the library reaches through a private wrapper: the public call that runs it.
    let through: BTreeMap<&str, &str> = [("open-salvaging", "salvaging")].into();
    let mut unrun = Vec::new();
    let mut unwrapped = Vec::new();
    for f in &functions {
        let snake = f.replace('-', "_");
        let via_jco = called(&camel(f), &jco_tests);
        match wrappers.get(&snake) {
            Some(ws) => {
                let public = through
                    .get(f.as_str())
                    .is_some_and(|p| called(p, &rust_tests));
                if !ws.iter().any(|w| called(w, &rust_tests)) && !via_jco && !public {
                    unrun.push(format!("{f} (wrappers {ws:?})"));
                }
            }
            // A host import (kv, embedder, llm) has no call_ wrapper: the host implements it.
            None if [
                "get",
                "put",
                "delete",
                "list-by-prefix",
                "embed",
                "complete",
            ]
            .contains(&f.as_str()) => {}
            None if !via_jco => unwrapped.push(f.clone()),
            None => {}
        }
    }
    assert!(
        functions.len() > 80,
        "{} functions found: the scan is broken",
        functions.len()
    );
    assert!(
        unwrapped.is_empty(),
        "WIT functions the host library never calls: {unwrapped:?}"
    );
    assert!(unrun.is_empty(), "WIT functions no test runs: {unrun:#?}");
}
