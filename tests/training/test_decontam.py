"""``decontam``: every planted copy of a test instance is reported, with its kind and instance."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.families import SHIPPED
from vgau_data.builders.hub_folder import write_parquet
from vgau_data.builders.instances import RowTask, generate_verified
from vgau_data.cli import main
from vgau_data.errors import DatasetError
from vgau_data.puzzles.maze.state import MazeState
from vgau_data.puzzles.path.state import PathState
from vgau_data.puzzles.symmetry import D4
from vgau_data.registry import FAMILIES
from vgau_data.training.decontam import decontam_folder
from vgau_data.training.heldout import load_heldout_keys
from vgau_data.training.keys import canonical_key, symmetry_of, trajectory


def features() -> Any:
    from datasets import Features, Value

    return Features({"id": Value("string"), "state": Value("string"), "solution": Value("string")})


def published(family: str, difficulty: str = "hard", index: int = 0) -> tuple[Any, tuple, str]:
    """One of our test instances (the seed-0 build's row), regenerated: (state, answer, id)."""
    task = RowTask(family, difficulty, index, 0)
    state, solution = generate_verified(family, difficulty, task.seed, task.slot)
    return state, solution.answer, task.row_id


def plant(folder: Path, family: str, split: str, rows: list[tuple[str, Any]]) -> None:
    spec = FAMILIES[family]
    write_parquet([{"id": row_id, "state": spec.to_json(state), "solution": None} for row_id, state in rows],
                  folder / family / f"{split}-00000-of-00001.parquet", features())


@pytest.mark.parametrize("family", SHIPPED)  # the families the shipped test keys hold
def test_every_rotated_or_relabelled_copy_of_a_test_instance_is_reported(family: str, tmp_path: Path) -> None:
    state, _, instance = published(family)
    symmetry = symmetry_of(family)
    planted = [(f"copy-{name}", symmetry.apply(state, name)) for name in symmetry.transforms]
    if symmetry.relabel is not None:
        planted.append(("copy-relabelled", symmetry.relabel(state, np.random.default_rng(3))[0]))
    plant(tmp_path, family, "train", planted)
    report = decontam_folder(tmp_path, progress=False)
    found = {overlap.row_id: overlap for overlap in report.overlaps}
    assert set(found) == {row_id for row_id, _ in planted}
    assert found["copy-identity"].kind == "exact"
    assert {found[row_id].kind for row_id, _ in planted[1:]} <= {"symmetric", "exact"}
    assert all(f"ours:{instance}" in overlap.detail for overlap in found.values())
    assert report.counts[(family, "train")]["symmetric"] >= len(planted) - 2


def as_puzzle(family: str, board: Any) -> Any:
    """A trajectory board as a puzzle of its own (path: the marker's cell becomes the start)."""
    if family != "path" or board.position is None:
        return board
    return PathState(board.grid, board.position, board.end, board.labels)


@pytest.mark.parametrize("family", SHIPPED)  # the families the shipped test keys hold
def test_a_board_on_a_test_trajectory_is_reported_far_from_the_goal_only(family: str, tmp_path: Path) -> None:
    state, answer, instance = published(family)
    boards = trajectory(family, state, answer)
    start = canonical_key(family, state)
    labels = {cell for _, cell in getattr(state, "labels", ())}
    middle = next(board for board in boards[1:-2] if canonical_key(family, board) != start  # sokoban: after a push
                  and getattr(board, "position", None) not in labels)
    plant(tmp_path, family, "train", [("middle", as_puzzle(family, middle)), ("last", as_puzzle(family, boards[-1]))])
    found = {overlap.row_id: overlap for overlap in decontam_folder(tmp_path, progress=False).overlaps}
    assert found["middle"].kind == "trajectory" and f"ours:{instance}" in found["middle"].detail
    last = canonical_key(family, boards[-1])
    starts = load_heldout_keys().family(family).by_start  # a small family's last board may be a test instance itself
    if last not in {canonical_key(family, board) for board in boards[:-1]} and last not in starts:  # sokoban: its walk shares a key
        assert "last" not in found  # one step from the goal: a suffix that gives nothing away


def test_a_board_whose_answer_passes_through_a_test_start_is_reported(tmp_path: Path) -> None:
    """The agent one cell further from the goal than a test maze's start walks through that start."""
    maze = FAMILIES["maze"]
    for index in range(10):
        state, _, instance = published("maze", "medium", index)
        distance = maze.solve(state).optimal_length
        farther = [MazeState(state.grid, (state.start[0] + dr, state.start[1] + dc), state.goal)
                   for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
                   if state.grid[state.start[0] + dr][state.start[1] + dc] == "."]
        farther = [board for board in farther if maze.solve(board).optimal_length == distance + 1]
        if farther:
            break
    plant(tmp_path, "maze", "train", [("before", farther[0])])
    (overlap,) = decontam_folder(tmp_path, progress=False).overlaps
    assert overlap.kind == "trajectory" and f"the start of ours:{instance}" in overlap.detail


def test_two_splits_sharing_a_board_are_reported(tmp_path: Path) -> None:
    from vgau_data.training.bands import Band
    from vgau_data.training.catalog import ChunkTask, candidate

    row = candidate(ChunkTask(str(tmp_path), "onet", "train", Band(4, 6), 0, 0, 1, "x"), 0)
    state = FAMILIES["onet"].from_json(row["state"])
    plant(tmp_path, "onet", "train", [("t", state)])
    plant(tmp_path, "onet", "validation", [("v", symmetry_of("onet").apply(state, "rot90"))])
    report = decontam_folder(tmp_path, progress=False)
    assert [(o.row_id, o.kind) for o in report.overlaps] == [("v", "cross-split")]


def test_the_benchmark_itself_is_all_exact_overlaps_and_bad_rows_are_unreadable(tmp_path: Path) -> None:
    rows = [("good", published("klotski", "easy")[0])]
    plant(tmp_path, "klotski", "test", rows)
    spec = FAMILIES["klotski"]
    write_parquet([{"id": "bad", "state": '{"size": 6}', "solution": None},
                   {"id": "huge", "state": "[" * 200_000, "solution": None},
                   {"id": "ok", "state": spec.to_json(rows[0][1]), "solution": "not an answer"}],
                  tmp_path / "klotski" / "test-00001-of-00002.parquet", features())
    report = decontam_folder(tmp_path, progress=False)
    assert report.unreadable[("klotski", "test")] == 2
    assert [o.kind for o in report.overlaps] == ["exact", "exact"]


def test_the_cli_exits_1_on_overlaps_0_without_and_2_on_a_bad_folder(tmp_path: Path, capsys) -> None:
    state, _, instance = published("sokoban", "easy")
    plant(tmp_path / "dirty", "sokoban", "train", [("rot", symmetry_of("sokoban").apply(state, "rot180"))])
    assert main(["decontam", str(tmp_path / "dirty"), "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert f"sokoban/train-00000-of-00001.parquet rot: symmetric, a rotated, reflected or relabelled copy of ours:{instance}" in out
    (tmp_path / "empty").mkdir()
    assert main(["decontam", str(tmp_path / "empty"), "--no-progress"]) == 2  # nothing read is not clean
    assert "holds no <family>/*.parquet file" in capsys.readouterr().err
    plant(tmp_path / "clean", "sokoban", "train", [("fresh", fresh_board("sokoban"))])
    assert main(["decontam", str(tmp_path / "clean"), "--no-progress"]) == 0
    assert "no overlaps with the test set in the 1 rows checked" in capsys.readouterr().out
    (tmp_path / "bad" / "maze").mkdir(parents=True)
    (tmp_path / "bad" / "maze" / "train-0.parquet").write_bytes(b"not parquet")
    assert main(["decontam", str(tmp_path / "bad"), "--no-progress"]) == 2
    assert "is not a readable Parquet file" in capsys.readouterr().err
    with pytest.raises(DatasetError):
        decontam_folder(tmp_path / "absent", progress=False)


def fresh_board(family: str) -> Any:
    """A hard board of a seed far from the benchmark's (checked clean by the test that uses it)."""
    task = RowTask(family, "hard", 0, 987_654_321)
    state, _ = generate_verified(family, "hard", task.seed, task.slot)
    return state


def test_a_hub_cache_snapshot_of_symlinks_to_the_test_set_is_contaminated(tmp_path: Path, capsys) -> None:
    """A Hugging Face cache lays every file out as a link into blobs/: links to regular files are read."""
    state, _, instance = published("maze", "easy")
    plant(tmp_path / "source", "maze", "test", [("copy", state)])
    blob = tmp_path / "cache" / "blobs" / "0123abcd"
    blob.parent.mkdir(parents=True)
    (tmp_path / "source" / "maze" / "test-00000-of-00001.parquet").rename(blob)
    snapshot = tmp_path / "cache" / "snapshots" / "main"
    (snapshot / "maze").mkdir(parents=True)
    (snapshot / "maze" / "train-00000-of-00001.parquet").symlink_to(Path("../../../blobs/0123abcd"))
    report = decontam_folder(snapshot, progress=False)
    assert report.complete and [(o.file, o.kind) for o in report.overlaps] == [
        ("maze/train-00000-of-00001.parquet", "exact")]
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / "maze").symlink_to(snapshot / "maze")  # a linked family folder is followed too
    assert main(["decontam", str(tmp_path / "linked"), "--no-progress"]) == 1
    assert f"exact, the test instance ours:{instance}" in capsys.readouterr().out


def test_a_fifo_named_like_a_shard_is_refused_at_once(tmp_path: Path, capsys) -> None:
    import os
    import time

    (tmp_path / "maze").mkdir()
    os.mkfifo(tmp_path / "maze" / "train-00000-of-00001.parquet")
    start = time.monotonic()
    assert main(["decontam", str(tmp_path), "--no-progress"]) == 2
    assert time.monotonic() - start < 20
    err = capsys.readouterr().err
    assert "FIFO" in err and len(err.strip().splitlines()) == 1


def test_unreadable_rows_and_files_outside_a_family_folder_make_the_exit_2(tmp_path: Path, capsys) -> None:
    plant(tmp_path / "rows", "sokoban", "train", [("fresh", fresh_board("sokoban"))])
    write_parquet([{"id": "ints", "state": "7", "solution": None}],
                  tmp_path / "rows" / "sokoban" / "train-00001-of-00002.parquet", features())
    assert main(["decontam", str(tmp_path / "rows"), "--no-progress"]) == 2
    assert "not fully checked (1 unreadable rows); no overlaps found in the 1 rows checked" in capsys.readouterr().err
    plant(tmp_path / "other", "sokoban", "train", [("fresh", fresh_board("sokoban"))])
    (tmp_path / "other" / "data").mkdir()
    write_parquet([{"id": "x", "state": "{}", "solution": None}], tmp_path / "other" / "data" / "train.parquet",
                  features())
    assert main(["decontam", str(tmp_path / "other"), "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert "not checked: data/train.parquet: 'data' is not a registered family" in captured.out
    assert "1 Parquet files outside a registered family's folder" in captured.err


def test_d4_is_what_maze_declares() -> None:
    assert symmetry_of("maze").transforms == D4
