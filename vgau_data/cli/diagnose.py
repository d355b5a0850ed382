"""``vgau-data diagnose``: the paper's diagnosis of generation-assisted understanding (section 4.3-4.4)."""

from __future__ import annotations

import argparse
import shutil
from typing import TYPE_CHECKING

from vgau_data.cli.args import output_dir, output_file, positive_int, say

if TYPE_CHECKING:
    from pathlib import Path

    from vgau_data.diagnosis.collect import Diagnosis

LAYOUTS = ("sources", "models")
MEASURES = ("accuracy", "feasible", "cells", "exact", "ssim", "lpips")
"""``vgau_data.diagnosis.tables``'s layouts and measures, named here so that parsing imports nothing heavy."""

EPILOG = """examples:
  vgau-data diagnose runs                          # Table 3 per answering model, cell agreement
  vgau-data diagnose runs --plot --lpips-weights ~/weights/alexnet-owt-7be5be79.pth
  vgau-data diagnose runs --layout models --families maze sokoban parking   # Tables 3, 10, 11
  vgau-data diagnose runs --paired Janus-Pro-7B-1a2b3c4d deepseek-vl-7b-5e6f7a8b   # UniG2U deltas
  vgau-data diagnose --paired janus/results.json deepseek/results.json --difficulty all

RUNS_DIR is the --out folder of `vgau-data run`: every model folder in it is read. A
condition is an answering model x an image source (noise, mismatch, each external
generator, perturbed, oracle, the model itself) x a paradigm (GtA, VCoT, VCoT-fixed, VR).
Accuracy is optimal accuracy on the chosen rows (default: easy, as the paper), mean over
runs, with the difference to the same model's Text-CoT in parentheses.

Image fidelity (cell agreement, exact state, SSIM, the self-VR red route, and LPIPS with
--lpips-weights) is computed once per image and cached in each model folder's
fidelity.jsonl: a rerun, or a run after a killed one, measures only what is missing.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    from vgau_data.puzzles.base import DIFFICULTIES
    from vgau_data.registry import FAMILIES

    parser = sub.add_parser(
        "diagnose",
        help="the paper's diagnosis tables and Figure 3 from run records",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "runs_dir",
        nargs="?",
        default=None,
        metavar="RUNS_DIR",
        help="the --out folder of `vgau-data run` (optional with --paired)",
    )
    parser.add_argument(
        "--difficulty",
        nargs="+",
        default=["easy"],
        choices=[*DIFFICULTIES, "all"],
        help="rows to report (default: easy, as the paper's diagnosis)",
    )
    parser.add_argument(
        "--families",
        nargs="+",
        default=None,
        choices=list(FAMILIES),
        metavar="FAMILY",
        help="families to show (default: every family with records)",
    )
    parser.add_argument(
        "--layout",
        default="sources",
        choices=LAYOUTS,
        help="sources: a table per answering model, a row per image source, columns family x "
        "paradigm; models: the paper's page, a table per family, a column per answering model",
    )
    parser.add_argument(
        "--measures",
        nargs="+",
        default=["accuracy", "cells", "lpips"],
        choices=MEASURES,
        help="tables to print (default: accuracy cells lpips)",
    )
    parser.add_argument(
        "--lpips-weights",
        default=None,
        metavar="FILE",
        help="torchvision's AlexNet weights alexnet-owt-7be5be79.pth: compute LPIPS (needs torch)",
    )
    parser.add_argument(
        "--lpips-heads",
        default=None,
        metavar="FILE",
        help="the lpips package's weights/v0.1/alex.pth (default: from an installed lpips)",
    )
    parser.add_argument("--device", default="cpu", help="torch device for LPIPS (default cpu)")
    parser.add_argument(
        "--paired",
        nargs=2,
        default=None,
        metavar=("UNIFIED", "BASE"),
        help="UniG2U paired deltas: a unified model and its base VLM, each a results.json, a "
        "model folder, or a model folder's name under RUNS_DIR",
    )
    parser.add_argument("--plot", action="store_true", help="draw Figure 3 (needs matplotlib: the plot extra)")
    parser.add_argument(
        "--plot-dir", type=output_dir, default=None, help="folder for the figures (default: RUNS_DIR/diagnosis)"
    )
    parser.add_argument("--out", type=output_file, default=None, help="also write every number as JSON here")
    parser.add_argument("--workers", type=positive_int, default=1, help="processes measuring images (default 1)")
    parser.add_argument(
        "--width",
        type=positive_int,
        default=None,
        help="widest table line (default: the terminal's width, at least 100)",
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from vgau_data import safe_io, safe_json
    from vgau_data.diagnosis.collect import DiagnosisError
    from vgau_data.puzzles.base import DIFFICULTIES

    if args.runs_dir is None and args.paired is None:
        raise DiagnosisError("give RUNS_DIR (the --out folder of `vgau-data run`), or --paired UNIFIED BASE")
    difficulties = tuple(DIFFICULTIES) if "all" in args.difficulty else tuple(args.difficulty)
    width = args.width or max(100, shutil.get_terminal_size((160, 40)).columns)
    runs_dir = Path(args.runs_dir) if args.runs_dir is not None else None
    if runs_dir is not None:
        diagnosis = _diagnose(args, runs_dir, difficulties, width)
        if args.out:
            safe_io.write_text(args.out, safe_json.dumps(diagnosis.to_json(), indent=2) + "\n")
            say(f"wrote {args.out}", err=True)
    if args.paired is not None:
        from vgau_data.diagnosis.paired import load_results, paired_table

        unified, base = (load_results(where, runs_dir) for where in args.paired)
        say("")
        say(paired_table(unified, base, difficulties=difficulties, families=args.families, width=width))
    return 0


def _diagnose(args: argparse.Namespace, runs_dir: Path, difficulties: tuple[str, ...], width: int) -> Diagnosis:
    from pathlib import Path

    from vgau_data.diagnosis.collect import diagnose
    from vgau_data.diagnosis.tables import context_table, diagnosis_tables, route_table

    lpips = None
    if args.lpips_weights:
        from vgau_data.runners.perceptual import Lpips

        lpips = Lpips(args.lpips_weights, heads_path=args.lpips_heads, device=args.device)
    diagnosis = diagnose(runs_dir, difficulties=difficulties, families=args.families, lpips=lpips,
                         workers=args.workers, progress=not args.no_progress)  # fmt: skip
    say(diagnosis_tables(diagnosis, args.measures, args.layout, width=width))
    for extra in (route_table(diagnosis, width=width), context_table(diagnosis, width=width)):
        if extra is not None:
            say("")
            say(extra)
    if diagnosis.lpips is not None:
        say(
            f"\nLPIPS: AlexNet trunk sha256 {diagnosis.lpips['trunk_sha256'][:16]}..."
            + ("" if diagnosis.lpips["official_trunk"] else " (not torchvision's release: figures are not the paper's)")
        )
    for warning in diagnosis.warnings:
        say(f"warning: {warning}", err=True)
    if args.plot:
        from vgau_data.diagnosis.figure import plot_figures

        plot_dir = Path(args.plot_dir) if args.plot_dir else runs_dir / "diagnosis"
        written = plot_figures(diagnosis, plot_dir)
        for path in written:
            say(f"wrote {path}", err=True)
        if not written:
            say(
                "no figure: no condition has measured images (Figure 3 plots accuracy against image fidelity)", err=True
            )
    return diagnosis
