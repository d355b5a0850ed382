"""Time the path family: generate+solve per bucket, render, replay, parse.

Usage: python benchmarks/gen_path.py [n_seeds]
"""

from __future__ import annotations

import sys
import time

import numpy as np

from vgau_data.puzzles import path as family
from vgau_data.rendering import png_bytes


def main(n: int = 50) -> None:
    states = []
    for difficulty in family.BUCKETS:
        began = time.perf_counter()
        for seed in range(n):
            state = family.generate(difficulty, np.random.default_rng(seed))
            solution = family.solve(state)
            states.append((state, solution))
        print(f"{difficulty:>6}: generate+solve {(time.perf_counter() - began) / n * 1e3:.3f} ms/instance")
    frames = [s for state, solution in states for s in [state, *family.trajectory(state, solution.answer)]]
    began = time.perf_counter()
    for frame in frames:
        family.render(frame)
    print(f"render: {(time.perf_counter() - began) / len(frames) * 1e3:.3f} ms/image over {len(frames)} images")
    began = time.perf_counter()
    for frame in frames[:300]:
        png_bytes(family.render(frame))
    print(f"render+png: {(time.perf_counter() - began) / 300 * 1e3:.3f} ms/image")
    rng = np.random.default_rng(0)
    answers = [(state, solution.answer) for state, solution in states]
    answers += [(state, family.random_answer(state, rng)) for state, _ in states]
    rounds = 20
    began = time.perf_counter()
    for _ in range(rounds):
        for state, answer in answers:
            family.replay(state, answer)
    per_answer = (time.perf_counter() - began) / (rounds * len(answers))
    print(f"replay: {per_answer * 1e6:.2f} us/answer (half optimal, half random)")
    texts = [family.format_answer(answer) for _, answer in answers]
    began = time.perf_counter()
    for text in texts:
        family.parse_answer(text)
    print(f"parse: {(time.perf_counter() - began) / len(texts) * 1e6:.2f} us/answer")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
