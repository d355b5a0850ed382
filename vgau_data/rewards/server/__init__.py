"""The HTTP reward server behind ``vgau-data serve-reward``: OpenRLHF's remote reward, as a bounded service.

OpenRLHF (0.11.2, ``SingleTurnAgentExecutor._fetch_rewards_via_http``) POSTs
``{"query": [...], "prompts": [...], "labels": [...]}`` with aiohttp to the URL given as
``--reward.remote_url``, retries any error status five times a second apart, and reads
``rewards``, ``scores`` and ``extra_logs`` from the JSON reply; it turns each
``extra_logs`` value into a tensor, so every value we log is a number.

The stack is uvicorn (h11) with Starlette, as OpenRLHF's own example server (FastAPI on
uvicorn); Starlette rather than FastAPI because a body here is never parsed on the server's
loop (FastAPI's models would parse it there) and nothing else of FastAPI is used. The
parts:

- ``app``: the HTTP side, with a whole-request read deadline, a connection cap and a cap on
  the request bytes held (503 with ``Retry-After`` past a cap);
- ``pool`` and ``workers``: ``--workers`` processes that score, each with a memory limit,
  killed and replaced when a request's work overruns its deadline;
- ``scoring``: what a worker does with a body: count its JSON values, parse, score each
  sample within its label's solve budget;
- ``limits``: every bound, with its default; ``launch``: a server as a child process.

Invalid JSON or a payload of the wrong shape is a 400, a label that is none of ours a 422,
each with ``{"error": message}``. The server binds loopback unless told otherwise.
"""

from __future__ import annotations

from collections.abc import Callable

from vgau_data.rewards.server.limits import ServerLimits

__all__ = ["ServerLimits", "serve"]


def serve(
    host: str = "127.0.0.1",
    port: int = 5000,
    *,
    kind: str = "optimal",
    workers: int = 2,
    limits: ServerLimits | None = None,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Start ``workers`` scoring processes, listen, call ``ready(url)``, and serve until SIGINT or SIGTERM.

    Raises:
        RewardError: an unknown ``kind``; OSError: the address cannot be bound;
        WorkerFailure: a worker did not start; MissingDependencyError: uvicorn, Starlette or orjson missing.
    """
    from vgau_data.errors import MissingDependencyError
    from vgau_data.rewards import get_kind
    from vgau_data.rewards.server.pool import WorkerPool

    try:
        from vgau_data.rewards.server.app import listen, run
        from vgau_data.rewards.server.scoring import answer  # noqa: F401  (what the workers import: orjson)
    except ImportError as error:
        raise MissingDependencyError(f'serve-reward needs uvicorn, starlette and orjson ({error}): pip install "vgau-data[serve]"') from None

    kind = get_kind(kind).name
    limits = limits or ServerLimits()
    sock = listen(host, port, limits)
    try:
        pool = WorkerPool(workers, kind, limits)
    except BaseException:
        sock.close()
        raise
    try:
        bound_host, bound_port = sock.getsockname()[:2]
        if ready is not None:
            ready(f"http://{bound_host}:{bound_port}/get_reward")
        run(sock, pool, limits, kind)
    finally:
        pool.close()
        sock.close()
