"""The host of one ``python:`` seat: a process the engine starts and talks to over its pipes.

The engine runs ``python3 -u -c <this file>`` (the interpreter is ``SIMFLEET_PYTHON``), so a
worker needs Python, numpy and the user's package, not simfleet itself. One JSON object per
line each way (docs/agents.md, "The host protocol"):

    -> {"op": "load", "seat": 0, "class": "package.module:Class", "params": {"key": "value"}}
    <- {"ok": true}                         (or {"error": "...", "op": "load"})
    -> {"op": "reset", "seed": 123}
    <- {"ok": true}
    -> {"op": "act", "obs": {"phase": [0], "houses": [...], ...}}
    <- {"action": [1, 4, 1]}

The policy is ``Class(seat, **params)`` (params as strings); ``reset(seed)`` starts an episode
and ``act(observation)`` returns an action, with the observation's values as numpy uint8
arrays (and texts as str), as the environments give them. Whatever the policy prints goes to stderr: stdout is
the protocol's.
"""

import importlib
import json
import sys
import traceback


def load(target):
    module, _, name = target.partition(":")
    if not module or not name:
        raise ValueError(f"{target!r} is not package.module:Class")
    obj = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def action_of(a):
    """An action as JSON: numpy arrays and scalars as lists and numbers, tuples as lists, dicts
    (a Dict space's action) value by value; texts stay texts."""
    if hasattr(a, "tolist"):
        a = a.tolist()
    if isinstance(a, dict):
        return {str(k): action_of(v) for k, v in a.items()}
    if isinstance(a, (list, tuple)):
        return [action_of(x) for x in a]
    return a


def observation_of(obs, np):
    """The observation JSON as the environments give it (simfleet/_contract.py, repeated here
    because the host runs without simfleet installed): lists as numpy uint8 arrays,
    ``{"dtype", "data"}`` as arrays of that dtype, texts as str."""

    def value(v):
        if isinstance(v, str):
            return v
        if isinstance(v, dict):
            return np.asarray(v["data"], dtype=np.dtype(v["dtype"]))
        return np.asarray(v, dtype=np.uint8)

    return {k: value(v) for k, v in obs.items()}


def main():
    out = sys.stdout
    sys.stdout = sys.stderr
    import numpy as np

    policy = None
    for line in sys.stdin:
        msg = json.loads(line)
        op = msg.get("op")
        try:
            if op == "load":
                cls = load(msg["class"])
                policy = cls(msg["seat"], **msg.get("params", {}))
                reply = {"ok": True}
            elif op == "reset":
                policy.reset(msg["seed"])
                reply = {"ok": True}
            elif op == "act":
                obs = observation_of(msg["obs"], np)
                reply = {"action": action_of(policy.act(obs))}
            else:
                reply = {"error": f"unknown op {op!r}", "op": op}
        except BaseException as e:  # noqa: BLE001 (anything the policy raises is the job's error)
            traceback.print_exc(file=sys.stderr)
            reply = {"error": f"{type(e).__name__}: {e}", "op": op}
        try:
            json.dumps(reply)
        except (TypeError, ValueError):
            reply = {"action": None}
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
