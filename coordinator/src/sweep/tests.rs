use super::*;
use simfleet::Spec;

const GOOD: &str = r#"
name = "BB archetypes!"
seeds = { start = 10, count = 25 }
episodes_per_job = 10

[[cells]]
game = "bucket_brigade"
scenarios = ["default", "rest_trap?reward_model=reference"]
[cells.policy_sets]
firefighters = ["firefighter", "firefighter", "firefighter", "firefighter"]
random = ["random", "random", "random", "random"]
"#;

#[test]
fn expands_in_file_order_with_seed_chunks() {
    let s = Sweep::parse(GOOD, "good.toml").unwrap();
    assert!(s.id.starts_with("bb-archetypes--"), "{}", s.id);
    assert_eq!(s.id.len(), "bb-archetypes--".len() + 12);
    assert_eq!(s.cells.len(), 4);
    assert_eq!(s.job_count(), 12); // 4 cells x ceil(25/10)
    assert_eq!(s.episode_count(), 100);
    let jobs: Vec<Job> = s.jobs().collect();
    assert_eq!(jobs.len(), 12);
    assert_eq!((jobs[0].scenario.as_str(), jobs[0].policy_set.name.as_str()), ("default", "firefighters"));
    assert_eq!(jobs[2].seeds, SeedRange { start: 30, count: 5 });
    assert_eq!(jobs[3].policy_set.name, "random");
    assert_eq!(jobs[6].scenario, "rest_trap?reward_model=reference");
    for (i, j) in jobs.iter().enumerate() {
        assert_eq!(j.index, i as u64);
        assert_eq!(j.sweep, s.id);
    }
    // Every seed of every cell exactly once.
    let seeds: u64 = jobs.iter().map(|j| j.seeds.count).sum();
    assert_eq!(seeds, 100);
}

#[test]
fn id_depends_on_content_only() {
    let a = Sweep::parse(GOOD, "a.toml").unwrap();
    let b = Sweep::parse(&GOOD.replace("\n\n", "\n\n# a comment\n"), "b.toml").unwrap();
    let c = Sweep::parse(&GOOD.replace("count = 25", "count = 26"), "c.toml").unwrap();
    assert_eq!(a.id, b.id);
    assert_ne!(a.id, c.id);
}

fn error_of(text: &str) -> SweepError {
    Sweep::parse(text, "bad.toml").unwrap_err()
}

#[test]
fn syntax_errors_name_the_line() {
    let e = error_of(&GOOD.replace("episodes_per_job = 10", "episodes_per_job = = 10"));
    assert_eq!(e.line, Some(4), "{e}");
}

#[test]
fn unknown_fields_name_the_line() {
    let e = error_of(&GOOD.replace("episodes_per_job = 10", "episodes_per_jobs = 10"));
    assert_eq!(e.line, Some(4), "{e}");
    assert!(e.to_string().contains("episodes_per_jobs"), "{e}");
}

#[test]
fn bad_game_names_line_and_field() {
    let e = error_of(&GOOD.replace("\"bucket_brigade\"", "\"bucket_brigad\""));
    assert_eq!(e.line, Some(7));
    assert_eq!(e.field.as_deref(), Some("cells[0].game"));
}

#[test]
fn bad_policy_names_the_seat() {
    let e = error_of(
        &GOOD
            .replace("\"random\", \"random\", \"random\", \"random\"", "\"random\", \"random\", \"randm\", \"random\""),
    );
    assert_eq!(e.line, Some(11), "{e}");
    assert_eq!(e.field.as_deref(), Some("cells[0].policy_sets.random[2]"), "{e}");
}

#[test]
fn bad_scenario_field_names_the_scenario() {
    let e = error_of(&GOOD.replace("rest_trap?reward_model=reference", "rest_trap?num_agents=11"));
    assert_eq!(e.line, Some(8), "{e}");
    assert_eq!(e.field.as_deref(), Some("cells[0].scenarios[1]"));
    assert!(e.to_string().contains("scenario.num_agents = 11"), "{e}");
}

#[test]
fn duplicate_cells_name_both_lines() {
    let text = format!(
        "{GOOD}\n[[cells]]\ngame = \"bucket_brigade\"\nscenarios = [\"default\"]\n[cells.policy_sets]\nrandom = [\"random\", \"random\", \"random\", \"random\"]\n"
    );
    let e = error_of(&text);
    assert_eq!(e.line, Some(17), "{e}");
    assert!(e.message.contains("line 11"), "{e}");
}

