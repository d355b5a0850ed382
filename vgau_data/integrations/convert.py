"""Turn the files other harnesses really write into our submission format.

lmms-eval 0.7.3 ``--log_samples`` writes ``<output_path>/<model>/<date>_samples_<task>.jsonl``,
one JSON object per line::

    {"doc_id": 3, "target": "maze-easy-0003", "filtered_resps": "<output>", "input": "...",
     "token_counts": [...], "doc_hash": "...", "optimal_accuracy": 1.0, ...}

There is no ``doc``, ``resps`` or ``arguments`` (its tracker drops them). The row is
``target`` when it is a dataset id (our task files put the id there), else ``doc["id"]``
(older logs), else ``doc_id`` as the position in the family's test split, with the family
taken from the task name ``vgau_<family>_<protocol>`` in the file name (or ``family=``).
The protocol comes from the same task name (or ``protocol=``). ``filtered_resps`` is one
string, or a list of strings when lmms-eval logged repeats (``-n K`` with our task files,
whose filter keeps every response): output k becomes run ``run + k``. The run's
``<date>_results.json`` beside the samples file gives the settings carried into the
submission header (``lmms_eval_settings``); when it says ``repeats`` > 1 and samples carry
fewer outputs, a warning names them. A request lmms-eval gave up on (``[LMMS_EVAL_REQUEST_FAILED ...``) becomes a
failed record (no output, the marker in ``meta.error``) and is named: lmms-eval counts it as 0 in its mean, so
``score --subset`` keeps it in the rows scored and gives lmms-eval's number; coverage counts it as unanswered. For the interactive
protocols the output is our episode JSON and the answer inside it is taken (anything else
there counts as no answer, as in the task's own ``process_results``); an episode played
under another reader (``VGAU_READER=authors``; its ``reader`` field) becomes a record of
that reader's variant (``oracle_vcot_authors``).

VLMEvalKit (``<work_dir>/<model>/<run>/<model>_<DATASET>.xlsx``, or ``.tsv`` / ``.json``
with ``PRED_FORMAT``, ``.csv`` by hand): the input TSV's columns minus ``image``, plus
``prediction``. The row is the ``id`` column (our TSV export has it), else ``index`` as the
position in one family, the family from the ``task`` column or from the dataset name
``VGAU_<family>_<protocol>`` in the file name (or ``family=``); the protocol from the same
name (or ``protocol=``). Its xlsx writer cuts cells at 32767 characters, so every
prediction of exactly that length is named in a warning (its final answer may be lost).
A prediction VLMEvalKit could not obtain (``Failed to obtain answer ...``) is a failed record,
like lmms-eval's failed requests (VLMEvalKit scores it as wrong). The run folder's ``status.json`` (VLMEvalKit's
commit, command line, prediction format) is carried into the header as well.

A file that cannot be mapped to rows without guessing is refused with a message naming
it. Input is read with bounds (``safe_io``, ``safe_tables``): regular files only, at most
``MAX_FILE_BYTES`` (what a submission may hold), samples streamed line by line; invalid
UTF-8, non-JSON or too deeply nested lines, samples of the wrong shape (``SAMPLE_SHAPE``),
unclosed CSV quotes, xlsx files that unpack too large and unknown ids are one-line
``SubmissionError``s naming the file and line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vgau_data import __version__, safe_io, safe_json, safe_tables
from vgau_data.errors import InputFileError, SubmissionError
from vgau_data.metrics.references import ReferenceSet
from vgau_data.metrics.submission import Submission, SubmissionHeader, SubmissionRecord
from vgau_data.protocols import is_interactive
from vgau_data.registry import FAMILIES
from vgau_data.runners.backends.urls import public_url
from vgau_data.schema import ANY, Int, Obj, OneOf, RecordError, Shape, Str, check

HARNESSES: tuple[str, ...] = ("lmms-eval", "vlmevalkit")
MAX_FILE_BYTES = 256 << 20
"""Largest input file read: as much as a submission may hold (a 600-row log with long reasoning is tens of MB)."""
MAX_LINE_BYTES = 16 << 20
SAMPLE_SHAPE: Shape = Obj(optional={"doc_id": OneOf(Int(0), Str(max_len=64)), "target": ANY, "doc": ANY,
                                    "filtered_resps": ANY, "resps": ANY})  # fmt: skip
"""What is read of an lmms-eval sample (``_outputs`` takes any shape of responses)."""
XLSX_CELL_LIMIT = 32767
"""Excel's cell limit: VLMEvalKit's xlsx writer cuts longer predictions to this length."""
INFER_FAILED = "Failed to obtain answer"
"""VLMEvalKit's prediction for a request its API model gave up on."""
_LMMS_TASK = re.compile(r"samples_(?P<task>[A-Za-z0-9_.-]+?)\.jsonl?$")
_VGAU_TASK = re.compile(rf"vgau_(?P<family>{'|'.join(FAMILIES)})_(?P<protocol>[a-z0-9_]+)")
_VLMEVAL_DATASET = re.compile(rf"VGAU_(?P<family>{'|'.join(FAMILIES)})(?:_(?P<protocol>[a-z0-9_]+?))?\.[a-z]+$")


