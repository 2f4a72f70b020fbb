//! The fifteen named scenarios of spec §11, and their one-line descriptions for
//! `coordinator list`.
//!
//! Every named scenario has 4 agents, `reward_rest` 0.5, γ = α_own = 1, the `seed` reward model
//! and the default phase order; the table holds only what differs between them.

use crate::games::Entry;

use super::scenario::{RewardModel, Scenario};

/// The name of the default scenario (first in the table).
pub const DEFAULT: &str = "default";

/// One row of §11.
struct Row {
    name: &'static str,
    about: &'static str,
    beta: f64,
    p: f64,
    rho: f64,
    a: f64,
    l: f64,
    c: f64,
    n_min: u32,
    a_own: f64,
    a_oth: f64,
    l_own: f64,
    l_oth: f64,
}

// One argument per column of §11's table, so that each row below reads like the spec's.
#[allow(clippy::too_many_arguments)]
#[rustfmt::skip]
const fn row(
    name: &'static str, about: &'static str, beta: f64, p: f64, rho: f64, a: f64, l: f64, c: f64,
    n_min: u32, a_own: f64, a_oth: f64, l_own: f64, l_oth: f64,
) -> Row {
    Row { name, about, beta, p, rho, a, l, c, n_min, a_own, a_oth, l_own, l_oth }
}

/// §11, in the spec's order (the first is the default).
#[rustfmt::skip]
const TABLE: [Row; 15] = [
    //   name                      about                                                                   β     p     ρ     A      L      c    n_min a_own a_oth l_own  l_oth
    row("default", "the reference default: p 0.5, ρ 0.02, ownership 20/0/40/0",                            0.25, 0.5,  0.02, 100.0, 100.0, 0.5, 12, 20.0, 0.0, 40.0,  0.0),
    row("easy", "strong firefighting (p 0.8), rare sparks (ρ 0.01)",                                     0.10, 0.8,  0.01, 100.0, 100.0, 0.5, 10, 1.0,  0.0, 2.0,   0.0),
    row("hard", "weak firefighting (p 0.3), frequent sparks (ρ 0.05), 15 nights minimum",                0.40, 0.3,  0.05, 100.0, 100.0, 0.5, 15, 1.0,  0.0, 2.0,   0.0),
    row("trivial_cooperation", "no fire ever (ρ 0): every episode is 13 quiet nights",                   0.15, 0.9,  0.0,  100.0, 100.0, 0.5, 12, 1.0,  0.0, 2.0,   0.0),
    row("early_containment", "p 0.6, ρ 0.02: fires are worth catching on their only night",             0.35, 0.6,  0.02, 100.0, 100.0, 0.5, 12, 1.0,  0.0, 2.0,   0.0),
    row("greedy_neighbor", "p 0.4 and costly work (c 1.0): tempting to let others fight",                0.15, 0.4,  0.02, 100.0, 100.0, 1.0, 12, 1.0,  0.0, 2.0,   0.0),
    row("sparse_heroics", "costly work (c 0.8) over 20 nights minimum",                                  0.10, 0.5,  0.02, 100.0, 100.0, 0.8, 20, 1.0,  0.0, 2.0,   0.0),
    row("rest_trap", "near-certain saves (p 0.95) and cheap work (c 0.2): resting is the trap",          0.05, 0.95, 0.02, 100.0, 100.0, 0.2, 12, 1.0,  0.0, 2.0,   0.0),
    row("chain_reaction", "β 0.45 (live with spread_before_burnout), ρ 0.03, costly work",               0.45, 0.6,  0.03, 100.0, 100.0, 0.7, 15, 1.0,  0.0, 2.0,   0.0),
    row("deceptive_calm", "frequent sparks (ρ 0.05) over 20 nights minimum",                            0.25, 0.6,  0.05, 100.0, 100.0, 0.4, 20, 1.0,  0.0, 2.0,   0.0),
    row("overcrowding", "weak firefighting (p 0.3), saved houses worth half (A 50); no crowding rule",   0.20, 0.3,  0.02, 50.0,  100.0, 0.6, 12, 1.0,  0.0, 2.0,   0.0),
    row("mixed_motivation", "ρ 0.03, costly work (c 0.6), 15 nights minimum",                            0.30, 0.5,  0.03, 100.0, 100.0, 0.6, 15, 1.0,  0.0, 2.0,   0.0),
    row("minimal_specialization", "small team terms (10/10), large own-house terms (50/100)",           0.25, 0.5,  0.02, 10.0,  10.0,  0.5, 12, 50.0, 0.0, 100.0, 0.0),
    row("asym_b05_k09_c05", "β 0.5, p 0.9, own-house terms 50/100",                                      0.50, 0.9,  0.02, 10.0,  10.0,  0.5, 12, 50.0, 0.0, 100.0, 0.0),
    row("asym_b09_k09_c05", "β 0.9, p 0.9, own-house terms 50/100 (same game as β 0.5 without contagion)", 0.90, 0.9, 0.02, 10.0, 10.0, 0.5, 12, 50.0, 0.0, 100.0, 0.0),
];

