//! Bucket Brigade from Python: [`BucketBrigadeCore`], a batch of steppers that Python steps in
//! one call per phase (numpy arrays in, numpy arrays out, the GIL released while the engines
//! run), and [`BucketBrigadePolicy`], a scripted policy deciding from an observation dict.
//!
//! A core of one environment backs the PettingZoo environment; a core of many backs
//! `make_vec`. Auto-reset follows Gymnasium 1.x's next-step mode: the step after an episode
//! ends resets that environment (its actions are ignored, its rewards are zero).

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use simfleet::games::bucket_brigade::{
    AnyPolicy, Choice, Codes, CodesMut, Mode, Scenario, ScriptedSeat, Stepper, View, NUM_HOUSES,
};
use simfleet::protocol::JobError;
use simfleet::Spec;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Resolves a scenario spec string as a sweep file does.
fn scenario(spec: &str) -> Result<Scenario, JobError> {
    let parsed = Spec::parse(spec).map_err(|e| JobError::invalid("scenario", spec, e.message))?;
    Scenario::from_spec(&parsed)
}

/// One seat's policy; `"agent"` is played from Python (`None`).
fn seat(i: usize, spec: &str) -> Result<Option<AnyPolicy>, JobError> {
    if spec == "agent" {
        return Ok(None);
    }
    let parsed = Spec::parse(spec).map_err(|e| JobError::invalid(format!("policy_set[{i}]"), spec, e.message))?;
    AnyPolicy::from_spec(i, &parsed).map(Some)
}

/// The observation arrays of one step, filled by the engines and handed to numpy whole.
struct Obs {
    phase: Vec<u8>,
    night: Vec<u8>,
    houses: Vec<u8>,
    locations: Vec<u8>,
    last_houses: Vec<u8>,
    last_modes: Vec<u8>,
    last_signals: Vec<u8>,
    signals: Vec<u8>,
}

impl Obs {
    fn new(views: usize, n: usize) -> Obs {
        Obs {
            phase: vec![0; views],
            night: vec![0; views],
            houses: vec![0; views * NUM_HOUSES],
            locations: vec![0; views * n],
            last_houses: vec![0; views * n],
            last_modes: vec![0; views * n],
            last_signals: vec![0; views * n],
            signals: vec![0; views * n],
        }
    }

    fn write(&mut self, at: usize, n: usize, env: &Stepper, seat: usize) {
        let s = at * n..(at + 1) * n;
        env.write_view(
            seat,
            &mut CodesMut {
                phase: &mut self.phase[at],
                night: &mut self.night[at],
                houses: &mut self.houses[at * NUM_HOUSES..(at + 1) * NUM_HOUSES],
                locations: &mut self.locations[s.clone()],
                last_houses: &mut self.last_houses[s.clone()],
                last_modes: &mut self.last_modes[s.clone()],
                last_signals: &mut self.last_signals[s.clone()],
                signals: &mut self.signals[s],
            },
        );
    }

    /// A dict of arrays shaped `(envs, seats, …)`, or `(envs, …)` with `squeeze` (one seat).
    fn into_dict<'py>(
        self,
        py: Python<'py>,
        envs: usize,
        seats: usize,
        n: usize,
        squeeze: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let shape = |last: usize| if squeeze { vec![envs, last] } else { vec![envs, seats, last] };
        d.set_item("phase", PyArray1::from_vec(py, self.phase).reshape(shape(1))?)?;
        d.set_item("night", PyArray1::from_vec(py, self.night).reshape(shape(1))?)?;
        d.set_item("houses", PyArray1::from_vec(py, self.houses).reshape(shape(NUM_HOUSES))?)?;
        for (key, v) in [
            ("locations", self.locations),
            ("last_houses", self.last_houses),
            ("last_modes", self.last_modes),
            ("last_signals", self.last_signals),
            ("signals", self.signals),
        ] {
            d.set_item(key, PyArray1::from_vec(py, v).reshape(shape(n))?)?;
        }
        Ok(d)
    }
}

