//! Sandbox limits: how much work and memory one call into a guest may take.
//!
//! A plugin host must not hang or run out of memory because of a guest. [`Limits`] bounds
//! every call into the component three ways, each optional:
//! - **fuel** ([`Limits::fuel`]): the guest may execute about this many Wasm operators per
//!   call; past it the call traps with [`LimitKind::Fuel`]. Deterministic: the same call on the
//!   same data always spends the same fuel.
//! - **time** ([`Limits::timeout`]): epoch interruption. A ticker thread advances the engine's
//!   epoch every [`Limits::tick`]; a call running longer than the timeout (to within a tick)
//!   traps with [`LimitKind::Time`]. Cheaper than fuel, but not deterministic.
//! - **memory** ([`Limits::max_memory_bytes`]): each linear memory may grow to at most this
//!   size. A `memory.grow` past it traps at once with [`LimitKind::Memory`] (rather than
//!   returning -1, which a Rust guest turns into an abort with a vaguer message).
//!
//! - **data handed out**: a call may return as many bytes as the guest's memory may hold
//!   ([`Limits::hostcall_bytes`]), no fewer.
//!
//! A trapped instance is never entered again: [`crate::Memory`] throws it away and
//! instantiates a fresh one on the same [`crate::Kv`] at the next call, so the host stays
//! usable and sees exactly what the guest had durably written.
//!
//! The same mechanism serves any Wasm code run on an engine made from the limits: see
//! [`Limits::engine`], [`Limits::arm`] and [`MemoryLimiter`].

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use wasmtime::{Config, Engine, ResourceLimiter, Store};

/// Limits on one call into a guest. `Limits::default()` is [`Limits::DEFAULT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Fuel (about one unit per Wasm operator) a single call may spend; `None` is unlimited.
    pub fuel: Option<u64>,
    /// Wall-clock time a single call may take; `None` is unlimited.
    pub timeout: Option<Duration>,
    /// How often the epoch advances when [`Limits::timeout`] is set: the timeout's resolution.
    pub tick: Duration,
    /// Largest size of any linear memory of the guest, in bytes; `None` is unlimited (4 GiB
    /// for a 32-bit memory).
    pub max_memory_bytes: Option<usize>,
    /// Largest number of elements of any table of the guest.
    pub max_table_elements: usize,
}

impl Limits {
    /// The defaults: a 60 s timeout and 1 GiB of memory per call, no fuel metering (it costs
    /// run time on every call; the timeout already stops a guest that hangs). Generous for
    /// any real call on a large memory, yet no guest can hang or exhaust the host. Set
    /// [`Limits::fuel`] for a deterministic budget.
    pub const DEFAULT: Limits = Limits {
        fuel: None,
        timeout: Some(Duration::from_secs(60)),
        tick: Duration::from_millis(10),
        max_memory_bytes: Some(1 << 30),
        max_table_elements: 100_000,
    };

    /// No limit at all (a trusted guest; the fastest configuration).
    pub const NONE: Limits = Limits {
        fuel: None,
        timeout: None,
        tick: Duration::from_millis(10),
        max_memory_bytes: None,
        max_table_elements: usize::MAX,
    };

    /// Turns on what these limits need in a Wasmtime [`Config`] (fuel metering, epoch
    /// interruption).
    pub fn configure(&self, config: &mut Config) {
        config.consume_fuel(self.fuel.is_some());
        config.epoch_interruption(self.timeout.is_some());
    }

    /// A new engine configured by [`Limits::configure`], with its epoch ticker running when a
    /// timeout is set. The ticker thread ends once the engine is dropped.
    pub fn engine(&self) -> wasmtime::Result<Engine> {
        let mut config = Config::new();
        self.configure(&mut config);
        let engine = Engine::new(&config)?;
        if self.timeout.is_some() {
            start_ticker(&engine, self.tick);
        }
        Ok(engine)
    }

    /// The memory limiter to keep in a store's data and hand to [`Store::limiter`].
    pub fn limiter(&self) -> MemoryLimiter {
        MemoryLimiter {
            max_memory_bytes: self.max_memory_bytes,
            max_table_elements: self.max_table_elements,
            exceeded: None,
        }
    }

