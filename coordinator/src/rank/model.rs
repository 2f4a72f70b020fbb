//! The ranking model of one game: team reward = block effect + Σ over seats of the seated
//! policy's contribution + noise, fitted by ridge regression in closed form.
//!
//! * Blocks are (scenario, seed) when teams share seeds (every team of a ranking plays the same
//!   seeds, so the seed's fires cancel out of the comparison), else scenarios: either way the
//!   scenario fixed effects are in the model. They are removed by demeaning within blocks
//!   (Frisch–Waugh–Lovell), so the normal equations are P × P for P policies.
//! * Ridge prior: contributions ~ N(0, σ²/λ), block effects flat. Teams of a scenario all have
//!   the same size, so adding c to every contribution is not identified (the block effects
//!   absorb it); the reported contributions are therefore centred (they sum to zero): each is
//!   the change in team reward from one seat of this policy instead of the roster's average.
//! * 95% interval: ±1.96 posterior standard deviations, σ² from the residuals with the ridge's
//!   effective degrees of freedom.
//!
//! Rows are accumulated one at a time into per-team and per-block sums, so memory grows with
//! teams and blocks, never with episodes. A cell aggregate (a summary file's row) adds its
//! count, sum and squared deviations at once; it has no seeds, so a model with any aggregate
//! uses scenario blocks and says that seed blocks were not available.

use std::collections::HashMap;

use simfleet::aggregate::Moments;

use super::solver::{cholesky, inverse, solve};

/// Sums over the episodes of one team.
#[derive(Clone, Debug, Default)]
struct TeamSums {
    /// (policy, seats) of the team.
    counts: Vec<(usize, f64)>,
    n: f64,
    sy: f64,
}

/// Sums over the episodes of one block.
#[derive(Clone, Debug, Default)]
struct BlockSums {
    n: f64,
    sy: f64,
    /// Σ seats per policy (grows as policies appear).
    sx: Vec<f64>,
}

impl BlockSums {
    fn add(&mut self, counts: &[(usize, f64)], y: f64) {
        self.n += 1.0;
        self.sy += y;
        for &(p, c) in counts {
            if self.sx.len() <= p {
                self.sx.resize(p + 1, 0.0);
            }
            self.sx[p] += c;
        }
    }

    /// Adds `n` episodes of one team whose rewards sum to `sum`.
    fn add_many(&mut self, counts: &[(usize, f64)], n: f64, sum: f64) {
        self.n += n;
        self.sy += sum;
        for &(p, c) in counts {
            if self.sx.len() <= p {
                self.sx.resize(p + 1, 0.0);
            }
            self.sx[p] += c * n;
        }
    }
}

/// One policy's line of the ranking.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyFit {
    /// The policy spec.
    pub policy: String,
    /// 1 = largest contribution.
    pub rank: usize,
    /// Centred contribution of one seat to team reward.
    pub contribution: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
    /// Mean team reward of episodes with this policy in the team.
    pub mean_with: f64,
    /// Mean team reward of episodes without it (NaN when it is in every team).
    pub mean_without: f64,
    /// Distinct teams it played in.
    pub teams: usize,
    /// Seats it filled, summed over episodes.
    pub appearances: u64,
}

impl PolicyFit {
    /// Marginal value: mean team reward with it minus without it.
    pub fn marginal(&self) -> f64 {
        self.mean_with - self.mean_without
    }
}

/// The fitted ranking of one game.
#[derive(Clone, Debug)]
pub struct Fit {
    /// Game id.
    pub game: String,
    /// Policies, best first.
    pub policies: Vec<PolicyFit>,
    /// Episodes used.
    pub episodes: u64,
    /// Teams seen.
    pub teams: usize,
    /// Scenarios seen.
    pub scenarios: usize,
    /// Fixed-effect blocks used, and whether they are (scenario, seed) rather than scenarios.
    pub blocks: usize,
    /// Whether blocks are (scenario, seed).
    pub seed_blocks: bool,
    /// Whether the episodes' seeds were known (false when cell aggregates were fitted).
    pub seeds_known: bool,
    /// Ridge λ.
    pub ridge: f64,
    /// Residual standard deviation of team reward.
    pub residual_sd: f64,
}

