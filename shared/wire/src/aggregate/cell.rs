//! [`CellAggregate`]: everything a summary, a report or a ranking needs of one sweep cell's
//! episodes, in a value whose size does not grow with the episodes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{AggregateError, Buckets, CellBuilder, Histogram, LlmCounts, Moments};
use crate::protocol::EpisodeRecord;

/// Episodes of one outcome label.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomeCount {
    /// The label.
    pub outcome: String,
    /// Episodes that ended with it.
    pub episodes: u64,
}

/// Bucket counts of the three per-episode figures the worker exports as histograms.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Histograms {
    /// Team reward (`simfleet_<game>_episode_team_reward`).
    pub team_reward: Histogram,
    /// Episode length (`simfleet_<game>_episode_length`).
    pub length: Histogram,
    /// Every seat's reward (`simfleet_<game>_agent_reward`, all seats together).
    pub agent_reward: Histogram,
}

/// The mergeable summary of a set of episodes of one cell (game, scenario, policy set).
///
/// Built from records with [`CellAggregate::add`], combined with [`CellAggregate::merge`]: the
/// aggregate of a whole equals the merge of the aggregates of its parts, counts exactly and
/// moments to rounding. Outcomes keep first-seen order, so merging in job order gives the same
/// order as adding the records one by one.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CellAggregate {
    /// Episodes counted.
    pub episodes: u64,
    /// Episodes per outcome label, in first-seen order.
    pub outcomes: Vec<OutcomeCount>,
    /// Episodes cut by a length limit.
    pub truncated: u64,
    /// Team reward.
    pub team_reward: Moments,
    /// Episode length.
    pub length: Moments,
    /// One per seat, in seat order.
    pub agent_rewards: Vec<Moments>,
    /// Each numeric top-level stat, by key (a stat that is not a number in an episode, e.g.
    /// `null`, is not counted for it).
    pub stats: BTreeMap<String, Moments>,
    /// Bucket counts, with the game's default buckets.
    pub histograms: Histograms,
    /// Episodes with `llm` seats.
    pub llm_episodes: u64,
    /// Their prompt + completion tokens, every seat.
    pub llm_tokens: u64,
    /// Their decisions, calls, fallbacks and failed calls. Not written when empty, so the
    /// aggregate of a cell without `llm` seats encodes as it did before the field existed.
    #[serde(default, skip_serializing_if = "LlmCounts::is_empty")]
    pub llm: LlmCounts,
}

/// The tokens of an episode's `llm` seats, from its `llm` stat (`{seat: {prompt_tokens,
/// completion_tokens, …}}`); `None` when it has no `llm` seat.
pub fn llm_tokens(llm: Option<&Value>) -> Option<u64> {
    let seats = llm?.as_object().filter(|m| !m.is_empty())?;
    let count = |s: &Value, k: &str| s.get(k).and_then(Value::as_u64).unwrap_or(0);
    Some(seats.values().map(|s| count(s, "prompt_tokens") + count(s, "completion_tokens")).sum())
}

impl CellAggregate {
    /// An empty aggregate with a game's histogram buckets `b`.
    pub fn new(b: &Buckets) -> CellAggregate {
        CellAggregate {
            histograms: Histograms {
                team_reward: Histogram::new(b.team_reward),
                length: Histogram::new(b.length),
                agent_reward: Histogram::new(b.agent_reward),
            },
            ..CellAggregate::default()
        }
    }

