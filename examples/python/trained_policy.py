"""The policy that ``train_bucket_brigade.py`` trains, as a ``python:`` seat of a sweep:

    python:trained_policy:Trained?weights=/path/to/policy.npz

A linear softmax policy with three heads, one per field of Bucket Brigade's action
``[signal, house, mode]`` (docs/agents.md), over the features below. In a sweep it plays
greedily (the most likely choice of each head), so its records depend on nothing but the
episode: no seed is drawn.
"""

import numpy as np

#: The action's fields and the size of each head.
HEADS = (("signal", 2), ("house", 10), ("mode", 2))
SLICES = {}
_start = 0
for _name, _size in HEADS:
    SLICES[_name] = slice(_start, _start + _size)
    _start += _size
OUTPUTS = _start


def features(obs, seat):
    """Features of a batch of observations (a dict of arrays of shape ``(B, ...)``): a bias,
    the phase, each house's state one-hot, the share of houses burning, where the seat stood
    last night (one-hot) and, in the act phase, the share of the other seats that signalled
    WORK. Shape ``(B, 1 + 1 + 30 + 1 + 10 + 1)``."""
    houses = np.asarray(obs["houses"], dtype=np.int64)
    b = houses.shape[0]
    one_hot = np.zeros((b, 10, 3))
    np.put_along_axis(one_hot, houses[:, :, None], 1.0, axis=2)
    location = np.zeros((b, 10))
    location[np.arange(b), np.asarray(obs["locations"])[:, seat].astype(np.int64)] = 1.0
    signals = np.asarray(obs["signals"], dtype=np.float64)
    others = (signals.sum(axis=1) - signals[:, seat]) / max(signals.shape[1] - 1, 1)
    phase = np.asarray(obs["phase"], dtype=np.float64)[:, :1]
    return np.concatenate(
        [np.ones((b, 1)), phase, one_hot.reshape(b, 30), (houses == 1).mean(axis=1, keepdims=True), location, others[:, None]],
        axis=1,
    )


FEATURES = 1 + 1 + 30 + 1 + 10 + 1


def logits(weights, x):
    """Each head's logits, ``{name: (B, size)}``."""
    z = x @ weights
    return {name: z[:, s] for name, s in SLICES.items()}


class Trained:
    """``Trained(seat, weights=PATH)``: the saved policy playing ``seat``, greedily."""

    def __init__(self, seat, weights):
        self.seat = int(seat)
        self.weights = np.load(weights)["weights"]
        if self.weights.shape != (FEATURES, OUTPUTS):
            raise ValueError(f"{weights}: weights of shape {self.weights.shape}, expected {(FEATURES, OUTPUTS)}")

    def reset(self, seed):
        pass

    def act(self, obs):
        batch = {k: np.asarray(v)[None] for k, v in obs.items()}
        z = logits(self.weights, features(batch, self.seat))
        return [int(np.argmax(z[name][0])) for name, _ in HEADS]
