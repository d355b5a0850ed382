"""``vgau-data leaderboard``: a static leaderboard Space from ``vgau-data score`` results files."""

from __future__ import annotations

import argparse

from vgau_data.cli.args import output_dir

EPILOG = """examples:
  vgau-data leaderboard results/qwen.json results/bagel.json --out leaderboard_space
  python -m http.server -d leaderboard_space 8000     # look at it locally

The folder is a static Hub Space (README.md with sdk: static, index.html, leaderboard.json);
upload it with huggingface_hub's upload_folder(repo_type="space").
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "leaderboard", help="build a static leaderboard Space from results files", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("results", nargs="+", help="results.json files written by `vgau-data score`")
    parser.add_argument("--out", required=True, type=output_dir, help="folder to write the Space into")
    parser.add_argument("--title", default="VGAU-Diag leaderboard", help="page and Space title")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.metrics.leaderboard import build_leaderboard

    for path in build_leaderboard(args.results, args.out, title=args.title):
        print(f"wrote {path}")
    return 0
