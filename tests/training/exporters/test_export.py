"""The export loop, for every exporter: layout, determinism, resumption, refusals and the CLI."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.training.conftest import TRAINING_STATES, training_row, write_training_folder
from vgau_data.cli import main
from vgau_data.errors import DatasetError
from vgau_data.registry import FAMILIES
from vgau_data.safe_io import is_temporary
from vgau_data.training.exporters import EXPORTERS, ExportError, export_training, get_exporter
from vgau_data.training.exporters.base import MANIFEST_NAME, PLAN_NAME, ExportOptions
from vgau_data.training.traces.record import TraceError

SOURCES = ("training_dir", "benchmark_dir")


def _export(source: Path, name: str, out: Path, **options: object) -> dict:
    export_training(source, get_exporter(name), out, progress=False, **options)  # type: ignore[arg-type]
    return json.loads((out / MANIFEST_NAME).read_text())


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("name", list(EXPORTERS))
def test_every_exporter_writes_one_shard_per_family_split(
    name: str, source: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    folder = request.getfixturevalue(source)
    manifest = _export(folder, name, tmp_path / "out")
    split = "train" if source == "training_dir" else "test"
    suffix = get_exporter(name).suffix
    families = TRAINING_STATES if source == "training_dir" else FAMILIES  # the benchmark build holds every family
    assert [s["path"] for s in manifest["shards"]] == [
        f"{family}/{split}/{split}-00000-of-00001{suffix}" for family in families
    ]
    assert all(s["rows"] > 0 for s in manifest["shards"])
    assert manifest["format"] == name and manifest["consumer"] == get_exporter(name).consumer
    assert not [p for p in (tmp_path / "out").rglob("*") if is_temporary(p)], "no temporary file stays behind"


@pytest.mark.parametrize("name", list(EXPORTERS))
def test_the_same_rows_give_the_same_bytes(name: str, training_dir: Path, tmp_path: Path) -> None:
    first = _export(training_dir, name, tmp_path / "a")
    second = _export(training_dir, name, tmp_path / "b")
    assert [s["sha256"] for s in first["shards"]] == [s["sha256"] for s in second["shards"]]


def test_shards_split_rows_in_order_and_a_killed_export_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = {"maze": [training_row("maze", TRAINING_STATES["maze"], i) for i in range(5)]}
    source = write_training_folder(tmp_path / "src", rows, ())
    clean = _export(source, "verl", tmp_path / "clean", shard_rows=2)
    assert [s["rows"] for s in clean["shards"]] == [2, 2, 1]
    exporter = get_exporter("verl")
    calls = {"n": 0}
    original = type(exporter).convert

    def dying(self, row, index, options):  # the process "dies" while converting the fourth row
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        yield from original(self, row, index, options)

    monkeypatch.setattr(type(exporter), "convert", dying)
    out = tmp_path / "resumed"
    with pytest.raises(KeyboardInterrupt):
        export_training(source, exporter, out, shard_rows=2, progress=False)
    assert (out / PLAN_NAME).is_file() and not (out / MANIFEST_NAME).exists()
    done = sorted(p.name for p in out.rglob("*.parquet"))
    assert done == ["train-00000-of-00003.parquet"] and not [p for p in out.rglob("*") if is_temporary(p)]
    monkeypatch.setattr(type(exporter), "convert", original)
    calls["n"] = 0
    assert _export(source, "verl", out, shard_rows=2)["shards"] == clean["shards"]


def test_an_export_folder_of_other_options_is_refused(training_dir: Path, tmp_path: Path) -> None:
    _export(training_dir, "trl", tmp_path / "out", traces="text_cot")
    with pytest.raises(ExportError, match="other inputs or options"):
        _export(training_dir, "trl", tmp_path / "out", traces="visual_cot")


def test_options_that_do_not_apply_are_refused(training_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="drop --traces"):
        _export(training_dir, "verl", tmp_path / "a", traces="text_cot")
    with pytest.raises(ExportError, match="RL formats only"):
        _export(training_dir, "trl", tmp_path / "b", protocol="direct")
    with pytest.raises(ExportError, match="--protocol must be one of"):
        _export(training_dir, "verl", tmp_path / "c", protocol="oracle_vcot")
    with pytest.raises(ExportError, match="unknown export format"):
        get_exporter("axolotl")


def test_stored_traces_are_read_and_missing_ones_computed(training_dir: Path, tmp_path: Path) -> None:
    """The training folder stores visual_cot: exporting it reads the column; aug_visual_cot is computed."""
    from vgau_data.training.exporters.source import Source

    source = Source(training_dir)
    group = source.select(["maze"])[0]
    row = next(source.rows(group, 0, 1, ["visual_cot", "aug_visual_cot"]))
    assert set(row.traces) == {"visual_cot"}
    stored, _ = row.trace("visual_cot")
    computed, images = row.trace("aug_visual_cot")
    assert stored[0]["content"][-1]["text"] != computed[0]["content"][-1]["text"]
    assert len(images) == len(stored) // 2 + 2


def _corrupt_copy(training_dir: Path, tmp_path: Path, change: dict) -> Path:
    table = pq.read_table(training_dir / "maze" / "train-00000-of-00001.parquet")
    for name, value in change.items():
        index = table.schema.get_field_index(name)
        table = table.set_column(index, name, pa.array([value] * table.num_rows, type=table.schema.field(name).type))
    path = tmp_path / "bad" / "maze" / "train-00000-of-00001.parquet"
    path.parent.mkdir(parents=True)
    pq.write_table(table, path)
    return path.parents[1]


def test_a_malformed_stored_trace_is_one_line_error(
    training_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    source = _corrupt_copy(training_dir, tmp_path, {"trace_visual_cot": '{"messages": [{"role": "user"}]}'})
    with pytest.raises(TraceError, match="message 0"):
        _export(source, "llamafactory", tmp_path / "out", traces="visual_cot")
    assert main(["export-training", str(source), "--format", "trl", "--traces", "visual_cot", "--out",
                 str(tmp_path / "cli"), "--no-progress"]) == 2  # fmt: skip
    error = capsys.readouterr().err.strip()
    assert error.startswith("vgau-data export-training: error: message 0") and "\n" not in error


def test_links_and_foreign_files_are_refused(training_dir: Path, tmp_path: Path) -> None:
    root = tmp_path / "linked"
    (root / "maze").mkdir(parents=True)
    os.symlink(training_dir / "maze" / "train-00000-of-00001.parquet", root / "maze" / "train-00000-of-00001.parquet")
    with pytest.raises(DatasetError, match="link"):
        _export(root, "verl", tmp_path / "out")
    broken = tmp_path / "broken" / "maze"
    broken.mkdir(parents=True)
    (broken / "train-00000-of-00001.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(DatasetError, match="not a readable Parquet file"):
        _export(broken.parent, "verl", tmp_path / "out2")
    (tmp_path / "linked_family").mkdir()
    os.symlink(training_dir / "maze", tmp_path / "linked_family" / "maze")
    with pytest.raises(DatasetError, match="is a link"):
        _export(tmp_path / "linked_family", "verl", tmp_path / "out4")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetError, match="holds no"):
        _export(tmp_path / "empty", "verl", tmp_path / "out3")


def test_a_shard_without_the_row_columns_is_named(tmp_path: Path) -> None:
    path = tmp_path / "src" / "maze" / "train-00000-of-00001.parquet"
    path.parent.mkdir(parents=True)
    pq.write_table(pa.table({"id": ["a"]}), path)
    with pytest.raises(DatasetError, match="lacks the columns"):
        _export(path.parents[1], "verl", tmp_path / "out")


def test_cli_exports_and_says_how_to_read_it(
    benchmark_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "lf"
    code = main(["export-training", str(benchmark_dir), "--format", "llamafactory", "--traces", "aug_visual_cot",
                 "--families", "maze", "sokoban", "--out", str(out), "--no-progress"])  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "wrote 2 shards of llamafactory" in printed and f"--dataset_dir {out}" in printed
    assert set(json.loads((out / "dataset_info.json").read_text())) == {"vgau_maze_test", "vgau_sokoban_test"}


@pytest.mark.parametrize("name", list(EXPORTERS))
def test_exports_load_with_datasets_by_config(name: str, training_dir: Path, tmp_path: Path) -> None:
    from datasets import load_dataset

    out = tmp_path / f"{name}_export"  # datasets caches a folder by its base name and config
    _export(training_dir, name, out)
    dataset = load_dataset(str(out), "klotski", split="train")
    assert len(dataset) >= 1
    if get_exporter(name).suffix == ".parquet":
        assert set(dataset.features) == set(get_exporter(name).features(ExportOptions(traces=None, protocol="")))


def test_stored_images_that_are_not_png_and_unreadable_solutions_are_refused(
    training_dir: Path, tmp_path: Path
) -> None:
    source = _corrupt_copy(
        training_dir, tmp_path / "a", {"trace_visual_cot_images": [{"bytes": b"GIF89a", "path": None}]}
    )
    with pytest.raises(TraceError, match="not a PNG image"):
        _export(source, "bagel_think", tmp_path / "out_a")
    source = _corrupt_copy(training_dir, tmp_path / "b", {"solution": "[1, 2"})
    with pytest.raises(DatasetError, match="does not read as a maze answer"):
        _export(source, "trl", tmp_path / "out_b", traces="text_cot")


def test_a_row_drawn_in_another_style_gets_its_computed_traces_in_that_style(tmp_path: Path) -> None:
    from datasets import Dataset, Features, Image, Value

    from vgau_data.registry import get_family
    from vgau_data.render_styles import OOD_STYLE
    from vgau_data.rendering import png_bytes
    from vgau_data.training.exporters.source import Source

    spec = get_family("maze").styled(OOD_STYLE)
    row = training_row("maze", TRAINING_STATES["maze"], 0)
    state = spec.from_json(row["state"])
    row |= {"image": {"bytes": png_bytes(spec.render(state)), "path": None}, "render_style": OOD_STYLE.to_json()}
    features = {name: Value("string") for name in row} | {"seed": Value("int64"), "optimal_length": Value("int32")}
    path = tmp_path / "rows" / "maze" / "train-00000-of-00001.parquet"
    path.parent.mkdir(parents=True)
    Dataset.from_list([row], features=Features(features | {"image": Image()})).to_parquet(str(path))
    source = Source(path.parents[1])
    (read,) = source.rows(source.select(["maze"])[0], 0, 1, ["visual_cot"])
    assert read.render_style == OOD_STYLE and read.spec is spec
    _, images = read.trace("visual_cot")
    assert images[0] == read.image == png_bytes(spec.render(state))
    table = pq.read_table(path)
    bad = table.set_column(table.schema.get_field_index("render_style"), "render_style", pa.array(['{"palette":"x"}']))
    pq.write_table(bad, path)
    with pytest.raises(DatasetError, match="not a render style"):
        next(source.rows(source.select(["maze"])[0], 0, 1))


@pytest.fixture(scope="module")
def styled_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``vgau-data generate`` of maze: train with --render-variety, validation in the benchmark style, validation_ood."""
    out = tmp_path_factory.mktemp("styled") / "rows"
    common = ["--families", "maze", "--n", "2", "--lengths", "1-4", "--workers", "1", "--no-progress", "--out", str(out)]
    for extra in (["--render-variety"], ["--split", "validation"], ["--split", "validation_ood"]):
        assert main(["generate", *common, *extra]) == 0
    return out