#[test]
fn seeds_are_checked() {
    assert_eq!(error_of(&GOOD.replace("start = 10", "start = -1")).field.as_deref(), Some("seeds.start"));
    assert_eq!(error_of(&GOOD.replace("count = 25", "count = 0")).field.as_deref(), Some("seeds.count"));
}

#[test]
fn slugs_are_subject_safe() {
    assert_eq!(slug("My Sweep: v2"), "my-sweep--v2");
    assert_eq!(slug(""), "sweep");
    assert_eq!(slug(&"x".repeat(99)).len(), 40);
}

#[test]
fn collect_is_set_per_sweep_or_per_cell_group_and_changes_the_id_only_for_summaries() {
    let records = Sweep::parse(GOOD, "a.toml").unwrap();
    let explicit =
        Sweep::parse(&GOOD.replace("episodes_per_job = 10", "episodes_per_job = 10\ncollect = \"records\""), "b.toml")
            .unwrap();
    assert_eq!(records.id, explicit.id, "collect = \"records\" is the default and keeps the id");
    assert!(records.jobs().all(|j| j.collect == Collect::Records));
    let summary =
        Sweep::parse(&GOOD.replace("episodes_per_job = 10", "episodes_per_job = 10\ncollect = \"summary\""), "c.toml")
            .unwrap();
    assert_ne!(summary.id, records.id);
    assert!(summary.jobs().all(|j| j.collect == Collect::Summary));
    let per_cell =
        Sweep::parse(&GOOD.replace("[cells.policy_sets]", "collect = \"summary\"\n[cells.policy_sets]"), "d.toml")
            .unwrap();
    assert_eq!(per_cell.id, summary.id, "the same cells collect the same way");
    let overridden = records.clone().with_collect(Some(Collect::Summary));
    assert_eq!(overridden.id, summary.id, "--collect summary gives the id of the file saying so");
    assert_eq!(overridden.with_collect(Some(Collect::Records)).id, records.id);
}

#[test]
fn a_bad_collect_names_file_line_and_field() {
    let e = error_of(&GOOD.replace("episodes_per_job = 10", "episodes_per_job = 10\ncollect = \"rows\""));
    assert_eq!((e.line, e.field.as_deref()), (Some(5), Some("collect")), "{e}");
    assert!(e.to_string().starts_with("bad.toml:5: collect: \"rows\" is not a collect mode"), "{e}");
    let e = error_of(&GOOD.replace("[cells.policy_sets]", "collect = \"all\"\n[cells.policy_sets]"));
    assert_eq!((e.line, e.field.as_deref()), (Some(9), Some("cells[0].collect")), "{e}");
}

#[test]
fn summary_jobs_default_to_about_a_second_and_an_explicit_size_still_wins() {
    let defaults = GOOD.replace("episodes_per_job = 10\n", "").replace("count = 25", "count = 1000000");
    let records = Sweep::parse(&defaults, "r.toml").unwrap();
    let summary = Sweep::parse(&defaults.replace("[[cells]]", "collect = \"summary\"\n\n[[cells]]"), "s.toml").unwrap();
    let bb = GameKind::BucketBrigade;
    for (r, s) in records.cells.iter().zip(&summary.cells) {
        assert_eq!(r.episodes_per_job, bb.default_episodes_per_job(&Spec::parse(&r.scenario).unwrap()));
        assert_eq!(s.episodes_per_job, r.episodes_per_job * summary_scale(bb));
    }
    assert_eq!(summary.job_count() * summary_scale(bb), records.job_count());
    assert_eq!(summary.episode_count(), records.episode_count());
    let overridden = records.clone().with_collect(Some(Collect::Summary));
    assert_eq!(overridden.id, summary.id, "--collect summary sizes the jobs as the file saying so");
    assert_eq!(overridden.jobs().collect::<Vec<_>>(), summary.jobs().collect::<Vec<_>>());
    let back = overridden.with_collect(Some(Collect::Records));
    assert_eq!((back.id.as_str(), back.job_count()), (records.id.as_str(), records.job_count()));
    // A size written in the file stays, whatever the collect mode.
    let explicit = Sweep::parse(GOOD, "g.toml").unwrap().with_collect(Some(Collect::Summary));
    assert!(explicit.cells.iter().all(|c| c.episodes_per_job == 10 && c.explicit_episodes_per_job));
}

