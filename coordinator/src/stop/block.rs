//! Playing a stopping sweep block by block: the jobs of every open group's next block (its
//! playing sets, the seeds up to its next checkpoint), and their results counted into each
//! group's moments in job order, then folded. Which jobs exist and every decision are a
//! function of the sweep file and the results, whatever plays them and in which order.

use std::collections::BTreeMap;

use simfleet::aggregate::{differences, CellAggregate, Moments, SeedValue};
use simfleet::protocol::{Collect, Job, SeedRange};
use simfleet::{GameKind, JobResult};

use super::interval::binary_moments;
use super::log::StopLog;
use super::state::PairMoments;
use super::{GroupState, Metric, StopPlan};
use crate::records::summary_file::{merge_differences, CellDifference, CellRow};
use crate::sweep::Sweep;

/// The fewest jobs a block of one set (records) or of one group (summary) is cut into, when it
/// has the seeds: a constant, so the jobs are a function of the sweep file.
const SPLIT: u64 = 8;

/// One group's counts over the seeds folded so far.
struct Acc {
    /// Each set's metric.
    sets: Vec<Moments>,
    /// Each pair's difference, over the seeds both played.
    pairs: Vec<PairMoments>,
    /// Records mode: this block's values of each set, in seed order (pairs are counted from
    /// them at the fold).
    block: Vec<Vec<SeedValue>>,
    /// Whether its cells collect summaries (one job plays every playing set).
    summary: bool,
    /// The game's win outcome.
    win: Option<&'static str>,
    /// Whether it played in this round.
    played: bool,
    /// Whether a job of it failed (it stops; its open questions stay open).
    failed: bool,
}

impl Acc {
    fn pair(&mut self, a: usize, b: usize) -> &mut Moments {
        let at = match self.pairs.iter().position(|p| (p.a, p.b) == (a, b)) {
            Some(at) => at,
            None => {
                self.pairs.push(PairMoments { a, b, moments: Moments::default() });
                self.pairs.len() - 1
            }
        };
        &mut self.pairs[at].moments
    }
}

/// What one cell played.
#[derive(Clone, Debug, Default)]
pub struct CellPlay {
    /// Summary mode: its aggregate, merged in job order.
    pub aggregate: Option<CellAggregate>,
    /// Jobs it played in.
    pub jobs: u64,
    /// Episodes it played.
    pub episodes: u64,
    /// Its share of its jobs' measured seconds (a job plays on one core).
    pub core_seconds: f64,
    /// The engine version of its results.
    pub engine_version: String,
    /// Summary mode: its paired differences from the sets it played with, merged in job order
    /// (what `compare` reads of a summary file).
    pub paired: Vec<CellDifference>,
}

/// A stopping sweep being played.
pub struct Stopping {
    /// The plan.
    pub plan: StopPlan,
    /// Each group's state.
    pub states: Vec<GroupState>,
    /// Every look made; a resumed run's looks are checked against it ([`Stopping::resume`]).
    pub log: StopLog,
    /// Per sweep cell.
    pub cells: Vec<CellPlay>,
    accs: Vec<Acc>,
    /// The jobs of this round: index -> (group, the sets it plays, its seeds).
    round: BTreeMap<u64, (usize, Vec<usize>, u64)>,
    /// What the folds need of this round's results, by job index.
    pending: BTreeMap<u64, Part>,
}

/// What the folds need of one result.
struct Part {
    g: usize,
    sets: Vec<usize>,
    seconds: f64,
    engine_version: String,
    kind: PartKind,
}

enum PartKind {
    /// The job failed: its group stops, its open questions stay open.
    Failed,
    /// One set's records: the metric's moments and each seed's values (for the pairs).
    Records { moments: Moments, values: Vec<SeedValue> },
    /// A summary job: each set's aggregate in the job's order, and the pairs' differences.
    Summary { aggregates: Vec<CellAggregate>, differences: Vec<simfleet::aggregate::Difference> },
}