    /// Arms a store for the next call: refills its fuel and sets its epoch deadline. Call
    /// before every call into the guest. The store's engine must come from
    /// [`Limits::engine`] (or a config passed through [`Limits::configure`]).
    pub fn arm<T>(&self, store: &mut Store<T>) -> wasmtime::Result<()> {
        store.set_hostcall_fuel(self.hostcall_bytes());
        if let Some(fuel) = self.fuel {
            store.set_fuel(fuel)?;
        }
        if let Some(timeout) = self.timeout {
            store.set_epoch_deadline(self.ticks(timeout));
            store.epoch_deadline_trap();
        }
        Ok(())
    }

    /// The most bytes one call may hand from the guest to the host (Wasmtime's hostcall fuel):
    /// as much as the guest's memory may hold. Wasmtime's default of 128 MiB made a `memdag
    /// export` of a store of 100,000 turns fail, although the guest held it well within its
    /// memory limit; the memory limit already bounds what a guest can make the host copy.
    pub fn hostcall_bytes(&self) -> usize {
        self.max_memory_bytes.unwrap_or(usize::MAX)
    }

    /// The timeout in ticks, rounded up, at least one.
    fn ticks(&self, timeout: Duration) -> u64 {
        let tick = self.tick.as_nanos().max(1);
        (timeout.as_nanos().div_ceil(tick) as u64).max(1)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// Advances the epoch of `engine` every `tick` until the engine is dropped.
fn start_ticker(engine: &Engine, tick: Duration) {
    let weak = engine.weak();
    let stop = Arc::new(AtomicBool::new(false));
    let _ = std::thread::Builder::new()
        .name("memdag-epoch".into())
        .spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(tick);
                match weak.upgrade() {
                    Some(engine) => engine.increment_epoch(),
                    None => stop.store(true, Ordering::Relaxed),
                }
            }
        });
}

/// Which limit a call ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    /// It spent all its fuel.
    Fuel,
    /// It ran past its timeout.
    Time,
    /// It tried to grow a memory or table past its maximum.
    Memory,
}

impl fmt::Display for LimitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LimitKind::Fuel => "fuel limit",
            LimitKind::Time => "time limit",
            LimitKind::Memory => "memory limit",
        })
    }
}

/// The error a [`MemoryLimiter`] traps the guest with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitExceeded {
    /// What was too large: `"memory"` or `"table"`.
    pub what: &'static str,
    /// The size asked for, in bytes (memory) or elements (table).
    pub desired: usize,
    /// The limit, in the same unit.
    pub limit: usize,
}

impl fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = if self.what == "memory" {
            "bytes"
        } else {
            "elements"
        };
        write!(
            f,
            "guest {} would grow to {} {unit}, over the limit of {}",
            self.what, self.desired, self.limit
        )
    }
}

impl std::error::Error for LimitExceeded {}

/// A [`ResourceLimiter`] that traps a guest growing a memory or table past its limit and
/// remembers that it did (see [`MemoryLimiter::take_exceeded`]).
#[derive(Debug, Clone)]
pub struct MemoryLimiter {
    max_memory_bytes: Option<usize>,
    max_table_elements: usize,
    exceeded: Option<LimitExceeded>,
}

impl MemoryLimiter {
    /// The last refused growth, cleared by this call.
    pub fn take_exceeded(&mut self) -> Option<LimitExceeded> {
        self.exceeded.take()
    }

    fn refuse(&mut self, what: &'static str, desired: usize, limit: usize) -> wasmtime::Error {
        let e = LimitExceeded {
            what,
            desired,
            limit,
        };
        self.exceeded = Some(e.clone());
        wasmtime::Error::new(e)
    }
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        match self.max_memory_bytes {
            Some(limit) if desired > limit => Err(self.refuse("memory", desired, limit)),
            _ => Ok(true),
        }
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max_table_elements {
            return Err(self.refuse("table", desired, self.max_table_elements));
        }
        Ok(true)
    }
}

/// Which limit, if any, an error from a guest call shows was hit. `limiter` is the store's
/// limiter, consulted (and cleared) for memory and table growth.
pub fn classify(error: &wasmtime::Error, limiter: &mut MemoryLimiter) -> Option<LimitKind> {
    if limiter.take_exceeded().is_some() || error.downcast_ref::<LimitExceeded>().is_some() {
        return Some(LimitKind::Memory);
    }
    match error.downcast_ref::<wasmtime::Trap>() {
        Some(wasmtime::Trap::OutOfFuel) => Some(LimitKind::Fuel),
        Some(wasmtime::Trap::Interrupt) => Some(LimitKind::Time),
        _ => None,
    }
}
