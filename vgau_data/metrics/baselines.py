"""Reference submissions made from the dataset alone: ``oracle``, ``random`` and ``empty``.

- ``oracle``: the stored optimal solution of each row, as full answer text. The
  ``solution`` column holds only the answer's JSON payload, so it is read back with
  the family's ``answer_from_payload`` and re-written with ``format_answer``: the
  output is exactly the canonical answer text and nothing is re-solved. It must score 100% optimal.
- ``random``: ``family.random_answer(state, rng)`` (legal-looking random steps) with
  ``rng = default_rng(SeedSequence([seed, crc32(id), run]))``, so it is reproducible per
  row and independent of row order. It should score near 0 on medium and hard.
- ``empty``: an empty output for every row; it must score 0.

Newcomers use these to try ``vgau-data score`` without a model; tests use them as the
fixed points of the scorer.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Literal

import numpy as np

from vgau_data import __version__
from vgau_data.errors import VgauError
from vgau_data.metrics.references import DatasetRow, ReferenceSet
from vgau_data.metrics.submission import Submission, SubmissionHeader, SubmissionRecord
from vgau_data.puzzles.base import AnswerError
from vgau_data.registry import FAMILIES

BaselineKind = Literal["oracle", "random", "empty"]
BASELINE_KINDS: tuple[str, ...] = ("oracle", "random", "empty")


def oracle_output(row: DatasetRow) -> str:
    """The canonical answer text of the row's stored solution.

    Raises:
        VgauError: the stored solution does not read back as an answer (a broken dataset).
    """
    family = FAMILIES[row.task]
    try:
        answer = family.answer_from_payload(row.solution)
    except (AnswerError, ValueError) as error:
        raise VgauError(
            f"{row.id}: the solution column {row.solution[:80]!r} does not parse ({error}); rebuild the dataset"
        ) from None
    return family.format_answer(answer)


def random_output(row: DatasetRow, seed: int, run: int = 0) -> str:
    """A reproducible random answer for one row (``family.random_answer``)."""
    family = FAMILIES[row.task]
    rng = np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(row.id.encode("utf-8")), run]))
    state = family.from_json(row.state)
    return family.format_answer(family.random_answer(state, rng))


def baseline_output(kind: str, row: DatasetRow, *, seed: int = 0, run: int = 0) -> str:
    if kind == "oracle":
        return oracle_output(row)
    if kind == "random":
        return random_output(row, seed, run)
    if kind == "empty":
        return ""
    raise ValueError(f"unknown baseline kind {kind!r}; choose from {', '.join(BASELINE_KINDS)}")


def make_baseline(
    kind: str,
    references: ReferenceSet,
    *,
    seed: int = 0,
    protocols: Sequence[str] = ("direct",),
    runs: int = 1,
    model: str | None = None,
) -> Submission:
    """A complete, valid submission of ``kind`` for every row, protocol and run.

    The outputs of a run are the same for every protocol (a baseline sees no images);
    ``random`` differs between runs.
    """
    if kind not in BASELINE_KINDS:
        raise ValueError(f"unknown baseline kind {kind!r}; choose from {', '.join(BASELINE_KINDS)}")
    if runs < 1:
        raise ValueError(f"runs must be >= 1, got {runs}")
    if not protocols:
        raise ValueError("at least one protocol is needed")
    header = SubmissionHeader(
        model=model or f"baseline-{kind}",
        harness=f"vgau-data baseline {__version__}",
        dataset_source=references.source,
        dataset_revision=references.revision,
        fingerprint=references.fingerprint,
        settings={"kind": kind, "seed": seed},
    )
    records = []
    for run in range(runs):
        outputs = [baseline_output(kind, row, seed=seed, run=run) for row in references.rows]
        for protocol in protocols:
            records.extend(SubmissionRecord(row.id, protocol, run, out) for row, out in zip(references.rows, outputs))
    return Submission(header, tuple(records))
