"""The agent contract's JSON as numpy values and back, shared by the environments (the host,
python/simfleet/host.py, repeats ``value`` because it runs without simfleet installed).

A list of integers is a ``uint8`` array (nested lists: a 2-D one); ``{"dtype": D, "data": [...]}``
an array of dtype ``D`` (for counters wider than a byte); a string stays a ``str``.
"""

import json

import numpy as np
from gymnasium import spaces

from ._native import scenario_json


def value(v):
    if isinstance(v, str):
        return v
    if isinstance(v, dict):
        return np.asarray(v["data"], dtype=np.dtype(v["dtype"]))
    return np.asarray(v, dtype=np.uint8)


def observation(d: dict) -> dict:
    """An observation's JSON as the space's values."""
    return {k: value(v) for k, v in d.items()}


def blank(space: spaces.Dict) -> dict:
    """What an agent observes before its first decision: zeros, and empty texts."""
    return {k: "" if isinstance(s, spaces.Text) else np.zeros(s.shape, dtype=s.dtype) for k, s in space.items()}


def action_json(action):
    """An action of a space as JSON values: numpy scalars and arrays as numbers and lists, a
    ``Dict`` action value by value. Anything else is passed on as it is (the environments
    refuse what is not in the space before it gets here)."""
    if isinstance(action, dict):
        return {k: action_json(v) for k, v in action.items()}
    if hasattr(action, "tolist"):
        return action.tolist()
    return action


def episode_seed(seed, rng: np.random.Generator | None = None) -> int:
    """``seed`` as an int, or a fresh one from ``rng`` (a new generator without one)."""
    if seed is not None:
        return int(seed)
    rng = rng or np.random.default_rng()
    return int(rng.integers(0, 2**63))


def scenario_info(game: str, scenario: str) -> dict:
    """The resolved scenario of `game` (every field, as the game validated it)."""
    return json.loads(scenario_json(game, scenario))
