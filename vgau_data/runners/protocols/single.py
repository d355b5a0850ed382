"""Single-turn protocols: one question, one answer (A.2.1, A.2.5, the direct baseline and Oracle-VR)."""

from __future__ import annotations

from typing import Any

from vgau_data.puzzles import prompts
from vgau_data.runners.messages import Asks, Message, assistant, user
from vgau_data.runners.protocols.base import Episode, Turn, register


class SingleTurnEpisode(Episode):
    """One request holding ``first_message()``; the reply is the answer scored."""

    def first_message(self) -> Message:
        raise NotImplementedError

    def _pending(self) -> tuple[list[Message], Asks]:
        if not self.messages:
            self.messages = [self.first_message()]
        return self.messages, "answer"

    def _reply(self, turn: Turn, text: str) -> None:
        self.messages.append(assistant(text))
        self._finish(text, "answered")

    def _state(self) -> Any:
        return self.instance.initial_state()


@register
class Direct(SingleTurnEpisode):
    name = "direct"

    def first_message(self) -> Message:
        return user(self.instance.image, prompts.direct(self.family, self._state()))


@register
class TextCoT(SingleTurnEpisode):
    name = "text_cot"

    def first_message(self) -> Message:
        return user(self.instance.image, prompts.text_cot(self.family, self._state()))


@register
class OracleGtA(SingleTurnEpisode):
    name = "oracle_gta"

    def first_message(self) -> Message:
        return user(self.instance.image, self.instance.aid(), prompts.with_aid(self.family, self._state()))


@register
class OracleVR(SingleTurnEpisode):
    name = "oracle_vr"
    needs = ("vr",)

    def first_message(self) -> Message:
        prompt = prompts.with_solution_drawing(self.family, self._state(), drawn_by_model=False)
        return user(self.instance.image, self.instance.vr_drawing(), prompt)
