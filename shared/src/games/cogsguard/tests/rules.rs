//! Rules on small ASCII maps (`;clips=off` unless stated): moves, every bump handler, caps.

use super::{step, world};
use crate::games::cogsguard::rules::IllegalAction;
use crate::games::cogsguard::types::{action::*, Align, Gear};
use crate::seeding::Stream;

const E: u8 = MOVE_EAST;
const W: u8 = MOVE_WEST;

#[test]
fn move_into_a_wall_fails_without_cost() {
    let mut w = world(";clips=off\n###\n#@#\n###");
    let mut env = Stream::env(0);
    step(&mut w, &mut env, &[MOVE_NORTH]);
    let a = w.agents[0];
    assert!(!a.last_ok);
    assert_eq!((a.row, a.col), (1, 1));
    // Start energy 20, +1 regen capped at 20: nothing was spent.
    assert_eq!(a.energy, 20);
}

#[test]
fn a_move_costs_three_energy_and_needs_three() {
    let mut w = world(";clips=off\n#####\n#@..#\n#####");
    let mut env = Stream::env(0);
    step(&mut w, &mut env, &[E]);
    assert_eq!((w.agents[0].col, w.agents[0].energy), (2, 18)); // 20 − 3 + 1
    w.agents[0].energy = 2;
    step(&mut w, &mut env, &[E]);
    assert!(!w.agents[0].last_ok);
    assert_eq!((w.agents[0].col, w.agents[0].energy), (2, 3));
}

#[test]
fn outside_the_grid_is_a_wall() {
    let mut w = world(";clips=off\n@.");
    let mut env = Stream::env(0);
    step(&mut w, &mut env, &[W]);
    assert!(!w.agents[0].last_ok);
    step(&mut w, &mut env, &[MOVE_NORTH]);
    assert!(!w.agents[0].last_ok);
}

#[test]
fn extractor_bump_moves_one_unit_without_gear_and_ten_with() {
    let mut w = world(";clips=off\n####\n#@C#\n####");
    let mut env = Stream::env(0);
    step(&mut w, &mut env, &[E]);
    let a = w.agents[0];
    assert!(a.last_ok);
    assert_eq!((a.col, a.cargo, a.energy), (1, [1, 0, 0, 0], 18));
    assert_eq!(w.objects[0].units, 99);
    w.agents[0].gear = Gear::Miner;
    step(&mut w, &mut env, &[E]);
    assert_eq!(w.agents[0].cargo[0], 11);
    assert_eq!(w.objects[0].units, 89);
    // Cargo cap 40 with gear: 11 + 10 + 10 + 9 (room) = 40.
    for _ in 0..3 {
        w.agents[0].energy = 20;
        step(&mut w, &mut env, &[E]);
    }
    assert_eq!(w.agents[0].cargo[0], 40);
    w.agents[0].energy = 20;
    step(&mut w, &mut env, &[E]);
    assert!(w.agents[0].last_ok, "a full bump still succeeds");
    assert_eq!(w.agents[0].energy, 18);
}

#[test]
fn the_last_unit_removes_the_extractor() {
    let mut w = world(";clips=off\n;extractor=1\n####\n#@O#\n####");
    let mut env = Stream::env(0);
    step(&mut w, &mut env, &[E]);
    assert_eq!(w.agents[0].cargo, [0, 1, 0, 0]);
    assert!(w.object_at(1, 2).is_none());
    assert!(!w.objects[0].present);
    step(&mut w, &mut env, &[E]);
    assert_eq!(w.agents[0].col, 2, "the cell is free now");
}

#[test]
fn station_swap_deducts_the_cost_and_destroys_excess() {
    let mut w = world(";clips=off\n;pool=20,20,20,20,0\n#####\n#M@S#\n#####");
    let mut env = Stream::env(0);
    // Scout gear: hp 400, energy 100 caps. Buy miner: caps fall to 100 / 20.
    let a = &mut w.agents[0];
    (a.gear, a.hp, a.energy, a.cargo) = (Gear::Scout, 350, 90, [1, 1, 1, 1]);
    step(&mut w, &mut env, &[W]);
    let a = w.agents[0];
    assert!(a.last_ok);
    assert_eq!(a.gear, Gear::Miner);
    assert_eq!(w.pool.elements, [19, 19, 17, 19]);
    assert_eq!((a.hp, a.energy), (99, 18)); // 100 then −1 regen; 20 − 3 + 1
    assert_eq!(w.counters.gear_acquired, [0, 0, 1, 0]);
    // Miner with 30 cargo buys scout: cargo cap 4, excess removed silicon first.
    w.agents[0].cargo = [10, 10, 5, 5];
    w.agents[0].energy = 20;
    step(&mut w, &mut env, &[E]);
    let a = w.agents[0];
    assert_eq!(a.gear, Gear::Scout);
    assert_eq!(a.cargo, [4, 0, 0, 0]);
    assert_eq!(w.counters.cargo_destroyed, [6, 10, 5, 5]);
    assert_eq!(w.pool.elements, [18, 18, 16, 16]);
    // Keep: bumping the station of the held gear succeeds and costs nothing from the pool.
    w.agents[0].energy = 20;
    step(&mut w, &mut env, &[E]);
    assert!(w.agents[0].last_ok);
    assert_eq!(w.pool.elements, [18, 18, 16, 16]);
}

