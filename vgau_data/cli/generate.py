"""``vgau-data generate``: decontaminated training splits of any size, sharded, resumable, local or on Ray."""

from __future__ import annotations

import argparse
from typing import Any

from vgau_data.cli.args import non_negative_int, output_dir, positive_int, say

EPILOG = """examples:
  vgau-data generate --families maze --n 10000 --out train_data
  vgau-data generate --families maze sokoban --lengths 1-4 5-8 9-16 --n 2000 --out curriculum
  vgau-data generate --families onet --split validation --n 500 --out train_data
  vgau-data generate --families parking --n 100000 --engine ray --ray-address auto --out /shared/parking
  vgau-data generate --families maze --n 1000 --prompt oracle_gta --traces solver --out gta
  vgau-data generate --families maze --n 10000 --render-variety --out varied
  vgau-data generate --families maze --split validation_ood --n 500 --out varied

--n rows per family and band (the total is printed first); each --lengths band (LO-HI, optimal lengths) is built to
its lengths in turn (default: the family's three benchmark buckets). No row is a copy of
a test instance up to symmetry, or passes through a state on a test instance's optimal
trajectory; within a split no two rows share a key. A band that holds fewer than --n
distinct rows is refused with what it holds. Same arguments, same bytes, on any engine
and any number of workers; rerunning a killed command makes only what is missing.

--render-variety draws each row in a training style (palette, line width, cell size)
seeded by the row, never the benchmark's own unless --benchmark-style; the
validation_ood split is drawn in a held-out style no training row uses. Such rows carry
their style in a render_style column (docs/render-styles.md).
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    from vgau_data.training.engines import ENGINES
    from vgau_data.training.traces import TRACE_KINDS

    parser = sub.add_parser("generate", help="generate decontaminated training data (sharded, local or Ray)",
                            epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--families", nargs="+", required=True, metavar="FAMILY", help="families to generate")
    parser.add_argument("--split", default="train",
                        help="train (default), validation, or validation_ood (drawn in the held-out render style)")
    parser.add_argument("--n", type=positive_int, required=True, help="rows per family and band")
    parser.add_argument("--lengths", nargs="+", default=None, metavar="LO-HI",
                        help="bands of optimal lengths (default: the family's easy, medium and hard buckets)")
    parser.add_argument("--traces", nargs="+", default=[], metavar="KIND",
                        help=f"trace kinds to store in every row: {', '.join(TRACE_KINDS)} (default: none; "
                             "export-training computes a missing one, the same bytes)")
    parser.add_argument("--prompt", default="text_cot",
                        help="protocol whose question fills the prompt column: text_cot (default), direct or "
                             "oracle_gta (adds oracle_aid)")
    parser.add_argument("--oracle-aid", action="store_true", help="add the oracle_aid image to every row")
    parser.add_argument("--render-variety", action="store_true",
                        help="draw each row in a seeded training render style, never the benchmark's")
    parser.add_argument("--benchmark-style", action="store_true",
                        help="with --render-variety: the benchmark's own style may be drawn too")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="master seed (default 0)")
    parser.add_argument("--shard-rows", type=positive_int, default=1000, help="rows per Parquet shard (default 1000)")
    parser.add_argument("--engine", choices=ENGINES, default="local", help="local process pool or Ray tasks")
    parser.add_argument("--ray-address", default=None, metavar="ADDR",
                        help="Ray cluster to join (e.g. auto, or ray://host:10001); default: start a local one")
    parser.add_argument("--workers", type=positive_int, default=None,
                        help="worker processes (default: all cores; with Ray, the cluster's CPUs)")
    parser.add_argument("--out", required=True, type=output_dir, help="output folder (shared by every Ray node)")
    parser.add_argument("--replace", action="store_true", help="replace a part of the folder made with other arguments")
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")
    parser.set_defaults(handler=run)


MAX_ROWS = 100_000_000
"""A larger run is refused: split it into several --out folders or seeds (each resumable)."""


def planned_rows(config: Any) -> str:
    """One line saying how many rows the run makes in all (``--n`` counts rows per family and band).

    Raises:
        VgauError: more than ``MAX_ROWS`` rows, or an unknown family.
    """
    from vgau_data.errors import VgauError
    from vgau_data.registry import get_family

    bands = {name: len(config.bands) if config.bands else len(get_family(name).buckets) for name in config.families}
    total = config.n * sum(bands.values())
    parts = ", ".join(f"{name} {count} band{'s' * (count != 1)}" for name, count in bands.items())
    if total > MAX_ROWS:
        raise VgauError(f"--n {config.n:,} rows per family and band is {total:,} rows in all ({parts}), over the "
                        f"limit of {MAX_ROWS:,} for one run; use a smaller --n or several --out folders")
    return f"{total:,} rows in all: --n {config.n:,} per family and band ({parts})"


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from vgau_data.training.bands import parse_band
    from vgau_data.training.generate import GenerateConfig, generate_dataset

    config = GenerateConfig(
        out_dir=Path(args.out), families=tuple(args.families), split=args.split, n=args.n,
        bands=None if args.lengths is None else tuple(parse_band(text) for text in args.lengths),
        seed=args.seed, shard_rows=args.shard_rows, prompt=args.prompt, oracle_aid=args.oracle_aid,
        traces=tuple(args.traces), render_variety=args.render_variety, benchmark_style=args.benchmark_style,
        engine=args.engine, ray_address=args.ray_address, workers=args.workers,
        replace=args.replace, progress=not args.no_progress,
    )
    say(planned_rows(config))
    report = generate_dataset(config)
    say(f"\n{'part':<18}{'band':<8}{'rows':>8}{'draws':>9}{'yield':>8}{'dups':>7}{'banned':>8}{'failed':>7}  capacity")
    for name, part in report.parts.items():
        for band, tally in part["bands"].items():
            capacity = tally["capacity_estimate"]
            say(f"{name:<18}{band:<8}{tally['rows']:>8}{tally['draws']:>9}{tally['unique_yield']:>8.1%}"
                f"{tally['duplicates']:>7}{tally['banned']:>8}{tally['failed']:>7}  {capacity if capacity is not None else '-'}")
    rate = report.rows_made / report.wall_seconds if report.wall_seconds else 0.0
    say(f"\n{report.shards_made} shards made, {report.shards_skipped} already done; {report.chunks_made} catalog "
        f"chunks made, {report.chunks_skipped} already done; {report.rows_made} rows in {report.wall_seconds:.1f} s "
        f"({rate:.1f} rows/s)")
    say(f"wrote {report.out_dir}/README.md, manifest.json and the shards")
    return 0
