"""``python:package.module:Class`` seats in sweeps, played by `coordinator run`: determinism,
illegal answers, and a policy that raises, hangs, or cannot be imported."""

import json
import os
from pathlib import Path

import simfleet

HERE = Path(__file__).resolve().parent
ENV = {"PYTHONPATH": str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def sweep(tmp_path, seat, count=40, name="py"):
    """A sweep of a cell with the python seat and a scripted cell beside it."""
    path = tmp_path / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\nseeds = {{ start = 0, count = {count} }}\nepisodes_per_job = 10\n'
        '[[cells]]\ngame = "bucket_brigade"\nscenarios = ["default"]\n[cells.policy_sets]\n'
        f'mixed = [{json.dumps(seat)}, "firefighter", "firefighter", "firefighter"]\n'
        'scripted = ["firefighter", "firefighter", "firefighter", "firefighter"]\n'
    )
    return path


def records(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def test_a_python_seat_plays_deterministically_and_is_counted(tmp_path, coordinator):
    s = sweep(tmp_path, "python:seat_policies:Nearest?work=1")
    coordinator("run", s, "--out", tmp_path / "a.jsonl", "--quiet", env=ENV)
    coordinator("run", s, "--out", tmp_path / "b.jsonl", "--quiet", "--threads", "1", env=ENV)
    a, b = (tmp_path / "a.jsonl").read_bytes(), (tmp_path / "b.jsonl").read_bytes()
    assert a == b
    rows = records(tmp_path / "a.jsonl")
    mixed = [r for r in rows if r["policy_set"] == "mixed"]
    assert len(mixed) == 40 and len(rows) == 80
    for r in mixed:
        seat = r["stats"]["outside"]["0"]
        # Two decisions a night, every one legal.
        assert seat == {"decisions": 2 * r["length"], "illegal": 0}
    # The seat worked every night it was asked to.
    assert all(r["stats"]["agent_work_nights"][0] == r["length"] for r in mixed)


def test_replay_reproduces_a_python_seats_episode(tmp_path, coordinator):
    s = sweep(tmp_path, "python:seat_policies:Nearest")
    coordinator("run", s, "--out", tmp_path / "a.jsonl", "--quiet", env=ENV)
    by_seed = {r["seed"]: r for r in records(tmp_path / "a.jsonl") if r["policy_set"] == "mixed"}
    out = tmp_path / "ep.json"
    coordinator("replay", s, "--scenario", "default", "--policy-set", "mixed", "--seed", 7, "--out", out, env=ENV)
    replay = json.loads(out.read_text())
    assert replay["record"]["trajectory_hash"] == by_seed[7]["trajectory_hash"]
    assert replay["record"]["stats"]["outside"] == by_seed[7]["stats"]["outside"]


def test_illegal_answers_fall_back_and_are_counted(tmp_path, coordinator):
    s = sweep(tmp_path, "python:seat_policies:Illegal", count=10)
    coordinator("run", s, "--out", tmp_path / "a.jsonl", "--quiet", env=ENV)
    for r in records(tmp_path / "a.jsonl"):
        if r["policy_set"] == "mixed":
            seat = r["stats"]["outside"]["0"]
            assert seat["illegal"] == seat["decisions"] == 2 * r["length"]


def failed_run(tmp_path, coordinator, seat, env=None):
    s = sweep(tmp_path, seat, count=20)
    out = tmp_path / "f.jsonl"
    p = coordinator("run", s, "--out", out, "--quiet", env={**ENV, **(env or {})}, check=False)
    return p, out


def test_a_policy_that_raises_fails_its_jobs_only(tmp_path, coordinator):
    p, out = failed_run(tmp_path, coordinator, "python:seat_policies:Raises")
    assert p.returncode != 0
    failed = [l for l in (p.stdout + p.stderr).splitlines() if l.strip().startswith("job ")]
    assert len(failed) == 2, p.stderr
    for line in failed:
        assert "policy_error in policy_set[0] = python:seat_policies:Raises" in line
        assert "seat_policies:Raises raised ValueError: no plan for night three" in line
    # Nothing else in the sweep is lost: every scripted episode is there.
    assert sum(r["policy_set"] == "scripted" for r in records(out)) == 20


def test_a_policy_that_hangs_is_cut_off(tmp_path, coordinator):
    p, out = failed_run(tmp_path, coordinator, "python:seat_policies:Sleeps", env={"SIMFLEET_PYTHON_TIMEOUT": "0.5"})
    assert p.returncode != 0
    failed = [l for l in (p.stdout + p.stderr).splitlines() if l.strip().startswith("job ")]
    assert len(failed) == 2 and all("gave no answer within 0.5 s" in l for l in failed), p.stderr
    assert sum(r["policy_set"] == "scripted" for r in records(out)) == 20


def test_a_host_process_that_dies_fails_its_jobs_only(tmp_path, coordinator):
    p, out = failed_run(tmp_path, coordinator, "python:seat_policies:Dies")
    assert p.returncode != 0
    failed = [l for l in (p.stdout + p.stderr).splitlines() if l.strip().startswith("job ")]
    assert len(failed) == 2, p.stderr
    assert all("the host process of seat_policies:Dies died (exit status: 3)" in l for l in failed), failed
    assert sum(r["policy_set"] == "scripted" for r in records(out)) == 20


def test_a_module_that_cannot_be_imported_is_refused_before_anything_is_played(tmp_path, coordinator):
    p, out = failed_run(tmp_path, coordinator, "python:no_such_module:Policy")
    assert p.returncode != 0
    assert "policy_set[0]" in p.stderr and "ModuleNotFoundError" in p.stderr, p.stderr
    assert not out.exists()


def test_the_outside_stat_is_a_column_of_csv_and_parquet(tmp_path, coordinator):
    s = sweep(tmp_path, "python:seat_policies:Illegal", count=10)
    for fmt in ("jsonl", "csv", "parquet"):
        coordinator("run", s, "--out", tmp_path / f"r.{fmt}", "--quiet", env=ENV)
    lines = {(r["policy_set"], r["seed"]): r["stats"].get("outside") for r in records(tmp_path / "r.jsonl")}
    for fmt, column in (("csv", "outside"), ("parquet", "stats.outside")):
        df = simfleet.read(tmp_path / f"r.{fmt}")
        got = {
            (p, s): (json.loads(o) if o else None)
            for p, s, o in zip(df["policy_set"], df["seed"], df[column])
        }
        assert got == lines, fmt
    # The python seat's faults, and nothing for the scripted cell.
    assert all((v is None) == (k[0] == "scripted") for k, v in lines.items())
