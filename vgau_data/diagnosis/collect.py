"""A runs folder -> the diagnosis: accuracy and generation fidelity per condition and family.

Accuracy is scored from the records over the rows that were asked for (every requested
row counts; a missing one fails: ``score_records`` without a dataset), then restricted to the chosen difficulties (the paper
diagnoses easy cases) and pooled over them: optimal and feasible accuracy, mean over
runs (the paper averages 3). Fidelity is the mean over every image a condition's
episodes used on those rows (an image used in three runs counts three times), with the
measures cached per model folder (``fidelity_cache``).
"""

from __future__ import annotations

import json
import logging
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from vgau_data.diagnosis.conditions import ORACLE, Condition, answerer_fingerprint, classify
from vgau_data.diagnosis.fidelity_cache import CACHE_NAME, ImageEntry, Measured, measure
from vgau_data.errors import VgauError
from vgau_data.oracle_aids import PURPOSES
from vgau_data.registry import FAMILIES

if TYPE_CHECKING:
    from vgau_data.runners.perceptual import Lpips

logger = logging.getLogger(__name__)

ALL: Final = "all"
"""The pseudo-family of rows pooled over every family shown."""
_SHA256: Final = re.compile(r"[0-9a-f]{64}")


class DiagnosisError(VgauError, ValueError):
    """Nothing to diagnose, or inputs that do not fit together (the message says what to run)."""


@dataclass(frozen=True, slots=True)
class Accuracy:
    """Optimal and feasible accuracy over ``n`` rows, mean over ``runs`` runs."""

    optimal: float
    feasible: float
    n: int
    runs: int


@dataclass(frozen=True, slots=True)
class ImageUse:
    """One use of an image in an episode of a condition, with what the episode answered.

    ``answer_feasible`` is the stated answer's verdict (set for VR, whose drawn route is
    read beside it); ``optimal_length`` the row's optimum.
    """

    condition: Condition
    family: str
    difficulty: str
    entry: ImageEntry
    answer_feasible: bool | None = None
    optimal_length: int | None = None


@dataclass(frozen=True, slots=True)
class Fidelity:
    """Mean generation fidelity of a condition's images (None where nothing was measured).

    ``route_*`` (self-VR on maze, sokoban, path): the share of drawings whose red route
    replays to the goal, and in the optimum's number of steps; ``answer_feasible`` the
    share of the same episodes whose stated answer is feasible (a drawing with no stroke
    from the start is no route: ``fidelity.routes``).
    """

    images: int
    cell_agreement: float | None
    exact: float | None
    ssim: float | None
    lpips: float | None = None
    lpips_images: int = 0
    routes: int = 0
    route_feasible: float | None = None
    route_optimal: float | None = None
    answer_feasible: float | None = None
    unreadable: int = 0


@dataclass(slots=True)
class Diagnosis:
    """Everything the report prints and plots.

    ``accuracy`` and ``fidelity`` map a condition to ``{family: value}`` (with ``ALL``
    pooling every family of ``families``); reference conditions (Text-CoT) have accuracy only.
    """

    difficulties: tuple[str, ...]
    families: list[str]
    accuracy: dict[Condition, dict[str, Accuracy]] = field(default_factory=dict)
    fidelity: dict[Condition, dict[str, Fidelity]] = field(default_factory=dict)
    lpips: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)

    def conditions(self) -> list[Condition]:
        """Every condition with accuracy, in table order."""
        return sorted(self.accuracy, key=Condition.sort_key)

    def answerers(self) -> list[str]:
        """Answering models in the order first seen (the columns of the paper's layout)."""
        return list(dict.fromkeys(c.answerer for c in self.accuracy))

    def reference(self, answerer: str, family: str) -> Accuracy | None:
        """The answerer's Text-CoT accuracy on ``family`` (None when it was not run)."""
        for condition, cells in self.accuracy.items():
            if condition.is_reference and condition.answerer == answerer:
                return cells.get(family)
        return None

    def to_json(self) -> dict[str, Any]:
        """Every number of the report, JSON-able (``vgau-data diagnose --out``)."""
        conditions = []
        for condition in self.conditions():
            accuracy = {}
            for family, value in self.accuracy[condition].items():
                reference = None if condition.is_reference else self.reference(condition.answerer, family)
                accuracy[family] = {**asdict(value), "delta_to_text_cot": None if reference is None
                                    else value.optimal - reference.optimal}  # fmt: skip
            conditions.append({
                "answerer": condition.answerer,
                "source": asdict(condition.source),
                "paradigm": condition.paradigm,
                "context": condition.context,
                "accuracy": accuracy,
                "fidelity": {f: asdict(v) for f, v in self.fidelity.get(condition, {}).items()},
            })  # fmt: skip
        return {"difficulties": list(self.difficulties), "families": self.families, "lpips": self.lpips,
                "warnings": self.warnings, "conditions": conditions}  # fmt: skip


