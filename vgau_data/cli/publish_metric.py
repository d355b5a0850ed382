"""``vgau-data publish-metric``: write the ``vgau/solver_accuracy`` Space folder, ready for upload."""

from __future__ import annotations

import argparse

from vgau_data.cli.args import output_dir

EPILOG = """examples:
  vgau-data publish-metric space_solver_accuracy                       # ships a wheel built from this checkout
  vgau-data publish-metric space --wheel dist/vgau_data-0.1.0-py3-none-any.whl
  vgau-data publish-metric space --requirement "vgau-data @ git+https://github.com/vgau/vgau_data@v0.1.0"

then upload (needs a token with write access to the vgau organisation):
  python -c "from huggingface_hub import HfApi; a = HfApi(); \\
    a.create_repo('vgau/solver_accuracy', repo_type='space', space_sdk='gradio', exist_ok=True); \\
    a.upload_folder(repo_id='vgau/solver_accuracy', repo_type='space', folder_path='space_solver_accuracy')"
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
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.metrics.space import SPACE_ID, write_metric_space

    for path in write_metric_space(args.dir, requirement=args.requirement, wheel=args.wheel):
        print(f"wrote {path}")
    print(f"ready to upload to the Space {SPACE_ID} (see --help for the command)")
    return 0
