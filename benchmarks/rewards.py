"""Reward throughput: answers per second cold and warm per family (the HTTP server: ``serve_reward.py``).

Usage:
    python benchmarks/rewards.py --dataset vgau_puzzles        # a built 600-row folder
    python benchmarks/rewards.py                               # builds one into a temp folder first
    python benchmarks/rewards.py --dataset DIR --pin --json rewards.json

Measures, on one core (``--pin`` binds every process to CPU 0), in CPU seconds of the
scoring process (``time.process_time``: what other processes on the machine take is not
counted; the server figures are wall time):
    - ``vgau_data.rewards.score`` of the oracle answers (every answer feasible, the slowest
      honest case) and of the random baseline (mostly illegal: early exits), per family and
      mixed (shuffled), with each row's ``optimal_length`` given as TRL and verl pass it:
        cold  the first pass over states never seen (a fresh process scores half the rows
              first, so only what is per state is cold: parsing the state, its first replay;
              a training run sees each prompt's state first once, in a warm process);
        start the first pass in a fresh process (the family modules' caches of shapes,
              tables and routes empty too); the import of ``vgau_data.rewards`` apart;
        warm  later passes (the states cached), best and median of 5;
    - the same without the optimum (``score`` solves it when an answer is feasible: OpenRLHF
      labels that are the state alone), cold, and the ``progress`` kind, cold;
Target: >= 20,000 answers/s per core cold (oracle answers, mixed families).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from score import rate  # benchmarks/score.py, beside this script

TARGET_COLD = 20_000
PROMPT = "<|im_start|>user\nSolve the puzzle.<|im_end|>\n<|im_start|>assistant\n"


def load_pairs(dataset: str, kind: str) -> list[tuple[str, str, str, int]]:
    """``(family, answer, state, optimal_length)`` of every row, for the oracle or random baseline."""
    from vgau_data.metrics.baselines import make_baseline
    from vgau_data.metrics.references import load_references

    references = load_references(dataset)
    submission = make_baseline(kind, references)
    return [(row.task, record.output or "", row.state, row.optimal_length)
            for record, row in zip(submission.records, references.rows)]  # fmt: skip


def groups_of(pairs: list[tuple[str, str, str, int]]) -> dict[str, list[tuple[str, str, str, int]]]:
    groups: dict[str, list[tuple[str, str, str, int]]] = {}
    for pair in pairs:
        groups.setdefault(pair[0], []).append(pair)
    mixed = list(pairs)
    random.Random(0).shuffle(mixed)
    groups["mixed"] = mixed
    return groups


def cold_child(dataset: str, kind: str, group: str, mode: str) -> None:
    """In a fresh process: score the group's even rows (the states and the family modules' own
    caches of shapes, tables and routes warm up), then time the first pass over its odd rows,
    states never seen before (prints JSON: rows, seconds, import seconds, first-rows seconds)."""
    start = time.perf_counter()
    from vgau_data.rewards import score

    imported = time.perf_counter() - start
    rows = groups_of(load_pairs(dataset, kind))[group]
    with_optimum, progress = mode in ("given", "progress"), mode == "progress"

    def first_pass(part: list[tuple[str, str, str, int]]) -> float:
        start = time.process_time()
        for family, answer, state, optimum in part:
            score(answer, state, family=family, optimal_length=optimum if with_optimum else None, progress=progress)
        return time.process_time() - start

    process_start = first_pass(rows[0::2])
    unseen = rows[1::2]
    print(json.dumps({"rows": len(unseen), "seconds": first_pass(unseen), "import_s": imported,
                      "first_rows": len(rows[0::2]), "first_seconds": process_start}))  # fmt: skip


def cold(dataset: str, kind: str, group: str, mode: str, pin: bool, repeats: int) -> dict[str, float]:
    """The fastest of ``repeats`` fresh processes (a first pass cannot be repeated in one)."""
    command = [sys.executable, __file__, "--dataset", dataset, "--cold-child", kind, group, mode] + (["--pin"] if pin else [])
    runs = [json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
            for _ in range(repeats)]  # fmt: skip
    return {"rows": runs[0]["rows"], "first_rows": runs[0]["first_rows"],
            **{key: min(run[key] for run in runs) for key in ("seconds", "import_s", "first_seconds")}}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default=None, help="built dataset folder (default: build one, 600 rows)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="build workers when building")
    parser.add_argument("--pin", action="store_true", help="pin to CPU 0 (every process)")
    parser.add_argument("--json", default=None, help="also write the figures as JSON here")
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per cold figure, the fastest kept (3)")
    parser.add_argument("--cold-child", nargs=3, metavar=("KIND", "GROUP", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.pin and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})
    if args.cold_child:
        cold_child(args.dataset, *args.cold_child)
        return 0

    dataset = args.dataset
    if dataset is None:
        from vgau_data.builders import build_dataset

        dataset = tempfile.mkdtemp(prefix="vgau_bench_")
        build_dataset(dataset, seed=0, workers=args.workers, progress=False)
    from vgau_data.rewards import _entry, score

    figures: dict[str, Any] = {"python": sys.version.split()[0]}
    for kind in ("oracle", "random"):
        pairs = load_pairs(dataset, kind)
        groups = groups_of(pairs)
        print(f"\n{kind} answers: vgau_data.rewards.score, answers per second (one core)")
        print(f"{'':9}{'rows':>6}{'cold':>9}{'start':>9}{'warm best':>11}{'warm med':>10}{'cold, no optimum':>18}"
              f"{'cold, progress':>16}")  # fmt: skip
        for name, rows in groups.items():
            first = cold(dataset, kind, name, "given", args.pin, args.repeats)
            unsolved = cold(dataset, kind, name, "solve", args.pin, 1)
            partial = cold(dataset, kind, name, "progress", args.pin, 1)

            def score_all(rows: list = rows) -> int:
                for family, answer, state, optimum in rows:
                    score(answer, state, family=family, optimal_length=optimum)
                return len(rows)

            score_all()  # warm the state cache
            best, median = rate(score_all, clock=time.process_time)
            per_s = {mode: run["rows"] / run["seconds"] for mode, run in
                     (("cold", first), ("cold_no_optimum", unsolved), ("cold_progress", partial))}  # fmt: skip
            per_s["start"] = first["first_rows"] / first["first_seconds"]
            print(f"{name:9}{len(rows):>6}{per_s['cold']:>9,.0f}{per_s['start']:>9,.0f}{best:>11,.0f}{median:>10,.0f}"
                  f"{per_s['cold_no_optimum']:>18,.0f}{per_s['cold_progress']:>16,.0f}")  # fmt: skip
            figures[f"{kind}_{name}"] = {"rows": len(rows), **per_s, "warm_best": best, "warm_median": median}
        figures[f"{kind}_import_s"] = first["import_s"]
        _entry.cache_clear()
    mixed = figures["oracle_mixed"]["cold"]
    print(f"\nimport vgau_data.rewards (cold start): {figures['oracle_import_s'] * 1000:.0f} ms")
    print(f"oracle mixed cold: {mixed:,.0f} answers/s (target >= {TARGET_COLD:,}: {'met' if mixed >= TARGET_COLD else 'NOT met'})")

    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