/// What one step returns besides the observations.
struct Flags {
    rewards: Vec<f64>,
    terminated: Vec<bool>,
    truncated: Vec<bool>,
}

fn mode(code: i64) -> Option<Mode> {
    match code {
        0 => Some(Mode::Rest),
        1 => Some(Mode::Work),
        _ => None,
    }
}

/// `(signal, house, mode)` codes as a choice, or why not.
fn choice(a: &[i64]) -> Result<Choice, String> {
    let (Some(signal), Some(m)) = (mode(a[0]), mode(a[2])) else {
        return Err(format!("signal and mode must be 0 (REST) or 1 (WORK), got {a:?}"));
    };
    if !(0..NUM_HOUSES as i64).contains(&a[1]) {
        return Err(format!("house must be 0..9, got {}", a[1]));
    }
    Ok(Choice { signal, house: a[1] as u8, mode: m })
}

/// What `step` returns: observations, rewards, terminated, truncated.
type Stepped<'py> = (Bound<'py, PyDict>, Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyAny>);

/// A batch of Bucket Brigade environments with the same scenario and team.
#[pyclass(module = "simfleet._native")]
pub struct BucketBrigadeCore {
    envs: Vec<Stepper>,
    /// The seed each environment plays now.
    seeds: Vec<u64>,
    /// Set when an environment's episode ended on the last step (reset on the next).
    ended: Vec<bool>,
    agents: Vec<usize>,
    n: usize,
}

#[pymethods]
impl BucketBrigadeCore {
    /// `num_envs` environments of `scenario` with `team` (one spec per seat, `"agent"` for a
    /// seat played from Python). Errors are the sweep files' messages, as `ValueError`.
    #[new]
    fn new(scenario_spec: &str, team: Vec<String>, num_envs: usize) -> PyResult<BucketBrigadeCore> {
        let sc = scenario(scenario_spec).map_err(value_error)?;
        if team.len() != sc.num_agents {
            let reason = format!("the team has {} seats but scenario.num_agents = {}", team.len(), sc.num_agents);
            return Err(value_error(JobError::invalid("policy_set", team.len(), reason)));
        }
        let team = team.iter().enumerate().map(|(i, s)| seat(i, s)).collect::<Result<Vec<_>, _>>();
        let team = team.map_err(value_error)?;
        let one = Stepper::new(sc, &team);
        let agents = one.outside_seats().collect();
        Ok(BucketBrigadeCore {
            envs: vec![one; num_envs.max(1)],
            seeds: vec![0; num_envs.max(1)],
            ended: vec![false; num_envs.max(1)],
            agents,
            n: sc.num_agents,
        })
    }

    /// N of a scenario spec (its `num_agents`), validated as a sweep file does.
    #[staticmethod]
    fn agents_of(scenario_spec: &str) -> PyResult<usize> {
        scenario(scenario_spec).map(|sc| sc.num_agents).map_err(value_error)
    }

    /// The seats played from Python.
    #[getter]
    fn agent_seats(&self) -> Vec<usize> {
        self.agents.clone()
    }

    /// N.
    #[getter]
    fn num_agents(&self) -> usize {
        self.n
    }

    /// The environments.
    #[getter]
    fn num_envs(&self) -> usize {
        self.envs.len()
    }

