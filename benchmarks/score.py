"""Scoring throughput: answers scored per second, per family and mixed, and evaluate.load latency.

Usage:
    python benchmarks/score.py --dataset vgau_puzzles          # a built 600-row folder
    python benchmarks/score.py                                 # builds one into a temp folder first
    python benchmarks/score.py --dataset DIR --json bench.json --pin

Measures, in-process on one core (``--pin`` binds the process to CPU 0):
    - ``score_answer`` on the oracle baseline (every answer feasible and full length, the
      slowest honest case) per family and mixed (shuffled), cold (empty state cache, the
      first pass over a submission) and warm (states cached, e.g. later runs/protocols);
    - the same for the random baseline (mostly illegal answers: early exits);
    - ``score_submission`` of a complete oracle submission (what ``vgau-data score`` does
      after reading the file);
    - ``evaluate.load`` of the shipped module, then ``compute`` on all rows (targets:
      >= 20,000 answers/s mixed; compute under 1 s after loading);
    - ``parse_answer`` on hostile texts (``vgau_data.testing.hostile``) at two sizes: the
      worst seconds per megabyte of answer text across families (target: under 0.5 s/MB)
      and how that figure grows from the small size to the large one (linear: about 1x).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

MIN_SECONDS = 0.5


def rate(fn: Callable[[], int], *, repeats: int = 5, clock: Callable[[], float] = time.perf_counter) -> tuple[float, float]:
    """Best and median answers/s of ``fn`` (which scores and returns a count) over ``repeats``.

    ``clock=time.process_time`` counts this process's CPU seconds only (per core, whatever
    else the machine runs)."""
    rates = []
    for _ in range(repeats):
        count, start = 0, clock()
        while True:
            count += fn()
            elapsed = clock() - start
            if elapsed >= MIN_SECONDS / repeats:
                break
        rates.append(count / elapsed)
    return max(rates), statistics.median(rates)


def hostile_parse_costs(sizes_mb: Sequence[float]) -> dict[str, Any]:
    """Seconds per MB of ``parse_answer`` on every hostile text, worst per family, at each size."""
    from vgau_data.puzzles.base import AnswerError
    from vgau_data.registry import FAMILIES
    from vgau_data.testing.hostile import hostile_texts

    worst: dict[str, dict[float, tuple[float, str]]] = {}
    for spec in FAMILIES.values():
        for size_mb in sizes_mb:
            for name, text in hostile_texts(spec, int(size_mb * 1e6)):
                start = time.perf_counter()
                try:  # noqa: SIM105 - a bare try costs nothing inside the timed call
                    spec.parse_answer(text)
                except AnswerError:
                    pass
                per_mb = (time.perf_counter() - start) / (len(text.encode("utf-8", "surrogatepass")) / 1e6)
                best = worst.setdefault(spec.name, {}).get(size_mb, (0.0, ""))
                worst[spec.name][size_mb] = max(best, (per_mb, name))
    small, large = sizes_mb
    print(f"\nparse_answer on hostile text: worst seconds per MB of answer text ({small:g} MB and {large:g} MB)")
    print(f"{'':9}{'s/MB small':>12}{'s/MB large':>12}{'growth':>8}  worst text")
    figures: dict[str, Any] = {}
    for family, by_size in worst.items():
        (per_small, _), (per_large, name) = by_size[small], by_size[large]
        growth = per_large / per_small if per_small else float("nan")
        print(f"{family:9}{per_small:>12.3f}{per_large:>12.3f}{growth:>7.1f}x  {name}")
        figures[family] = {"s_per_mb_small": per_small, "s_per_mb_large": per_large, "worst": name}
    overall = max(max(v[small][0], v[large][0]) for v in worst.values())
    print(f"worst over families: {overall:.3f} s/MB (target < 0.5)")
    figures["worst_s_per_mb"] = overall
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default=None, help="built dataset folder (default: build one, 600 rows)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="build workers when building")
    parser.add_argument("--pin", action="store_true", help="pin this process to CPU 0")
    parser.add_argument("--json", default=None, help="also write the figures as JSON here")
    parser.add_argument("--hostile-mb", type=float, nargs=2, default=(0.5, 4.0), metavar=("SMALL", "LARGE"),
                        help="sizes of the hostile answer texts, in MB (default 0.5 4)")
    args = parser.parse_args(argv)

    if args.pin and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})

    from vgau_data.metrics import scoring
    from vgau_data.metrics.baselines import make_baseline
    from vgau_data.metrics.references import load_references
    from vgau_data.metrics.results import score_submission

    dataset = args.dataset
    if dataset is None:
        from vgau_data.builders import build_dataset

        dataset = tempfile.mkdtemp(prefix="vgau_bench_")
        start = time.perf_counter()
        build_dataset(dataset, seed=0, workers=args.workers, progress=False)
        print(f"built {dataset} in {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    references = load_references(dataset)
    print(f"loaded {len(references.rows)} references from {dataset} in {time.perf_counter() - start:.3f} s")
    figures: dict[str, Any] = {"rows": len(references.rows), "python": sys.version.split()[0]}

    for kind in ("oracle", "random"):
        submission = make_baseline(kind, references)
        pairs = [(record.output, row.reference) for record, row in zip(submission.records, references.rows)]
        groups = {f: [p for p, r in zip(pairs, references.rows) if r.task == f] for f in references.families}
        mixed = list(pairs)
        random.Random(0).shuffle(mixed)
        groups["mixed"] = mixed
        print(f"\n{kind} baseline: answers scored per second (one process)")
        print(f"{'':9}{'rows':>6}{'cold':>12}{'warm best':>12}{'warm median':>13}")
        for name, group in groups.items():

            def score_all(group: list = group) -> int:
                for output, reference in group:
                    scoring.score_answer(output, reference)
                return len(group)

            scoring._state.cache_clear()
            start = time.perf_counter()
            score_all()
            cold = len(group) / (time.perf_counter() - start)
            best, median = rate(score_all)
            print(f"{name:9}{len(group):>6}{cold:>12,.0f}{best:>12,.0f}{median:>13,.0f}")
            figures[f"{kind}_{name}"] = {
                "rows": len(group), "cold_per_s": cold, "warm_best_per_s": best, "warm_median_per_s": median
            }

    oracle = make_baseline("oracle", references)
    scoring._state.cache_clear()
    start = time.perf_counter()
    score_submission(oracle, references)
    figures["score_submission_cold_s"] = time.perf_counter() - start
    print(f"\nscore_submission, complete oracle submission ({len(oracle.records)} records), cold cache: "
          f"{figures['score_submission_cold_s']:.3f} s")

    try:
        import evaluate
    except ImportError:
        print("evaluate not installed: skipping evaluate.load timing")
    else:
        from vgau_data.metrics import solver_accuracy_path

        start = time.perf_counter()
        metric = evaluate.load(solver_accuracy_path(), keep_in_memory=True)
        figures["evaluate_load_s"] = time.perf_counter() - start
        predictions = [record.output for record in oracle.records]
        refs = [row.reference_json() for row in references.rows]
        timings = []
        for details in (False, True, False, True):
            scoring._state.cache_clear()
            start = time.perf_counter()
            result = metric.compute(predictions=predictions, references=refs, return_details=details)
            timings.append(time.perf_counter() - start)
            if result["optimal_accuracy"] != 1.0:
                print(f"ERROR: oracle scored {result['optimal_accuracy']} through evaluate", file=sys.stderr)
                return 1
        figures["evaluate_compute_s"] = min(timings[0], timings[2])
        figures["evaluate_compute_details_s"] = min(timings[1], timings[3])
        print(f"evaluate.load: {figures['evaluate_load_s']:.2f} s; compute on {len(refs)} rows "
              f"(cold state cache): {figures['evaluate_compute_s']:.3f} s, "
              f"with return_details: {figures['evaluate_compute_details_s']:.3f} s; optimal_accuracy 1.0")

    figures["hostile"] = hostile_parse_costs(args.hostile_mb)

    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
