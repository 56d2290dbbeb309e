//! Every input a fuzz target ever crashed on (`tests/fixtures/fuzz/<target>-<hash>.bin`),
//! run again through what that target runs. A crash found by `cargo fuzz` is copied here
//! before it is fixed, so it can never come back.

// The targets' own bodies, so an input is replayed through exactly what the target runs.
#[path = "../../../fuzz/bodies/extract_rules.rs"]
mod extract_rules;
#[path = "../../../fuzz/bodies/salvage_damage.rs"]
mod salvage_damage;

#[test]
fn every_committed_crash_input_runs_clean() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz");
    let mut ran = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let data = std::fs::read(&path).unwrap();
        match name.split('-').next().unwrap() {
            "extract_rules" => extract_rules::run(&data),
            "salvage_damage" => salvage_damage::run(&data),
            other => panic!("no runner for fuzz target {other} ({name})"),
        }
        ran += 1;
    }
    assert!(ran > 0, "the crash inputs are in {}", dir.display());
}
