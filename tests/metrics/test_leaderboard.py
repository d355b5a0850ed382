"""The leaderboard Space: rows from results files, and the page as headless Chromium renders it."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.external import require_tool
from tests.families import SHIPPED
from tests.metrics.conftest import HARNESS_OUTPUTS
from vgau_data.cli import main
from vgau_data.errors import SubmissionError
from vgau_data.integrations.convert import convert
from vgau_data.metrics.baselines import make_baseline
from vgau_data.metrics.leaderboard import build_leaderboard, leaderboard_rows
from vgau_data.metrics.references import ReferenceSet
from vgau_data.metrics.results import score_submission
from vgau_data.puzzles.base import DIFFICULTIES
from vgau_data.registry import FAMILIES

CHROMIUM_INSTALL = "apt-get install -y chromium  (or set $VGAU_CHROMIUM)"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run")


@pytest.fixture(scope="module")
def results_files(real_references: ReferenceSet, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """A converted lmms-eval run (five protocols, mixed scores) and the oracle baseline (two protocols)."""
    out = tmp_path_factory.mktemp("results")
    files = sorted((HARNESS_OUTPUTS / "lmms_eval_0.7.3" / "test-model").glob("*_samples_vgau_*.jsonl"))
    submission, _ = convert("lmms-eval", files, real_references, model="test-model")
    oracle = make_baseline("oracle", real_references, protocols=["direct", "oracle_gta"], model="oracle")
    paths = []
    for name, sub in (("test-model", submission), ("oracle", oracle)):
        path = out / f"{name}.json"
        path.write_text(json.dumps(score_submission(sub, real_references)), encoding="utf-8")
        paths.append(path)
    return paths


def test_leaderboard__rows_follow_table_1(results_files: list[Path]) -> None:
    results = json.loads(results_files[0].read_text(encoding="utf-8"))
    rows = leaderboard_rows(results, "test-model.json")
    assert [row["protocol"] for row in rows] == ["direct", "text_cot", "oracle_gta", "oracle_vcot", "oracle_aug_vcot"]
    body = results["test-model"]
    for row in rows:
        result = body[row["protocol"]]
        assert row["cells"]["optimal"]["overall"] == result["optimal_accuracy"]
        assert row["cells"]["feasible"]["maze/easy"] == result["per_family_difficulty"]["maze"]["easy"]["feasible_accuracy"]
        assert row["dataset"]["fingerprint"] == body["META"]["dataset"]["fingerprint"]


def test_leaderboard__refuses_the_same_model_and_protocol_twice_and_non_results(
    results_files: list[Path], tmp_path: Path
) -> None:
    with pytest.raises(SubmissionError, match=r"'oracle' / direct appears in both oracle.json and oracle.json"):
        build_leaderboard([results_files[1], results_files[1]], tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text('{"m": {"direct": {}}}', encoding="utf-8")
    with pytest.raises(SubmissionError, match="bad.json: model 'm' has no META section"):
        build_leaderboard([bad], tmp_path)


class TableReader(HTMLParser):
    """The leaderboard table's body rows as ``[{model, protocol, cells: {col: text}, fingerprint}]``."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, Any]] = []
        self.charts: list[str] = []
        self.bars = 0
        self._in_body = False
        self._cell: dict[str, str] | None = None
        self._texts: list[str] = []
        self._details: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body and "data-model" in attributes:
            self.rows.append({"model": attributes["data-model"], "protocol": attributes["data-protocol"], "cells": {},
                              "status": attributes.get("data-status"), "details": [], "per_family": {}})
        elif tag == "tr" and self._in_body:  # the details row under the last table row
            self._details = self.rows[-1]["details"]
        elif tag in ("dt", "dd") and self._details is not None:
            self._cell = {"details": tag}
            self._texts = []
        elif tag == "span" and "data-cell" in attributes and self._details is not None:
            self._cell = {"per_family": attributes["data-cell"] or ""}
            self._texts = []
        elif tag == "td" and self._in_body:
            self._cell = {key: value or "" for key, value in attributes.items()}
            self._texts = []
        elif tag == "div" and attributes.get("class") == "chart":
            self.charts.append(attributes["data-protocol"] or "")
        elif tag == "rect":
            self.bars += 1

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._texts.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self._in_body = False
        elif tag == "tr":
            self._details = None
        elif tag in ("dt", "dd") and self._cell is not None and self._details is not None:
            self._details.append("".join(self._texts))
            self._cell = None
        elif tag == "span" and self._cell is not None and "per_family" in self._cell:
            self.rows[-1]["per_family"][self._cell["per_family"]] = "".join(self._texts)
            self._cell = None
        elif tag == "td" and self._cell is not None:
            if "data-col" in self._cell:
                self.rows[-1]["cells"][self._cell["data-col"]] = "".join(self._texts)
            if "data-fingerprint" in self._cell:
                self.rows[-1]["fingerprint"] = self._cell["data-fingerprint"]
            self._cell = None