@dataclass
class Converted:
    """The records read from harness files, and what was left out or looks wrong (named)."""

    records: list[SubmissionRecord] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    """What the harness recorded about the run (for the submission header's ``settings``)."""

    def keep_failed(self, row_id: str, protocol: str, run: int, reason: str) -> None:
        """Keep a row the harness failed to get an answer for as a failed record (no output, ``meta.error``),
        as the harness counts it (0 in its denominator), and name it."""
        self.records.append(SubmissionRecord(row_id, protocol, run, None, {"error": reason[:500]}))
        self.failed.append(f"{row_id} ({protocol}, run {run}): {reason[:120]}")

    def extend(self, other: Converted) -> None:
        self.records.extend(other.records)
        self.failed.extend(other.failed)
        self.warnings.extend(w for w in other.warnings if w not in self.warnings)
        for key, value in other.settings.items():
            merged = self.settings.setdefault(key, {})
            merged.update(value)


def _read_bytes(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    try:
        return safe_io.read_bytes(path, limit=limit, what="harness file")
    except InputFileError as error:
        raise SubmissionError(str(error)) from None


def _json_file(path: Path, what: str) -> dict[str, Any]:
    """A harness's own JSON object file (lmms-eval's results.json, VLMEvalKit's status.json), read
    within ``MAX_RESULTS_BYTES``; NaN and Infinity (Python's json writes them) read as null."""
    try:
        value = safe_json.loads(_read_bytes(path, MAX_RESULTS_BYTES), str(path), nan_as_null=True)
    except safe_json.JsonInputError as error:
        raise SubmissionError(f"{error}; is this {what}?") from None
    if not isinstance(value, dict):
        raise SubmissionError(f"{path}: not {what} (expected a JSON object)")
    return value


def _position_locator(references: ReferenceSet, family: str | None, where: str) -> Any:
    """``position -> row id`` within one family's rows (in dataset order)."""
    rows = [row.id for row in references.rows if row.task == family]

    def locate(position: object) -> str:
        if family is None:
            raise SubmissionError(
                f"{where}: rows are given by position only and the family is unknown; pass --family "
                "(or use the shipped task files / TSV export, which carry row ids)"
            )
        if isinstance(position, bool) or not isinstance(position, (int, str)):
            raise SubmissionError(f"{where}: row position {position!r:.40} is not an integer")
        try:
            index = int(position)
        except ValueError:
            raise SubmissionError(f"{where}: row reference {position!r:.60} is neither a dataset id nor a position") from None
        if not 0 <= index < len(rows):
            raise SubmissionError(f"{where}: position {index} is outside family {family!r} ({len(rows)} rows)")
        return rows[index]

    return locate


def _known_id(value: object, references: ReferenceSet) -> str | None:
    return value if isinstance(value, str) and value in references.ids else None


def lmms_task(path: str | Path) -> tuple[str | None, str | None, str | None]:
    """``(task, family, protocol)`` from a samples file name; None where it says nothing.

    Example:
        >>> lmms_task("logs/m/20261201_023253_samples_vgau_maze_oracle_vcot.jsonl")
        ('vgau_maze_oracle_vcot', 'maze', 'oracle_vcot')
        >>> lmms_task("samples_mytask.jsonl")
        ('mytask', None, None)
    """
    match = _LMMS_TASK.search(Path(path).name)
    if match is None:
        return None, None, None
    task = match["task"]
    ours = _VGAU_TASK.fullmatch(task)
    return (task, ours["family"], ours["protocol"]) if ours else (task, None, None)


def _lmms_lines(path: Path) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """``(line, sample)`` of a samples file: JSON lines (streamed), or one JSON list of samples."""
    try:
        with safe_io.open_regular(path, what="harness file") as handle:
            json_list = handle.read(4096).lstrip().startswith(b"[")
        if json_list:
            samples = safe_json.loads(_read_bytes(path), str(path))
            if not isinstance(samples, list):
                raise SubmissionError(f"{path}: expected a JSON list of samples")
            lines: Iterable[tuple[int, Any]] = enumerate(samples, start=1)
        else:
            lines = ((n, line) for n, line in safe_io.iter_lines(path, max_line=MAX_LINE_BYTES, max_bytes=MAX_FILE_BYTES,
                                                                 what="samples file") if line.strip())  # fmt: skip
        for number, item in lines:
            if isinstance(item, bytes):
                item = safe_json.loads(item, f"{path} line {number}")
            yield number, check(item, SAMPLE_SHAPE, f"{path} line {number}")
    except (InputFileError, safe_json.JsonInputError, RecordError) as error:
        raise SubmissionError(str(error)) from None


def _outputs(sample: Mapping[str, Any]) -> list[str | None]:
    """The logged output(s) of a sample: one per repeat."""
    value = sample.get("filtered_resps", sample.get("resps"))
    if isinstance(value, str) or value is None:
        return [value]
    if isinstance(value, list) and value and all(isinstance(v, list) for v in value):  # [[out]] per request
        value = [v[0] if v else None for v in value]
    if isinstance(value, list) and value:
        return [v if isinstance(v, str) else None for v in value]
    return [None]


def records_from_lmms_eval(
    path: str | Path,
    references: ReferenceSet,
    *,
    protocol: str | None = None,
    run: int = 0,
    family: str | None = None,
) -> Converted:
    """Records from one lmms-eval samples file (see the module docstring for the rules)."""
    from vgau_data.integrations.lmms_eval.hooks import REQUEST_FAILED, read_episode

    path = Path(path)
    _, task_family, task_protocol = lmms_task(path)
    protocol = protocol or task_protocol
    if protocol is None:
        raise SubmissionError(
            f"{path}: the file name names no vgau task (samples_vgau_<family>_<protocol>.jsonl); pass --protocol"
        )
    family = family or task_family
    interactive = is_interactive(protocol)
    converted = Converted()
    task, _, _ = lmms_task(path)
    expected_repeats = _lmms_run_settings(path, task, protocol, converted)
    short: list[str] = []
    for number, sample in _lmms_lines(path):
        where = f"{path} line {number}"
        doc = sample.get("doc") if isinstance(sample.get("doc"), Mapping) else {}
        row_id = _known_id(sample.get("target"), references) or _known_id(doc.get("id"), references)
        if row_id is None:
            target = sample.get("target")
            if isinstance(target, str) and re.fullmatch(r"[a-z]+-(easy|medium|hard)-\d+", target):
                raise SubmissionError(f"{where}: id {target!r} is not a row of the dataset {references.source!r}")
            row_id = _position_locator(references, family, where)(sample.get("doc_id"))
        outputs = _outputs(sample)
        if len(outputs) < expected_repeats:
            short.append(row_id)
        for k, output in enumerate(outputs):
            episode = read_episode(output) if interactive and isinstance(output, str) else None
            failure = output if isinstance(output, str) and output.startswith(REQUEST_FAILED) else None
            if episode is not None and episode.get("end") == "backend_error":
                failure = str(episode.get("error", "request failed"))
            if failure is not None:
                converted.keep_failed(row_id, protocol, run + k, failure)
                continue
            variant = protocol
            if interactive and isinstance(output, str):
                output = str(episode["answer"]) if episode else ""
                variant = _reader_variant(protocol, episode)
            converted.records.append(SubmissionRecord(row_id, variant, run + k, output))
    if short:
        converted.warnings.append(
            f"{path}: its results.json says repeats={expected_repeats} but {len(short)} sample(s) carry fewer "
            f"responses ({', '.join(short[:5])}{' ...' if len(short) > 5 else ''}): lmms-eval's default filter logs "
            "the first only (task files older than vgau_data's version-2 tasks); their other runs score as missing"
        )
    return converted


def _reader_variant(protocol: str, episode: Mapping[str, Any] | None) -> str:
    """The variant an episode's record belongs to: ``protocol``, suffixed by a non-default reader it names."""
    from vgau_data.readers import DEFAULT_READER, READERS

    reader = episode.get("reader", DEFAULT_READER) if episode else DEFAULT_READER
    if reader == DEFAULT_READER or reader not in READERS or protocol.endswith(f"_{reader}"):
        return protocol
    return f"{protocol}_{reader}"


def lmms_results_path(samples_path: str | Path) -> Path | None:
    """The ``<date>_results.json`` lmms-eval wrote beside ``<date>_samples_<task>.jsonl`` (None if the name has no date).

    Example:
        >>> lmms_results_path("logs/m/20261201_215544_samples_vgau_maze_direct.jsonl").name
        '20261201_215544_results.json'
    """
    path = Path(samples_path)
    date, found, _ = path.name.partition("_samples_")
    return path.with_name(f"{date}_results.json") if found and date else None


def _lmms_run_settings(samples: Path, task: str | None, protocol: str, converted: Converted) -> int:
    """Put what the run's results.json records into ``converted.settings``; return the task's repeats (1 if unknown)."""
    results_path = lmms_results_path(samples)
    if results_path is None or not results_path.is_file():
        converted.warnings.append(
            f"no lmms-eval results.json beside {samples} ({results_path.name if results_path else '<date>_results.json'}):"
            " its settings (temperature, max tokens, repeats) are not in the submission header, and repeats are unchecked"
        )
        return 1
    run, tasks = lmms_eval_settings(results_path)
    converted.settings.setdefault("lmms_eval", {})[results_path.name] = run
    if task is not None and task in tasks:
        converted.settings.setdefault("tasks", {})[task] = {"protocol": protocol, **tasks[task]}
        repeats = tasks[task].get("repeats")
        return repeats if isinstance(repeats, int) and not isinstance(repeats, bool) and repeats > 0 else 1
    converted.warnings.append(f"{results_path} has no config for task {task!r}: its settings are not in the header")
    return 1


LMMS_RUN_KEYS: tuple[str, ...] = (
    "lmms_eval_version", "date", "model_name", "model_source", "system_instruction_sha", "chat_template_sha",
    "fewshot_as_multiturn", "total_evaluation_time_seconds",
)
"""Run-level keys of lmms-eval 0.7.3's results.json carried into a submission (``lmms_eval_version`` is
"<branch>@<commit>" of the git repository lmms-eval ran in, "unknown@unknown" outside one: not its package version;
``lmms_eval_package``, the package version, comes from the task files' ``metadata.lmms_eval`` (version-2 tasks))."""
LMMS_CONFIG_KEYS: tuple[str, ...] = (
    "model", "model_args", "model_backend", "batch_size", "device", "limit", "offset", "gen_kwargs",
    "random_seed", "numpy_seed", "torch_seed", "fewshot_seed",
)
LMMS_CLI_KEYS: tuple[str, ...] = ("repeats", "reasoning_tags", "apply_chat_template", "max_tokens", "process_with_media")
LMMS_TASK_KEYS: tuple[str, ...] = ("output_type", "generation_kwargs", "repeats", "num_fewshot")
MAX_RESULTS_BYTES = 64 << 20
_FUNCTION_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_SECRET = re.compile(r"key|token|secret|passw|auth|cred", re.IGNORECASE)


def lmms_eval_settings(path: str | Path) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """``(run settings, {task: task settings})`` from an lmms-eval ``results.json``.

    Task settings: ``generation_kwargs`` (stop strings, temperature, max tokens as the task
    ran them), ``repeats``, ``output_type``, ``num_fewshot``, ``task_version``
    (``metadata.version``), ``lmms_eval_package`` (``metadata.lmms_eval``, also put in the run
    settings) and ``config_sha256``, the SHA-256 of the task's whole logged
    config (function addresses, the local ``dataset_path`` and the lmms-eval version left out, so the same task
    files hash alike on every machine). Secrets in ``model_args`` (``api_key=...``) are
    replaced by ``<redacted>``; long or deep values are cut (``_bounded``).

    Raises:
        SubmissionError: the file is too big, not UTF-8 or not a results.json object.
    """
    import hashlib

    results = _json_file(Path(path), "an lmms-eval results.json")
    configs = results.get("configs") if isinstance(results.get("configs"), dict) else {}
    config = results.get("config") if isinstance(results.get("config"), dict) else {}
    cli = config.get("resolved_cli_args") if isinstance(config.get("resolved_cli_args"), dict) else {}
    run = {key: results[key] for key in LMMS_RUN_KEYS if key in results}
    run.update({key: config[key] for key in LMMS_CONFIG_KEYS if key in config})
    run.update({f"cli_{key}": cli[key] for key in LMMS_CLI_KEYS if key in cli})
    if isinstance(run.get("model_args"), str):
        run["model_args"] = _redact_args(run["model_args"])
    tasks: dict[str, dict[str, Any]] = {}
    for task, task_config in list(configs.items())[:1000]:
        if not isinstance(task_config, dict):
            continue
        settings = {key: task_config[key] for key in LMMS_TASK_KEYS if key in task_config}
        metadata = task_config.get("metadata")
        if isinstance(metadata, dict) and "version" in metadata:
            settings["task_version"] = metadata["version"]
        if isinstance(metadata, dict) and isinstance(metadata.get("lmms_eval"), str):
            settings["lmms_eval_package"] = metadata["lmms_eval"]  # the package version that loaded our task files
            run.setdefault("lmms_eval_package", metadata["lmms_eval"])
            metadata = {k: v for k, v in metadata.items() if k != "lmms_eval"}
        hashed = {k: v for k, v in task_config.items() if k not in ("dataset_path", "dataset_kwargs", "metadata")}
        if "metadata" in task_config:
            hashed["metadata"] = metadata
        canonical = _FUNCTION_ADDRESS.sub("", json.dumps(hashed, sort_keys=True, ensure_ascii=True, default=str))
        settings["config_sha256"] = hashlib.sha256(canonical.encode("ascii")).hexdigest()
        tasks[str(task)[:200]] = _bounded(settings)
    return _bounded(run), tasks


def _redact_args(text: str) -> str:
    """``a=1,api_key=sk-x`` -> ``a=1,api_key=<redacted>`` (lmms-eval's comma-separated model_args);
    a URL value loses its credentials, query string and fragment (a gateway's ``?key=``).

    Example:
        >>> _redact_args("model_version=m,api_key=sk-123,base_url=http://u:p@h/v1?key=sk-456#f")
        'model_version=m,api_key=<redacted>,base_url=http://h/v1'
    """
    parts = []
    for part in text.split(","):
        key, equals, value = part.partition("=")
        if equals and _SECRET.search(key):
            part = f"{key}=<redacted>"
        elif equals and "://" in value:
            part = f"{key}={public_url(value)}"
        parts.append(part)
    return ",".join(parts)


def _bounded(value: Any, depth: int = 0) -> Any:
    """A JSON value cut to fit a submission header: strings 1000 chars, 100 items per container, depth 5."""
    if isinstance(value, str):
        return value[:1000]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if depth >= 5:
        return str(value)[:200]
    if isinstance(value, dict):
        return {str(k)[:200]: _bounded(v, depth + 1) for k, v in list(value.items())[:100]}
    if isinstance(value, (list, tuple)):
        return [_bounded(v, depth + 1) for v in list(value)[:100]]
    return str(value)[:200]


VLMEVAL_STATUS_KEYS: tuple[str, ...] = (
    "eval_id", "commit", "argv", "api_mode", "world_size", "pred_format", "eval_format", "mode", "model_name",
)
"""What VLMEvalKit's run.py records in ``<work_dir>/<model>/<eval_id>/status.json`` (at commit e8e78f05)."""


def vlmevalkit_settings(prediction_file: str | Path) -> dict[str, Any] | None:
    """The run settings in the ``status.json`` beside a VLMEvalKit prediction file (None when there is none).

    Secrets in ``argv`` (the value after ``--api-key``-like flags, or in ``KEY=value`` form) are redacted.
    """
    path = Path(prediction_file).with_name("status.json")
    if not path.is_file():
        return None
    status = _json_file(path, "VLMEvalKit's status.json")
    settings = {key: status[key] for key in VLMEVAL_STATUS_KEYS if key in status}
    if isinstance(settings.get("argv"), list):
        argv = [str(a) for a in settings["argv"]]
        settings["argv"] = [
            "<redacted>" if i and _SECRET.search(argv[i - 1]) and argv[i - 1].startswith("-") else _redact_args(a)
            for i, a in enumerate(argv)
        ]
    return _bounded(settings)


def read_prediction_table(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a VLMEvalKit prediction file (.xlsx, .tsv, .csv or .json) as dicts; empty cells are None."""
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        if suffix in (".tsv", ".csv"):
            return safe_tables.read_delimited(path, delimiter="\t" if suffix == ".tsv" else ",")
        if suffix == ".xlsx":
            return safe_tables.read_xlsx(path)
    except safe_tables.TableError as error:
        raise SubmissionError(str(error)) from None
    if suffix == ".json":
        try:
            rows = safe_json.loads(_read_bytes(path), str(path))
        except safe_json.JsonInputError as error:
            raise SubmissionError(str(error)) from None
        if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
            raise SubmissionError(f"{path}: expected VLMEvalKit's JSON predictions (a list of row objects)")
        return rows
    raise SubmissionError(f"{path}: expected a VLMEvalKit prediction file (.xlsx, .tsv, .csv or .json)")


def records_from_vlmevalkit(
    path: str | Path,
    references: ReferenceSet,
    *,
    protocol: str | None = None,
    run: int = 0,
    family: str | None = None,
) -> Converted:
    """Records from one VLMEvalKit prediction file (see the module docstring for the rules)."""
    path = Path(path)
    rows = read_prediction_table(path)
    if rows and "prediction" not in rows[0]:
        raise SubmissionError(f"{path}: no 'prediction' column; columns are {sorted(rows[0])[:20]}")
    from_name = _VLMEVAL_DATASET.search(path.name)
    protocol = protocol or (from_name["protocol"] if from_name else None)
    if protocol is None:
        raise SubmissionError(f"{path}: the file name names no protocol (<model>_VGAU_<family>_<protocol>.xlsx); pass --protocol")
    converted = Converted()
    status = vlmevalkit_settings(path)
    if status is not None:
        converted.settings["vlmevalkit"] = {str(path.parent.name): status}
    for number, row in enumerate(rows, start=2):  # line 1 is the column header
        where = f"{path} row {number}"
        row_id = _known_id(row.get("id"), references)
        if row_id is None and row.get("id") not in (None, ""):
            raise SubmissionError(f"{where}: id {str(row['id'])!r:.60} is not a row of the dataset {references.source!r}")
        if row_id is None:
            row_family = family or (row.get("task") if row.get("task") in FAMILIES else None)
            row_family = row_family or (from_name["family"] if from_name else None)
            row_id = _position_locator(references, row_family, where)(row.get("index"))
        prediction = row.get("prediction")
        output = None if prediction is None else str(prediction)
        if output is not None and output.startswith(INFER_FAILED):
            converted.keep_failed(row_id, protocol, run, output)
            continue
        if output is not None and len(output) == XLSX_CELL_LIMIT:
            converted.warnings.append(
                f"{where} ({row_id}): the prediction is exactly {XLSX_CELL_LIMIT} characters, Excel's cell limit; "
                "VLMEvalKit's xlsx writer may have cut off its final answer (rerun with PRED_FORMAT=tsv)"
            )
        converted.records.append(SubmissionRecord(row_id, protocol, run, output))
    return converted


READERS = {"lmms-eval": records_from_lmms_eval, "vlmevalkit": records_from_vlmevalkit}


def convert(
    harness: str,
    paths: Sequence[str | Path],
    references: ReferenceSet,
    *,
    model: str,
    protocol: str | None = None,
    run: int = 0,
    family: str | None = None,
    settings: Mapping[str, Any] | None = None,
) -> tuple[Submission, Converted]:
    """A submission from one or more harness files, and what was left out or warned about.

    Raises:
        SubmissionError: an unreadable file, a row that is not in the dataset or cannot be
            placed without guessing, or the same (row, protocol, run) twice (named).
    """
    if harness not in READERS:
        raise SubmissionError(f"unknown harness {harness!r}; choose from {', '.join(HARNESSES)}")
    converted = Converted()
    for path in paths:
        converted.extend(READERS[harness](path, references, protocol=protocol, run=run, family=family))
    _reject_duplicates(converted.records)
    header = SubmissionHeader(
        model=model,
        harness=f"{harness} (converted by vgau-data {__version__})",
        dataset_source=references.source,
        dataset_revision=references.revision,
        fingerprint=references.fingerprint,
        settings={**converted.settings, **(settings or {})},
    )
    return Submission(header, tuple(converted.records)), converted


def _reject_duplicates(records: Iterable[SubmissionRecord]) -> None:
    seen: set[tuple[str, str, int]] = set()
    duplicates = []
    for record in records:
        if record.key in seen:
            duplicates.append(f"{record.id} ({record.protocol}, run {record.run})")
        seen.add(record.key)
    if duplicates:
        raise SubmissionError(
            f"{len(duplicates)} row(s) appear twice in the input: {', '.join(duplicates[:20])}; "
            "give each run's files once, or separate runs with --run"
        )
