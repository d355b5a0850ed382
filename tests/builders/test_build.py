"""A reduced build into tmp_path, loaded back through `datasets` as a user would."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
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
    build_dataset(out, seed=3, counts=COUNTS, workers=1, progress=False)  # spawned workers know no test-registered family
    return out


def test_build__writes_the_hub_layout_with_a_configs_block(built: Path) -> None:
    assert sorted(p.name for p in built.iterdir()) == sorted(["README.md", *FAMILIES])
    text = (built / "README.md").read_text()
    header = yaml.safe_load(text.split("---")[1])
    assert [c["config_name"] for c in header["configs"]] == list(FAMILIES)
    assert [c.get("default", False) for c in header["configs"]] == [True] + [False] * (len(FAMILIES) - 1)
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


def test_build__row_seed_and_index_regenerate_that_row_alone(built: Path) -> None:
    from datasets import load_dataset

    from vgau_data.seeding import rng_for

    for family in ("sokoban", "maze"):
        row = load_dataset(str(built), family, split="test")[3]
        spec = FAMILIES[family]
        slot = spec.slot(row["difficulty"], int(row["id"].rsplit("-", 1)[1]))
        assert slot.length == row["optimal_length"]
        assert spec.to_json(spec.generate(row["difficulty"], rng_for(row["seed"]), slot)) == row["state"]


def _python_blocks(markdown: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", markdown, flags=re.DOTALL)


def test_card__code_examples_run_as_written(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    card = (built / "README.md").read_text()
    blocks = _python_blocks(card)
    assert len(blocks) >= 2 and all('"vgau/puzzles"' in block for block in blocks)
    for block in blocks:  # offline: the Hub repo id stands for this local build
        exec(compile(block.replace('"vgau/puzzles"', repr(str(built))), "dataset_card", "exec"), {})  # noqa: S102
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("maze-easy-0000 easy ")
    assert printed[-1].split("  #")[0].strip() == "True True None"


def test_card__difficulty_validation_compares_every_family(built: Path) -> None:
    section = (built / "README.md").read_text().split("## Difficulty validation")[1].split("\n## ")[0]
    lines = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    assert lines[0].startswith("| family | statistic")
    assert len(lines) - 1 == sum(len(spec.structure.statistics) for spec in FAMILIES.values() if spec.structure)
    maze_walkable = next(line for line in lines if line.startswith("| maze | walkable"))
    assert maze_walkable.count(" / ") == 6 and "20.30 / 20.30" in maze_walkable  # ours / authors / paper


def test_build__same_seed_gives_identical_bytes_whatever_the_workers(built: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    build_dataset(again, seed=3, families=["maze", "onet"], counts=COUNTS, workers=2, progress=False)
    for family in ("maze", "onet"):
        assert (again / family / PARQUET_NAME).read_bytes() == (built / family / PARQUET_NAME).read_bytes()


def test_build__different_seeds_share_no_states(built: Path, tmp_path: Path) -> None:
    from datasets import load_dataset

    other = tmp_path / "other"
    build_dataset(other, seed=4, counts=COUNTS, workers=1, progress=False)
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


def test_build__counts_of_zero_are_a_one_line_error(tmp_path: Path) -> None:
    from tests.bounded import run_cli_bounded

    done = run_cli_bounded(["build", "--out", str(tmp_path / "out"), "--counts", "0", "0", "0", "--families", "maze"])
    done.assert_one_line_error("nothing to build", "ask for no rows")
    assert not (tmp_path / "out").exists()


def test_build__a_rebuilt_folder_loads_fresh_rows_from_our_loader(tmp_path: Path) -> None:
    """`datasets` caches local folders by name; `load_puzzles` must never serve stale rows."""
    from vgau_data.builders import load_puzzles

    folder = tmp_path / "puzzles"
    states = []
    for seed in (5, 6):
        build_dataset(folder, seed=seed, families=["maze"], counts={"easy": 1, "medium": 0, "hard": 0}, progress=False,
                      replace=True)
        rows = load_puzzles(folder, "maze")
        states.append(rows["state"][0])
    assert states[0] != states[1]
    assert rows[0]["image"].mode == "RGB" and len(rows[0]["oracle_states"]) == rows[0]["optimal_length"]


# ---------------------------------------------------------------- atomic builds (issue 10)

TINY = {"easy": 1, "medium": 0, "hard": 0}
ROOT = Path(__file__).resolve().parents[2]


def _killed_build(out: Path, seed: int, *, replace: bool = False) -> None:
    """Build in a child that SIGKILLs itself once the Parquet files are written, before the README."""
    script = f"""
