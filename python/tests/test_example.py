"""examples/python/: the loop from training to a fleet-scale answer, at a size of seconds."""

import json
import os
import subprocess
import sys

import numpy as np

from conftest import ROOT, coordinator_bin


def test_the_example_trains_a_seat_that_a_stop_sweep_finds_better_than_random(tmp_path):
    script = ROOT / "examples" / "python" / "train_bucket_brigade.py"
    p = subprocess.run(
        [sys.executable, str(script), "--iterations", "40", "--envs", "64", "--work", str(tmp_path), "--coordinator", coordinator_bin()],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["episodes"] > 5000
    # The evaluation played the saved policy as a python: seat, against random in the same seat.
    sweep = (tmp_path / "evaluate.toml").read_text()
    assert "python:trained_policy:Trained?weights=" in sweep and 'random = ["random"' in sweep
    assert np.load(tmp_path / "policy.npz")["weights"].any()
    decision = summary["decision"]
    assert (decision["policy_set"], decision["question"], decision["decision"]) == ("trained", "baseline", "better"), p.stdout
    assert decision["interval_low"] > 1.0  # the [stop] margin
    assert "trained vs random: better" in p.stdout
