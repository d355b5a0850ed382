"""``vgau-data build``: generate, verify and render the dataset into a Hub-layout folder.

``--from-paper CLONE`` builds from the authors' published instances instead of our
generators (``vgau_data.builders.from_paper``).
"""

from __future__ import annotations

import argparse
import os

from vgau_data.cli.args import non_negative_int, output_dir, positive_int

EPILOG = """examples:
  vgau-data build --out vgau_puzzles
  vgau-data build --out small --families maze sokoban --counts 2 2 2 --workers 2
  vgau-data build --from-paper VGAU-Diag --out paper_puzzles   # the authors' 600 instances
  vgau-data build --out small --seed 1 --replace     # small/ held another build: replace it

The folder is written beside --out and moved into place whole when the build is done, so
a killed build leaves no half-written dataset behind. An existing build is replaced only
when it has the same --seed and --families, unless --replace.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("build", help="build the dataset locally", epilog=EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, type=output_dir, help="output folder (becomes the Hub repo's content)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="master seed (default 0: the published dataset)")
    parser.add_argument("--families", nargs="+", default=None, metavar="FAMILY", help="subset of families (default: every registered family)")
    parser.add_argument("--counts", nargs=3, type=non_negative_int, default=None, metavar=("EASY", "MEDIUM", "HARD"),
                        help="rows per bucket (default 20 30 50)")
    parser.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1,
                        help="worker processes (default: all cores)")
    parser.add_argument("--replace", action="store_true",
                        help="replace a build of another seed or other families that is in --out")
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")
    parser.add_argument("--from-paper", default=None, metavar="CLONE",
                        help="convert the authors' published instances (a clone of zyb1029/VGAU-Diag, or its data/) "
                             "instead of generating")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.builders import build_dataset

    if args.from_paper is not None:
        return _run_from_paper(args)
    counts = dict(zip(("easy", "medium", "hard"), args.counts)) if args.counts else None
    report = build_dataset(args.out, seed=args.seed, families=args.families, counts=counts,
                           workers=args.workers, progress=not args.no_progress, replace=args.replace)
    print(f"\n{'family':<9}{'bucket':<8}{'rows':>5}  {'range':>7}  {'achieved':>8}")
    for family, difficulty, rows, bucket, achieved in report.summary_rows():
        print(f"{family:<9}{difficulty:<8}{rows:>5}  {bucket:>7}  {achieved:>8}")
    total = sum(len(v) for v in report.lengths.values())
    cpu = ", ".join(f"{f} {s:.1f}s" for f, s in report.family_seconds.items())
    print(f"\n{total} rows in {report.wall_seconds:.1f} s wall ({args.workers} workers; worker time: {cpu})")
    print(f"wrote {report.out_dir}/README.md and {len(report.family_seconds)} parquet configs")
    return 0


def _run_from_paper(args: argparse.Namespace) -> int:
    from vgau_data.builders.from_paper import build_from_paper
    from vgau_data.errors import VgauError

    if args.counts:
        raise VgauError("--counts does not apply to --from-paper: the authors' files decide the rows")
    report = build_from_paper(args.from_paper, args.out, families=args.families, workers=args.workers,
                              progress=not args.no_progress)
    print("\n" + "\n".join(report.summary_lines()))
    return 0
