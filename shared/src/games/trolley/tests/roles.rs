//! Role assignment (§3).

use super::super::roles::{assign_roles, cover, Coverage, EnvRng};
use super::*;

/// Runs the role schedule alone (no debate) until coverage completes; returns the rounds taken
/// and how often each agent was operator.
fn schedule(n: usize, m: usize, seed: u64, cap: usize) -> (usize, [u32; 16]) {
    let mut cov = [Coverage::default(); 16];
    let mut rng = EnvRng::new(seed);
    let mut ops = [0u32; 16];
    for round in 1..=cap {
        let roles = assign_roles(&cov[..n], m, &mut rng);
        assert_eq!(roles.majority.len(), n - 1 - m);
        assert_eq!(roles.minority.len(), m);
        assert!(!roles.sides_contain_operator());
        ops[roles.operator] += 1;
        cover(&mut cov[..n], &roles);
        if cov[..n].iter().all(|c| c.complete()) {
            return (round, ops);
        }
    }
    (cap + 1, ops)
}

trait SidesCheck {
    fn sides_contain_operator(&self) -> bool;
}

impl SidesCheck for Roles {
    fn sides_contain_operator(&self) -> bool {
        self.majority.contains(self.operator)
            || self.minority.contains(self.operator)
            || self.majority.bits() & self.minority.bits() != 0
    }
}

#[test]
fn coverage_completes_in_exactly_n_rounds_for_10000_seeds_per_n() {
    for n in 3..=12usize {
        let max_m = if n == 3 { 1 } else { (n - 2) / 2 };
        for m in 1..=max_m {
            for seed in 0..10_000u64 {
                let (rounds, ops) = schedule(n, m, seed, 4 * n);
                assert_eq!(rounds, n, "n={n} m={m} seed={seed}");
                assert!(ops[..n].iter().all(|&o| o == 1), "n={n} m={m} seed={seed}: {ops:?}");
            }
        }
    }
}

#[test]
fn n3_is_one_vs_one_and_classic_is_five_vs_one() {
    let (s, _) = started(3, MinoritySize::Balanced, None, 9);
    let r = current(&s);
    assert_eq!((r.majority.len(), r.minority.len()), (1, 1));
    let (s, _) = started(7, MinoritySize::Fixed(1), None, 9);
    let r = current(&s);
    assert_eq!((r.majority.len(), r.minority.len()), (5, 1));
    assert_eq!(s.minority_size(), 1);
}

#[test]
fn first_round_follows_the_two_shuffles() {
    // With no coverage yet every key ties, so round 1 is the raw shuffles: a[0] is the
    // operator and b[0..m] the minority.
    for seed in 0..50 {
        let mut stream = crate::seeding::Stream::env(seed);
        let mut a: Vec<usize> = (0..5).collect();
        stream.shuffle(&mut a);
        let mut b: Vec<usize> = (0..5).filter(|&s| s != a[0]).collect();
        stream.shuffle(&mut b);
        let (s, _) = started(5, MinoritySize::Balanced, None, seed);
        let r = current(&s);
        assert_eq!(usize::from(r.operator), a[0]);
        assert_eq!(r.minority.iter().collect::<Vec<_>>(), vec![b[0]]);
        assert_eq!(s.env_draws(), 4 + 3);
    }
}

#[test]
fn sort_keys_prefer_uncovered_agents() {
    // Seat 0 was operator: never operator again while others have not been. Seats 1, 2 were
    // minority: the minority prefers seats never in it.
    let mut cov = [Coverage::default(); 5];
    cov[0] = Coverage { operator: true, majority: false, minority: false };
    cov[1].minority = true;
    cov[2].minority = true;
    for seed in 0..200 {
        let roles = assign_roles(&cov, 1, &mut EnvRng::new(seed));
        assert_ne!(roles.operator, 0);
        // Operators come first among never-operators that were minority (seats 1, 2).
        assert!(roles.operator == 1 || roles.operator == 2, "seed {seed}: {roles:?}");
        let minority = roles.minority.iter().next().unwrap();
        // Minority: never-minority first (0, 3, 4 minus nothing), preferring never-operator (3, 4).
        assert!(minority == 3 || minority == 4, "seed {seed}: {roles:?}");
    }
}

#[test]
fn roles_do_not_depend_on_play() {
    // Same seed, different decisions and arguments: the same schedule.
    let (mut a, _) = started(6, MinoritySize::Balanced, None, 77);
    let (mut b, _) = started(6, MinoritySize::Balanced, None, 77);
    while !a.is_terminal() {
        play_round(&mut a, Decision::SaveMajority);
        if !a.is_terminal() {
            a.start_next_round(&mut NoEvents).unwrap();
        }
    }
    while !b.is_terminal() {
        let r = current(&b);
        b.submit_argument(r.id, r.sides().iter().next().unwrap(), &ArgText::new("hear me"), &mut NoEvents).unwrap();
        play_round(&mut b, Decision::SaveMinority);
        if !b.is_terminal() {
            b.start_next_round(&mut NoEvents).unwrap();
        }
    }
    let roles = |s: &TrolleyState| s.rounds().iter().map(|r| (r.operator, r.majority, r.minority)).collect::<Vec<_>>();
    assert_eq!(roles(&a), roles(&b));
    assert_eq!(a.rounds().len(), 6);
}

#[test]
fn env_rng_snapshot_resumes_the_stream() {
    let mut rng = EnvRng::new(5);
    let cov = [Coverage::default(); 7];
    assign_roles(&cov, 2, &mut rng);
    let json = serde_json::to_string(&rng).unwrap();
    let mut back: EnvRng = serde_json::from_str(&json).unwrap();
    assert_eq!(back, rng);
    assert_eq!(assign_roles(&cov, 2, &mut back), assign_roles(&cov, 2, &mut rng));
}
