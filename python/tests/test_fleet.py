"""``python:`` seats on the fleet: `submit --watch` with two worker processes on a nats-server
with default settings gives the records `coordinator run` gives, byte for byte; a module that
cannot be imported is refused before anything is published."""

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import coordinator_bin
from test_python_seats import ENV, sweep

DEADLINE = 120.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, check, timeout=30.0):
    """Polls ``check`` until it returns something truthy; fails naming ``what`` after ``timeout``."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


@pytest.fixture
def nats(tmp_path):
    """A nats-server with JetStream and otherwise default settings, on free ports; yields its
    client URL and its monitoring URL."""
    binary = os.environ.get("SIMFLEET_NATS_SERVER") or shutil.which("nats-server")
    if not binary:
        pytest.fail("no nats-server on PATH (scripts/test installs one) and SIMFLEET_NATS_SERVER unset")
    port, monitor = free_port(), free_port()
    log = tmp_path / "nats.log"
    proc = subprocess.Popen(
        [binary, "-js", "-a", "127.0.0.1", "-p", str(port), "-m", str(monitor), "--store_dir", str(tmp_path / "js"), "-l", str(log)],
    )

    def ready():
        if proc.poll() is not None:
            pytest.fail(f"nats-server exited ({proc.returncode}):\n{log.read_text() if log.exists() else ''}")
        return log.exists() and "Server is ready" in log.read_text()

    wait_for("nats-server to be ready", ready)
    yield f"nats://127.0.0.1:{port}", f"http://127.0.0.1:{monitor}"
    proc.terminate()
    proc.wait(10)


def worker_bin() -> str:
    path = Path(coordinator_bin()).with_name("worker")
    if not path.exists():
        pytest.fail(f"no worker binary beside the coordinator ({path}): cargo build -p simfleet-worker")
    return str(path)


def start_workers(url, tmp_path, extra_env=None):
    """Two worker processes on the server, each with the test policies on its PYTHONPATH."""
    procs = []
    for i in range(2):
        log = open(tmp_path / f"worker{i}.log", "w")
        metrics = f"127.0.0.1:{free_port()}"
        proc = subprocess.Popen(
            [worker_bin(), "--nats-url", url, "--metrics-listen", metrics],
            env=dict(os.environ, **ENV, **(extra_env or {})),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        proc.metrics = f"http://{metrics}/metrics"
        procs.append(proc)
    return procs


def stop_workers(procs):
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait(30)


@pytest.fixture
def workers(nats, tmp_path):
    procs = start_workers(nats[0], tmp_path)
    yield procs
    stop_workers(procs)


def episodes_played(worker) -> float:
    """The worker's ``simfleet_episodes_total``, summed over its labels (its /metrics)."""
    with urllib.request.urlopen(worker.metrics, timeout=5) as r:
        text = r.read().decode()
    return sum(float(l.rsplit(" ", 1)[1]) for l in text.splitlines() if l.startswith("simfleet_episodes_total{"))


def stream_messages(monitor: str) -> int:
    """Messages held by every JetStream stream of the server (its /jsz monitoring endpoint)."""
    with urllib.request.urlopen(f"{monitor}/jsz", timeout=5) as r:
        return json.load(r)["messages"]


def test_a_python_seat_on_two_workers_gives_the_runs_records(tmp_path, coordinator, nats, workers):
    url, _ = nats
    s = sweep(tmp_path, "python:seat_policies:Nearest?work=1", count=60)
    coordinator("run", s, "--out", tmp_path / "run.jsonl", "--quiet", env=ENV)
    p = subprocess.run(
        [coordinator_bin(), "submit", str(s), "--watch", "--out", str(tmp_path / "fleet.jsonl"), "--quiet", "--nats-url", url],
        env=dict(os.environ, **ENV),
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert p.returncode == 0, p.stderr
    run = sorted((tmp_path / "run.jsonl").read_text().splitlines())
    fleet = sorted((tmp_path / "fleet.jsonl").read_text().splitlines())
    assert len(run) == 120
    # Same records, byte for byte: none lost, none twice.
    assert fleet == run
    # Both workers lived, and between them played every episode once.
    assert all(w.poll() is None for w in workers), "a worker died"
    assert sum(episodes_played(w) for w in workers) == 120
    mixed = [json.loads(l) for l in fleet if '"policy_set":"mixed"' in l]
    assert len(mixed) == 60 and all(r["stats"]["outside"]["0"]["illegal"] == 0 for r in mixed)


def test_submit_refuses_an_unimportable_module_before_publishing(tmp_path, nats):
    url, monitor = nats
    s = sweep(tmp_path, "python:no_such_package.policies:Agent")
    p = subprocess.run(
        [coordinator_bin(), "submit", str(s), "--nats-url", url],
        env=dict(os.environ, **ENV),
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert p.returncode != 0
    assert "policy_set[0]" in p.stderr and "no_such_package" in p.stderr, p.stderr
    assert "ModuleNotFoundError" in p.stderr, p.stderr
    # Nothing was published: the server holds no message in any stream.
    assert stream_messages(monitor) == 0


@pytest.mark.parametrize(
    "seat,message",
    [
        ("python:seat_policies:Raises", "seat_policies:Raises raised ValueError: no plan for night three"),
        ("python:seat_policies:Sleeps", "gave no answer within 0.5 s"),
        ("python:seat_policies:Dies", "the host process of seat_policies:Dies died (exit status: 3)"),
    ],
)
def test_a_failing_python_seat_on_the_fleet_fails_its_jobs_only(tmp_path, nats, seat, message):
    url, _ = nats
    procs = start_workers(url, tmp_path, {"SIMFLEET_PYTHON_TIMEOUT": "0.5"})
    try:
        s = sweep(tmp_path, seat, count=20)
        out = tmp_path / "fleet.jsonl"
        p = subprocess.run(
            [coordinator_bin(), "submit", str(s), "--watch", "--out", str(out), "--quiet", "--nats-url", url],
            env=dict(os.environ, **ENV),
            capture_output=True,
            text=True,
            timeout=DEADLINE,
        )
        assert p.returncode != 0
        failed = [l for l in (p.stdout + p.stderr).splitlines() if l.strip().startswith("job ")]
        assert len(failed) == 2, p.stdout + p.stderr
        assert all(f"policy_error in policy_set[0] = {seat}" in l and message in l for l in failed), failed
        # Nothing else is lost, and the workers go on.
        rows = [json.loads(l) for l in out.read_text().splitlines()]
        assert sorted(r["seed"] for r in rows if r["policy_set"] == "scripted") == list(range(20))
        assert all(w.poll() is None for w in procs), "a worker died"
    finally:
        stop_workers(procs)
