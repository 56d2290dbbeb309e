//! The sandbox holds: a guest that loops forever or grows memory without end is stopped by a
//! real trap, reported as an error, and the host goes on working.
//!
//! Two layers: hand-written core modules run on an engine and store armed by [`Limits`]
//! (the mechanism, on guests that truly never stop), and the memdag component itself driven
//! past tight limits through [`Runtime`] and [`Memory`] (the product path, with recovery).

mod common;

use std::time::{Duration, Instant};

use memdag_host::limits::{classify, LimitExceeded, MemoryLimiter};
use memdag_host::{Error, LimitKind, Limits, MemKv, Runtime};
use wasmtime::{Instance, Module, Store};

use common::{component_path, turn};

/// A function that never returns.
const LOOP_FOREVER: &str = r#"(module (func (export "run") (loop $l (br $l))))"#;

/// A function that grows its memory one 64 KiB page at a time until growth fails, then
/// returns the number of pages it reached.
const GROW_FOREVER: &str = r#"
(module
  (memory 1)
  (func (export "run") (result i32)
    (block $full
      (loop $more
        (br_if $full (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
        (br $more)))
    (memory.size)))
"#;

/// Instantiates `wat` on an engine and store armed by `limits`; returns its `run` export.
fn sandboxed(wat: &str, limits: Limits) -> (Store<MemoryLimiter>, Instance) {
    let engine = limits.engine().unwrap();
    let module = Module::new(&engine, wat::parse_str(wat).unwrap()).unwrap();
    let mut store = Store::new(&engine, limits.limiter());
    store.limiter(|l| l);
    limits.arm(&mut store).unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    (store, instance)
}

#[test]
fn an_endless_loop_is_stopped_by_the_timeout() {
    let limits = Limits {
        timeout: Some(Duration::from_millis(100)),
        fuel: None,
        ..Limits::DEFAULT
    };
    let (mut store, instance) = sandboxed(LOOP_FOREVER, limits);
    let run = instance
        .get_typed_func::<(), ()>(&mut store, "run")
        .unwrap();
    let started = Instant::now();
    let err = run.call(&mut store, ()).unwrap_err();
    let took = started.elapsed();
    assert_eq!(
        classify(&err, store.data_mut()),
        Some(LimitKind::Time),
        "{err:?}"
    );
    assert!(
        took >= Duration::from_millis(90) && took < Duration::from_secs(5),
        "stopped after {took:?}"
    );
}

#[test]
fn an_endless_loop_is_stopped_by_fuel() {
    let limits = Limits {
        fuel: Some(1_000_000),
        timeout: None,
        ..Limits::DEFAULT
    };
    let (mut store, instance) = sandboxed(LOOP_FOREVER, limits);
    let run = instance
        .get_typed_func::<(), ()>(&mut store, "run")
        .unwrap();
    let err = run.call(&mut store, ()).unwrap_err();
    assert_eq!(classify(&err, store.data_mut()), Some(LimitKind::Fuel));
    assert_eq!(store.get_fuel().unwrap(), 0);
}

#[test]
fn endless_memory_growth_traps_at_the_memory_limit() {
    let limits = Limits {
        max_memory_bytes: Some(4 << 20),
        ..Limits::DEFAULT
    };
    let (mut store, instance) = sandboxed(GROW_FOREVER, limits);
    let run = instance
        .get_typed_func::<(), i32>(&mut store, "run")
        .unwrap();
    let err = run.call(&mut store, ()).unwrap_err();
    let exceeded = err
        .downcast_ref::<LimitExceeded>()
        .expect("the limiter's error");
    assert_eq!(exceeded.limit, 4 << 20);
    assert_eq!(exceeded.desired, (4 << 20) + 65536);
    assert_eq!(classify(&err, store.data_mut()), Some(LimitKind::Memory));

    // Without the limit the same guest reaches the 4 GiB of a 32-bit memory; with a larger
    // limit it stops later, showing the cap is what stopped it.
    let limits = Limits {
        max_memory_bytes: Some(16 << 20),
        ..Limits::DEFAULT
    };
    let (mut store, instance) = sandboxed(GROW_FOREVER, limits);
    let run = instance
        .get_typed_func::<(), i32>(&mut store, "run")
        .unwrap();
    let err = run.call(&mut store, ()).unwrap_err();
    assert_eq!(
        err.downcast_ref::<LimitExceeded>().unwrap().desired,
        (16 << 20) + 65536
    );
}

/// A turn with `n` bytes of varied words as input, costly to index.
fn huge_turn(id: &str, n: usize) -> memdag_host::NewTurn {
    let words = [
        "deploy", "failed", "retry", "cache", "build", "日志", "修复",
    ];
    let mut input = String::with_capacity(n + 16);
    let mut i = 0usize;
    while input.len() < n {
        input.push_str(words[i % words.len()]);
        input.push_str(&(i % 997).to_string());
        input.push(' ');
        i += 1;
    }
    let mut t = turn(id, "main", 10, &[]);
    t.input = input;
    t
}

#[test]
fn the_component_past_its_fuel_traps_and_the_memory_recovers() {
    let limits = Limits {
        fuel: Some(200_000_000),
        timeout: None,
        ..Limits::DEFAULT
    };
    let runtime = Runtime::from_file_with(component_path(), limits).unwrap();
    let kv = common::SharedKv::default();
    let mut memory = runtime.open(kv.clone(), None).unwrap();
    memory.add_turn(turn("a", "main", 1, &[])).unwrap();

    let err = memory.add_turn(huge_turn("big", 8 << 20)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Limit {
                kind: LimitKind::Fuel,
                ..
            }
        ),
        "{err}"
    );
    // The same Memory works on a fresh instance and sees what was durable: `a` only.
    assert_eq!(memory.len().unwrap(), 1);
    memory.add_turn(turn("b", "main", 2, &["a"])).unwrap();
    assert_eq!(memory.ancestors("b", 2, 10).unwrap()[0].id, "a");
    let mut again = runtime.open(kv, None).unwrap();
    assert_eq!(again.len().unwrap(), 2);
}

#[test]
fn the_component_past_its_memory_limit_traps_and_the_memory_recovers() {
    let limits = Limits {
        max_memory_bytes: Some(48 << 20),
        ..Limits::DEFAULT
    };
    let runtime = Runtime::from_file_with(component_path(), limits).unwrap();
    let mut memory = runtime.open(MemKv::default(), None).unwrap();
    memory.add_turn(turn("a", "main", 1, &[])).unwrap();
    // 64 MB of input cannot even be copied into a 48 MB memory.
    let err = memory.add_turn(huge_turn("big", 64 << 20)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Limit {
                kind: LimitKind::Memory,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("memory limit"), "{err}");
    assert_eq!(memory.len().unwrap(), 1);
    memory.add_turn(turn("b", "main", 2, &["a"])).unwrap();
    assert_eq!(memory.len().unwrap(), 2);
}

#[test]
fn the_component_past_its_timeout_traps_and_the_memory_recovers() {
    let limits = Limits {
        timeout: Some(Duration::from_millis(30)),
        fuel: None,
        ..Limits::DEFAULT
    };
    let runtime = Runtime::from_file_with(component_path(), limits).unwrap();
    let mut memory = runtime.open(MemKv::default(), None).unwrap();
    memory.add_turn(turn("a", "main", 1, &[])).unwrap();
    // Past the default field limit, so the work that runs out of time is the core's own.
    let mut turn_limits = memory.limits().unwrap();
    turn_limits.max_field_bytes = 64 << 20;
    turn_limits.max_turn_bytes = 64 << 20;
    memory.set_limits(&turn_limits).unwrap();
    assert_eq!(memory.limits().unwrap().max_field_bytes, 64 << 20);
    let started = Instant::now();
    let err = memory.add_turn(huge_turn("big", 16 << 20)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Limit {
                kind: LimitKind::Time,
                ..
            }
        ),
        "{err} after {:?}",
        started.elapsed()
    );
    assert_eq!(memory.len().unwrap(), 1);
}

#[test]
fn a_call_may_hand_the_host_as_much_as_the_guest_memory_holds() {
    // Wasmtime's own default (128 MiB) failed `memdag export` of a store of 100,000 turns.
    let (store, _) = sandboxed(LOOP_FOREVER, Limits::DEFAULT);
    assert_eq!(
        store.hostcall_fuel(),
        Limits::DEFAULT.max_memory_bytes.unwrap()
    );
    assert!(store.hostcall_fuel() > 128 << 20);
    let (store, _) = sandboxed(LOOP_FOREVER, Limits::NONE);
    assert_eq!(store.hostcall_fuel(), usize::MAX);
}
