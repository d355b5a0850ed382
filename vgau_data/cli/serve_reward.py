"""``vgau-data serve-reward``: an HTTP reward server for OpenRLHF's ``--reward.remote_url``."""

from __future__ import annotations

import argparse

from vgau_data.cli.args import positive_float, positive_int, say

EPILOG = """examples:
  vgau-data serve-reward --port 5000
  vgau-data serve-reward --port 5000 --kind progress
  # then: python -m openrlhf.cli.train_ppo_ray ... --reward.remote_url http://127.0.0.1:5000/get_reward \\
  #         --data.label_key reference

POST {"query": [...], "prompts": [...], "labels": [...]} (OpenRLHF's payload: prompt + response
texts, prompts, and each row's reference JSON, or its state JSON, as its label) -> {"rewards", "scores", "extra_logs"}.
GET /health says the kind served. The server binds 127.0.0.1 unless --host says otherwise; a
request past a limit is refused (413, 411, 503) or cut off (--timeout), never left to grow.
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
    parser.add_argument("--max-body-mb", type=positive_float, default=defaults.max_body_bytes / 2**20,
                        help=f"largest request body in MiB (default {defaults.max_body_bytes / 2**20:g})")
    parser.add_argument("--timeout", type=positive_float, default=defaults.request_timeout_s,
                        help=f"seconds a connection may take, sending included (default {defaults.request_timeout_s:g})")
    parser.add_argument("--max-connections", type=positive_int, default=defaults.max_connections,
                        help=f"connections served at once; more are answered 503 (default {defaults.max_connections})")
    parser.add_argument("--max-samples", type=positive_int, default=defaults.max_samples,
                        help=f"samples per request (default {defaults.max_samples})")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.rewards.server import ServerLimits, serve

    if not 0 <= args.port <= 65535:
        raise OSError(f"--port must be 0-65535, got {args.port}")
    limits = ServerLimits(max_body_bytes=int(args.max_body_mb * 2**20), request_timeout_s=args.timeout,
                          max_connections=args.max_connections, max_samples=args.max_samples)  # fmt: skip
    server = serve(args.host, args.port, kind=args.kind, limits=limits)
    host, port = server.server_address[:2]
    say(f"vgau-data reward ({args.kind}) on http://{host}:{port}/get_reward  (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