def pooled_accuracy(result: Mapping[str, Any], family: str, difficulties: Sequence[str]) -> Accuracy | None:
    """A scored variant's accuracy on ``family`` rows of ``difficulties`` (None without such rows).

    Example:
        >>> cell = lambda acc, n: {"optimal_accuracy": acc, "feasible_accuracy": acc, "n": n}
        >>> result = {"runs": 3, "per_family_difficulty": {"maze": {"easy": cell(0.5, 2), "hard": cell(0.0, 2)}}}
        >>> pooled_accuracy(result, "maze", ["easy", "hard"])
        Accuracy(optimal=0.25, feasible=0.25, n=4, runs=3)
    """
    cells = [result.get("per_family_difficulty", {}).get(family, {}).get(d) for d in difficulties]
    cells = [c for c in cells if c and c.get("n")]
    n = sum(int(c["n"]) for c in cells)
    if not n:
        return None
    optimal = sum(float(c["optimal_accuracy"]) * int(c["n"]) for c in cells) / n
    feasible = sum(float(c["feasible_accuracy"]) * int(c["n"]) for c in cells) / n
    return Accuracy(optimal, feasible, n, int(result.get("runs", 1)))


def pool(values: Iterable[Accuracy]) -> Accuracy | None:
    """Row-weighted pool of several families' accuracies (None for none)."""
    values = list(values)
    n = sum(v.n for v in values)
    if not n:
        return None
    return Accuracy(
        sum(v.optimal * v.n for v in values) / n,
        sum(v.feasible * v.n for v in values) / n,
        n,
        max(v.runs for v in values),
    )


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(uses: Sequence[ImageUse], measured: Measured) -> Fidelity:
    """Mean fidelity over ``uses`` (each use counts once; unreadable images are counted apart).

    Example:
        >>> summarize([], Measured()).images
        0
    """
    found = [(use, measured.records[use.entry.key]) for use in uses if use.entry.key in measured.records]
    routes = [(use, m) for use, m in found if m.get("route_feasible") is not None]
    decoded = [m for _, m in found if m["cell_agreement"] is not None]  # None: the family's cells are not decoded
    lpips = [float(m["lpips"]) for _, m in found if _lpips_matches(m, measured.lpips)]
    return Fidelity(
        images=len(found),
        cell_agreement=_mean([float(m["cell_agreement"]) for m in decoded]),
        exact=_mean([float(bool(m["cells_exact"])) for m in decoded]),
        ssim=_mean([float(m["ssim"]) for _, m in found]),
        lpips=_mean(lpips),
        lpips_images=len(lpips),
        routes=len(routes),
        route_feasible=_mean([float(bool(m["route_feasible"])) for _, m in routes]),
        route_optimal=_mean(
            [float(bool(m["route_feasible"]) and m.get("route_length") == use.optimal_length) for use, m in routes]
        ),
        answer_feasible=_mean(
            [float(bool(use.answer_feasible)) for use, _ in routes if use.answer_feasible is not None]
        ),
        unreadable=len(uses) - len(found),
    )


def _lpips_matches(record: Mapping[str, Any], model: Mapping[str, Any] | None) -> bool:
    """The record's LPIPS was computed with the weights in use now."""
    if model is None or "lpips" not in record:
        return False
    return all(record.get(f"lpips_{k}") == model[k] for k in ("trunk_sha256", "heads_sha256"))


def fidelity_by_condition(
    uses: Sequence[ImageUse], measured: Measured, families: Sequence[str]
) -> dict[Condition, dict[str, Fidelity]]:
    """``summarize`` per condition and family, and over all ``families`` (``ALL``)."""
    grouped: dict[Condition, dict[str, list[ImageUse]]] = defaultdict(lambda: defaultdict(list))
    for use in uses:
        if use.family in families:
            grouped[use.condition][use.family].append(use)
            grouped[use.condition][ALL].append(use)
    return {
        condition: {family: summarize(group, measured) for family, group in by_family.items()}
        for condition, by_family in grouped.items()
    }


@dataclass(slots=True)
class ConditionRun:
    """The records of one condition in one model folder: its scored result and final records."""

    condition: Condition
    model_dir: Path
    variant: str
    result: dict[str, Any]
    records: list[dict[str, Any]]
    fingerprint: str | None = None
    """The dataset build the records were run on."""


