use simfleet::seeding::Stream;

use super::model::Model;
use super::teams::{generate, members_of, team_name};
use super::*;
use crate::sweep::Sweep;

/// Approximately N(0, 1): the sum of 12 uniforms minus 6.
fn normal(s: &mut Stream) -> f64 {
    (0..12).map(|_| s.unit()).sum::<f64>() - 6.0
}

const PLANTED: [f64; 6] = [12.0, 7.0, 3.0, 0.0, -5.0, -17.0];

/// Synthetic episodes: 2 scenarios × `seeds` × 30 teams of 4 from 6 policies with contributions
/// [`PLANTED`], plus scenario and seed effects and N(0, 10²) noise. With `shared_seeds` false,
/// every team plays its own seeds.
fn planted_model(seeds: u64, shared_seeds: bool) -> Model {
    let roster: Vec<String> = (0..6).map(|i| format!("p{i}")).collect();
    let teams = generate(6, 4, 30, 11).unwrap();
    let mut model = Model::default();
    let mut noise = Stream::new(1234, 5);
    for (s, scenario) in ["calm", "stormy?x=1"].iter().enumerate() {
        for (ti, team) in teams.iter().enumerate() {
            let members: Vec<&str> = team.iter().map(|&m| roster[m].as_str()).collect();
            let name = team_name("team", ti + 1, teams.len(), &members);
            for i in 0..seeds {
                let seed = if shared_seeds { i } else { (ti as u64 + 1) * 100_000 + i };
                let seed_effect = 40.0 * (Stream::new(seed, 7 + s as u64).unit() - 0.5);
                let skill: f64 = team.iter().map(|&m| PLANTED[m]).sum();
                let y = 100.0 + 200.0 * s as f64 + seed_effect + skill + 10.0 * normal(&mut noise);
                model.add(&name, Some(&members), scenario, seed, y);
            }
        }
    }
    model
}

/// The same episodes as [`planted_model`] without shared seeds, but added as one aggregate per
/// (team, scenario), as a summary file holds them.
fn planted_aggregates(seeds: u64) -> Model {
    let roster: Vec<String> = (0..6).map(|i| format!("p{i}")).collect();
    let teams = generate(6, 4, 30, 11).unwrap();
    let mut model = Model::default();
    let mut noise = Stream::new(1234, 5);
    for (s, scenario) in ["calm", "stormy?x=1"].iter().enumerate() {
        for (ti, team) in teams.iter().enumerate() {
            let members: Vec<&str> = team.iter().map(|&m| roster[m].as_str()).collect();
            let name = team_name("team", ti + 1, teams.len(), &members);
            let mut reward = simfleet::aggregate::Moments::default();
            for i in 0..seeds {
                let seed = (ti as u64 + 1) * 100_000 + i;
                let seed_effect = 40.0 * (Stream::new(seed, 7 + s as u64).unit() - 0.5);
                let skill: f64 = team.iter().map(|&m| PLANTED[m]).sum();
                reward.add(100.0 + 200.0 * s as f64 + seed_effect + skill + 10.0 * normal(&mut noise), seed);
            }
            model.add_aggregate(&name, Some(&members), scenario, &reward);
        }
    }
    model
}

#[test]
fn rank_from_cell_aggregates_equals_rank_from_rows_blocked_on_scenarios() {
    let rows = planted_model(150, false).fit("synthetic", DEFAULT_RIDGE).unwrap();
    let cells = planted_aggregates(150);
    check_recovers_planted(&cells, false);
    let fit = cells.fit("synthetic", DEFAULT_RIDGE).unwrap();
    assert!(rows.seeds_known && !fit.seeds_known, "a fit on aggregates says its seeds were unknown");
    assert!(table::heading(&fit).contains("seed blocks not available"), "{}", table::heading(&fit));
    assert_eq!((fit.episodes, fit.blocks), (rows.episodes, rows.blocks));
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0);
    assert!(close(fit.residual_sd, rows.residual_sd), "{} vs {}", fit.residual_sd, rows.residual_sd);
    for (a, b) in fit.policies.iter().zip(&rows.policies) {
        assert_eq!(a.policy, b.policy);
        assert!(close(a.contribution, b.contribution) && close(a.low, b.low) && close(a.high, b.high), "{a:?} {b:?}");
    }
}

