"""``vgau-data publish-metric``: write the ``vgau/solver_accuracy`` Space folder, ready for upload."""

from __future__ import annotations

import argparse

from vgau_data.cli.args import output_dir

EPILOG = """examples:
  vgau-data publish-metric space_solver_accuracy                       # ships a wheel built from this checkout
  vgau-data publish-metric space --wheel dist/vgau_data-0.1.0-py3-none-any.whl
  vgau-data publish-metric space --requirement "vgau-data @ git+https://github.com/vgau/vgau_data@v0.1.0"

  vgau-data publish-metric space --repo alice/solver_accuracy        # a fork's Space: its own wheel URL

then upload (needs a token with write access to the Space's owner; REPO as given to --repo):
  python -c "from huggingface_hub import HfApi; a = HfApi(); \\
    a.create_repo('REPO', repo_type='space', space_sdk='gradio', exist_ok=True); \\
    a.upload_folder(repo_id='REPO', repo_type='space', folder_path='space_solver_accuracy')"
(evaluate-cli create is broken with huggingface_hub >= 1.0.)
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "publish-metric", help="write the solver_accuracy evaluate Space folder", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("dir", type=output_dir, help="folder to write (script, README card, requirements.txt, app.py, wheel)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--wheel", default=None, help="a built vgau_data wheel to ship (default: build one)")
    source.add_argument("--requirement", default=None,
                        help="pip requirement installing vgau-data in the Space instead of a shipped wheel")
    parser.add_argument("--repo", default=None, metavar="OWNER/NAME",
                        help="the Space to upload to (default vgau/solver_accuracy): the shipped wheel's URL and the "
                             "script name (NAME.py) follow it")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.metrics.space import SPACE_ID, write_metric_space

    repo = args.repo or SPACE_ID
    for path in write_metric_space(args.dir, requirement=args.requirement, wheel=args.wheel, repo=repo):
        print(f"wrote {path}")
    print(f"ready to upload to the Space {repo} (see --help for the command)")
    return 0
