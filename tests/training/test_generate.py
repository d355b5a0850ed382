"""``generate``: a loadable, decontaminated folder whose bytes depend on the arguments alone."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from PIL import Image

from vgau_data.errors import DatasetError, VgauError
from vgau_data.metrics.scoring import score_answer
from vgau_data.registry import FAMILIES
from vgau_data.safe_io import TEMP_SUFFIX, sha256_of
from vgau_data.training import catalog, generate
from vgau_data.training.bands import parse_band
from vgau_data.training.decontam import decontam_folder
from vgau_data.training.generate import GenerateConfig, generate_dataset
from vgau_data.training.heldout import FamilyHeldOut, HeldOutInstance, HeldOutKeys
from vgau_data.training.keys import canonical_key, trajectory_keys

SMALL = {"families": ("maze", "klotski"), "n": 12, "bands": (parse_band("1-4"), parse_band("6-10")), "shard_rows": 5,
         "traces": ("solver",), "progress": False}


def make(out: Path, **changes: Any) -> generate.GenerateReport:
    return generate_dataset(GenerateConfig(out_dir=out, **(SMALL | changes)))


def shard_digests(out: Path) -> dict[str, str]:
    manifest = json.loads((out / "manifest.json").read_text())
    return {shard["path"]: shard["sha256"] for part in manifest["parts"].values() for shard in part["shards"]}


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("generated") / "out"
    make(out)
    return out


def test_the_folder_loads_per_family_and_split_and_every_row_replays(small: Path) -> None:
    from datasets import load_dataset

    for family in SMALL["families"]:
        rows = load_dataset(str(small), family, split="train")
        assert rows.num_rows == 24
        spec = FAMILIES[family]
        for row in rows:
            state = spec.from_json(row["state"])
            low, high = map(int, row["band"].split("-"))
            assert low <= row["optimal_length"] <= high
            assert spec.solve(state).optimal_length == row["optimal_length"]
            replay = spec.replay(state, spec.answer_from_payload(row["solution"]))
            assert replay.feasible and replay.length == row["optimal_length"]
            assert row["image"].size == spec.geometry.size
            assert row["prompt"] == spec.question(state, "text_cot")
            reference = {"id": row["id"], "task": row["family"], "difficulty": row["band"],
                         "optimal_length": row["optimal_length"], "state": row["state"]}  # as the card says
            assert score_answer(spec.format_answer(spec.answer_from_payload(row["solution"])), reference).optimal
        assert len(set(rows["id"])) == 24
        assert len({canonical_key(family, spec.from_json(s)) for s in rows["state"]}) == 24


def test_the_manifest_lists_every_shard_with_its_digest_and_the_card_its_configs(small: Path) -> None:
    manifest = json.loads((small / "manifest.json").read_text())
    assert set(manifest["parts"]) == {"maze/train", "klotski/train"}
    for part in manifest["parts"].values():
        assert part["complete"]
        assert [shard["path"].split("/")[1] for shard in part["shards"]] == [
            f"train-{k:05d}-of-00006.parquet" for k in range(6)]
        assert [shard["rows"] for shard in part["shards"]] == [5, 5, 2, 5, 5, 2]
        assert set(part["bands"]) == {"1-4", "6-10"} and all(t["rows"] == 12 for t in part["bands"].values())
    assert manifest["versions"]["vgau-data"] and len(manifest["versions"]["heldout_keys"]) == 64
    for path, digest in shard_digests(small).items():
        assert sha256_of(small / path) == digest
    card = (small / "README.md").read_text()
    assert "path: maze/train-*.parquet" in card and "config_name: klotski" in card
    assert not list(small.glob(".partial/**/*.parquet"))


def test_no_generated_row_shares_a_key_or_a_trajectory_state_with_the_test_set(small: Path) -> None:
    report = decontam_folder(small, progress=False)
    assert sum(report.rows.values()) == 48
    assert report.total == 0


def test_a_process_pool_writes_the_same_bytes_as_one_process(small: Path, tmp_path: Path) -> None:
    make(tmp_path / "pool", workers=2)
    assert shard_digests(tmp_path / "pool") == shard_digests(small)


def test_a_rerun_skips_finished_files_and_remakes_a_damaged_or_missing_shard(small: Path, tmp_path: Path) -> None:
    import shutil

    out = tmp_path / "copy"
    shutil.copytree(small, out)
    report = make(out)
    assert (report.shards_made, report.chunks_made) == (0, 0)
    damaged, missing = out / "maze/train-00001-of-00006.parquet", out / "klotski/train-00004-of-00006.parquet"
    damaged.write_bytes(damaged.read_bytes()[:-10] + b"0123456789")
    missing.unlink()
    report = make(out)
    assert report.chunks_made == 0 and report.shards_made == 2  # the damaged and the missing shard
    assert shard_digests(out) == shard_digests(small)
    assert sha256_of(damaged) == shard_digests(small)["maze/train-00001-of-00006.parquet"]


def test_other_arguments_for_a_part_are_refused_unless_replace(small: Path, tmp_path: Path) -> None:
    import shutil

    out = tmp_path / "copy"
    shutil.copytree(small, out)
    with pytest.raises(VgauError, match=r"other arguments \(n 12 -> 10\)"):
        make(out, n=10)
    make(out, n=10, replace=True, families=("maze",))
    assert sorted(p.name for p in (out / "maze").glob("*.parquet")) == [f"train-{k:05d}-of-00004.parquet" for k in range(4)]


def test_a_folder_that_is_not_generated_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(DatasetError, match="not a `vgau-data generate` folder"):
        make(tmp_path)


def test_a_kill_before_any_task_leaves_a_folder_the_rerun_takes(small: Path, tmp_path: Path, monkeypatch) -> None:
    """Killed between taking the lock and the first task: the lock file alone, or the manifest written first."""
    out = tmp_path / "early"
    out.mkdir()
    (out / ".generate.lock").touch()

    def killed(*args: Any, **kwargs: Any) -> None:
        assert json.loads((out / "manifest.json").read_text())["parts"] == {}  # ours before any task writes
        raise KeyboardInterrupt

    monkeypatch.setattr(generate, "make_engine", killed)
    with pytest.raises(KeyboardInterrupt):
        make(out)
    monkeypatch.undo()
    make(out)
    assert shard_digests(out) == shard_digests(small)


def test_bands_must_hold_generated_lengths_and_not_overlap(tmp_path: Path) -> None:
    with pytest.raises(VgauError, match="overlap"):
        make(tmp_path, bands=(parse_band("1-5"), parse_band("4-8")))
    with pytest.raises(VgauError, match="klotski generates no optimal length in 11-14"):
        make(tmp_path, bands=(parse_band("11-14"),))


def few_keys(family: str, state: Any, answer: Any) -> list[int]:
    """Trajectory keys in a space of 7 start keys: a band that holds 7 distinct rows."""
    keys = trajectory_keys(family, state, answer)
    return [keys[0] % 7, *keys[1:]]


def test_duplicates_keep_the_lowest_candidate_and_a_band_too_small_is_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(catalog, "trajectory_keys", few_keys)
    report = make(tmp_path / "seven", families=("maze",), bands=(parse_band("1-6"),), n=7, traces=())
    tally = report.parts["maze/train"]["bands"]["1-6"]
    assert tally["rows"] == 7 and tally["duplicates"] == tally["draws"] - 7
    chunks = [pq.read_table(path).to_pylist() for path in sorted((tmp_path / "seven").glob(".catalog/**/*.parquet"))]
    first = {}
    for row in (row for rows in chunks for row in rows if row["status"] == catalog.OK):
        first.setdefault(row["key"], row["index"])
    kept = sorted(int(i.rsplit("-", 1)[1]) for i in pq.read_table(tmp_path / "seven/maze").column("id").to_pylist())
    assert kept == sorted(first.values())
    with pytest.raises(VgauError, match=r"maze band 1-6 holds fewer than --n 40 distinct rows: 7 in \d+ draws"):
        make(tmp_path / "forty", families=("maze",), bands=(parse_band("1-6"),), n=40, traces=())


def test_a_candidate_whose_trajectory_meets_a_test_state_is_banned(tmp_path: Path, monkeypatch) -> None:
    """A test instance planted on the second state of candidate 3's trajectory bans candidate 3."""
    spec = FAMILIES["maze"]
    task = catalog.ChunkTask(str(tmp_path), "maze", "train", parse_band("6-6"), 0, 0, 8, "x")
    entry = catalog.candidate(task, 3)
    state = spec.from_json(entry["state"])
    keys = trajectory_keys("maze", state, spec.answer_from_payload(entry["solution"]))
    planted = FamilyHeldOut()
    planted.add(HeldOutInstance("ours", "planted", None, tuple(keys[1:])))
    planted.seal()
    monkeypatch.setattr(catalog, "load_heldout_keys", lambda: HeldOutKeys({"maze": planted}, {}))
    report = make(tmp_path / "out", families=("maze",), bands=(parse_band("6-6"),), n=8, traces=())
    tally = report.parts["maze/train"]["bands"]["6-6"]
    assert (tally["banned"], tally["draws"]) == (1, 9)
    ids = pq.read_table(tmp_path / "out/maze").column("id").to_pylist()
    assert "maze-train-6-6-00000003" not in ids and len(ids) == 8