fn check_recovers_planted(model: &Model, seed_blocks: bool) {
    let fit = model.fit("synthetic", DEFAULT_RIDGE).unwrap();
    assert_eq!(fit.seed_blocks, seed_blocks);
    assert_eq!(fit.policies.len(), 6);
    let order: Vec<&str> = fit.policies.iter().map(|p| p.policy.as_str()).collect();
    assert_eq!(order, ["p0", "p1", "p2", "p3", "p4", "p5"], "{fit:#?}");
    for p in &fit.policies {
        let i: usize = p.policy[1..].parse().unwrap();
        let truth = PLANTED[i];
        assert!(p.low <= truth && truth <= p.high, "{}: {truth} outside [{}, {}]", p.policy, p.low, p.high);
        assert!(p.high - p.low < 2.0, "{}: interval [{}, {}] is too wide", p.policy, p.low, p.high);
        assert_eq!(p.rank, i + 1);
        assert_eq!(p.appearances, 20 * 2 * 150, "20 seats per policy × 2 scenarios × 150 seeds");
    }
    assert!(fit.policies[0].marginal() > 0.0 && fit.policies[5].marginal() < 0.0, "{fit:#?}");
    let total: f64 = fit.policies.iter().map(|p| p.contribution).sum();
    assert!(total.abs() < 1e-9, "contributions are centred: {total}");
}

#[test]
fn rank_recovers_a_planted_ordering_paired_on_seeds() {
    let model = planted_model(150, true);
    check_recovers_planted(&model, true);
    // Seed blocks remove the seed effect: the residual SD is the planted noise's.
    let fit = model.fit("synthetic", DEFAULT_RIDGE).unwrap();
    assert!((fit.residual_sd - 10.0).abs() < 0.6, "residual SD {}", fit.residual_sd);
}

#[test]
fn rank_recovers_a_planted_ordering_with_scenario_effects_only() {
    let model = planted_model(150, false);
    check_recovers_planted(&model, false);
    // Without shared seeds, the seed effect (uniform, SD 40/√12 ≈ 11.5) stays in the residual.
    let fit = model.fit("synthetic", DEFAULT_RIDGE).unwrap();
    assert!((fit.residual_sd - (100.0f64 + 1600.0 / 12.0).sqrt()).abs() < 1.0, "residual SD {}", fit.residual_sd);
}

fn check_design(p: usize, k: usize, t: usize, seed: u64) -> Vec<Vec<usize>> {
    let teams = generate(p, k, t, seed).unwrap_or_else(|e| panic!("{p} policies, {t} teams of {k}: {e}"));
    assert_eq!(teams.len(), t);
    let mut seats = vec![0usize; p];
    let mut meet = vec![vec![0usize; p]; p];
    for team in &teams {
        assert_eq!(team.len(), k);
        for (i, &a) in team.iter().enumerate() {
            seats[a] += 1;
            for &b in &team[i + 1..] {
                meet[a][b] += 1;
                meet[b][a] += 1;
            }
            if p >= k {
                assert_eq!(team.iter().filter(|&&m| m == a).count(), 1, "a policy twice in {team:?}");
            }
        }
    }
    assert!(seats.iter().all(|&s| s == t * k / p), "unequal appearances {seats:?}");
    for (a, row) in meet.iter().enumerate() {
        for (b, &m) in row.iter().enumerate().skip(a + 1) {
            assert!(m > 0, "policies {a} and {b} never meet in {teams:?}");
        }
    }
    teams
}

