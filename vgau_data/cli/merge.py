"""``vgau-data merge``: join the shard records of ``vgau-data run --shard i/N``, then score."""

from __future__ import annotations

import argparse
import sys

EPILOG = """examples:
  vgau-data merge --out runs                 # every model folder under runs/
  vgau-data merge --out runs --model Qwen2.5-VL-7B-Instruct-1a2b3c4d

Shard files are kept; rerunning merge is idempotent. Shards may come from several
machines: copy their runs/<model>/records/ folders into one --out first.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "merge",
        help="merge sharded run records and score them",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", required=True, help="the --out folder of the sharded runs")
    parser.add_argument("--model", default=None, help="one model folder name under --out (default: all)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from vgau_data.runners.records import RecordsError, merge_shards
    from vgau_data.runners.report import model_dirs, write_report

    folders = [Path(args.out) / args.model] if args.model else model_dirs(Path(args.out))
    if not folders:
        raise RecordsError(f"no model folders with records under {args.out!r}")
    status = 0
    for folder in folders:
        print(f"== {folder.name}")
        for merged in merge_shards(folder):
            line = f"{merged.target.relative_to(folder)}: {merged.episodes} episodes from {merged.files} file(s)"
            if merged.errors:
                line += f", {merged.errors} with backend errors"
            print(line)
            if merged.missing_shards:
                print(
                    f"warning: shards {list(merged.missing_shards)} of {merged.target.parent.name} are missing",
                    file=sys.stderr,
                )
                status = 1
        report = write_report(folder)
        print(report.text)
        print(f"wrote {report.submission_path} and {report.results_path}")
        if report.n_errors:
            status = 1
    return status
