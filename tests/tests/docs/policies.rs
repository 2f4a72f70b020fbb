//! README.md's table of games lists every policy each game has (as `coordinator list` shows it).

use simfleet::GameKind;

use super::session::repo;

#[test]
fn the_readme_lists_every_policy_of_every_game() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let mut missing = Vec::new();
    for game in GameKind::ALL {
        let row = readme.lines().find(|l| l.starts_with(&format!("| `{}` |", game.as_str()))).unwrap_or_else(|| {
            panic!("README.md has no table row for {game} (a new game adds its row to the table of games)")
        });
        for policy in game.info().policies {
            let named = ['`', '?', ':'].iter().any(|end| row.contains(&format!("`{}{end}", policy.name)));
            if !named {
                missing.push(format!("{game}: {}", policy.name));
            }
        }
    }
    assert!(missing.is_empty(), "README.md's games table leaves out: {}", missing.join(", "));
}