#[test]
fn teams_are_balanced_every_pair_meets_and_the_draw_is_deterministic() {
    for &(p, k, t) in &[(5, 4, 10), (6, 4, 30), (7, 4, 35), (10, 4, 15), (9, 3, 12), (8, 5, 16), (3, 4, 6), (2, 4, 1)] {
        check_design(p, k, t, 7);
    }
    let a = check_design(7, 4, 35, 42);
    assert_eq!(a, generate(7, 4, 35, 42).unwrap(), "same seed, same teams");
    assert_ne!(a, generate(7, 4, 35, 43).unwrap(), "another seed, other teams");
    // Seats: each of 7 policies fills 20 seats, 5 per seat position on average.
    for m in 0..7 {
        for s in 0..4 {
            let n = a.iter().filter(|team| team[s] == m).count();
            assert!((3..=7).contains(&n), "policy {m} sits in seat {s} {n} times");
        }
    }
    // Meetings are spread: 35 teams × 6 pairs = 210 meetings over 21 pairs, 10 each ideally.
    let mut meet = [0; 49];
    for team in &a {
        for i in 0..4 {
            for j in i + 1..4 {
                meet[team[i].min(team[j]) * 7 + team[i].max(team[j])] += 1;
            }
        }
    }
    let spread: Vec<i32> = (0..7).flat_map(|x| (x + 1..7).map(move |y| x * 7 + y)).map(|i| meet[i]).collect();
    assert!(spread.iter().all(|&m| (9..=11).contains(&m)), "{spread:?}");
}

#[test]
fn impossible_designs_say_what_to_change() {
    let e = generate(7, 4, 30, 0).unwrap_err();
    assert!(e.contains("multiple of 7") && e.contains("35"), "{e}");
    let e = generate(10, 4, 5, 0).unwrap_err();
    assert!(e.contains("at least 8 teams"), "{e}");
    assert!(generate(1, 4, 4, 0).unwrap_err().contains("at least 2"));
}

#[test]
fn team_names_carry_their_members() {
    let members = ["firefighter", "heuristic?work_tendency=0.9&altruism_factor=0.1", "liar", "liar"];
    let name = team_name("team", 7, 30, &members);
    assert_eq!(name, "team-007 (firefighter + heuristic?work_tendency=0.9&altruism_factor=0.1 + liar + liar)");
    assert_eq!(members_of(&name).unwrap(), members);
    assert_eq!(team_name("bb", 12, 1500, &["a", "b"]), "bb-0012 (a + b)");
    for not_a_team in ["firefighters", "team-x (a + b)", "team-1 (a +b)", "team-1 (a + b", "(a + b)"] {
        assert_eq!(members_of(not_a_team), None, "{not_a_team}");
    }
}

const RANKING_SWEEP: &str = r#"
name = "rank-test"
seeds = { start = 0, count = 40 }
episodes_per_job = 20

[[cells]]
game = "bucket_brigade"
scenarios = ["default"]
[cells.policy_sets]
heroes = ["hero", "hero", "hero", "hero"]

[[rankings]]
game = "bucket_brigade"
scenarios = ["default", "rest_trap"]
roster = ["firefighter", "free_rider", "hero", "liar", "coordinator"]
team_size = 4
teams = 10
seed = 3
"#;

#[test]
fn a_rankings_section_expands_into_named_teams_after_the_cells() {
    let s = Sweep::parse(RANKING_SWEEP, "r.toml").unwrap();
    assert_eq!(s.cells.len(), 1 + 2 * 10);
    assert_eq!(s.cells[0].policy_set.name, "heroes");
    assert_eq!(s.job_count(), 21 * 2);
    for c in &s.cells[1..] {
        let members = members_of(&c.policy_set.name).unwrap();
        assert_eq!(members, c.policy_set.seats.iter().map(String::as_str).collect::<Vec<_>>());
    }
    assert_eq!(s.cells[1].policy_set, s.cells[11].policy_set, "every scenario plays the same teams");
    assert_eq!(s.cells[11].scenario, "rest_trap");
    let again = Sweep::parse(RANKING_SWEEP, "r.toml").unwrap();
    assert_eq!(s.id, again.id);
    let reseeded = Sweep::parse(&RANKING_SWEEP.replace("seed = 3", "seed = 4"), "r.toml").unwrap();
    assert_ne!(s.id, reseeded.id, "other teams, other sweep");
}

