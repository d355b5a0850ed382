"""Time the onet family: generate+solve per bucket, render, replay, parse.

Run: ``python benchmarks/gen_onet.py [n_per_bucket]``
"""

from __future__ import annotations

import sys
import time

from vgau_data.puzzles import onet
from vgau_data.rendering import png_bytes
from vgau_data.seeding import instance_seed, rng_for


def main(n: int = 50) -> None:
    states = []
    for difficulty in ("easy", "medium", "hard"):
        start = time.perf_counter()
        for index in range(n):
            state = onet.generate(difficulty, rng_for(instance_seed(0, "onet", difficulty, index)))
            solution = onet.solve(state)
            if solution is None or onet.SPEC.bucket_of(solution.optimal_length) != difficulty:
                raise SystemExit(f"bad instance {difficulty}/{index}")
            states.append((state, solution))
        print(f"{difficulty:>6}: generate+solve {1000 * (time.perf_counter() - start) / n:.2f} ms/instance")

    hard = states[-n:]
    start = time.perf_counter()
    for state, _ in hard:
        onet.render(state)
    print(f"render: {1000 * (time.perf_counter() - start) / len(hard):.3f} ms/board (hard)")
    start = time.perf_counter()
    for state, _ in hard:
        png_bytes(onet.render(state))
    print(f"render+png: {1000 * (time.perf_counter() - start) / len(hard):.2f} ms/board")

    reps = 20
    start = time.perf_counter()
    for _ in range(reps):
        for state, solution in hard:
            onet.replay(state, solution.answer)
    print(f"replay: {1e6 * (time.perf_counter() - start) / (reps * len(hard)):.1f} us/answer (hard, full length)")
    texts = [(state, onet.format_answer(solution.answer)) for state, solution in hard]
    start = time.perf_counter()
    for _ in range(reps):
        for state, text in texts:
            onet.replay(state, onet.parse_answer(text))
    print(f"parse+replay: {1e6 * (time.perf_counter() - start) / (reps * len(hard)):.1f} us/answer")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
