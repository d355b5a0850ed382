"""What render variety costs: ms per board in the benchmark style and in sampled training styles, and memory.

    python benchmarks/render_styles.py [--boards 200]

For each family, ``--boards`` boards (a few generated states, cycled) are drawn and PNG-encoded
in the benchmark style, then again each in the training style ``sample_style(i)`` draws (a
new style almost every board, as ``generate --render-variety`` does), then in the held-out
style. Then, in a fresh process each, the resident memory that drawing ``--boards`` distinct
boards per family adds (states generated beforehand) in the benchmark style and in sampled
styles: what the renderers' caches hold (bounded: they do not grow with the rows drawn).
"""

from __future__ import annotations

import argparse
import multiprocessing
import time

from vgau_data.registry import FAMILIES
from vgau_data.render_styles import BENCHMARK_STYLE, OOD_STYLE, sample_style, training_styles
from vgau_data.rendering import png_bytes
from vgau_data.seeding import instance_seed, rng_for


def _ms_per_board(family, states, styles) -> float:
    start = time.perf_counter()
    for index, style in enumerate(styles):
        png_bytes(family.styled(style).render(states[index % len(states)]))
    return 1000 * (time.perf_counter() - start) / len(styles)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, default=200)
    args = parser.parse_args()
    print(f"{'family':<9}{'benchmark':>11}{'sampled':>10}{'held out':>10}   (ms per board, PNG included)")
    for name, family in FAMILIES.items():
        states = [family.generate("easy", rng_for(instance_seed(7, name, "easy", i))) for i in range(8)]
        benchmark = _ms_per_board(family, states, [BENCHMARK_STYLE] * args.boards)
        sampled = _ms_per_board(family, states, [sample_style(i) for i in range(args.boards)])
        held_out = _ms_per_board(family, states, [OOD_STYLE] * args.boards)
        print(f"{name:<9}{benchmark:>11.2f}{sampled:>10.2f}{held_out:>10.2f}")
    print(f"\nmemory the caches add, {args.boards} distinct boards per family ({len(training_styles())} training styles):")
    with multiprocessing.get_context("spawn").Pool(1, maxtasksperchild=1) as pool:
        for sampled in (False, True):
            added = pool.apply(_added_mb, (args.boards, sampled))
            print(f"  {'sampled styles' if sampled else 'benchmark style'}: {added:.0f} MB")


def _resident_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


def _added_mb(boards: int, sampled: bool) -> float:
    states = {name: [family.generate("easy", rng_for(instance_seed(9, name, "easy", i))) for i in range(boards)]
              for name, family in FAMILIES.items()}  # fmt: skip
    before = _resident_mb()
    for name, family in FAMILIES.items():
        for i, state in enumerate(states[name]):
            family.styled(sample_style(i) if sampled else BENCHMARK_STYLE).render(state)
    return _resident_mb() - before


if __name__ == "__main__":
    main()