/// Accumulates the episodes of one game.
#[derive(Debug, Default)]
pub struct Model {
    policies: Vec<String>,
    policy_index: HashMap<String, usize>,
    teams: Vec<TeamSums>,
    team_index: HashMap<String, usize>,
    scenario_index: HashMap<String, u32>,
    scenarios: Vec<BlockSums>,
    blocks: Vec<BlockSums>,
    block_index: HashMap<(u32, u64), usize>,
    syy: f64,
    /// Whether a cell aggregate (no seeds) was added.
    aggregated: bool,
}

impl Model {
    /// Whether team `name` is known already (its members need not be looked up again).
    pub fn knows_team(&self, name: &str) -> bool {
        self.team_index.contains_key(name)
    }

    /// The index of team `name`, created with `members` the first time.
    fn team(&mut self, name: &str, members: Option<&[&str]>) -> usize {
        if let Some(&t) = self.team_index.get(name) {
            return t;
        }
        let mut counts: Vec<(usize, f64)> = Vec::new();
        for m in members.unwrap_or_default() {
            let p = match self.policy_index.get(*m) {
                Some(&p) => p,
                None => {
                    self.policies.push(m.to_string());
                    self.policy_index.insert(m.to_string(), self.policies.len() - 1);
                    self.policies.len() - 1
                }
            };
            match counts.iter_mut().find(|(q, _)| *q == p) {
                Some((_, c)) => *c += 1.0,
                None => counts.push((p, 1.0)),
            }
        }
        self.teams.push(TeamSums { counts, ..TeamSums::default() });
        self.team_index.insert(name.to_string(), self.teams.len() - 1);
        self.teams.len() - 1
    }

    /// The index of `scenario`.
    fn scenario(&mut self, scenario: &str) -> u32 {
        if let Some(&s) = self.scenario_index.get(scenario) {
            return s;
        }
        self.scenarios.push(BlockSums::default());
        self.scenario_index.insert(scenario.to_string(), self.scenarios.len() as u32 - 1);
        self.scenarios.len() as u32 - 1
    }

    /// Adds one episode of team `name` (whose seats hold `members`, needed only the first time
    /// the team is seen) in `scenario` on `seed`.
    pub fn add(&mut self, name: &str, members: Option<&[&str]>, scenario: &str, seed: u64, team_reward: f64) {
        let t = self.team(name, members);
        let s = self.scenario(scenario);
        let b = *self.block_index.entry((s, seed)).or_insert_with(|| {
            self.blocks.push(BlockSums::default());
            self.blocks.len() - 1
        });
        let team = &mut self.teams[t];
        team.n += 1.0;
        team.sy += team_reward;
        self.blocks[b].add(&team.counts, team_reward);
        self.scenarios[s as usize].add(&team.counts, team_reward);
        self.syy += team_reward * team_reward;
    }

    /// Adds the episodes of team `name` in `scenario` summarised by `reward` (a cell aggregate's
    /// team reward): their count, sum and sum of squares are all the fit needs of them, but
    /// their seeds are unknown, so the model is blocked on scenarios.
    pub fn add_aggregate(&mut self, name: &str, members: Option<&[&str]>, scenario: &str, reward: &Moments) {
        if reward.count == 0 {
            return;
        }
        let t = self.team(name, members);
        let s = self.scenario(scenario);
        let (n, sum) = (reward.count as f64, reward.sum());
        let team = &mut self.teams[t];
        team.n += n;
        team.sy += sum;
        self.scenarios[s as usize].add_many(&team.counts, n, sum);
        self.syy += reward.m2 + n * reward.mean * reward.mean;
        self.aggregated = true;
    }