#[test]
fn rankings_errors_name_the_line_and_field() {
    let e = Sweep::parse(&RANKING_SWEEP.replace("\"liar\", \"coordinator\"", "\"liar\", \"coordinatr\""), "r.toml")
        .unwrap_err();
    assert_eq!((e.line, e.field.as_deref()), (Some(15), Some("rankings[0].roster[4]")), "{e}");
    assert!(e.message.starts_with("invalid policy = coordinatr: unknown policy"), "{e}");
    let e = Sweep::parse(&RANKING_SWEEP.replace("teams = 10", "teams = 9"), "r.toml").unwrap_err();
    assert_eq!((e.line, e.field.as_deref()), (Some(17), Some("rankings[0].teams")), "{e}");
    assert!(e.message.contains("multiple of 5"), "{e}");
    let e = Sweep::parse(&RANKING_SWEEP.replace("team_size = 4", "team_size = 5"), "r.toml").unwrap_err();
    assert_eq!(e.field.as_deref(), Some("rankings[0].team_size"), "{e}");
    let e =
        Sweep::parse(&RANKING_SWEEP.replace("\"liar\", \"coordinator\"", "\"liar\", \"hero\""), "r.toml").unwrap_err();
    assert_eq!(e.field.as_deref(), Some("rankings[0].roster[4]"), "{e}");
}

#[test]
fn the_shipped_ranking_example_expands() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/bb_ranking.toml");
    let s = Sweep::load(&path).unwrap();
    assert_eq!(s.cells.len(), 3 * 35);
    assert_eq!(s.episode_count(), 105_000);
}

#[test]
fn rank_reads_teams_from_names_or_from_the_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = dir.path().join("r.toml");
    std::fs::write(&sweep, RANKING_SWEEP).unwrap();
    let out = dir.path().join("r.jsonl");
    crate::embedded::play(&sweep, &out, Some(2), false, None).unwrap();
    let (by_name, skipped) = rank(&crate::records::Input::file(&out).unwrap(), None, DEFAULT_RIDGE).unwrap();
    assert_eq!(skipped.get("heroes"), Some(&40), "the hand-written policy set is not a team name");
    let (by_sweep, skipped) = rank(&crate::records::Input::file(&out).unwrap(), Some(&sweep), DEFAULT_RIDGE).unwrap();
    assert!(skipped.is_empty());
    assert_eq!(by_name.len(), 1);
    assert_eq!(by_name[0].episodes, 800);
    assert_eq!(by_sweep[0].episodes, 840, "with --sweep the `heroes` cell counts too");
    assert_eq!(by_name[0].policies.len(), 5);
    let hero = by_sweep[0].policies.iter().find(|p| p.policy == "hero").unwrap();
    assert_eq!(hero.teams, 9, "8 drawn teams hold hero, plus `heroes`");
    let csv_path = dir.path().join("rank.csv");
    table::write_csv(&by_name, &csv_path).unwrap();
    let text = std::fs::read_to_string(&csv_path).unwrap();
    assert_eq!(text.lines().count(), 6, "{text}");
    assert!(text.starts_with("game,rank,policy,contribution,ci95_low,ci95_high,marginal"), "{text}");
    let other = dir.path().join("other.toml");
    std::fs::write(&other, RANKING_SWEEP.replace("seed = 3", "seed = 8")).unwrap();
    let e = rank(&crate::records::Input::file(&out).unwrap(), Some(&other), DEFAULT_RIDGE).unwrap_err().to_string();
    assert!(e.contains("the records come from sweep"), "{e}");
}