import os, signal
from vgau_data.builders import build as build_module
build_module.write_readme = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL)
build_module.build_dataset({str(out)!r}, seed={seed}, families=["maze", "path"], counts={TINY!r}, progress=False,
                           replace={replace})
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, timeout=120, check=False)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]


def test_build__killed_mid_write_leaves_nothing_a_loader_reads(tmp_path: Path) -> None:
    from vgau_data.metrics.references import DatasetNotFoundError, load_references

    out = tmp_path / "fresh"
    _killed_build(out, seed=0)
    assert not out.exists()
    (partial,) = tmp_path.glob(".fresh.partial-*")
    assert (partial / "maze" / PARQUET_NAME).is_file()  # the work was written, but only beside --out
    with pytest.raises(DatasetNotFoundError):
        load_references(out)
    build_dataset(out, seed=0, families=["maze", "path"], counts=TINY, progress=False)
    assert not partial.exists() and sorted(p.name for p in out.iterdir()) == ["README.md", "maze", "path"]


def test_build__a_killed_rebuild_leaves_the_old_build_whole(tmp_path: Path) -> None:
    out = tmp_path / "kept"
    build_dataset(out, seed=0, families=["maze", "path"], counts=TINY, progress=False)
    before = dataset_fingerprint(out), (out / "README.md").read_text()
    _killed_build(out, seed=1, replace=True)
    assert (dataset_fingerprint(out), (out / "README.md").read_text()) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seed", "1"], "holds seed 0 of maze, path; this build is seed 1 of maze, path"),
        (["--families", "maze"], "holds seed 0 of maze, path; this build is seed 0 of maze, and a folder never mixes"),
    ],
)
def test_build__never_mixes_seeds_or_families_in_one_folder_unless_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    out = tmp_path / "mixed"
    base = ["build", "--out", str(out), "--counts", "1", "0", "0", "--workers", "1", "--no-progress"]
    assert main([*base, "--families", "maze", "path"]) == 0
    before = dataset_fingerprint(out)
    capsys.readouterr()
    command = [*base, "--families", "maze", "path", *args] if "--families" not in args else [*base, *args]
    assert main(command) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err and "--replace" in err
    assert dataset_fingerprint(out) == before
    assert main([*command, "--replace"]) == 0
    configs = [c["config_name"] for c in yaml.safe_load((out / "README.md").read_text().split("---")[1])["configs"]]
    assert sorted(p.name for p in out.iterdir()) == ["README.md", *configs]


def test_build__the_same_settings_rebuild_in_place(tmp_path: Path) -> None:
    out = tmp_path / "same"
    build_dataset(out, seed=2, families=["path"], counts=TINY, progress=False)
    first = dataset_fingerprint(out)
    build_dataset(out, seed=2, families=["path"], counts={"easy": 2, "medium": 0, "hard": 0}, progress=False)
    assert dataset_fingerprint(out) != first and len(list(out.glob("path/*.parquet"))) == 1
    assert not list(tmp_path.glob(".same.*"))


@pytest.mark.parametrize("what", ["a file", "a folder of other files"])
def test_build__refuses_an_out_that_is_not_a_build(tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str) -> None:
    out = tmp_path / "taken"
    if what == "a file":
        out.write_text("mine")
    else:
        out.mkdir()
        (out / "notes.txt").write_text("mine")
    assert main(["build", "--out", str(out), "--families", "maze", "--counts", "1", "0", "0", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and ("is a file" in err or "not a vgau-data build" in err)
    assert (out.read_text() if what == "a file" else (out / "notes.txt").read_text()) == "mine"


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_build__the_folder_gets_the_permissions_of_the_users_umask(tmp_path: Path, umask: int) -> None:
    import os
    import stat

    previous = os.umask(umask)
    try:
        out = tmp_path / "shared"
        build_dataset(out, families=["maze"], counts={"easy": 1, "medium": 0, "hard": 0}, workers=1, progress=False)
        build_dataset(out, families=["maze"], counts={"easy": 1, "medium": 0, "hard": 0}, workers=1, progress=False)
    finally:
        os.umask(previous)
    folders = [out, *(p for p in out.rglob("*") if p.is_dir())]
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {stat.S_IMODE(p.stat().st_mode) for p in folders} == {0o777 & ~umask}  # rebuilt in place too
    assert {stat.S_IMODE(p.stat().st_mode) for p in files} == {0o666 & ~umask}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".shared.")]
