"""Fetch rewards from a URL with OpenRLHF's own HTTP reward client; write what it returned as JSON.

Run by ``test_openrlhf.py`` in OpenRLHF's venv (``$VGAU_OPENRLHF_PYTHON``):
``python openrlhf_remote.py OUT_JSON PAYLOAD_JSON URL [URL ...]``. OpenRLHF 0.11's
``SingleTurnAgentExecutor`` is built with the URLs as ``--reward.remote_url`` gives them, and
its ``_fetch_rewards_via_http`` (aiohttp: one POST per URL, each with its shard of the
samples, a 180 s timeout, five tries a second apart) is awaited on the payload's
``query``, ``prompts`` and ``labels``, as ``execute`` awaits it after a rollout. Nothing of
vgau_data is imported here: the reply is what OpenRLHF read off the wire.

``openrlhf.utils``' ``__init__`` imports torch and transformers for its training helpers
(4 s of CPU), which neither ``agent.py`` nor its one import, ``logging_utils.py``, use: the
package is entered without it, and both modules run from OpenRLHF's files as they are.
"""

import asyncio
import importlib
import importlib.util
import json
import sys
import time
import types
from pathlib import Path


def agent_module() -> types.ModuleType:
    """``openrlhf.utils.agent``, imported with ``openrlhf.utils`` as a bare package (its ``__init__`` not run)."""
    utils = types.ModuleType("openrlhf.utils")
    utils.__path__ = [str(Path(importlib.util.find_spec("openrlhf").origin).parent / "utils")]
    sys.modules["openrlhf.utils"] = utils
    return importlib.import_module("openrlhf.utils.agent")


def main() -> None:
    out, payload_file, *urls = sys.argv[1:]
    SingleTurnAgentExecutor = agent_module().SingleTurnAgentExecutor  # noqa: N806  (OpenRLHF's class)

    with open(payload_file, encoding="utf-8") as handle:
        payload = json.load(handle)
    executor = SingleTurnAgentExecutor(remote_rm_url=urls if len(urls) > 1 else urls[0])
    start = time.monotonic()
    replies = asyncio.run(executor._fetch_rewards_via_http(payload["query"], payload["prompts"], payload["labels"]))
    record = {"replies": replies, "seconds": time.monotonic() - start}
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(record, handle)


if __name__ == "__main__":
    main()
