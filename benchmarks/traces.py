"""Cost and shape of every trace kind, and how much an exploratory trace's length says about the optimum.

    python benchmarks/traces.py                       # all families, 5 rows per bucket
    python benchmarks/traces.py --families parking --rows 10

Rows are the builder's (``RowTask``, master seed 0: the instances a build would hold).
Per family and kind it prints the mean and max milliseconds of ``columns`` (what
``generate`` pays per row for that trace), the mean record JSON characters, images and
kilobytes of PNG. Then, per family, what exploratory traces do to the length: the share
of traces exactly as long as the optimum (what a model that reads the optimum off a
trace's length gets right; 100% for VCoT traces), and the mean and max extra steps.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from vgau_data.builders.instances import RowTask, generate_verified
from vgau_data.registry import FAMILIES
from vgau_data.training.traces import TRACE_KINDS, trace_rng

MASTER_SEED = 0


def rows(family: str, per_bucket: int) -> list[tuple[int, Any, Any]]:
    """(seed, state, solution) of the first ``per_bucket`` rows of each bucket."""
    found = []
    for difficulty in FAMILIES[family].buckets:
        for index in range(per_bucket):
            task = RowTask(family, difficulty, index, MASTER_SEED)
            state, solution = generate_verified(family, difficulty, task.seed, task.slot)
            found.append((task.seed, state, solution))
    return found


def measure(family: str, per_bucket: int) -> None:
    spec = FAMILIES[family]
    sample = rows(family, per_bucket)
    exploratory: list[tuple[int, int]] = []
    for name, kind in TRACE_KINDS.items():
        seconds, chars, images, kilobytes = [], [], [], []
        for seed, state, solution in sample:
            began = time.perf_counter()
            columns = kind.columns(spec, state, solution.answer, trace_rng(seed, name))
            seconds.append(time.perf_counter() - began)
            chars.append(len(columns[f"trace_{name}"]))
            images.append(len(columns[f"trace_{name}_images"]))
            kilobytes.append(sum(map(len, columns[f"trace_{name}_images"])) / 1024)
            if name == "exploratory":
                steps = images[-1] - 1
                exploratory.append((solution.optimal_length, steps))
        print(
            f"{family:<8} {name:<15} {1000 * statistics.mean(seconds):8.1f} ms/row (max {1000 * max(seconds):7.1f})"
            f"  {statistics.mean(chars):8.0f} chars  {statistics.mean(images):5.1f} images"
            f"  {statistics.mean(kilobytes):7.1f} KB"
        )
    extra = [steps - optimum for optimum, steps in exploratory]
    print(
        f"{family:<8} exploratory: {100 * extra.count(0) / len(extra):5.1f}% at the optimum, "
        f"{statistics.mean(extra):.2f} extra steps on average (max {max(extra)}) over {len(extra)} traces"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--rows", type=int, default=5, help="rows per bucket (default 5)")
    args = parser.parse_args()
    for family in args.families:
        measure(family, args.rows)


if __name__ == "__main__":
    main()