    /// The resolved scenario, as `{field: value}` text (what `coordinator list` shows).
    #[getter]
    fn scenario<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let sc = self.envs[0].scenario();
        d.set_item("name", sc.name)?;
        d.set_item("num_agents", sc.num_agents)?;
        Ok(d)
    }

    /// Resets environment `i` to seed `seed + i` and returns the observations.
    /// With `squeeze` (one agent seat), arrays drop the seat axis.
    #[pyo3(signature = (seed, squeeze = false))]
    fn reset<'py>(&mut self, py: Python<'py>, seed: u64, squeeze: bool) -> PyResult<Bound<'py, PyDict>> {
        let (n, k) = (self.n, self.agents.len());
        let (envs, seeds, ended, agents) = (&mut self.envs, &mut self.seeds, &mut self.ended, &self.agents);
        let obs = py.detach(|| {
            let mut obs = Obs::new(envs.len() * k, n);
            for (i, env) in envs.iter_mut().enumerate() {
                seeds[i] = seed.wrapping_add(i as u64);
                ended[i] = false;
                env.reset(seeds[i]);
                for (j, &a) in agents.iter().enumerate() {
                    obs.write(i * k + j, n, env, a);
                }
            }
            obs
        });
        obs.into_dict(py, self.envs.len(), k, n, squeeze && k == 1)
    }

    /// Plays one phase in every environment with `actions` shaped `(envs, agent seats, 3)`
    /// (`signal, house, mode`); returns `(observations, rewards, terminated, truncated)`.
    #[pyo3(signature = (actions, squeeze = false))]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArrayDyn<'py, i64>,
        squeeze: bool,
    ) -> PyResult<Stepped<'py>> {
        let (n, k, envs_n) = (self.n, self.agents.len(), self.envs.len());
        if actions.len() != envs_n * k * 3 {
            let shape = actions.shape().to_vec();
            return Err(value_error(format!("actions have shape {shape:?}: expected ({envs_n}, {k}, 3)")));
        }
        let acts = actions.as_slice().map_err(value_error)?;
        let (envs, seeds, ended, agents) = (&mut self.envs, &mut self.seeds, &mut self.ended, &self.agents);
        let (obs, flags) = py.detach(|| step_all(envs, seeds, ended, agents, acts, n)).map_err(value_error)?;
        let squeeze = squeeze && k == 1;
        let obs = obs.into_dict(py, envs_n, k, n, squeeze)?;
        let rewards = PyArray1::from_vec(py, flags.rewards);
        let rewards = if squeeze { rewards.into_any() } else { rewards.reshape([envs_n, k])?.into_any() };
        let terminated = PyArray1::from_vec(py, flags.terminated).into_any();
        let truncated = PyArray1::from_vec(py, flags.truncated).into_any();
        Ok((obs, rewards, terminated, truncated))
    }

    /// The record of environment `i`'s episode as JSON (the fleet's record, byte for byte), or
    /// `None` before it has ended.
    fn record_json(&self, i: usize) -> PyResult<Option<String>> {
        let env = self.envs.get(i).ok_or_else(|| value_error(format!("no environment {i}")))?;
        env.record().map(|r| serde_json::to_string(&r).map_err(value_error)).transpose()
    }

    /// The seed environment `i` plays now.
    fn seed_of(&self, i: usize) -> Option<u64> {
        self.seeds.get(i).copied()
    }

    /// The trajectory hash so far of environment `i` (16 hex digits).
    fn hash_of(&self, i: usize) -> Option<String> {
        self.envs.get(i).map(|e| e.town().hash().hex())
    }
}

/// One phase of every environment (next-step auto-reset), without the GIL.
fn step_all(
    envs: &mut [Stepper],
    seeds: &mut [u64],
    ended: &mut [bool],
    agents: &[usize],
    acts: &[i64],
    n: usize,
) -> Result<(Obs, Flags), String> {
    let k = agents.len();
    let stride = envs.len() as u64;
    let mut obs = Obs::new(envs.len() * k, n);
    let mut flags = Flags {
        rewards: vec![0.0; envs.len() * k],
        terminated: vec![false; envs.len()],
        truncated: vec![false; envs.len()],
    };
    // Every action is checked before any environment steps: a refused batch changes nothing.
    let mut given = Vec::with_capacity(envs.len() * k);
    for (i, env_acts) in acts.chunks_exact(3 * k.max(1)).enumerate().take(envs.len()) {
        for (j, seat) in agents.iter().enumerate() {
            let a = &env_acts[j * 3..j * 3 + 3];
            match choice(a) {
                Ok(c) => given.push(c),
                // An environment resetting on this step ignores its actions.
                Err(_) if ended[i] => given.push(Choice { signal: Mode::Rest, house: 0, mode: Mode::Rest }),
                Err(e) => return Err(format!("env {i}, seat {seat}: {e}")),
            }
        }
    }
    for (i, env) in envs.iter_mut().enumerate() {
        if ended[i] {
            // Env i's next episode: every environment walks its own seeds, `stride` apart.
            seeds[i] = seeds[i].wrapping_add(stride);
            ended[i] = false;
            env.reset(seeds[i]);
        } else {
            let out = env.step(&given[i * k..(i + 1) * k]).map_err(|e| format!("env {i}: {e}"))?;
            for (j, &a) in agents.iter().enumerate() {
                flags.rewards[i * k + j] = out.rewards[a];
            }
            (flags.terminated[i], flags.truncated[i]) = (out.terminated, out.truncated);
            ended[i] = out.terminated || out.truncated;
        }
        for (j, &a) in agents.iter().enumerate() {
            obs.write(i * k + j, n, env, a);
        }
    }
    Ok((obs, flags))
}

