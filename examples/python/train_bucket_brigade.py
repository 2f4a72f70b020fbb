"""From training to a fleet-scale answer, in one script (docs/python.md, "The loop").

1. Trains one Bucket Brigade seat from scratch, NumPy only: REINFORCE (policy gradient with a
   baseline, Adam) on a linear softmax policy (``trained_policy.py``), against scripted
   ``free_rider`` teammates (who never fight a fire, so the seat's choices matter), with every environment stepped in Rust by ``simfleet.make_vec``.
2. Saves the policy (``policy.npz`` in ``--work``).
3. Evaluates it against ``random`` in the same seat with a stopping sweep (``[stop]``,
   baseline ``random``) through ``coordinator run``, where the policy plays as the seat
   ``python:trained_policy:Trained?weights=...``, and prints the decision.

    python examples/python/train_bucket_brigade.py                  # full size: 240,000 episodes, about 15 s
    python examples/python/train_bucket_brigade.py --iterations 40 --envs 64  # seconds

Needs ``pip install ./python`` and a coordinator binary (``--coordinator``, else
``SIMFLEET_COORDINATOR``, else ``coordinator`` on PATH, else the repository's target/).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import numpy as np

import simfleet

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from trained_policy import FEATURES, HEADS, OUTPUTS, SLICES, features, logits  # noqa: E402

SEAT = 0
TEAMMATE = "free_rider"
#: Which heads an action of each phase reads (docs/agents.md): signal, then house and mode.
READ = {0: ("signal",), 1: ("house", "mode")}


def softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class Adam:
    def __init__(self, shape, lr):
        self.lr, self.m, self.v, self.t = lr, np.zeros(shape), np.zeros(shape), 0

    def ascend(self, w, g, b1=0.9, b2=0.999, eps=1e-8):
        self.t += 1
        self.m = b1 * self.m + (1 - b1) * g
        self.v = b2 * self.v + (1 - b2) * g * g
        m, v = self.m / (1 - b1**self.t), self.v / (1 - b2**self.t)
        return w + self.lr * m / (np.sqrt(v) + eps)


def train(args):
    team = ["agent"] + [TEAMMATE] * 3
    env = simfleet.make_vec("bucket_brigade", args.envs, scenario=args.scenario, team=team)
    rng = np.random.default_rng(args.seed)
    weights = np.zeros((FEATURES, OUTPUTS))
    adam = Adam(weights.shape, args.lr)
    obs, _ = env.reset(seed=args.seed)
    resetting = np.zeros(args.envs, dtype=bool)
    running = np.zeros(args.envs)
    finished = []
    episodes = 0
    for it in range(args.iterations):
        xs, acts, phases, rews, dones, valid = [], [], [], [], [], []
        for _ in range(args.steps):
            x = features(obs, SEAT)
            z = logits(weights, x)
            # One sample per head (the Gumbel-max trick: argmax of logits plus Gumbel noise).
            action = np.stack([np.argmax(z[n] + rng.gumbel(size=z[n].shape), axis=1) for n, _ in HEADS], axis=1)
            phase = obs["phase"][:, 0].astype(np.int64)
            obs, reward, terminated, truncated, _ = env.step(action)
            done = terminated | truncated
            xs.append(x), acts.append(action), phases.append(phase), rews.append(reward)
            dones.append(done), valid.append(~resetting)
            running += reward
            for i in np.flatnonzero(done):
                finished.append(running[i])
                running[i] = 0.0
            episodes += int(done.sum())
            # Next-step auto-reset: the step after an episode's end only resets (no reward, action ignored).
            resetting = done
        # Discounted returns to go, cut at each episode's end. A step whose episode has not ended
        # within the rollout has no return yet (its terminal payout is still to come): left out.
        done_at = np.array(dones)
        last_end = np.where(done_at.any(axis=0), args.steps - 1 - np.argmax(done_at[::-1], axis=0), -1)
        for t in range(args.steps):
            valid[t] = valid[t] & (t <= last_end)
        returns = np.zeros((args.steps, args.envs))
        g = np.zeros(args.envs)
        for t in reversed(range(args.steps)):
            g = rews[t] + args.gamma * g * (~dones[t])
            returns[t] = g
        x = np.concatenate(xs)
        a = np.concatenate(acts)
        phase = np.concatenate(phases)
        ok = np.concatenate(valid)
        ret = returns.reshape(-1)
        grad = np.zeros_like(weights)
        for p, heads in READ.items():
            rows = ok & (phase == p)
            if not rows.any():
                continue
            adv = ret[rows] - ret[rows].mean()
            adv /= adv.std() + 1e-8
            z = x[rows] @ weights
            for name in heads:
                s = SLICES[name]
                k = [n for n, _ in HEADS].index(name)
                pr = softmax(z[:, s])
                onehot = np.eye(s.stop - s.start)[a[rows, k]]
                grad[:, s] += x[rows].T @ ((onehot - pr) * adv[:, None]) / rows.sum()
        weights = adam.ascend(weights, grad)
        if (it + 1) % args.log_every == 0 or it == 0:
            recent = np.mean(finished[-args.envs :]) if finished else float("nan")
            print(f"iteration {it + 1:>4}: {episodes:>7,} episodes, mean return of the last {min(len(finished), args.envs)}: {recent:8.2f}", flush=True)
    return weights, episodes, finished


def coordinator_bin(given):
    for path in (given, os.environ.get("SIMFLEET_COORDINATOR"), shutil.which("coordinator")):
        if path:
            return path
    for profile in ("release", "debug"):
        p = HERE.parents[1] / "target" / profile / "coordinator"
        if p.exists():
            return str(p)
    sys.exit("no coordinator binary: pass --coordinator, set SIMFLEET_COORDINATOR, or cargo build -p simfleet-coordinator")


def evaluate(args, policy: Path):
    """The [stop] sweep: the trained seat against random in seat 0, the same teammates."""
    mates = ", ".join([f'"{TEAMMATE}"'] * 3)
    seat = f"python:trained_policy:Trained?weights={quote(str(policy), safe='')}"
    sweep = args.work / "evaluate.toml"
    sweep.write_text(
        f'name = "trained-vs-random"\nseeds = {{ start = {args.eval_seed}, count = {args.eval_cap} }}\ncollect = "summary"\n\n'
        f'[[cells]]\ngame = "bucket_brigade"\nscenarios = ["{args.scenario}"]\n[cells.policy_sets]\n'
        f'trained = ["{seat}", {mates}]\nrandom = ["random", {mates}]\n\n'
        f"[stop]\nconfidence = 0.95\nmetric = \"team_reward\"\nbaseline = \"random\"\nmargin = {args.margin}\n"
    )
    out = args.work / "evaluate.csv"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")])))
    # The seat's host runs the Python that runs this script (it has numpy).
    env.setdefault("SIMFLEET_PYTHON", sys.executable)
    cmd = [coordinator_bin(args.coordinator), "run", str(sweep), "--out", str(out)]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, env=env, check=True)
    decisions = json.loads(out.with_suffix(".stop.json").read_text())["decisions"]
    return next(d for d in decisions if d["policy_set"] == "trained")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenario", default="default", help="the scenario to train and evaluate in (default: default)")
    ap.add_argument("--envs", type=int, default=256, help="environments stepped together (default 256)")
    ap.add_argument("--steps", type=int, default=64, help="steps per environment per iteration (two a night; default 64)")
    ap.add_argument("--iterations", type=int, default=400, help="policy-gradient updates (default 400)")
    ap.add_argument("--lr", type=float, default=0.02, help="Adam's step size (default 0.02)")
    ap.add_argument("--gamma", type=float, default=1.0, help="discount per step (default 1: the payout comes at the end)")
    ap.add_argument("--seed", type=int, default=0, help="training seeds start here (default 0)")
    ap.add_argument("--eval-seed", type=int, default=1_000_000, help="evaluation seeds start here (default 1000000)")
    ap.add_argument("--eval-cap", type=int, default=2000, help="the most seeds the [stop] sweep plays (default 2000)")
    ap.add_argument("--margin", type=float, default=1.0, help="[stop] margin on team_reward (default 1.0)")
    ap.add_argument("--log-every", type=int, default=25, help="print progress every N iterations (default 25)")
    ap.add_argument("--work", type=Path, default=Path("trained"), help="folder for the policy, sweep and results (default ./trained)")
    ap.add_argument("--coordinator", help="the coordinator binary")
    args = ap.parse_args()
    args.work = args.work.resolve()
    args.work.mkdir(parents=True, exist_ok=True)

    start = time.perf_counter()
    weights, episodes, _ = train(args)
    trained_s = time.perf_counter() - start
    policy = args.work / "policy.npz"
    np.savez(policy, weights=weights)
    print(f"trained on {episodes:,} episodes in {trained_s:.1f} s; saved {policy}", flush=True)

    decision = evaluate(args, policy)
    total_s = time.perf_counter() - start
    print(
        f"trained vs random: {decision['decision']} at {decision['decided_at']} seeds "
        f"(team_reward difference in [{decision['interval_low']:.2f}, {decision['interval_high']:.2f}]); "
        f"{total_s:.1f} s in all"
    )
    (args.work / "summary.json").write_text(
        json.dumps({"episodes": episodes, "train_seconds": trained_s, "total_seconds": total_s, "decision": decision}, indent=1)
    )


if __name__ == "__main__":
    main()
