//! `coordinator list [GAME] [--format json]`: the games, their scenarios with every field a
//! sweep may override and its value there, their policies, outcomes, stats and histogram
//! buckets. Every fact comes from the game (`GameKind::info`, `GameKind::scenario_fields`), so
//! the listing cannot drift from what the engines accept.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

use serde::Serialize;
use simfleet::games::FieldDefault;
use simfleet::GameKind;

/// List the games: their scenarios, and with GAME every field a sweep may override in each
/// scenario (`NAME?field=value&...`) with its value there; their policies, outcomes, stats and,
/// with GAME, the histogram buckets of their metrics and summaries. --format json gives all of
/// it, for tools.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Only this game, in full: scenario fields and histogram buckets too.
    game: Option<GameKind>,
    /// `text` for a person, `json` for tools (always in full).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// How `list` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned text.
    Text,
    /// One JSON array of games.
    Json,
}

/// Prints the listing.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let games: Vec<GameKind> = args.game.into_iter().collect();
    let text = match args.format {
        Format::Text => listing(&games),
        Format::Json => serde_json::to_string_pretty(&describe(&games))? + "\n",
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// One game, as `list --format json` prints it.
#[derive(Debug, Serialize)]
pub struct GameListing {
    /// The game id.
    pub game: &'static str,
    /// `<game>-rules-<n>`.
    pub rules_version: &'static str,
    /// The `engine_version` of its records.
    pub engine_version: String,
    /// Every outcome label.
    pub outcomes: &'static [&'static str],
    /// The outcome that counts as a win, if any.
    pub win_outcome: Option<&'static str>,
    /// Named scenarios, the default first.
    pub scenarios: Vec<ScenarioListing>,
    /// Policy names with their spec syntax.
    pub policies: Vec<Named>,
    /// Stats keys.
    pub stats: &'static [&'static str],
    /// Histogram upper bounds (`+Inf` added) of the metrics and of summaries.
    pub buckets: BucketListing,
}

/// One scenario and its overridable fields.
#[derive(Debug, Serialize)]
pub struct ScenarioListing {
    /// As written in a sweep.
    pub name: &'static str,
    /// What it is.
    pub about: &'static str,
    /// Every field a sweep may override, with its value in this scenario.
    pub fields: Vec<FieldDefault>,
}

/// A name and what it is.
#[derive(Debug, Serialize)]
pub struct Named {
    /// The name.
    pub name: &'static str,
    /// What it is.
    pub about: &'static str,
}

/// A game's histogram buckets.
#[derive(Debug, Serialize)]
pub struct BucketListing {
    /// Team reward per episode.
    pub team_reward: &'static [f64],
    /// Episode length.
    pub length: &'static [f64],
    /// Each seat's reward.
    pub agent_reward: &'static [f64],
}

/// What `list` shows of `games` (every game when empty).
pub fn describe(games: &[GameKind]) -> Vec<GameListing> {
    let games: Vec<GameKind> = if games.is_empty() { GameKind::ALL.to_vec() } else { games.to_vec() };
    games
        .into_iter()
        .map(|g| {
            let info = g.info();
            GameListing {
                game: g.as_str(),
                rules_version: info.rules_version,
                engine_version: simfleet::engine_version(g),
                outcomes: info.outcomes,
                win_outcome: info.win_outcome,
                scenarios: info
                    .scenarios
                    .iter()
                    .map(|e| ScenarioListing {
                        name: e.name,
                        about: e.about,
                        fields: g.scenario_fields(e.name).unwrap_or_default(),
                    })
                    .collect(),
                policies: info.policies.iter().map(|e| Named { name: e.name, about: e.about }).collect(),
                stats: info.stat_keys,
                buckets: BucketListing {
                    team_reward: info.buckets.team_reward,
                    length: info.buckets.length,
                    agent_reward: info.buckets.agent_reward,
                },
            }
        })
        .collect()
}

/// Lines of text no wider than this (the fields and buckets wrap).
const WIDTH: usize = 100;

/// `items` joined by `sep` after `lead`, wrapped before [`WIDTH`] with `indent` on later lines.
fn wrapped(out: &mut String, lead: &str, indent: usize, items: &[String], sep: &str) {
    let mut line = lead.to_string();
    for (i, item) in items.iter().enumerate() {
        let piece = if i + 1 < items.len() { format!("{item}{sep}") } else { item.clone() };
        if line.len() > indent && line.trim_end().len() + 1 + piece.len() > WIDTH {
            let _ = writeln!(out, "{}", line.trim_end());
            line = " ".repeat(indent);
        }
        line.push_str(&piece);
        line.push(' ');
    }
    let _ = writeln!(out, "{}", line.trim_end());
}