#[test]
fn a_failed_bump_costs_nothing() {
    let mut w = world(";clips=off\n;pool=0,0,0,0,0\n####\n#@A#\n####");
    let mut env = Stream::env(0);
    w.agents[0].energy = 10;
    step(&mut w, &mut env, &[E]);
    let a = w.agents[0];
    assert!(!a.last_ok);
    assert_eq!((a.gear, a.energy), (Gear::None, 11));
}

#[test]
fn hub_and_cogs_junction_take_deposits_up_to_the_pool_cap() {
    let mut w = world(";clips=off\n;pool=9995,0,0,0,0\n#####\n#&@j#\n#####");
    let mut env = Stream::env(0);
    w.agents[0].cargo = [3, 1, 0, 0];
    step(&mut w, &mut env, &[W]);
    assert_eq!(w.pool.elements, [9998, 1, 0, 0]);
    assert_eq!(w.agents[0].cargo, [0, 0, 0, 0]);
    w.agents[0].cargo = [4, 0, 0, 0];
    step(&mut w, &mut env, &[E]);
    assert_eq!(w.pool.elements[0], 10_000);
    assert_eq!(w.agents[0].cargo[0], 2, "the pool is full");
    assert_eq!(w.counters.deposited, [5, 1, 0, 0]);
}

#[test]
fn chest_gives_a_heart_then_crafts_one() {
    let mut w = world(";clips=off\n;pool=25,20,20,20,1\n####\n#@=#\n####");
    let mut env = Stream::env(0);
    step(&mut w, &mut env, &[E]);
    assert_eq!((w.agents[0].heart, w.pool.hearts, w.counters.hearts_taken), (1, 0, 1));
    step(&mut w, &mut env, &[E]);
    assert_eq!(w.agents[0].heart, 2);
    assert_eq!(w.pool.elements, [15, 10, 10, 10]);
    assert_eq!(w.counters.hearts_crafted, 1);
    step(&mut w, &mut env, &[E]);
    assert_eq!(w.counters.hearts_crafted, 2);
    w.agents[0].energy = 20;
    step(&mut w, &mut env, &[E]);
    assert!(!w.agents[0].last_ok, "nothing to give or craft");
    assert_eq!(w.agents[0].heart, 3);
}

#[test]
fn align_needs_gear_influence_and_a_heart() {
    let mut w = world(";clips=off\n####\n#@J#\n####");
    let mut env = Stream::env(0);
    let a = &mut w.agents[0];
    (a.gear, a.heart, a.influence) = (Gear::Aligner, 1, 0);
    step(&mut w, &mut env, &[E]);
    assert!(!w.agents[0].last_ok, "align fails with influence 0");
    assert_eq!(w.objects[0].align, Align::Neutral);
    w.agents[0].influence = 5;
    w.agents[0].gear = Gear::Scout;
    step(&mut w, &mut env, &[E]);
    assert!(!w.agents[0].last_ok, "align fails without aligner gear");
    w.agents[0].gear = Gear::Aligner;
    w.agents[0].influence = 5;
    step(&mut w, &mut env, &[E]);
    let a = w.agents[0];
    assert!(a.last_ok);
    // Influence is not spent: 5, regen −1, then +10 from the junction's new cogs aura.
    assert_eq!((a.heart, a.influence), (0, 14));
    assert_eq!(w.objects[0].align, Align::Cogs);
    assert_eq!((w.junction_counts, w.counters.aligned), ([0, 1, 0], 1));
}

#[test]
fn scramble_needs_gear_and_a_heart() {
    let mut w = world(";clips=off\n####\n#@k#\n####");
    let mut env = Stream::env(0);
    w.agents[0].gear = Gear::Scrambler;
    step(&mut w, &mut env, &[E]);
    assert!(!w.agents[0].last_ok, "no heart");
    w.agents[0].heart = 2;
    step(&mut w, &mut env, &[E]);
    assert!(w.agents[0].last_ok);
    assert_eq!((w.objects[0].align, w.agents[0].heart), (Align::Neutral, 1));
    assert_eq!(w.counters.scrambled, 1);
    step(&mut w, &mut env, &[E]);
    assert!(!w.agents[0].last_ok, "a neutral junction refuses a scrambler");
}

#[test]
fn hp_reaching_zero_destroys_gear_and_hearts_and_counts_once() {
    let mut w = world(";clips=off\n###\n#@#\n###");
    let mut env = Stream::env(0);
    let a = &mut w.agents[0];
    (a.hp, a.gear, a.heart, a.energy, a.cargo) = (1, Gear::Scout, 3, 90, [2, 2, 0, 0]);
    step(&mut w, &mut env, &[NOOP]);
    let a = w.agents[0];
    assert_eq!((a.hp, a.gear, a.heart), (0, Gear::None, 0));
    assert_eq!(a.energy, 20, "energy cap falls with the gear");
    assert_eq!(a.cargo, [2, 2, 0, 0], "cargo cap 4 without gear");
    step(&mut w, &mut env, &[NOOP]);
    step(&mut w, &mut env, &[NOOP]);
    assert_eq!(w.counters.hp_zero, 1);
    assert_eq!(w.agents[0].hp, 0);
}

