"""``vgau-data baseline``: write an oracle, random or empty submission from the dataset alone."""

from __future__ import annotations

import argparse
import sys

from vgau_data.cli.args import non_negative_int, output_file, positive_int

EPILOG = """examples:
  vgau-data baseline --kind oracle --dataset vgau_puzzles --out oracle.jsonl
  vgau-data baseline --kind random --seed 1 --runs 3 --protocols direct text_cot \\
    --dataset vgau/puzzles --out random.jsonl.gz

oracle: the stored optimal solutions as answer text (scores 100%); random: legal-looking
random moves, reproducible per row from --seed; empty: no output (scores 0).
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "baseline", help="write a reference submission (oracle, random, empty)", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--kind", required=True, choices=("oracle", "random", "empty"), help="which baseline")
    parser.add_argument("--dataset", required=True, help="built dataset folder or Hub repo id")
    parser.add_argument("--revision", default=None, help="Hub revision of the dataset (repo ids only)")
    parser.add_argument("--out", required=True, type=output_file, help="submission file to write (.jsonl, or .jsonl.gz to gzip)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the random baseline (default 0)")
    parser.add_argument("--protocols", nargs="+", default=["direct"], metavar="PROTOCOL",
                        help="protocols to fill (default: direct)")
    parser.add_argument("--runs", type=positive_int, default=1, help="runs per protocol (default 1)")
    parser.add_argument("--model", default=None, help="model name in the header (default baseline-KIND)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.metrics.baselines import make_baseline
    from vgau_data.metrics.references import load_references
    from vgau_data.metrics.submission import write_submission

    references = load_references(args.dataset, revision=args.revision)
    submission = make_baseline(
        args.kind, references, seed=args.seed, protocols=args.protocols, runs=args.runs, model=args.model
    )
    path = write_submission(args.out, submission)
    print(f"wrote {len(submission.records)} records ({len(references.rows)} rows x {len(args.protocols)} protocol(s) "
          f"x {args.runs} run(s)) to {path}", file=sys.stderr)
    return 0
