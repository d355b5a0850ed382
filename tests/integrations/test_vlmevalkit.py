"""VLMEvalKit: the TSV export, and the scoring its dataset class calls, round-tripped in VLMEvalKit's layout."""

from __future__ import annotations

import ast
import base64
import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from vgau_data.cli import main
from vgau_data.errors import VgauError
from vgau_data.integrations.convert import convert
from vgau_data.integrations.prompts import first_message
from vgau_data.integrations.vlmevalkit import dataset_class_file
from vgau_data.integrations.vlmevalkit.export import COLUMNS, dataset_name, export_tsvs
from vgau_data.integrations.vlmevalkit.scoring import evaluate_predictions
from vgau_data.metrics.baselines import oracle_output
from vgau_data.metrics.references import load_references
from vgau_data.metrics.results import protocol_results, score_submission

OUTPUTS = Path(__file__).resolve().parents[1] / "data" / "harness_outputs" / "vlmevalkit_e8e78f05"


def decode(cell: str) -> list[Image.Image]:
    """What VLMEvalKit does with an ``image`` cell: a list string is parsed, each item base64-decoded."""
    items = ast.literal_eval(cell) if cell.startswith("[") else [cell]
    return [Image.open(io.BytesIO(base64.b64decode(item))).convert("RGB") for item in items]


