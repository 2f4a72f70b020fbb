//! Playing a stopping sweep block by block: the jobs of every open group's next block (its
//! playing sets, the seeds up to its next checkpoint), and their results counted into each
//! group's moments in job order, then folded. Which jobs exist and every decision are a
//! function of the sweep file and the results, whatever plays them and in which order.

use std::collections::BTreeMap;

use simfleet::aggregate::{differences, CellAggregate, Moments, SeedValue};
use simfleet::protocol::{Collect, Job, SeedRange, PROTOCOL_VERSION};
use simfleet::{GameKind, JobResult};

use super::interval::binary_moments;
use super::log::StopLog;
use super::state::PairMoments;
use super::{GroupState, Metric, StopPlan};
use crate::records::cells::CellRow;
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
    /// The jobs of this round: index -> (group, the sets it plays).
    round: BTreeMap<u64, (usize, Vec<usize>)>,
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
        Some(Stopping { plan, states, log: StopLog::default(), cells, accs, round: BTreeMap::new() })
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
            self.accs[g].played = !(state.done() || self.accs[g].failed);
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
                    let mut job = Job {
                        protocol_version: PROTOCOL_VERSION,
                        sweep: sweep.id.clone(),
                        index,
                        game: first.game.as_str().into(),
                        scenario: first.scenario.clone(),
                        policy_set: first.policy_set.clone(),
                        seeds: SeedRange { start: sweep.seeds.start + start, count },
                        replay: false,
                        collect: first.collect,
                        paired: sets[1..].iter().map(|&s| sweep.cells[shape.cells[s]].policy_set.clone()).collect(),
                    };
                    job.protocol_version = job.required_version();
                    self.round.insert(index, (g, sets.clone()));
                    index += 1;
                    jobs.push(job);
                    start += count;
                }
            }
        }
        jobs
    }

    /// Counts a result of this round; results come in job order.
    pub fn accept(&mut self, r: &JobResult) -> anyhow::Result<()> {
        let Some((g, sets)) = self.round.get(&r.index).cloned() else {
            anyhow::bail!("job {} is not a job of this block", r.index);
        };
        let metric = self.plan.config.metric;
        let shape = &self.plan.groups[g];
        let acc = &mut self.accs[g];
        if r.error.is_some() {
            acc.failed = true;
            return Ok(());
        }
        for &s in &sets {
            let cell = &mut self.cells[shape.cells[s]];
            cell.jobs += 1;
            cell.core_seconds += r.elapsed_seconds / sets.len() as f64;
            cell.engine_version.clone_from(&r.engine_version);
        }
        if !acc.summary {
            let s = sets[0];
            let mut part = Moments::default();
            for rec in &r.records {
                let win = acc.win.is_some_and(|w| rec.outcome == w);
                let value = match metric {
                    Metric::TeamReward => rec.team_reward,
                    Metric::Win => f64::from(u8::from(win)),
                };
                part.add(value, rec.seed);
                acc.block[s].push(SeedValue { seed: rec.seed, team_reward: rec.team_reward, win });
            }
            acc.sets[s].merge(&part);
            self.cells[shape.cells[s]].episodes += r.records.len() as u64;
            return Ok(());
        }
        let Some(first) = &r.summary else { anyhow::bail!("summary job {} came back without its summary", r.index) };
        let paired = r.paired.as_deref();
        let aggregates =
            std::iter::once(&**first).chain(paired.into_iter().flat_map(|p| p.cells.iter().map(|c| &c.summary)));
        for (&s, aggregate) in sets.iter().zip(aggregates) {
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
        for d in paired.iter().flat_map(|p| &p.differences) {
            let (a, b) = (sets[d.a as usize], sets[d.b as usize]);
            let value = match metric {
                Metric::TeamReward => Some(&d.team_reward),
                Metric::Win => d.win.as_ref(),
            };
            if let Some(v) = value {
                acc.pair(a, b).merge(v);
            }
        }
        Ok(())
    }

    /// Folds the checkpoint of every group that played this round, in group order.
    pub fn fold_round(&mut self) -> anyhow::Result<()> {
        for (g, acc) in self.accs.iter_mut().enumerate() {
            if !acc.played || acc.failed {
                continue;
            }
            let state = &mut self.states[g];
            if !acc.summary {
                let open: Vec<usize> = (0..state.playing.len()).filter(|&s| state.playing[s]).collect();
                let values: Vec<Vec<SeedValue>> = open.iter().map(|&s| std::mem::take(&mut acc.block[s])).collect();
                for d in differences(&values, acc.win.is_some()) {
                    let value = match self.plan.config.metric {
                        Metric::TeamReward => Some(d.team_reward),
                        Metric::Win => d.win,
                    };
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
            rows.push(CellRow::new(
                &sweep.id,
                c.game.as_str(),
                &play.engine_version,
                &c.scenario,
                &c.policy_set.name,
                play.jobs,
                a.clone(),
            ));
        }
        rows
    }
}
