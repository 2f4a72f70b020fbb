//! The two-read report against the row-at-a-time one (the reference): for every format, all
//! four games, a ranking, the line formats cut into many blocks and Parquet into small row
//! groups, the page is the same to the byte; a partial trailing record is skipped by both.

use std::io::Write;
use std::path::{Path, PathBuf};

use simfleet::protocol::{Job, JobResult, PolicySet, SeedRange, PROTOCOL_VERSION};

use anyhow::Context;
use indexmap::{IndexMap, IndexSet};

use super::histogram::Range;
use super::{collect_cell_rows, empty_histograms, gather, glance, html, render_blocks, Collected, DEFAULT_RIDGE};
use crate::rank::Membership;
use crate::rank::Ranker;
use crate::records::Input;
use crate::summary::Summary;

fn job(game: &str, scenario: &str, name: &str, seats: &[&str], start: u64, count: u64) -> Job {
    Job {
        protocol_version: PROTOCOL_VERSION,
        sweep: "report-scan-0000".into(),
        index: start,
        game: game.into(),
        scenario: scenario.into(),
        policy_set: PolicySet { name: name.into(), seats: seats.iter().map(|s| s.to_string()).collect() },
        seeds: SeedRange { start, count },
        replay: false,
        collect: Default::default(),
        paired: Vec::new(),
    }
}

/// All four games; Bucket Brigade as a ranking (teams named as `[[rankings]]` names them, on
/// shared seeds, in two scenarios, jobs interleaved) beside a hand-written policy set.
pub(crate) fn results() -> Vec<JobResult> {
    let teams: [(&str, [&str; 4]); 4] = [
        ("team-001 (firefighter + hero + liar + liar)", ["firefighter", "hero", "liar", "liar"]),
        ("team-002 (free_rider + hero + hero + liar)", ["free_rider", "hero", "hero", "liar"]),
        (
            "team-003 (firefighter + firefighter + free_rider + hero)",
            ["firefighter", "firefighter", "free_rider", "hero"],
        ),
        ("team-004 (coordinator + free_rider + liar + liar)", ["coordinator", "free_rider", "liar", "liar"]),
    ];
    let mut jobs = Vec::new();
    for start in [0, 25] {
        for scenario in ["default", "rest_trap"] {
            for (name, seats) in &teams {
                jobs.push(job("bucket_brigade", scenario, name, seats, start, 25));
            }
        }
        jobs.push(job("bucket_brigade", "default", "firefighters <&>", &["firefighter"; 4], start, 25));
    }
    jobs.push(job("deception", "classic_5p1i", "heuristic", &["heuristic"; 5], 0, 30));
    jobs.push(job("deception", "classic_5p1i", "random", &["random"; 5], 0, 30));
    jobs.push(job("trolley", "balanced_5p", "persuadable", &["persuadable"; 5], 0, 30));
    jobs.push(job("trolley", "balanced_5p", "random", &["random"; 5], 0, 30));
    let miner = "pinky?miner=2&scout=1&aligner=3&scrambler=2";
    jobs.push(job("cogsguard", "arena", "balanced", &[miner; 8], 0, 4));
    let results: Vec<JobResult> = jobs.iter().map(|j| simfleet::run_job(j, &simfleet::RunEnv::default())).collect();
    for r in &results {
        assert!(r.error.is_none(), "{} {}: {:?}", r.game, r.policy_set, r.error);
    }
    results
}

/// The results in each format, and a Parquet file of 37-row groups.
pub(crate) fn write_all(dir: &Path, results: &[JobResult]) -> Vec<PathBuf> {
    crate::records::scan::tests::write_formats(dir, results, 37)
}

fn assert_same_page(path: &Path, baseline: Option<&str>, block: usize) {
    let input = Input::file(path).unwrap();
    let want = render_rows(&input, Membership::default(), baseline).unwrap();
    let (got, written) = render_blocks(&input, Membership::default(), baseline, None, block).unwrap();
    assert!(written.ranked == 1 && written.cells == 4 * 2 + 1 + 2 + 2 + 1, "{}: {written:?}", path.display());
    assert!(want.contains("<h2>Ranking</h2>") && want.contains("class=\"forest\""), "the reference shows it all");
    // What the page does not show of the comparisons (every digit, the win differences, the
    // seeds left out) is the reference's too.
    let (_, comparisons) = gather(&input, Membership::default(), baseline, block).unwrap();
    let (_, reference) = crate::compare::pairs::compare_file(&input, baseline).unwrap();
    assert_eq!(format!("{:?}", comparisons.unwrap()), format!("{:?}", reference), "{}: comparisons", path.display());
    if got != want {
        let at = got.bytes().zip(want.bytes()).position(|(a, b)| a != b).unwrap_or(got.len().min(want.len()));
        let around = |s: &str| s.get(at.saturating_sub(200)..(at + 200).min(s.len())).unwrap_or("").to_string();
        panic!(
            "{} (block {block}): the pages differ at byte {at}:\n{}\nvs\n{}",
            path.display(),
            around(&got),
            around(&want)
        );
    }
}