def gather(runs_dir: Path, warnings: list[str]) -> list[ConditionRun]:
    """Every condition found under ``runs_dir`` (model folders with records), scored.

    A condition found in two folders keeps the first (folder name order) and warns.
    """
    from vgau_data.runners.records import read_records
    from vgau_data.runners.report import collect_records, model_dirs, score_records

    folders = model_dirs(Path(runs_dir))
    if not folders:
        raise DiagnosisError(
            f"no model folders with records under {runs_dir}; run `vgau-data run --out {runs_dir}` first"
        )
    found: dict[Condition, ConditionRun] = {}
    fingerprints: dict[str, set[str]] = defaultdict(set)
    for folder in folders:
        collected = collect_records(folder)
        scored, score_warnings, _ = score_records(collected)
        ((_, body),) = scored.items()
        warnings.extend(dict.fromkeys(f"{folder.name}: {w}" for w in score_warnings))
        for variant in collected.variants():
            headers = (read_records(path, inside=folder)[0]
                       for path in sorted((folder / "records" / variant).glob("run-*.jsonl")))
            header = next((h for h in headers if h is not None), None)
            if header is None:  # asked for, never written: nothing to diagnose (merge reports it)
                continue
            try:
                condition = classify(header, variant)
            except ValueError as error:
                warnings.append(f"{folder.name}/{variant} is left out: {error}")
                continue
            if condition is None or variant not in body:
                continue
            if (fingerprint := answerer_fingerprint(header)) is not None:
                fingerprints[condition.answerer].add(fingerprint)
            if condition in found:
                warnings.append(
                    f"{folder.name}/{variant} repeats {condition.row_title} of {condition.answerer} "
                    f"({condition.source.title}) already read from {found[condition].model_dir.name}; it is left out"
                )
                continue
            records = [r for (v, _), group in collected.by_variant_run.items() if v == variant for r in group.values()]
            found[condition] = ConditionRun(condition, folder, variant, body[variant], records,
                                            header.get("dataset_fingerprint"))  # fmt: skip
    for answerer, seen in sorted(fingerprints.items()):
        if len(seen) > 1:
            warnings.append(
                f"runs of {len(seen)} different models answer as {answerer!r} (fingerprints "
                f"{', '.join(sorted(f[:8] for f in seen))}): they share its column and its Text-CoT"
            )
    return list(found.values())


def accuracy_by_condition(
    runs: Sequence[ConditionRun], families: Sequence[str], difficulties: Sequence[str]
) -> dict[Condition, dict[str, Accuracy]]:
    """Per condition: the pooled accuracy per family shown, and over all of them (``ALL``)."""
    table: dict[Condition, dict[str, Accuracy]] = {}
    for run in runs:
        cells = {f: a for f in families if (a := pooled_accuracy(run.result, f, difficulties)) is not None}
        if cells:
            table[run.condition] = {**cells, ALL: pool(cells.values())}  # type: ignore[dict-item]
    return table


def families_of(runs: Sequence[ConditionRun], chosen: Sequence[str] | None) -> list[str]:
    """The families to show: ``chosen``, else every family with records, in registry order."""
    present = {f for run in runs for f in run.result.get("per_family_difficulty", {})}
    if chosen:
        return [f for f in FAMILIES if f in chosen]
    return [f for f in FAMILIES if f in present]


def diagnose(
    runs_dir: Path,
    *,
    difficulties: Sequence[str] = ("easy",),
    families: Sequence[str] | None = None,
    lpips: Lpips | None = None,
    workers: int = 1,
    progress: bool = True,
) -> Diagnosis:
    """Read, score and measure everything under ``runs_dir``.

    Args:
        runs_dir: the ``--out`` folder of ``vgau-data run`` (model folders with records).
        difficulties: the buckets to report (the paper's diagnosis: easy).
        families: families to show (default: every family with records).
        lpips: an LPIPS scorer; without it LPIPS is left out (never guessed).
        workers: processes for the cell and SSIM measures.
        progress: show progress bars.

    Raises:
        DiagnosisError: no records, or no condition of the diagnosis among them.
    """
    warnings: list[str] = []
    runs = gather(Path(runs_dir), warnings)
    shown = families_of(runs, families)
    diagnosis = Diagnosis(tuple(difficulties), shown, warnings=warnings)
    diagnosis.accuracy = accuracy_by_condition(runs, shown, difficulties)
    if not diagnosis.accuracy:
        raise DiagnosisError(
            f"no Text-CoT, oracle or self-generation records of {'/'.join(difficulties)} "
            f"{', '.join(shown) or 'any family'} rows under {runs_dir}"
        )
    warnings.extend(comparability_warnings(runs, diagnosis))
    uses_by_folder: dict[Path, list[ImageUse]] = defaultdict(list)
    for run in runs:
        uses_by_folder[run.model_dir].extend(image_uses(run, shown, difficulties))
    uses: list[ImageUse] = []
    measured = Measured(lpips=lpips.describe() if lpips is not None else None)
    for folder, folder_uses in sorted(uses_by_folder.items()):
        if not folder_uses:
            continue
        found = measure([u.entry for u in folder_uses], folder / CACHE_NAME, lpips=lpips, workers=workers,
                        progress=progress, desc=folder.name[:24])  # fmt: skip
        measured.records.update(found.records)
        measured.problems.update(found.problems)
        measured.computed += found.computed
        if found.ignored:
            warnings.append(
                f"{folder.name}/{CACHE_NAME}: {found.ignored} line(s) not sealed by this machine, malformed or "
                "stale were ignored; those images were measured again"
            )
        uses.extend(folder_uses)
    for key, problem in sorted(measured.problems.items())[:5]:
        warnings.append(f"an image could not be measured ({key[:12]}): {problem}")
    if len(measured.problems) > 5:
        warnings.append(f"... {len(measured.problems) - 5} more images could not be measured")
    diagnosis.fidelity = fidelity_by_condition(uses, measured, shown)
    diagnosis.lpips = measured.lpips
    for condition, cells in diagnosis.accuracy.items():
        if condition.source == ORACLE and condition not in diagnosis.fidelity:
            diagnosis.fidelity[condition] = {family: exact_fidelity(measured.lpips is not None) for family in cells}
    return diagnosis


