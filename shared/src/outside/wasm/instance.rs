//! [`WasmTransport`]: a `wasm:` seat's instance, its limits and its resets.
//!
//! One instance per job, reset per episode: its memory and mutable globals are put back to
//! what they were after `simfleet_init` (a copy of the memory, the globals the rewrite
//! exported), so an episode never sees another's state and a replay of one seed is the
//! episode the job played. Each call gets the seat's fuel, and the memory is capped by a
//! limiter: both count instructions and pages, never time, so a fault happens at the same
//! point on every machine. After a fault the instance is dropped with its store (a store keeps
//! every instance made in it) and the next episode starts on a new one.

use serde_json::Value;
use wasmtime::{Caller, Global, Instance, Linker, Memory, ResourceLimiter, Store, Trap, TypedFunc, Val};

use super::cache::{engine, Checked};
use super::snapshot::Snapshot;
use super::{abi, WasmSeat};
use crate::protocol::JobError;
use crate::seeding::Stream;

/// What a module's store holds: its memory cap and the seat's stream.
struct State {
    cap: usize,
    /// Set when the module asked for more memory than its cap.
    denied: bool,
    rng: Stream,
    /// The module's memory, once instantiated (for `random_fill`).
    memory: Option<Memory>,
}

impl ResourceLimiter for State {
    fn memory_growing(&mut self, _current: usize, desired: usize, _max: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.cap {
            self.denied = true;
            return Err(wasmtime::Error::msg(format!("memory cap of {} bytes reached", self.cap)));
        }
        Ok(true)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _max: Option<usize>) -> wasmtime::Result<bool> {
        Ok(desired <= 100_000)
    }
}

/// `simfleet.random_fill(address, count)`: the seat's next `count` words, little-endian, at
/// `address`. A count over [`abi::MAX_FILL_WORDS`] or an address outside the memory traps.
fn random_fill(mut caller: Caller<'_, State>, address: i32, count: i32) -> wasmtime::Result<()> {
    let n = usize::try_from(count)
        .ok()
        .filter(|n| *n <= abi::MAX_FILL_WORDS)
        .ok_or_else(|| wasmtime::Error::msg(format!("random_fill of {count} words")))?;
    // Looked up by name only in a start function, before the instance is known.
    let memory = match caller.data().memory {
        Some(m) => m,
        None => caller
            .get_export(abi::MEMORY)
            .and_then(|e| e.into_memory())
            .ok_or_else(|| wasmtime::Error::msg("no memory"))?,
    };
    let (data, state) = memory.data_and_store_mut(&mut caller);
    let start = address as u32 as usize;
    let words =
        data.get_mut(start..start + 8 * n).ok_or_else(|| wasmtime::Error::msg("random_fill outside the memory"))?;
    for word in words.chunks_exact_mut(8) {
        word.copy_from_slice(&state.rng.next_u64().to_le_bytes());
    }
    Ok(())
}

/// A live instance and its state after `simfleet_init`.
struct Live {
    store: Store<State>,
    memory: Memory,
    buffer: TypedFunc<i32, i32>,
    reset: TypedFunc<i64, ()>,
    act: TypedFunc<i32, i64>,
    snapshot: Snapshot,
    globals: Vec<(Global, Val)>,
    /// Whether the state is still the snapshot's (a new instance's first episode).
    fresh: bool,
    /// The input buffer the module lent last, and its length: reused for inputs that fit.
    lent: Option<(usize, usize)>,
    /// `lent` at the snapshot: restored with the memory (a buffer lent later may be the
    /// module's to reuse once its memory is the snapshot's again).
    lent_at_snapshot: Option<(usize, usize)>,
}

/// Why a call did not give an answer: the module's fault, of a documented kind.
enum CallError {
    Fault(&'static str),
}

/// One `wasm:` seat's transport.
pub struct WasmTransport {
    seat: WasmSeat,
    game: String,
    checked: Checked,
    live: Option<Live>,
    /// The fault of this episode, once the module had one.
    fault: Option<&'static str>,
    scratch: Vec<u8>,
}

impl std::fmt::Debug for WasmTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasmTransport").field("seat", &self.seat).field("fault", &self.fault).finish()
    }
}

fn kind_of(e: &wasmtime::Error, denied: bool) -> &'static str {
    if denied {
        return "memory";
    }
    match e.downcast_ref::<Trap>() {
        Some(Trap::OutOfFuel) => "out_of_fuel",
        Some(Trap::StackOverflow) => "stack_overflow",
        _ => "trap",
    }
}

