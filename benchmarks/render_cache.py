"""What the renderers' caches hold and what they save: per cache, entries, MB held and hit rate; render time; max RSS.

    python benchmarks/render_cache.py                      # the build's 100 rows per family, benchmark style
    python benchmarks/render_cache.py --n 300 --families maze path sokoban
    python benchmarks/render_cache.py --look variety       # each row in its own sampled training style

Instances are the build's rows of master seed 0 (``RowTask``, attempt 0): the first ``--n`` of
each family, split over the buckets as the build splits its 100 (``--n 100``: the published
rows). They are generated and solved in worker processes, whose memory is not this
process's. This process then draws them family by family, as one build worker would (its
caches kept from family to family): look ``benchmark`` runs the build's ``assemble_row``
(board, aid, every oracle state plain and annotated, the drawn solution, all encoded); look
``variety`` runs ``generate --render-variety``'s ``training_row`` with the aid and the
``visual_cot`` and ``aug_visual_cot`` traces (the same images), each row in the style its
seed draws.

Per family it prints the wall and CPU seconds of drawing (hashing included, ~1%), the sha256
of the rows drawn (images as their encoded bytes: a cache change must leave it alone) and, for every ``functools`` cache of
the package that was called: entries, MB held and hits / calls while that family was drawn.
MB held is each cached image's width * height * the bytes per pixel Pillow stores (an RGB
pixel takes 4, RGBX; an L pixel 1), plus numpy arrays' ``nbytes``. Then the whole process: every
cache's entries and MB (an image two caches share counted once) and the max RSS.
"""

from __future__ import annotations

import argparse
import functools
import gc
import hashlib
import multiprocessing
import resource
import sys
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
from PIL import Image

from vgau_data.builders.instances import RowTask, assemble_row, generate_verified
from vgau_data.puzzles.base import BUCKET_SIZES, DIFFICULTIES
from vgau_data.registry import FAMILIES
from vgau_data.training.bands import Band
from vgau_data.training.shards import RowOptions, training_row

MASTER_SEED = 0
VARIETY = RowOptions(oracle_aid=True, traces=("visual_cot", "aug_visual_cot"), look="variety")
_LRU = type(functools.lru_cache(maxsize=1)(lambda: None))


