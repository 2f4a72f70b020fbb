"""trolley's agent contract (docs/agents.md, "trolley"): spaces and conversions.

An observation is the round as codes (counts saturate at 255) and the ``transcript``: earlier
rounds and this round's arguments as text. An action is ``{"action", "decision", "text"}``:
``action`` argue 0 (with ``text``), skip 1, decide 2 (with ``decision``: save_majority 0,
save_minority 1). Fields an action does not use are ignored.
"""

from __future__ import annotations

import string
import sys

import numpy as np
from gymnasium import spaces

from . import _contract

GAME = "trolley"
#: What a seat not named ``"agent"`` plays in the single-seat Gymnasium env by default.
DEFAULT_TEAMMATE = "debater"
ACTIONS = ("argue", "skip", "decide")
DECISIONS = ("save_majority", "save_minority")
#: The characters of texts: printable ASCII (the built-in policies' arguments are all of it).
CHARSET = string.printable
#: The most characters of an argument (the rules' limit).
MAX_TEXT = 500




def observation_space(info: dict) -> spaces.Dict:
    n, rounds = info["num_agents"], info["max_rounds"]
    u8 = np.uint8
    # Each earlier round is a line of ids; this round has at most 3 arguments per seat.
    longest = min(rounds, 10**6) * (n * 16 + 96) + 3 * n * (MAX_TEXT + 64)
    return spaces.Dict(
        {
            "seat": spaces.MultiDiscrete([n], dtype=u8),
            "round": spaces.Box(0, 255, (1,), dtype=u8),
            "phase": spaces.MultiDiscrete([5], dtype=u8),
            "role": spaces.MultiDiscrete([3], dtype=u8),
            "operator": spaces.MultiDiscrete([n], dtype=u8),
            "roles": spaces.MultiDiscrete([3] * n, dtype=u8),
            "scores": spaces.Box(0, 255, (n,), dtype=u8),
            "acted": spaces.MultiDiscrete([2], dtype=u8),
            "legal_actions": spaces.MultiDiscrete([2] * len(ACTIONS), dtype=u8),
            "transcript": spaces.Text(max_length=longest, min_length=0, charset=CHARSET),
        }
    )


def action_space(info: dict) -> spaces.Dict:
    return spaces.Dict(
        {
            "action": spaces.Discrete(len(ACTIONS)),
            "decision": spaces.Discrete(len(DECISIONS)),
            "text": spaces.Text(max_length=MAX_TEXT, min_length=0, charset=CHARSET),
        }
    )





def action_of(d: dict) -> dict:
    """An action JSON from the engine as the space's values."""
    return {"action": int(d["action"]), "decision": int(d["decision"]), "text": d["text"]}


def blank_observation(info: dict) -> dict:
    return _contract.blank(observation_space(info))


observation = _contract.observation
action_json = _contract.action_json


def single_agent_env(scenario: str | None = None, team=None, **fields):
    """The Gymnasium env ``simfleet/Trolley-v0``: one ``"agent"`` seat (by default seat 0, the
    others ``debater``)."""
    from ._envs import scenario_spec
    from ._turns import SingleAgentEnv

    return SingleAgentEnv(sys.modules[__name__], scenario_spec(scenario, GAME, **fields), team)
