"""Rewrite ``verl_<version>_interaction.json``: ``PuzzleInteraction`` run as verl 0.7's agent loop runs one.

verl 0.8 removed ``verl.interactions``; run this with verl 0.7.x importable (for instance
``pip install --no-deps --target DIR verl==0.7.1`` and ``PYTHONPATH=DIR`` in a venv that has
verl's imports):
    python tests/data/rewards/capture_verl_interaction.py
It loads the interaction with verl's own ``initialize_interactions_from_config`` and calls
it as ``ToolAgentLoop`` does: ``start_interaction(request_id, **interaction_kwargs)``, then
per turn ``generate_response(request_id, messages, **interaction_kwargs)`` with the
conversation so far (verl ≤ 0.7 never calls ``calculate_score`` or ``finalize_interaction``).
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

STATE = ('{"goal":[1,3],"grid":["##########","#...######","##########","##########","##########",'
         '"##########","##########","##########","##########","##########"],"start":[1,1]}')


def main() -> None:
    import verl
    from verl.interactions.utils.interaction_registry import initialize_interactions_from_config

    from vgau_data.rewards.verl import INTERACTION_NAME, multi_turn_extra_info

    config = Path(tempfile.mkdtemp()) / "interaction.yaml"
    config.write_text(f"interaction:\n  - name: {INTERACTION_NAME}\n    class_name: vgau_data.rewards.verl.PuzzleInteraction\n"
                      "    config: {kind: progress}\n", encoding="utf-8")  # fmt: skip
    interactions = initialize_interactions_from_config(str(config))
    kwargs = multi_turn_extra_info("vgau/maze", STATE, {"optimal_length": 2})["interaction_kwargs"]
    interaction = interactions[kwargs["name"]]
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Solve the maze, one step per turn."}]
    turns = []

    async def play() -> None:
        await interaction.start_interaction("request-0", **kwargs)
        for reply in ("First, I go right. Next, move one step right.", "Next, move one step right."):
            messages.append({"role": "assistant", "content": reply})
            done, text, score, extra = await interaction.generate_response("request-0", messages, **kwargs)
            messages.append({"role": "user", "content": text})
            turns.append({"reply": reply, "done": done, "response": text, "turn_score": score, "extra": extra})
            if done:
                break

    asyncio.run(play())
    record = {"verl": verl.__version__, "interaction_kwargs": kwargs, "interactions": sorted(interactions), "turns": turns}
    out = Path(__file__).with_name(f"verl_{verl.__version__}_interaction.json")
    out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
