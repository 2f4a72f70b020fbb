//! One tick (§8): clips events, shuffled agent order, actions, regen, auras (§9).
//!
//! Reward (step 6) and observations (step 7) are read off the world by the caller after
//! [`World::step`]: the junction counts are kept up to date on every alignment change.

use crate::seeding::Stream;

use super::rules::IllegalAction;
use super::state::World;
use super::types::action;

/// Aura radius (Chebyshev) of the hub and of cogs and clips junctions.
pub const AURA_RADIUS: u16 = 10;

impl World {
    /// Plays one tick with one action per agent (by id). An action id outside 0..=11 is rejected
    /// before anything changes; the environment stream is then untouched too.
    pub fn step(&mut self, actions: &[u8], env: &mut Stream) -> Result<(), IllegalAction> {
        assert_eq!(actions.len(), self.agents.len(), "one action per agent");
        if let Some((agent, &a)) = actions.iter().enumerate().find(|(_, &a)| a >= action::COUNT) {
            return Err(IllegalAction { agent, action: a });
        }
        self.t += 1;
        self.events.clear();
        self.fire_due_clips(env);
        for (k, slot) in self.order.iter_mut().enumerate() {
            *slot = k as u16;
        }
        env.shuffle(&mut self.order);
        for k in 0..self.order.len() {
            let i = self.order[k] as usize;
            let ok = self.apply_action(i, actions[i]);
            let a = &mut self.agents[i];
            a.last_action = actions[i];
            a.last_ok = ok;
        }
        self.regen();
        self.auras();
        Ok(())
    }

    /// Step 4: energy +1, hp −1, influence −1, in id order.
    fn regen(&mut self) {
        for i in 0..self.agents.len() {
            let a = &mut self.agents[i];
            a.energy = (a.energy + 1).min(a.energy_cap());
            a.influence = a.influence.saturating_sub(1).min(a.influence_cap());
            self.add_hp(i, -1);
        }
    }

    /// Step 5: every active source within Chebyshev 10, in row-major order, each delta clamped.
    fn auras(&mut self) {
        for i in 0..self.agents.len() {
            // Sources are row-major: only the band of rows within 10 of the agent can reach it.
            let (row, col) = self.agents[i].pos();
            let start = self.active.partition_point(|s| s.row + AURA_RADIUS < row);
            for k in start..self.active.len() {
                let s = self.active[k];
                if s.row > row + AURA_RADIUS {
                    break;
                }
                if s.col.abs_diff(col) > AURA_RADIUS {
                    continue;
                }
                if s.friendly {
                    let a = &mut self.agents[i];
                    a.influence = (a.influence + 10).min(a.influence_cap());
                    a.energy = (a.energy + 100).min(a.energy_cap());
                    self.add_hp(i, 100);
                } else {
                    self.add_hp(i, -1);
                    let a = &mut self.agents[i];
                    a.influence = a.influence.saturating_sub(100).min(a.influence_cap());
                }
            }
        }
    }

    /// Number of junctions by alignment: (neutral, cogs, clips).
    #[inline]
    pub fn counts(&self) -> [u32; 3] {
        self.junction_counts
    }

    /// Whether the episode is over (t = max_steps).
    #[inline]
    pub fn done(&self) -> bool {
        self.t >= self.max_steps
    }
}