impl Stopping {
    /// A run of `sweep`, which has a `[stop]` table.
    pub fn new(sweep: &Sweep) -> Option<Stopping> {
        let plan = sweep.stop_plan()?;
        let states = (0..plan.groups.len()).map(|g| GroupState::new(&plan, g)).collect();
        let accs = plan
            .groups
            .iter()
            .map(|g| Acc {
                sets: vec![Moments::default(); g.sets.len()],
                pairs: Vec::new(),
                block: vec![Vec::new(); g.sets.len()],
                summary: sweep.cells[g.cells[0]].collect == Collect::Summary,
                win: g.game.parse::<GameKind>().ok().and_then(|k| k.info().win_outcome),
                played: false,
                failed: false,
            })
            .collect();
        let cells = vec![CellPlay::default(); sweep.cells.len()];
        let (round, pending) = (BTreeMap::new(), BTreeMap::new());
        Some(Stopping { plan, states, log: StopLog::default(), cells, accs, round, pending })
    }

    /// A run of `sweep` that replays its results against `log`, the decisions of an earlier
    /// run of it: a fold the log has must be the logged one.
    pub fn resume(sweep: &Sweep, log: StopLog) -> Option<Stopping> {
        Some(Stopping { log, ..Stopping::new(sweep)? })
    }

    /// Seeds per job of a block `lo..hi` of group `g` played by `sets` sets at once (summary) or
    /// by set `set` alone (records): the cell's job size, or less so that a block is at least
    /// [`SPLIT`] jobs (the last blocks, of the few groups still open, then keep every core busy).
    fn per_job(&self, sweep: &Sweep, g: usize, set: usize, sets: usize, (lo, hi): (u64, u64)) -> u64 {
        let cell = &sweep.cells[self.plan.groups[g].cells[set]];
        cell.episodes_per_job.div_ceil(sets as u64).min((hi - lo).div_ceil(SPLIT)).max(1)
    }

    /// The seeds of block `k`.
    fn block(&self, k: usize) -> (u64, u64) {
        (if k == 0 { 0 } else { self.plan.checkpoints[k - 1] }, self.plan.checkpoints[k])
    }

    /// The most jobs block `k` of group `g` can have (every set playing).
    fn most_jobs(&self, sweep: &Sweep, g: usize, k: usize) -> u64 {
        let (lo, hi) = self.block(k);
        let n = self.plan.groups[g].sets.len();
        match self.accs[g].summary {
            true => (hi - lo).div_ceil(self.per_job(sweep, g, 0, n, (lo, hi))),
            false => (0..n).map(|s| (hi - lo).div_ceil(self.per_job(sweep, g, s, 1, (lo, hi)))).sum(),
        }
    }

    /// The first job index of block `k` of group `g`: blocks are numbered checkpoint by
    /// checkpoint, group by group, each with room for all its sets, so a job's index depends on
    /// the sweep file alone, not on when other groups stopped.
    fn first_index(&self, sweep: &Sweep, g: usize, k: usize) -> u64 {
        let groups = self.plan.groups.len();
        let earlier: u64 =
            (0..k).flat_map(|k| (0..groups).map(move |g| (g, k))).map(|(g, k)| self.most_jobs(sweep, g, k)).sum();
        earlier + (0..g).map(|g| self.most_jobs(sweep, g, k)).sum::<u64>()
    }

