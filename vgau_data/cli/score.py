"""``vgau-data score``: validate a submission, score it, print Table-1-style tables, write results.json."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vgau_data import safe_io, safe_json
from vgau_data.cli.args import output_dir, output_file, positive_int, reader_choices, say

if TYPE_CHECKING:
    from vgau_data.metrics.submission import Submission

EPILOG = """examples:
  vgau-data score submission.jsonl --dataset vgau_puzzles
  vgau-data score submission.jsonl.gz --dataset vgau/puzzles --out results.json --plot
  vgau-data score submission.jsonl --dataset vgau_puzzles --reader both   # how much the reader moves each cell
  vgau-data baseline --kind oracle --dataset vgau_puzzles --out oracle.jsonl && \\
    vgau-data score oracle.jsonl --dataset vgau_puzzles

Readers (docs/readers.md): ours (default) reads answers as the paper's text describes;
authors reproduces the authors' released code (the reader behind the paper's tables);
both prints each protocol under each reader and the difference per cell, and writes
<out>.ours.json and <out>.authors.json.

Every dataset row counts in every (protocol, run) present: rows left out score as failed
('missing'), and the tables' 'answered' column (results.json 'coverage') says how many
rows each protocol answered out of the dataset's. --subset scores only the rows each
protocol answered instead (as lmms-eval --limit does); such numbers are labelled a
subset and are not comparable with full-dataset ones. Unknown ids, duplicate
(id, protocol, run) lines and a dataset fingerprint other than the one in the header
are errors (exit status 2).

Limits: a submission past any --max-* limit is refused (exit status 2, naming the line);
the defaults are far above an honest submission, raise them for a bigger one.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "score", help="score a submission file against the dataset", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("submission", help="submission JSONL file (.jsonl or .jsonl.gz), see submission.schema.json")
    parser.add_argument("--dataset", required=True, help="built dataset folder or Hub repo id (e.g. vgau/puzzles)")
    parser.add_argument("--revision", default=None, help="Hub revision of the dataset (repo ids only)")
    parser.add_argument("--out", type=output_file, default=None, help="write results.json here")
    parser.add_argument("--details", type=output_file, default=None, help="also write per-row verdicts (JSONL) here")
    parser.add_argument("--plot", action="store_true", help="write a bar chart PNG per protocol (needs matplotlib)")
    parser.add_argument("--plot-dir", type=output_dir, default=None,
                        help="folder for the PNGs (default: next to --out, else '.')")
    parser.add_argument("--reader", choices=(*reader_choices(), "both"), default="ours",
                        help="how answers are read: ours (default), authors (the authors' code), or both side by side")
    parser.add_argument("--families", nargs="+", default=None, metavar="FAMILY",
                        help="score only these families' rows (the results record the subset)")
    parser.add_argument("--subset", action="store_true",
                        help="score each protocol on the rows it answered only (labelled: not comparable)")
    parser.add_argument("--allow-fingerprint-mismatch", action="store_true",
                        help="score even if the submission was made on another dataset build (warns)")
    add_limit_flags(parser)
    parser.set_defaults(handler=run)


def add_limit_flags(parser: argparse.ArgumentParser) -> None:
    """One ``--max-*`` flag per ``SubmissionLimits`` field, defaulting to its default."""
    from vgau_data.metrics.submission import DEFAULT_LIMITS

    limits = parser.add_argument_group("limits (a submission past one is refused)")
    helps = {
        "max_file_mb": "file size on disk in MiB, compressed size for .gz",
        "max_data_mb": "MiB of JSONL after decompression",
        "max_line_mb": "longest line in MiB",
        "max_lines": "lines in the file, blank ones included",
        "max_protocols": "distinct protocols",
        "max_runs": "runs per protocol",
    }
    for name, text in helps.items():
        default = getattr(DEFAULT_LIMITS, name)
        limits.add_argument("--" + name.replace("_", "-"), type=positive_int, default=default, metavar="N",
                            help=f"{text} (default {default})")


def limits_from(args: argparse.Namespace) -> Any:
    from vgau_data.metrics.submission import SubmissionLimits

    return SubmissionLimits(**{name: getattr(args, name) for name in SubmissionLimits.__dataclass_fields__})


def run(args: argparse.Namespace) -> int:
    from vgau_data.metrics.references import load_references
    from vgau_data.metrics.results import protocol_results, score_submission
    from vgau_data.metrics.submission import read_submission
    from vgau_data.metrics.tables import format_reader_report, format_report

    submission = read_submission(args.submission, limits=limits_from(args))
    references = load_references(args.dataset, revision=args.revision)
    if args.families:
        chosen = references.subset(args.families)
        submission = _without_rows(submission, {row.id for row in references.rows} - set(chosen.ids))
        references = chosen
    readers = reader_choices() if args.reader == "both" else [args.reader]
    scored = {}
    for reader in readers:
        details: dict[str, list[list[dict[str, Any]]]] | None = {} if args.details else None
        results = score_submission(
            submission, references, allow_fingerprint_mismatch=args.allow_fingerprint_mismatch, details=details,
            subset=args.subset, reader=reader,
        )
        scored[reader] = (results, details)
    model, meta, protocols = protocol_results(scored[readers[0]][0])
    if len(readers) == 1:
        say(format_report(model, protocols, meta["warnings"], subset=meta["subset"]))
    else:
        by_reader = {reader: protocol_results(results)[2] for reader, (results, _) in scored.items()}
        warnings = [w for results, _ in scored.values() for w in protocol_results(results)[1]["warnings"]]
        warnings = list(dict.fromkeys(warnings))
        say(format_reader_report(model, by_reader, warnings, subset=meta["subset"]))
    for reader, (results, details) in scored.items():
        if args.out:
            out = _per_reader(Path(args.out), reader, len(readers))
            out = safe_io.write_text(out, safe_json.dumps(results, indent=2) + "\n")
            say(f"\nwrote {out}", err=True)
        if details is not None:
            _write_details(_per_reader(Path(args.details), reader, len(readers)), details)
            say(f"wrote {_per_reader(Path(args.details), reader, len(readers))}", err=True)
        if args.plot:
            from vgau_data.metrics.plots import plot_results

            plot_dir = Path(args.plot_dir) if args.plot_dir else (Path(args.out).parent if args.out else Path("."))
            name = model if len(readers) == 1 else f"{model} {reader}"
            for path in plot_results(name, protocol_results(results)[2], plot_dir, families=references.families):
                say(f"wrote {path}", err=True)
    return 0


def _per_reader(path: Path, reader: str, readers: int) -> Path:
    """``path`` itself for one reader; ``results.ours.json``-style names for several."""
    return path if readers == 1 else path.with_name(f"{path.stem}.{reader}{path.suffix}")


def _without_rows(submission: Submission, ids: set[str]) -> Submission:
    """The submission less its records of the rows ``ids`` (other families', for ``--families``)."""
    from dataclasses import replace

    return replace(submission, records=tuple(r for r in submission.records if r.id not in ids))


def _write_details(path: Path, details: dict[str, list[list[dict[str, Any]]]]) -> None:
    with safe_io.atomic_text_writer(path) as handle:
        for protocol, runs in details.items():
            for run, verdicts in enumerate(runs):
                for verdict in verdicts:
                    handle.write(safe_json.dumps({"protocol": protocol, "run": run, **verdict}) + "\n")
