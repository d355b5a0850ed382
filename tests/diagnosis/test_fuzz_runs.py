"""Property test: `vgau-data diagnose` on run folders with one file spoiled at random.

Whatever is spoiled (a field of a records, requests or cache line set to any JSON value
or removed, bytes cut or inserted in any file, a file made a FIFO, a link to /dev/zero,
a folder), diagnose either reports or stops with a one-line error (exit 2): never an
exception, never a hang. A few examples run by default; ``--run-slow`` runs
``VGAU_FUZZ_EXAMPLES`` (default 200).
"""

from __future__ import annotations

import contextlib
import io
import resource
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz_files import LONG, SMOKE, spoil_bytes, spoil_json_lines, spoil_kind
from vgau_data.cli import main

CPU_SECONDS = 5.0


@pytest.fixture(scope="module")
def measured_runs(image_runs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``image_runs`` with its fidelity cache filled (so an example measures only what it spoils)."""
    out = Path(shutil.copytree(image_runs, tmp_path_factory.mktemp("measured") / "runs"))
    assert main(["diagnose", str(out), "--no-progress", "--measures", "cells"]) == 0
    return out


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name != ".lock")


@st.composite
def spoiled_copy(draw: st.DrawFn, source: Path) -> tuple[Path, str]:
    folder = Path(tempfile.mkdtemp(prefix="vgau-fuzz-runs-")) / "runs"
    shutil.copytree(source, folder)
    path = draw(st.sampled_from(_files(folder)))
    ways = [spoil_bytes(path), spoil_kind(path)] + ([spoil_json_lines(path)] * 3 if path.suffix == ".jsonl" else [])
    return folder, draw(st.one_of(*ways))


def _diagnose_spoiled(example: tuple[Path, str]) -> None:
    folder, what = example
    err = io.StringIO()
    before = resource.getrusage(resource.RUSAGE_SELF)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["diagnose", str(folder), "--no-progress", "--measures", "cells"])
    finally:
        shutil.rmtree(folder.parent, ignore_errors=True)
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    assert cpu < CPU_SECONDS, (what, cpu)
    assert code in (0, 2), (what, code, err.getvalue()[-500:])
    if code == 2:
        last = err.getvalue().strip().splitlines()[-1]
        assert last.startswith("vgau-data diagnose: error: "), (what, err.getvalue()[-500:])


def test_fuzz_smoke__diagnose_on_a_spoiled_run_folder(measured_runs: Path) -> None:
    SMOKE(given(spoiled_copy(measured_runs))(_diagnose_spoiled))()


@pytest.mark.slow
def test_fuzz_long__diagnose_on_a_spoiled_run_folder(measured_runs: Path) -> None:
    LONG(given(spoiled_copy(measured_runs))(_diagnose_spoiled))()
