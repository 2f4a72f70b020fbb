"""simfleet from Python: the fleet's game engines as PettingZoo and Gymnasium environments.

The engines are the Rust crate the fleet plays with (a native module, ``simfleet._native``),
so an episode stepped here is, seed for seed, the episode ``coordinator run`` plays.

- ``simfleet.make(game, scenario=..., team=[...], **fields)``: a PettingZoo ``ParallelEnv``;
  seats given as ``"agent"`` are played from Python, the others by their built-in policy.
- ``simfleet.make_vec(game, num_envs, ...)``: many environments stepped in one call, a
  Gymnasium ``VectorEnv`` with numpy arrays in and out.
- ``simfleet.policy(spec, seat, ...)``: a built-in policy playing one seat from observations.
- ``simfleet.read(path)``: any results file as a polars DataFrame.

docs/python.md is the guide; docs/agents.md the observation and action of every game.
"""

from ._envs import GAMES, make, make_vec, policy, scenario_spec
from ._read import read

__all__ = ["GAMES", "make", "make_vec", "policy", "read", "scenario_spec"]

from . import _register  # noqa: E402,F401  (the Gymnasium ids simfleet/<Game>-v0)
