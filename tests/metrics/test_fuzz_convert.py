"""Property test: `convert` on harness files with one part spoiled at random, per input format.

lmms-eval samples (JSON lines and a JSON list) and VLMEvalKit predictions (xlsx, tsv, csv,
json), each a file those tools really wrote: a spoiled one converts (to records that
name dataset rows) or is refused with a ``VgauError`` naming the file, within a bounded
time; never another exception. A few examples per format run by default;
``--run-slow`` runs ``VGAU_FUZZ_EXAMPLES`` (default 200).
"""

from __future__ import annotations

import csv
import json
import resource
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz_files import LONG, SMOKE, spoil_bytes, spoil_json_lines, spoil_kind
from tests.metrics.conftest import HARNESS_OUTPUTS
from vgau_data.errors import VgauError
from vgau_data.integrations.convert import convert
from vgau_data.metrics.references import ReferenceSet

CPU_SECONDS = 5.0
LMMS = next((HARNESS_OUTPUTS / "lmms_eval_0.7.3" / "test-model").glob("*_samples_vgau_maze_text_cot.jsonl"))
VLMEVAL = HARNESS_OUTPUTS / "vlmevalkit_e8e78f05"
FORMATS = ("lmms-jsonl", "lmms-json-list", "xlsx", "tsv", "csv", "json")


def _original(fmt: str, folder: Path) -> tuple[str, Path]:
    """``(harness, path)`` of a real file of ``fmt`` copied into ``folder``."""
    if fmt.startswith("lmms"):
        path = folder / LMMS.name
        shutil.copyfile(LMMS, path)
        if fmt == "lmms-json-list":
            path.write_text(json.dumps([json.loads(line) for line in LMMS.read_text().splitlines()]))
        return "lmms-eval", path
    kind = "tsv" if fmt == "csv" else fmt
    (source,) = (VLMEVAL / kind / "loopmodel").glob(f"loopmodel_VGAU_maze_text_cot.{kind}")
    path = folder / f"loopmodel_VGAU_maze_text_cot.{fmt}"
    if fmt == "csv":
        with source.open(newline="", encoding="utf-8") as reader, path.open("w", newline="", encoding="utf-8") as out:
            csv.writer(out).writerows(csv.reader(reader, delimiter="\t"))
    else:
        shutil.copyfile(source, path)
    return "vlmevalkit", path


@st.composite
def spoiled(draw: st.DrawFn, fmt: str) -> tuple[str, Path, str]:
    harness, path = _original(fmt, Path(tempfile.mkdtemp(prefix="vgau-fuzz-convert-")))
    ways = [spoil_bytes(path), spoil_kind(path)] + ([spoil_json_lines(path)] * 3 if fmt == "lmms-jsonl" else [])
    return harness, path, draw(st.one_of(*ways))


def _convert_spoiled(references: ReferenceSet, example: tuple[str, Path, str]) -> None:
    harness, path, what = example
    before = resource.getrusage(resource.RUSAGE_SELF)
    try:
        submission, _ = convert(harness, [path], references, model="m")
    except VgauError as error:
        assert "\n" not in str(error) or "problem(s)" in str(error), (what, str(error)[:300])
    else:
        assert all(record.id in references.ids for record in submission.records), what
    finally:
        shutil.rmtree(path.parent, ignore_errors=True)
    after = resource.getrusage(resource.RUSAGE_SELF)
    assert after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime < CPU_SECONDS, what


@pytest.mark.parametrize("fmt", FORMATS)
def test_fuzz_smoke__convert_a_spoiled_harness_file(real_references: ReferenceSet, fmt: str) -> None:
    if fmt == "xlsx":
        pytest.importorskip("openpyxl")
    SMOKE(given(spoiled(fmt))(lambda example: _convert_spoiled(real_references, example)))()


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_fuzz_long__convert_a_spoiled_harness_file(real_references: ReferenceSet, fmt: str) -> None:
    if fmt == "xlsx":
        pytest.importorskip("openpyxl")
    LONG(given(spoiled(fmt))(lambda example: _convert_spoiled(real_references, example)))()