@pytest.fixture(scope="module")
def exported(bridge_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lmudata")
    assert main(["export", "vlmevalkit", str(bridge_dataset), "--out", str(out), "--families", "maze", "onet"]) == 0
    return out


def test_export__one_tsv_per_family_and_single_turn_protocol(
    exported: Path, decoded_rows: dict[str, list[dict[str, Any]]]
) -> None:
    import pandas as pd

    names = sorted(p.stem for p in exported.glob("*.tsv"))
    assert names == sorted(dataset_name(f, p) for f in ("maze", "onet") for p in ("direct", "text_cot", "oracle_gta"))
    for protocol in ("direct", "oracle_gta"):
        frame = pd.read_csv(exported / f"VGAU_onet_{protocol}.tsv", sep="\t")  # as VLMEvalKit's load() reads it
        assert tuple(frame.columns) == COLUMNS
        rows = decoded_rows["onet"]
        assert frame["id"].tolist() == [r["id"] for r in rows] and frame["index"].tolist() == [0, 1, 2]
        assert frame["category"].tolist() == [r["difficulty"] for r in rows]
        for cell, question, row in zip(frame["image"], frame["question"], rows):
            images, text = first_message(row, protocol)
            assert question == text
            assert [im.tobytes() for im in decode(cell)] == [im.tobytes() for im in images]  # pixel-identical


def test_export__refuses_interactive_protocols(bridge_dataset: Path, tmp_path: Path) -> None:
    with pytest.raises(VgauError, match="single-turn protocols only"):
        export_tsvs(str(bridge_dataset), tmp_path, protocols=["oracle_vcot"])


def write_predictions(tsv: Path, out: Path, fmt: str, references: Any) -> Path:
    """VLMEvalKit's prediction file: the TSV's columns minus image, plus prediction, written like its dump()."""
    import pandas as pd

    frame = pd.read_csv(tsv, sep="\t").drop(columns=["image"])
    by_id = references.by_id
    frame["prediction"] = [oracle_output(by_id[i]) if n % 2 == 0 else "no idea" for n, i in enumerate(frame["id"])]
    path = out / f"M_{tsv.stem}.{fmt}"
    if fmt == "xlsx":
        with pd.ExcelWriter(path, engine="xlsxwriter", engine_kwargs={"options": {"strings_to_formulas": False}}) as w:
            frame.to_excel(w, index=False)
    elif fmt == "tsv":
        frame.to_csv(path, sep="\t", index=False, encoding="utf-8", quoting=csv.QUOTE_ALL)
    else:
        path.write_text(json.dumps(frame.to_dict("records"), indent=4, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["xlsx", "tsv", "json"])
def test_vlmevalkit__class_scoring_and_converter_agree_on_its_prediction_files(
    bridge_dataset: Path, exported: Path, tmp_path: Path, fmt: str
) -> None:
    references = load_references(bridge_dataset)
    files = [write_predictions(tsv, tmp_path, fmt, references) for tsv in sorted(exported.glob("*.tsv"))]
    submission, converted = convert("vlmevalkit", files, references, model="M")
    assert not converted.failed and not converted.warnings
    results = protocol_results(score_submission(submission, references.subset(["maze", "onet"])))[2]
    for path in files:
        table = evaluate_predictions(path)
        assert path.with_name(f"{path.stem}_acc.csv").is_file()
        family, protocol = path.stem.split("_VGAU_")[1].split("_", 1)
        overall = table.set_index("split").loc[family]
        assert overall["optimal_accuracy"] == pytest.approx(results[protocol]["per_family"][family]["optimal_accuracy"])
        assert overall["n"] == 3 and 0 < overall["optimal_accuracy"] < 1


@pytest.mark.parametrize("fmt", ["xlsx", "tsv", "json"])
def test_vlmevalkit__scoring_reproduces_what_the_real_run_wrote(fmt: str, tmp_path: Path) -> None:
    import shutil

    import pandas as pd

    for path in sorted((OUTPUTS / fmt / "loopmodel").glob(f"loopmodel_VGAU_*.{fmt}")):
        written = pd.read_csv(path.with_name(f"{path.stem}_acc.csv"))
        table = evaluate_predictions(shutil.copy(path, tmp_path))
        pd.testing.assert_frame_equal(table.reset_index(drop=True), written, check_dtype=False)


def test_vlmevalkit__the_dataset_class_file_ships_with_the_package() -> None:
    text = Path(dataset_class_file()).read_text(encoding="utf-8")
    assert "class VGAUPuzzles(ImageBaseDataset)" in text and "evaluate_predictions(eval_file)" in text


# ---------------------------------------------------------------- a real VLMEvalKit run of the shipped class (e8e78f05)

RUN_V2 = OUTPUTS.parent / "vlmevalkit_e8e78f05_v2"
"""``run.py --config`` with its GPT4V class against a loopback server, on the build of ``lmms_eval_0.7.3_tasks_v2``."""


def test_vlmevalkit_summary__leads_with_optimal_then_feasible_accuracy() -> None:
    from vgau_data.integrations.vlmevalkit.scoring import primary_metrics

    (run_dir,) = (RUN_V2 / "loopmodel").iterdir()
    status = json.loads((run_dir / "status.json").read_text(encoding="utf-8"))
    for name, dataset in status["datasets"].items():
        headline = ["split=overall|optimal_accuracy", "split=overall|feasible_accuracy"]
        assert dataset["primary_metric"] == headline, name  # what VLMEvalKit recorded from the class
        assert list(primary_metrics(dataset["metrics"])) == headline  # from VLMEvalKit's own flattening
        # VLMEvalKit's own choice, alphabetical among the "overall" keys, would have been feasible accuracy
        overall = sorted(key for key in dataset["metrics"] if "overall" in key)
        assert overall[0] == "split=overall|feasible_accuracy"
    summary = (RUN_V2 / "run_summary.txt").read_text(encoding="utf-8")  # VLMEvalKit's printed Run Summary Report
    assert re.findall(r"split=overall\|\w+", summary) == headline * len(status["datasets"])
    assert primary_metrics({"split=overall|n": 3}) == {}
    text = Path(dataset_class_file()).read_text(encoding="utf-8")
    assert "def report_primary_metric(cls, metrics)" in text and "primary_metrics(metrics)" in text


def test_vlmevalkit_convert__carries_the_runs_status_and_given_settings(
    harness_v2_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (run_dir,) = (RUN_V2 / "loopmodel").iterdir()
    files = sorted(str(p) for p in run_dir.glob("loopmodel_VGAU_*.tsv"))
    out = tmp_path / "v.jsonl"
    assert main(["convert", "--from", "vlmevalkit", *files, "--dataset", str(harness_v2_dataset), "--model", "loop",
                 "--out", str(out), "--setting", "temperature=0", "--setting", "max_tokens=1024"]) == 0
    settings = json.loads(out.read_text(encoding="utf-8").splitlines()[0])["settings"]
    status = settings["vlmevalkit"][run_dir.name]
    assert (status["eval_id"], status["pred_format"], status["model_name"]) == (run_dir.name, "tsv", "loopmodel")
    assert status["argv"][:3] == ["../vlmevalkit/run.py", "--config", "cfg.json"] and "commit" in status
    assert settings["given"] == {"temperature": 0, "max_tokens": 1024}
    assert main(["convert", "--from", "vlmevalkit", *files, "--dataset", str(harness_v2_dataset), "--model", "loop",
                 "--out", str(out), "--setting", "no equals"]) == 2
    assert "--setting takes KEY=VALUE" in capsys.readouterr().err
