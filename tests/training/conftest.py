"""Rows the trace and export tests share: fixed states per family, a training folder, a benchmark build.

The fixed states are short puzzles written out as state JSON (docs/contract/states.md), so what the tests (and
the consumer fixtures under tests/data/training_consumers) expect does not move when a
generator changes. The training folder is laid out as ``vgau-data generate`` writes it,
with the ``visual_cot`` trace stored (through the kind's own ``features``) and every other
kind left for the exporters to compute; the benchmark folder is a real ``build_dataset``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

FIXED_STATES: dict[str, str] = {
    "maze": '{"goal":[8,5],"grid":["##########","#.#.######","#...######","#.########","#.########","#..#######","#.#.###.##","#....##.##","##.#.....#","##########"],"start":[8,8]}',
    "sokoban": '{"box":[6,2],"grid":["##########","#........#","#.#.#..#.#","#.#......#","#........#","#........#","##.#.....#","##.......#","#..#....##","##########"],"player":[4,1],"target":[7,2]}',
    "path": '{"end":[6,9],"grid":["..###.#...","#.##....##",".....##...","##.#.#.#.#","###.#.....","##....###.","#..#.#....","#.#..##.#.","..#.#....#","#.####.#.."],"labels":{"A":[5,9],"B":[4,9],"C":[6,8],"D":[4,8],"E":[4,7]},"start":[3,8]}',
    "onet": '{"board":[[null,null,"dragonfruit",null,null,null],[null,"dragonfruit",null,null,null,null],[null,null,"lime","lime",null,null],[null,null,null,null,"pear","pear"],["lemon",null,null,null,null,null],[null,null,"lemon",null,null,null]],"size":6}',
    "parking": '{"exit_row":0,"size":8,"vehicles":[{"col":0,"id":"A","length":2,"orientation":"v","row":0},{"col":3,"id":"B","length":3,"orientation":"v","row":0},{"col":6,"id":"C","length":2,"orientation":"v","row":0},{"col":1,"id":"D","length":2,"orientation":"h","row":1},{"col":4,"id":"E","length":2,"orientation":"h","row":1},{"col":1,"id":"F","length":2,"orientation":"h","row":2},{"col":5,"id":"G","length":2,"orientation":"h","row":2},{"col":0,"id":"H","length":2,"orientation":"h","row":3},{"col":2,"id":"I","length":2,"orientation":"h","row":3},{"col":4,"id":"J","length":3,"orientation":"h","row":3},{"col":7,"id":"K","length":2,"orientation":"v","row":3},{"col":0,"id":"L","length":2,"orientation":"h","row":4},{"col":2,"id":"M","length":3,"orientation":"h","row":4},{"col":5,"id":"N","length":2,"orientation":"h","row":4},{"col":0,"id":"O","length":3,"orientation":"v","row":5},{"col":1,"id":"P","length":2,"orientation":"h","row":5},{"col":3,"id":"Q","length":2,"orientation":"h","row":5},{"col":4,"id":"R","length":2,"orientation":"h","row":0},{"col":5,"id":"S","length":3,"orientation":"h","row":5},{"col":1,"id":"T","length":2,"orientation":"v","row":6},{"col":2,"id":"U","length":2,"orientation":"v","row":6},{"col":3,"id":"V","length":2,"orientation":"v","row":6},{"col":4,"id":"W","length":2,"orientation":"v","row":6},{"col":5,"id":"X","length":2,"orientation":"v","row":6},{"col":6,"id":"Y","length":2,"orientation":"v","row":6},{"col":7,"id":"Z","length":2,"orientation":"v","row":6}]}',
    "klotski": '{"blocks":[{"col":2,"height":2,"kind":"target","row":3,"width":2},{"col":0,"height":2,"kind":"vertical","row":0,"width":1},{"col":1,"height":2,"kind":"vertical","row":0,"width":1},{"col":2,"height":2,"kind":"vertical","row":0,"width":1},{"col":3,"height":2,"kind":"vertical","row":0,"width":1},{"col":4,"height":2,"kind":"vertical","row":0,"width":1},{"col":5,"height":2,"kind":"vertical","row":0,"width":1},{"col":1,"height":2,"kind":"vertical","row":2,"width":1},{"col":4,"height":2,"kind":"vertical","row":4,"width":1},{"col":3,"height":1,"kind":"horizontal","row":2,"width":2},{"col":4,"height":1,"kind":"horizontal","row":3,"width":2},{"col":1,"height":1,"kind":"horizontal","row":5,"width":2},{"col":0,"height":1,"kind":"single","row":2,"width":1},{"col":2,"height":1,"kind":"single","row":2,"width":1},{"col":5,"height":1,"kind":"single","row":2,"width":1},{"col":0,"height":1,"kind":"single","row":3,"width":1},{"col":1,"height":1,"kind":"single","row":4,"width":1},{"col":5,"height":1,"kind":"single","row":4,"width":1},{"col":0,"height":1,"kind":"single","row":5,"width":1},{"col":5,"height":1,"kind":"single","row":5,"width":1}],"goal":[4,2],"size":6}',
}
"""One short puzzle per family (optimum 3 or 4)."""
STORED_KIND = "visual_cot"
"""The trace the training folder stores; the other kinds are computed by the exporters."""


def training_row(family: str, state_json: str, index: int, split: str = "train") -> dict[str, Any]:
    """A row as ``vgau-data generate`` writes it (the training columns), for a fixed state."""
    from vgau_data.registry import get_family
    from vgau_data.rendering import png_bytes

    spec = get_family(family)
    state = spec.from_json(state_json)
    solution = spec.solve(state)
    return {
        "id": f"{family}-{split}-{index:06d}", "family": family, "split": split, "band": "1-6", "seed": 1000 + index,
        "optimal_length": solution.optimal_length, "state": state_json, "solution": spec.answer_payload(solution.answer),
        "prompt": spec.question(state, "text_cot"), "image": {"bytes": png_bytes(spec.render(state)), "path": None},
    }  # fmt: skip


def write_training_folder(root: Path, rows_per_family: dict[str, list[dict[str, Any]]], kinds: tuple[str, ...]) -> Path:
    """``<root>/<family>/<split>-00000-of-00001.parquet`` with the rows and the traces of ``kinds``."""
    from datasets import Dataset, Features, Image, Value

    from vgau_data.registry import get_family
    from vgau_data.training.traces import get_trace_kind, trace_rng

    columns = {
        "id": Value("string"), "family": Value("string"), "split": Value("string"), "band": Value("string"),
        "seed": Value("int64"), "optimal_length": Value("int32"), "state": Value("string"),
        "solution": Value("string"), "prompt": Value("string"), "image": Image(),
    }  # fmt: skip
    for kind in kinds:
        columns |= get_trace_kind(kind).features()
    for family, rows in rows_per_family.items():
        spec = get_family(family)
        full = []
        for row in rows:
            state = spec.from_json(row["state"])
            answer = spec.answer_from_payload(row["solution"])
            traces = {}
            for kind in kinds:
                traces |= get_trace_kind(kind).columns(spec, state, answer, trace_rng(row["seed"], kind))
            full.append(row | traces)
        path = root / family / f"{rows[0]['split']}-00000-of-00001.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        Dataset.from_list(full, features=Features(columns)).to_parquet(str(path))
    return root


@pytest.fixture(scope="session")
def training_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A training folder: one fixed row per family in ``train``, its ``visual_cot`` trace stored."""
    rows = {family: [training_row(family, state, 0)] for family, state in FIXED_STATES.items()}
    return write_training_folder(tmp_path_factory.mktemp("training") / "rows", rows, (STORED_KIND,))


@pytest.fixture(scope="session")
def benchmark_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real benchmark build: one easy row per family."""
    from vgau_data.builders import build_dataset

    out = tmp_path_factory.mktemp("benchmark") / "puzzles"
    build_dataset(out, seed=0, counts={"easy": 1, "medium": 0, "hard": 0}, workers=1, progress=False)
    return out


@pytest.fixture(scope="session")
def tiny_vlm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Qwen2-VL folder (model, tokenizer, image processor), built offline."""
    from vgau_data.testing.tiny_models import build_tiny_vlm

    return build_tiny_vlm("qwen2_vl", tmp_path_factory.mktemp("tiny") / "qwen2_vl")