const fn names() -> [&'static str; 15] {
    let mut out = [""; 15];
    let mut i = 0;
    while i < TABLE.len() {
        out[i] = TABLE[i].name;
        i += 1;
    }
    out
}

const fn entries() -> [Entry; 15] {
    const BLANK: Entry = Entry { name: "", about: "" };
    let mut out = [BLANK; 15];
    let mut i = 0;
    while i < TABLE.len() {
        out[i] = Entry { name: TABLE[i].name, about: TABLE[i].about };
        i += 1;
    }
    out
}

/// The scenario names, in §11's order.
pub const NAMES: [&str; 15] = names();

/// `GameInfo::scenarios`: name and description of each named scenario, default first.
pub const ENTRIES: [Entry; 15] = entries();

/// The named scenario `name`.
pub fn lookup(name: &str) -> Option<Scenario> {
    let r = TABLE.iter().find(|r| r.name == name)?;
    Some(Scenario {
        name: r.name,
        num_agents: 4,
        prob_fire_spreads_to_neighbor: r.beta,
        prob_solo_agent_extinguishes_fire: r.p,
        prob_house_catches_fire: r.rho,
        team_reward_house_survives: r.a,
        team_penalty_house_burns: r.l,
        cost_to_work_one_night: r.c,
        min_nights: r.n_min,
        reward_own_house_survives: r.a_own,
        reward_other_house_survives: r.a_oth,
        penalty_own_house_burns: r.l_own,
        penalty_other_house_burns: r.l_oth,
        reward_rest: 0.5,
        team_share_gamma: 1.0,
        alpha_own: 1.0,
        reward_model: RewardModel::Seed,
        spread_before_burnout: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifteen_valid_scenarios_default_first() {
        assert_eq!(NAMES.len(), 15);
        assert_eq!(NAMES[0], DEFAULT);
        for (name, entry) in NAMES.iter().zip(&ENTRIES) {
            assert_eq!(*name, entry.name);
            let sc = lookup(name).unwrap();
            assert_eq!(sc.name, *name);
            sc.validate().unwrap();
        }
        assert!(lookup("v2_minimal").is_none());
    }

    #[test]
    fn spot_check_rows_against_the_spec() {
        let d = lookup("default").unwrap();
        assert_eq!(
            (d.prob_fire_spreads_to_neighbor, d.prob_solo_agent_extinguishes_fire, d.prob_house_catches_fire),
            (0.25, 0.5, 0.02)
        );
        assert_eq!((d.reward_own_house_survives, d.penalty_own_house_burns, d.min_nights), (20.0, 40.0, 12));
        let o = lookup("overcrowding").unwrap();
        assert_eq!(
            (o.team_reward_house_survives, o.team_penalty_house_burns, o.cost_to_work_one_night),
            (50.0, 100.0, 0.6)
        );
        let s = lookup("sparse_heroics").unwrap();
        assert_eq!((s.min_nights, s.cost_to_work_one_night), (20, 0.8));
        let a = lookup("asym_b09_k09_c05").unwrap();
        assert_eq!(
            (a.prob_fire_spreads_to_neighbor, a.penalty_own_house_burns, a.team_reward_house_survives),
            (0.9, 100.0, 10.0)
        );
        let t = lookup("trivial_cooperation").unwrap();
        assert_eq!(t.prob_house_catches_fire, 0.0);
        for name in NAMES {
            let sc = lookup(name).unwrap();
            assert_eq!((sc.num_agents, sc.reward_rest, sc.team_share_gamma, sc.alpha_own), (4, 0.5, 1.0, 1.0));
            assert_eq!((sc.reward_model, sc.spread_before_burnout), (RewardModel::Seed, false));
        }
    }
}
