"""A small real build shared by the harness-bridge tests (every family, 2 easy + 1 medium rows),
and lmms-eval 0.7.3 itself where the machine has it (tests/external.py)."""

from __future__ import annotations

import base64
import hashlib
import io
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.external import require_tool
from tests.metrics.conftest import HARNESS_V2, harness_v2_dataset  # noqa: F401  (fixtures shared with tests/metrics)
from tests.runners.conftest import fake_server  # noqa: F401  (the loopback OpenAI server fixture)

LMMS_EVAL_INSTALL = (
    'python3 -m venv .venv-lmms-eval && .venv-lmms-eval/bin/pip install "lmms-eval==0.7.3" "filelock<4.3" -e . '
    "&& export VGAU_LMMS_EVAL_PYTHON=$PWD/.venv-lmms-eval/bin/python (or the light venv of .ci/run)"
)


@pytest.fixture(scope="session")
def bridge_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from vgau_data.builders import build_dataset

    out = tmp_path_factory.mktemp("bridge") / "puzzles"
    build_dataset(out, seed=0, counts={"easy": 2, "medium": 1, "hard": 0}, workers=1, progress=False)
    return out


@pytest.fixture(scope="session")
def decoded_rows(bridge_dataset: Path) -> dict[str, list[dict[str, Any]]]:
    """Rows as lmms-eval hands them to task functions: ``datasets`` rows with PIL images."""
    from vgau_data.builders.load import load_puzzles
    from vgau_data.registry import FAMILIES

    return {family: [dict(row) for row in load_puzzles(bridge_dataset, family)] for family in FAMILIES}


@pytest.fixture(scope="session")
def lmms_eval_python() -> str:
    """lmms-eval 0.7.3's interpreter (with vgau_data importable there), from ``$VGAU_LMMS_EVAL_PYTHON``."""
    return require_tool("VGAU_LMMS_EVAL_PYTHON", install=LMMS_EVAL_INSTALL)


def pixel_key(image: Any) -> str:
    return hashlib.sha256(image.convert("RGB").tobytes()).hexdigest()


class OracleByBoard:
    """Answers lmms-eval's ``openai`` requests like the scripted oracle, telling the row by its board's pixels.

    Single-turn prompts get a multi-paragraph reply ending in the optimal answer the first
    time a prompt is seen, and ``WRONG`` on a repeat of it (so ``-n 2`` gives two different
    runs); interactive prompts get the next optimal step after a blank line.
    """

    WRONG = "I do not know."

    def __init__(self, rows: dict[str, list[dict[str, Any]]]) -> None:
        from vgau_data.runners.instances import instance_from_row
        from vgau_data.runners.policies import make_policy

        flat = [row for family_rows in rows.values() for row in family_rows]
        self.by_board = {pixel_key(row["image"]): row["id"] for row in flat}
        self.oracle = make_policy("oracle", [instance_from_row(row) for row in flat])
        self.seen: Counter[str] = Counter()

    def __call__(self, body: dict[str, Any], headers: dict[str, str]) -> str:
        from PIL import Image

        from vgau_data.runners.messages import Conversation, Message, TextPart

        parts = [p for m in body["messages"] if isinstance(m["content"], list) for p in m["content"]]
        text = "\n".join(p["text"] for p in parts if p.get("type") == "text")
        url = next(p["image_url"]["url"] for p in parts if p.get("type") == "image_url")
        row_id = self.by_board[pixel_key(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))))]
        if "one step at a time" in text:
            turns = text.count("Your reply:")
            messages = (Message("user", (TextPart(text),)),) + (Message("assistant", (TextPart("x"),)),) * turns
            return "Looking at the board.\n\n" + self.oracle(Conversation(messages, f"{row_id}/oracle_vcot/run0", "step"))
        self.seen[row_id + text] += 1
        if self.seen[row_id + text] > 1:
            return self.WRONG
        answer = self.oracle(Conversation((Message("user", (TextPart(text),)),), f"{row_id}/direct/run0", "answer"))
        return f"1) Start and goal found.\n\nEvery move checked.\n\n2) {answer.splitlines()[-1]}"

