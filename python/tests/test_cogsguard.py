"""cogsguard from Python: the AEC environment (a tick's agent seats asked in seat order, each
seeing the world before the tick), its Gymnasium wrapper, the same episodes as
`coordinator run`, and `python:` seats in cogsguard sweeps."""

import json

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import simfleet
from test_deception import ENV, play_with_builtin_policies

SMALL = "arena?num_agents=3&max_steps=60&rows=30&cols=30"


@pytest.mark.parametrize("team", [None, ["agent", "pinky", "agent"]])
def test_pettingzoo_aec_api(team):
    env = simfleet.make("cogsguard", SMALL, team=team)
    api_test(env, num_cycles=200)


def test_gymnasium_check_env_of_the_single_seat_env():
    env = gymnasium.make("simfleet/Cogsguard-v0", scenario="ascii", map="tiny_3p", max_steps=50).unwrapped
    check_env(env, skip_render_check=True)
    assert env.observation_space["kind"].shape == (11, 11)


def test_bad_input_is_a_value_error_with_the_sweep_message(tmp_path, coordinator):
    with pytest.raises(ValueError) as err:
        simfleet.make("cogsguard", "arena", rows=12)
    sweep = tmp_path / "bad.toml"
    sweep.write_text(
        'name = "bad"\nseeds = { start = 0, count = 1 }\n[[cells]]\ngame = "cogsguard"\nscenarios = ["arena?rows=12"]\n'
        f'[cells.policy_sets]\nt = {json.dumps(["pinky"] * 8)}\n'
    )
    p = coordinator("run", sweep, "--out", tmp_path / "bad.jsonl", "--quiet", check=False)
    assert p.returncode != 0
    assert str(err.value) in p.stderr, p.stderr


def runs_records(tmp_path, coordinator, scenario, team, count=100):
    sweep = tmp_path / "same.toml"
    sweep.write_text(
        f'name = "same"\nseeds = {{ start = 0, count = {count} }}\n[[cells]]\ngame = "cogsguard"\n'
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
        # Pinky's rank (its share of the roles) counts earlier seats with the same spec: two
        # agent seats playing pinky after a scripted one get ranks 1 and 2, as in the sweep.
        (SMALL, ["pinky", "pinky", "pinky"], [1, 2]),
        ("ascii?map=tiny_3p&max_steps=80", ["random", "pinky?miner=2", "noop"], [0, 1, 2]),
    ],
)
def test_a_hundred_seeds_stepped_from_python_are_coordinator_runs_records(tmp_path, coordinator, scenario, team, agents):
    by_seed = runs_records(tmp_path, coordinator, scenario, team)
    env = simfleet.make("cogsguard", scenario, team=["agent" if i in agents else p for i, p in enumerate(team)])
    for seed in range(100):
        assert play_with_builtin_policies(env, team, seed) == by_seed[seed], f"{scenario} seed {seed}"


def python_sweep(tmp_path, seat, count=20):
    path = tmp_path / "py.toml"
    path.write_text(
        f'name = "pyc"\nseeds = {{ start = 0, count = {count} }}\nepisodes_per_job = 10\n[[cells]]\ngame = "cogsguard"\n'
        f'scenarios = ["ascii?map=tiny_3p&max_steps=40"]\n[cells.policy_sets]\nmixed = [{json.dumps(seat)}, "pinky", "pinky"]\n'
    )
    return path


def test_a_python_seat_plays_cogsguard_deterministically(tmp_path, coordinator):
    s = python_sweep(tmp_path, "python:seat_policies:Wanderer")
    coordinator("run", s, "--out", tmp_path / "a.jsonl", "--quiet", env=ENV)
    coordinator("run", s, "--out", tmp_path / "b.jsonl", "--quiet", "--threads", "1", env=ENV)
    a = (tmp_path / "a.jsonl").read_bytes()
    assert a == (tmp_path / "b.jsonl").read_bytes()
    rows = [json.loads(l) for l in a.decode().splitlines()]
    assert len(rows) == 20
    # One decision a tick, every one in the space.
    assert all(r["stats"]["outside"]["0"] == {"decisions": r["length"], "illegal": 0} for r in rows)


def test_answers_outside_the_space_fall_back_and_are_counted(tmp_path, coordinator):
    s = python_sweep(tmp_path, "python:seat_policies:Illegal", count=10)
    coordinator("run", s, "--out", tmp_path / "a.jsonl", "--quiet", env=ENV)
    for line in (tmp_path / "a.jsonl").read_text().splitlines():
        r = json.loads(line)
        assert r["stats"]["outside"]["0"] == {"decisions": r["length"], "illegal": r["length"]}
