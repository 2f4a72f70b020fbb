//! The two reward models (spec §6): nightly rewards, the `seed` model's terminal payout, and
//! the team reward.
//!
//! Arithmetic is plain f64 in a fixed order; totals are summed in night order by the caller
//! (`Town::step`), so the replay's per-night rewards add up to the totals exactly.

use super::action::{Action, Mode};
use super::house::Houses;
use super::house_set::{Fires, HouseSet};
use super::scenario::{RewardModel, Scenario, MAX_AGENTS};

/// Per-agent rewards of one night (entries past `num_agents` stay 0).
pub type Rewards = [f64; MAX_AGENTS];

/// Per-agent counts of owned houses in a set.
type Counts = [u32; MAX_AGENTS];

/// The number of houses of `set` each agent owns (owner(h) = h mod N).
#[inline]
fn owned_counts(sc: &Scenario, set: HouseSet) -> Counts {
    let mut out = [0; MAX_AGENTS];
    for (i, c) in out.iter_mut().enumerate().take(sc.num_agents) {
        *c = (set & HouseSet::owned(sc.num_agents, i)).len();
    }
    out
}

/// (m_i = WORK ? −c : +r_rest): the part of every nightly reward both models share.
#[inline]
fn mode_term(sc: &Scenario, mode: Mode) -> f64 {
    // Indexed rather than matched: no branch on a random agent's coin-flip mode.
    [sc.reward_rest, -sc.cost_to_work_one_night][usize::from(mode.code())]
}

/// [`nightly_fires`] on house states (tests).
#[cfg(test)]
pub fn nightly(sc: &Scenario, start: &Houses, end: &Houses, actions: &[Action]) -> Rewards {
    nightly_fires(sc, Fires::of(start), Fires::of(end), actions)
}

/// r_i(t) of the active model, before the `seed` model's terminal payout.
///
/// - `seed`: mode term + α_own · (OwnSafe_i(S_t^end) − OwnSafe_i(S_t^start)).
/// - `reference`: mode term + save bonus − ruin penalty + A·#S/10 − L·#R/10, where the save
///   bonus pays a_own (own house) or a_oth (other) per house that went not-Safe → Safe over
///   the night and the ruin penalty l_own or l_oth per house Ruined at the end of the night.
///   The per-house sums are taken as count × weight (equal to the spec's Σ up to rounding).
#[inline]
pub fn nightly_fires(sc: &Scenario, start: Fires, end: Fires, actions: &[Action]) -> Rewards {
    let n = sc.num_agents;
    let mut r = [0.0; MAX_AGENTS];
    match sc.reward_model {
        RewardModel::Seed => {
            // OwnSafe_i(end) − OwnSafe_i(start), counted over the houses that changed (most
            // nights none): the counts are small integers, so the f64 difference is exact
            // whichever way it is taken.
            let (now, was) = (end.safe(), start.safe());
            let mut change = [0i32; MAX_AGENTS];
            for h in (now - was).iter() {
                change[sc.owner(h)] += 1;
            }
            for h in (was - now).iter() {
                change[sc.owner(h)] -= 1;
            }
            for i in 0..n {
                r[i] = mode_term(sc, actions[i].mode) + sc.alpha_own * f64::from(change[i]);
            }
        }
        RewardModel::Reference => {
            let saved = owned_counts(sc, end.safe() - start.safe());
            let ruined = owned_counts(sc, end.ruined);
            let (saved_all, ruined_all): (u32, u32) = (saved.iter().sum(), ruined.iter().sum());
            let safe_all = f64::from(end.safe().len());
            let team = sc.team_reward_house_survives * safe_all / 10.0
                - sc.team_penalty_house_burns * f64::from(ruined_all) / 10.0;
            for i in 0..n {
                let bonus = sc.reward_own_house_survives * f64::from(saved[i])
                    + sc.reward_other_house_survives * f64::from(saved_all - saved[i]);
                let penalty = sc.penalty_own_house_burns * f64::from(ruined[i])
                    + sc.penalty_other_house_burns * f64::from(ruined_all - ruined[i]);
                r[i] = mode_term(sc, actions[i].mode) + bonus - penalty + team;
            }
        }
    }
    r
}

/// SF and BF of the final state: the Safe and Ruined fractions (houses still Burning, possible
/// only when truncated, count in neither).
#[inline]
fn fractions(fin: Fires) -> (f64, f64) {
    (f64::from(fin.safe().len()) / 10.0, f64::from(fin.ruined.len()) / 10.0)
}

/// [`terminal_fires`] on house states (tests).
#[cfg(test)]
pub fn terminal(sc: &Scenario, fin: &Houses) -> Rewards {
    terminal_fires(sc, Fires::of(fin))
}

/// The terminal payout E_i credited on night T: zero in the `reference` model; in the `seed`
/// model γ·(A·SF − L·BF) + a_own·(owned Safe) + a_oth·(other Safe) − l_own·(owned Ruined)
/// − l_oth·(other Ruined).
pub fn terminal_fires(sc: &Scenario, fin: Fires) -> Rewards {
    let mut e = [0.0; MAX_AGENTS];
    if sc.reward_model == RewardModel::Reference {
        return e;
    }
    let (sf, bf) = fractions(fin);
    let share = sc.team_share_gamma * (sc.team_reward_house_survives * sf - sc.team_penalty_house_burns * bf);
    let safe = owned_counts(sc, fin.safe());
    let ruined = owned_counts(sc, fin.ruined);
    let (safe_all, ruined_all): (u32, u32) = (safe.iter().sum(), ruined.iter().sum());
    for i in 0..sc.num_agents {
        e[i] = share
            + sc.reward_own_house_survives * f64::from(safe[i])
            + sc.reward_other_house_survives * f64::from(safe_all - safe[i])
            - sc.penalty_own_house_burns * f64::from(ruined[i])
            - sc.penalty_other_house_burns * f64::from(ruined_all - ruined[i]);
    }
    e
}

/// R_team. `seed`: A·SF − L·BF − c·W with W the total worker-nights (not Σ R_i).
/// `reference`: Σ_i R_i, summed in seat order.
pub fn team(sc: &Scenario, fin: &Houses, worker_nights: u32, totals: &[f64]) -> f64 {
    match sc.reward_model {
        RewardModel::Seed => {
            let (sf, bf) = fractions(Fires::of(fin));
            sc.team_reward_house_survives * sf
                - sc.team_penalty_house_burns * bf
                - sc.cost_to_work_one_night * f64::from(worker_nights)
        }
        RewardModel::Reference => totals.iter().fold(0.0, |acc, r| acc + r),
    }
}
