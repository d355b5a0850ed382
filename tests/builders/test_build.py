"""A reduced build into tmp_path, loaded back through `datasets` as a user would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from vgau_data.builders import build_dataset, dataset_fingerprint
from vgau_data.builders.hub_folder import PARQUET_NAME
from vgau_data.cli import main
from vgau_data.registry import FAMILIES

COUNTS = {"easy": 2, "medium": 1, "hard": 1}
COLUMNS = {
    "id", "task", "difficulty", "optimal_length", "image", "oracle_aid", "oracle_states",
    "oracle_aug_states", "oracle_vr", "state", "solution", "question", "seed",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("vgau") / "puzzles"
    build_dataset(out, seed=3, counts=COUNTS, workers=2, progress=False)
    return out


def test_build__writes_the_hub_layout_with_a_configs_block(built: Path) -> None:
    assert sorted(p.name for p in built.iterdir()) == sorted(["README.md", *FAMILIES])
    text = (built / "README.md").read_text()
    header = yaml.safe_load(text.split("---")[1])
    assert [c["config_name"] for c in header["configs"]] == list(FAMILIES)
    assert [c.get("default", False) for c in header["configs"]] == [True] + [False] * 5
    assert header["license"] == "cc-by-4.0"
    assert "visual-question-answering" in header["task_categories"]
    assert "arXiv:2608.22174" in text
    assert "| maze | easy | 1-6 | 2 |" in text


@pytest.mark.parametrize("family", list(FAMILIES))
def test_build__load_dataset_decodes_every_config(built: Path, family: str) -> None:
    from datasets import load_dataset
    from PIL import Image

    ds = load_dataset(str(built), family, split="test")
    assert set(ds.column_names) == COLUMNS
    assert ds["difficulty"] == ["easy", "easy", "medium", "hard"]
    spec = FAMILIES[family]
    for row in ds:
        assert row["task"] == family
        assert row["id"].startswith(f"{family}-{row['difficulty']}-")
        assert isinstance(row["image"], Image.Image) and row["image"].size == spec.geometry.size
        assert isinstance(row["oracle_aid"], Image.Image)
        assert len(row["oracle_states"]) == len(row["oracle_aug_states"]) == row["optimal_length"]
        assert all(isinstance(im, Image.Image) for im in row["oracle_states"])
        state = spec.from_json(row["state"])
        assert spec.bucket_of(row["optimal_length"]) == row["difficulty"]
        assert spec.solve(state).optimal_length == row["optimal_length"]
        json.loads(row["solution"])
        assert row["question"] == spec.question(state, "text_cot")
        assert spec.render(state).tobytes() == row["image"].convert("RGB").tobytes()


def test_build__row_seed_regenerates_that_row_alone(built: Path) -> None:
    from datasets import load_dataset

    from vgau_data.seeding import rng_for

    row = load_dataset(str(built), "sokoban", split="test")[3]
    spec = FAMILIES["sokoban"]
    assert spec.to_json(spec.generate(row["difficulty"], rng_for(row["seed"]))) == row["state"]


def test_build__same_seed_gives_identical_bytes_whatever_the_workers(built: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    build_dataset(again, seed=3, families=["maze", "onet"], counts=COUNTS, workers=1, progress=False)
    for family in ("maze", "onet"):
        assert (again / family / PARQUET_NAME).read_bytes() == (built / family / PARQUET_NAME).read_bytes()


def test_build__different_seeds_share_no_states(built: Path, tmp_path: Path) -> None:
    from datasets import load_dataset

    other = tmp_path / "other"
    build_dataset(other, seed=4, counts=COUNTS, workers=2, progress=False)
    for family in FAMILIES:
        first = set(load_dataset(str(built), family, split="test")["state"])
        second = set(load_dataset(str(other), family, split="test")["state"])
        assert len(first) == sum(COUNTS.values())
        assert not first & second
    assert dataset_fingerprint(built) != dataset_fingerprint(other)


def test_build__cli_prints_the_summary_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli"
    code = main(["build", "--out", str(out), "--families", "path", "--counts", "1", "1", "0", "--workers", "1", "--no-progress"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "path     easy        1      2-5" in printed
    assert "2 rows in" in printed
    assert (out / "path" / PARQUET_NAME).is_file()


def test_build__rejects_unknown_families_and_bad_counts(tmp_path: Path) -> None:
    from vgau_data.errors import UnknownFamilyError

    with pytest.raises(UnknownFamilyError):
        build_dataset(tmp_path, families=["tetris"], progress=False)
    with pytest.raises(ValueError, match="unknown difficulties"):
        build_dataset(tmp_path, counts={"expert": 1}, progress=False)


def test_build__a_rebuilt_folder_loads_fresh_rows_from_our_loader(tmp_path: Path) -> None:
    """`datasets` caches local folders by name; `load_puzzles` must never serve stale rows."""
    from vgau_data.builders import load_puzzles

    folder = tmp_path / "puzzles"
    states = []
    for seed in (5, 6):
        build_dataset(folder, seed=seed, families=["maze"], counts={"easy": 1, "medium": 0, "hard": 0}, progress=False)
        rows = load_puzzles(folder, "maze")
        states.append(rows["state"][0])
    assert states[0] != states[1]
    assert rows[0]["image"].mode == "RGB" and len(rows[0]["oracle_states"]) == rows[0]["optimal_length"]
