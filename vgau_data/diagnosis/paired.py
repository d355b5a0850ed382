"""UniG2U's paired comparison: a unified model against its own base VLM.

UniG2U-Bench (section 3.1) separates what unification does to understanding from what
an explicit intermediate image does, by comparing a unified model with the VLM it was
built on, on the same rows and prompts::

    Delta_Direct = Acc(unified, Direct) - Acc(base VLM, Direct)
    Delta_GtA    = Acc(unified, GtA)    - Acc(base VLM, Direct)

Here Direct is the ``direct`` protocol and GtA the unified model's ``self_gta`` (it draws
its own aid, then answers). Either side is a ``results.json`` (``vgau-data score`` /
``run`` / ``merge``) or a model folder of ``vgau-data run``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from vgau_data import safe_io, safe_json
from vgau_data.diagnosis.collect import ALL, Accuracy, DiagnosisError, pool, pooled_accuracy
from vgau_data.diagnosis.grid import Row, render_grid
from vgau_data.diagnosis.tables import MISSING, accuracy_cell
from vgau_data.errors import InputFileError
from vgau_data.metrics.results import RESULT_SHAPE
from vgau_data.registry import FAMILIES
from vgau_data.schema import RecordError, check

DIRECT: Final = "direct"
GTA: Final = "self_gta"
MAX_RESULTS_BYTES: Final = 64 * 1024 * 1024


def load_results(where: str | Path, runs_dir: Path | None = None) -> tuple[str, dict[str, dict[str, Any]]]:
    """``(model, {protocol: result})`` from a ``results.json``, a model folder, or a model
    folder's name under ``runs_dir``.

    Raises:
        DiagnosisError: none of those, or a file that is not one model's results.
    """
    path = Path(where)
    if not path.exists() and runs_dir is not None and (Path(runs_dir) / str(where)).exists():
        path = Path(runs_dir) / str(where)
    if path.is_dir() and (path / "records").is_dir():
        from vgau_data.runners.report import collect_records, score_records

        scored, _, _ = score_records(collect_records(path))
        return _one_model(scored, path)
    if path.is_file():
        try:
            data = safe_json.loads(safe_io.read_bytes(path, limit=MAX_RESULTS_BYTES, what="results file"), str(path),
                                   nan_as_null=True)  # fmt: skip
        except (InputFileError, safe_json.JsonInputError) as error:
            raise DiagnosisError(f"{error}; give a results.json or a model folder") from None
        return _one_model(data, path)
    raise DiagnosisError(f"{where!r} is neither a results.json nor a model folder with records"
                         + (f" (also looked under {runs_dir})" if runs_dir is not None else ""))  # fmt: skip


def _one_model(data: Any, path: Path) -> tuple[str, dict[str, dict[str, Any]]]:
    if not isinstance(data, dict) or len(data) != 1:
        raise DiagnosisError(f"{path}: expected the results of one model ({{model: {{protocol: ...}}}})")
    ((model, body),) = data.items()
    if not isinstance(body, dict):
        raise DiagnosisError(f"{path}: the results of {model!r} are not an object")
    protocols = {k: v for k, v in body.items() if k != "META" and isinstance(v, dict)}
    try:
        for protocol, result in protocols.items():
            check(result, RESULT_SHAPE, f"{path}: {str(model)[:60]}/{protocol[:40]}")
    except RecordError as error:
        raise DiagnosisError(str(error)) from None
    return str(model), protocols


def _accuracies(
    protocols: Mapping[str, Mapping[str, Any]], protocol: str, families: Sequence[str], difficulties: Sequence[str]
) -> dict[str, Accuracy]:
    result = protocols.get(protocol)
    if result is None:
        return {}
    cells = {f: a for f in families if (a := pooled_accuracy(result, f, difficulties)) is not None}
    pooled = pool(cells.values())
    return {**cells, ALL: pooled} if pooled is not None else cells


def paired_table(
    unified: tuple[str, Mapping[str, Mapping[str, Any]]],
    base: tuple[str, Mapping[str, Mapping[str, Any]]],
    *,
    difficulties: Sequence[str] = ("easy",),
    families: Sequence[str] | None = None,
    width: int = 160,
) -> str:
    """The paired table: per family, the base VLM's Direct, then the unified model's Direct
    and GtA with Delta_Direct and Delta_GtA in parentheses (points).

    Raises:
        DiagnosisError: the base VLM has no ``direct`` results, or the unified model neither
            ``direct`` nor ``self_gta``.
    """
    (unified_name, unified_protocols), (base_name, base_protocols) = unified, base
    present = {
        f for r in (*unified_protocols.values(), *base_protocols.values()) for f in r.get("per_family_difficulty", {})
    }
    shown = [f for f in FAMILIES if f in (families or present)]
    base_direct = _accuracies(base_protocols, DIRECT, shown, difficulties)
    if not base_direct:
        raise DiagnosisError(
            f"the base VLM {base_name!r} has no direct results on these rows: run it with --protocol direct"
        )
    unified_direct = _accuracies(unified_protocols, DIRECT, shown, difficulties)
    unified_gta = _accuracies(unified_protocols, GTA, shown, difficulties)
    if not unified_direct and not unified_gta:
        raise DiagnosisError(
            f"the unified model {unified_name!r} has neither direct nor self_gta results on these rows: "
            "run it with --protocol direct self_gta"
        )
    rows = []
    for family in [*shown, ALL]:
        reference = base_direct.get(family)
        rows.append(Row("all families" if family == ALL else family, [
            accuracy_cell(reference, None),
            accuracy_cell(unified_direct.get(family), reference) if family in unified_direct else MISSING,
            accuracy_cell(unified_gta.get(family), reference) if family in unified_gta else MISSING,
        ]))  # fmt: skip
    groups = [("base VLM", ["Direct"]), ("unified model", ["Direct (ΔDirect)", "GtA (ΔGtA)"])]
    title = (f"Paired comparison (UniG2U): {unified_name} against its base VLM {base_name}; optimal accuracy (%), "
             f"in parentheses the difference to the base VLM's Direct; {'/'.join(difficulties)} rows")  # fmt: skip
    return render_grid(title, rows, groups, corner="family", width=width)
