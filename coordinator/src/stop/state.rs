//! A stopping group's state between looks, and the fold that moves it through one checkpoint:
//! a pure function of the plan and of the moments of the seeds below the checkpoint, so a
//! group's decisions are the same on any machine, thread count or fleet, and can be logged
//! ([`FoldRecord`]) and checked when a run resumes.

use serde::{Deserialize, Serialize};
use simfleet::aggregate::Moments;

use super::{Decision, Interval, Outcome, Question, StopPlan};

/// The moments of the per-seed difference `a − b` between two sets of a group (`a < b`, their
/// positions in the group), over the seeds both played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairMoments {
    /// The first set.
    pub a: usize,
    /// The second set.
    pub b: usize,
    /// The moments of `a − b`.
    pub moments: Moments,
}

/// The difference `i − j` from the pairs, when they hold it either way round.
pub fn difference(pairs: &[PairMoments], i: usize, j: usize) -> Option<Moments> {
    if let Some(p) = pairs.iter().find(|p| p.a == i && p.b == j) {
        return Some(p.moments.clone());
    }
    let p = pairs.iter().find(|p| p.a == j && p.b == i)?;
    let m = &p.moments;
    Some(Moments {
        count: m.count,
        mean: -m.mean,
        m2: m.m2,
        min: -m.max,
        min_seed: m.max_seed,
        max: -m.min,
        max_seed: m.min_seed,
    })
}

/// A fold that cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FoldError {
    /// Looks come in checkpoint order.
    #[error("group {group}: checkpoint {got} folded after {done} looks (looks come in order)")]
    OutOfOrder {
        /// The group.
        group: usize,
        /// The checkpoint given.
        got: usize,
        /// Looks already made.
        done: usize,
    },
    /// A set that plays on did not count the checkpoint's seeds.
    #[error("group {group}: {what} counted {count} seeds, not the checkpoint's {want}")]
    Count {
        /// The group.
        group: usize,
        /// Which moments.
        what: String,
        /// Their count.
        count: u64,
        /// The checkpoint's.
        want: u64,
    },
}

/// What one look decided: logged, and compared with a replay on resume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FoldRecord {
    /// The group.
    pub group: usize,
    /// The checkpoint's number.
    pub checkpoint: usize,
    /// Seeds below it.
    pub seeds: u64,
    /// FNV-1a of the counts, means and squared deviations folded: the same inputs, the same
    /// digest.
    pub digest: u64,
    /// The questions it settled: (set, outcome).
    pub decided: Vec<(usize, Outcome)>,
    /// Which sets play the next block.
    pub playing: Vec<bool>,
}

/// One group between looks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupState {
    /// The group's position in the plan.
    pub group: usize,
    /// Per set, its questions in [`Question`] order.
    pub outcomes: Vec<Vec<Outcome>>,
    /// Sets still in the race for best.
    pub in_race: Vec<bool>,
    /// Running intersections of the race's pairs `(a, b)`, `a < b`, of `a − b`.
    pub race: Vec<(usize, usize, Interval)>,
    /// Sets that play the next block.
    pub playing: Vec<bool>,
    /// Seeds each set has played.
    pub played: Vec<u64>,
    /// Looks made.
    pub looks: usize,
    /// The moments of the last look (the fixed design's estimates, [`super::savings`]).
    pub sets: Vec<Moments>,
    /// The pairs' moments of the last look.
    pub pairs: Vec<PairMoments>,
    /// Whether a running intersection came out empty (the normal approximation failed there).
    pub empty: bool,
}

impl GroupState {
    /// A group before its first block: every set plays.
    pub fn new(plan: &StopPlan, group: usize) -> GroupState {
        let shape = &plan.groups[group];
        let n = shape.sets.len();
        let open = |question| Outcome { question, decision: Decision::Open, interval: None, seeds: 0 };
        let outcomes = (0..n)
            .map(|i| {
                let mut qs = Vec::new();
                if plan.config.half_width.is_some() {
                    qs.push(open(Question::Precision));
                }
                if shape.baseline.is_some_and(|b| b != i) {
                    qs.push(open(Question::Baseline));
                }
                if plan.config.best {
                    qs.push(open(Question::Best));
                }
                qs
            })
            .collect();
        GroupState {
            group,
            outcomes,
            in_race: vec![plan.config.best; n],
            race: Vec::new(),
            playing: vec![true; n],
            played: vec![0; n],
            looks: 0,
            sets: vec![Moments::default(); n],
            pairs: Vec::new(),
            empty: false,
        }
    }

