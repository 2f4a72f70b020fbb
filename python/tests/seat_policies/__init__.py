"""Policies for ``python:`` seats in the tests' sweeps (``python:seat_policies:Class``)."""

import time

import numpy as np


class Nearest:
    """Signals WORK; goes to the burning house nearest its home (its own when none burns) and
    works there. Ties are broken by a generator seeded by ``reset(seed)``."""

    def __init__(self, seat, work="1"):
        self.seat = int(seat)
        self.work = int(work)
        self.rng = None

    def reset(self, seed):
        self.rng = np.random.default_rng(seed)

    def act(self, obs):
        burning = np.flatnonzero(obs["houses"] == 1)
        if len(burning) == 0:
            house = self.seat % 10
        else:
            d = np.minimum(np.abs(burning - self.seat), 10 - np.abs(burning - self.seat))
            nearest = burning[d == d.min()]
            house = int(self.rng.choice(nearest))
        return np.array([self.work, house, self.work])


class Raises:
    """Raises on night 3."""

    def __init__(self, seat):
        pass

    def reset(self, seed):
        pass

    def act(self, obs):
        if obs["night"][0] >= 3:
            raise ValueError("no plan for night three")
        return [0, 0, 0]


class Dies:
    """Its process exits on night 3, as a crash would end it."""

    def __init__(self, seat):
        pass

    def reset(self, seed):
        pass

    def act(self, obs):
        if obs["night"][0] >= 3:
            import os

            os._exit(3)
        return [0, 0, 0]


class Sleeps:
    """Never answers in time."""

    def __init__(self, seat, seconds="60"):
        self.seconds = float(seconds)

    def reset(self, seed):
        pass

    def act(self, obs):
        time.sleep(self.seconds)
        return [0, 0, 0]


class Illegal:
    """Answers with codes out of range."""

    def __init__(self, seat):
        pass

    def reset(self, seed):
        pass

    def act(self, obs):
        return [5, 99, 7]


class Talker:
    """deception: says its line in a tick's first round and passes after; votes for a legal
    target drawn by a generator seeded by ``reset(seed)`` (abstains without one)."""

    def __init__(self, seat, line="hello"):
        self.line = line
        self.rng = None

    def reset(self, seed):
        self.rng = np.random.default_rng(seed)

    def act(self, obs):
        legal = obs["legal_actions"]
        targets = np.flatnonzero(obs["legal_targets"])
        if legal[5] and len(targets):
            return {"action": 5, "target": int(self.rng.choice(targets)), "message": "", "reasoning": ""}
        if legal[6]:
            return {"action": 6, "target": 0, "message": "", "reasoning": ""}
        if legal[0] and obs["round"][0] == 1:
            return {"action": 0, "target": 0, "message": self.line, "reasoning": ""}
        return {"action": 4, "target": 0, "message": "", "reasoning": ""}


class Minority:
    """trolley: argues for its side once per round with a line seeded by ``reset(seed)``, and
    as operator always saves the minority."""

    LINES = ("Every life counts the same.", "Numbers are not the whole story.", "Think of who is on the track.")

    def __init__(self, seat):
        self.rng = None

    def reset(self, seed):
        self.rng = np.random.default_rng(seed)

    def act(self, obs):
        legal = obs["legal_actions"]
        if legal[2]:
            return {"action": 2, "decision": 1, "text": ""}
        if legal[0] and obs["phase"][0] == 0:
            return {"action": 0, "decision": 0, "text": str(self.rng.choice(self.LINES))}
        return {"action": 1, "decision": 0, "text": ""}


class Wanderer:
    """cogsguard: moves (action ids 1..4) in a direction drawn by a generator seeded by
    ``reset(seed)``, drawing a new one when the last move failed; reads the 11x11 window's
    uint16 ``amount`` to stay put next to an extractor with units left."""

    def __init__(self, seat):
        self.rng = None
        self.direction = 1

    def reset(self, seed):
        self.rng = np.random.default_rng(seed)
        self.direction = int(self.rng.integers(1, 5))

    def act(self, obs):
        assert obs["amount"].dtype == np.uint16 and obs["kind"].shape == (11, 11)
        if not obs["last_ok"][0]:
            self.direction = int(self.rng.integers(1, 5))
        if obs["amount"][4:7, 4:7].any():
            return 0
        return self.direction