impl WasmTransport {
    /// Instantiates seat `seat`'s module (from the process's cache) for `game` and calls its
    /// `simfleet_init`. A module this process lacks, one that does not fit its memory cap, or
    /// one that refuses its parameters is an `invalid_job` naming the seat.
    pub fn start(seat: &WasmSeat, game: &str) -> Result<WasmTransport, JobError> {
        let invalid = |why: String| JobError::invalid(format!("policy_set[{}]", seat.seat), &seat.spec, why);
        let checked = super::ModuleCache::global().get(&seat.hash).ok_or_else(|| {
            invalid(format!(
                "module {} is not known to this process (coordinator run reads it from the sweep's file; \
                 a worker fetches it from the JetStream object store)",
                seat.hash
            ))
        })?;
        let mut t = WasmTransport {
            seat: seat.clone(),
            game: game.to_string(),
            checked,
            live: None,
            fault: None,
            scratch: Vec::new(),
        };
        t.live = Some(t.instantiate().map_err(|why| invalid(why.to_string()))?);
        Ok(t)
    }

    /// A new instance, initialised, with its snapshot.
    fn instantiate(&self) -> Result<Live, String> {
        let state = State { cap: self.seat.limits.memory, denied: false, rng: Stream::new(0, 0), memory: None };
        let mut store = Store::new(engine(), state);
        store.limiter(|s| s as &mut dyn ResourceLimiter);
        let mut linker: Linker<State> = Linker::new(engine());
        linker
            .func_wrap(abi::IMPORT_MODULE, abi::RANDOM, |mut caller: Caller<'_, State>| -> i64 {
                caller.data_mut().rng.next_u64() as i64
            })
            .map_err(|e| e.to_string())?;
        linker.func_wrap(abi::IMPORT_MODULE, abi::RANDOM_FILL, random_fill).map_err(|e| e.to_string())?;
        let fuel = self.seat.limits.fuel;
        store.set_fuel(fuel).map_err(|e| e.to_string())?;
        let instance: Instance = linker.instantiate(&mut store, &self.checked.module).map_err(|e| {
            let kind = kind_of(&e, store.data().denied);
            format!("the module cannot be instantiated ({kind}: {e:#})")
        })?;
        let memory = instance.get_memory(&mut store, abi::MEMORY).ok_or("no memory export")?;
        store.data_mut().memory = Some(memory);
        let buffer = instance.get_typed_func(&mut store, abi::BUFFER).map_err(|e| e.to_string())?;
        let init: TypedFunc<i32, i32> = instance.get_typed_func(&mut store, abi::INIT).map_err(|e| e.to_string())?;
        let reset = instance.get_typed_func(&mut store, abi::RESET).map_err(|e| e.to_string())?;
        let act = instance.get_typed_func(&mut store, abi::ACT).map_err(|e| e.to_string())?;
        let mut live = Live {
            store,
            memory,
            buffer,
            reset,
            act,
            snapshot: Snapshot::default(),
            globals: Vec::new(),
            fresh: true,
            lent: None,
            lent_at_snapshot: None,
        };
        let msg = abi::init_message(&self.game, self.seat.seat, &self.seat.params);
        let answer = live.write(&msg, fuel).and_then(|len| live.call_init(init, len, fuel));
        match answer {
            Ok(0) => {}
            Ok(code) => {
                return Err(format!("simfleet_init refused the parameters {:?} (returned {code})", self.seat.params))
            }
            Err(CallError::Fault(kind)) => return Err(format!("simfleet_init faulted ({kind})")),
        }
        live.snapshot = Snapshot::of(live.memory.data(&live.store));
        live.lent_at_snapshot = live.lent;
        for name in self.checked.globals.iter() {
            let g = instance.get_global(&mut live.store, name).ok_or("a rewritten global is not exported")?;
            let v = g.get(&mut live.store);
            live.globals.push((g, v));
        }
        Ok(live)
    }

    /// The module's answer to `obs`: its MessagePack bytes (in `scratch`), or its fault.
    fn call_act(&mut self, obs: &[u8]) -> Result<&[u8], CallError> {
        let fuel = self.seat.limits.fuel;
        let live = self.live.as_mut().expect("a live instance in an episode without a fault");
        let len = live.write(obs, fuel)?;
        live.store.set_fuel(fuel).expect("fuel is on");
        let r = live.act.call(&mut live.store, len).map_err(|e| live.fault(&e))?;
        let (ptr, n) = ((r as u64 >> 32) as usize, (r as u64 & 0xffff_ffff) as usize);
        if n > abi::MAX_ANSWER_BYTES {
            return Err(CallError::Fault("bad_answer"));
        }
        self.scratch.resize(n, 0);
        live.memory.read(&live.store, ptr, &mut self.scratch).map_err(|_| CallError::Fault("bad_answer"))?;
        Ok(&self.scratch)
    }

    /// The answer's bytes to `obs` read by `read`, or `None` once the module has faulted (in
    /// this call or before, in this episode).
    fn answer<T>(&mut self, obs: &[u8], read: impl FnOnce(&[u8]) -> Option<T>) -> Option<T> {
        if self.fault.is_some() {
            return None;
        }
        match self.call_act(obs) {
            Ok(bytes) => read(bytes),
            Err(CallError::Fault(kind)) => {
                self.faulted(kind);
                None
            }
        }
    }

    fn faulted(&mut self, kind: &'static str) {
        self.fault = Some(kind);
        // The store goes with the instance: the next episode starts on a new one.
        self.live = None;
    }
}

