"""``vgau-data export-training``: training rows (or the benchmark) in the format a trainer reads.

A command of its own, not a format of ``vgau-data export``: ``export`` turns the benchmark
into another evaluation harness's files, one per single-turn protocol; this one turns
training rows and their traces into trainer datasets, with options ``export`` has no use
for (``--traces``, ``--protocol``, ``--shard-rows``) and a resumable, sharded output.
"""

from __future__ import annotations

import argparse

from vgau_data.cli.args import output_dir, positive_int

EPILOG = """examples:
  vgau-data export-training train_rows --format trl --traces text_cot --out sft_trl
  vgau-data export-training train_rows --format llamafactory --traces visual_cot --out sft_lf
  vgau-data export-training train_rows --format verl --protocol oracle_gta --out rl_verl
  vgau-data export-training vgau_puzzles --format bagel_think --traces aug_visual_cot --out think

Reads <SRC>/<family>/<split>-NNNNN-of-NNNNN.parquet (written by `vgau-data generate`, or
the benchmark by `vgau-data build`); a row without the trace asked for gets it computed
from its state and solution. Writes <OUT>/<family>/<split>/<split>-NNNNN-of-NNNNN.<ext>,
export-plan.json first and export.json (every shard's rows and sha256) last; a killed
export rerun with the same arguments resumes after its last finished shard.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    from vgau_data.training.exporters import EXPORTERS
    from vgau_data.training.traces import TRACE_KINDS

    formats = "\n".join(f"  {name:<13} {exporter.summary}" for name, exporter in EXPORTERS.items())
    kinds = "\n".join(f"  {name:<15} {kind.summary}" for name, kind in TRACE_KINDS.items())
    parser = sub.add_parser(
        "export-training",
        help="write training rows and their traces in a trainer's format (TRL, LLaMA-Factory, verl, ...)",
        epilog=f"formats:\n{formats}\n\ntrace kinds:\n{kinds}\n\n{EPILOG}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("source", help="a folder written by `vgau-data generate` or `vgau-data build`")
    parser.add_argument("--format", required=True, choices=list(EXPORTERS), help="the trainer's format")
    parser.add_argument("--out", required=True, type=output_dir, help="folder to write (resumed if unfinished)")
    parser.add_argument(
        "--traces",
        choices=list(TRACE_KINDS),
        default=None,
        help="trace kind of an SFT format (default: text_cot; visual_cot for bagel_think, unified_edit, mvot)",
    )
    parser.add_argument(
        "--protocol",
        default=None,
        help="prompt of an RL format (verl, openrlhf): direct, text_cot (default) or oracle_gta",
    )
    parser.add_argument("--families", nargs="+", default=None, help="families to export (default: all in SOURCE)")
    parser.add_argument(
        "--shard-rows",
        type=positive_int,
        default=None,
        help="source rows per output shard (default: the format's, 200-500)",
    )
    parser.add_argument(
        "--limit", type=positive_int, default=None, help="export the first N rows of each family's split"
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.cli.args import say
    from vgau_data.training.exporters import export_training, get_exporter

    exporter = get_exporter(args.format)
    shards = export_training(
        args.source,
        exporter,
        args.out,
        traces=args.traces,
        protocol=args.protocol,
        families=args.families,
        shard_rows=args.shard_rows,
        limit=args.limit,
        progress=not args.no_progress,
    )
    say(f"wrote {len(shards)} shards of {exporter.name} to {args.out}")
    say(f"read it with: {exporter.consumer.replace('OUT', str(args.out))}")
    return 0
