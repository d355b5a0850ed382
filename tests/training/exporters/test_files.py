"""Shard writers: a shard appears whole or not at all, through ``safe_io``, whatever stops the export."""

from __future__ import annotations

import hashlib
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from vgau_data import safe_io
from vgau_data.training.exporters import EXPORTERS, export_training, get_exporter

ROOT = Path(__file__).resolve().parents[3]


def _digests(out: Path) -> dict[str, str]:
    """Every file of an export by its path (``parquet_info`` names the folder itself, so it is left out)."""
    return {
        p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file() and "parquet_info" not in p.parts
    }


def _temporaries(out: Path) -> list[Path]:
    return [p for p in out.rglob("*") if safe_io.is_temporary(p)]


@pytest.mark.parametrize("name", list(EXPORTERS))
def test_an_error_inside_the_writer_leaves_no_shard_no_temporary_and_the_rerun_the_same_bytes(
    name: str, training_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exporter = get_exporter(name)
    real = type(exporter).writer

    def failing(self, shard, options):  # the second family's shard fails after its first row is written
        writer = real(self, shard, options)
        if shard.family == "sokoban":
            add = writer.add

            def add_then_fail(row):
                add(row)
                raise OSError(28, "No space left on device")

            monkeypatch.setattr(writer, "add", add_then_fail)
        return writer

    monkeypatch.setattr(type(exporter), "writer", failing)
    out = tmp_path / "out"
    with pytest.raises(OSError, match="No space left"):
        export_training(training_dir, exporter, out, progress=False)
    shard = out / "sokoban" / "train" / f"train-00000-of-00001{exporter.suffix}"
    assert (out / "maze" / "train" / shard.name).is_file() and not shard.exists()
    assert not (shard.parent / "images" / shard.stem).exists(), "nor the image folder of a BAGEL shard"
    assert not _temporaries(out) and safe_io.remove_stale_temps(out, recursive=True) == 0
    monkeypatch.setattr(type(exporter), "writer", real)
    export_training(training_dir, exporter, out, progress=False)
    export_training(training_dir, exporter, tmp_path / "clean", progress=False)
    assert _digests(out) == _digests(tmp_path / "clean")


KILLED = """
import os, signal, sys
from vgau_data.training.exporters import export_training, get_exporter
from vgau_data.training.exporters.files import JsonlWriter

real = JsonlWriter.add
def add(self, row):
    real(self, row)
    if row["family"] == "sokoban":  # mid-shard: its images and its line written, neither in place
        self._sink.flush()
        os.kill(os.getpid(), signal.SIGKILL)
JsonlWriter.add = add
export_training(sys.argv[1], get_exporter("bagel_think"), sys.argv[2], progress=False)
"""


def test_an_export_killed_mid_shard_leaves_temporaries_the_rerun_removes_and_the_same_bytes(
    training_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "killed"
    done = subprocess.run([sys.executable, "-c", KILLED, str(training_dir), str(out)], cwd=ROOT,
                          capture_output=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]
    shard = out / "sokoban" / "train" / "train-00000-of-00001.jsonl"
    assert not shard.exists() and not (shard.parent / "images" / shard.stem).exists()
    left = _temporaries(out)
    folders, files = [p for p in left if p.is_dir()], [p for p in left if not p.is_dir()]
    assert [p.parent for p in folders] == [shard.parent / "images"] and folders[0].name.startswith(f".{shard.stem}.")
    assert [p.parent for p in files] == [shard.parent] and files[0].name.startswith(f".{shard.name}.")
    export_training(training_dir, get_exporter("bagel_think"), out, progress=False)
    assert not any(p.exists() for p in left) and not _temporaries(out)
    export_training(training_dir, get_exporter("bagel_think"), tmp_path / "clean", progress=False)
    assert _digests(out) == _digests(tmp_path / "clean")
