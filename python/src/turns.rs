//! Games stepped one decision at a time from Python: [`TurnCore`] plays a prepared game
//! (`deception`, and any game whose seats take outside transports) on an engine thread of its
//! own, with each `"agent"` seat's transport a pair of channels to the caller. The engine's own
//! episode loop runs unchanged; it simply waits, inside an agent seat's decision, until Python
//! answers. So a Python-stepped episode is the engine's episode by construction: the same
//! draws, fallbacks, counters and record (python/tests/ check it byte for byte).
//!
//! The exchange, one event per call: `reset(seed)` starts an episode and returns the first
//! event; `answer(action)` answers the seat that was asked and returns the next. An event is
//! `("ask", seat, obs_json)` or `("done", record_json)`. An agent asking for a built-in
//! policy's choice answers `{"builtin": spec}` and gets `("ask", seat, {"policy_action": …})`
//! back before it answers for real.

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use serde_json::Value;
use simfleet::games::AnyGame;
use simfleet::outside::{AgentSeats, Transport};
use simfleet::protocol::JobError;
use simfleet::{GameKind, RunEnv, Spec};

/// From Python to the engine thread.
enum ToEngine {
    /// Start the episode of this seed (abandoning one under way).
    Start(u64),
    /// The asked seat's answer.
    Answer(Value),
}

/// From the engine thread to Python.
enum FromEngine {
    /// Seat `seat` decides, seeing `obs`.
    Ask(usize, Value),
    /// The episode is over: its record.
    Done(String),
    /// The episode failed (an engine error).
    Failed(String),
}

/// The channels between the engine thread and its caller, shared by every agent seat.
struct Link {
    to_python: Sender<FromEngine>,
    from_python: Mutex<Receiver<ToEngine>>,
    /// A `Start` that arrived while an episode was under way: the next episode's seed.
    pending: Mutex<Option<u64>>,
}

/// An `"agent"` seat's transport: asks through the link and waits for the answer.
struct ChannelSeat {
    seat: usize,
    link: Arc<Link>,
}

impl std::fmt::Debug for ChannelSeat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ChannelSeat({})", self.seat)
    }
}

/// Ends the episode under way: Python went away or started another.
fn abandoned(seat: usize) -> JobError {
    simfleet::outside::policy_error(seat, "agent", "the episode was abandoned by its Python environment")
}

impl Transport for ChannelSeat {
    fn reset(&mut self, _seed: u64) -> Result<(), JobError> {
        Ok(())
    }

    fn act(&mut self, obs: Value) -> Result<Value, JobError> {
        self.link.to_python.send(FromEngine::Ask(self.seat, obs)).map_err(|_| abandoned(self.seat))?;
        let answer = self.link.from_python.lock().expect("one engine thread").recv();
        match answer {
            Ok(ToEngine::Answer(v)) => Ok(v),
            Ok(ToEngine::Start(seed)) => {
                *self.link.pending.lock().expect("one engine thread") = Some(seed);
                Err(abandoned(self.seat))
            }
            Err(_) => Err(abandoned(self.seat)),
        }
    }

    fn environment(&self) -> bool {
        true
    }
}

struct Seats(Arc<Link>);

impl AgentSeats for Seats {
    fn seat(&self, seat: usize) -> Box<dyn Transport> {
        Box::new(ChannelSeat { seat, link: self.0.clone() })
    }
}

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Plays episodes as Python starts them, until Python goes away.
fn engine_loop(mut game: AnyGame, link: Arc<Link>) {
    loop {
        let pending = link.pending.lock().expect("one engine thread").take();
        let seed = match pending {
            Some(seed) => seed,
            None => match link.from_python.lock().expect("one engine thread").recv() {
                Ok(ToEngine::Start(seed)) => seed,
                // An answer with no question (after an episode ended): nothing to do.
                Ok(ToEngine::Answer(_)) => continue,
                Err(_) => return,
            },
        };
        let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| game.play(seed, false)));
        let event = match played {
            Ok(episode) => FromEngine::Done(serde_json::to_string(&episode.record).expect("records serialize")),
            Err(payload) => match payload.downcast_ref::<JobError>() {
                // Abandoned: the next Start (if any) is pending; Python waits for no event.
                Some(e) if e.message == abandoned(0).message => continue,
                Some(e) => FromEngine::Failed(e.to_string()),
                None => FromEngine::Failed(simfleet::runner::panic_message(&payload)),
            },
        };
        if link.to_python.send(event).is_err() {
            return;
        }
    }
}