impl Live {
    /// Writes `input` into the module's buffer (asking for one only when the last is too
    /// short); its length as the call's argument.
    fn write(&mut self, input: &[u8], fuel: u64) -> Result<i32, CallError> {
        let len = i32::try_from(input.len()).map_err(|_| CallError::Fault("bad_buffer"))?;
        let ptr = match self.lent {
            Some((ptr, cap)) if input.len() <= cap => ptr,
            _ => {
                self.store.set_fuel(fuel).expect("fuel is on");
                let ptr = self.buffer.call(&mut self.store, len).map_err(|e| self.fault(&e))? as u32 as usize;
                self.lent = Some((ptr, input.len()));
                ptr
            }
        };
        self.memory.write(&mut self.store, ptr, input).map_err(|_| CallError::Fault("bad_buffer"))?;
        Ok(len)
    }

    fn call_init(&mut self, init: TypedFunc<i32, i32>, len: i32, fuel: u64) -> Result<i32, CallError> {
        self.store.set_fuel(fuel).expect("fuel is on");
        init.call(&mut self.store, len).map_err(|e| self.fault(&e))
    }

    fn fault(&self, e: &wasmtime::Error) -> CallError {
        CallError::Fault(kind_of(e, self.store.data().denied))
    }

    /// Puts the memory and globals back to the snapshot; `false` when the memory grew (it
    /// cannot shrink: the instance must be replaced).
    fn restore(&mut self) -> bool {
        if self.fresh {
            self.fresh = false;
            return true;
        }
        let data = self.memory.data_mut(&mut self.store);
        if data.len() != self.snapshot.bytes.len() {
            return false;
        }
        self.snapshot.restore(data);
        self.lent = self.lent_at_snapshot;
        for (g, v) in &self.globals {
            g.set(&mut self.store, *v).expect("the snapshot's own value and type");
        }
        true
    }
}

impl crate::outside::Transport for WasmTransport {
    fn reset(&mut self, _seed: u64) -> Result<(), JobError> {
        unreachable!("a wasm seat is started with its episode's seed (start)")
    }

    fn start(&mut self, episode: u64, seat: usize) -> Result<(), JobError> {
        self.fault = None;
        let reusable = self.live.as_mut().is_some_and(Live::restore);
        if !reusable {
            match self.instantiate() {
                Ok(live) => self.live = Some(live),
                // It worked when the job started: now it is this episode's fault.
                Err(_) => {
                    self.faulted("trap");
                    return Ok(());
                }
            }
            self.live.as_mut().expect("just made").fresh = false;
        }
        let fuel = self.seat.limits.fuel;
        let live = self.live.as_mut().expect("live");
        live.store.data_mut().rng = Stream::agent(episode, seat);
        live.store.data_mut().denied = false;
        live.store.set_fuel(fuel).expect("fuel is on");
        let seed = crate::outside::seat_seed(episode, seat);
        if let Err(e) = live.reset.call(&mut live.store, seed as i64) {
            let kind = kind_of(&e, live.store.data().denied);
            self.faulted(kind);
        }
        Ok(())
    }

    fn act(&mut self, obs: Value) -> Result<Value, JobError> {
        self.act_encoded(&abi::encode(&obs))
    }

    fn act_encoded(&mut self, obs: &[u8]) -> Result<Value, JobError> {
        Ok(self.answer(obs, abi::decode).unwrap_or(Value::Null))
    }

    fn act_codes(&mut self, obs: &[u8], codes: &mut [Option<u64>]) -> Result<Option<usize>, JobError> {
        Ok(self.answer(obs, |bytes| abi::decode_codes(bytes, codes)))
    }

    fn fault(&self) -> Option<&'static str> {
        self.fault
    }

    fn records_every_episode(&self) -> bool {
        false
    }
}