def test_kill_9_mid_run_then_rerun_gives_the_same_bytes(small: Path, tmp_path: Path) -> None:
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "vgau_data", "generate", "--families", "maze", "klotski", "--n", "12",
               "--lengths", "1-4", "6-10", "--shard-rows", "5", "--traces", "solver", "--workers", "1",
               "--no-progress", "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(out.glob(".partial/*/*.parquet")):
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert not (out / "README.md").exists(), "the run finished before it was killed"
    assert not list(out.glob("*/*.parquet")), "an unfinished part must not look like a dataset"
    assert subprocess.run(command, capture_output=True, check=False).returncode == 0
    assert shard_digests(out) == shard_digests(small)
    assert not list(out.rglob(f"*{TEMP_SUFFIX}"))


VARIED = {"families": ("maze", "parking"), "n": 5, "bands": (parse_band("1-4"),), "shard_rows": 3,
          "traces": ("visual_cot",), "progress": False}


def _rows(out: Path, family: str, split: str) -> list[dict[str, Any]]:
    paths = sorted((out / family).glob(f"{split}-*.parquet"))
    return [row for path in paths for row in pq.read_table(path).to_pylist()]


def test_render_variety_draws_each_row_in_its_seeded_training_style_and_keeps_the_rows(tmp_path: Path) -> None:
    from vgau_data.fidelity import cell_agreement
    from vgau_data.render_styles import RenderStyle, sample_style
    from vgau_data.rendering import png_bytes

    plain, varied = tmp_path / "plain", tmp_path / "varied"
    generate_dataset(GenerateConfig(out_dir=plain, **VARIED))
    generate_dataset(GenerateConfig(out_dir=varied, render_variety=True, **VARIED))
    styles = set()
    for family in VARIED["families"]:
        rows, before = _rows(varied, family, "train"), _rows(plain, family, "train")
        assert [r["state"] for r in rows] == [r["state"] for r in before]  # the look changes, not the puzzles
        assert "render_style" not in before[0]
        for row in rows:
            style = RenderStyle.from_json(row["render_style"])
            assert style == sample_style(row["seed"]) and not style.is_benchmark
            styles.add(style)
            spec = FAMILIES[family].styled(style)
            state = spec.from_json(row["state"])
            assert row["image"]["bytes"] == png_bytes(spec.render(state))
            assert row["trace_visual_cot_images"][0]["bytes"] == row["image"]["bytes"]
            image = Image.open(io.BytesIO(row["image"]["bytes"]))
            assert cell_agreement(spec, image, state).exact
    assert len(styles) >= 5
    pool = tmp_path / "pool"
    generate_dataset(GenerateConfig(out_dir=pool, render_variety=True, workers=2, **VARIED))
    assert shard_digests(pool) == shard_digests(varied)
    assert "--render-variety" in (varied / "README.md").read_text()


