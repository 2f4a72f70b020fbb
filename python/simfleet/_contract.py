"""The agent contract's JSON as numpy values, shared by the environments and the host.

A list of integers is a ``uint8`` array (nested lists: a 2-D one); ``{"dtype": D, "data": [...]}``
an array of dtype ``D`` (for counters wider than a byte); a string stays a ``str``.
"""

import numpy as np


def value(v):
    if isinstance(v, str):
        return v
    if isinstance(v, dict):
        return np.asarray(v["data"], dtype=np.dtype(v["dtype"]))
    return np.asarray(v, dtype=np.uint8)


def observation(d: dict) -> dict:
    return {k: value(v) for k, v in d.items()}
