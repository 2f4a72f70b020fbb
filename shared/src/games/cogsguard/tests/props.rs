//! Property tests (§16): caps never exceeded, element conservation, junction counts, and
//! observations that match the grid, under random actions on small maps.

use proptest::prelude::*;

use super::{game, world};
use crate::games::cogsguard::obs::{Observation, VIEW, VIEW_RADIUS};
use crate::games::cogsguard::rules::HEART_COST;
use crate::games::cogsguard::state::World;
use crate::games::cogsguard::types::{action, Gear, Kind, POOL_CAP, POOL_HEART_CAP};
use crate::seeding::Stream;

/// Pool + carried + extractor units + gear spent + crafted + destroyed, per element.
fn element_totals(w: &World) -> [u64; 4] {
    let mut t = [0u64; 4];
    for (e, slot) in t.iter_mut().enumerate() {
        *slot = u64::from(w.pool.elements[e])
            + w.agents.iter().map(|a| u64::from(a.cargo[e])).sum::<u64>()
            + w.objects
                .iter()
                .filter(|o| o.present && o.kind.element() == Some(e))
                .map(|o| u64::from(o.units))
                .sum::<u64>()
            + w.counters.gear_spent[e]
            + w.counters.hearts_crafted * u64::from(HEART_COST)
            + w.counters.cargo_destroyed[e];
    }
    t
}

fn check_invariants(w: &World) {
    for a in &w.agents {
        assert!(a.hp <= a.hp_cap() && a.energy <= a.energy_cap() && a.influence <= a.influence_cap());
        assert!(a.heart <= a.heart_cap() && a.cargo_sum() <= a.cargo_cap() && a.vibe < 7);
        if a.hp == 0 {
            assert_eq!((a.gear, a.heart), (Gear::None, 0));
        }
        assert!(!w.is_wall(a.row, a.col) && w.object_at(a.row, a.col).is_none());
        assert_eq!(w.agent_at(a.row, a.col).map(|i| w.agents[i].pos()), Some(a.pos()));
    }
    assert!(w.pool.elements.iter().all(|&x| x <= POOL_CAP) && w.pool.hearts <= POOL_HEART_CAP);
    let mut counts = [0u32; 3];
    for &j in &w.junctions {
        counts[w.objects[j as usize].align as usize] += 1;
    }
    assert_eq!(counts, w.junction_counts);
    assert_eq!(counts.iter().sum::<u32>() as usize, w.junctions.len());
}

fn check_observation(w: &World, id: usize) {
    let mut o = Observation::default();
    w.observe(id, w.team_vibes(), &mut o);
    let a = &w.agents[id];
    assert_eq!((o.pos, o.hp, o.energy, o.cargo, o.gear), (a.pos(), a.hp, a.energy, a.cargo, a.gear as u8));
    assert_eq!(o.team_vibes.iter().map(|&v| usize::from(v)).sum::<usize>(), w.agents.len());
    assert!(o.cells[VIEW_RADIUS][VIEW_RADIUS].agent);
    for i in 0..VIEW {
        for j in 0..VIEW {
            let (r, c) = (a.row as i32 + i as i32 - 5, a.col as i32 + j as i32 - 5);
            let cell = o.cells[i][j];
            assert_eq!(o.packed[i][j], crate::games::cogsguard::obs::pack(cell.kind, cell.align));
            assert_eq!(o.agent_cols[i] >> j & 1 == 1, cell.agent);
            if !w.in_grid(r, c) {
                assert_eq!(cell.kind, Kind::OutOfBounds as u8);
                continue;
            }
            let (r, c) = (r as u16, c as u16);
            let agent_here = w.agents.iter().any(|b| b.pos() == (r, c));
            assert_eq!(cell.agent, agent_here);
            match w.objects.iter().find(|ob| ob.present && ob.pos() == (r, c)) {
                Some(ob) => {
                    assert_eq!(cell.kind, ob.kind as u8);
                    if ob.kind == Kind::Junction {
                        assert_eq!(cell.align, ob.align as u8 + 1);
                    }
                }
                None => assert_eq!(cell.kind, if w.is_wall(r, c) { 2 } else { 1 }),
            }
        }
    }
}

fn run(mut w: World, seed: u64, actions: &[u8]) {
    let mut env = Stream::env(seed);
    let start = element_totals(&w);
    let n = w.agents.len();
    let mut buf = vec![0u8; n];
    for (k, chunk) in actions.chunks(n).enumerate() {
        if chunk.len() < n || w.done() {
            break;
        }
        buf.copy_from_slice(chunk);
        w.step(&buf, &mut env).unwrap();
        check_invariants(&w);
        assert_eq!(element_totals(&w), start, "tick {}", k + 1);
        if k % 16 == 0 {
            check_observation(&w, k % n);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn tiny_map_invariants_hold_under_random_actions(
        seed in any::<u64>(),
        actions in proptest::collection::vec(0..action::COUNT, 300..900),
        pool in 0u32..40,
    ) {
        let text = crate::games::cogsguard::ascii::TINY_3P.replace(";max_steps=300", &format!(";pool={pool},{pool},{pool},{pool},2"));
        let mut w = world(&text);
        // Some agents start geared and hurt so that caps and hp 0 are exercised.
        w.agents[0].gear = Gear::Scout;
        w.agents[0].hp = 3;
        w.agents[1].gear = Gear::Miner;
        w.agents[1].cargo = [10, 10, 10, 10];
        run(w, seed, &actions);
    }

    #[test]
    fn generated_map_invariants_hold_under_random_actions(
        seed in 0u64..1000,
        actions in proptest::collection::vec(0..action::COUNT, 400..800),
    ) {
        let mut g = game("arena?rows=30&cols=30&num_agents=4", &["noop"; 4]);
        g.begin(seed, false);
        run(g.world().clone(), seed, &actions);
    }
}
