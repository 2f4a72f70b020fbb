//! docs/sweeps.md's tables of scenario fields are what `coordinator list --format json` says:
//! per game, every field a scenario of the game may override, in the game's order, with its
//! value in the default scenario (`—` where the default scenario does not take it).

use std::process::Command;

use simfleet_tests::coordinator_binary;

use super::session::repo;

/// The (field, default) rows of the table under the heading `### \`<game>\`` of the section
/// `## Scenario fields`.
fn documented(page: &str, game: &str) -> Result<Vec<(String, String)>, String> {
    let section = page.split("\n## Scenario fields\n").nth(1).ok_or("docs/sweeps.md has no `## Scenario fields`")?;
    let section = section.split("\n## ").next().unwrap_or_default();
    let heading = format!("\n### `{game}`\n");
    let part = section.split(&heading).nth(1).ok_or_else(|| format!("no heading {heading:?}"))?;
    let part = part.split("\n### ").next().unwrap_or_default();
    let cell = |c: &str| c.trim().trim_matches('`').to_string();
    let rows: Vec<(String, String)> = part
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').collect();
            (cell(cells[0]), cell(cells.get(1).copied().unwrap_or_default()))
        })
        .collect();
    if rows.is_empty() {
        return Err(format!("the table of {game} has no rows"));
    }
    Ok(rows)
}

/// The rows the table of `game` must have, from `list`'s JSON.
fn listed(game: &serde_json::Value) -> Vec<(String, String)> {
    let scenarios = game["scenarios"].as_array().expect("scenarios");
    let default = &scenarios[0]["fields"];
    let mut rows: Vec<(String, String)> = Vec::new();
    for s in scenarios {
        for f in s["fields"].as_array().expect("fields") {
            let name = f["name"].as_str().expect("a name").to_string();
            if rows.iter().any(|(n, _)| *n == name) {
                continue;
            }
            let value = default
                .as_array()
                .and_then(|d| d.iter().find(|d| d["name"] == name.as_str()))
                .and_then(|d| d["default"].as_str())
                .unwrap_or("—");
            rows.push((name, value.to_string()));
        }
    }
    rows
}

#[test]
fn the_field_tables_of_sweeps_md_are_what_list_shows() {
    let out = Command::new(coordinator_binary()).args(["list", "--format", "json"]).output().expect("coordinator");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let games: serde_json::Value = serde_json::from_slice(&out.stdout).expect("list's JSON");
    let page = std::fs::read_to_string(repo().join("docs/sweeps.md")).unwrap();
    let mut wrong = Vec::new();
    for game in games.as_array().expect("an array of games") {
        let name = game["game"].as_str().expect("a game id");
        let want = listed(game);
        match documented(&page, name) {
            Ok(rows) if rows == want => {}
            Ok(rows) => wrong.push(format!("{name}: the table has\n  {rows:?}\n`list` shows\n  {want:?}")),
            Err(e) => wrong.push(format!("{name}: {e}; `list` shows {want:?}")),
        }
    }
    assert!(
        wrong.is_empty(),
        "docs/sweeps.md:\n{}\n(a new game: add its `### <game>` table of scenario fields to docs/sweeps.md, \
         as `coordinator list <game>` shows them)",
        wrong.join("\n")
    );
}
