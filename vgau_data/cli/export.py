"""``vgau-data export vlmevalkit``: a built dataset as VLMEvalKit TSV files."""

from __future__ import annotations

import argparse

from vgau_data.cli.args import output_dir

EPILOG = """examples:
  vgau-data export vlmevalkit vgau_puzzles --out ~/LMUData
  vgau-data export vlmevalkit vgau_puzzles --out ~/LMUData --families maze --protocols text_cot

writes VGAU_<family>_<protocol>.tsv (index, base64 PNG image, question, answer, category =
difficulty, id, task, optimal_length, state). Register the dataset class shipped with
the package (vgau_data/integrations/vlmevalkit/vgau_vlmevalkit.py) in VLMEvalKit as
docs/harnesses.md says, then: python run.py --data VGAU_maze_text_cot --model M
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "export", help="write the dataset in another harness's format (VLMEvalKit TSVs)", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("format", choices=("vlmevalkit",), help="target harness")
    parser.add_argument("dataset", help="a folder built by `vgau-data build`, or a Hub repo id")
    parser.add_argument("--out", required=True, type=output_dir, help="folder for the TSV files (VLMEvalKit reads $LMUData)")
    parser.add_argument("--families", nargs="+", default=None, help="families to export (default: all in the dataset)")
    parser.add_argument("--protocols", nargs="+", default=None,
                        help="single-turn protocols to export (default: direct text_cot oracle_gta)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.integrations.vlmevalkit import dataset_class_file
    from vgau_data.integrations.vlmevalkit.export import SINGLE_TURN, export_tsvs

    paths = export_tsvs(args.dataset, args.out, families=args.families, protocols=args.protocols or SINGLE_TURN)
    for path in paths:
        print(f"wrote {path}")
    print(f"VLMEvalKit dataset class to register: {dataset_class_file()}")
    return 0