    /// Whether every set has stopped.
    pub fn done(&self) -> bool {
        !self.playing.iter().any(|p| *p)
    }

    /// Set `set`'s answer to `question`, when it is asked.
    pub fn outcome(&self, set: usize, question: Question) -> Option<&Outcome> {
        self.outcomes.get(set)?.iter().find(|o| o.question == question)
    }

    fn outcome_mut(&mut self, set: usize, question: Question) -> Option<&mut Outcome> {
        self.outcomes[set].iter_mut().find(|o| o.question == question && o.decision == Decision::Open)
    }

    /// Folds checkpoint `checkpoint`: `sets` are every set's moments of the metric over the
    /// seeds it played (below the checkpoint for those that play), `pairs` the differences
    /// over the seeds both sets of a pair played. Decides what can be, and says who plays on.
    pub fn fold(
        &mut self,
        plan: &StopPlan,
        checkpoint: usize,
        sets: &[Moments],
        pairs: &[PairMoments],
    ) -> Result<FoldRecord, FoldError> {
        if checkpoint != self.looks || checkpoint >= plan.checkpoints.len() {
            return Err(FoldError::OutOfOrder { group: self.group, got: checkpoint, done: self.looks });
        }
        let n = plan.checkpoints[checkpoint];
        let names = &plan.groups[self.group].sets;
        for (i, m) in sets.iter().enumerate() {
            if self.playing[i] && m.count != n {
                let what = format!("policy set {}", names[i]);
                return Err(FoldError::Count { group: self.group, what, count: m.count, want: n });
            }
        }
        for (i, playing) in self.playing.iter().enumerate() {
            if *playing {
                self.played[i] = n;
            }
        }
        self.sets = sets.to_vec();
        self.pairs = pairs.to_vec();
        let before = self.outcomes.clone();
        self.precision(plan, n);
        self.baseline(plan, n);
        self.best(plan, n);
        if checkpoint + 1 == plan.checkpoints.len() {
            for o in self.outcomes.iter_mut().flatten().filter(|o| o.decision == Decision::Open) {
                (o.decision, o.seeds) = (Decision::Capped, n);
            }
            // The race ends at the cap too: nobody plays on.
            self.in_race.iter_mut().for_each(|r| *r = false);
        }
        self.looks += 1;
        self.update_playing(plan);
        let decided = (0..self.outcomes.len())
            .flat_map(|i| {
                let was = &before[i];
                self.outcomes[i]
                    .iter()
                    .zip(was)
                    .filter(|(now, then)| now.decision != then.decision)
                    .map(move |(now, _)| (i, *now))
            })
            .collect();
        Ok(FoldRecord {
            group: self.group,
            checkpoint,
            seeds: n,
            digest: digest(sets, pairs),
            decided,
            playing: self.playing.clone(),
        })
    }

    /// `running ∩ new`, noting an empty intersection (then the new interval stands alone).
    fn narrow(&mut self, running: Option<Interval>, new: Interval) -> Interval {
        let Some(running) = running else { return new };
        let both = running.intersect(new);
        if both.is_empty() {
            self.empty = true;
            return new;
        }
        both
    }

    fn precision(&mut self, plan: &StopPlan, n: u64) {
        let Some(h) = plan.config.half_width else { return };
        for i in 0..self.outcomes.len() {
            let Some(o) = self.outcome_mut(i, Question::Precision).map(|o| *o) else { continue };
            let Some(iv) = Interval::of_mean(&self.sets[i], plan.z, plan.binary()) else { continue };
            let iv = self.narrow(o.interval, iv);
            let o = self.outcome_mut(i, Question::Precision).expect("open above");
            o.interval = Some(iv);
            if iv.half_width() <= h {
                (o.decision, o.seeds) = (Decision::Precise, n);
            }
        }
    }

    fn baseline(&mut self, plan: &StopPlan, n: u64) {
        let Some(b) = plan.groups[self.group].baseline else { return };
        let m = plan.config.margin;
        for i in 0..self.outcomes.len() {
            let Some(o) = self.outcome_mut(i, Question::Baseline).map(|o| *o) else { continue };
            let Some(d) = difference(&self.pairs, i, b) else { continue };
            let Some(iv) = Interval::of_mean(&d, plan.z, plan.binary()) else { continue };
            let iv = self.narrow(o.interval, iv);
            let o = self.outcome_mut(i, Question::Baseline).expect("open above");
            o.interval = Some(iv);
            let decision = if iv.low > m {
                Decision::Better
            } else if iv.high < -m {
                Decision::Worse
            } else if iv.low > -m && iv.high < m {
                Decision::Equivalent
            } else {
                continue;
            };
            (o.decision, o.seeds) = (decision, n);
        }
    }

