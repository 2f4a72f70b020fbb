//! The summary table: figures, shares, best and worst seeds, rounding, merging.

use super::*;

#[test]
fn mean_ci_and_shares() {
    let mut s = Summary::default();
    for (seed, (r, o)) in
        [(1.0, "success"), (2.0, "failure"), (3.0, "success"), (4.0, "success")].into_iter().enumerate()
    {
        s.add("bucket_brigade", "v1", "default", "p", 10 + seed as u64, r, 10, o).unwrap();
    }
    let c = &s.cells[0];
    assert_eq!(c.episodes, 4);
    assert!((c.mean() - 2.5).abs() < 1e-12);
    // sd = sqrt(5/3), se = sd/2
    assert!((c.ci95() - 1.96 * (5.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-12);
    assert!((c.share("success") - 0.75).abs() < 1e-12);
    let t = s.table();
    assert!(t.contains("75.0%"), "{t}");
    assert!(t.contains("success 75.0%, failure 25.0%"), "{t}");
    assert!(t.contains("4.00 (13)") && t.contains("1.00 (10)"), "best and worst with their seeds: {t}");
}

#[test]
fn values_on_a_rounding_edge_print_the_same_from_either_side() {
    let edge = 45.175f64;
    let (below, above) = (edge - 4.0 * f64::EPSILON * edge, edge + 4.0 * f64::EPSILON * edge);
    assert_eq!((format!("{below:.2}"), format!("{above:.2}")), ("45.17".into(), "45.18".into()));
    assert_eq!(two_decimals(below), two_decimals(above));
    assert_eq!(two_decimals(-1234.5678), "-1234.57");
    assert_eq!(two_decimals(1e-9), "0.00");
    assert_eq!(two_decimals(0.0), "0.00");
}

#[test]
fn tokens_per_episode_only_for_cells_with_llm_seats() {
    let mut s = Summary::default();
    s.add("bucket_brigade", "v1", "default", "p", 0, 1.0, 3, "success").unwrap();
    assert!(!s.table().contains("tokens/episode"), "no llm seat, no column");
    let llm = serde_json::json!({
        "0": {"prompt_tokens": 100, "completion_tokens": 20},
        "2": {"prompt_tokens": 50, "completion_tokens": 10}
    });
    for stats in [llm, serde_json::json!({})] {
        s.add("deception", "v1", "classic_5p1i", "llm", 0, 1.0, 9, "crewmates").unwrap();
        s.add_tokens("deception", "classic_5p1i", "llm", llm_tokens(Some(&stats)));
    }
    let cell = &s.cells[1];
    assert_eq!((cell.episodes, cell.tokens_per_episode()), (2, Some(180.0)), "an empty llm stat is no llm episode");
    let t = s.table();
    assert!(t.lines().next().unwrap().ends_with("tokens/episode"), "{t}");
    assert!(t.lines().nth(2).unwrap().ends_with('—'), "{t}");
    assert!(t.lines().nth(3).unwrap().ends_with("180"), "{t}");
}

#[test]
fn refuses_mixed_engine_versions() {
    let mut s = Summary::default();
    s.add("trolley", "0.1.0+trolley-rules-1", "a", "p", 0, 1.0, 1, "x").unwrap();
    assert!(s.add("trolley", "0.1.0+trolley-rules-2", "a", "p", 0, 1.0, 1, "x").is_err());
    assert!(s.add("deception", "0.1.0+deception-rules-1", "a", "p", 0, 1.0, 1, "x").is_ok());
}

fn result(start: u64) -> simfleet::JobResult {
    let job = simfleet::Job {
        protocol_version: simfleet::PROTOCOL_VERSION,
        sweep: "sum-000000000000".into(),
        index: start,
        game: "bucket_brigade".into(),
        scenario: "hard".into(),
        policy_set: simfleet::protocol::PolicySet { name: "team".into(), seats: vec!["random".into(); 4] },
        seeds: simfleet::protocol::SeedRange { start, count: 40 },
        replay: false,
        collect: Default::default(),
        paired: Vec::new(),
    };
    simfleet::run_job(&job, &simfleet::RunEnv::default())
}

#[test]
fn merged_job_summaries_equal_one_running_summary() {
    let results: Vec<_> = (0..5).map(|i| result(i * 40)).collect();
    let mut running = Summary::default();
    let mut merged = Summary::default();
    for r in &results {
        running.add_result(r).unwrap();
        let mut part = Summary::default();
        part.add_result(r).unwrap();
        merged.merge(&part).unwrap();
    }
    let (a, b) = (running.cells.values().next().unwrap(), merged.cells.values().next().unwrap());
    assert_eq!((a.episodes, &a.outcomes), (b.episodes, &b.outcomes));
    assert!((a.mean() - b.mean()).abs() < 1e-9 && (a.ci95() - b.ci95()).abs() < 1e-9);
    assert!((a.mean_length() - b.mean_length()).abs() < 1e-12);
    assert_eq!(running.table(), merged.table());
}
