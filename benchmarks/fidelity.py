"""Generation-fidelity speed: images decoded per second, and what a scripted self_vcot episode costs.

    python benchmarks/fidelity.py [--instances 10] [--repeat 5]

Runs on one core (BLAS threads pinned to 1 before numpy loads). Prints two tables.

Per family, decoding:

- cells decoded per second for plain boards, oracle aids (grid masked) and drawn
  solutions (sketch masked), our own renders at board size (the target is >= 500/s),
  and for boards upscaled to 1024x1024 as a generator would return them;
- red routes read and replayed per second (maze, sokoban, path);
- milliseconds per SSIM, and per full ``image_fidelity`` record (cells, SSIM, route).

Per family, episodes (the target is a ratio under 1.5): milliseconds per episode of
``oracle_vcot`` (the scripted oracle answering, our boards shown) and of ``self_vcot``
(the same answers, each board drawn by the scripted ``oracle`` image generator and shown
back), and their ratio; first driven in memory (``drive``), then as a whole run writing
records and, for self_vcot, a PNG file per image (``run_benchmark``). Fidelity is scored
afterwards, by ``diagnose``, not inside the episode.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from vgau_data.fidelity import image_fidelity, read_cells, read_route, ssim
from vgau_data.oracle_aids import oracle_aid
from vgau_data.oracle_aids.vr import oracle_vr
from vgau_data.puzzles.base import FamilySpec
from vgau_data.registry import FAMILIES
from vgau_data.runners.backends import GenParams
from vgau_data.runners.backends.scripted import ScriptedBackend
from vgau_data.runners.backends.scripted_images import ScriptedImageGenerator
from vgau_data.runners.driver import RunPlan, drive, run_benchmark
from vgau_data.runners.instances import DatasetSource, Instance
from vgau_data.runners.protocols import ProtocolConfig, make_episode
from vgau_data.seeding import instance_seed, rng_for

GEN = GenParams(max_new_tokens=64)


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
    print(f"{'family':<8} {'board/s':>8} {'aid/s':>8} {'vr/s':>8} {'1024px/s':>9} {'route/s':>8} {'ssim ms':>8}"
          f" {'record ms':>10}")
    for name, family in FAMILIES.items():
        if family.fidelity is None or family.vr is None:
            print(f"{name:<8} (no cell decoding or no solution drawing: FamilySpec.fidelity / .vr)")
            continue
        bench_decoding(name, family, args.instances, args.repeat)
    print(f"\n{'ms per episode':<14} {'oracle_vcot':>11} {'self_vcot':>10} {'ratio':>6}   {'with records':>12}"
          f" {'+ images':>9} {'ratio':>6}")
    for name, family in FAMILIES.items():
        bench_episodes(name, _instances(name, family, args.instances), args.repeat)


def _states(name: str, family: FamilySpec, instances: int) -> list:
    return [
        family.generate(("easy", "medium")[i % 2], rng_for(instance_seed(3, name, "any", i)))
        for i in range(instances)
    ]


def _instances(name: str, family: FamilySpec, instances: int) -> list[Instance]:
    return [
        Instance(id=f"{name}-bench-{i:04d}", task=name, difficulty="easy", optimal_length=family.solve(state).optimal_length,
                 state=family.to_json(state), image_data=family.render(state))
        for i, state in enumerate(_states(name, family, instances))
    ]  # fmt: skip


def bench_decoding(name: str, family: FamilySpec, instances: int, repeat: int) -> None:
    """Print one family's decoding row."""
    states = _states(name, family, instances)
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
        if family.vr is not None and family.vr.route_start is not None
        else float("nan")
    )
    ssim_ms = 1000 / rate(lambda: [ssim(a, b) for a, b in zip(aids, boards)], n, repeat)
    record_ms = 1000 / rate(
        lambda: [image_fidelity(family, d, s, "vr", oracle=d) for d, s in zip(drawings, states)], n, repeat
    )
    print(f"{name:<8} {board_rate:8.0f} {aid_rate:8.0f} {vr_rate:8.0f} {large_rate:9.0f} {route_rate:8.0f}"
          f" {ssim_ms:8.0f} {record_ms:10.0f}")


def bench_episodes(name: str, instances: list[Instance], repeat: int) -> None:
    """Print one family's episode row: oracle_vcot against scripted self_vcot, in memory and as whole runs."""
    oracle = ScriptedBackend(model="oracle", instances=instances)
    drawing = ScriptedImageGenerator("oracle", instances=instances)
    n = len(instances)

    def driven(backend: object, protocol: str) -> Callable[[], object]:
        config = ProtocolConfig(name=protocol)
        return lambda: drive(backend, [make_episode(i, config) for i in instances], GEN)  # type: ignore[arg-type]

    def stored(backend: object, protocol: str, scratch: str) -> Callable[[], object]:
        def run() -> None:
            out = tempfile.mkdtemp(dir=scratch)  # a fresh folder: nothing to resume, every image written
            plan = RunPlan(out_dir=Path(out), protocols=[ProtocolConfig(name=protocol)], gen=GEN, runs=1)
            run_benchmark(backend, instances, DatasetSource("bench", out, "0" * 64), plan)  # type: ignore[arg-type]

        return run

    shown_ms = 1000 / rate(driven(oracle, "oracle_vcot"), n, repeat)
    drawn_ms = 1000 / rate(driven(drawing, "self_vcot"), n, repeat)
    with tempfile.TemporaryDirectory() as scratch:
        shown_run_ms = 1000 / rate(stored(oracle, "oracle_vcot", scratch), n, repeat)
        drawn_run_ms = 1000 / rate(stored(drawing, "self_vcot", scratch), n, repeat)
    print(f"{name:<14} {shown_ms:11.1f} {drawn_ms:10.1f} {drawn_ms / shown_ms:6.2f}   {shown_run_ms:12.1f}"
          f" {drawn_run_ms:9.1f} {drawn_run_ms / shown_run_ms:6.2f}")


if __name__ == "__main__":
    main()
