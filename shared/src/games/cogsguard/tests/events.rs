//! Clips events on schedule (§10), with their filters and fallbacks.

use super::{step, world};
use crate::games::cogsguard::events::{ClipsEvent, Event};
use crate::games::cogsguard::types::{action::NOOP, Align};
use crate::seeding::Stream;

fn run_to(w: &mut crate::games::cogsguard::World, env: &mut Stream, t: u32) {
    while w.t < t {
        step(w, env, &vec![NOOP; w.agents.len()]);
    }
}

#[test]
fn initial_clips_fires_at_t_10() {
    let mut w = world("#####\n#@.J#\n#####");
    let mut env = Stream::env(5);
    run_to(&mut w, &mut env, 9);
    assert_eq!(w.objects[0].align, Align::Neutral);
    w.log_events = true;
    run_to(&mut w, &mut env, 10);
    assert_eq!(w.objects[0].align, Align::Clips);
    assert_eq!(w.counters.clips_captured, 1);
    assert_eq!(
        w.events,
        vec![Event::Clips {
            event: ClipsEvent::InitialClips,
            applied: ClipsEvent::InitialClips,
            pos: (1, 3),
            to: Align::Clips
        }]
    );
}

fn set(w: &mut crate::games::cogsguard::World, r: u16, c: u16, a: Align) {
    let j = w.obj_at[w.idx(r, c)];
    w.set_align(j, a);
}

#[test]
fn cogs_near_clips_turn_neutral_at_50_and_neutral_near_clips_turn_clips_at_100() {
    // One clips, one cogs, one neutral junction, all within 25 of each other.
    let mut w = world("#######\n#@k.jJ#\n#######");
    let mut env = Stream::env(1);
    run_to(&mut w, &mut env, 10);
    for (c, a) in [(2, Align::Clips), (4, Align::Cogs), (5, Align::Neutral)] {
        set(&mut w, 1, c, a);
    }
    run_to(&mut w, &mut env, 49);
    assert_eq!(w.junction_counts, [1, 1, 1]);
    run_to(&mut w, &mut env, 50);
    assert_eq!(w.object_at(1, 4).unwrap().align, Align::Neutral);
    run_to(&mut w, &mut env, 99);
    assert_eq!(w.junction_counts, [2, 0, 1]);
    run_to(&mut w, &mut env, 100);
    assert_eq!(w.junction_counts, [1, 0, 2], "neutral_to_clips at t = 100");
}

#[test]
fn neutral_to_clips_falls_back_to_cogs_to_neutral() {
    // The only other junction is cogs: no neutral one near clips at t = 100.
    let mut w = world("######\n#@k.j#\n######");
    let mut env = Stream::env(2);
    run_to(&mut w, &mut env, 49);
    // Put the cogs junction back after initial_clips / cogs_to_neutral had their turn.
    run_to(&mut w, &mut env, 99);
    let j = w.obj_at[w.idx(1, 4)];
    if w.objects[j as usize].align != Align::Cogs {
        w.set_align(j, Align::Cogs);
    }
    w.log_events = true;
    run_to(&mut w, &mut env, 100);
    assert_eq!(w.objects[j as usize].align, Align::Neutral);
    assert!(matches!(
        w.events[..],
        [Event::Clips { event: ClipsEvent::NeutralToClips, applied: ClipsEvent::CogsToNeutral, .. }]
    ));
}

#[test]
fn presence_check_recaptures_when_no_clips_junction_is_left() {
    let mut w = world("######\n#@J.J#\n######");
    let mut env = Stream::env(3);
    run_to(&mut w, &mut env, 10);
    assert_eq!(w.junction_counts, [1, 0, 1]);
    let k = w.junctions.iter().copied().find(|&j| w.objects[j as usize].align == Align::Clips).unwrap();
    w.set_align(k, Align::Neutral);
    w.log_events = true;
    run_to(&mut w, &mut env, 50);
    assert_eq!(w.junction_counts, [1, 0, 1]);
    assert!(matches!(
        w.events[..],
        [Event::Clips { event: ClipsEvent::PresenceCheck, applied: ClipsEvent::InitialClips, .. }]
    ));
}

#[test]
fn near_clips_is_chebyshev_25() {
    let pad = ".".repeat(24);
    let w = world(&format!("#k{pad}JJ#\n#@{pad}..#"));
    assert!(w.near_clips(w.obj_at[w.idx(0, 1)]), "a clips junction is near itself");
    assert!(w.near_clips(w.obj_at[w.idx(0, 26)]), "cheb 25 is near");
    assert!(!w.near_clips(w.obj_at[w.idx(0, 27)]), "cheb 26 is not");
}

#[test]
fn no_junctions_means_no_events_and_no_draws() {
    let mut w = world("###\n#@#\n###");
    let mut env = Stream::env(9);
    run_to(&mut w, &mut env, 200);
    assert_eq!(env.next_u64(), Stream::env(9).next_u64(), "one agent, no junctions: no draw at all");
}

#[test]
fn clips_off_disables_every_event() {
    let mut w = world(";clips=off\n#####\n#@.J#\n#####");
    let mut env = Stream::env(5);
    run_to(&mut w, &mut env, 300);
    assert_eq!(w.junction_counts, [1, 0, 0]);
}
