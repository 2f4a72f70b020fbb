//! The transition tables of §13.8, row by row: the design note's (idle → get_gear → role mode;
//! any → retreat → idle; harvest ↔ deposit; acquire_hearts ↔ align/raid; any → idle on timeout)
//! and ours (frontier_explore → report → idle; get_gear/acquire_hearts/idle → explore → resume;
//! align_junction → move_to → align_junction).

use super::roles::MINER_MAP;
use super::Sim;
use crate::games::cogsguard::obs::Observation;
use crate::games::cogsguard::pinky::{Dest, DestKind, Goal, GoalKind, Mode, Role, Thing};
use crate::games::cogsguard::types::{obs_align, vibe, Gear, Kind};

/// A sim whose agent 0 has made its first decision (knowledge sized and filled).
fn ready(map: &str, spec: &str, v: u8) -> Sim {
    let mut sim = Sim::new(map, &[Some(spec)]);
    sim.world.agents[0].vibe = v;
    sim.decide(0);
    sim
}

fn obs(sim: &mut Sim) -> Observation {
    sim.world.observe(0, sim.world.team_vibes(), &mut sim.obs);
    let o = sim.obs.clone();
    sim.p(0).know.update(&o);
    o
}

/// Sets mode (and goal) then runs the success check.
fn success(sim: &mut Sim, mode: Mode, goal: Option<Goal>) -> Option<Mode> {
    let o = obs(sim);
    let p = sim.p(0);
    p.mode = mode;
    p.goal = goal;
    p.success(&o)
}

fn goal(kind: GoalKind, k: Kind, pos: (u16, u16)) -> Option<Goal> {
    Some(Goal { kind, dest: Some(Dest { kind: DestKind::Object(k), pos }), started_at_step: 0 })
}

const HEART_MAP: &str =
    ";clips=off\n###############\n#.............#\n#.&...@...J...#\n#.............#\n#..=..A.X.....#\n###############";

#[test]
fn idle_to_get_gear_when_the_role_has_no_gear() {
    let mut sim = ready(MINER_MAP, "pinky?miner=1", vibe::MINER);
    let p = sim.p(0);
    assert_eq!(p.mode, Mode::GetGear);
    assert_eq!(p.goal.unwrap().dest.unwrap().kind, DestKind::Object(Kind::MinerStation));
}

#[test]
fn get_gear_to_the_role_mode_once_the_gear_is_held() {
    let mut sim = ready(MINER_MAP, "pinky?miner=1", vibe::MINER);
    sim.world.agents[0].gear = Gear::Miner;
    assert_eq!(success(&mut sim, Mode::GetGear, None), Some(Mode::Idle));
    sim.p(0).mode = Mode::GetGear;
    sim.decide(0);
    assert_eq!(sim.p(0).mode, Mode::Harvest, "idle picks harvest in the same step");
}

#[test]
fn any_mode_to_retreat_and_back_to_idle() {
    let mut sim = ready(HEART_MAP, "pinky?aligner=1", vibe::ALIGNER);
    sim.world.agents[0].hp = 10; // desperate
    sim.p(0).mode = Mode::AcquireHearts;
    sim.decide(0);
    assert_eq!(sim.p(0).mode, Mode::Retreat);
    sim.world.agents[0].hp = 95;
    assert_eq!(success(&mut sim, Mode::Retreat, None), Some(Mode::Idle));
    sim.world.agents[0].hp = 80;
    assert_eq!(success(&mut sim, Mode::Retreat, None), None, "pct < 90 keeps retreating");
}

#[test]
fn a_flexible_agent_that_lost_its_gear_in_retreat_rests() {
    let mut sim = ready(HEART_MAP, "pinky", vibe::DEFAULT);
    let p = sim.p(0);
    (p.role, p.fixed, p.retreat_gear) = (Role::Aligner, false, true);
    sim.world.agents[0].hp = 100;
    assert_eq!(success(&mut sim, Mode::Retreat, None), Some(Mode::Idle));
    assert_eq!(sim.p(0).role, Role::Resting);
}

