//! Each role on a small map: the miner's harvest → deposit cycles, the aligner aligning a
//! reachable neutral junction, the scrambler neutralising a clips junction, retreat at low hp,
//! goal timeouts and re-planning.

use super::Sim;
use crate::games::cogsguard::pinky::{GoalKind, Mode, Role};
use crate::games::cogsguard::types::{action, Gear, Kind};

pub(crate) const MINER_MAP: &str = "\
;clips=off
###########
#.........#
#.&..@..M.#
#.........#
#....C....#
#.........#
###########";

#[test]
fn the_miner_completes_harvest_deposit_cycles() {
    let mut sim = Sim::new(MINER_MAP, &[Some("pinky?miner=1")]);
    let mut modes = Vec::new();
    for _ in 0..200 {
        sim.tick();
        let m = sim.p(0).mode;
        if modes.last() != Some(&m) {
            modes.push(m);
        }
    }
    assert_eq!(sim.world.agents[0].gear, Gear::Miner);
    assert!(sim.world.counters.deposited[0] >= 80, "{:?}", sim.world.counters.deposited);
    let cycles = modes.windows(2).filter(|w| w == &[Mode::Harvest, Mode::Deposit]).count();
    assert!(cycles >= 2, "{modes:?}");
}

#[test]
fn the_aligner_aligns_a_reachable_neutral_junction() {
    let map = ";clips=off\n###############\n#.............#\n#.&...@.....J.#\n#.............#\n#..=..A.......#\n###############";
    let mut sim = Sim::new(map, &[Some("pinky?aligner=1")]);
    assert!(sim.run_until(200, |s| s.world.counters.aligned >= 1), "mode {:?}", sim.p(0).mode);
    assert_eq!(sim.world.object_at(2, 12).unwrap().align, crate::games::cogsguard::types::Align::Cogs);
    assert_eq!(sim.world.counters.gear_acquired[0], 1);
}

#[test]
fn the_scrambler_neutralises_a_clips_junction() {
    let map = ";clips=off\n###############\n#.............#\n#.&...@.....k.#\n#.............#\n#..=....X.....#\n###############";
    let mut sim = Sim::new(map, &[Some("pinky?scrambler=1")]);
    assert!(sim.run_until(200, |s| s.world.counters.scrambled >= 1), "mode {:?}", sim.p(0).mode);
    assert_eq!(sim.world.junction_counts, [1, 0, 0]);
}

const FAR_MAP: &str = ";clips=off\n########################\n#&.....................#\n#....................@.#\n########################";

#[test]
fn an_agent_at_low_hp_retreats_to_safety_and_recovers() {
    let mut sim = Sim::new(FAR_MAP, &[Some("pinky?miner=1")]);
    sim.tick(); // learns the map around it; the hub is out of view.
                // Teach it the hub, then hurt it.
    sim.world.agents[0].hp = 15;
    let hub = sim.find(Kind::Hub);
    let (r, c) = (hub.0, hub.1 + 5);
    sim.world.agents[0].vibe = crate::games::cogsguard::types::vibe::MINER;
    let a = sim.decide_at(0, (r, c));
    assert_eq!(sim.p(0).mode, Mode::Retreat);
    assert_eq!(a, action::MOVE_WEST);
    assert!(sim.run_until(40, |s| s.agents[0].as_ref().unwrap().know.safe(s.world.agents[0].pos())));
    assert!(sim.run_until(5, |s| s.agents[0].as_ref().unwrap().mode != Mode::Retreat));
    assert_eq!(sim.world.agents[0].hp, 100);
}

#[test]
fn goals_time_out_and_are_replanned() {
    // The pool cannot pay: the aligner waits at its station until its goal times out.
    let map = ";clips=off\n;pool=0,0,0,0,0\n#########\n#.&.@.A.#\n#########";
    let mut sim = Sim::new(map, &[Some("pinky?aligner=1&timeout=5")]);
    sim.run_until(4, |_| false);
    let first = sim.p(0).goal.expect("a get_gear goal");
    assert_eq!(first.kind, GoalKind::GetGear);
    sim.run_until(12, |_| false);
    let later = sim.p(0).goal.expect("re-planned");
    assert_eq!(later.kind, GoalKind::GetGear);
    assert!(later.started_at_step > first.started_at_step, "{first:?} {later:?}");
}

#[test]
fn a_timed_out_extractor_is_avoided_and_another_is_picked() {
    let map = ";clips=off\n;pool=0,0,0,0,5\n###########\n#.&.@.....#\n#.........#\n#..C...O..#\n###########";
    let mut sim = Sim::new(map, &[Some("pinky?miner=1&timeout=1")]);
    sim.world.agents[0].vibe = crate::games::cogsguard::types::vibe::MINER;
    sim.tick(); // s = 0: no gear affordable, harvest the carbon extractor (lowest in the pool).
    assert_eq!(sim.p(0).mode, Mode::Harvest);
    let first = sim.p(0).goal.unwrap().dest.unwrap().pos;
    assert_eq!(first, (3, 3));
    sim.tick(); // s = 1: the goal times out (T = 1): avoid it for 200 steps, re-plan.
    let p = sim.p(0);
    assert_eq!(p.avoid[p.know.idx(first)], 1 + 200);
    assert_eq!(p.goal.unwrap().dest.unwrap().pos, (3, 7));
    assert_eq!((p.role, p.mode), (Role::Miner, Mode::Harvest));
}

impl Sim {
    /// Decides for agent i after teaching it that a hub stands at `hub` (as if seen before).
    pub fn decide_at(&mut self, i: usize, _near: (u16, u16)) -> u8 {
        let hub = self.find(Kind::Hub);
        let p = self.agents[i].as_mut().unwrap();
        let mut o = crate::games::cogsguard::obs::Observation::default();
        // A synthetic observation centred on the hub teaches its position.
        self.world.observe(i, self.world.team_vibes(), &mut o);
        let real = o.clone();
        o.pos = hub;
        for (ii, row) in o.cells.iter_mut().enumerate() {
            for (jj, cell) in row.iter_mut().enumerate() {
                *cell = self.world.cell_view(hub.0 as i32 + ii as i32 - 5, hub.1 as i32 + jj as i32 - 5);
            }
        }
        o.repack();
        p.know.update(&o);
        let rng = &mut self.rngs[i];
        p.act(&real, rng, true)
    }
}

#[test]
fn on_an_arena_map_pinky_only_bumps_its_goal_dest() {
    // Sim::tick asserts, for every Pinky move into an object, that the object is the goal's dest.
    let mut g = crate::games::cogsguard::tests::game("arena", &["noop"; 8]);
    g.begin(11, false);
    let map = crate::games::cogsguard::ascii::write(g.world()).join("\n");
    let spec = crate::games::cogsguard::tests::PINKY8;
    let mut sim = Sim::new(&map, &[Some(spec); 8]);
    sim.run_until(400, |_| false);
    assert!(sim.world.counters.deposited.iter().sum::<u64>() > 0);
    assert!(sim.world.counters.gear_acquired.iter().sum::<u64>() >= 6);
}
