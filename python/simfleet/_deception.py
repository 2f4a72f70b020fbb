"""deception's agent contract (docs/agents.md, "deception"): spaces and conversions.

An observation is public state as codes and the ``transcript``, the game's history as text
(talk is what this game is). An action is ``{"action", "target", "message", "reasoning"}``:
``action`` a code of discuss 0, accuse 1, defend 2, propose_vote 3, pass 4, vote 5, abstain 6;
``target`` a seat (accuse, vote); ``message`` a discussion's message or a defence's statement;
``reasoning`` a defence's reasoning. Fields an action does not use are ignored.
"""

from __future__ import annotations

import string

import numpy as np
from gymnasium import spaces

from . import _contract

GAME = "deception"
#: What a seat not named ``"agent"`` plays in the single-seat Gymnasium env by default.
DEFAULT_TEAMMATE = "heuristic"
ACTIONS = ("discuss", "accuse", "defend", "propose_vote", "pass", "vote", "abstain")
#: The characters of texts: printable ASCII (the built-in policies' lines are all of it).
CHARSET = string.printable
#: The most characters of a text parameter (the rules' limit).
MAX_TEXT = 500




def observation_space(info: dict) -> spaces.Dict:
    n, t, r = info["num_agents"], info["max_ticks"], info["discussion_rounds_per_tick"]
    u8 = np.uint8
    # Each discussion line is at most a header and two texts; each vote line a ballot per seat.
    longest = t * (r * n * (2 * MAX_TEXT + 64) + n * 32 + 64)
    return spaces.Dict(
        {
            "seat": spaces.MultiDiscrete([n], dtype=u8),
            "role": spaces.MultiDiscrete([2], dtype=u8),
            "phase": spaces.MultiDiscrete([3], dtype=u8),
            "tick": spaces.MultiDiscrete([t + 2], dtype=u8),
            "round": spaces.MultiDiscrete([r + 1], dtype=u8),
            "speaker": spaces.MultiDiscrete([n + 1], dtype=u8),
            "alive": spaces.MultiDiscrete([2] * n, dtype=u8),
            "revealed": spaces.MultiDiscrete([3] * n, dtype=u8),
            "legal_actions": spaces.MultiDiscrete([2] * len(ACTIONS), dtype=u8),
            "legal_targets": spaces.MultiDiscrete([2] * n, dtype=u8),
            "transcript": spaces.Text(max_length=longest, min_length=0, charset=CHARSET),
        }
    )


def action_space(info: dict) -> spaces.Dict:
    n = info["num_agents"]
    return spaces.Dict(
        {
            "action": spaces.Discrete(len(ACTIONS)),
            "target": spaces.Discrete(n),
            "message": spaces.Text(max_length=MAX_TEXT, min_length=0, charset=CHARSET),
            "reasoning": spaces.Text(max_length=MAX_TEXT, min_length=0, charset=CHARSET),
        }
    )





def action_of(d: dict) -> dict:
    """An action JSON from the engine as the space's values."""
    return {"action": int(d["action"]), "target": int(d["target"]), "message": d["message"], "reasoning": d["reasoning"]}


def blank_observation(info: dict) -> dict:
    return _contract.blank(observation_space(info))


observation = _contract.observation
action_json = _contract.action_json


def single_agent_env(scenario: str | None = None, team=None, **fields):
    """The Gymnasium env ``simfleet/Deception-v0``: one ``"agent"`` seat (by default seat 0,
    the others ``heuristic``)."""
    import sys

    from ._envs import scenario_spec
    from ._turns import SingleAgentEnv

    return SingleAgentEnv(sys.modules[__name__], scenario_spec(scenario, GAME, **fields), team)