    /// The jobs of every open group's next block, in job index order; empty when every group is
    /// done.
    pub fn round_jobs(&mut self, sweep: &Sweep) -> Vec<Job> {
        self.round.clear();
        let mut jobs = Vec::new();
        for g in 0..self.states.len() {
            let state = &self.states[g];
            let past_the_cap = state.looks >= self.plan.checkpoints.len();
            self.accs[g].played = !(state.done() || self.accs[g].failed || past_the_cap);
            if !self.accs[g].played {
                continue;
            }
            let k = state.looks;
            let (lo, hi) = self.block(k);
            let open: Vec<usize> = (0..state.playing.len()).filter(|&s| state.playing[s]).collect();
            let shape = &self.plan.groups[g];
            let mut index = self.first_index(sweep, g, k);
            // A summary job plays every open set on its seeds; a records job one set, each
            // set's jobs at its place in the block whether the sets before it play or not.
            let plays: Vec<(u64, Vec<usize>)> = match self.accs[g].summary {
                true => vec![(index, open)],
                false => (0..shape.sets.len())
                    .map(|s| {
                        let at = index;
                        index += (hi - lo).div_ceil(self.per_job(sweep, g, s, 1, (lo, hi)));
                        (at, vec![s])
                    })
                    .filter(|(_, sets)| state.playing[sets[0]])
                    .collect(),
            };
            for (mut index, sets) in plays {
                let first = &sweep.cells[shape.cells[sets[0]]];
                let per = match self.accs[g].summary {
                    true => self.per_job(sweep, g, 0, sets.len(), (lo, hi)),
                    false => self.per_job(sweep, g, sets[0], 1, (lo, hi)),
                };
                let mut start = lo;
                while start < hi {
                    let count = per.min(hi - start);
                    let seeds = SeedRange { start: sweep.seeds.start + start, count };
                    let paired = sets[1..].iter().map(|&s| sweep.cells[shape.cells[s]].policy_set.clone()).collect();
                    let job = sweep.job_at(index, first, seeds, paired);
                    self.round.insert(index, (g, sets.clone(), count));
                    index += 1;
                    jobs.push(job);
                    start += count;
                }
            }
        }
        jobs
    }

    /// The sweep cell of job `index` of this round (its first set's).
    pub fn cell_of_job(&self, index: u64) -> Option<usize> {
        let (g, sets, _) = self.round.get(&index)?;
        Some(self.plan.groups[*g].cells[sets[0]])
    }

    /// The episodes job `index` of this round plays (every set it plays, on its seeds).
    pub fn episodes_of_job(&self, index: u64) -> u64 {
        self.round.get(&index).map_or(0, |(_, sets, seeds)| seeds * sets.len() as u64)
    }

    /// The most episodes the sweep can play in all: those played, and every playing set of every
    /// open group up to the cap. It only shrinks as the folds decide.
    pub fn episodes_possible(&self) -> u64 {
        let cap = self.plan.cap;
        let mut possible = 0;
        for (state, acc) in self.states.iter().zip(&self.accs) {
            let open = !(state.done() || acc.failed || state.looks >= self.plan.checkpoints.len());
            for (s, &played) in state.played.iter().enumerate() {
                possible += played + if open && state.playing[s] { cap.saturating_sub(played) } else { 0 };
            }
        }
        possible
    }

    /// Takes a result of this round, in any order: what the folds need of it is kept until
    /// [`Stopping::fold_round`] counts every result of the round in job order (floating-point
    /// merges are not associative; the order makes the digits, and so the decisions, the same
    /// whatever order a fleet returns them in).
    pub fn accept_result(&mut self, r: &JobResult) -> anyhow::Result<()> {
        let Some((g, sets, _)) = self.round.get(&r.index).cloned() else {
            anyhow::bail!("job {} is not a job of this block", r.index);
        };
        let acc = &self.accs[g];
        let metric = self.plan.config.metric;
        let kind = if r.error.is_some() {
            PartKind::Failed
        } else if !acc.summary {
            let mut moments = Moments::default();
            let mut values = Vec::with_capacity(r.records.len());
            for rec in &r.records {
                let win = acc.win.is_some_and(|w| rec.outcome == w);
                moments.add(if metric == Metric::Win { f64::from(u8::from(win)) } else { rec.team_reward }, rec.seed);
                values.push(SeedValue { seed: rec.seed, team_reward: rec.team_reward, win });
            }
            PartKind::Records { moments, values }
        } else {
            let Some(first) = &r.summary else {
                anyhow::bail!("summary job {} came back without its summary", r.index)
            };
            let paired = r.paired.as_deref();
            let mut aggregates = vec![(**first).clone()];
            aggregates.extend(paired.into_iter().flat_map(|p| p.cells.iter().map(|c| c.summary.clone())));
            PartKind::Summary { aggregates, differences: paired.map(|p| p.differences.clone()).unwrap_or_default() }
        };
        let part = Part { g, sets, seconds: r.elapsed_seconds, engine_version: r.engine_version.clone(), kind };
        self.pending.insert(r.index, part);
        Ok(())
    }