/// A built-in Bucket Brigade policy playing one seat from observation dicts.
#[pyclass(module = "simfleet._native")]
pub struct BucketBrigadePolicy {
    inner: ScriptedSeat,
    seat: usize,
}

fn codes_of(obs: &Bound<'_, PyDict>, key: &str) -> PyResult<Vec<u8>> {
    let v = obs.get_item(key)?.ok_or_else(|| value_error(format!("the observation has no {key:?}")))?;
    let np = v.py().import("numpy")?;
    let flat = np.call_method1("asarray", (v,))?.call_method0("ravel")?;
    let numbers: Vec<f64> = flat.call_method1("astype", ("float64",))?.call_method0("tolist")?.extract()?;
    numbers
        .into_iter()
        .map(|x| {
            let ok = x.fract() == 0.0 && (0.0..=255.0).contains(&x);
            ok.then_some(x as u8).ok_or_else(|| value_error(format!("observation field {key}: {x} is not a code")))
        })
        .collect()
}

#[pymethods]
impl BucketBrigadePolicy {
    /// `spec` (a policy of `coordinator list bucket_brigade`) playing `seat` in `scenario`.
    #[new]
    fn new(spec: &str, seat: usize, scenario_spec: &str) -> PyResult<BucketBrigadePolicy> {
        let sc = scenario(scenario_spec).map_err(value_error)?;
        if seat >= sc.num_agents {
            return Err(value_error(format!("seat {seat} is not a seat of {} agents", sc.num_agents)));
        }
        let policy = self::seat(seat, spec)
            .map_err(value_error)?
            .ok_or_else(|| value_error("\"agent\" is not a built-in policy"))?;
        Ok(BucketBrigadePolicy { inner: ScriptedSeat::new(policy, seat, sc), seat })
    }

    /// Starts the episode of `seed` (the seat's stream is keyed as the engine keys it).
    fn reset(&mut self, seed: u64) {
        self.inner.reset(seed);
    }

    /// The policy's `(signal, house, mode)` for one observation dict of its seat.
    fn act(&mut self, obs: &Bound<'_, PyDict>) -> PyResult<[i64; 3]> {
        let one = |key: &str| -> PyResult<u8> {
            codes_of(obs, key)?.first().copied().ok_or_else(|| value_error(format!("{key:?} is empty")))
        };
        let (houses, locations) = (codes_of(obs, "houses")?, codes_of(obs, "locations")?);
        let (lh, lm, ls) =
            (codes_of(obs, "last_houses")?, codes_of(obs, "last_modes")?, codes_of(obs, "last_signals")?);
        let signals = codes_of(obs, "signals")?;
        let codes = Codes {
            phase: one("phase")?,
            night: one("night")?,
            houses: &houses,
            locations: &locations,
            last_houses: &lh,
            last_modes: &lm,
            last_signals: &ls,
            signals: &signals,
        };
        let view = View::from_codes(self.seat, &codes).map_err(value_error)?;
        let c = self.inner.decide(&view);
        Ok([i64::from(c.signal.code()), i64::from(c.house), i64::from(c.mode.code())])
    }
}