def chromium(page: Path, *arguments: str) -> str:
    binary = require_tool("VGAU_CHROMIUM", fallback="chromium", install=CHROMIUM_INSTALL)
    with tempfile.TemporaryDirectory(prefix="vgau-chromium-") as profile:
        done = subprocess.run(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *arguments, page.as_uri() if "#" not in str(page)
             else str(page)],
            capture_output=True, text=True, timeout=120, check=False,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def expected_text(value: float | None) -> str:
    return "\u2013" if value is None else f"{100 * value:.1f}"


@pytest.mark.parametrize("metric", ["optimal", "feasible"])
def test_leaderboard__chromium_renders_the_results_numbers(
    results_files: list[Path], tmp_path: Path, metric: str
) -> None:
    out = tmp_path / "space"
    assert main(["leaderboard", *map(str, results_files), "--out", str(out)]) == 0
    page = f"{(out / 'index.html').as_uri()}#sort=overall&dir=asc&metric={metric}"
    reader = TableReader()
    reader.feed(chromium(Path(page), "--dump-dom", "--virtual-time-budget=5000"))
    assert len(reader.rows) == 7
    results = {}
    for path in results_files:
        results.update(json.loads(path.read_text(encoding="utf-8")))
    for shown in reader.rows:
        body = results[shown["model"]]
        result = body[shown["protocol"]]
        assert shown["fingerprint"] == body["META"]["dataset"]["fingerprint"]
        assert shown["cells"]["overall"] == expected_text(result[f"{metric}_accuracy"])
        for family in SHIPPED:  # the results are of a build of the package's families
            for level in DIFFICULTIES:
                cell = result["per_family_difficulty"][family][level][f"{metric}_accuracy"]
                assert shown["cells"][f"{family}/{level}"] == expected_text(cell), (shown["model"], family, level)
    overall = [float(row["cells"]["overall"]) for row in reader.rows]
    assert overall == sorted(overall) and overall[0] < overall[-1]  # the hash's ascending sort was applied
    assert reader.charts == ["direct", "text_cot", "oracle_gta", "oracle_vcot", "oracle_aug_vcot"]
    assert reader.bars == 7 * (len(FAMILIES) + 1)  # a bar per registered family (the toy one too) and overall


