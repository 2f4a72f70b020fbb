//! The rules driven the way the arena drives them (§12): opaque ids, a random round-id base,
//! deadlines and admin advances (the JSON views are the arena's: `coordinator::arena::dto`).

use super::*;

fn arena_game(n: usize, seed: u64, events: &mut Vec<Event>) -> TrolleyState {
    let mut s = TrolleyState::new_game(TrolleyConfig::default(), seed, 0xdead_beef_0000, events).unwrap();
    for i in 0..n {
        s.register(&format!("Player {i}"), &format!("opaque-{i:04x}"), events).unwrap();
    }
    s
}

#[test]
fn an_arena_game_has_the_headless_roles_for_the_same_seed_and_n() {
    for (scenario, n) in [("balanced_5p", 5), ("large_10p", 10), ("trio_3p", 3)] {
        let mut g = prepare(scenario, &team("persuadable", n)).unwrap();
        g.play(123, false);
        let mut events = Vec::new();
        let mut s = arena_game(n, 123, &mut events);
        s.start(&mut events).unwrap();
        while !s.is_terminal() {
            // Deadlines, admin and explicit actions mixed: roles must not care.
            s.expire_phase(&mut events).unwrap();
            s.advance(AdvanceAction::NextPhase, &mut events).unwrap();
            all_skip(&mut s);
            s.expire_decision(&mut events).unwrap();
            if !s.is_terminal() {
                s.advance(AdvanceAction::NextPhase, &mut events).unwrap();
            }
        }
        let roles =
            |st: &TrolleyState| st.rounds().iter().map(|r| (r.operator, r.majority, r.minority)).collect::<Vec<_>>();
        assert_eq!(roles(&s), roles(g.state()), "{scenario}");
    }
}