def test_validation_ood_is_drawn_in_the_held_out_style_and_loads_beside_train(tmp_path: Path) -> None:
    from datasets import load_dataset

    from vgau_data.render_styles import BENCHMARK_STYLE, OOD_STYLE, RenderStyle

    out = tmp_path / "out"
    generate_dataset(GenerateConfig(out_dir=out, render_variety=True, **VARIED))
    generate_dataset(GenerateConfig(out_dir=out, split="validation_ood", **VARIED))
    ood = load_dataset(str(out), "maze", split="validation_ood")
    train = load_dataset(str(out), "maze", split="train")
    assert {RenderStyle.from_json(s) for s in ood["render_style"]} == {OOD_STYLE}
    assert not {RenderStyle.from_json(s) for s in train["render_style"]} & {OOD_STYLE, BENCHMARK_STYLE}
    assert ood[0]["image"].size == FAMILIES["maze"].styled(OOD_STYLE).geometry.size
    assert set(ood["id"]).isdisjoint(train["id"])
    assert decontam_folder(out, progress=False).total == 0


def test_render_style_options_that_contradict_are_refused(tmp_path: Path) -> None:
    with pytest.raises(VgauError, match="--benchmark-style needs --render-variety"):
        GenerateConfig(out_dir=tmp_path, benchmark_style=True, **VARIED)
    with pytest.raises(VgauError, match="held-out style; drop --render-variety"):
        GenerateConfig(out_dir=tmp_path, split="validation_ood", render_variety=True, **VARIED)