#[test]
fn harvest_to_deposit_and_back() {
    let mut sim = ready(MINER_MAP, "pinky?miner=1", vibe::MINER);
    sim.world.agents[0].gear = Gear::Miner;
    sim.world.agents[0].cargo = [40, 0, 0, 0];
    assert_eq!(success(&mut sim, Mode::Harvest, None), Some(Mode::Deposit));
    sim.world.agents[0].cargo = [0; 4];
    assert_eq!(success(&mut sim, Mode::Deposit, None), Some(Mode::Harvest));
    // No usable extractor left: deposit → idle.
    let c = sim.find(Kind::CarbonExtractor);
    let i = sim.world.obj_at[sim.world.idx(c.0, c.1)];
    sim.world.objects[i as usize].present = false;
    let cell = sim.world.idx(c.0, c.1);
    sim.world.obj_at[cell] = u16::MAX;
    sim.world.refresh_view(cell);
    assert_eq!(success(&mut sim, Mode::Deposit, None), Some(Mode::Idle));
}

#[test]
fn acquire_hearts_to_align_junction_and_back() {
    let mut sim = ready(HEART_MAP, "pinky?aligner=1", vibe::ALIGNER);
    sim.world.agents[0].gear = Gear::Aligner;
    sim.world.agents[0].heart = 1;
    assert_eq!(success(&mut sim, Mode::AcquireHearts, None), Some(Mode::AlignJunction));
    let j = sim.find(Kind::Junction);
    let ji = sim.world.obj_at[sim.world.idx(j.0, j.1)];
    sim.world.set_align(ji, crate::games::cogsguard::types::Align::Cogs);
    sim.world.agents[0].heart = 0;
    let g = goal(GoalKind::AlignJunction, Kind::Junction, j);
    assert_eq!(success(&mut sim, Mode::AlignJunction, g), Some(Mode::AcquireHearts));
    sim.world.agents[0].heart = 2;
    assert_eq!(success(&mut sim, Mode::AlignJunction, g), Some(Mode::AlignJunction), "next target");
    sim.world.set_align(ji, crate::games::cogsguard::types::Align::Clips);
    assert_eq!(success(&mut sim, Mode::AlignJunction, g), Some(Mode::Idle), "seen clips");
    // Hearts but no eligible target: explore for a neutral junction, then resume.
    sim.world.agents[0].heart = 1;
    assert_eq!(success(&mut sim, Mode::AcquireHearts, None), Some(Mode::Explore));
    assert_eq!((sim.p(0).explore_for, sim.p(0).resume), (Thing::NeutralJunction, Mode::AlignJunction));
}

#[test]
fn acquire_hearts_to_raid_junction_and_back() {
    let map = ";clips=off\n###############\n#.............#\n#.&...@...k...#\n#.............#\n#..=....X.....#\n###############";
    let mut sim = ready(map, "pinky?scrambler=1", vibe::SCRAMBLER);
    sim.world.agents[0].gear = Gear::Scrambler;
    sim.world.agents[0].heart = 1;
    assert_eq!(success(&mut sim, Mode::AcquireHearts, None), Some(Mode::RaidJunction));
    let k = sim.find(Kind::Junction);
    let ki = sim.world.obj_at[sim.world.idx(k.0, k.1)];
    let g = goal(GoalKind::ScrambleJunction, Kind::Junction, k);
    assert_eq!(success(&mut sim, Mode::RaidJunction, g), None, "still clips");
    sim.world.set_align(ki, crate::games::cogsguard::types::Align::Neutral);
    sim.world.agents[0].heart = 0;
    assert_eq!(success(&mut sim, Mode::RaidJunction, g), Some(Mode::AcquireHearts));
    sim.world.set_align(ki, crate::games::cogsguard::types::Align::Cogs);
    assert_eq!(success(&mut sim, Mode::RaidJunction, g), Some(Mode::Idle), "seen cogs");
}

#[test]
fn any_mode_to_idle_on_goal_timeout() {
    let mut sim = ready(MINER_MAP, "pinky?miner=1&timeout=10", vibe::MINER);
    let j = sim.find(Kind::CarbonExtractor);
    let p = sim.p(0);
    p.mode = Mode::Harvest;
    p.goal = goal(GoalKind::Get(0), Kind::CarbonExtractor, j).map(|g| Goal { started_at_step: 0, ..g });
    for _ in 0..10 {
        sim.world.t += 1; // ten decision steps pass without success
    }
    sim.world.agents[0].gear = Gear::Miner;
    sim.decide(0);
    let p = sim.p(0);
    assert_eq!(p.avoid[p.know.idx(j)], 10 + 200, "the extractor is avoided");
    assert_ne!(p.mode, Mode::Harvest, "the only extractor is avoided: nothing to harvest");
}

