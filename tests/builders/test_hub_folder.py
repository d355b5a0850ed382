"""The Hub folder: portable feature metadata, the card's real row counts, datasets 3.x and 5.x loading."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from tests.external import require_tool
from vgau_data.builders import build_dataset
from vgau_data.builders.hub_folder import parquet_path

COUNTS = {"easy": 2, "medium": 1, "hard": 0}
DATASETS3_INSTALL = 'python3 -m venv .venv-ds3 && .venv-ds3/bin/pip install "datasets==3.6.*" pillow'


@pytest.fixture(scope="module")
def small_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hub") / "puzzles"
    build_dataset(out, seed=1, families=["maze", "path"], counts=COUNTS, workers=1, progress=False)
    return out


def card_header(folder: Path) -> dict:
    return yaml.safe_load((folder / "README.md").read_text(encoding="utf-8").split("---")[1])


def test_hub_folder__card_states_the_rows_really_built(small_build: Path) -> None:
    text = (small_build / "README.md").read_text(encoding="utf-8")
    assert "Each has a single `test` split of 3 rows: 2 easy, 1 medium, 0 hard." in text
    assert "100 rows" not in text
    infos = {info["config_name"]: info for info in card_header(small_build)["dataset_info"]}
    assert list(infos) == ["maze", "path"]
    for family, info in infos.items():
        path = parquet_path(small_build, family)
        assert info["splits"][0]["num_examples"] == pq.ParquetFile(path).metadata.num_rows == 3
        assert info["download_size"] == path.stat().st_size
        assert {f["name"]: f.get("dtype", f.get("sequence")) for f in info["features"]}["oracle_states"] == "image"
    from datasets import Features

    from vgau_data.builders.hub_folder import features

    assert Features._from_yaml_list(infos["maze"]["features"]) == features()  # the card's features are the rows'


def test_hub_folder__features_are_spelled_for_every_datasets_release(small_build: Path) -> None:
    metadata = json.loads(pq.read_schema(parquet_path(small_build, "maze")).metadata[b"huggingface"])
    features = metadata["info"]["features"]
    assert features["oracle_states"] == {"_type": "Sequence", "feature": {"_type": "Image"}}
    assert "List" not in json.dumps(features)


def test_hub_folder__datasets_5_loads_a_list_of_images(small_build: Path) -> None:
    from datasets import List, load_dataset

    ds = load_dataset(str(small_build), "path", split="test")
    assert isinstance(ds.features["oracle_states"], List)
    assert len(ds[2]["oracle_states"]) == ds[2]["optimal_length"]


LOAD_SCRIPT = """
import json, sys, datasets
rows = []
for family in ("maze", "path"):
    ds = datasets.load_dataset(sys.argv[1], family, split="test", cache_dir=sys.argv[2])
    row = ds[2]
    rows.append([family, len(ds), type(ds.features["oracle_states"]).__name__, row["image"].size,
                 len(row["oracle_states"]), row["optimal_length"], row["image"].convert("RGB").tobytes().hex()[:64]])
print(json.dumps({"version": datasets.__version__, "rows": rows}))
"""


def test_hub_folder__datasets_3_loads_the_build(small_build: Path, tmp_path: Path) -> None:
    python = require_tool("VGAU_DATASETS3_PYTHON", install=DATASETS3_INSTALL)
    from datasets import load_dataset

    done = subprocess.run(
        [python, "-c", LOAD_SCRIPT, str(small_build), str(tmp_path / "cache")],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["version"].startswith("3.")
    for family, n, feature, size, n_states, optimal, pixels in report["rows"]:
        row = load_dataset(str(small_build), family, split="test")[2]
        assert (n, feature) == (3, "Sequence")
        assert tuple(size) == row["image"].size and n_states == optimal == row["optimal_length"]
        assert pixels == row["image"].convert("RGB").tobytes().hex()[:64]


def test_hub_folder__images_use_their_column_codec_and_decode_to_the_rendered_pixels(small_build: Path) -> None:
    import io

    from PIL import Image

    from vgau_data.builders.instances import COLUMN_CODECS
    from vgau_data.builders.load import read_config_columns
    from vgau_data.oracle_aids import annotate, oracle_aug_states, oracle_states
    from vgau_data.oracle_aids.vr import oracle_vr
    from vgau_data.registry import get_family

    path = get_family("path")
    row = read_config_columns(small_build, "path", ["state", "solution", *COLUMN_CODECS])[2]
    state = path.from_json(row["state"])
    answer = path.solve(state).answer
    steps = oracle_states(path, state, answer)
    expected = {"image": [path.render(state)], "oracle_aid": [annotate(path, path.render(state), state)],
                "oracle_states": steps, "oracle_aug_states": oracle_aug_states(path, state, answer),
                "oracle_vr": [oracle_vr(path, state, answer)]}
    for column, codec in COLUMN_CODECS.items():
        cells = row[column] if isinstance(row[column], list) else [row[column]]
        assert len(cells) == len(expected[column])
        for cell, image in zip(cells, expected[column]):
            decoded = Image.open(io.BytesIO(cell["bytes"]))
            assert decoded.format == codec.upper(), column
            assert decoded.convert("RGB").tobytes() == image.tobytes(), column
