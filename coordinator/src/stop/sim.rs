//! Synthetic stopping groups with planted truths, played through the real folds: the oracle of
//! the coverage tests. Each seed draws a shared latent (the common random numbers that make
//! paired differences tighter) and one noise per set; a set's value is its planted mean plus
//! its spread times the mix of the two, or a skewed (exponential) draw of the same mean and
//! spread.

use simfleet::aggregate::Moments;

use super::state::PairMoments;
use super::{Decision, FoldRecord, GroupState, Question, StopPlan};

/// SplitMix64: a small, fast generator whose streams are fixed by the seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in (0, 1).
    fn uniform(&mut self) -> f64 {
        ((self.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// A planted set: mean, spread, and whether its noise is skewed, or whether it is a win (1)
/// with probability `mean`, else 0 (`sd` unused).
#[derive(Clone, Copy, Debug)]
pub struct Truth {
    pub mean: f64,
    pub sd: f64,
    pub skewed: bool,
    pub binary: bool,
}

/// One planted group: its sets and the correlation of the shared latent.
#[derive(Clone, Debug)]
pub struct Planted {
    pub sets: Vec<Truth>,
    pub rho: f64,
}

impl Planted {
    /// One seed's values, every set.
    fn draw(&self, rng: &mut Rng, out: &mut [f64]) {
        let shared = rng.normal();
        for (x, t) in out.iter_mut().zip(&self.sets) {
            let own = if t.skewed { -rng.uniform().ln() - 1.0 } else { rng.normal() };
            let mixed = self.rho.sqrt() * shared + (1.0 - self.rho).sqrt() * own;
            *x = match t.binary {
                // The mix is standard normal: a win below the `mean` quantile.
                true => f64::from(u8::from(super::normal::cdf(mixed) < t.mean)),
                false => t.mean + t.sd * mixed,
            };
        }
    }

    /// The true difference `i − j` (the latent and the noise have mean 0).
    fn diff(&self, i: usize, j: usize) -> f64 {
        self.sets[i].mean - self.sets[j].mean
    }
}

/// What one replication of a plan found.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    /// Every interval held its truth.
    pub covered: bool,
    /// Some decision was wrong.
    pub wrong: bool,
    /// Episodes played.
    pub episodes: u64,
}

/// Plays every group of `plan` (planted by `truths`, one per group) through its checkpoints
/// with stream `seed`, and checks every final interval and decision against the truths.
pub fn replicate(plan: &StopPlan, truths: &[Planted], seed: u64) -> (Tally, Vec<GroupState>) {
    let mut rng = Rng::new(seed);
    let mut tally = Tally { covered: true, ..Tally::default() };
    let mut states = Vec::new();
    for (g, planted) in truths.iter().enumerate() {
        let state = play(plan, g, planted, &mut rng);
        check(plan, &state, planted, &mut tally);
        tally.episodes += state.played.iter().sum::<u64>();
        states.push(state);
    }
    (tally, states)
}

/// One group, checkpoint by checkpoint, only its playing sets counting each seed.
pub fn play(plan: &StopPlan, g: usize, planted: &Planted, rng: &mut Rng) -> GroupState {
    play_with(plan, g, planted, rng, &mut |_| {})
}

/// [`play`], returning every fold's record.
pub fn play_logged(plan: &StopPlan, g: usize, planted: &Planted, rng: &mut Rng) -> Vec<FoldRecord> {
    let mut records = Vec::new();
    play_with(plan, g, planted, rng, &mut |r| records.push(r));
    records
}

fn play_with(
    plan: &StopPlan,
    g: usize,
    planted: &Planted,
    rng: &mut Rng,
    log: &mut dyn FnMut(FoldRecord),
) -> GroupState {
    let n = planted.sets.len();
    let mut state = GroupState::new(plan, g);
    let mut sets = vec![Moments::default(); n];
    let mut pairs: Vec<PairMoments> =
        (0..n).flat_map(|a| (a + 1..n).map(move |b| PairMoments { a, b, moments: Moments::default() })).collect();
    let mut values = vec![0.0; n];
    let mut seed = 0u64;
    for (k, &end) in plan.checkpoints.iter().enumerate() {
        while seed < end {
            planted.draw(rng, &mut values);
            for i in (0..n).filter(|&i| state.playing[i]) {
                sets[i].add(values[i], seed);
            }
            for p in pairs.iter_mut().filter(|p| state.playing[p.a] && state.playing[p.b]) {
                p.moments.add(values[p.a] - values[p.b], seed);
            }
            seed += 1;
        }
        log(state.fold(plan, k, &sets, &pairs).expect("folds in order with every seed counted"));
        if state.done() {
            break;
        }
    }
    state
}

/// Whether every interval of `state` holds its truth and every decision is right.
fn check(plan: &StopPlan, state: &GroupState, planted: &Planted, tally: &mut Tally) {
    let m = plan.config.margin;
    let shape = &plan.groups[state.group];
    let top = planted.sets.iter().map(|t| t.mean).fold(f64::NEG_INFINITY, f64::max);
    for (i, outcomes) in state.outcomes.iter().enumerate() {
        for o in outcomes {
            let truth = match o.question {
                Question::Precision => Some(planted.sets[i].mean),
                Question::Baseline => shape.baseline.map(|b| planted.diff(i, b)),
                Question::Best => None,
            };
            if let (Some(t), Some(iv)) = (truth, o.interval) {
                tally.covered &= iv.contains(t);
            }
            let gap = top - planted.sets[i].mean;
            tally.wrong |= match o.decision {
                Decision::Better => truth.is_some_and(|d| d <= m),
                Decision::Worse => truth.is_some_and(|d| d >= -m),
                Decision::Equivalent => truth.is_some_and(|d| d.abs() >= m),
                Decision::NotBest => gap == 0.0,
                Decision::Best => gap > 0.0 && gap >= m,
                _ => false,
            };
        }
    }
    for &(a, b, iv) in &state.race {
        tally.covered &= iv.contains(planted.diff(a, b));
    }
}
