"""``vgau-data serve-reward``: an HTTP reward server for OpenRLHF's ``--reward.remote_url``."""

from __future__ import annotations

import argparse
import os
import sys

from vgau_data.cli.args import positive_float, positive_int, say

EPILOG = """examples:
  vgau-data serve-reward --port 5000
  vgau-data serve-reward --port 5000 --kind progress --workers 4
  # then: python -m openrlhf.cli.train_ppo_ray ... --reward.remote_url http://127.0.0.1:5000/get_reward \\
  #         --data.label_key reference

POST {"query": [...], "prompts": [...], "labels": [...]} (OpenRLHF's payload: prompt + response
texts, prompts, and each row's reference JSON, or its state JSON, as its label) -> {"rewards", "scores", "extra_logs"}.
GET /health says the kind served. The server binds 127.0.0.1 unless --host says otherwise; it scores
in --workers processes, and a request past a limit is refused (413, 411, 503 with Retry-After),
cut off (--read-timeout) or stopped (--timeout: its worker is killed and replaced), never left to grow.
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    from vgau_data.rewards import REWARD_KINDS
    from vgau_data.rewards.server import ServerLimits

    defaults = ServerLimits()
    parser = sub.add_parser(
        "serve-reward", help="serve the replay reward over HTTP (OpenRLHF's remote reward)", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=5000, help="port to listen on (default 5000; 0 picks a free one)")
    parser.add_argument("--kind", choices=list(REWARD_KINDS), default="optimal", help="reward kind (default optimal)")
    parser.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1,
                        help="scoring processes (default: one per CPU)")
    parser.add_argument("--max-body-mb", type=positive_float, default=defaults.max_body_bytes / 2**20,
                        help=f"largest request body in MiB (default {defaults.max_body_bytes / 2**20:g})")
    parser.add_argument("--read-timeout", type=positive_float, default=defaults.read_timeout_s,
                        help=f"seconds a request's headers and body may take to arrive (default {defaults.read_timeout_s:g})")
    parser.add_argument("--timeout", type=positive_float, default=defaults.request_timeout_s,
                        help=f"seconds a request's work may take, waiting for a worker included; past it the worker "
                             f"is killed and replaced and the reply is 504 (default {defaults.request_timeout_s:g})")
    parser.add_argument("--solve-seconds", type=positive_float, default=defaults.solve_seconds,
                        help=f"each label's solve budget; past it the sample pays 0 (extra_logs vgau_over_budget) "
                             f"(default {defaults.solve_seconds:g})")
    parser.add_argument("--solve-positions", type=positive_int, default=defaults.solve_positions,
                        help=f"positions each label's solve may meet; past them the sample pays 0 "
                             f"(default {defaults.solve_positions:,})")
    parser.add_argument("--worker-memory-mb", type=positive_int, default=defaults.worker_memory_mb,
                        help=f"memory each worker may take beyond its start (default {defaults.worker_memory_mb})")
    parser.add_argument("--max-connections", type=positive_int, default=defaults.max_connections,
                        help=f"open connections; more are answered 503 (default {defaults.max_connections})")
    parser.add_argument("--max-queued", type=positive_int, default=defaults.max_queued,
                        help=f"requests waiting for a worker; more are answered 503 (default {defaults.max_queued})")
    parser.add_argument("--max-samples", type=positive_int, default=defaults.max_samples,
                        help=f"samples per request (default {defaults.max_samples})")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.rewards.server import ServerLimits, serve

    if not 0 <= args.port <= 65535:
        raise OSError(f"--port must be 0-65535, got {args.port}")
    body = int(args.max_body_mb * 2**20)
    limits = ServerLimits(
        max_body_bytes=body, max_buffered_bytes=max(body, ServerLimits().max_buffered_bytes),
        read_timeout_s=args.read_timeout, request_timeout_s=args.timeout, solve_seconds=args.solve_seconds,
        solve_positions=args.solve_positions,
        worker_memory_mb=args.worker_memory_mb, max_connections=args.max_connections, max_queued=args.max_queued,
        max_samples=args.max_samples,
    )  # fmt: skip

    def ready(url: str) -> None:
        say(f"vgau-data reward ({args.kind}) on {url}  ({args.workers} workers; Ctrl-C stops)")
        sys.stdout.flush()  # a pipe's reader (a test, a launcher) waits for this line

    serve(args.host, args.port, kind=args.kind, workers=args.workers, limits=limits, ready=ready)
    return 0