def comparability_warnings(runs: Sequence[ConditionRun], diagnosis: Diagnosis) -> list[str]:
    """What makes a delta compare different rows: folders run on different dataset builds,
    or a condition whose rows are not its Text-CoT's (``--limit``, a shard left out)."""
    found = []
    builds: dict[str, list[str]] = defaultdict(list)
    for run in runs:
        builds[str(run.fingerprint)[:12]].append(run.model_dir.name)
    if len(builds) > 1:
        listed = "; ".join(f"{fp}: {', '.join(sorted(set(names)))}" for fp, names in sorted(builds.items()))
        found.append(f"the model folders were run on different dataset builds ({listed}): deltas compare other rows")
    for condition, cells in diagnosis.accuracy.items():
        if condition.is_reference:
            continue
        differ = [
            f"{family} {value.n} vs {reference.n}"
            for family, value in cells.items()
            if family != ALL and (reference := diagnosis.reference(condition.answerer, family)) is not None
            and reference.n != value.n
        ]  # fmt: skip
        if differ:
            found.append(
                f"{condition.answerer}: {condition.row_title} ({condition.source.title}) and its Text-CoT scored "
                f"different numbers of rows ({', '.join(differ)}): run both on the same rows"
            )
    return found


def exact_fidelity(with_lpips: bool) -> Fidelity:
    """The fidelity of images that are our own renderings of the truth (the oracle protocols
    show the dataset's aids and states, and record no image files): exact by construction."""
    return Fidelity(images=0, cell_agreement=1.0, exact=1.0, ssim=1.0, lpips=0.0 if with_lpips else None)


def image_uses(run: ConditionRun, families: Sequence[str], difficulties: Sequence[str]) -> list[ImageUse]:
    """The images a condition's episodes used on the rows shown (finished episodes only)."""
    return [
        use
        for record in run.records
        if record.get("task") in families and record.get("difficulty") in difficulties and record.get("error") is None
        for use in _record_images(run, record)
    ]


def _record_images(run: ConditionRun, record: Mapping[str, Any]) -> list[ImageUse]:
    """The generated or substituted images one episode record lists (``images``), as uses.

    Entries that are not well formed (a records file edited by hand) or name no file (a
    failed generation) are skipped; the image files themselves are checked when read.
    """
    listed = record.get("images")
    if not isinstance(listed, list) or not listed:
        return []
    from vgau_data.runners.image_store import image_path

    verdict = record.get("verdict") if isinstance(record.get("verdict"), Mapping) else {}
    feasible = verdict.get("feasible") if run.condition.paradigm == "vr" else None
    uses = []
    for image in listed:
        if not isinstance(image, Mapping) or not _SHA256.fullmatch(str(image.get("sha256"))):
            continue
        if image.get("purpose") not in PURPOSES or not isinstance(image.get("state"), str):
            continue
        entry = ImageEntry(image_path(run.model_dir, image["sha256"]), image["sha256"], str(record["task"]),
                           image["purpose"], image["state"], root=run.model_dir)  # fmt: skip
        uses.append(ImageUse(run.condition, entry.family, str(record.get("difficulty")), entry,
                             None if feasible is None else bool(feasible), _optimal_length(record)))  # fmt: skip
    return uses


def _optimal_length(record: Mapping[str, Any]) -> int | None:
    """The row's optimum, from the reference the record was scored against."""
    try:
        return int(json.loads(record["reference"])["optimal_length"])
    except (KeyError, TypeError, ValueError):
        return None
