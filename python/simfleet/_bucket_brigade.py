"""Bucket Brigade as PettingZoo and Gymnasium environments (docs/agents.md, "bucket_brigade").

A night is two decisions: every seat signals (REST 0 or WORK 1), then every seat acts (a
house 0..9 and a mode), having seen all the night's signals. Each is one ``step``: the action
is always ``[signal, house, mode]``; the signal phase reads only ``signal``, the act phase only
``house`` and ``mode``. Rewards arrive with the act phase.
"""

from __future__ import annotations

import numpy as np
import gymnasium
import pettingzoo
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from ._contract import episode_seed as _seed
from ._native import BucketBrigadeCore, BucketBrigadePolicy, engine_version

GAME = "bucket_brigade"
#: What a seat not named ``"agent"`` plays in the single-seat Gymnasium env by default.
DEFAULT_TEAMMATE = "firefighter"
_KEYS = ("phase", "night", "houses", "locations", "last_houses", "last_modes", "last_signals", "signals")


def observation_space(n: int) -> spaces.Dict:
    """The observation of one seat in a town of ``n`` agents."""
    u8 = np.uint8
    return spaces.Dict(
        {
            "phase": spaces.MultiDiscrete([2], dtype=u8),
            "night": spaces.MultiDiscrete([102], dtype=u8),
            "houses": spaces.MultiDiscrete([3] * 10, dtype=u8),
            "locations": spaces.MultiDiscrete([10] * n, dtype=u8),
            "last_houses": spaces.MultiDiscrete([10] * n, dtype=u8),
            "last_modes": spaces.MultiDiscrete([2] * n, dtype=u8),
            "last_signals": spaces.MultiDiscrete([2] * n, dtype=u8),
            "signals": spaces.MultiDiscrete([2] * n, dtype=u8),
        }
    )


def action_space() -> spaces.MultiDiscrete:
    """``[signal, house, mode]``."""
    return spaces.MultiDiscrete([2, 10, 2])


def _core(scenario: str, team, num_envs: int) -> BucketBrigadeCore:
    if team is None:
        # Every seat an agent: the scenario says how many.
        team = ["agent"] * _agents_of(scenario)
    return BucketBrigadeCore(scenario, list(team), num_envs)


def _agents_of(scenario: str) -> int:
    """N of a scenario (its ``num_agents``)."""
    return BucketBrigadeCore.agents_of(scenario)




class ParallelEnv(pettingzoo.ParallelEnv):
    """Bucket Brigade with every ``"agent"`` seat played from Python (PettingZoo Parallel API).

    Agents are named ``seat_<i>`` by seat. ``record()`` gives the finished episode's record,
    byte for byte the one the fleet writes for that seed.
    """

    metadata = {"name": "simfleet_bucket_brigade_v0", "render_modes": [], "is_parallelizable": True}

    def __init__(self, scenario: str = "default", team=None):
        self.scenario = scenario
        self._core = _core(scenario, team, 1)
        self.team = list(team) if team is not None else ["agent"] * self._core.num_agents
        self.possible_agents = [f"seat_{i}" for i in self._core.agent_seats]
        self.agents = []
        self._obs_space = observation_space(self._core.num_agents)
        self._act_space = action_space()
        self.render_mode = None
        self.engine_version = engine_version(GAME)

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    def _split(self, obs) -> dict:
        return {a: {k: obs[k][0, j] for k in _KEYS} for j, a in enumerate(self.possible_agents)}

    def reset(self, seed=None, options=None):
        obs = self._core.reset(_seed(seed))
        self.agents = list(self.possible_agents)
        return self._split(obs), {a: {} for a in self.agents}

    def step(self, actions):
        batch = np.array([[actions[a] for a in self.possible_agents]], dtype=np.int64)
        obs, rewards, terminated, truncated = self._core.step(batch)
        agents = self.agents
        out = self._split(obs)
        term, trunc = bool(terminated[0]), bool(truncated[0])
        rew = {a: float(rewards[0, j]) for j, a in enumerate(self.possible_agents)}
        if term or trunc:
            self.agents = []
        return (
            {a: out[a] for a in agents},
            {a: rew[a] for a in agents},
            {a: term for a in agents},
            {a: trunc for a in agents},
            {a: {} for a in agents},
        )

    @property
    def seed_played(self) -> int:
        """The seed of the current episode."""
        return self._core.seed_of(0)

    def record(self) -> str | None:
        """The finished episode's record as the fleet writes it (JSON), or ``None`` before the end."""
        return self._core.record_json(0)

    def policy(self, spec: str, agent: str):
        """The built-in policy ``spec`` playing ``agent``'s seat of this environment."""
        return policy(spec, int(agent.removeprefix("seat_")), self.scenario)

    def close(self):
        pass


class SingleAgentEnv(gymnasium.Env):
    """A Bucket Brigade env with exactly one ``"agent"`` seat, as a Gymnasium env.

    Without ``team``, seat 0 is the agent and the others play ``firefighter``.
    """

    metadata = {"render_modes": []}

    def __init__(self, scenario: str = "default", team=None):
        if team is None:
            team = ["agent"] + [DEFAULT_TEAMMATE] * (_agents_of(scenario) - 1)
        self._env = ParallelEnv(scenario, team)
        if len(self._env.possible_agents) != 1:
            raise ValueError(f"a Gymnasium env needs exactly one \"agent\" seat, the team has {len(self._env.possible_agents)}")
        self._agent = self._env.possible_agents[0]
        self.observation_space = self._env.observation_space(self._agent)
        self.action_space = self._env.action_space(self._agent)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        obs, infos = self._env.reset(seed=_seed(seed, self.np_random))
        return obs[self._agent], infos[self._agent]

    def step(self, action):
        obs, rew, term, trunc, infos = self._env.step({self._agent: action})
        a = self._agent
        return obs[a], rew[a], term[a], trunc[a], infos[a]

    def record(self) -> str | None:
        """The finished episode's record (see ``ParallelEnv.record``)."""
        return self._env.record()


class VectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` Bucket Brigade environments stepped in Rust in one call per step.

    With one agent seat, observations are ``(num_envs, ...)`` per key and actions
    ``(num_envs, 3)``; with ``k`` agent seats, ``(num_envs, k, ...)`` and ``(num_envs, k, 3)``.
    """

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, scenario: str = "default", team=None, num_envs: int = 1):
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self._core = _core(scenario, team, num_envs)
        self.num_envs = num_envs
        self._k = len(self._core.agent_seats)
        if self._k == 0:
            raise ValueError("the team has no \"agent\" seat to play from Python")
        one_obs = observation_space(self._core.num_agents)
        if self._k == 1:
            self.single_observation_space = one_obs
            self.single_action_space = action_space()
        else:
            self.single_observation_space = spaces.Dict(
                {k: spaces.MultiDiscrete(np.tile(s.nvec, (self._k, 1)), dtype=np.uint8) for k, s in one_obs.items()}
            )
            self.single_action_space = spaces.MultiDiscrete(np.tile([2, 10, 2], (self._k, 1)))
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        obs = self._core.reset(_seed(seed, self.np_random), self._k == 1)
        return obs, {}

    def step(self, actions):
        obs, rewards, terminated, truncated = self._core.step(np.asarray(actions, dtype=np.int64), self._k == 1)
        return obs, rewards, terminated, truncated, {}

    def record(self, i: int) -> str | None:
        """Environment ``i``'s finished episode's record, until its auto-reset."""
        return self._core.record_json(i)


def policy(spec: str, seat: int, scenario: str) -> BucketBrigadePolicy:
    return BucketBrigadePolicy(spec, seat, scenario)
