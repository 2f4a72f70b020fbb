//! The golden and determinism drivers every game's tests call, so a game's test files hold only
//! its cases (shakmaty's `perft` driver is the model: one driver, a table of positions per
//! variant). A game plays here exactly as a job plays it: [`AnyGame::prepare`] with the default
//! [`RunEnv`], and [`run_job`].
//!
//! * [`golden`]: `shared/tests/golden/<game>.csv` pins (scenario, policy set, seed) → outcome,
//!   length and trajectory hash. With `SIMFLEET_BLESS=1` it rewrites the file's rows from the
//!   cases, keeping the lines above them (comments and the column header) byte for byte.
//! * [`same_job_same_bytes`]: a job gives byte-identical records and replays run again, on
//!   other threads at once, split into smaller jobs, with or without replays, and played seed
//!   by seed in reverse order by one reused game.

use std::path::PathBuf;

use crate::games::{AnyGame, GameKind};
use crate::protocol::{encode, Job, JobResult, PolicySet, SeedRange, PROTOCOL_VERSION};
use crate::runner::run_job;
use crate::spec::Spec;
use crate::RunEnv;

/// The column header of a golden file.
const HEADER: &str = "scenario,policies,seed,outcome,length,trajectory_hash";

/// One golden case: a scenario and a team, played for each seed.
pub(crate) struct Case {
    scenario: String,
    team: Vec<String>,
    seeds: Vec<u64>,
}

impl Case {
    /// `scenario` and `team` (spec strings) at each of `seeds`.
    pub(crate) fn new(scenario: &str, team: &[&str], seeds: impl IntoIterator<Item = u64>) -> Case {
        Case {
            scenario: scenario.to_string(),
            team: team.iter().map(|s| s.to_string()).collect(),
            seeds: seeds.into_iter().collect(),
        }
    }
}

/// A prepared game of `kind` from spec strings; panics on an invalid case.
pub(crate) fn prepare(kind: GameKind, scenario: &str, team: &[impl AsRef<str>]) -> AnyGame {
    let names: Vec<&str> = team.iter().map(AsRef::as_ref).collect();
    let sc = Spec::parse(scenario).unwrap_or_else(|e| panic!("{kind} scenario {scenario:?}: {e}"));
    let specs: Vec<Spec> =
        names.iter().map(|s| Spec::parse(s).unwrap_or_else(|e| panic!("{kind} policy {s:?}: {e}"))).collect();
    AnyGame::prepare(kind, &sc, &specs, &RunEnv::default())
        .unwrap_or_else(|e| panic!("{kind} {scenario} {names:?}: {e:?}"))
}

/// The golden rows of `cases`, in order: `scenario,policies,seed,outcome,length,trajectory_hash`
/// with the policies joined by `|`.
fn rows(kind: GameKind, cases: &[Case]) -> Vec<String> {
    let mut out = Vec::new();
    for case in cases {
        let mut game = prepare(kind, &case.scenario, &case.team);
        for &seed in &case.seeds {
            let r = game.play(seed, false).record;
            out.push(format!(
                "{},{},{seed},{},{},{}",
                case.scenario,
                case.team.join("|"),
                r.outcome,
                r.length,
                r.trajectory_hash
            ));
        }
    }
    out
}

/// `shared/tests/golden/<game>.csv`.
fn golden_path(kind: GameKind) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(format!("{kind}.csv"))
}

/// Checks that `kind`'s golden file holds exactly the rows `cases` play to, in order (a failure
/// names the file's line); with `SIMFLEET_BLESS=1` rewrites the rows instead.
pub(crate) fn golden(kind: GameKind, cases: &[Case]) {
    check_or_bless(kind, cases, std::env::var("SIMFLEET_BLESS").is_ok_and(|v| v == "1"));
}

/// Rewrites `kind`'s golden rows from `cases` (what `SIMFLEET_BLESS=1` does).
pub(crate) fn bless(kind: GameKind, cases: &[Case]) {
    check_or_bless(kind, cases, true);
}

