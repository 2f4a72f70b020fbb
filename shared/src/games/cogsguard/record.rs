//! The episode record (§14): outcome, rewards, stats in the spec's order, and the trajectory
//! hash fed after every tick.

use serde_json::{json, Map, Value};

use crate::protocol::EpisodeRecord;
use crate::seeding::Fnv64;

use super::state::World;
use super::types::{Align, ELEMENTS};

/// Outcome labels; the first is the win outcome.
pub const OUTCOMES: [&str; 3] = ["cogs_ahead", "clips_ahead", "tie"];

/// Stats keys in the spec's order (§14).
pub const STAT_KEYS: [&str; 13] = [
    "num_junctions",
    "junctions_final",
    "junctions_time_avg",
    "hearts_crafted",
    "hearts_taken",
    "deposited",
    "junctions_aligned",
    "junctions_scrambled",
    "clips_captured",
    "clips_neutralized",
    "hp_zero_events",
    "gear_acquired",
    "mode_occupancy",
];

/// Per-episode accumulators: the trajectory hash and junction-tick sums.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    hash: Fnv64,
    /// Σ over ticks of junction counts (neutral, cogs, clips).
    pub junction_ticks: [u64; 3],
}

impl Tally {
    /// Feeds one finished tick: reward sums and the hash contents of §14.
    pub fn tick(&mut self, w: &World) {
        for (sum, &n) in self.junction_ticks.iter_mut().zip(&w.junction_counts) {
            *sum += u64::from(n);
        }
        let h = &mut self.hash;
        h.u32(w.t);
        for a in &w.agents {
            h.u8(a.last_action);
            h.u8(u8::from(a.last_ok));
            for v in [a.row, a.col, a.hp, a.energy, a.influence, a.heart] {
                h.u16(v);
            }
            for v in a.cargo {
                h.u16(v);
            }
            h.u8(a.gear as u8);
            h.u8(a.vibe);
        }
        for &j in &w.junctions {
            h.u8(w.objects[j as usize].align as u8);
        }
        for v in w.pool.elements {
            h.u32(v);
        }
        h.u32(w.pool.hearts);
    }

    /// The hash so far as 16 hex digits.
    pub fn hash_hex(&self) -> String {
        self.hash.hex()
    }

    /// Builds the record at the end of an episode. `occupancy` is the `mode_occupancy` object.
    pub fn record(&self, w: &World, seed: u64, occupancy: Value) -> EpisodeRecord {
        let nj = w.junctions.len() as u64;
        let denom = (nj * u64::from(w.max_steps)) as f64;
        let frac = |x: u64| if nj == 0 { 0.0 } else { x as f64 / denom };
        let [neutral, cogs, clips] = w.junction_counts;
        let outcome = match cogs.cmp(&clips) {
            std::cmp::Ordering::Greater => OUTCOMES[0],
            std::cmp::Ordering::Less => OUTCOMES[1],
            std::cmp::Ordering::Equal => OUTCOMES[2],
        };
        let reward = frac(self.junction_ticks[Align::Cogs as usize]);
        let c = &w.counters;
        let by_element = |v: [u64; 4]| {
            let mut m = Map::new();
            for (name, x) in ELEMENTS.iter().zip(v) {
                m.insert((*name).into(), x.into());
            }
            Value::Object(m)
        };
        let mut stats = Map::new();
        stats.insert("num_junctions".into(), nj.into());
        stats.insert("junctions_final".into(), json!({"cogs": cogs, "clips": clips, "neutral": neutral}));
        stats.insert(
            "junctions_time_avg".into(),
            json!({
                "cogs": frac(self.junction_ticks[1]),
                "clips": frac(self.junction_ticks[2]),
                "neutral": frac(self.junction_ticks[0]),
            }),
        );
        stats.insert("hearts_crafted".into(), c.hearts_crafted.into());
        stats.insert("hearts_taken".into(), c.hearts_taken.into());
        stats.insert("deposited".into(), by_element(c.deposited));
        stats.insert("junctions_aligned".into(), c.aligned.into());
        stats.insert("junctions_scrambled".into(), c.scrambled.into());
        stats.insert("clips_captured".into(), c.clips_captured.into());
        stats.insert("clips_neutralized".into(), c.clips_neutralized.into());
        stats.insert("hp_zero_events".into(), c.hp_zero.into());
        let g = c.gear_acquired;
        stats.insert("gear_acquired".into(), json!({"aligner": g[0], "scrambler": g[1], "miner": g[2], "scout": g[3]}));
        stats.insert("mode_occupancy".into(), occupancy);
        let agent_rewards = vec![reward; w.agents.len()];
        EpisodeRecord {
            seed,
            outcome: outcome.into(),
            length: w.max_steps,
            truncated: true,
            team_reward: agent_rewards.iter().sum(),
            agent_rewards,
            trajectory_hash: self.hash_hex(),
            stats: stats.into(),
        }
    }
}
