//! Random damage to a valid store, then verify, salvage and a plain open; the body is
//! `fuzz/bodies/`, shared with the regression test of committed crash inputs.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../bodies/salvage_damage.rs"]
mod salvage_damage;

fuzz_target!(|data: &[u8]| salvage_damage::run(data));
