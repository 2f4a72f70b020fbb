"""``make``, ``make_vec`` and ``policy``: one entry per game, chosen by its id."""

from __future__ import annotations

from typing import Sequence
from urllib.parse import quote

from . import _bucket_brigade, _cogsguard, _deception, _trolley, _turns
from ._native import default_scenario

#: The games that can be stepped from Python, by id.
GAMES = {"bucket_brigade": _bucket_brigade, "deception": _deception, "cogsguard": _cogsguard, "trolley": _trolley}
#: The games stepped one decision at a time (PettingZoo AEC); the others are Parallel.
TURN_BASED = {"deception", "cogsguard", "trolley"}

_SPEC_SAFE = "-_.~:,"


def scenario_spec(scenario: str | None = None, game: str = "bucket_brigade", **fields) -> str:
    """The scenario string a sweep file would hold: ``NAME?field=value&...``.

    ``fields`` override the scenario's fields, under the names ``coordinator list GAME``
    shows; values are written as text (``True`` as ``true``) and percent-encoded.
    """
    spec = scenario or default_scenario(game)
    if fields:
        parts = []
        for k, v in fields.items():
            text = str(v).lower() if isinstance(v, bool) else str(v)
            parts.append(f"{k}={quote(text, safe=_SPEC_SAFE)}")
        spec += ("&" if "?" in spec else "?") + "&".join(parts)
    return spec


def _game(game: str):
    try:
        return GAMES[game]
    except KeyError:
        known = ", ".join(GAMES)
        raise ValueError(f"unknown game {game!r} (known from Python: {known})") from None


def make(game: str, scenario: str | None = None, team: Sequence[str] | None = None, **fields):
    """A PettingZoo environment of ``game``: ``ParallelEnv`` for Bucket Brigade (simultaneous
    moves), ``AECEnv`` for the turn-based games (``deception``), whose decisions come one at a
    time in the engine's order.

    ``team`` names a policy per seat as sweep files do; ``"agent"`` seats are played from
    Python. Without ``team`` every seat is an agent; without ``scenario``, the game's default.
    Scenario ``fields`` and policies are validated as in sweep files, with the same messages
    (as ``ValueError``).
    """
    module = _game(game)
    spec = scenario_spec(scenario, game, **fields)
    if game in TURN_BASED:
        return _turns.TurnEnv(module, spec, team)
    return module.ParallelEnv(spec, team)


def make_vec(game: str, num_envs: int, scenario: str | None = None, team: Sequence[str] | None = None, **fields):
    """``num_envs`` environments of ``game`` stepped in one call (a Gymnasium ``VectorEnv``).

    The keywords are ``make``'s. Actions are one array with an action for every agent seat of
    every environment; observations, rewards and flags come back as numpy arrays. Environment
    ``i`` of ``reset(seed=s)`` plays seed ``s + i``; auto-reset is Gymnasium's next-step mode.
    """
    module = _game(game)
    if game in TURN_BASED:
        raise ValueError(f"make_vec steps Bucket Brigade only; step {game} with make (one environment per episode)")
    return module.VectorEnv(scenario_spec(scenario, game, **fields), team, num_envs)


def policy(spec: str, seat: int, game: str = "bucket_brigade", scenario: str | None = None, **fields):
    """The built-in policy ``spec`` playing ``seat``: ``reset(seed)`` with the episode's seed,
    then ``act(observation)`` for each decision, returning an action of the game's space.
    """
    module = _game(game)
    if game in TURN_BASED:
        raise ValueError(f"{game}'s built-in policies decide inside an environment: use env.policy(spec, agent)")
    return module.policy(spec, seat, scenario_spec(scenario, game, **fields))