fn check_or_bless(kind: GameKind, cases: &[Case], bless: bool) {
    let path = golden_path(kind);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        // A new game's first bless starts the file.
        Err(_) if bless => format!(
            "# Golden fixtures of {kind} ({}): any change in behaviour shows here. Regenerate only\n\
             # deliberately: SIMFLEET_BLESS=1 cargo test -p simfleet --lib games::{kind}::tests::golden\n{HEADER}\n",
            kind.info().rules_version
        ),
        Err(e) => panic!("{}: {e} (write it with SIMFLEET_BLESS=1)", path.display()),
    };
    // The lines above the first row: comments, blank lines and the column header.
    let preamble_len = text.lines().take_while(|l| l.starts_with('#') || l.trim().is_empty() || *l == HEADER).count();
    let expected = rows(kind, cases);
    if bless {
        let mut out: String = text.lines().take(preamble_len).map(|l| format!("{l}\n")).collect();
        for row in &expected {
            out.push_str(row);
            out.push('\n');
        }
        std::fs::write(&path, out).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        return;
    }
    let file_rows: Vec<(usize, &str)> = text.lines().enumerate().skip(preamble_len).map(|(i, l)| (i + 1, l)).collect();
    for ((lineno, line), want) in file_rows.iter().zip(&expected) {
        assert_eq!(
            line,
            want,
            "{}:{lineno}: the file's row (left) differs from what the engine plays now (right)",
            path.display()
        );
    }
    assert_eq!(
        file_rows.len(),
        expected.len(),
        "{}: {} rows for {} cases; bless the file (SIMFLEET_BLESS=1) if the cases changed deliberately",
        path.display(),
        file_rows.len(),
        expected.len()
    );
}

/// A job of `kind`: `scenario`, `team`, `count` seeds from `start`.
pub(crate) fn job(kind: GameKind, scenario: &str, team: &[&str], start: u64, count: u64) -> Job {
    Job {
        protocol_version: PROTOCOL_VERSION,
        sweep: "det-000000000000".into(),
        index: 0,
        game: kind.as_str().into(),
        scenario: scenario.into(),
        policy_set: PolicySet { name: "p".into(), seats: team.iter().map(|s| s.to_string()).collect() },
        seeds: SeedRange { start, count },
        replay: true,
        collect: Default::default(),
        paired: Vec::new(),
    }
}

/// A job's encoded records and its replays: the bytes the determinism contract is stated on.
fn bytes(job: &Job) -> (Vec<Vec<u8>>, Vec<String>) {
    let res: JobResult = run_job(job, &RunEnv::default());
    assert!(res.error.is_none(), "{} {}: {:?}", job.game, job.scenario, res.error);
    let kind: GameKind = job.game.parse().expect("a known game");
    assert_eq!(res.engine_version, format!("{}+{}", env!("CARGO_PKG_VERSION"), kind.info().rules_version));
    assert_eq!(res.records.len() as u64, job.seeds.count);
    (res.records.iter().map(encode).collect(), res.replays.unwrap_or_default())
}

/// Same job, same bytes: `count` (at least 3) seeds of `scenario` and `team` from `start` give
/// byte-identical records and replays when run twice, on two threads at once, split into three
/// jobs of uneven sizes (the first of one seed), without replays (the records), and played
/// seed by seed in reverse order, replays on and off, by one reused game.
pub(crate) fn same_job_same_bytes(kind: GameKind, scenario: &str, team: &[&str], start: u64, count: u64) {
    assert!(count >= 3, "a split needs three seeds");
    let whole = job(kind, scenario, team, start, count);
    let (records, replays) = bytes(&whole);
    assert_eq!(replays.len(), records.len(), "one replay per record");
    let what = format!("{kind} {scenario} {team:?} seeds {start}..+{count}");

    assert_eq!(bytes(&whole), (records.clone(), replays.clone()), "{what}: run again");

    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| bytes(&whole));
        let b = s.spawn(|| bytes(&whole));
        (a.join().expect("thread a"), b.join().expect("thread b"))
    });
    assert_eq!(a, (records.clone(), replays.clone()), "{what}: on another thread");
    assert_eq!(b, (records.clone(), replays.clone()), "{what}: on a second thread at once");

    let second = (count - 1) / 2;
    let parts = [(start, 1), (start + 1, second), (start + 1 + second, count - 1 - second)];
    let (mut split_records, mut split_replays) = (Vec::new(), Vec::new());
    for (index, (from, n)) in parts.into_iter().enumerate() {
        let mut part = job(kind, scenario, team, from, n);
        part.index = index as u64;
        let (r, p) = bytes(&part);
        split_records.extend(r);
        split_replays.extend(p);
    }
    assert_eq!(split_records, records, "{what}: split 1 + {second} + {}", count - 1 - second);
    assert_eq!(split_replays, replays, "{what}: replays of the split job");

    let plain = Job { replay: false, ..whole.clone() };
    assert_eq!(bytes(&plain).0, records, "{what}: without replays");

    let mut game = prepare(kind, scenario, team);
    for i in (0..records.len()).rev() {
        let seed = start + i as u64;
        let ep = game.play(seed, i % 2 == 0);
        assert_eq!(encode(&ep.record), records[i], "{what}: seed {seed} played in reverse order");
        if let Some(replay) = ep.replay {
            assert_eq!(replay, replays[i], "{what}: replay of seed {seed} in reverse order");
        }
    }
}