/// A game stepped decision by decision from Python (see the module's docs).
#[pyclass(module = "simfleet._native")]
pub struct TurnCore {
    to_engine: Option<Sender<ToEngine>>,
    events: Mutex<Receiver<FromEngine>>,
    engine: Option<JoinHandle<()>>,
    /// The seats played from Python.
    #[pyo3(get)]
    agent_seats: Vec<usize>,
    /// Seats in the game.
    #[pyo3(get)]
    num_agents: usize,
}

/// An event as Python sees it.
type Event = (String, Option<usize>, String);

#[pymethods]
impl TurnCore {
    /// Prepares `game` with `scenario` and `team` (`"agent"` seats played from Python) as a
    /// sweep's job would be: the same validation and messages (as `ValueError`).
    #[new]
    fn new(game: &str, scenario: &str, team: Vec<String>) -> PyResult<TurnCore> {
        let kind: GameKind = game.parse().map_err(|e: simfleet::games::UnknownGame| value_error(e))?;
        let sc = Spec::parse(scenario).map_err(|e| value_error(JobError::invalid("scenario", scenario, e.message)))?;
        let specs = team
            .iter()
            .enumerate()
            .map(|(i, s)| Spec::parse(s).map_err(|e| JobError::invalid(format!("policy_set[{i}]"), s, e.message)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(value_error)?;
        let (to_engine, from_python) = mpsc::channel();
        let (to_python, events) = mpsc::channel();
        let link = Arc::new(Link { to_python, from_python: Mutex::new(from_python), pending: Mutex::new(None) });
        let env = RunEnv { chat: None, worker: "python".into(), agents: Some(Arc::new(Seats(link.clone()))) };
        let prepared = AnyGame::prepare(kind, &sc, &specs, &env).map_err(value_error)?;
        let agent_seats = specs.iter().enumerate().filter(|(_, s)| s.name == "agent").map(|(i, _)| i).collect();
        let engine = std::thread::Builder::new()
            .name(format!("simfleet-{game}"))
            .spawn(move || engine_loop(prepared, link))
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the engine thread: {e}")))?;
        Ok(TurnCore {
            to_engine: Some(to_engine),
            events: Mutex::new(events),
            engine: Some(engine),
            agent_seats,
            num_agents: specs.len(),
        })
    }

    /// Starts the episode of `seed`; returns its first event.
    fn reset(&self, py: Python<'_>, seed: u64) -> PyResult<Event> {
        self.send(py, ToEngine::Start(seed))
    }

    /// Answers the asked seat with `answer` (JSON); returns the next event.
    fn answer(&self, py: Python<'_>, answer: &str) -> PyResult<Event> {
        let v: Value = serde_json::from_str(answer).map_err(value_error)?;
        self.send(py, ToEngine::Answer(v))
    }
}

impl TurnCore {
    fn send(&self, py: Python<'_>, msg: ToEngine) -> PyResult<Event> {
        let to_engine = self.to_engine.as_ref().expect("until dropped");
        py.detach(|| {
            to_engine.send(msg).map_err(|_| PyRuntimeError::new_err("the engine thread has stopped"))?;
            let event = self.events.lock().map_err(|_| PyRuntimeError::new_err("the engine failed"))?.recv();
            match event {
                Ok(FromEngine::Ask(seat, obs)) => Ok(("ask".to_string(), Some(seat), obs.to_string())),
                Ok(FromEngine::Done(record)) => Ok(("done".to_string(), None, record)),
                Ok(FromEngine::Failed(why)) => Err(PyRuntimeError::new_err(format!("the engine failed: {why}"))),
                Err(_) => Err(PyRuntimeError::new_err("the engine thread has stopped")),
            }
        })
    }
}

impl Drop for TurnCore {
    fn drop(&mut self) {
        // Closing the channel ends the engine thread (an episode under way is abandoned).
        self.to_engine.take();
        if let Some(engine) = self.engine.take() {
            let _ = engine.join();
        }
    }
}
