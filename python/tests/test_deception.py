"""deception from Python: the AEC environment, its Gymnasium wrapper, the same episodes as
`coordinator run`, and `python:` seats in deception sweeps."""

import json
import os
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import simfleet

HERE = Path(__file__).resolve().parent
ENV = {"PYTHONPATH": str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", "")}


@pytest.mark.parametrize("team", [None, ["agent", "heuristic", "agent", "random"]])
def test_pettingzoo_aec_api(team):
    env = simfleet.make("deception", "quick_4p1i", team=team)
    api_test(env, num_cycles=200)


def test_gymnasium_check_env_of_the_single_seat_env():
    env = gymnasium.make("simfleet/Deception-v0").unwrapped
    check_env(env, skip_render_check=True)
    assert env.observation_space["alive"].shape == (5,)  # the default scenario, classic_5p1i


def test_bad_input_is_a_value_error_with_the_sweep_message(tmp_path, coordinator):
    with pytest.raises(ValueError) as err:
        simfleet.make("deception", "quick_4p1i", team=["agent", "heuristic?aggression=2", "random", "random"])
    sweep = tmp_path / "bad.toml"
    sweep.write_text(
        'name = "bad"\nseeds = { start = 0, count = 1 }\n[[cells]]\ngame = "deception"\nscenarios = ["quick_4p1i"]\n'
        '[cells.policy_sets]\nt = ["random", "heuristic?aggression=2", "random", "random"]\n'
    )
    p = coordinator("run", sweep, "--out", tmp_path / "bad.jsonl", "--quiet", check=False)
    assert p.returncode != 0
    assert str(err.value) in p.stderr, p.stderr


def play_with_builtin_policies(env, team, seed):
    """One episode with every agent seat's action chosen by its built-in policy from Python."""
    env.reset(seed=seed)
    policies = {a: env.policy(team[int(a.removeprefix("seat_"))], a) for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = policies[agent].act(obs)
        assert env.action_space(agent).contains(action)
        env.step(action)
    return env.record()


def runs_records(tmp_path, coordinator, scenario, team, count=100):
    sweep = tmp_path / "same.toml"
    sweep.write_text(
        f'name = "same"\nseeds = {{ start = 0, count = {count} }}\n[[cells]]\ngame = "deception"\n'
        f"scenarios = [{json.dumps(scenario)}]\n[cells.policy_sets]\nteam = {json.dumps(team)}\n"
    )
    out = tmp_path / "same.jsonl"
    coordinator("run", sweep, "--out", out, "--quiet")
    by_seed = {}
    for line in out.read_text().splitlines():
        # The record is the line after the six columns saying where it came from.
        _, _, rest = line.partition(',"seed":')
        by_seed[json.loads(line)["seed"]] = '{"seed":' + rest
    assert len(by_seed) == count
    return by_seed


@pytest.mark.parametrize(
    "scenario,team,agents",
    [
        ("quick_4p1i", ["heuristic", "random", "heuristic", "heuristic?aggression=0.9"], [0, 1, 2, 3]),
        ("tiebreak_6p1i?allow_abstain=false", ["random", "heuristic", "random", "heuristic", "random", "heuristic"], [1, 4]),
    ],
)
def test_a_hundred_seeds_stepped_from_python_are_coordinator_runs_records(tmp_path, coordinator, scenario, team, agents):
    by_seed = runs_records(tmp_path, coordinator, scenario, team)
    # The agent seats are played from Python with the built-in policies' choices; the others by
    # the engine itself.
    env = simfleet.make("deception", scenario, team=["agent" if i in agents else p for i, p in enumerate(team)])
    for seed in range(100):
        assert play_with_builtin_policies(env, team, seed) == by_seed[seed], f"{scenario} seed {seed}"


def test_an_action_outside_the_rules_is_the_games_fallback_and_counted():
    env = simfleet.make("deception", "quick_4p1i", team=["agent", "heuristic", "heuristic", "heuristic"])
    env.reset(seed=1)
    decisions = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        decisions += 1
        # Accusing oneself is in the action space but never legal.
        env.step({"action": 1, "target": 0, "message": "", "reasoning": ""})
    record = json.loads(env.record())
    assert record["stats"]["invalid_actions"][0] == decisions > 0
    # An environment's record is the fleet's: no `outside` stat (a sweep has no agent seats).
    assert "outside" not in record["stats"]


def test_an_action_outside_the_space_is_refused_from_python():
    env = simfleet.make("deception", "quick_4p1i", team=["agent", "heuristic", "heuristic", "heuristic"])
    env.reset(seed=1)
    for bad in ({"action": 9, "target": 0, "message": "", "reasoning": ""}, [1, 2], {"action": 1}):
        with pytest.raises(ValueError, match="not in the action space"):
            env.step(bad)
    # The episode goes on.
    env.step({"action": 4, "target": 0, "message": "", "reasoning": ""})


def python_sweep(tmp_path, seat, count=20):
    path = tmp_path / "py.toml"
    path.write_text(
        f'name = "pyd"\nseeds = {{ start = 0, count = {count} }}\nepisodes_per_job = 10\n[[cells]]\ngame = "deception"\n'
        f'scenarios = ["quick_4p1i"]\n[cells.policy_sets]\nmixed = [{json.dumps(seat)}, "heuristic", "heuristic", "heuristic"]\n'
    )
    return path


def test_a_python_seat_plays_deception_deterministically(tmp_path, coordinator):
    s = python_sweep(tmp_path, "python:seat_policies:Talker?line=I%20was%20fixing%20wires")
    coordinator("run", s, "--out", tmp_path / "a.jsonl", "--quiet", env=ENV)
    coordinator("run", s, "--out", tmp_path / "b.jsonl", "--quiet", "--threads", "1", env=ENV)
    a = (tmp_path / "a.jsonl").read_bytes()
    assert a == (tmp_path / "b.jsonl").read_bytes()
    rows = [json.loads(l) for l in a.decode().splitlines()]
    assert len(rows) == 20
    for r in rows:
        seat = r["stats"]["outside"]["0"]
        assert seat["decisions"] > 0 and seat["illegal"] == 0
        # Its answers were in the space and the rules' too.
        assert r["stats"]["invalid_actions"][0] == 0


def test_answers_outside_the_space_fall_back_and_are_counted(tmp_path, coordinator):
    s = python_sweep(tmp_path, "python:seat_policies:Illegal", count=10)
    coordinator("run", s, "--out", tmp_path / "a.jsonl", "--quiet", env=ENV)
    for line in (tmp_path / "a.jsonl").read_text().splitlines():
        seat = json.loads(line)["stats"]["outside"]["0"]
        assert seat["illegal"] == seat["decisions"] > 0
