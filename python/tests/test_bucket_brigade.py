"""Bucket Brigade from Python: the PettingZoo and Gymnasium contracts, validation as in sweep
files, and the same episodes as `coordinator run`."""

import json

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import parallel_api_test

import simfleet

TEAM = ["firefighter", "liar", "random", "coordinator"]


def test_pettingzoo_parallel_api():
    parallel_api_test(simfleet.make("bucket_brigade"), num_cycles=300)
    parallel_api_test(simfleet.make("bucket_brigade", "hard", team=["agent", "hero", "agent", "random"]), num_cycles=300)


def test_gymnasium_check_env_of_the_single_seat_env():
    env = gymnasium.make("simfleet/BucketBrigade-v0")
    check_env(env.unwrapped)
    check_env(gymnasium.make("simfleet/BucketBrigade-v0", scenario="easy", team=["random", "agent", "random", "random"]).unwrapped)


def test_without_team_every_seat_is_an_agent_and_fields_override():
    env = simfleet.make("bucket_brigade", "default", num_agents=6)
    assert env.possible_agents == [f"seat_{i}" for i in range(6)]
    obs, _ = env.reset(seed=1)
    assert obs["seat_5"]["locations"].shape == (6,)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"scenario": "nowhere"}, "invalid scenario"),
        ({"num_agents": 20}, "invalid scenario.num_agents = 20"),
        ({"team": ["agent", "random"]}, "the team has 2 seats but scenario.num_agents = 4"),
        ({"team": ["agent", "heroo", "random", "random"]}, "invalid policy_set[1] = heroo: unknown policy"),
    ],
)
def test_bad_input_is_a_value_error_with_the_sweep_message(kwargs, message, tmp_path, coordinator):
    with pytest.raises(ValueError) as err:
        simfleet.make("bucket_brigade", **kwargs)
    assert message in str(err.value)
    # The coordinator says the same of the same cell in a sweep file.
    scenario = simfleet.scenario_spec(kwargs.get("scenario"), **{k: v for k, v in kwargs.items() if k not in ("scenario", "team")})
    team = [t if t != "agent" else "random" for t in kwargs.get("team", ["random"] * 4)]
    sweep = tmp_path / "bad.toml"
    sweep.write_text(
        f'name = "bad"\nseeds = {{ start = 0, count = 1 }}\n[[cells]]\ngame = "bucket_brigade"\n'
        f"scenarios = [{json.dumps(scenario)}]\n[cells.policy_sets]\nt = {json.dumps(team)}\n"
    )
    p = coordinator("run", sweep, "--out", tmp_path / "bad.jsonl", "--quiet", check=False)
    assert p.returncode != 0
    assert str(err.value) in p.stderr, p.stderr


def play_with_builtin_policies(env, team, seed):
    """Steps one episode with every seat's action chosen by its built-in policy from Python."""
    policies = {a: env.policy(spec, a) for a, spec in zip(env.possible_agents, team)}
    obs, _ = env.reset(seed=seed)
    for p in policies.values():
        p.reset(seed)
    while env.agents:
        obs, *_ = env.step({a: policies[a].act(obs[a]) for a in env.agents})
    return env.record()


def test_a_hundred_seeds_stepped_from_python_are_coordinator_runs_records(tmp_path, coordinator):
    for scenario, team in [("default", TEAM), ("hard?num_agents=5", TEAM + ["hero"])]:
        sweep = tmp_path / "same.toml"
        sweep.write_text(
            f'name = "same"\nseeds = {{ start = 0, count = 100 }}\n[[cells]]\ngame = "bucket_brigade"\n'
            f"scenarios = [{json.dumps(scenario)}]\n[cells.policy_sets]\nteam = {json.dumps(team)}\n"
        )
        out = tmp_path / "same.jsonl"
        coordinator("run", sweep, "--out", out, "--quiet")
        lines = out.read_text().splitlines()
        assert len(lines) == 100
        env = simfleet.make("bucket_brigade", scenario)
        by_seed = {}
        for line in lines:
            # The record is the line after the six columns saying where it came from.
            head, _, rest = line.partition(',"seed":')
            by_seed[json.loads(line)["seed"]] = '{"seed":' + rest
        for seed in range(100):
            assert play_with_builtin_policies(env, team, seed) == by_seed[seed], f"{scenario} seed {seed}"


def test_a_builtin_policy_refuses_a_malformed_observation():
    p = simfleet.policy("firefighter", 0)
    p.reset(0)
    with pytest.raises(ValueError, match="phase"):
        p.act({"phase": np.array([7]), "night": np.array([1]), "houses": np.zeros(10), "locations": np.arange(4),
               "last_houses": np.zeros(4), "last_modes": np.zeros(4), "last_signals": np.zeros(4), "signals": np.zeros(4)})


def test_an_illegal_action_is_refused_from_python():
    env = simfleet.make("bucket_brigade")
    env.reset(seed=0)
    env.step({a: np.array([1, 0, 1]) for a in env.agents})
    with pytest.raises(ValueError, match="house must be 0..9"):
        env.step({a: np.array([1, 12, 1]) for a in env.agents})