#[test]
fn frontier_explore_to_report_to_idle() {
    // A fully visible map: no frontier, no stale junction.
    let map = ";clips=off\n#########\n#&...@..#\n#########";
    let mut sim = ready(map, "pinky?scout=1", vibe::SCOUT);
    (sim.world.agents[0].gear, sim.world.agents[0].hp) = (Gear::Scout, 400);
    sim.p(0).mode = Mode::FrontierExplore;
    sim.decide(0);
    assert_eq!(sim.p(0).mode, Mode::Report);
    assert_eq!(sim.p(0).goal.unwrap().kind, GoalKind::Report);
    let hub = sim.find(Kind::Hub);
    let g = Some(Goal {
        kind: GoalKind::Report,
        dest: Some(Dest { kind: DestKind::Object(Kind::Hub), pos: hub }),
        started_at_step: 0,
    });
    assert_eq!(success(&mut sim, Mode::Report, g), None);
    let cell = sim.world.idx(1, 5);
    sim.world.agent_cell[cell] = u16::MAX;
    sim.world.agents[0].col = 2;
    let cell = sim.world.idx(1, 2);
    sim.world.agent_cell[cell] = 0;
    assert_eq!(success(&mut sim, Mode::Report, g), Some(Mode::Idle));
}

#[test]
fn get_gear_explores_for_an_unknown_station_and_resumes() {
    let map = ";clips=off\n####################\n#&.@..............M#\n####################";
    let mut sim = ready(map, "pinky?miner=1", vibe::MINER);
    assert_eq!(sim.p(0).mode, Mode::Explore);
    assert_eq!((sim.p(0).explore_for, sim.p(0).resume), (Thing::Station(Gear::Miner), Mode::GetGear));
    assert_eq!(sim.p(0).goal.unwrap().dest.unwrap().kind, DestKind::Frontier);
    assert!(sim.run_until(30, |s| s.agents[0].as_ref().unwrap().mode == Mode::GetGear));
}

#[test]
fn acquire_hearts_explores_for_an_unknown_chest() {
    let map = ";clips=off\n####################\n#&.@.A............=#\n####################";
    let mut sim = ready(map, "pinky?aligner=1", vibe::ALIGNER);
    sim.world.agents[0].gear = Gear::Aligner;
    sim.p(0).mode = Mode::AcquireHearts;
    sim.decide(0);
    assert_eq!(
        (sim.p(0).mode, sim.p(0).explore_for, sim.p(0).resume),
        (Mode::Explore, Thing::Chest, Mode::AcquireHearts)
    );
}

#[test]
fn idle_explores_for_an_extractor_when_none_is_known() {
    let map = ";clips=off\n;pool=0,0,0,0,0\n####################\n#&.@..............C#\n####################";
    let sim = ready(map, "pinky?miner=1", vibe::MINER);
    let p = sim.agents[0].as_ref().unwrap();
    assert_eq!((p.mode, p.explore_for, p.resume), (Mode::Explore, Thing::Extractor, Mode::Idle));
}

#[test]
fn align_junction_recharges_through_move_to() {
    let map = ";clips=off\n##############################\n#&...........................#\n#.....................@..J...#\n##############################";
    let mut sim = ready(map, "pinky?aligner=1", vibe::ALIGNER);
    let a = &mut sim.world.agents[0];
    (a.gear, a.heart, a.influence, a.hp) = (Gear::Aligner, 1, 0, 100);
    // Teach the hub so that safety is known, then decide in align_junction.
    let hub = sim.find(Kind::Hub);
    sim.p(0).mode = Mode::AlignJunction;
    sim.decide_at(0, hub);
    let p = sim.p(0);
    assert_eq!(p.mode, Mode::MoveTo);
    assert_eq!((p.goal.unwrap().kind, p.resume), (GoalKind::Recharge, Mode::AlignJunction));
    assert_eq!(p.goal.unwrap().dest.unwrap().kind, DestKind::Safe);
    // Recharged: back to align_junction.
    sim.world.agents[0].influence = 20;
    let g = sim.p(0).goal;
    assert_eq!(success(&mut sim, Mode::MoveTo, g), Some(Mode::AlignJunction));
    let _ = obs_align::NEUTRAL;
}
