//! Exact replays from recorded exchanges: `coordinator replay … --records FILE` (JSON Lines,
//! CSV or Parquet) plays an episode of `llm` seats again without calling the model (the
//! stand-in server counts its requests), and the replayed record equals the recorded one byte
//! for byte; a record that does not match what the engine asks fails clearly.

use simfleet_tests::llm_server::{Behaviour, LlmServer};

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_episode_replays_byte_for_byte_without_a_model_call() {
    // 429s and malformed answers too: the replay reproduces failures and retries as well.
    let behaviour = Behaviour {
        rate_limit_every: Some(7),
        retry_after_s: Some(0),
        malformed_every: Some(5),
        ..Behaviour::default()
    };
    let model = LlmServer::start(behaviour);
    // A flaky model on purpose: its fallbacks are part of what is replayed, not a failure.
    let dir =
        Dir::with_sweep(&format!("llm_max_fallback_share = 1.0\n{}", sweep("llm-replay", &model.endpoint(), 4, "")));
    // The same sweep recorded into each format a replay reads.
    let files: Vec<PathBuf> = ["run.jsonl", "run.csv", "run.parquet"].iter().map(|f| dir.path(f)).collect();
    for file in &files {
        assert_ok(&coordinator(&["run", &dir.sweep(), "--out", file.to_str().unwrap(), "--quiet"], &[]).await);
    }
    let run = &files[0];
    let recorded = records(run);
    assert!(total(&recorded, "transport_errors") > 0, "the recording holds failures");
    let calls = model.requests();

    let cells = [
        ("deception", "quick_4p1i", "llm_vs_heuristic", "1"),
        ("trolley", "trio_3p?max_rounds=1", "llm_and_persuadable", "3"),
    ];
    for ((game, scenario, set, seed), file) in cells.iter().flat_map(|c| files.iter().map(move |f| (c, f))) {
        let out = dir.path(&format!("{game}.json"));
        let args = [
            "replay",
            &dir.sweep(),
            "--game",
            game,
            "--scenario",
            scenario,
            "--policy-set",
            set,
            "--seed",
            seed,
            "--records",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        let result = coordinator(&args, &[]).await;
        assert_ok(&result);
        let stderr = String::from_utf8_lossy(&result.stderr);
        let what = format!("{game} from {}", file.display());
        assert!(stderr.contains("matches byte for byte") && stderr.contains("none made"), "{what}: {stderr}");
        let replay: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert!(!replay["llm_calls"].as_array().unwrap().is_empty(), "the replay lists the calls");
    }
    assert_eq!(model.requests(), calls, "no model call during the replays");

    // A record whose answer was changed into one the game refuses is not the episode the engine
    // plays: the refusal asks again, with a prompt the recording does not have.
    let text = std::fs::read_to_string(run).unwrap();
    let mut lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let target = lines.iter_mut().find(|r| r["game"] == "deception" && r["seed"] == 1).unwrap();
    let seat = target["stats"]["llm"].as_object_mut().unwrap().values_mut().next().unwrap();
    let first = seat["exchanges"].as_array_mut().unwrap().iter_mut().find(|e| e.get("answer").is_some()).unwrap();
    first["answer"] = "no JSON here".into();
    let edited = dir.path("edited.jsonl");
    std::fs::write(&edited, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let args = [
        "replay",
        &dir.sweep(),
        "--game",
        "deception",
        "--scenario",
        "quick_4p1i",
        "--policy-set",
        "llm_vs_heuristic",
        "--seed",
        "1",
        "--records",
        edited.to_str().unwrap(),
    ];
    let result = coordinator(&args, &[]).await;
    assert!(!result.status.success());
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(stderr.contains("left the recording") || stderr.contains("differs from the recorded one"), "{stderr}");
    assert_eq!(model.requests(), calls);
}
