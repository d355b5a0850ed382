"""Loading a local build: broken Parquet files are one-line errors that name the file (issue 10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bounded import run_cli_bounded
from vgau_data.builders import build_dataset, load_puzzles
from vgau_data.builders.hub_folder import PARQUET_NAME
from vgau_data.builders.load import read_config_columns
from vgau_data.errors import DatasetError


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("load") / "puzzles"
    build_dataset(out, seed=0, families=["maze", "path"], counts={"easy": 2, "medium": 0, "hard": 0}, progress=False)
    return out


def _damaged(built: Path, tmp_path: Path, damage: str) -> tuple[Path, Path]:
    import shutil

    folder = tmp_path / "damaged"
    shutil.copytree(built, folder)
    path = folder / "maze" / PARQUET_NAME
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if damage == "truncated" else data[:100] + bytes(len(data) - 200) + data[-100:])
    return folder, path


@pytest.mark.parametrize("damage", ["truncated", "zeroed"])
def test_load__a_broken_parquet_file_is_named_in_one_line(built: Path, tmp_path: Path, damage: str) -> None:
    folder, path = _damaged(built, tmp_path, damage)
    for load in (lambda: read_config_columns(folder, "maze", ["id", "state"]), lambda: load_puzzles(folder, "maze")):
        with pytest.raises(DatasetError) as caught:
            load()
        message = str(caught.value)
        assert str(path) in message and "not a readable Parquet file" in message and "\n" not in message
    assert len(read_config_columns(folder, "path", ["id"])) == 2  # the other configs still load


def test_score__against_a_truncated_dataset_is_a_one_line_error(built: Path, tmp_path: Path) -> None:
    folder, path = _damaged(built, tmp_path, "truncated")
    submission = tmp_path / "empty.jsonl"
    submission.write_text('{"vgau_submission": 1, "model": "m", "harness": "h", "dataset": {"source": "x", '
                          f'"fingerprint": "{"0" * 64}"}}}}\n')
    run_cli_bounded(["score", str(submission), "--dataset", str(folder)]).assert_one_line_error(
        str(path), "not a readable Parquet file"
    )
