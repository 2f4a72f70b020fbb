"""Games stepped one decision at a time (PettingZoo AEC), over the native ``TurnCore``.

The engine plays its own episode loop on a thread of its own and stops inside each ``"agent"``
seat's decision until Python answers, so the order of decisions is the engine's: in
``deception`` one speaker at a time in discussion, then each voter in seat order (no voter sees
another's ballot before the tally). That is PettingZoo's AEC API: ``agent_selection`` is the
seat the engine asks. A game module (``_deception``) gives the spaces and the conversions of
the agent contract (docs/agents.md).
"""

from __future__ import annotations

import json

import gymnasium
import pettingzoo

from ._contract import episode_seed as _seed
from ._contract import scenario_info
from ._native import TurnCore, engine_version


class TurnEnv(pettingzoo.AECEnv):
    """A turn-based simfleet game with every ``"agent"`` seat played from Python (AEC API).

    Agents are named ``seat_<i>``. Rewards arrive when the episode ends (the record's
    ``agent_rewards``). ``record()`` gives the finished episode's record, byte for byte the one
    the fleet writes for that seed.
    """

    def __init__(self, game, scenario: str, team=None):
        self._game = game
        self.metadata = {"name": f"simfleet_{game.GAME}_v0", "render_modes": [], "is_parallelizable": False}
        self.scenario = scenario
        self.info = scenario_info(game.GAME, scenario)
        if team is None:
            team = ["agent"] * int(self.info["num_agents"])
        self.team = list(team)
        self._core = TurnCore(game.GAME, scenario, self.team)
        self.possible_agents = [f"seat_{i}" for i in self._core.agent_seats]
        self.agents = []
        self._obs_space = game.observation_space(self.info)
        self._act_space = game.action_space(self.info)
        self._blank = game.blank_observation(self.info)
        self.render_mode = None
        self.engine_version = engine_version(game.GAME)
        self._record = None
        self._obs = {}
        self.seed_played = None

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    def reset(self, seed=None, options=None):
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._obs = {a: self._blank for a in self.agents}
        self._record = None
        self.seed_played = _seed(seed)
        self._handle(self._core.reset(self.seed_played))

    def _handle(self, event):
        kind, seat, payload = event
        if kind == "ask":
            agent = f"seat_{seat}"
            self._obs[agent] = self._game.observation(json.loads(payload))
            self.agent_selection = agent
            return
        self._record = payload
        record = json.loads(payload)
        for a in self.agents:
            self.rewards[a] = float(record["agent_rewards"][int(a.removeprefix("seat_"))])
            self.terminations[a] = not record["truncated"]
            self.truncations[a] = bool(record["truncated"])
        self.agent_selection = self.agents[0] if self.agents else None

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if not self._act_space.contains(action):
            # A training loop's bug, not an opponent's move: refused, as in every simfleet env.
            raise ValueError(f"{agent}: {action!r} is not in the action space {self._act_space}")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._handle(self._core.answer(json.dumps(self._game.action_json(action))))
        self._accumulate_rewards()

    def observe(self, agent):
        return self._obs[agent]

    def record(self) -> str | None:
        """The finished episode's record as the fleet writes it (JSON), or ``None`` before the end."""
        return self._record

    def policy(self, spec: str, agent: str):
        """The built-in policy ``spec`` deciding for ``agent``: its ``act(obs)`` returns the action
        the policy chooses at ``agent``'s current decision (drawn from the seat's own stream,
        with the policy's memory of the episode), as an action of the action space."""
        return BuiltinPolicy(self, spec, agent)

    def _builtin(self, spec: str, agent: str):
        if agent != self.agent_selection or self.terminations.get(agent) or self.truncations.get(agent):
            raise ValueError(f"{agent} is not deciding now ({self.agent_selection} is)")
        kind, seat, payload = self._core.answer(json.dumps({"builtin": spec}))
        reply = json.loads(payload)
        if kind != "ask" or "policy_action" not in reply:
            raise RuntimeError(f"the engine answered {kind} to a built-in policy's request")
        return self._game.action_of(reply["policy_action"])

    def close(self):
        pass


class BuiltinPolicy:
    """A built-in policy playing one agent of a ``TurnEnv`` (``env.policy(spec, agent)``)."""

    def __init__(self, env: TurnEnv, spec: str, agent: str):
        self.env, self.spec, self.agent = env, spec, agent

    def reset(self, seed=None):
        """Nothing to do: the policy's episode starts with the environment's."""

    def act(self, obs=None):
        return self.env._builtin(self.spec, self.agent)


class SingleAgentEnv(gymnasium.Env):
    """A turn-based game with exactly one ``"agent"`` seat, as a Gymnasium env. The reward is
    0 until the last step, which carries the seat's ``agent_rewards`` entry."""

    metadata = {"render_modes": []}

    def __init__(self, game, scenario: str, team=None):
        info = scenario_info(game.GAME, scenario)
        if team is None:
            team = ["agent"] + [game.DEFAULT_TEAMMATE] * (int(info["num_agents"]) - 1)
        self._env = TurnEnv(game, scenario, team)
        if len(self._env.possible_agents) != 1:
            raise ValueError(f"a Gymnasium env needs exactly one \"agent\" seat, the team has {len(self._env.possible_agents)}")
        self._agent = self._env.possible_agents[0]
        self.observation_space = self._env.observation_space(self._agent)
        self.action_space = self._env.action_space(self._agent)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._env.reset(seed=_seed(seed, self.np_random))
        return self._env.observe(self._agent), {}

    def step(self, action):
        a = self._agent
        self._env.step(action)
        return self._env.observe(a), self._env.rewards[a], self._env.terminations[a], self._env.truncations[a], {}

    def record(self) -> str | None:
        """The finished episode's record (see ``TurnEnv.record``)."""
        return self._env.record()