#[test]
fn every_format_renders_the_page_of_the_row_at_a_time_path() {
    let dir = tempfile::tempdir().unwrap();
    let files = write_all(dir.path(), &results());
    for path in &files {
        for block in [700, 4096, crate::records::scan::BLOCK] {
            assert_same_page(path, None, block);
        }
        assert_same_page(path, Some("random"), 4096);
    }
}

#[test]
fn a_partial_trailing_record_is_skipped_as_the_reference_skips_it() {
    let dir = tempfile::tempdir().unwrap();
    let files = write_all(dir.path(), &results());
    for path in files.iter().filter(|p| p.extension().is_some_and(|e| e != "parquet")) {
        let bytes = std::fs::read(path).unwrap();
        let cut = dir.path().join(format!("cut.{}", path.extension().unwrap().to_str().unwrap()));
        let mut f = std::fs::File::create(&cut).unwrap();
        f.write_all(&bytes[..bytes.len() - 9]).unwrap();
        drop(f);
        assert_same_page(&cut, None, 1000);
    }
}

/// Reads `input` row at a time (twice) and gathers the page's contents: the former path, the
/// reference of [`collect`]'s equality tests.
fn collect_rows(input: &Input, membership: Membership) -> anyhow::Result<Collected> {
    if input.is_cells() {
        return collect_cell_rows(input, &input.read_cells()?, membership);
    }
    let mut summary = Summary::default();
    let mut ranker = Ranker::new(membership);
    let mut sweeps = IndexSet::new();
    let mut versions: IndexMap<String, String> = IndexMap::new();
    let mut ranges: IndexMap<(String, String), (Range, Range)> = IndexMap::new();
    let mut mixed = None;
    let cut = input
        .for_each_row(|row| {
            if mixed.is_some() {
                return;
            }
            let r = summary.add_row(&row);
            if let Err(e) = r {
                mixed = Some(e);
                return;
            }
            if !sweeps.contains(&row.sweep) {
                sweeps.insert(row.sweep.clone());
            }
            if !versions.contains_key(&row.game) {
                versions.insert(row.game.clone(), row.engine_version.clone());
            }
            ranker.add(&row);
            let key = (row.game, row.scenario);
            let (reward, length) = ranges.entry(key).or_default();
            reward.add(row.team_reward);
            length.add(f64::from(row.length));
        })
        .with_context(|| format!("cannot read {input}"))?;
    if let Some(e) = mixed {
        return Err(e.into());
    }
    Input::warn_partial(&cut);
    summary.sort_cells();
    let mut histograms = empty_histograms(&summary, &ranges);
    input
        .for_each_row(|row| {
            if let Some(h) = histograms.get_mut(&(row.game, row.scenario, row.policy_set)) {
                h.reward.add(row.team_reward);
                h.length.add(f64::from(row.length));
            }
        })
        .with_context(|| format!("cannot read {input} again"))?;
    let ranking = ranker.fit(DEFAULT_RIDGE).map_err(anyhow::Error::msg)?;
    let skipped = ranker.skipped;
    Ok(Collected { file: input.to_string(), sweeps, versions, summary, histograms, ranking, skipped })
}

/// [`render`] row at a time: the contents read twice, the pairs once more. The reference of the
/// equality tests.
fn render_rows(input: &Input, membership: Membership, baseline: Option<&str>) -> anyhow::Result<String> {
    let collected = collect_rows(input, membership)?;
    let lead = if input.is_cells() {
        match crate::compare::summaries::compare_rows(&input.read_cells()?, baseline) {
            Ok(comparisons) => glance::section(&collected.summary, &comparisons),
            Err(crate::compare::CompareError::NotPaired) => glance::section_without_pairs(&collected.summary),
            Err(e) => return Err(e.into()),
        }
    } else {
        // A read of its own: the pairs keep every seed, which the rest of the page never needs.
        let (_, comparisons) = crate::compare::pairs::compare_file(input, baseline)?;
        glance::section(&collected.summary, &comparisons)
    };
    Ok(html::page(&collected, &lead))
}
