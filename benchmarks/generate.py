"""Time every family: generate+solve per bucket, then render and replay; training-data yield and engines.

    python benchmarks/generate.py                              # all families, 20 seeds per bucket
    python benchmarks/generate.py --families maze sokoban --seeds 50
    python benchmarks/generate.py --yield 1000                 # unique yield per band, every family
    python benchmarks/generate.py --engines 2000 --families maze --workers 2   # rows/s, local and Ray
    python benchmarks/generate.py --rates 20 --families parking --baseline OLD  # catalog rows/s, OLD beside ours

``--yield N`` runs ``vgau-data generate``'s catalog pass for N rows of each of the family's
three bands (``--lengths`` for others) and prints what the draws gave: rows kept per
candidate drawn, duplicates, candidates banned as test states, and Chao1's estimate of
the band's distinct rows. ``--engines N`` generates N rows of each family (its three
bands) with ``--engine local`` and ``--engine ray`` (a local Ray started with
``--workers`` CPUs), prints rows per second of each and checks that both wrote the same
bytes.

Instance seeds and slots (each row's length from the family's ``length_mix``) come from
``vgau_data.builders.instances.RowTask`` (master seed 0) exactly as the dataset builder
derives them, so a bucket's instances are the ones a build would hold. Per bucket
it prints the mean and max seconds of ``generate`` + ``solve`` (what the builder pays per
row; parking's ``generate`` already solves and caches) and the range of optimal lengths;
per family, the milliseconds to render one board and the microseconds to replay one
optimal answer. For parking it then times its searches on the same rows, in
positions met per second (``parking_searches``): the solver's bound-pruned numpy layers
(``bounded``), the A* it replaced (kept for boards of more than 21 mobile cars), the plain
BFS both are tested against (rows it decides within ``BFS_BUDGET`` positions), and the numpy
layers the generator walks clusters with (``R`` held).

``--rates N`` times what ``vgau-data generate`` pays per candidate before any image: the
first N candidates of each band (their seeds and slots exactly as the catalog derives them),
generated and verified on one core, in rows per CPU second, and for parking the positions
its searches met per CPU second (``_positions_met``). ``--baseline DIR`` runs the same
in a subprocess on another checkout's package (say a worktree of main) and prints both,
so old and new code are compared in one run on the same load.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from vgau_data.builders.instances import RowTask
from vgau_data.puzzles.base import FamilySpec, Solution
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
    """Per bucket, positions met per second by the bounded layers, A*, the plain BFS and the R-held layers."""
    from vgau_data.puzzles.parking import astar, bounded  # here: --baseline runs this file on older checkouts

    for difficulty, states in by_bucket.items():
        counts = {"bounded": [0, 0.0], "A*": [0, 0.0], "plain BFS": [0, 0.0], "numpy layers (R held)": [0, 0.0]}
        skipped = 0
        for state in states:
            cars = [_car(v) for v in state.vehicles]
            red = [v.id for v in state.vehicles].index("R")
            for name, solver in (("bounded", bounded.fewest_slides), ("A*", astar.fewest_slides)):
                began = time.process_time()
                _, met = solver(Search(cars), red, state.exit_row, BFS_BUDGET)
                _count(counts[name], met, began)
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


def rates(families: list[str], rows: int) -> list[tuple[str, str, float, float]]:
    """``(family, band, rows per CPU second, parking positions met per CPU second)`` of the first
    ``rows`` catalog candidates of each band (positions: 0 for the other families)."""
    from vgau_data.builders.instances import generate_verified
    from vgau_data.seeding import training_seed
    from vgau_data.training.bands import Band, candidate_slot

    measured = []
    for name in families:
        spec = FAMILIES[name]
        for low, high in spec.buckets.values():
            band = Band(low, high)
            with _positions_met() as met:
                began = time.process_time()
                for index in range(rows):
                    bucket, slot = candidate_slot(spec, band, index)
                    generate_verified(name, bucket, training_seed(MASTER_SEED, name, band.name, "train", index), slot)
                seconds = max(time.process_time() - began, 1e-9)
            measured.append((name, band.name, rows / seconds, met[0] / seconds))
    return measured


@contextlib.contextmanager
def _positions_met() -> Iterator[list[int]]:
    """Count the positions parking's searches meet meanwhile, in this checkout's code or an older one's.

    Every numpy search (cluster layers, and the solver's bound-pruned walks where the
    checkout has them) expands layers through ``LayeredSearch.expand``, so the positions
    of the layers it is given are counted there; the A* (older checkouts' solver) reports
    the positions it met. Wrapped for the block only.
    """
    from vgau_data.puzzles.parking import astar, search, solver

    met = [0]
    expand, fewest_slides = search.LayeredSearch.expand, astar.fewest_slides
    holders = [module for module in (astar, solver) if getattr(module, "fewest_slides", None) is fewest_slides]

    def counted_expand(self: Any, layer: np.ndarray, before: np.ndarray) -> np.ndarray:
        met[0] += len(layer)
        return expand(self, layer, before)

    def counted_astar(*args: Any, **kwargs: Any) -> Any:
        slides, states = fewest_slides(*args, **kwargs)
        met[0] += states
        return slides, states

    search.LayeredSearch.expand = counted_expand
    for module in holders:  # older solvers import A*'s function by name
        module.fewest_slides = counted_astar
    try:
        yield met
    finally:
        search.LayeredSearch.expand = expand
        for module in holders:
            module.fewest_slides = fewest_slides


def print_rates(families: list[str], rows: int, baseline: str | None) -> None:
    """Rows (and parking positions) per CPU second per band, the ``baseline`` checkout's beside ours."""
    import json
    import os
    import subprocess
    import sys

    theirs: dict[tuple[str, str], tuple[float, float]] = {}
    if baseline:
        code = (f"import json, runpy; m = runpy.run_path({__file__!r}); "
                f"print(json.dumps(m['rates']({families!r}, {rows})))")
        env = {**os.environ, "PYTHONPATH": baseline}
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
        theirs = {(family, band): (rate, met) for family, band, rate, met in json.loads(out.stdout.splitlines()[-1])}
    print(f"{'family':8s} {'band':6s} {'rows/s':>9s} {'pos/s':>9s}"
          + (f" {'base r/s':>9s} {'base pos/s':>10s} {'ratio':>6s}" if baseline else ""))
    for family, band, rate, met in rates(families, rows):
        line = f"{family:8s} {band:6s} {rate:9.2f} {met:9.0f}"
        if (family, band) in theirs:
            base_rate, base_met = theirs[family, band]
            line += f" {base_rate:9.2f} {base_met:10.0f} {rate / base_rate:5.1f}x"
        print(line)


def training_yield(families: list[str], rows: int, bands: list[str] | None, workers: int) -> None:
    """Print each band's tally of the catalog pass that keeps ``rows`` rows."""
    from vgau_data.training.bands import parse_band
    from vgau_data.training.generate import GenerateConfig, generate_dataset

    print(f"{'family':8s} {'band':7s} {'rows':>6s} {'draws':>6s} {'yield':>7s} {'dups':>5s} {'banned':>6s} "
          f"{'failed':>6s} {'capacity':>9s}  {'s':>6s}")
    for name in families:
        with tempfile.TemporaryDirectory() as folder:
            began = time.perf_counter()
            report = generate_dataset(GenerateConfig(
                out_dir=Path(folder) / "out", families=(name,), n=rows, shard_rows=rows, workers=workers,
                bands=None if bands is None else tuple(parse_band(b) for b in bands), progress=False))
            seconds = time.perf_counter() - began
        for band, tally in report.parts[f"{name}/train"]["bands"].items():
            capacity = tally["capacity_estimate"]
            print(f"{name:8s} {band:7s} {tally['rows']:6d} {tally['draws']:6d} {tally['unique_yield']:7.1%} "
                  f"{tally['duplicates']:5d} {tally['banned']:6d} {tally['failed']:6d} "
                  f"{'-' if capacity is None else capacity:>9}  {seconds:6.1f}")


def engines(families: list[str], rows: int, workers: int) -> None:
    """Generate ``rows`` per band with each engine; print rows/s and whether the bytes agree."""
    import os

    from vgau_data.training.generate import GenerateConfig, generate_dataset

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    with tempfile.TemporaryDirectory() as folder:
        digests = {}
        for engine in ("local", "ray"):
            config = GenerateConfig(out_dir=Path(folder) / engine, families=tuple(families), n=rows, engine=engine,
                                    workers=workers, progress=False)
            began = time.perf_counter()
            if engine == "ray":
                import ray

                ray.init(num_cpus=workers, logging_level="WARNING", log_to_driver=False)
                print(f"ray.init {time.perf_counter() - began:.1f} s")
            report = generate_dataset(config)
            seconds = time.perf_counter() - began
            if engine == "ray":
                ray.shutdown()
            digests[engine] = {s["path"]: s["sha256"] for p in report.parts.values() for s in p["shards"]}
            print(f"engine {engine:5s}: {report.rows_made} rows in {seconds:.1f} s = {report.rows_made / seconds:.1f} "
                  f"rows/s ({workers} workers, {len(digests[engine])} shards)")
        same = digests["local"] == digests["ray"]
        print(f"local and ray shards byte-identical: {same}")
        if not same:
            raise SystemExit(1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="+", choices=list(FAMILIES), default=list(FAMILIES))
    parser.add_argument("--seeds", type=int, default=20, help="instances per bucket (default 20)")
    parser.add_argument("--yield", dest="yield_rows", type=int, default=None, metavar="N",
                        help="print the unique yield per band of a catalog pass keeping N rows a band")
    parser.add_argument("--lengths", nargs="+", default=None, metavar="LO-HI", help="bands for --yield")
    parser.add_argument("--engines", type=int, default=None, metavar="N",
                        help="rows/s of --engine local and ray for N rows per band, and whether they agree")
    parser.add_argument("--workers", type=int, default=2, help="workers for --yield and --engines (default 2)")
    parser.add_argument("--rates", type=int, default=None, metavar="N",
                        help="rows per CPU second of the first N catalog candidates of each band, one core")
    parser.add_argument("--baseline", default=None, metavar="DIR",
                        help="with --rates: a checkout whose package is timed too, in a subprocess")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error(f"--seeds must be >= 1, got {args.seeds}")
    if args.yield_rows is not None:
        training_yield(args.families, args.yield_rows, args.lengths, args.workers)
    elif args.rates is not None:
        print_rates(args.families, args.rates, args.baseline)
    elif args.engines is not None:
        engines(args.families, args.engines, args.workers)
    else:
        for name in args.families:
            time_family(FAMILIES[name], args.seeds)


if __name__ == "__main__":
    main()
