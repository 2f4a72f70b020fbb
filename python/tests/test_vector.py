"""make_vec: batched spaces, seeds s + i, next-step auto-reset, and the same episodes as make."""

import numpy as np
import pytest

import simfleet

TEAM = ["agent", "firefighter", "random", "liar"]


def test_a_sample_of_the_action_space_is_a_valid_step():
    env = simfleet.make_vec("bucket_brigade", 8, team=TEAM)
    obs, _ = env.reset(seed=3)
    assert env.action_space.shape == (8, 3)
    assert obs["houses"].shape == (8, 10) and obs["houses"].dtype == np.uint8
    assert env.observation_space.contains(obs)
    for _ in range(50):
        obs, rew, term, trunc, _ = env.step(env.action_space.sample())
        assert rew.shape == (8,) and rew.dtype == np.float64
        assert term.shape == (8,) and trunc.dtype == np.bool_
        assert env.observation_space.contains(obs)


def test_several_agent_seats_batch_along_a_seat_axis():
    env = simfleet.make_vec("bucket_brigade", 4)
    obs, _ = env.reset(seed=0)
    assert env.action_space.shape == (4, 4, 3)
    assert obs["signals"].shape == (4, 4, 4)
    obs, rew, *_ = env.step(env.action_space.sample())
    assert rew.shape == (4, 4)


def test_env_i_plays_seed_s_plus_i_and_resets_on_the_next_step():
    n, s = 5, 100
    vec = simfleet.make_vec("bucket_brigade", n, team=TEAM)
    single = simfleet.make("bucket_brigade", team=TEAM)
    rng = np.random.default_rng(0)
    vobs, _ = vec.reset(seed=s)
    actions = [rng.integers(0, [2, 10, 2], size=(n, 3)) for _ in range(400)]
    # Env i, stepped alone with the same actions, gives the same observations and rewards.
    for i in range(n):
        obs, _ = single.reset(seed=s + i)
        for key in obs["seat_0"]:
            assert np.array_equal(obs["seat_0"][key], vobs[key][i])
    ended = np.zeros(n, dtype=bool)
    totals = np.zeros(n)
    finished = []
    for a in actions:
        was_ended = ended.copy()
        vobs, rew, term, trunc, _ = vec.step(a)
        # The step after an episode's end is its reset: no reward, no flags, night 1.
        assert np.all(rew[was_ended] == 0) and not np.any(term[was_ended] | trunc[was_ended])
        assert np.all(vobs["night"][was_ended, 0] == 1) and np.all(vobs["phase"][was_ended, 0] == 0)
        totals += rew
        ended = term | trunc
        for i in np.flatnonzero(ended):
            finished.append((i, totals[i], vec.record(i)))
            totals[i] = 0
    assert len(finished) > n, "every env should finish several episodes in 400 phases"
    # The first episode of each env is the single env's episode of seed s + i.
    first = {}
    for i, total, record in finished:
        first.setdefault(i, (total, record))
    for i, (total, record) in first.items():
        single.reset(seed=s + i)
        steps = iter(actions)
        total_single = 0.0
        # Replay env i's own actions until its episode ends.
        while single.agents:
            _, r, *_ = single.step({"seat_0": next(steps)[i]})
            total_single += r["seat_0"]
        assert single.record() == record
        assert abs(total_single - total) < 1e-9


def test_a_refused_batch_changes_no_environment():
    team = ["agent", "random", "random", "random"]
    a = simfleet.make_vec("bucket_brigade", 4, team=team)
    b = simfleet.make_vec("bucket_brigade", 4, team=team)
    a.reset(seed=11)
    b.reset(seed=11)
    good = np.tile([1, 3, 1], (4, 1))
    bad = good.copy()
    bad[3] = [1, 10, 1]  # house 10 of 0..9, in the last environment only
    with pytest.raises(ValueError, match="env 3"):
        a.step(bad)
    for _ in range(6):
        oa, ra, *_ = a.step(good)
        ob, rb, *_ = b.step(good)
        assert all(np.array_equal(oa[k], ob[k]) for k in oa) and np.array_equal(ra, rb)
