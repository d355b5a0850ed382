"""``vgau-data push``: upload a built or generated folder to the Hub dataset repo in one commit."""

from __future__ import annotations

import argparse
from pathlib import Path

EPILOG = """examples:
  huggingface-cli login   # or set HF_TOKEN
  vgau-data push vgau_puzzles --repo vgau/puzzles
  vgau-data push train_data --repo you/vgau-train   # a vgau-data generate folder: card, manifest, shards
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("push", help="upload a built dataset folder to the Hub", epilog=EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", help="folder written by `vgau-data build` or `vgau-data generate`")
    parser.add_argument("--repo", default="vgau/puzzles", help="dataset repo id (default vgau/puzzles)")
    parser.add_argument("--private", action="store_true", help="create the repo as private")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.builders import push_dataset
    from vgau_data.builders.push import GENERATED_MANIFEST

    plan = None
    if (Path(args.folder) / GENERATED_MANIFEST).is_file():
        from vgau_data.training.manifest import upload_plan

        plan = upload_plan(Path(args.folder))
    url = push_dataset(args.folder, args.repo, plan=plan, private=args.private)
    print(f"pushed {args.folder} to {args.repo}: {url}")
    return 0
