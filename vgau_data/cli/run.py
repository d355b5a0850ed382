"""``vgau-data run``: run a model under the paper's protocols, resumably, and score it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from vgau_data.cli.args import (
    fraction,
    int_between,
    non_negative_float,
    non_negative_int,
    output_dir,
    positive_float,
    positive_int,
    reader_choices,
)
from vgau_data.runners.protocols.base import GENERATION_CONTEXTS

EPILOG = """examples:
  # transformers, one GPU, all five protocols, smoke run on 2 rows per family
  vgau-data run --model /models/Qwen2.5-VL-7B-Instruct --backend hf --protocol all --limit 2 --out runs
  # an OpenAI-compatible server (vllm serve, SGLang, hosted APIs)
  vgau-data run --backend openai --base-url http://127.0.0.1:8000/v1 --model qwen2.5-vl-7b \\
      --protocol oracle_vcot --budget optimal fixed --out runs
  # 4 processes, one per GPU, then merge and score
  for i in 0 1 2 3; do
    CUDA_VISIBLE_DEVICES=$i vgau-data run --model M --protocol direct --shard $i/4 --out runs &
  done; wait
  vgau-data merge --out runs
  # scripted baselines (no model): oracle, oracle-stop-early, random
  vgau-data run --backend scripted --model oracle --protocol all --budget optimal fixed --out runs
  # the self-generation protocols with a scripted generator (oracle, noise, mismatch, perturbed-K), 3 runs each
  vgau-data run --backend scripted-image --model oracle --protocol self_gta self_vcot self_vcot_fixed self_vr --out runs
  # the paper's diagnostics for a VLM: noise drawn for it (a pair), every generation context
  vgau-data run --backend pair --generator scripted-image --generator-model noise --model /models/Qwen3.5-9B \
      --protocol self_gta self_vcot self_vr --generation-context reasoning direct decontextualized --out runs
  # any backend option by name (no shorthand flag needed): --backend-arg KEY=VALUE, repeatable
  vgau-data run --backend vllm --model /models/M --backend-arg limit_images_per_prompt=40 --protocol all --out runs

