"""Generation-fidelity speed: images decoded per second, and a VCoT step's image costs.

    python benchmarks/fidelity.py [--instances 10] [--repeat 5]

Runs on one core (BLAS threads pinned to 1 before numpy loads). Prints, per family:

- cells decoded per second for plain boards, oracle aids (grid masked) and drawn
  solutions (sketch masked), our own renders at board size (the target is >= 500/s),
  and for boards upscaled to 1024x1024 as a generator would return them;
- red routes read and replayed per second (maze, sokoban, path);
- milliseconds per SSIM, and per full ``image_fidelity`` record (cells, SSIM, route);
- one VCoT step's image cost: oracle_vcot renders the true next state; a scripted
  self_vcot step asks the ``oracle`` image generator for it. Their ratio is the image
  side of a scripted self_vcot episode's overhead (fidelity is scored afterwards, by
  ``diagnose``, not inside the episode); the protocol itself lands with the self_*
  protocols.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import time
from collections.abc import Callable

from PIL import Image

from vgau_data.fidelity import image_fidelity, read_cells, read_route, ssim
from vgau_data.oracle_aids import oracle_aid
from vgau_data.oracle_aids.vr import oracle_vr
from vgau_data.puzzles.base import FamilySpec
from vgau_data.registry import FAMILIES
from vgau_data.runners.backends import GenParams, ImageRequest
from vgau_data.runners.backends.scripted_images import ScriptedImageGenerator
from vgau_data.seeding import instance_seed, rng_for


def rate(work: Callable[[], object], items: int, repeat: int) -> float:
    """Items per second of ``work`` (which handles ``items`` items), best of ``repeat``."""
    work()  # warm caches (reference cells, masks, fonts)
    best = min(_timed(work) for _ in range(repeat))
    return items / best


def _timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--instances", type=int, default=6, help="instances per family (easy and medium alternate)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    generator = ScriptedImageGenerator("oracle")
    print(f"{'family':<8} {'board/s':>8} {'aid/s':>8} {'vr/s':>8} {'1024px/s':>9} {'route/s':>8} {'ssim ms':>8}"
          f" {'record ms':>10} {'oracle step ms':>15} {'self step ms':>13} {'ratio':>6}")
    for name, family in FAMILIES.items():
        bench_family(name, family, args.instances, args.repeat, generator)


def bench_family(name: str, family: FamilySpec, instances: int, repeat: int, generator: ScriptedImageGenerator) -> None:
    """Print one family's row."""
    states = [
        family.generate(("easy", "medium")[i % 2], rng_for(instance_seed(3, name, "any", i)))
        for i in range(instances)
    ]
    answers = [family.solve(state).answer for state in states]
    boards = [family.render(state) for state in states]
    aids = [oracle_aid(family, state) for state in states]
    drawings = [oracle_vr(family, state, answer) for state, answer in zip(states, answers)]
    large = [board.resize((1024, 1024), Image.Resampling.BICUBIC) for board in boards]
    n = len(states)
    board_rate = rate(lambda: [read_cells(family, image) for image in boards], n, repeat)
    aid_rate = rate(lambda: [read_cells(family, image, "grid") for image in aids], n, repeat)
    vr_rate = rate(lambda: [read_cells(family, image, "sketch") for image in drawings], n, repeat)
    large_rate = rate(lambda: [read_cells(family, image) for image in large], n, repeat)
    route_rate = (
        rate(lambda: [read_route(family, d, s) for d, s in zip(drawings, states)], n, repeat)
        if family.route_start is not None
        else float("nan")
    )
    ssim_ms = 1000 / rate(lambda: [ssim(a, b) for a, b in zip(aids, boards)], n, repeat)
    record_ms = 1000 / rate(
        lambda: [image_fidelity(family, d, s, "vr", oracle=d) for d, s in zip(drawings, states)], n, repeat
    )
    steps = [step for state, answer in zip(states, answers) for step in family.trajectory(state, answer)]
    requests = [
        ImageRequest(
            session_id=f"{name}-{i}/self_vcot/run0", purpose="next_state", instruction="", family=name,
            oracle_state=step, step=i,
        )
        for i, step in enumerate(steps)
    ]
    oracle_ms = 1000 / rate(lambda: [family.render(step) for step in steps], len(steps), repeat)
    self_ms = 1000 / rate(lambda: generator.generate(requests, GenParams()), len(steps), repeat)
    print(f"{name:<8} {board_rate:8.0f} {aid_rate:8.0f} {vr_rate:8.0f} {large_rate:9.0f} {route_rate:8.0f}"
          f" {ssim_ms:8.0f} {record_ms:10.0f} {oracle_ms:15.2f} {self_ms:13.2f} {self_ms / oracle_ms:6.2f}")


if __name__ == "__main__":
    main()
