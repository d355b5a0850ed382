"""``vgau-data merge``: join the shard records of ``vgau-data run --shard i/N``, then score."""

from __future__ import annotations

import argparse

from vgau_data.cli.args import output_dir, say

EPILOG = """examples:
  vgau-data merge --out runs                 # every model folder under runs/
  vgau-data merge --out runs --model Qwen2.5-VL-7B-Instruct-1a2b3c4d

Shard files are kept; rerunning merge is idempotent. Shards may come from several
machines: copy their runs/<model>/records/ folders into one --out first.

Merge refuses to start while a `vgau-data run` is still writing into a model folder.
Scores count every row of the dataset, as `vgau-data score` counts the merged
submission. Rows that were asked for but have no output (backend errors, a killed run,
a shard or protocol that never started) are reported as unfinished; the exit status is
then 1 unless --allow-incomplete.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "merge",
        help="merge sharded run records and score them",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", required=True, type=output_dir, help="the --out folder of the sharded runs")
    parser.add_argument("--model", default=None,
                        help="one model folder name directly under --out, no path (default: all)")
    parser.add_argument("--dataset", default=None,
                        help="the dataset the runs used (default: the folder or repo id their records name)")
    parser.add_argument("--allow-incomplete", action="store_true",
                        help="exit 0 even when rows or shards are missing (they still score as failed)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from vgau_data.runners.records import RecordsError, folder_lock, merge_shards
    from vgau_data.runners.report import inside_out_dir, model_dirs, write_report

    if args.model is not None and inside_out_dir(Path(args.out), args.model) is None:
        raise RecordsError(
            f"--model must name one model folder directly under {args.out!r} (as `vgau-data run` made it), "
            f"got {args.model!r}"
        )
    folders = [Path(args.out) / args.model] if args.model else model_dirs(Path(args.out))
    if not folders or not all((folder / "records").is_dir() for folder in folders):
        raise RecordsError(f"no model folders with records under {args.out!r}")
    incomplete = False
    for folder in folders:
        say(f"== {folder.name}")
        with folder_lock(folder, exclusive=True):
            for merged in merge_shards(folder):
                line = f"{merged.target.relative_to(folder)}: {merged.episodes} episodes from {merged.files} file(s)"
                if merged.errors:
                    line += f", {merged.errors} with backend errors"
                say(line)
                if merged.missing_shards:
                    say(f"warning: shards {list(merged.missing_shards)} of {merged.target.parent.name} are missing",
                        err=True)
                    incomplete = True
            report = write_report(folder, args.dataset)
        say(report.text)
        say(f"wrote {report.submission_path} and {report.results_path}")
        incomplete = incomplete or bool(report.incomplete)
    if incomplete and not args.allow_incomplete:
        say("the runs are incomplete (see 'incomplete:' above): finish them, or pass --allow-incomplete", err=True)
        return 1
    return 0