    /// Fits the model with ridge `lambda`; `None` with fewer than two policies or no episodes.
    pub fn fit(&self, game: &str, lambda: f64) -> Option<Fit> {
        let p = self.policies.len();
        let n: f64 = self.teams.iter().map(|t| t.n).sum();
        if p < 2 || n < 2.0 {
            return None;
        }
        // Pair on seeds when teams share them: on average at least two episodes per block.
        let seed_blocks = !self.aggregated && n >= 2.0 * self.blocks.len() as f64;
        let blocks = if seed_blocks { &self.blocks } else { &self.scenarios };
        let (xtx, xty, yty) = self.normal_equations(blocks);
        let mut a = xtx.clone();
        for i in 0..p {
            a[i * p + i] += lambda;
        }
        let l = cholesky(&a, p)?;
        let beta = solve(&l, p, &xty);
        let inv = inverse(&l, p);
        // Residual sum of squares of the demeaned model, and the ridge's effective parameters.
        let quad: f64 = (0..p).map(|i| (0..p).map(|j| beta[i] * xtx[i * p + j] * beta[j]).sum::<f64>()).sum();
        let cross: f64 = beta.iter().zip(&xty).map(|(b, c)| b * c).sum();
        let rss = (yty - 2.0 * cross + quad).max(0.0);
        let edf: f64 = (0..p).map(|i| (0..p).map(|k| xtx[i * p + k] * inv[k * p + i]).sum::<f64>()).sum();
        let df = (n - blocks.len() as f64 - edf).max(1.0);
        let sigma2 = rss / df;
        // Centre: c = C·β with C = I − 11ᵀ/p; Cov(c) = σ²·C·A⁻¹·C.
        let mean_beta = beta.iter().sum::<f64>() / p as f64;
        let row_mean: Vec<f64> = (0..p).map(|i| (0..p).map(|j| inv[i * p + j]).sum::<f64>() / p as f64).collect();
        let grand = row_mean.iter().sum::<f64>() / p as f64;
        let total_sy: f64 = self.teams.iter().map(|t| t.sy).sum();
        let mut policies: Vec<PolicyFit> = (0..p)
            .map(|i| {
                let var = sigma2 * (inv[i * p + i] - 2.0 * row_mean[i] + grand).max(0.0);
                let half = 1.96 * var.sqrt();
                let c = beta[i] - mean_beta;
                let with = self.teams.iter().filter(|t| t.counts.iter().any(|(q, _)| *q == i));
                let (wn, wsy, teams, seats) = with.fold((0.0, 0.0, 0, 0.0), |acc, t| {
                    let c = t.counts.iter().find(|(q, _)| *q == i).map_or(0.0, |(_, c)| *c);
                    (acc.0 + t.n, acc.1 + t.sy, acc.2 + 1, acc.3 + c * t.n)
                });
                PolicyFit {
                    policy: self.policies[i].clone(),
                    rank: 0,
                    contribution: c,
                    low: c - half,
                    high: c + half,
                    mean_with: wsy / wn,
                    mean_without: if n > wn { (total_sy - wsy) / (n - wn) } else { f64::NAN },
                    teams,
                    appearances: seats as u64,
                }
            })
            .collect();
        policies.sort_by(|a, b| b.contribution.total_cmp(&a.contribution).then_with(|| a.policy.cmp(&b.policy)));
        for (r, pf) in policies.iter_mut().enumerate() {
            pf.rank = r + 1;
        }
        Some(Fit {
            game: game.to_string(),
            policies,
            episodes: n as u64,
            teams: self.teams.len(),
            scenarios: self.scenarios.len(),
            blocks: blocks.len(),
            seed_blocks,
            seeds_known: !self.aggregated,
            ridge: lambda,
            residual_sd: sigma2.sqrt(),
        })
    }

    /// The normal equations of the additive model within `blocks` (each block's means taken
    /// out): XᵀX, Xᵀy and yᵀy of the teams' seat counts and rewards.
    fn normal_equations(&self, blocks: &[BlockSums]) -> (Vec<f64>, Vec<f64>, f64) {
        let p = self.policies.len();
        let mut xtx = vec![0.0; p * p];
        let mut xty = vec![0.0; p];
        for t in &self.teams {
            for &(a, ca) in &t.counts {
                xty[a] += ca * t.sy;
                for &(b, cb) in &t.counts {
                    xtx[a * p + b] += t.n * ca * cb;
                }
            }
        }
        let mut yty = self.syy;
        for b in blocks.iter().filter(|b| b.n > 0.0) {
            let sx = |i: usize| b.sx.get(i).copied().unwrap_or(0.0);
            for i in 0..p {
                xty[i] -= sx(i) * b.sy / b.n;
                for j in 0..p {
                    xtx[i * p + j] -= sx(i) * sx(j) / b.n;
                }
            }
            yty -= b.sy * b.sy / b.n;
        }
        (xtx, xty, yty)
    }
}
