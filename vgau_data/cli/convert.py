"""``vgau-data convert``: lmms-eval samples files or VLMEvalKit predictions -> a submission file."""

from __future__ import annotations

import argparse

from vgau_data.cli.args import non_negative_int, output_file, say

EPILOG = """examples:
  vgau-data convert --from lmms-eval logs/*/*_samples_vgau_*.jsonl --dataset vgau_puzzles \\
    --model Qwen2.5-VL-7B --out qwen.jsonl
  vgau-data convert --from vlmevalkit outputs/Qwen2.5-VL-7B/*/Qwen2.5-VL-7B_VGAU_*.xlsx \\
    --dataset vgau/puzzles --model Qwen2.5-VL-7B --out qwen.jsonl

lmms-eval: the protocol and family come from the task name in each file name
(<date>_samples_vgau_<family>_<protocol>.jsonl), the row from `target` (our row id);
repeats logged by lmms-eval (-n K) become runs 0..K-1; the settings in the run's
<date>_results.json (generation_kwargs, repeats, task versions) go into the header;
failed requests are left out and named.
VLMEvalKit: rows from the `id` column, else `index` in the family named by the file
(<model>_VGAU_<family>_<protocol>.xlsx) or --family; the run folder's status.json goes into
the header (VLMEvalKit records no generation settings: give them with --setting
temperature=0 --setting max_tokens=2048). A file that cannot be placed is refused.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "convert", help="convert lmms-eval / VLMEvalKit outputs to a submission", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="+", help="lmms-eval *_samples_*.jsonl, or VLMEvalKit .xlsx/.tsv/.csv/.json predictions")
    parser.add_argument("--from", dest="harness", required=True, choices=("lmms-eval", "vlmevalkit"),
                        help="source harness")
    parser.add_argument("--dataset", required=True, help="the dataset folder or Hub repo id the outputs were made on")
    parser.add_argument("--revision", default=None, help="Hub revision of the dataset (repo ids only)")
    parser.add_argument("--out", required=True, type=output_file, help="submission file to write")
    parser.add_argument("--model", required=True, help="model name for the header")
    parser.add_argument("--protocol", default=None,
                        help="protocol of these outputs (default: from the task or dataset name in each file name)")
    parser.add_argument("--run", type=non_negative_int, default=0, help="run index of these outputs (default 0)")
    parser.add_argument("--family", default=None, help="family of the rows when a file names rows by position only")
    parser.add_argument("--setting", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting the harness did not record (e.g. VLMEvalKit's model temperature), for the "
                             "header's settings; repeatable, values as in run --backend-arg")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.integrations.convert import convert
    from vgau_data.metrics.references import load_references
    from vgau_data.metrics.submission import write_submission
    from vgau_data.runners.backends import parse_backend_arg

    given = dict(parse_backend_arg(text, "--setting") for text in args.setting)
    references = load_references(args.dataset, revision=args.revision)
    submission, converted = convert(
        args.harness, args.files, references, model=args.model, protocol=args.protocol, run=args.run, family=args.family,
        settings={"given": given} if given else None,
    )
    for warning in converted.warnings:
        say(f"warning: {warning}", err=True)
    if converted.failed:
        say(f"kept {len(converted.failed)} failed request(s) as failed records (scored as missing; --subset counts them, as the harness does):", err=True)
        for failure in converted.failed[:50]:
            say(f"  {failure}", err=True)
    for harness, runs in converted.settings.items():
        if harness != "tasks":
            say(f"settings recorded by {harness} ({', '.join(runs)}) are in the header", err=True)
    path = write_submission(args.out, submission)
    say(f"wrote {len(submission.records)} records from {len(args.files)} file(s) to {path}", err=True)
    return 0
