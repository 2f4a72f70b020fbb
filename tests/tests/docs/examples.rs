//! The example sweeps say what they expand to: each `examples/*.toml` opens with a comment that
//! holds a line `# Expands to <cells> cells, <episodes> episodes, <jobs> jobs.`, checked here
//! against the expansion the coordinator makes of the file.

use coordinator::sweep::Sweep;

use super::session::repo;

/// The counts a header states.
#[derive(Debug, PartialEq, Eq)]
struct Counts {
    cells: u64,
    episodes: u64,
    jobs: u64,
}

/// The `Expands to` line of the file's leading comment.
fn stated(text: &str) -> Result<Counts, String> {
    let line = text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .find_map(|l| l.strip_prefix("# Expands to "))
        .ok_or("the leading comment has no line `# Expands to <n> cells, <n> episodes, <n> jobs.`")?;
    let mut numbers = Vec::new();
    for (part, unit) in line.trim_end_matches('.').split(", ").zip(["cells", "episodes", "jobs"]) {
        let n = part
            .strip_suffix(unit)
            .map(|n| n.trim().replace(',', ""))
            .and_then(|n| n.parse::<u64>().ok())
            .ok_or_else(|| format!("{part:?} is not `<n> {unit}`"))?;
        numbers.push(n);
    }
    match numbers[..] {
        [cells, episodes, jobs] => Ok(Counts { cells, episodes, jobs }),
        _ => Err(format!("{line:?} does not state cells, episodes and jobs")),
    }
}

#[test]
fn every_example_header_states_what_the_sweep_expands_to() {
    let mut wrong = Vec::new();
    let mut seen = 0;
    for entry in std::fs::read_dir(repo().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        seen += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        let sweep = Sweep::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let actual =
            Counts { cells: sweep.cells.len() as u64, episodes: sweep.episode_count(), jobs: sweep.job_count() };
        match stated(&text) {
            Ok(counts) if counts == actual => {}
            Ok(counts) => {
                wrong.push(format!("{}: the header says {counts:?}, the sweep is {actual:?}", path.display()))
            }
            Err(e) => wrong.push(format!("{}: {e} (the sweep is {actual:?})", path.display())),
        }
    }
    assert!(seen >= 6, "examples/ holds {seen} sweeps");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn headers_parse_with_thousands_separators() {
    let c = stated("# A sweep.\n# Expands to 105 cells, 105,000 episodes, 105 jobs.\nname = \"x\"\n").unwrap();
    assert_eq!(c, Counts { cells: 105, episodes: 105_000, jobs: 105 });
    assert!(stated("# no counts\nname = \"x\"\n# Expands to 1 cells, 1 episodes, 1 jobs.\n").is_err());
    assert!(stated("# Expands to 1 cells, 1 jobs.\n").is_err());
}
