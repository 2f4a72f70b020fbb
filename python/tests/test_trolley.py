"""trolley from Python: the AEC environment, its Gymnasium wrapper, the same episodes as
`coordinator run`, and `python:` seats in trolley sweeps."""

import json

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import simfleet
from test_deception import ENV, play_with_builtin_policies


@pytest.mark.parametrize("team", [None, ["agent", "debater", "agent"]])
def test_pettingzoo_aec_api(team):
    env = simfleet.make("trolley", "trio_3p", team=team)
    api_test(env, num_cycles=300)


def test_gymnasium_check_env_of_the_single_seat_env():
    env = gymnasium.make("simfleet/Trolley-v0").unwrapped
    check_env(env, skip_render_check=True)
    assert env.observation_space["roles"].shape == (5,)  # the default scenario, balanced_5p


def test_bad_input_is_a_value_error_with_the_sweep_message(tmp_path, coordinator):
    with pytest.raises(ValueError) as err:
        simfleet.make("trolley", "trio_3p", max_rounds=0)
    sweep = tmp_path / "bad.toml"
    sweep.write_text(
        'name = "bad"\nseeds = { start = 0, count = 1 }\n[[cells]]\ngame = "trolley"\nscenarios = ["trio_3p?max_rounds=0"]\n'
        '[cells.policy_sets]\nt = ["debater", "debater", "debater"]\n'
    )
    p = coordinator("run", sweep, "--out", tmp_path / "bad.jsonl", "--quiet", check=False)
    assert p.returncode != 0
    assert str(err.value) in p.stderr, p.stderr


def runs_records(tmp_path, coordinator, scenario, team, count=100):
    sweep = tmp_path / "same.toml"
    sweep.write_text(
        f'name = "same"\nseeds = {{ start = 0, count = {count} }}\n[[cells]]\ngame = "trolley"\n'
        f"scenarios = [{json.dumps(scenario)}]\n[cells.policy_sets]\nteam = {json.dumps(team)}\n"
    )
    out = tmp_path / "same.jsonl"
    coordinator("run", sweep, "--out", out, "--quiet")
    by_seed = {}
    for line in out.read_text().splitlines():
        _, _, rest = line.partition(',"seed":')
        by_seed[json.loads(line)["seed"]] = '{"seed":' + rest
    assert len(by_seed) == count
    return by_seed


@pytest.mark.parametrize(
    "scenario,team,agents",
    [
        ("trio_3p", ["debater", "utilitarian", "contrarian"], [0, 1, 2]),
        ("balanced_5p?max_rounds=7", ["random?p_majority=0.3", "persuadable", "debater?skip=0.5", "utilitarian", "random"], [0, 2]),
    ],
)
def test_a_hundred_seeds_stepped_from_python_are_coordinator_runs_records(tmp_path, coordinator, scenario, team, agents):
    by_seed = runs_records(tmp_path, coordinator, scenario, team)
    env = simfleet.make("trolley", scenario, team=["agent" if i in agents else p for i, p in enumerate(team)])
    for seed in range(100):
        assert play_with_builtin_policies(env, team, seed) == by_seed[seed], f"{scenario} seed {seed}"


def test_an_action_outside_the_rules_is_the_games_fallback_and_counted():
    env = simfleet.make("trolley", "trio_3p", team=["agent", "debater", "debater"])
    env.reset(seed=1)
    decisions = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        decisions += 1
        # An empty argument is in the action space, and never legal (1..=500 characters).
        env.step({"action": 0, "decision": 0, "text": ""})
    record = json.loads(env.record())
    assert sum(record["stats"]["invalid_actions"]) == decisions > 0
    assert "outside" not in record["stats"]


def python_sweep(tmp_path, seat, count=20):
    path = tmp_path / "py.toml"
    path.write_text(
        f'name = "pyt"\nseeds = {{ start = 0, count = {count} }}\nepisodes_per_job = 10\n[[cells]]\ngame = "trolley"\n'
        f'scenarios = ["trio_3p"]\n[cells.policy_sets]\nmixed = [{json.dumps(seat)}, "debater", "debater"]\n'
    )
    return path


def test_a_python_seat_plays_trolley_deterministically(tmp_path, coordinator):
    s = python_sweep(tmp_path, "python:seat_policies:Minority")
    coordinator("run", s, "--out", tmp_path / "a.jsonl", "--quiet", env=ENV)
    coordinator("run", s, "--out", tmp_path / "b.jsonl", "--quiet", "--threads", "1", env=ENV)
    a = (tmp_path / "a.jsonl").read_bytes()
    assert a == (tmp_path / "b.jsonl").read_bytes()
    rows = [json.loads(l) for l in a.decode().splitlines()]
    assert len(rows) == 20
    for r in rows:
        seat = r["stats"]["outside"]["0"]
        assert seat["decisions"] > 0 and seat["illegal"] == 0
        assert r["stats"]["invalid_actions"][0] == 0


def test_answers_outside_the_space_fall_back_and_are_counted(tmp_path, coordinator):
    s = python_sweep(tmp_path, "python:seat_policies:Illegal", count=10)
    coordinator("run", s, "--out", tmp_path / "a.jsonl", "--quiet", env=ENV)
    for line in (tmp_path / "a.jsonl").read_text().splitlines():
        seat = json.loads(line)["stats"]["outside"]["0"]
        assert seat["illegal"] == seat["decisions"] > 0