def _source_rows(folder: Path) -> dict[str, dict]:
    """The generated rows by id."""
    return {row["id"]: row for path in folder.glob("*/*.parquet") for row in pq.read_table(path).to_pylist()}


def _metadata(out: Path, name: str) -> list[dict]:
    """Every output row's metadata, where its format keeps it: verl's ``extra_info``, else the row itself."""
    rows = []
    for path in sorted(out.glob(f"*/*/*{get_exporter(name).suffix}")):
        if path.suffix == ".parquet":
            rows += pq.read_table(path).to_pylist()
        else:
            rows += [json.loads(line) for line in path.read_text().splitlines()]
    return [row["extra_info"] if name == "verl" else row for row in rows]


@pytest.mark.parametrize("name", list(EXPORTERS))
def test_every_format_carries_each_row_s_render_style_and_null_for_a_row_without_one(
    name: str, styled_dir: Path, tmp_path: Path
) -> None:
    from datasets import load_dataset

    from vgau_data.render_styles import OOD_STYLE

    source = _source_rows(styled_dir)
    out = tmp_path / name
    _export(styled_dir, name, out)
    metadata = _metadata(out, name)
    assert {row["id"] for row in metadata} == set(source)
    assert all(row["render_style"] == source[row["id"]].get("render_style") for row in metadata)
    by_split: dict[str, set] = {}
    for row in metadata:  # ids are <family>-<split>-<band>-<index>
        by_split.setdefault(row["id"].split("-")[1], set()).add(row["render_style"])
    assert by_split["validation"] == {None} and by_split["validation_ood"] == {OOD_STYLE.to_json()}
    assert None not in by_split["train"] and len(by_split["train"]) > 1
    for path in out.glob("*/*/*.parquet"):  # one string column in every shard, the all-null one too
        schema = pq.read_schema(path)
        field = schema.field("extra_info").type.field("render_style") if name == "verl" else schema.field("render_style")
        assert field.type == pa.string()
    loaded = load_dataset(str(out), "maze")  # every split of the config, as a trainer's loader reads them
    assert set(loaded) == {"train", "validation", "validation_ood"}


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("name", list(EXPORTERS))
def test_an_export_of_benchmark_style_rows_has_no_render_style_field(
    name: str, source: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    _export(request.getfixturevalue(source), name, out)
    assert all("render_style" not in row for row in _metadata(out, name))
    for path in out.glob("*/*/*.parquet"):
        assert "render_style" not in pq.read_schema(path).to_string()


@pytest.mark.parametrize("name", ["verl", "openrlhf"])
def test_an_rl_prompt_of_a_styled_row_without_its_aid_shows_the_aid_in_the_row_s_style(
    name: str, styled_dir: Path, tmp_path: Path
) -> None:
    """The rows store no oracle_aid: the export draws it, in the row's style, not the benchmark's."""
    import base64

    from vgau_data.oracle_aids import oracle_aid
    from vgau_data.registry import get_family
    from vgau_data.render_styles import RenderStyle
    from vgau_data.rendering import png_bytes

    source = _source_rows(styled_dir)
    out = tmp_path / name
    _export(styled_dir, name, out, protocol="oracle_gta")
    if name == "verl":
        table = [row for path in out.glob("maze/*/*.parquet") for row in pq.read_table(path).to_pylist()]
        rows = [(row["extra_info"], [image["bytes"] for image in row["images"]]) for row in table]
    else:
        lines = [json.loads(line) for path in out.glob("maze/*/*.jsonl") for line in path.read_text().splitlines()]
        rows = [(line, [base64.b64decode(uri.split(",", 1)[1]) for uri in line["images"]]) for line in lines]
    assert len(rows) == len(source)
    for meta, (_board, aid) in rows:
        spec = get_family("maze")
        if meta["render_style"] is not None:
            spec = spec.styled(RenderStyle.from_json(meta["render_style"]))
        assert aid == png_bytes(oracle_aid(spec, spec.from_json(source[meta["id"]]["state"])))


@pytest.mark.parametrize(("change", "message"), [
    ({"optimal_length": -5}, r"train-00000-of-00001.parquet row '.*': optimal_length -5 is not a length maze generates"),
    ({"optimal_length": 29}, "does not solve the state in optimal_length=29 moves"),
    ({"state": "{not json"}, r"train-00000-of-00001.parquet row '.*': the state does not read as a maze state"),
])  # fmt: skip
def test_columns_a_trainer_would_meet_are_checked_before_export(
    change: dict, message: str, training_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    source = _corrupt_copy(training_dir, tmp_path, change)
    code = main(["export-training", str(source), "--format", "openrlhf", "--out", str(tmp_path / "out"),
                 "--no-progress"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert re.search(message, err), err