#[test]
fn summary_cells_of_one_scenario_play_in_one_job_and_records_cells_alone() {
    let summary = Sweep::parse(&GOOD.replace("[[cells]]", "collect = \"summary\"\n\n[[cells]]"), "s.toml").unwrap();
    assert_eq!(summary.groups.len(), 2, "one group per scenario");
    assert!(summary.cells.iter().all(|c| c.paired));
    // Two sets share a job: ⌈10 / 2⌉ = 5 seeds of each, 5 jobs per scenario.
    assert_eq!(
        summary.groups.iter().map(|g| (g.cells.clone(), g.seeds_per_job)).collect::<Vec<_>>(),
        [(0..2, 5), (2..4, 5)]
    );
    let jobs: Vec<Job> = summary.jobs().collect();
    assert_eq!(jobs.len(), 10);
    for (i, j) in jobs.iter().enumerate() {
        assert_eq!((j.index, j.protocol_version, j.collect), (i as u64, 2, Collect::Summary));
        assert_eq!((j.policy_set.name.as_str(), j.paired.len()), ("firefighters", 1));
        assert_eq!(j.paired[0].name, "random");
        assert_eq!(summary.cells_of_job(j.index), if i < 5 { 0..2 } else { 2..4 });
    }
    assert_eq!(jobs[4].seeds, SeedRange { start: 30, count: 5 });
    // Every seed of every cell exactly once.
    assert_eq!(jobs.iter().map(|j| j.seeds.count * (1 + j.paired.len() as u64)).sum::<u64>(), summary.episode_count());
    assert_eq!(summary.jobs_of_cell(3), 5..10);
    // Records: one cell a group, version-1 jobs, and the canonical form of before.
    let records = Sweep::parse(GOOD, "r.toml").unwrap();
    assert_eq!(records.groups.len(), 4);
    assert!(records.jobs().all(|j| j.paired.is_empty() && j.protocol_version == 1));
    let canonical = serde_json::to_string(&records).unwrap();
    assert!(!canonical.contains("paired") && !canonical.contains("entry"), "{canonical}");
    assert!(serde_json::to_string(&summary).unwrap().contains("\"paired\":true"));
}

#[test]
fn cells_with_llm_seats_play_alone_and_the_others_still_pair() {
    let text = GOOD.replace("[[cells]]", "collect = \"summary\"\n\n[[cells]]").replace(
        "[cells.policy_sets]",
        "[cells.policy_sets]\nmodel = [\"llm?model=m&endpoint=http://127.0.0.1:9/v1\", \"firefighter\", \"firefighter\", \"firefighter\"]",
    );
    // Bucket Brigade has no `llm` policy: checked on a game that has one.
    let text = text
        .replace("bucket_brigade", "deception")
        .replace("\"default\", \"rest_trap?reward_model=reference\"", "\"quick_4p1i\"")
        .replace("\"firefighter\"", "\"heuristic\"");
    let s = Sweep::parse(&text, "llm.toml").unwrap();
    let groups: Vec<_> = s.groups.iter().map(|g| g.cells.clone()).collect();
    assert_eq!(groups, [0..1, 1..3], "the model's cell alone, the scripted two together");
    assert!(!s.cells[0].paired && s.cells[1].paired && s.cells[2].paired);
}

#[test]
fn collect_override_regroups_and_gives_the_id_of_the_file_saying_so() {
    let summary = Sweep::parse(&GOOD.replace("[[cells]]", "collect = \"summary\"\n\n[[cells]]"), "s.toml").unwrap();
    let overridden = Sweep::parse(GOOD, "r.toml").unwrap().with_collect(Some(Collect::Summary));
    assert_eq!(overridden.groups, summary.groups);
    assert_eq!(overridden.id, summary.id);
    let back = overridden.with_collect(Some(Collect::Records));
    assert_eq!((back.groups.len(), back.job_count()), (4, 12));
}

