"""The AEC games from Python (deception, trolley, cogsguard), one generic driver over the
entries of games.py: PettingZoo's api_test, Gymnasium's check_env, the sweep's errors as
ValueError, 100 seeds per scenario byte-identical to `coordinator run`, the rules' fallbacks,
and `python:` seats in their sweeps."""

import json
import os
from pathlib import Path

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import simfleet
from games import GAMES

HERE = Path(__file__).resolve().parent
ENV = {"PYTHONPATH": str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", "")}
by_name = pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)


def sweep_file(tmp_path, game, scenario, team, count, name="t", per_job=None):
    path = tmp_path / f"{name}.toml"
    jobs = f"episodes_per_job = {per_job}\n" if per_job else ""
    path.write_text(
        f'name = "{name}"\nseeds = {{ start = 0, count = {count} }}\n{jobs}[[cells]]\ngame = "{game}"\n'
        f"scenarios = [{json.dumps(scenario)}]\n[cells.policy_sets]\nteam = {json.dumps(team)}\n"
    )
    return path


def records_by_seed(path):
    """The records of a .jsonl, keyed by seed, each as the text after the columns saying where
    it came from (what an environment's record() gives)."""
    out = {}
    for line in Path(path).read_text().splitlines():
        _, _, rest = line.partition(',"seed":')
        out[json.loads(line)["seed"]] = '{"seed":' + rest
    return out


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


@by_name
@pytest.mark.parametrize("mixed", [False, True], ids=["all_agents", "mixed"])
def test_pettingzoo_aec_api(game, mixed):
    api_test(simfleet.make(game.name, game.small, team=game.mixed_team if mixed else None), num_cycles=200)


@by_name
def test_gymnasium_check_env_of_the_single_seat_env(game):
    env = gymnasium.make(game.gym_id, **game.gym_kwargs).unwrapped
    check_env(env, skip_render_check=True)
    key, shape = game.gym_key
    assert env.observation_space[key].shape == shape


@by_name
def test_bad_input_is_a_value_error_with_the_sweep_message(game, tmp_path, coordinator):
    with pytest.raises(ValueError) as err:
        simfleet.make(game.name, **game.bad_kwargs)
    sweep = sweep_file(tmp_path, game.name, game.bad_scenario, game.bad_team, 1, "bad")
    p = coordinator("run", sweep, "--out", tmp_path / "bad.jsonl", "--quiet", check=False)
    assert p.returncode != 0
    assert str(err.value) in p.stderr, p.stderr


@pytest.mark.parametrize(
    "game,scenario,team,agents",
    [(g, *case) for g in GAMES for case in g.identity],
    ids=[f"{g.name}-{case[0]}" for g in GAMES for case in g.identity],
)
def test_a_hundred_seeds_stepped_from_python_are_coordinator_runs_records(tmp_path, coordinator, game, scenario, team, agents):
    sweep = sweep_file(tmp_path, game.name, scenario, team, 100, "same")
    coordinator("run", sweep, "--out", tmp_path / "same.jsonl", "--quiet")
    by_seed = records_by_seed(tmp_path / "same.jsonl")
    assert len(by_seed) == 100
    # The agent seats are played from Python with the built-in policies' choices; the others by
    # the engine itself.
    env = simfleet.make(game.name, scenario, team=["agent" if i in agents else p for i, p in enumerate(team)])
    for seed in range(100):
        assert play_with_builtin_policies(env, team, seed) == by_seed[seed], f"{scenario} seed {seed}"


@by_name
def test_an_action_the_rules_refuse_is_the_games_fallback_and_counted(game):
    if game.refused_action is None:
        pytest.skip(f"every action of {game.name}'s space is legal")
    env = simfleet.make(game.name, game.small, team=["agent"] + game.seat_mates[: len(game.mixed_team) - 1])
    env.reset(seed=1)
    decisions = 0
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        decisions += 1
        env.step(game.refused_action)
    record = json.loads(env.record())
    assert record["stats"]["invalid_actions"][0] == decisions > 0
    # An environment's record is the fleet's: no `outside` stat (a sweep has no agent seats).
    assert "outside" not in record["stats"]


@by_name
def test_an_action_outside_the_space_is_refused_from_python(game):
    env = simfleet.make(game.name, game.small, team=["agent"] + game.seat_mates[: len(game.mixed_team) - 1])
    env.reset(seed=1)
    for bad in ({"action": 99}, [1, 2], "pass", 99):
        with pytest.raises(ValueError, match="not in the action space"):
            env.step(bad)
    # The episode goes on.
    env.step(env.policy(game.seat_mates[0], env.agent_selection).act(None))


@by_name
def test_a_python_seat_plays_deterministically_and_replays(game, tmp_path, coordinator):
    s = sweep_file(tmp_path, game.name, game.seat_scenario, [game.seat] + game.seat_mates, 20, "py", per_job=10)
    coordinator("run", s, "--out", tmp_path / "a.jsonl", "--quiet", env=ENV)
    coordinator("run", s, "--out", tmp_path / "b.jsonl", "--quiet", "--threads", "1", env=ENV)
    a = (tmp_path / "a.jsonl").read_bytes()
    assert a == (tmp_path / "b.jsonl").read_bytes()
    rows = [json.loads(l) for l in a.decode().splitlines()]
    assert len(rows) == 20
    for r in rows:
        seat = r["stats"]["outside"]["0"]
        assert seat["decisions"] > 0 and seat["illegal"] == 0
        if "invalid_actions" in r["stats"]:
            # Its answers were the rules' too.
            assert r["stats"]["invalid_actions"][0] == 0
    # `replay` reproduces one of its episodes.
    out = tmp_path / "ep.json"
    coordinator("replay", s, "--scenario", game.seat_scenario, "--policy-set", "team", "--seed", 7, "--out", out, env=ENV)
    replayed = json.loads(out.read_text())["record"]
    played = next(r for r in rows if r["seed"] == 7)
    assert (replayed["trajectory_hash"], replayed["stats"]["outside"]) == (played["trajectory_hash"], played["stats"]["outside"])


@by_name
def test_answers_outside_the_space_fall_back_and_are_counted(game, tmp_path, coordinator):
    s = sweep_file(tmp_path, game.name, game.seat_scenario, ["python:seat_policies:Illegal"] + game.seat_mates, 10, "il")
    coordinator("run", s, "--out", tmp_path / "a.jsonl", "--quiet", env=ENV)
    for line in (tmp_path / "a.jsonl").read_text().splitlines():
        seat = json.loads(line)["stats"]["outside"]["0"]
        assert seat["illegal"] == seat["decisions"] > 0


@by_name
def test_a_reset_mid_episode_starts_the_new_episode_afresh(game):
    scenario, team, _ = game.identity[0]
    agents = ["agent"] * len(team)
    env, fresh = simfleet.make(game.name, scenario, team=agents), simfleet.make(game.name, scenario, team=agents)
    env.reset(seed=3)
    for _ in range(5):
        env.step(env.policy(team[int(env.agent_selection.removeprefix("seat_"))], env.agent_selection).act(None))
    # Abandoned mid-episode: the engine thread drops it and plays the next seed from its start.
    assert play_with_builtin_policies(env, team, 5) == play_with_builtin_policies(fresh, team, 5)
    del env  # the engine thread ends with its environment, mid-episode or not