    /// Counts one result's part into its group and cells.
    fn count(&mut self, part: Part) -> anyhow::Result<()> {
        let Part { g, sets, seconds, engine_version, kind } = part;
        let metric = self.plan.config.metric;
        let shape = &self.plan.groups[g];
        let acc = &mut self.accs[g];
        if let PartKind::Failed = kind {
            acc.failed = true;
            return Ok(());
        }
        for &s in &sets {
            let cell = &mut self.cells[shape.cells[s]];
            cell.jobs += 1;
            cell.core_seconds += seconds / sets.len() as f64;
            cell.engine_version.clone_from(&engine_version);
        }
        match kind {
            PartKind::Failed => {}
            PartKind::Records { moments, values } => {
                let s = sets[0];
                acc.sets[s].merge(&moments);
                self.cells[shape.cells[s]].episodes += values.len() as u64;
                acc.block[s].extend(values);
            }
            PartKind::Summary { aggregates, differences } => {
                for (&s, aggregate) in sets.iter().zip(&aggregates) {
                    let value = match metric {
                        Metric::TeamReward => aggregate.team_reward.clone(),
                        Metric::Win => binary_moments(acc.win.map_or(0, |w| aggregate.outcome(w)), aggregate.episodes),
                    };
                    acc.sets[s].merge(&value);
                    let cell = &mut self.cells[shape.cells[s]];
                    cell.episodes += aggregate.episodes;
                    match &mut cell.aggregate {
                        Some(a) => a.merge(aggregate)?,
                        None => cell.aggregate = Some(aggregate.clone()),
                    }
                }
                for d in &differences {
                    let value = if metric == Metric::Win { d.win.as_ref() } else { Some(&d.team_reward) };
                    if let Some(v) = value {
                        acc.pair(sets[d.a as usize], sets[d.b as usize]).merge(v);
                    }
                    let (a, b) = (sets[d.a as usize], sets[d.b as usize]);
                    let (team_reward, win) = (d.team_reward.clone(), d.win.clone());
                    let difference = CellDifference { against: shape.sets[b].clone(), team_reward, win };
                    merge_differences(&mut self.cells[shape.cells[a]].paired, &[difference]);
                }
            }
        }
        Ok(())
    }

    /// Counts this round's results in job order, then folds the checkpoint of every group that
    /// played it, in group order. Every job of the round must have its result.
    pub fn fold_round(&mut self) -> anyhow::Result<()> {
        if let Some(missing) = self.round.keys().find(|i| !self.pending.contains_key(i)) {
            anyhow::bail!("job {missing} of this block has no result: a checkpoint counts every seed below it");
        }
        for (_, part) in std::mem::take(&mut self.pending) {
            self.count(part)?;
        }
        for (g, acc) in self.accs.iter_mut().enumerate() {
            if !acc.played || acc.failed {
                continue;
            }
            let state = &mut self.states[g];
            if !acc.summary {
                let open: Vec<usize> = (0..state.playing.len()).filter(|&s| state.playing[s]).collect();
                let values: Vec<Vec<SeedValue>> = open.iter().map(|&s| std::mem::take(&mut acc.block[s])).collect();
                for d in differences(&values, acc.win.is_some()) {
                    let value = if self.plan.config.metric == Metric::Win { d.win } else { Some(d.team_reward) };
                    if let Some(v) = value {
                        acc.pair(open[d.a as usize], open[d.b as usize]).merge(&v);
                    }
                }
            }
            let k = state.looks;
            let fold = state.fold(&self.plan, k, &acc.sets, &acc.pairs)?;
            self.log.check_or_append(&fold)?;
        }
        Ok(())
    }

    /// The rows of the summary cells, in cell order, as a summary file has them.
    pub fn rows(&self, sweep: &Sweep) -> Vec<CellRow> {
        let mut rows = Vec::new();
        for (c, play) in sweep.cells.iter().zip(&self.cells) {
            let Some(a) = play.aggregate.as_ref().filter(|a| a.episodes > 0) else { continue };
            let row = CellRow::new(
                &sweep.id,
                c.game.as_str(),
                &play.engine_version,
                &c.scenario,
                &c.policy_set.name,
                play.jobs,
                a.clone(),
            );
            rows.push(row.with_paired(play.paired.clone()));
        }
        rows
    }
}