def tasks(family: str, n: int) -> list[RowTask]:
    """The first ``n`` rows of ``family``, split over the buckets as the build's ``BUCKET_SIZES`` are."""
    total = sum(BUCKET_SIZES.values())
    counts = {d: n * BUCKET_SIZES[d] // total for d in DIFFICULTIES}
    counts[DIFFICULTIES[-1]] += n - sum(counts.values())
    return [RowTask(family, d, i, MASTER_SEED) for d in DIFFICULTIES for i in range(counts[d])]


def generate(task: RowTask) -> tuple[RowTask, str, str, int]:
    """A row's verified state and optimal answer, as JSON and payload (run in a worker process)."""
    spec = FAMILIES[task.family]
    state, solution = generate_verified(task.family, task.difficulty, task.seed, task.slot)
    return task, spec.to_json(state), spec.answer_payload(solution.answer), solution.optimal_length


def draw(look: str, task: RowTask, state_json: str, payload: str, optimal_length: int) -> dict[str, Any]:
    """The row of ``look``, every image drawn and encoded, as the build or ``generate`` makes it."""
    spec = FAMILIES[task.family]
    if look == "benchmark":
        state, answer = spec.from_json(state_json), spec.answer_from_payload(payload)
        return assemble_row(task.family, task.row_id, task.difficulty, state, answer, optimal_length, task.seed)
    entry = {"index": task.index, "seed": task.seed, "optimal_length": optimal_length,
             "state": state_json, "solution": payload}  # fmt: skip
    return training_row(task.family, "train", Band(optimal_length, optimal_length), entry, VARIETY)


def digest(row: dict[str, Any], into: Any) -> None:
    """Feed a row's columns, images as their encoded bytes, into the hash ``into``."""
    stack: list[Any] = [row[name] for name in sorted(row)]
    while stack:
        value = stack.pop(0)
        if isinstance(value, dict):
            stack[:0] = [value[name] for name in sorted(value)]
        elif isinstance(value, list):
            stack[:0] = value
        else:
            into.update(value if isinstance(value, bytes) else repr(value).encode())


def caches() -> dict[str, Any]:
    """Every ``functools.lru_cache`` / ``functools.cache`` / ``rendering.image_cache`` defined at module level in the package, by name."""
    found = {}
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("vgau_data") or module is None:
            continue
        for attr, value in vars(module).items():
            cache = getattr(value, "cached", value)  # an image_cache keeps its lru_cache there
            if isinstance(cache, _LRU) and getattr(value, "__module__", None) == module_name:
                found[f"{module_name.removeprefix('vgau_data.')}.{attr}"] = cache
    return dict(sorted(found.items()))


def held_arrays(cache: Any) -> Iterator[Any]:
    """The images and arrays a cache's entries hold: CPython's bounded lru_cache visits each
    entry's key and result, an unbounded one (``functools.cache``) its dict of results."""
    stack = list(gc.get_referents(cache))
    while stack:
        value = stack.pop()
        if isinstance(value, (Image.Image, np.ndarray)):
            yield value
        elif isinstance(value, (tuple, list)):
            stack.extend(value)
        elif isinstance(value, dict):
            stack.extend(value.values())


def nbytes(value: Any) -> int:
    """What a cached image or array occupies: Pillow keeps 1 byte per pixel for 1/L/P, 4 otherwise (RGB is RGBX)."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    width, height = value.size
    return width * height * (1 if value.mode in ("1", "L", "P") else 4)


def held_mb(cache: Any, seen: set[int] | None = None) -> float:
    """MB of the images and arrays ``cache`` holds; ``seen`` (ids) skips those already counted."""
    total = 0
    for value in held_arrays(cache):
        if seen is not None:
            if id(value) in seen:
                continue
            seen.add(id(value))
        total += nbytes(value)
    return total / 1e6


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6  # Linux: KiB


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100, help="rows per family (100: the build's)")
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--look", choices=("benchmark", "variety"), default="benchmark")
    parser.add_argument("--workers", type=int, default=2, help="processes that generate the instances")
    args = parser.parse_args()

    all_tasks = [task for family in args.families for task in tasks(family, args.n)]
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        rows = pool.map(generate, all_tasks, chunksize=1)
    print(f"{args.n} rows per family, look {args.look}; RSS before drawing {rss_mb():.0f} MB, max {max_rss_mb():.0f} MB")
    for cache in caches().values():
        cache.cache_clear()
    total_wall = total_cpu = 0.0
    for family in args.families:
        before = {name: cache.cache_info() for name, cache in caches().items()}
        drawn = hashlib.sha256()
        wall, cpu = time.perf_counter(), time.process_time()
        for task, state_json, payload, optimal_length in rows:
            if task.family == family:
                digest(draw(args.look, task, state_json, payload, optimal_length), drawn)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        total_wall, total_cpu = total_wall + wall, total_cpu + cpu
        print(f"\n{family}: drawn in {wall:.1f} s wall, {cpu:.1f} s CPU; RSS {rss_mb():.0f} MB; "
              f"rows' sha256 {drawn.hexdigest()[:16]}")
        print(f"  {'cache':<44}{'entries':>8}{'MB':>9}{'hits':>9}{'calls':>9}{'hit rate':>9}")
        for name, cache in caches().items():
            info, old = cache.cache_info(), before.get(name)
            hits = info.hits - (old.hits if old else 0)
            calls = hits + info.misses - (old.misses if old else 0)
            if calls:
                print(f"  {name:<44}{info.currsize:>8}{held_mb(cache):>9.1f}{hits:>9}{calls:>9}{hits / calls:>9.1%}")

    print(f"\nevery family: drawn in {total_wall:.1f} s wall, {total_cpu:.1f} s CPU")
    print(f"  {'cache':<44}{'entries':>8}{'MB':>9}{'max size':>9}")
    seen: set[int] = set()
    total = 0.0
    for name, cache in caches().items():
        info = cache.cache_info()
        if info.currsize:
            mb = held_mb(cache, seen)
            total += mb
            print(f"  {name:<44}{info.currsize:>8}{mb:>9.1f}{info.maxsize if info.maxsize else '-':>9}")
    print(f"  {'all caches (shared images once)':<44}{'':>8}{total:>9.1f}")
    print(f"RSS now {rss_mb():.0f} MB; max RSS {max_rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