#[test]
fn a_stop_table_changes_the_id_and_plans_one_group_per_scenario() {
    let plain = Sweep::parse(GOOD, "s.toml").unwrap();
    assert!(plain.stop.is_none() && plain.stop_plan().is_none());
    let text = format!("{GOOD}\n[stop]\nbaseline = \"random\"\nmargin = 1\nhalf_width = 2\n");
    let stopping = Sweep::parse(&text, "s.toml").unwrap();
    assert_ne!(stopping.id, plain.id, "which seeds are played depends on the questions");
    let plan = stopping.stop_plan().unwrap();
    assert_eq!(plan.cap, 25);
    assert_eq!(plan.checkpoints, [25]);
    let shapes: Vec<_> = plan.groups.iter().map(|g| (g.scenario.as_str(), g.cells.clone(), g.baseline)).collect();
    assert_eq!(shapes, [("default", vec![0, 1], Some(1)), ("rest_trap?reward_model=reference", vec![2, 3], Some(1))]);
    // Two cells' precision and one comparison per scenario, one look.
    assert_eq!((plan.split.units, plan.split.looks), (6, 1));
}

#[test]
fn a_stop_table_the_cells_contradict_names_file_line_and_field() {
    let with = |stop: &str| format!("{GOOD}\n[stop]\n{stop}\n");
    let e = error_of(&with("baseline = \"heroes\""));
    assert_eq!(e.field.as_deref(), Some("stop.baseline"));
    assert_eq!(e.line, Some(14));
    assert!(e.message.contains("no policy set \"heroes\" plays (bucket_brigade, \"default\")"), "{e}");
    let e = error_of(&with("best = true\nextra = 1"));
    assert_eq!(e.line, Some(15), "{e}");
    let trolley = "name = \"t\"\nseeds = { start = 0, count = 9 }\n[[cells]]\ngame = \"trolley\"\nscenarios = [\"balanced_5p\"]\n[cells.policy_sets]\np = [\"persuadable\", \"persuadable\", \"persuadable\", \"persuadable\", \"persuadable\"]\n[stop]\nmetric = \"win\"\nbest = true\n";
    let e = error_of(trolley);
    assert_eq!((e.line, e.field.as_deref()), (Some(9), Some("stop.metric")));
    assert!(e.message.contains("trolley has no win outcome"), "{e}");
}

#[test]
fn cells_with_llm_seats_size_themselves_into_many_jobs() {
    let llm = "llm?model=m&endpoint=http://127.0.0.1:9/v1";
    let sweep = |seats: &str, extra: &str| {
        format!(
            "name = \"llm\"\nseeds = {{ start = 0, count = 600 }}\n{extra}\n[[cells]]\ngame = \"deception\"\n\
             scenarios = [\"classic_5p1i\"]\n[cells.policy_sets]\nmodel = [{seats}]\n"
        )
    };
    let one = format!("{llm:?}, \"heuristic\", \"heuristic\", \"heuristic\", \"heuristic\"");
    let s = Sweep::parse(&sweep(&one, ""), "one.toml").unwrap();
    assert_eq!(s.cells[0].episodes_per_job, LLM_SEAT_EPISODES_PER_JOB);
    assert_eq!(s.job_count(), 600 / LLM_SEAT_EPISODES_PER_JOB, "600 episodes in jobs of 20, not one job of 2000");
    assert!(s.job_count() > 10);
    // Summaries do not change a job's model time.
    let summary = s.clone().with_collect(Some(Collect::Summary));
    assert_eq!(summary.job_count(), s.job_count());
    // Three model seats share the 20 seat-episodes; a size in the file still wins.
    let three = format!("{llm:?}, {llm:?}, {llm:?}, \"heuristic\", \"heuristic\"");
    assert_eq!(Sweep::parse(&sweep(&three, ""), "three.toml").unwrap().cells[0].episodes_per_job, 7);
    let explicit = Sweep::parse(&sweep(&one, "episodes_per_job = 600"), "x.toml").unwrap();
    assert_eq!(explicit.job_count(), 1);
    // Scripted seats keep the game's default.
    let scripted = sweep("\"heuristic\", \"heuristic\", \"heuristic\", \"heuristic\", \"heuristic\"", "");
    assert_eq!(Sweep::parse(&scripted, "s.toml").unwrap().job_count(), 1);
}
