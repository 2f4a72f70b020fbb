use super::html::{escape, wilson};
use super::*;

const SWEEP: &str = r#"
name = "report-test"
seeds = { start = 0, count = 60 }
episodes_per_job = 30

[[cells]]
game = "bucket_brigade"
scenarios = ["default"]
[cells.policy_sets]
"firefighters <&>" = ["firefighter", "firefighter", "firefighter", "firefighter"]

[[rankings]]
game = "bucket_brigade"
scenarios = ["default", "rest_trap"]
roster = ["firefighter", "free_rider", "hero", "liar", "coordinator"]
team_size = 4
teams = 5
"#;

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

#[test]
fn the_report_has_one_chart_per_cell_and_no_external_references() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = dir.path().join("r.toml");
    std::fs::write(&sweep, SWEEP).unwrap();
    let results = dir.path().join("r.parquet");
    crate::embedded::play(&sweep, &results, Some(2), false, None).unwrap();
    let out = dir.path().join("report.html");
    let written = report(&crate::records::Input::file(&results).unwrap(), None, None, None, &out).unwrap();
    let html = std::fs::read_to_string(&out).unwrap();
    let cells = 1 + 2 * 5;
    assert_eq!(written.cells, cells);
    assert_eq!(written.episodes, 60 * cells as u64);
    assert_eq!(count(&html, "<svg class=\"cell-chart\""), cells, "one chart per cell");
    assert_eq!(count(&html, "<svg"), count(&html, "</svg>"));
    assert_eq!(count(&html, "<svg class=\"outcome-chart\""), 2, "one outcome chart per scenario");
    assert_eq!(written.ranked, 1, "the teams are ranked");
    assert_eq!(count(&html, "<svg class=\"rank-chart\""), 1);
    for policy in ["free_rider", "coordinator"] {
        assert!(html.contains(&format!(">{policy}</td>")), "{policy} has a row in the ranking table");
    }
    for external in ["src=\"http", "href=\"http", "src='http", "href='http", "url(http", "<script", "<link", "@import"]
    {
        assert!(!html.contains(external), "the page must be self-contained: found {external}");
    }
    assert!(html.contains("firefighters &lt;&amp;&gt;"), "names are escaped");
    assert!(html.contains("Not in the ranking"), "the hand-written policy set is named as left out");
    assert!(!html.contains("firefighters <&>"));
    // Every cell's histograms count all of its episodes.
    let collected = collect(&crate::records::Input::file(&results).unwrap(), Default::default()).unwrap();
    for (key, h) in &collected.histograms {
        assert_eq!(h.reward.total(), 60, "{key:?}");
        assert_eq!(h.length.total(), 60, "{key:?}");
    }
}

#[test]
fn a_summary_file_reports_the_same_table_buckets_and_a_ranking_without_seed_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = dir.path().join("r.toml");
    std::fs::write(&sweep, SWEEP).unwrap();
    let (records, cells) = (dir.path().join("r.jsonl"), dir.path().join("r.cells.csv"));
    crate::embedded::play(&sweep, &records, Some(2), false, None).unwrap();
    crate::embedded::play(&sweep, &cells, Some(2), false, Some(simfleet::protocol::Collect::Summary)).unwrap();
    let (from_records, from_cells) = (
        collect(&crate::records::Input::file(&records).unwrap(), Default::default()).unwrap(),
        collect(&crate::records::Input::file(&cells).unwrap(), Default::default()).unwrap(),
    );
    assert_eq!(from_cells.summary.table(), from_records.summary.table());
    assert_eq!(from_cells.histograms.len(), 1 + 2 * 5);
    for (key, h) in &from_cells.histograms {
        assert_eq!((h.reward.total(), h.length.total()), (60, 60), "{key:?}: every episode in a bucket");
        let (lo, hi) = h.reward.extent();
        let c = &from_cells.summary.cells[key];
        assert_eq!((lo, hi), (c.team_reward.min, c.team_reward.max), "{key:?}: bars span the cell's range");
    }
    assert_eq!(from_cells.ranking.len(), 1, "the teams are ranked from their cells");
    assert!(from_records.ranking[0].seeds_known && !from_cells.ranking[0].seeds_known);
    let out = dir.path().join("cells.html");
    let written = report(&crate::records::Input::file(&cells).unwrap(), None, None, None, &out).unwrap();
    let html = std::fs::read_to_string(&out).unwrap();
    assert_eq!((written.cells, written.episodes, written.ranked), (11, 660, 1));
    assert!(html.contains("Prometheus buckets") && html.contains("seed blocks not available"), "says what it drew");
    // The ranking's teams are paired with each other, not with the `[[cells]]` group's baseline
    // (another section's jobs): the page says so rather than draw an unpaired forest.
    assert!(html.contains("At a glance") && html.contains("Not paired with firefighters &lt;&amp;&gt;"), "says why");
    let out = dir.path().join("teams.html");
    let teams = crate::compare::summaries::compare_rows(
        &crate::records::Input::file(&cells).unwrap().read_cells().unwrap(),
        None,
    )
    .unwrap();
    assert_eq!(teams.not_paired.len(), 5, "the five teams of `default`");
    let team = &teams.not_paired[0].2;
    report(&crate::records::Input::file(&cells).unwrap(), None, Some(team), None, &out).unwrap();
    let html = std::fs::read_to_string(&out).unwrap();
    assert_eq!(html.matches("<svg class=\"forest\"").count(), 2, "one forest per scenario of the teams");
    let input = crate::records::Input::file(&cells).unwrap();
    let refused =
        crate::compare::pairing::compare_input(&input, None, crate::records::scan::BLOCK).err().expect("refused");
    assert!(matches!(refused, crate::compare::CompareError::NoRecords(_)), "{refused}");
}

#[test]
fn a_report_without_teams_has_no_ranking_section() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = dir.path().join("plain.toml");
    let text = SWEEP.split("[[rankings]]").next().unwrap();
    std::fs::write(&sweep, text).unwrap();
    let results = dir.path().join("plain.jsonl");
    crate::embedded::play(&sweep, &results, Some(1), false, None).unwrap();
    let out = dir.path().join("plain.html");
    let written = report(&crate::records::Input::file(&results).unwrap(), None, None, None, &out).unwrap();
    let html = std::fs::read_to_string(&out).unwrap();
    assert_eq!((written.cells, written.ranked), (1, 0));
    assert_eq!(count(&html, "<svg class=\"cell-chart\""), 1);
    assert!(!html.contains("<h2>Ranking</h2>"));
}

#[test]
fn wilson_intervals_hold_the_share_and_stay_in_0_1() {
    let (lo, hi) = wilson(0, 10);
    assert!(lo == 0.0 && hi > 0.2 && hi < 0.35, "{lo} {hi}");
    let (lo, hi) = wilson(50, 100);
    assert!((lo - 0.404).abs() < 0.002 && (hi - 0.596).abs() < 0.002, "{lo} {hi}");
    let (lo, hi) = wilson(10, 10);
    assert!(hi == 1.0 && lo > 0.65, "{lo} {hi}");
    assert_eq!(escape("a<b & \"c\"'"), "a&lt;b &amp; &quot;c&quot;&#39;");
}
