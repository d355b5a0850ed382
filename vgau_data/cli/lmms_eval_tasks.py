"""``vgau-data lmms-eval-tasks``: print the folder of the shipped lmms-eval tasks (for ``--include_path``)."""

from __future__ import annotations

import argparse

EPILOG = """examples:
  lmms-eval --model openai --model_args model_version=M,base_url=http://127.0.0.1:8000/v1 \\
    --tasks vgau_direct --include_path "$(vgau-data lmms-eval-tasks)" --output_path logs --log_samples
  VGAU_PUZZLES=vgau_puzzles lmms-eval ...     # a local build instead of the Hub dataset vgau/puzzles

tasks: vgau_<family>_<protocol>; groups: vgau_<protocol> over every registered family
(protocols: direct, text_cot, oracle_gta, oracle_vcot, oracle_aug_vcot).
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "lmms-eval-tasks", help="print the lmms-eval task folder for --include_path", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--list", action="store_true", help="list the task and group names instead")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.errors import VgauError
    from vgau_data.integrations.lmms_eval import missing_families, tasks_dir
    from vgau_data.integrations.lmms_eval.task_files import task_names

    missing = missing_families()
    if missing:  # their groups would leave these families out without a word
        raise VgauError(f"the shipped lmms-eval tasks have none for {', '.join(missing)}; regenerate them: "
                        "python -m vgau_data.integrations.lmms_eval.task_files (docs/adding-a-family.md)")
    print("\n".join(task_names()) if args.list else tasks_dir())
    return 0