@pytest.fixture(scope="module")
def v2_results_files(harness_v2_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Results of real lmms-eval runs: ``-n 2`` over every row (failed requests left out) and ``--limit 2``."""
    from tests.metrics.conftest import HARNESS_V2
    from vgau_data.metrics.references import load_references

    references = load_references(harness_v2_dataset)
    out = tmp_path_factory.mktemp("v2_results")
    paths = {}
    for name, model in (("full", "lmms-n2"), ("limit", "lmms-limit2")):
        (folder,) = (HARNESS_V2 / name).iterdir()
        submission, _ = convert("lmms-eval", sorted(folder.glob("*_samples_vgau_*.jsonl")), references, model=model)
        paths[name] = out / f"{name}.json"
        paths[name].write_text(json.dumps(score_submission(submission, references)), encoding="utf-8")
    return paths


def test_leaderboard__runs_std_coverage_and_settings_of_real_lmms_eval_runs(
    v2_results_files: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "space"
    assert main(["leaderboard", *map(str, v2_results_files.values()), "--out", str(out)]) == 0
    rows = {(row["model"], row["protocol"]): row for row in json.loads((out / "leaderboard.json").read_text())}
    full = rows[("lmms-n2", "text_cot")]
    results = json.loads(v2_results_files["full"].read_text())["lmms-n2"]["text_cot"]
    assert full["runs"] == 2 and full["std"]["optimal"] == results["optimal_accuracy_std"] > 0
    assert full["coverage"] == {"answered": [21, 21], "rows": 24} and full["status"] == "incomplete"  # 3 failed
    limited = rows[("lmms-limit2", "direct")]
    assert limited["coverage"] == {"answered": [12], "rows": 24} and limited["status"] == "incomplete"
    details = dict(map(tuple, full["details"]))
    assert details["tasks.generation_kwargs.until"] == "[] (6 tasks)"
    assert details["tasks.repeats"] == "2 (6 tasks)" and details["tasks.task_version"] == "2 (6 tasks)"
    assert details["rows answered per run"] == "[21, 21] of 24"
    assert any(key.startswith("lmms_eval.") and key.endswith(".cli_repeats") for key in details)

    reader = TableReader()
    reader.feed(chromium(out / "index.html", "--dump-dom", "--virtual-time-budget=5000"))
    shown = {(row["model"], row["protocol"]): row for row in reader.rows}
    assert len(shown) == 5 + 2
    text_cot = shown[("lmms-n2", "text_cot")]
    assert text_cot["cells"]["std"] == expected_text(results["optimal_accuracy_std"])
    assert text_cot["cells"]["coverage"] == "21/24 incomplete" and text_cot["status"] == "incomplete"
    assert shown[("lmms-limit2", "direct")]["cells"]["coverage"] == "12/24 incomplete"
    assert shown[("lmms-limit2", "direct")]["cells"]["std"] == "\u2013"  # one run
    pairs = dict(zip(text_cot["details"][::2], text_cot["details"][1::2]))
    assert pairs["tasks.generation_kwargs.until"] == "[] (6 tasks)" and pairs["harness"].startswith("lmms-eval")
    # the details give every family's cells with their spread over the two runs
    assert set(text_cot["per_family"]) == {key for family in results["per_family"]
                                           for key in (family, *(f"{family}/{level}" for level in DIFFICULTIES))}  # fmt: skip
    for family, levels in results["per_family_difficulty"].items():
        for level, cell in levels.items():
            shown_cell = text_cot["per_family"][f"{family}/{level}"]
            assert shown_cell == " / ".join(f"{expected_text(cell[f'{m}_accuracy'])}\u00b1{expected_text(cell[f'{m}_accuracy_std'])}"
                                            for m in ("optimal", "feasible")), (family, level, shown_cell)  # fmt: skip
    assert any(cell["optimal_accuracy_std"] > 0 for levels in results["per_family_difficulty"].values()
               for cell in levels.values())  # a cell that did spread  # fmt: skip
    one_run = shown[("lmms-limit2", "direct")]["per_family"]
    assert one_run and all("\u00b1" not in text for text in one_run.values())


def test_leaderboard__a_subset_and_a_complete_submission_are_told_apart(
    references: ReferenceSet, tmp_path: Path
) -> None:
    oracle = make_baseline("oracle", references, protocols=["direct"], model="oracle")
    half = make_baseline("oracle", references, protocols=["direct"], model="half")
    half = type(half)(half.header, half.records[: len(half.records) // 2])
    paths = []
    for name, submission, subset in (("oracle", oracle, False), ("half", half, True)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(score_submission(submission, references, subset=subset)), encoding="utf-8")
    build_leaderboard(paths, tmp_path / "space")
    rows = {row["model"]: row for row in json.loads((tmp_path / "space" / "leaderboard.json").read_text())}
    assert rows["oracle"]["status"] == "complete" and rows["half"]["status"] == "subset"
    assert ["scope", "subset: only the rows each protocol answered count (not comparable)"] in rows["half"]["details"]
    reader = TableReader()
    reader.feed(chromium(tmp_path / "space" / "index.html", "--dump-dom", "--virtual-time-budget=5000"))
    shown = {row["model"]: row for row in reader.rows}
    n = len(references.rows)
    assert shown["oracle"]["cells"]["coverage"] == f"{n}/{n}" and shown["oracle"]["status"] == "complete"
    assert shown["half"]["cells"]["coverage"] == f"{n // 2}/{n} subset"


def test_leaderboard__details_are_text_whatever_a_submission_says(references: ReferenceSet, tmp_path: Path) -> None:
    from dataclasses import replace

    hostile = "<img src=x onerror=alert(1)></script><b>"
    oracle = make_baseline("oracle", references, protocols=["direct"], model="m")
    oracle = replace(oracle, header=replace(oracle.header, settings={hostile: hostile, "tasks": {"t": {"protocol": "direct", "x": hostile}}}))
    path = tmp_path / "m.json"
    path.write_text(json.dumps(score_submission(oracle, references)), encoding="utf-8")
    build_leaderboard([path], tmp_path / "space")
    reader = TableReader()
    dom = chromium(tmp_path / "space" / "index.html", "--dump-dom", "--virtual-time-budget=5000")
    reader.feed(dom)
    (row,) = reader.rows
    assert hostile in row["details"] and "tasks.x" in row["details"]
    assert "<img src=x" not in dom.split("</table>")[0]  # only as escaped text in the table


def test_leaderboard__chromium_screenshot(results_files: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "space"
    build_leaderboard(results_files, out)
    shot = tmp_path / "leaderboard.png"
    chromium(out / "index.html", f"--screenshot={shot}", "--window-size=1500,1100", "--virtual-time-budget=5000")
    from PIL import Image

    with Image.open(shot) as image:
        assert image.size == (1500, 1100)
        assert len(image.convert("RGB").getcolors(maxcolors=1 << 16) or []) > 20  # more than a blank page


# ------------------------------------------------------------------ hostile results (issue 19, class 1)

XSS = "document.documentElement.setAttribute('data-xss', '{}')"
HOSTILE_NAMES = (
    "<!--<script>",
    f"</script><script>{XSS.format('script')}</script>",
    f"<img src=x onerror=\"{XSS.format('img')}\">",
    f"<svg onload=\"{XSS.format('svg')}\"></svg>",
    "line\u2028separator\u2029paragraph",
    "&amp; &lt;b&gt; {{title}} /*LEADERBOARD_DATA*/null {{script_hash}}",
    "]]></title><!-- -->",
)
HOSTILE_TITLE = f"<script>{XSS.format('title')}</script></title><!--"


class DomReader(HTMLParser):
    """Every element's attributes, and the page's title text (the head's, not the charts'), as Chromium left them."""

    def __init__(self) -> None:
        super().__init__()
        self.attributes: list[dict[str, str | None]] = []
        self.title = ""
        self._in_title = False
        self._titles = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attributes.append(dict(attrs))
        self._titles += tag == "title"
        self._in_title = tag == "title" and self._titles == 1

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False


@pytest.fixture(scope="module")
def hostile_results(real_references: ReferenceSet, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """One results file per hostile model name, scored as `vgau-data score` scores, plus one
    holding what older files or hand edits hold: NaN, Infinity and a 400-digit integer."""
    out = tmp_path_factory.mktemp("hostile_results")
    paths = []
    for index, name in enumerate(HOSTILE_NAMES):
        submission = make_baseline("oracle", real_references, protocols=["direct"], model=name)
        submission = dataclasses.replace(submission, header=dataclasses.replace(
            submission.header, harness=name, settings={name: name, "direct": {"gen": {"stop": [name]}}}))
        path = out / f"hostile-{index}.json"
        path.write_text(json.dumps(score_submission(submission, real_references)), encoding="utf-8")
        paths.append(path)
    odd = score_submission(make_baseline("empty", real_references, model="odd numbers"), real_references)
    body = odd["odd numbers"]["direct"]
    body["optimal_accuracy"], body["feasible_accuracy"] = float("nan"), float("inf")
    body["runs"] = 10**400
    body["per_family"]["maze"]["optimal_accuracy"] = -float("inf")
    odd["odd numbers"]["META"]["settings"] = {"temperature": float("nan")}
    path = out / "odd.json"
    path.write_text(json.dumps(odd), encoding="utf-8")  # Python writes NaN, Infinity and the integer as they are
    assert "NaN" in path.read_text() and "Infinity" in path.read_text()
    return [*paths, path]


def test_leaderboard__hostile_strings_are_escaped_once_and_never_interpreted(
    hostile_results: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "space"
    build_leaderboard(hostile_results, out, title=HOSTILE_TITLE)
    page = (out / "index.html").read_text(encoding="utf-8")
    data = page.split('<script id="leaderboard-data" type="application/json">', 1)[1].split("</script>", 1)[0]
    assert not any(mark in data for mark in ("<", ">", "&", "\u2028", "\u2029"))
    embedded = json.loads(data)
    assert [row["model"] for row in embedded["rows"]] == [*HOSTILE_NAMES, "odd numbers"]
    assert embedded["title"] == HOSTILE_TITLE
    odd = embedded["rows"][-1]
    assert odd["runs"] is None and odd["cells"]["optimal"]["overall"] is None
    assert odd["cells"]["feasible"]["overall"] is None and odd["cells"]["optimal"]["maze"] is None
    assert "<title>&lt;script&gt;" in page and page.count("<script") == 2
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "# &lt;script&gt;" in card and "<script>" not in card.split("---", 2)[2]
    json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))  # standard JSON: no NaN/Infinity


def test_leaderboard__chromium_runs_no_script_from_results_and_shows_every_row(
    hostile_results: list[Path], results_files: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "space"
    assert main(["leaderboard", *map(str, [*results_files, *hostile_results]), "--out", str(out),
                 "--title", HOSTILE_TITLE]) == 0  # fmt: skip
    dom = chromium(Path(f"{(out / 'index.html').as_uri()}#sort=model&dir=asc&metric=%E0%A4%A"),
                   "--dump-dom", "--virtual-time-budget=5000")  # fmt: skip
    reader, table = DomReader(), TableReader()
    reader.feed(dom)
    table.feed(dom)
    assert not [attrs for attrs in reader.attributes if "data-xss" in attrs]
    assert reader.title == HOSTILE_TITLE
    assert any(attrs.get("data-rendered") == "true" for attrs in reader.attributes)
    shown = sorted(row["model"] for row in table.rows)
    assert shown == sorted([*["test-model"] * 5, *["oracle"] * 2, *HOSTILE_NAMES, "odd numbers"])
    odd = next(row for row in table.rows if row["model"] == "odd numbers")
    assert odd["cells"]["overall"] == "\u2013"


def test_leaderboard__a_results_file_that_is_not_a_plain_file_is_one_line(tmp_path: Path) -> None:
    from tests.bounded import run_cli_bounded

    link = tmp_path / "results.json"
    link.symlink_to("/dev/zero")
    run_cli_bounded(["leaderboard", str(link), "--out", str(tmp_path / "out")]).assert_one_line_error(
        "not a regular file"
    )


def test_leaderboard__links_to_the_paper_the_dataset_and_the_metric(results_files: list[Path], tmp_path: Path) -> None:
    from html.parser import HTMLParser

    from vgau_data.metrics.leaderboard import build_leaderboard

    build_leaderboard(results_files, tmp_path / "space")
    page = (tmp_path / "space" / "index.html").read_text(encoding="utf-8")
    links: list[str] = []

    class Links(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            links.extend(value or "" for name, value in attrs if tag == "a" and name == "href")

    Links().feed(page)
    assert {"https://arxiv.org/abs/2608.22174", "https://huggingface.co/datasets/vgau/puzzles",
            "https://huggingface.co/spaces/vgau/solver_accuracy"} <= set(links)
