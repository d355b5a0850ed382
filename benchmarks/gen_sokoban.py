"""Time sokoban generation, solving, rendering and replay; print per-bucket means.

Run: ``python benchmarks/gen_sokoban.py [n_per_bucket]``.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter

from vgau_data.puzzles import sokoban
from vgau_data.seeding import instance_seed, rng_for


def main(n: int = 20) -> None:
    every = []
    for difficulty in ("easy", "medium", "hard"):
        states, gen_s, solve_s, lengths, pushes = [], [], [], [], []
        for index in range(n):
            rng = rng_for(instance_seed(0, "sokoban", difficulty, index))
            t0 = time.perf_counter()
            state = sokoban.generate(difficulty, rng)
            t1 = time.perf_counter()
            solution = sokoban.solve(state)
            t2 = time.perf_counter()
            gen_s.append(t1 - t0)
            solve_s.append(t2 - t1)
            lengths.append(solution.optimal_length)
            traj = sokoban.trajectory(state, solution.answer)
            boxes = [state.box] + [s.box for s in traj]
            pushes.append(sum(a != b for a, b in zip(boxes, boxes[1:])))
            states.append((state, solution))
        every.extend(states)
        answers = Counter(sol.answer for _, sol in states)
        shared = max(sum(sokoban.replay(s, a).feasible for s, _ in states) for a in answers)
        print(
            f"{difficulty:6s} generate {statistics.mean(gen_s) * 1e3:6.2f} ms"
            f"  solve {statistics.mean(solve_s) * 1e3:5.2f} ms"
            f"  length {min(lengths)}-{max(lengths)} (mean {statistics.mean(lengths):.1f})"
            f"  pushes {min(pushes)}-{max(pushes)} (mean {statistics.mean(pushes):.1f})"
            f"  most rows one answer solves: {shared}"
        )
    targets = Counter(state.target for state, _ in every)
    print(f"distinct targets {len(targets)} over {len(every)} instances")
    t0 = time.perf_counter()
    for state, _ in every:
        sokoban.render(state)
    print(f"render {(time.perf_counter() - t0) / len(every) * 1e3:.2f} ms per board (cold background cache)")
    t0 = time.perf_counter()
    for state, solution in every:
        for s in sokoban.trajectory(state, solution.answer):
            sokoban.render(s)
    frames = sum(len(sol.answer) for _, sol in every)
    print(f"render {(time.perf_counter() - t0) / frames * 1e3:.2f} ms per trajectory frame")
    reps = 20
    t0 = time.perf_counter()
    for _ in range(reps):
        for state, solution in every:
            sokoban.replay(state, solution.answer)
    print(f"replay {(time.perf_counter() - t0) / (reps * len(every)) * 1e6:.1f} us per optimal answer")
    texts = [sokoban.format_answer(sol.answer) for _, sol in every]
    t0 = time.perf_counter()
    for _ in range(reps):
        for (state, _), text in zip(every, texts):
            sokoban.replay(state, sokoban.parse_answer(text))
    print(f"parse+replay {(time.perf_counter() - t0) / (reps * len(every)) * 1e6:.1f} us per answer")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
