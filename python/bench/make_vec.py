"""Bucket Brigade nights per second from Python through make_vec, random actions.

    taskset -c 0 python python/bench/make_vec.py [--seconds S] [--envs 1,64,1024]

Each step samples one random [signal, house, mode] per environment with numpy and steps every
environment in Rust; a night is an act-phase step (two steps a night). Prints one line per
num_envs: nights/s, steps/s, and the median of --repeats runs.
"""

import argparse
import statistics
import time

import numpy as np

import simfleet


def run(num_envs: int, seconds: float, scenario: str, team) -> float:
    env = simfleet.make_vec("bucket_brigade", num_envs, scenario=scenario, team=team)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    high = np.array([2, 10, 2])
    nights = 0
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(64):
            # Uniform codes below `high`, drawn as doubles and floored: numpy's integer draws
            # with a per-column bound take a slow broadcasting path (a tenth of the time).
            actions = (rng.random((num_envs, 3)) * high).astype(np.int64)
            nights += int(np.count_nonzero(obs["phase"][:, 0]))
            obs, _, _, _, _ = env.step(actions)
            steps += 1
        now = time.perf_counter()
        if now >= deadline:
            return nights / (now - start)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--envs", default="1,64,1024")
    ap.add_argument("--scenario", default="default")
    args = ap.parse_args()
    team = ["agent", "random", "random", "random"]
    for n in map(int, args.envs.split(",")):
        figures = [run(n, args.seconds, args.scenario, team) for _ in range(args.repeats)]
        print(f"num_envs {n:>5}: {statistics.median(figures):>12,.0f} nights/s (runs: {', '.join(f'{f:,.0f}' for f in figures)})")


if __name__ == "__main__":
    main()