#[test]
fn an_agent_at_hp_one_entering_a_friendly_aura_still_loses_its_gear() {
    let mut w = world(";clips=off\n##############\n#&..........@#\n##############");
    let mut env = Stream::env(0);
    let a = &mut w.agents[0];
    (a.hp, a.gear) = (1, Gear::Miner);
    step(&mut w, &mut env, &[W]); // col 12 → 11: cheb 10 to the hub.
    let a = w.agents[0];
    assert_eq!((a.col, a.gear, a.hp), (11, Gear::None, 100));
    assert_eq!(w.counters.hp_zero, 1);
}

#[test]
fn auras_stack_and_clamp() {
    // Two clips junctions: hp −1 (regen) −1 −1 per tick.
    let mut w = world(";clips=off\n#######\n#k.@.k#\n#######");
    let mut env = Stream::env(0);
    step(&mut w, &mut env, &[NOOP]);
    assert_eq!(w.agents[0].hp, 47);
    step(&mut w, &mut env, &[NOOP]);
    assert_eq!(w.agents[0].hp, 44);
    // A friendly source: everything at its cap at the end of the tick.
    let mut w = world(";clips=off\n#####\n#&@j#\n#####");
    w.agents[0].gear = Gear::Aligner;
    step(&mut w, &mut env, &[NOOP]);
    let a = w.agents[0];
    assert_eq!((a.hp, a.energy, a.influence), (100, 20, 20));
    // Friendly then clips in row-major order: the clips source comes last and bites.
    let mut w = world(";clips=off\n#####\n#&@k#\n#####");
    w.agents[0].gear = Gear::Aligner;
    step(&mut w, &mut env, &[NOOP]);
    let a = w.agents[0];
    assert_eq!((a.hp, a.influence), (99, 0));
}

#[test]
fn regen_lowers_hp_and_influence_outside_auras() {
    let mut w = world(";clips=off\n###\n#@#\n###");
    let mut env = Stream::env(0);
    w.agents[0].gear = Gear::Aligner;
    w.agents[0].influence = 5;
    w.agents[0].energy = 10;
    step(&mut w, &mut env, &[NOOP]);
    let a = w.agents[0];
    assert_eq!((a.hp, a.influence, a.energy), (49, 4, 11));
}

#[test]
fn change_vibe_sets_the_vibe_for_free() {
    let mut w = world(";clips=off\n###\n#@#\n###");
    let mut env = Stream::env(0);
    w.agents[0].energy = 0;
    step(&mut w, &mut env, &[CHANGE_VIBE + 6]);
    assert_eq!((w.agents[0].vibe, w.agents[0].last_ok, w.agents[0].energy), (6, true, 1));
}

#[test]
fn a_contested_cell_goes_to_the_first_in_the_shuffled_order() {
    for seed in 0..8 {
        let mut w = world(";clips=off\n#####\n#@.@#\n#####");
        let mut env = Stream::env(seed);
        let mut order = [0usize, 1];
        Stream::env(seed).shuffle(&mut order);
        step(&mut w, &mut env, &[E, W]);
        let winner = order[0];
        assert!(w.agents[winner].last_ok && !w.agents[1 - winner].last_ok, "seed {seed}");
        assert_eq!(w.agents[winner].col, 2);
    }
}

#[test]
fn an_illegal_action_id_is_rejected_before_anything_changes() {
    let mut w = world(";clips=off\n####\n#@.#\n####");
    let before = (w.t, w.agents.clone());
    let mut env = Stream::env(3);
    assert_eq!(w.step(&[12], &mut env), Err(IllegalAction { agent: 0, action: 12 }));
    assert_eq!((w.t, w.agents.clone()), before);
    assert_eq!(env.next_u64(), Stream::env(3).next_u64(), "no draw was made");
}

#[test]
fn reward_with_two_junctions_one_cogs_is_0_005_per_tick() {
    let text = crate::spec::percent_encode(";max_steps=100/;clips=off/#####/#j@J#/#####");
    let rec = super::record(&format!("ascii?map_text={text}"), &["noop"], 1);
    assert_eq!(rec.agent_rewards, vec![0.5]);
    assert_eq!(rec.team_reward, 0.5);
    assert_eq!(rec.stats.as_map()["junctions_time_avg"]["cogs"], 0.5);
    assert_eq!(rec.outcome, "cogs_ahead");
    let mut w = world(";clips=off\n#####\n#j@J#\n#####");
    let mut env = Stream::env(0);
    step(&mut w, &mut env, &[NOOP]);
    let [_, cogs, _] = w.counts();
    assert_eq!(f64::from(cogs) / (2.0 * 100.0), 0.005);
}