/// A field as a person writes its override: `name=value`, with the note after it if any.
fn field_text(f: &FieldDefault) -> String {
    match (&f.default, f.note) {
        (Some(v), "") => format!("{}={v}", f.name),
        (Some(v), note) => format!("{}={v} ({note})", f.name),
        (None, note) => format!("{} ({note})", f.name),
    }
}

/// The listing of `games` for a terminal: every game in brief when empty, else the named
/// games in full (each scenario's fields, the histogram buckets).
pub fn listing(games: &[GameKind]) -> String {
    let full = !games.is_empty();
    let mut out = String::new();
    for (i, g) in describe(games).iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{}  ({}, engine {})", g.game, g.rules_version, g.engine_version);
        let win = g.win_outcome.map_or("none (summaries show mean team reward)".to_string(), |w| w.to_string());
        let _ = writeln!(out, "  outcomes: {}; win outcome: {win}", g.outcomes.join(", "));
        let _ = writeln!(out, "  scenarios (first is the default; override fields with NAME?field=value&...):");
        let width = g.scenarios.iter().map(|e| e.name.len()).max().unwrap_or(0);
        for s in &g.scenarios {
            let _ = writeln!(out, "    {:width$}  {}", s.name, s.about);
            if full {
                let fields: Vec<String> = s.fields.iter().map(field_text).collect();
                wrapped(&mut out, "      ", 6, &fields, "");
            }
        }
        let _ = writeln!(out, "  policies (one spec per seat in a policy set):");
        let width = g.policies.iter().map(|e| e.name.len()).max().unwrap_or(0);
        for e in &g.policies {
            let _ = writeln!(out, "    {:width$}  {}", e.name, e.about);
        }
        let _ = writeln!(
            out,
            "    {:width$}  python:package.module:Class[?key=value]: a Python policy, run in a host process (docs/python.md)",
            "python"
        );
        let _ = writeln!(
            out,
            "    {:width$}  wasm:path/to/agent.wasm[?label=name&fuel=N&memory_mb=M&key=value]: a sandboxed WebAssembly agent (docs/agents.md)",
            "wasm"
        );
        if !g.stats.is_empty() {
            let _ = writeln!(out, "  stats: {}", g.stats.join(", "));
        }
        if full {
            let _ = writeln!(out, "  histogram buckets (upper bounds, then +Inf; the metrics' and the summaries'):");
            for (name, bounds) in [
                ("team_reward", g.buckets.team_reward),
                ("length", g.buckets.length),
                ("agent_reward", g.buckets.agent_reward),
            ] {
                let bounds: Vec<String> = bounds.iter().map(f64::to_string).collect();
                wrapped(&mut out, &format!("    {name:<12}  "), 18, &bounds, ",");
            }
        } else {
            let _ = writeln!(
                out,
                "  (`coordinator list {}` adds each scenario's fields and the histogram buckets)",
                g.game
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use simfleet::spec::Spec;
    use simfleet::{AnyGame, RunEnv};

    use super::*;

    #[test]
    fn every_scenario_lists_fields_and_every_default_is_accepted_as_an_override() {
        let env = RunEnv::default();
        for g in GameKind::ALL {
            let policy = Spec::parse(g.info().policies[0].name).unwrap();
            for s in g.info().scenarios {
                let fields = g.scenario_fields(s.name).unwrap_or_else(|| panic!("{g} {} lists no fields", s.name));
                assert!(!fields.is_empty(), "{g} {}", s.name);
                // The check below can fail: a bad value is refused.
                let bad = Spec::parse(&format!("{}?num_agents=999", s.name)).unwrap();
                assert!(AnyGame::prepare(g, &bad, &[], &env).is_err(), "{g} {bad} is accepted");
                let Some(n) = fields.iter().find(|f| f.name == "num_agents").and_then(|f| f.default.clone()) else {
                    continue;
                };
                let team = vec![policy.clone(); n.parse().unwrap()];
                for f in &fields {
                    let Some(value) = &f.default else { continue };
                    let spec = Spec::parse(&format!("{}?{}={value}", s.name, f.name)).unwrap();
                    let prepared = AnyGame::prepare(g, &spec, &team, &env);
                    assert!(prepared.is_ok(), "{g} {spec}: {:?}", prepared.err());
                }
            }
        }
    }

    #[test]
    fn a_game_in_full_shows_its_fields_and_buckets() {
        let text = listing(&[GameKind::Deception]);
        assert!(text.contains("      num_agents=5 num_imposters=1 max_ticks=20"), "{text}");
        assert!(text.contains("    agent_reward  "), "{text}");
        // The wrapped lines (fields, buckets) fit; a scenario's description is one line.
        let wrapped = text.lines().filter(|l| l.starts_with("      ") || l.starts_with("    agent_reward"));
        assert!(wrapped.clone().count() > 10 && wrapped.clone().all(|l| l.len() <= WIDTH), "{text}");
        let brief = listing(&[]);
        assert!(!brief.contains("num_imposters=1") && brief.contains("`coordinator list deception`"));
    }
}
