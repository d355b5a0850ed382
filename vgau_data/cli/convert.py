"""``vgau-data convert``: lmms-eval or VLMEvalKit sample logs -> a submission file."""

from __future__ import annotations

import argparse
import sys

from vgau_data.cli.args import non_negative_int, output_file

EPILOG = """examples:
  vgau-data convert --from lmms-eval logs/samples_vgau_maze.jsonl logs/samples_vgau_sokoban.jsonl \\
    --dataset vgau_puzzles --model Qwen2.5-VL-7B --protocol direct --out qwen.jsonl
  vgau-data convert --from vlmevalkit Qwen2.5-VL-7B_VGAU_puzzles.xlsx --dataset vgau/puzzles \\
    --model Qwen2.5-VL-7B --out qwen.jsonl

Each input file becomes the records of one (protocol, run); convert runs separately and
concatenate the records, or give several files of the same run at once.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "convert", help="convert lmms-eval / VLMEvalKit outputs to a submission", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="+", help="lmms-eval samples_*.jsonl, or VLMEvalKit .xlsx/.tsv/.csv predictions")
    parser.add_argument("--from", dest="harness", required=True, choices=("lmms-eval", "vlmevalkit"),
                        help="source harness")
    parser.add_argument("--dataset", required=True, help="the dataset folder or Hub repo id the outputs were made on")
    parser.add_argument("--revision", default=None, help="Hub revision of the dataset (repo ids only)")
    parser.add_argument("--out", required=True, type=output_file, help="submission file to write")
    parser.add_argument("--model", required=True, help="model name for the header")
    parser.add_argument("--protocol", default="direct", help="protocol of these outputs (default direct)")
    parser.add_argument("--run", type=non_negative_int, default=0, help="run index of these outputs (default 0)")
    parser.add_argument("--family", default=None, help="family of the rows when the logs name rows by position only")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.metrics.convert import convert
    from vgau_data.metrics.references import load_references
    from vgau_data.metrics.submission import write_submission

    references = load_references(args.dataset, revision=args.revision)
    submission = convert(
        args.harness, args.files, references, model=args.model, protocol=args.protocol, run=args.run, family=args.family
    )
    path = write_submission(args.out, submission)
    print(f"wrote {len(submission.records)} records from {len(args.files)} file(s) to {path}", file=sys.stderr)
    return 0