Rerunning the same command resumes: finished episodes are skipped, errored ones retried.
Exit status: 0 when every episode finished, 1 when backend errors remain (rerun to retry).
"""

SHORTHANDS: dict[str, str] = {
    "dtype": "dtype",
    "device": "device",
    "device_map": "device_map",
    "attn_implementation": "attn_implementation",
    "tensor_parallel_size": "tensor_parallel_size",
    "max_model_len": "max_model_len",
    "gpu_memory_utilization": "gpu_memory_utilization",
    "base_url": "base_url",
    "api_key_env": "api_key_env",
    "concurrency": "concurrency",
    "max_retries": "max_retries",
    "request_timeout": "timeout_s",
    "generator": "generator",
    "generator_model": "generator_model",
}
"""Documented shorthand flags -> the backend option they set (the same as ``--backend-arg``)."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    from vgau_data.runners.records import MAX_REQUESTED_RUNS
    parser = sub.add_parser(
        "run",
        help="run a model on the benchmark and score it",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    what = parser.add_argument_group("what to run")
    what.add_argument(
        "--model", required=True, help="local model folder (hf, vllm), served model name (openai), or policy (scripted)"
    )
    what.add_argument("--backend", choices=_backend_names(), default="hf", help="default: hf")
    what.add_argument(
        "--protocol",
        nargs="+",
        required=True,
        metavar="P",
        help=f"{' '.join(_protocol_names())} (or a budget variant such as self_vcot_fixed), or all: every one "
        "the backend can play (commas also work)",
    )
    what.add_argument(
        "--budget",
        nargs="+",
        choices=("optimal", "fixed"),
        default=["optimal"],
        help="interactive protocols: optimal (the paper's: at most optimal_length rounds) and/or fixed "
        "(section 4.4: the model says when it is done; cap 2x the optimum); default: optimal",
    )
    what.add_argument(
        "--reader",
        choices=reader_choices(),
        default="ours",
        help="how replies are read and scored: ours (default, the paper's text) or authors (the authors' released "
        "code: interactive episodes also end where theirs do); a non-default reader suffixes the variant names",
    )
    what.add_argument(
        "--history",
        default="all",
        help="images kept in interactive conversations: all, or the last K (a backend that reads one image "
        "declares max_images=1 and gets the last one)",
    )
    what.add_argument(
        "--generation-context",
        nargs="+",
        choices=GENERATION_CONTEXTS,
        default=[GENERATION_CONTEXTS[0]],
        help="protocols that draw: what reaches the image stage (UReason): reasoning (the conversation so far "
        "and the instruction; default), direct (the bare instruction), decontextualized (only an instruction "
        "the model rewrites)",
    )
    what.add_argument(
        "--dataset", default=None, help="folder built by `vgau-data build`, or Hub repo id (default vgau/puzzles)"
    )
    what.add_argument("--families", nargs="+", default=None, metavar="FAMILY", help="default: all in the dataset")
    what.add_argument("--difficulty", nargs="+", choices=("easy", "medium", "hard"), default=None, help="default: all")
    what.add_argument("--limit", type=positive_int, default=None, help="first N rows of each family (smoke runs)")
    what.add_argument(
        "--runs",
        type=int_between(1, MAX_REQUESTED_RUNS),
        default=None,
        help=f"independent runs (run k uses seed + k, at most {MAX_REQUESTED_RUNS}); default 3 for protocols that "
        "draw (as in the paper), else 1",
    )
    what.add_argument("--shard", default=None, metavar="i/N", help="run every N-th instance from i; merge later")
    what.add_argument(
        "--out", required=True, type=output_dir, help="output folder (records, submission.jsonl, results.json)"
    )
    what.add_argument("--model-name", default=None, help="name in the submission (default: the model folder or name)")

    gen = parser.add_argument_group("generation")
    gen.add_argument("--max-new-tokens", type=positive_int, default=8192, help="default 8192, like the paper")
    gen.add_argument("--temperature", type=non_negative_float, default=0.0, help="0 = greedy (default)")
    gen.add_argument("--top-p", type=fraction, default=1.0)
    gen.add_argument("--seed", type=non_negative_int, default=0, help="base seed; run k uses seed + k")
    gen.add_argument(
        "--batch-size", type=positive_int, default=None, help="episodes advanced per backend call (default by backend)"
    )

    options = parser.add_argument_group(
        "backend options", "every option of the chosen backend's class; unset ones keep its defaults"
    )
    options.add_argument(
        "--backend-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any backend option, repeatable (values: numbers, true/false/none, JSON, else text)",
    )
    options.add_argument("--dtype", default=None, choices=("auto", "float32", "bfloat16", "float16"), help="hf, vllm")
    options.add_argument("--device", default=None, help="hf: auto, cpu, cuda, cuda:1 ...")
    options.add_argument("--device-map", default=None, help="hf: e.g. auto (spread one model over all visible GPUs)")
    options.add_argument("--attn-implementation", default=None, help="hf: sdpa, flash_attention_2, eager")
    options.add_argument("--tensor-parallel-size", type=positive_int, default=None, help="vllm")
    options.add_argument("--max-model-len", type=positive_int, default=None, help="vllm")
    options.add_argument("--gpu-memory-utilization", type=fraction, default=None, help="vllm (default 0.9)")
    options.add_argument("--base-url", default=None, help="openai (default http://127.0.0.1:8000/v1)")
    options.add_argument(
        "--api-key-env", default=None, help="openai: variable holding the key (default OPENAI_API_KEY)"
    )
    options.add_argument(
        "--concurrency", type=positive_int, default=None, help="openai: requests in flight (default 16)"
    )
    options.add_argument("--max-retries", type=non_negative_int, default=None, help="openai (default 5)")
    options.add_argument(
        "--generator", default=None, help="pair: the backend that draws (e.g. diffusers, scripted-image)"
    )
    options.add_argument("--generator-model", default=None, help="pair: the generator's model (folder, name or script)")
    options.add_argument(
        "--request-timeout",
        type=positive_float,
        default=None,
        help="openai: seconds one request may take, connection to last byte (default 600)",
    )

    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(handler=run)


def _backend_names() -> list[str]:
    from vgau_data.runners.backends import BACKENDS

    return list(BACKENDS)


def _protocol_names() -> list[str]:
    from vgau_data.runners.protocols import protocol_names

    return protocol_names()


def protocol_configs(
    names: list[str],
    budgets: list[str],
    history: str,
    contexts: Sequence[str] = GENERATION_CONTEXTS[:1],
    reader: str = "ours",
) -> list[Any]:
    """``ProtocolConfig``s for the requested names x budgets x generation contexts, read by ``reader``.

    Each protocol takes the budgets it accepts, and the contexts when it draws; a budget
    variant (``self_vcot_fixed``) names its protocol and budget at once.
    """
    from vgau_data.runners.protocols import ProtocolConfig, ProtocolError, protocol_class, protocol_names

    requested = [part for name in names for part in name.split(",") if part]
    if "all" in requested:
        requested = protocol_names()
    if history == "all":
        keep = None
    elif history.isdigit():
        keep = int(history)
    else:
        raise ProtocolError(f"--history must be 'all' or a number of images, got {history!r}")
    variants = {
        f"{name}_{budget}": (name, budget) for name in protocol_names() for budget in protocol_class(name).budgets
    }
    configs = []
    for name in dict.fromkeys(requested):
        if name in variants:
            name, chosen = variants[name]
            wanted = [chosen]
        else:
            accepted = protocol_class(name).budgets
            wanted = [b for b in dict.fromkeys(budgets) if b in accepted] or ["optimal"]
        drawn = contexts if protocol_class(name).draws else [GENERATION_CONTEXTS[0]]
        for budget in wanted:
            for context in dict.fromkeys(drawn):
                config = ProtocolConfig(
                    name=name, budget=budget, history=keep, generation_context=context, reader=reader  # type: ignore[arg-type]
                )
                if config not in configs:
                    configs.append(config)
    return configs


def playable(configs: list[Any], backend: Any, requested: list[str]) -> list[Any]:
    """The configs, checked against the backend; ``all`` keeps only the protocols it can play.

    Configs are fitted to the images the backend reads (``max_images``), with a note.
    """
    from vgau_data.runners.backends.base import IMAGE_CAPABILITIES, capabilities_of, image_limit
    from vgau_data.runners.driver import check_backend, fit_history

    if "all" in [part for name in requested for part in name.split(",")]:
        draws = bool(capabilities_of(backend) & IMAGE_CAPABILITIES)
        configs = [config for config in configs if draws or not config.protocol.draws]
    check_backend(configs, backend)
    fitted = fit_history(configs, backend)
    changed = [f"{old.variant} -> {new.variant}" for old, new in zip(configs, fitted) if old != new]
    if changed:
        print(
            f"the backend reads at most {image_limit(backend)} image(s) per request: {', '.join(changed)}",
            file=sys.stderr,
        )
    return fitted


def backend_options(args: argparse.Namespace, instances: list[Any]) -> dict[str, Any]:
    """The backend's keyword options: ``--model``, the shorthand flags given, then ``--backend-arg``s.

    The run's instances are passed to backends that take them (scripted policies, the
    mismatch generator, a pair).
    """
    from vgau_data.runners.backends import backend_class, parse_backend_arg
    from vgau_data.runners.backends import backend_options as accepted_options

    options: dict[str, Any] = {"model": args.model}
    options.update(
        {option: getattr(args, flag) for flag, option in SHORTHANDS.items() if getattr(args, flag) is not None}
    )
    options.update(parse_backend_arg(text) for text in args.backend_arg)
    if "instances" in (accepted_options(backend_class(args.backend)) or {}):
        options["instances"] = instances
    return options


def build_backend(args: argparse.Namespace, instances: list[Any]) -> Any:
    from vgau_data.runners.backends import load_backend

    return load_backend(args.backend, **backend_options(args, instances))


class LiveProgress:
    """A tqdm bar over episodes with live optimal/feasible accuracy and the error count."""

    def __init__(self, total: int, enabled: bool) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total, unit="ep", disable=not enabled, file=sys.stderr, dynamic_ncols=True)
        self.scored = self.optimal = self.feasible = self.errors = 0

    def skipped(self, count: int) -> None:
        self.bar.update(count)

    def record(self, record: dict[str, Any]) -> None:
        verdict = record.get("verdict")
        if verdict is None:
            self.errors += 1
        else:
            self.scored += 1
            self.optimal += bool(verdict["optimal"])
            self.feasible += bool(verdict["feasible"])
        if self.scored:
            self.bar.set_postfix_str(
                f"opt {100 * self.optimal / self.scored:.1f}% "
                f"feas {100 * self.feasible / self.scored:.1f}% err {self.errors}",
                refresh=False,
            )
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from vgau_data.metrics.references import load_references
    from vgau_data.metrics.results import protocol_results
    from vgau_data.runners.backends import backend_class, default_batch_size
    from vgau_data.runners.backends.base import GenParams
    from vgau_data.runners.driver import RunPlan, run_benchmark
    from vgau_data.runners.instances import DEFAULT_DATASET, load_instances, parse_shard, shard_instances, source_of
    from vgau_data.runners.records import folder_lock
    from vgau_data.runners.report import write_report

    configs = protocol_configs(args.protocol, args.budget, args.history, args.generation_context, args.reader)
    shard = parse_shard(args.shard) if args.shard else None
    references = load_references(args.dataset or DEFAULT_DATASET)
    dataset = source_of(references)
    selected = load_instances(dataset, families=args.families, difficulties=args.difficulty, limit=args.limit)
    instances = shard_instances(selected, *shard) if shard is not None else selected
    gen = GenParams(
        max_new_tokens=args.max_new_tokens,
        greedy=args.temperature == 0,
        temperature=args.temperature or 1.0,
        top_p=args.top_p,
        seed=args.seed,
    )
    backend = build_backend(args, selected)  # every shard's backend sees the whole selection (mismatch picks from it)
    configs = playable(configs, backend, args.protocol)
    plan = RunPlan(
        out_dir=Path(args.out),
        protocols=configs,
        gen=gen,
        runs=args.runs,
        batch_size=args.batch_size or default_batch_size(backend_class(args.backend)),
        shard=shard,
        model_name=args.model_name or getattr(backend, "display_name", None) or args.model,
        selection={"families": args.families, "difficulties": args.difficulty, "limit": args.limit},
    )
    total = len(instances) * sum(plan.runs_of(c) for c in configs)
    print(
        f"{len(instances)} instances x {len(configs)} protocol(s) = {total} episodes "
        f"({', '.join(f'{c.variant} x{plan.runs_of(c)}' for c in configs)})",
        file=sys.stderr,
    )
    progress = LiveProgress(total, enabled=not args.no_progress)
    try:
        summary = run_benchmark(backend, instances, dataset, plan, on_record=progress.record, on_skip=progress.skipped)
    finally:
        progress.close()
    print(
        f"{summary.finished} episodes run, {summary.skipped} already done, {summary.errors} backend errors, "
        f"{summary.calls} backend calls, {summary.seconds:.1f} s; records in {summary.model_dir / 'records'}"
    )
    if shard is not None:
        print(f"shard {shard[0]}/{shard[1]} done; after every shard finishes: vgau-data merge --out {args.out}")
        return 1 if summary.errors else 0
    with folder_lock(summary.model_dir, exclusive=False):  # a merge must not rewrite records under the report
        report = write_report(summary.model_dir, references)
    print(report.text)
    print(f"wrote {report.submission_path} and {report.results_path}")
    if not all(result["coverage"]["complete"] for result in protocol_results(report.results)[2].values()):
        print(
            "the scores count every dataset row, unanswered ones as failed (as `vgau-data score` counts the "
            f"submission); `vgau-data score {report.submission_path} --dataset {dataset.source} --subset` scores "
            "the answered rows only (not comparable with full runs)"
        )
    if report.n_errors:
        print(
            f"{report.n_errors} episode(s) ended in backend errors and are not in the submission; "
            "rerun the same command to retry them",
            file=sys.stderr,
        )
        return 1
    return 0
