//! Map generation (§4.2–§4.4) and the ASCII format (§4.5).

use super::{game, world, PINKY8};
use crate::games::cogsguard::ascii;
use crate::games::cogsguard::mapgen::BASE_OBJECTS;
use crate::games::cogsguard::state::World;
use crate::games::cogsguard::types::Kind;

/// §4.4 invariant: open cells form one component and every object has an open 4-neighbour.
fn assert_connected(w: &World) {
    let open = |r: u16, c: u16| !w.is_wall(r, c) && w.object_at(r, c).is_none();
    let n = w.wall.len();
    let mut seen = vec![false; n];
    let start = (0..n).find(|&i| open((i / w.cols as usize) as u16, (i % w.cols as usize) as u16)).unwrap();
    let mut stack = vec![start];
    seen[start] = true;
    while let Some(i) = stack.pop() {
        let (r, c) = ((i / w.cols as usize) as i32, (i % w.cols as usize) as i32);
        for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
            let (rr, cc) = (r + dr, c + dc);
            if w.in_grid(rr, cc) && open(rr as u16, cc as u16) {
                let j = w.idx(rr as u16, cc as u16);
                if !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
    }
    for r in 0..w.rows {
        for c in 0..w.cols {
            if open(r, c) {
                assert!(seen[w.idx(r, c)], "open cell ({r},{c}) is cut off");
            }
        }
    }
    for o in w.objects.iter().filter(|o| o.present) {
        let (r, c) = (o.row as i32, o.col as i32);
        let has = [(-1, 0), (1, 0), (0, -1), (0, 1)]
            .iter()
            .any(|(dr, dc)| w.in_grid(r + dr, c + dc) && open((r + dr) as u16, (c + dc) as u16));
        assert!(has, "object at ({r},{c}) has no open neighbour");
    }
}

fn generated(scenario: &str, seed: u64) -> World {
    let mut g = game(scenario, &["noop"; 8]);
    g.begin(seed, false);
    g.world().clone()
}

#[test]
fn arena_maps_hold_the_base_and_the_pads_and_are_connected() {
    for seed in 0..6 {
        let w = generated("arena", seed);
        assert_eq!((w.rows, w.cols), (50, 50));
        let (r0, c0) = (25i32, 25i32);
        for ((dr, dc), kind, align) in BASE_OBJECTS {
            let o = w.object_at((r0 + dr) as u16, (c0 + dc) as u16).expect("base object");
            assert_eq!(o.kind, kind);
            if kind == Kind::Junction {
                assert_eq!(o.align, align);
            }
        }
        // Base walls with gates.
        assert!(w.is_wall(15, 20) && !w.is_wall(15, 23) && !w.is_wall(27, 35) && w.is_wall(28, 35));
        let pads: Vec<(i32, i32)> = w.agents.iter().map(|a| (a.row as i32 - r0, a.col as i32 - c0)).collect();
        assert_eq!(pads, [(-3, -3), (-3, 3), (-2, 0), (0, -3), (0, -2), (0, 2), (0, 3), (2, 0)]);
        assert!(w.junctions.len() > 5, "buildings were placed");
        assert_connected(&w);
    }
}

#[test]
fn machina_and_resized_maps_are_connected() {
    let w = generated("machina", 7);
    assert_eq!((w.rows, w.cols), (98, 98));
    assert_connected(&w);
    let w = generated("arena?rows=30&cols=70&coverage_permille=200", 3);
    assert_eq!((w.rows, w.cols), (40, 80));
    assert_connected(&w);
    let w = generated("arena?coverage_permille=0", 3);
    assert_eq!(w.junctions.len(), 1, "only the base junction");
}

#[test]
fn generated_maps_round_trip_through_ascii_text() {
    for seed in [1, 2, 99] {
        let w = generated("arena", seed);
        let text = ascii::write(&w).join("\n");
        let back = world(&text);
        assert_eq!(ascii::write(&back).join("\n"), text);
        assert_eq!(back.objects, w.objects);
        assert_eq!(back.agents, w.agents);
        assert_eq!((back.pool, back.max_steps, back.clips), (w.pool, w.max_steps, w.clips));
    }
}

#[test]
fn the_same_seed_gives_the_same_map_for_any_policy_set() {
    for seed in [4, 5] {
        let mut a = game("arena", &["noop"; 8]);
        let mut b = game("arena", &[PINKY8; 8]);
        a.begin(seed, false);
        b.begin(seed, false);
        assert_eq!(ascii::write(a.world()), ascii::write(b.world()));
    }
    assert_ne!(ascii::write(&generated("arena", 1)), ascii::write(&generated("arena", 2)));
}

#[test]
fn tiny_3p_parses_with_its_header() {
    let l = ascii::parse(ascii::TINY_3P).unwrap();
    assert_eq!((l.rows, l.cols, l.max_steps), (12, 17, Some(300)));
    assert_eq!(l.pads, [(5, 5), (5, 11), (7, 12)]);
    let w = world(ascii::TINY_3P);
    assert_eq!(w.junction_counts, [1, 0, 1]);
    assert_eq!(w.object_at(5, 8).unwrap().kind, Kind::Hub);
    assert_eq!(w.object_at(8, 7).unwrap().kind, Kind::ScramblerStation);
}

#[test]
fn ascii_errors_are_reported() {
    for (text, needle) in [
        ("###\n#@\n###", "ragged"),
        ("###\n#@x\n###", "unknown map character"),
        ("###\n#.#\n###", "1..=20"),
        (";max_steps=0\n@", "bad value"),
        (";colour=red\n@", "unknown header"),
        (";pool=1,2,3\n@", "bad value"),
    ] {
        let e = ascii::parse(text).unwrap_err();
        assert!(e.0.contains(needle), "{text:?}: {e}");
    }
    assert!(ascii::parse(&"@".repeat(21)).is_err());
}
