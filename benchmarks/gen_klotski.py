"""Time the klotski family: generate + solve per bucket, render, replay and parse.

Run: ``python benchmarks/gen_klotski.py [instances per bucket]`` (default 20; from a
source checkout: ``PYTHONPATH=. python benchmarks/gen_klotski.py``).
Seeds come from ``vgau_data.seeding`` as the dataset builder derives them.
"""

from __future__ import annotations

import statistics
import sys
import time

from vgau_data.puzzles import klotski
from vgau_data.seeding import instance_seed, rng_for


def main(count: int) -> None:
    states, solutions = [], []
    for difficulty in klotski.BUCKETS:
        times, lengths = [], []
        for index in range(count):
            start = time.perf_counter()
            state = klotski.generate(difficulty, rng_for(instance_seed(0, "klotski", difficulty, index)))
            solution = klotski.solve(state)
            times.append(time.perf_counter() - start)
            lengths.append(solution.optimal_length)
            states.append(state)
            solutions.append(solution)
        print(
            f"{difficulty:6s} generate+solve mean {statistics.mean(times):.4f} s  "
            f"max {max(times):.4f} s  lengths {min(lengths)}-{max(lengths)} "
            f"(mean {statistics.mean(lengths):.1f})"
        )
    start = time.perf_counter()
    for state in states:
        klotski.render(state)
    print(f"render  {(time.perf_counter() - start) / len(states) * 1e3:.2f} ms per board")
    texts = [klotski.format_answer(s.answer) for s in solutions]
    start = time.perf_counter()
    for _ in range(20):
        for state, solution in zip(states, solutions):
            klotski.replay(state, solution.answer)
    print(f"replay  {(time.perf_counter() - start) / (20 * len(states)) * 1e6:.1f} us per optimal answer")
    start = time.perf_counter()
    for _ in range(20):
        for text in texts:
            klotski.parse_answer(text)
    print(f"parse   {(time.perf_counter() - start) / (20 * len(texts)) * 1e6:.1f} us per answer")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
