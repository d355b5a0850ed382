"""``vgau-data decontam DIR``: rows of a built folder that overlap the benchmark's test set."""

from __future__ import annotations

import argparse

from vgau_data.cli.args import non_negative_int, say

EPILOG = """examples:
  vgau-data decontam train_data        # a folder written by vgau-data generate
  vgau-data decontam vgau_puzzles      # the benchmark itself: every row is a test instance

Overlaps: exact (the same board), symmetric (rotated, reflected or relabelled), trajectory
(the row's optimal answer passes a state on a test instance's optimal trajectory), and
cross-split (two splits of the folder share a board). Shards that are symlinks are followed
to regular files (a Hugging Face cache snapshot); FIFOs and devices are refused.

Exit status: 0 when every row of every shard was checked and none overlaps; 1 when rows
overlap; 2 when anything was not checked (an unreadable row, a Parquet file outside a
registered family's folder, a family without shipped test keys, no rows at all) or the
folder cannot be read. A folder is never reported clean on what was not read.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("decontam", help="report overlaps of a built folder with the test set",
                            epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", help="folder of <family>/*.parquet files with a state column")
    parser.add_argument("--max-listed", type=non_negative_int, default=1000,
                        help="overlapping rows to list one by one (default 1000)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.errors import DatasetError
    from vgau_data.training.decontam import decontam_folder

    report = decontam_folder(args.folder, progress=not args.no_progress)
    for line in report.table():
        say(line)
    for overlap in report.overlaps[: args.max_listed]:
        say(f"{overlap.file} {overlap.row_id}: {overlap.kind}, {overlap.detail}")
    if report.total > args.max_listed:
        say(f"... and {report.total - args.max_listed} more")
    for line in report.unchecked_files[: args.max_listed]:
        say(f"not checked: {line}")
    if not report.complete:
        verdict = f"{report.total} overlapping rows" if report.total else "no overlaps found"
        raise DatasetError(f"{report.folder}: not fully checked ({report.gaps()}); {verdict} in the "
                           f"{report.checked} rows checked")
    say(f"{report.total} overlapping rows" if report.total else
        f"no overlaps with the test set in the {report.checked} rows checked")
    return 1 if report.total else 0