#[test]
fn roster_names_shorten_team_names_and_rank_tables() {
    let text =
        RANKING_SWEEP.replace("\"liar\", \"coordinator\"]", "\"liar\", { name = \"cc\", spec = \"coordinator\" }]");
    let s = Sweep::parse(&text, "r.toml").unwrap();
    let team = s.cells.iter().find(|c| c.policy_set.seats.iter().any(|p| p == "coordinator")).unwrap();
    assert!(team.policy_set.name.contains("cc") && !team.policy_set.name.contains("coordinator"), "{team:?}");
    let dir = tempfile::tempdir().unwrap();
    let sweep = dir.path().join("r.toml");
    std::fs::write(&sweep, text.replace("count = 40", "count = 10")).unwrap();
    let out = dir.path().join("r.csv");
    crate::embedded::play(&sweep, &out, Some(2), false, None).unwrap();
    for with_sweep in [None, Some(sweep.as_path())] {
        let (fits, _) = rank(&crate::records::Input::file(&out).unwrap(), with_sweep, DEFAULT_RIDGE).unwrap();
        let mut names: Vec<&str> = fits[0].policies.iter().map(|p| p.policy.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, ["cc", "firefighter", "free_rider", "hero", "liar"], "--sweep {with_sweep:?}");
    }
    let bad = RANKING_SWEEP.replace("\"liar\", \"coordinator\"]", "\"liar\", 7]");
    let e = Sweep::parse(&bad, "r.toml").unwrap_err();
    assert!(e.message.contains("inline table { name"), "{e}");
    let bad =
        RANKING_SWEEP.replace("\"liar\", \"coordinator\"]", "\"liar\", { name = \"a b\", spec = \"coordinator\" }]");
    let e = Sweep::parse(&bad, "r.toml").unwrap_err();
    assert_eq!(e.field.as_deref(), Some("rankings[0].roster[4]"), "{e}");
}

/// The parallel reader's ranking against the row-at-a-time one (the reference), in every
/// format, the line formats in one block and Parquet in small row groups: the same fits, to
/// the bit, and the same policy sets left out.
#[test]
fn every_format_ranks_as_the_row_at_a_time_reader() {
    let dir = tempfile::tempdir().unwrap();
    let files = crate::report::reads_tests::write_all(dir.path(), &crate::report::reads_tests::results());
    for path in &files {
        let input = crate::records::Input::file(path).unwrap();
        let (fits, skipped) = rank(&input, None, DEFAULT_RIDGE).unwrap();
        let (want, want_skipped) = rank_rows(&input, None, DEFAULT_RIDGE).unwrap();
        assert_eq!(fits.len(), 1, "{}: Bucket Brigade's teams", path.display());
        assert_eq!(format!("{fits:?}"), format!("{want:?}"), "{}", path.display());
        assert_eq!(skipped, want_skipped, "{}", path.display());
        assert_eq!(skipped.get("firefighters <&>"), Some(&50), "the hand-written policy set is left out");
    }
}

/// [`rank`] reading records row at a time: the reference of the equality tests.
fn rank_rows(input: &Input, sweep: Option<&Path>, ridge: f64) -> anyhow::Result<(Vec<Fit>, IndexMap<String, u64>)> {
    rank_with(input, sweep, ridge, |input, ranker| {
        let cut = input.for_each_row(|row| ranker.add(&row)).with_context(|| format!("cannot read {input}"))?;
        Input::warn_partial(&cut);
        Ok(())
    })
}

impl Ranker {
    /// Adds one episode: the row-at-a-time way in of the references (here and in the
    /// report's tests).
    pub(crate) fn add(&mut self, row: &Row) {
        if !self.admit(&row.sweep, &row.game, &row.engine_version) {
            return;
        }
        let model = self.models.get_mut(&row.game).expect("admitted");
        if model.knows_team(&row.policy_set) {
            model.add(&row.policy_set, None, &row.scenario, row.seed, row.team_reward);
            return;
        }
        match Ranker::members(&self.membership, &row.game, &row.policy_set) {
            Some(m) => model.add(&row.policy_set, Some(&m), &row.scenario, row.seed, row.team_reward),
            None => *self.skipped.entry(row.policy_set.clone()).or_default() += 1,
        }
    }
}
