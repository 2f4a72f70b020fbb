"""cogsguard's agent contract (docs/agents.md, "cogsguard"): spaces and conversions.

The observation of §12: the seat's own state, the team's pool and vibes, and an 11×11 window
centred on the agent (row i, column j shows map cell (row − 5 + i, col − 5 + j)). The action
is an action id 0..11. A tick's actions are simultaneous: the environment asks the agent seats
one after another in seat order, each seeing the world before the tick.
"""

from __future__ import annotations

import sys

import numpy as np
from gymnasium import spaces

from . import _contract

GAME = "cogsguard"
#: What a seat not named ``"agent"`` plays in the single-seat Gymnasium env by default.
DEFAULT_TEAMMATE = "pinky"
ACTIONS = 12
VIEW = 11
VIBES = 7




def observation_space(info: dict) -> spaces.Dict:
    n = info["num_agents"]
    u8, u16, u32 = np.uint8, np.uint16, np.uint32
    grid = (VIEW, VIEW)

    def codes(k):
        return spaces.MultiDiscrete(np.full(grid, k), dtype=u8)

    return spaces.Dict(
        {
            "seat": spaces.MultiDiscrete([n], dtype=u8),
            "time": spaces.Box(0, np.iinfo(u32).max, (2,), dtype=u32),
            "position": spaces.Box(0, np.iinfo(u16).max, (4,), dtype=u16),
            "last_action": spaces.MultiDiscrete([ACTIONS], dtype=u8),
            "last_ok": spaces.MultiDiscrete([2], dtype=u8),
            "body": spaces.Box(0, np.iinfo(u16).max, (8,), dtype=u16),
            "cargo": spaces.Box(0, np.iinfo(u16).max, (4,), dtype=u16),
            "gear": spaces.MultiDiscrete([5], dtype=u8),
            "vibe": spaces.MultiDiscrete([VIBES], dtype=u8),
            "pool": spaces.Box(0, np.iinfo(u32).max, (5,), dtype=u32),
            "team_vibes": spaces.Box(0, 255, (VIBES,), dtype=u8),
            "kind": codes(14),
            "align": codes(4),
            "agent": codes(2),
            "agent_vibe": codes(VIBES),
            "agent_gear": codes(5),
            "amount": spaces.Box(0, np.iinfo(u16).max, grid, dtype=u16),
        }
    )


def action_space(info: dict) -> spaces.Discrete:
    return spaces.Discrete(ACTIONS)





def action_of(d) -> int:
    return int(d)


def blank_observation(info: dict) -> dict:
    return _contract.blank(observation_space(info))


observation = _contract.observation
action_json = _contract.action_json


def single_agent_env(scenario: str | None = None, team=None, **fields):
    """The Gymnasium env ``simfleet/Cogsguard-v0``: one ``"agent"`` seat (by default seat 0, the
    others ``pinky``)."""
    from ._envs import scenario_spec
    from ._turns import SingleAgentEnv

    return SingleAgentEnv(sys.modules[__name__], scenario_spec(scenario, GAME, **fields), team)