    fn best(&mut self, plan: &StopPlan, n: u64) {
        if !plan.config.best {
            return;
        }
        let racing: Vec<usize> = (0..self.in_race.len()).filter(|&i| self.in_race[i]).collect();
        if racing.len() == 1 {
            let o = self.outcome_mut(racing[0], Question::Best).expect("a racing set is open");
            (o.decision, o.seeds) = (Decision::Best, n);
            self.in_race[racing[0]] = false;
            return;
        }
        // This look's interval of every racing pair, a − b.
        let mut look = Vec::new();
        for (x, &a) in racing.iter().enumerate() {
            for &b in &racing[x + 1..] {
                let Some(d) = difference(&self.pairs, a, b) else { continue };
                let Some(iv) = Interval::of_mean(&d, plan.z, plan.binary()) else { continue };
                let running = self.race.iter().find(|r| (r.0, r.1) == (a, b)).map(|r| r.2);
                let iv = self.narrow(running, iv);
                self.race.retain(|r| (r.0, r.1) != (a, b));
                self.race.push((a, b, iv));
                look.push((a, b, iv));
            }
        }
        // `i − j` at this look, from whichever way round the pair was kept.
        let between = |i: usize, j: usize| {
            look.iter().find_map(|&(a, b, iv)| match (a == i && b == j, a == j && b == i) {
                (true, _) => Some(iv),
                (_, true) => Some(Interval { low: -iv.high, high: -iv.low }),
                _ => None,
            })
        };
        // Every set some rival beats, all at once: the order of the sets does not matter.
        let mut beaten = Vec::new();
        for &j in &racing {
            let by = racing.iter().filter(|&&i| i != j).filter_map(|&i| between(j, i)).filter(|iv| iv.high < 0.0);
            if let Some(iv) = by.min_by(|x, y| x.high.total_cmp(&y.high)) {
                beaten.push((j, iv));
            }
        }
        for &(j, iv) in &beaten {
            let o = self.outcome_mut(j, Question::Best).expect("a racing set is open");
            (o.decision, o.interval, o.seeds) = (Decision::NotBest, Some(iv), n);
            self.in_race[j] = false;
        }
        let left: Vec<usize> = racing.iter().copied().filter(|&i| self.in_race[i]).collect();
        let m = plan.config.margin;
        let tied = left.iter().all(|&i| {
            left.iter().filter(|&&j| j != i).all(|&j| between(i, j).is_some_and(|iv| iv.low > -m && iv.high < m))
        });
        for &i in &left {
            // The interval against the closest rival of this look.
            let closest = racing
                .iter()
                .filter(|&&j| j != i)
                .filter_map(|&j| between(i, j))
                .min_by(|x, y| x.low.total_cmp(&y.low));
            let o = self.outcome_mut(i, Question::Best).expect("a racing set is open");
            o.interval = closest;
            if left.len() == 1 || tied && m > 0.0 {
                (o.decision, o.seeds) = (Decision::Best, n);
            }
        }
        if left.len() == 1 || tied && m > 0.0 {
            left.iter().for_each(|&i| self.in_race[i] = false);
        }
    }

    /// A set plays on while a question of its own is open, while it is the baseline of an open
    /// comparison, or while it races for best.
    fn update_playing(&mut self, plan: &StopPlan) {
        let baseline = plan.groups[self.group].baseline;
        let any_open_comparison = (0..self.outcomes.len())
            .any(|i| self.outcome(i, Question::Baseline).is_some_and(|o| o.decision == Decision::Open));
        for i in 0..self.outcomes.len() {
            let own = self.outcomes[i].iter().any(|o| o.decision == Decision::Open);
            self.playing[i] = self.playing[i] && (own || baseline == Some(i) && any_open_comparison || self.in_race[i]);
        }
    }
}

/// FNV-1a of what a fold read.
fn digest(sets: &[Moments], pairs: &[PairMoments]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |x: u64| {
        for byte in x.to_le_bytes() {
            h ^= u64::from(byte);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for m in sets.iter().chain(pairs.iter().map(|p| &p.moments)) {
        eat(m.count);
        eat(m.mean.to_bits());
        eat(m.m2.to_bits());
    }
    h
}
