"""Time every family: generate+solve per bucket, then render and replay.

    python benchmarks/generate.py                              # all families, 20 seeds per bucket
    python benchmarks/generate.py --families maze sokoban --seeds 50

Instance seeds and slots (each row's length from the family's ``length_mix``) come from
``vgau_data.builders.instances.RowTask`` (master seed 0) exactly as the dataset builder
derives them, so a bucket's instances are the ones a build would hold. Per bucket
it prints the mean and max seconds of ``generate`` + ``solve`` (what the builder pays per
row; parking's ``generate`` already solves and caches) and the range of optimal lengths;
per family, the milliseconds to render one board and the microseconds to replay one
optimal answer. For parking it then times its three searches on the same rows, in
positions met per second (``parking_searches``): the solver's A*, the plain BFS it is
tested against (rows it decides within ``BFS_BUDGET`` positions), and the numpy layers the
generator walks whole clusters with (``R`` held).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import numpy as np

from vgau_data.builders.instances import RowTask
from vgau_data.puzzles.base import FamilySpec, Solution
from vgau_data.puzzles.parking.astar import fewest_slides
from vgau_data.puzzles.parking.search import LayeredSearch, Search, SearchLimitError, shortest_exit
from vgau_data.puzzles.parking.solver import _car
from vgau_data.registry import FAMILIES
from vgau_data.seeding import rng_for

MASTER_SEED = 0
REPLAY_ROUNDS = 20
BFS_BUDGET = 3_000_000
"""Positions the plain BFS may meet on one row before the benchmark skips it."""


def time_family(spec: FamilySpec, seeds: int) -> None:
    """Print one line per bucket and one for render and replay (parking: and its searches)."""
    instances: list[tuple[Any, Solution]] = []
    by_bucket: dict[str, list[Any]] = {}
    for difficulty in spec.buckets:
        seconds, lengths = [], []
        for index in range(seeds):
            task = RowTask(spec.name, difficulty, index, MASTER_SEED)
            began = time.perf_counter()
            state = spec.generate(difficulty, rng_for(task.seed), task.slot)
            solution = spec.solve(state)
            seconds.append(time.perf_counter() - began)
            if solution is None:
                raise SystemExit(f"{spec.name}/{difficulty}/{index}: the generated state has no solution")
            lengths.append(solution.optimal_length)
            instances.append((state, solution))
            by_bucket.setdefault(difficulty, []).append(state)
        print(
            f"{spec.name:8s} {difficulty:6s} generate+solve mean {statistics.mean(seconds):.5f} s"
            f"  max {max(seconds):.5f} s  optimal {min(lengths)}-{max(lengths)}"
        )
    began = time.perf_counter()
    for state, _ in instances:
        spec.render(state)
    render_ms = (time.perf_counter() - began) / len(instances) * 1e3
    began = time.perf_counter()
    for _ in range(REPLAY_ROUNDS):
        for state, solution in instances:
            spec.replay(state, solution.answer)
    replay_us = (time.perf_counter() - began) / (REPLAY_ROUNDS * len(instances)) * 1e6
    print(f"{spec.name:8s} render {render_ms:.2f} ms/board  replay {replay_us:.1f} us/optimal answer")
    if spec.name == "parking":
        parking_searches(by_bucket)


def parking_searches(by_bucket: dict[str, list[Any]]) -> None:
    """Per bucket, positions met per second by A*, the plain BFS and the numpy layers."""
    for difficulty, states in by_bucket.items():
        counts = {"A*": [0, 0.0], "plain BFS": [0, 0.0], "numpy layers (R held)": [0, 0.0]}
        skipped = 0
        for state in states:
            cars = [_car(v) for v in state.vehicles]
            red = [v.id for v in state.vehicles].index("R")
            began = time.process_time()
            _, met = fewest_slides(Search(cars), red, state.exit_row, BFS_BUDGET)
            _count(counts["A*"], met, began)
            began = time.process_time()
            try:
                _, met = shortest_exit(Search(cars), red, (state.exit_row, 7), BFS_BUDGET)
                _count(counts["plain BFS"], met, began)
            except SearchLimitError:
                skipped += 1
            held = Search(cars, held=(red,))
            began = time.process_time()
            walked = LayeredSearch(held).layers(np.array([held.key], dtype=np.uint64), BFS_BUDGET)
            _count(counts["numpy layers (R held)"], sum(len(layer) for layer in walked), began)
        rates = "  ".join(
            f"{name} {met / max(seconds, 1e-9) / 1e3:.0f}k/s ({met / len(states):.0f} per row)"
            for name, (met, seconds) in counts.items()
        )
        note = f"  [plain BFS: {skipped} rows past {BFS_BUDGET}]" if skipped else ""
        print(f"parking  {difficulty:6s} positions met per CPU second: {rates}{note}")


def _count(counted: list, met: int, began: float) -> None:
    counted[0] += met
    counted[1] += time.process_time() - began


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="+", choices=list(FAMILIES), default=list(FAMILIES))
    parser.add_argument("--seeds", type=int, default=20, help="instances per bucket (default 20)")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error(f"--seeds must be >= 1, got {args.seeds}")
    for name in args.families:
        time_family(FAMILIES[name], args.seeds)


if __name__ == "__main__":
    main()