    /// The aggregate of `records`, in order, with a game's histogram buckets `b`.
    pub fn of_records<'a>(b: &Buckets, records: impl IntoIterator<Item = &'a EpisodeRecord>) -> CellAggregate {
        let mut a = CellBuilder::new(b);
        for r in records {
            a.add(r);
        }
        a.finish()
    }

    /// Counts one episode. ([`CellBuilder`] counts many for less.)
    pub fn add(&mut self, r: &EpisodeRecord) {
        self.add_figures(r);
        let stats = &mut self.stats;
        r.stats.for_each_number(|key, v| match stats.get_mut(key) {
            Some(m) => m.add(v, r.seed),
            None => {
                let mut m = Moments::default();
                m.add(v, r.seed);
                stats.insert(key.to_owned(), m);
            }
        });
    }

    /// Counts one episode's figures but its numeric stats.
    pub(super) fn add_figures(&mut self, r: &EpisodeRecord) {
        self.episodes += 1;
        match self.outcomes.iter_mut().find(|o| o.outcome == r.outcome) {
            Some(o) => o.episodes += 1,
            None => self.outcomes.push(OutcomeCount { outcome: r.outcome.clone(), episodes: 1 }),
        }
        self.truncated += u64::from(r.truncated);
        self.team_reward.add(r.team_reward, r.seed);
        self.length.add(f64::from(r.length), r.seed);
        self.histograms.team_reward.record(r.team_reward);
        self.histograms.length.record(f64::from(r.length));
        if self.agent_rewards.len() < r.agent_rewards.len() {
            self.agent_rewards.resize(r.agent_rewards.len(), Moments::default());
        }
        for (m, v) in self.agent_rewards.iter_mut().zip(&r.agent_rewards) {
            m.add(*v, r.seed);
            self.histograms.agent_reward.record(*v);
        }
        if let Some(t) = r.stats.llm_tokens() {
            self.llm_episodes += 1;
            self.llm_tokens += t;
            // Only episodes with a model seat build the map: each waited seconds on a model.
            if let Some(llm) = r.stats.as_map().get("llm") {
                self.llm.add_stat(llm);
            }
        }
    }

    /// Adds everything `other` counted. Merging the parts of a cell in job order gives the
    /// aggregate of the whole; histograms of other buckets are an error (and change nothing).
    pub fn merge(&mut self, other: &CellAggregate) -> Result<(), AggregateError> {
        let (mine, theirs) = (&mut self.histograms, &other.histograms);
        if mine.team_reward.counts.is_empty() {
            // An aggregate made by `default()`, without a game: it takes the other's buckets.
            *mine = theirs.clone();
        } else if !theirs.team_reward.counts.is_empty() {
            let same = |a: &Histogram, b: &Histogram| a.bounds == b.bounds && a.counts.len() == b.counts.len();
            let all_same = same(&mine.team_reward, &theirs.team_reward)
                && same(&mine.length, &theirs.length)
                && same(&mine.agent_reward, &theirs.agent_reward);
            if !all_same {
                return Err(AggregateError::Buckets);
            }
            mine.team_reward.merge(&theirs.team_reward)?;
            mine.length.merge(&theirs.length)?;
            mine.agent_reward.merge(&theirs.agent_reward)?;
        }
        self.episodes += other.episodes;
        for o in &other.outcomes {
            match self.outcomes.iter_mut().find(|m| m.outcome == o.outcome) {
                Some(m) => m.episodes += o.episodes,
                None => self.outcomes.push(o.clone()),
            }
        }
        self.truncated += other.truncated;
        self.team_reward.merge(&other.team_reward);
        self.length.merge(&other.length);
        if self.agent_rewards.len() < other.agent_rewards.len() {
            self.agent_rewards.resize(other.agent_rewards.len(), Moments::default());
        }
        for (a, b) in self.agent_rewards.iter_mut().zip(&other.agent_rewards) {
            a.merge(b);
        }
        for (key, m) in &other.stats {
            self.stats.entry(key.clone()).or_default().merge(m);
        }
        self.llm_episodes += other.llm_episodes;
        self.llm_tokens += other.llm_tokens;
        self.llm.merge(&other.llm);
        Ok(())
    }

    /// Episodes with `outcome`.
    pub fn outcome(&self, outcome: &str) -> u64 {
        self.outcomes.iter().find(|o| o.outcome == outcome).map_or(0, |o| o.episodes)
    }
}
