"""Shared fixtures: the coordinator binary the suite runs against (scripts/test sets
SIMFLEET_COORDINATOR to the workspace's debug build), and a runner for it."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def coordinator_bin() -> str:
    path = os.environ.get("SIMFLEET_COORDINATOR") or shutil.which("coordinator")
    if not path:
        for profile in ("debug", "release"):
            p = ROOT / "target" / profile / "coordinator"
            if p.exists():
                return str(p)
        pytest.fail("no coordinator binary: build it (cargo build -p simfleet-coordinator) or set SIMFLEET_COORDINATOR")
    return path


@pytest.fixture(scope="session")
def coordinator():
    """Runs `coordinator ARGS...`; returns the completed process (check=False)."""
    binary = coordinator_bin()

    def run(*args, cwd=None, env=None, check=True):
        full_env = dict(os.environ, **(env or {}))
        p = subprocess.run([binary, *map(str, args)], cwd=cwd, env=full_env, capture_output=True, text=True)
        if check and p.returncode != 0:
            raise AssertionError(f"coordinator {' '.join(map(str, args))} failed ({p.returncode}):\n{p.stderr}")
        return p

    return run
