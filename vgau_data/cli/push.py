"""``vgau-data push``: upload a built or generated folder to the Hub dataset repo in one commit."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from vgau_data.cli.args import say

if TYPE_CHECKING:
    from vgau_data.builders.push import UploadPlan

EPILOG = """examples:
  huggingface-cli login   # or set HF_TOKEN
  vgau-data push vgau_puzzles --repo vgau/puzzles
  vgau-data push train_data --repo you/vgau-train   # a vgau-data generate folder: card, manifest, shards
  vgau-data push vgau_puzzles --dry-run             # list what would be sent; contacts nothing
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("push", help="upload a built dataset folder to the Hub", epilog=EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", help="folder written by `vgau-data build` or `vgau-data generate`")
    parser.add_argument("--repo", default="vgau/puzzles", help="dataset repo id (default vgau/puzzles)")
    parser.add_argument("--private", action="store_true", help="create the repo as private")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the files, sizes and commit message a push would send; contact nothing")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.builders import push_dataset
    from vgau_data.builders.push import GENERATED_MANIFEST, build_plan

    folder = Path(args.folder)
    if (folder / GENERATED_MANIFEST).is_file():
        from vgau_data.training.manifest import upload_plan

        plan = upload_plan(folder)
    else:
        plan = build_plan(folder)
    if args.dry_run:
        return _dry_run(folder, plan, args)
    url = push_dataset(args.folder, args.repo, plan=plan, private=args.private)
    print(f"pushed {args.folder} to {args.repo}: {url}")
    return 0


def _dry_run(folder: Path, plan: UploadPlan, args: argparse.Namespace) -> int:
    from vgau_data.builders.push import commit_message, planned_files

    files = planned_files(folder, plan)
    visibility = "private" if args.private else "public"
    say(f"would push {folder} to the {visibility} dataset repo {args.repo} in one commit: {commit_message(folder, plan)!r}")
    width = max((len(path) for path, _ in files), default=0)
    for path, size in files:
        say(f"  {path:<{width}}  {size:>14,} bytes")
    say(f"{len(files)} files, {sum(size for _, size in files):,} bytes; nothing was sent (--dry-run)")
    return 0
