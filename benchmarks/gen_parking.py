"""Time parking generation, solving, rendering and replay; print per-bucket means.

Run: ``python benchmarks/gen_parking.py [n_per_bucket]``.

``generate`` already calls ``solve`` on the state it returns, and ``solve`` is cached,
so "solve (cached)" is what the builder pays after ``generate``; "solve (cold)" is an
uncached forward BFS of the same state.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter

from vgau_data.puzzles import parking
from vgau_data.seeding import instance_seed, rng_for


def main(n: int = 20) -> None:
    every = []
    for difficulty in ("easy", "medium", "hard"):
        states, gen_s, cached_s, cold_s, lengths, movers = [], [], [], [], [], []
        for index in range(n):
            rng = rng_for(instance_seed(0, "parking", difficulty, index))
            t0 = time.perf_counter()
            state = parking.generate(difficulty, rng)
            t1 = time.perf_counter()
            solution = parking.SPEC.solve(state)
            t2 = time.perf_counter()
            parking.solve.cache_clear()
            parking.solve(state)
            t3 = time.perf_counter()
            gen_s.append(t1 - t0)
            cached_s.append(t2 - t1)
            cold_s.append(t3 - t2)
            lengths.append(solution.optimal_length)
            movers.append(len({vid for vid, _ in solution.answer} - {parking.RED}))
            states.append((state, solution))
        every.extend(states)
        answers = Counter(sol.answer for _, sol in states)
        shared = max(sum(parking.replay(s, a).feasible for s, _ in states) for a in answers)
        print(
            f"{difficulty:6s} generate {statistics.mean(gen_s):6.3f} s (max {max(gen_s):.2f})"
            f"  solve (cached) {statistics.mean(cached_s) * 1e6:4.0f} us"
            f"  solve (cold) {statistics.mean(cold_s) * 1e3:5.1f} ms (max {max(cold_s) * 1e3:.0f})"
            f"  length {min(lengths)}-{max(lengths)} (mean {statistics.mean(lengths):.1f})"
            f"  other cars moved {min(movers)}-{max(movers)}"
            f"  most rows one answer solves: {shared}"
        )
    rows = Counter(state.exit_row for state, _ in every)
    print(f"exit rows {dict(sorted(rows.items()))} over {len(every)} instances")
    t0 = time.perf_counter()
    for state, _ in every:
        parking.render(state)
    print(f"render {(time.perf_counter() - t0) / len(every) * 1e3:.2f} ms per board")
    reps = 20
    t0 = time.perf_counter()
    for _ in range(reps):
        for state, solution in every:
            parking.replay(state, solution.answer)
    print(f"replay {(time.perf_counter() - t0) / (reps * len(every)) * 1e6:.1f} us per optimal answer")
    texts = [parking.format_answer(sol.answer) for _, sol in every]
    t0 = time.perf_counter()
    for _ in range(reps):
        for (state, _), text in zip(every, texts):
            parking.replay(state, parking.parse_answer(text))
    print(f"parse+replay {(time.perf_counter() - t0) / (reps * len(every)) * 1e6:.1f} us per answer")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
