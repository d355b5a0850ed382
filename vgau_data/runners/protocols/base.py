"""What a protocol is: an episode class, registered under its name, that a driver steps.

An episode holds one instance under one protocol. The driver asks it for its
``request()`` (a ``Conversation`` whose ``asks`` says what kind of reply is wanted), hands
back the model's ``Completion`` with ``advance()``, and repeats until ``done``;
``outcome()`` then says what the model answered and how the episode ended.

A protocol is an entry of ``vgau_data.protocols`` (its name, its ``rank`` in tables, its
``summary`` and its kind: ``interactive``, ``draws``), which scoring and the harness
bridges read without importing the runners, and a subclass of ``Episode`` of the same
``name`` decorated with ``@register``, which plays it: ``register`` takes the entry's rank,
summary and ``budgets`` onto the class and refuses a class whose kind differs from it.
The driver, the CLI and the scripted policies read the registry, so a new protocol is
one entry and one registered class.

A protocol in which the model draws sets ``draws``; it then takes a generation context
(what reaches its image stage, after UReason) and runs 3 times by default (``default_runs``:
the paper averages 3 runs of a unified model).

A protocol and its options make a ``ProtocolConfig``; its ``variant`` names it in records
and submissions (``oracle_vcot_fixed``, ``oracle_aug_vcot_last2``, ``self_gta_direct``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from vgau_data.errors import VgauError
from vgau_data.protocols import BUDGET_MODES, budget_variant
from vgau_data.protocols import PROTOCOLS as DECLARED
from vgau_data.puzzles.prompts import PROMPT_VERSION
from vgau_data.readers import DEFAULT_READER, READERS
from vgau_data.runners.messages import Asks, Conversation, ImagePart, Message, keep_last_images

if TYPE_CHECKING:
    from vgau_data.runners.backends.base import Completion
    from vgau_data.runners.instances import Instance

BudgetMode = Literal["optimal", "fixed"]

GenerationContext = Literal["reasoning", "direct", "decontextualized"]
GENERATION_CONTEXTS: tuple[str, ...] = ("reasoning", "direct", "decontextualized")
"""What reaches the image stage of a protocol that draws (UReason's three settings), default first:
``reasoning``, the conversation so far (the model's own replies) and the edit instruction;
``direct``, the edit instruction alone; ``decontextualized``, only an instruction the model
rewrote for an editor that sees nothing else. See ``protocols/drawn.py``."""

_REGISTRY: dict[str, type[Episode]] = {}
PROTOCOLS: Mapping[str, type[Episode]] = MappingProxyType(_REGISTRY)
"""Every registered protocol by name (a read-only view; ``protocol_names()`` gives table order)."""


class ProtocolError(VgauError, ValueError):
    """A protocol configuration that does not make sense (raised at setup, never mid-run)."""


EpisodeClass = TypeVar("EpisodeClass", bound="type[Episode]")


def register(cls: EpisodeClass) -> EpisodeClass:
    """Class decorator: add a protocol to the registry under its ``name``, with its entry's rank, summary and budgets.

    Raises:
        ProtocolError: the name is taken, is not a lowercase identifier or has no entry in
            ``vgau_data.protocols``, or the class is not of the entry's kind.
    """
    name = cls.name
    if not name.isidentifier() or name != name.lower():
        raise ProtocolError(f"protocol names are lowercase identifiers, got {name!r}")
    if name in _REGISTRY and _REGISTRY[name] is not cls:
        raise ProtocolError(f"protocol {name!r} is already registered by {_REGISTRY[name].__qualname__}")
    info = DECLARED.get(name)
    if info is None:
        raise ProtocolError(f"protocol {name!r} has no entry in vgau_data/protocols.py (add its ProtocolInfo there)")
    if (cls.interactive, cls.draws) != (info.interactive, info.draws):
        raise ProtocolError(
            f"{cls.__qualname__} plays {name!r} as interactive={cls.interactive}, draws={cls.draws}; its entry in "
            f"vgau_data/protocols.py says interactive={info.interactive}, draws={info.draws}"
        )
    cls.rank, cls.summary, cls.budgets = info.rank, info.summary, info.budgets
    _REGISTRY[name] = cls
    return cls


def protocol_class(name: str) -> type[Episode]:
    """The registered protocol ``name``."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ProtocolError(f"unknown protocol {name!r}; choose from {', '.join(protocol_names())}") from None


def protocol_names() -> list[str]:
    """Registered protocols in table order (by ``rank``)."""
    return sorted(_REGISTRY, key=lambda name: (_REGISTRY[name].rank, name))


@dataclass(frozen=True, kw_only=True, slots=True)
class ProtocolConfig:
    """A protocol and its options; ``variant`` names it in records and submissions.

    Args:
        name: a registered protocol.
        budget: one of the protocol's ``budgets`` (``optimal`` or ``fixed``).
        history: keep only the last ``history`` images of a conversation (None: all).
        cap_factor: a ``fixed`` episode stops after ``max(cap_factor * optimal_length,
            optimal_length + 1)`` steps if the model never says it is done (a failure,
            reported as ``end == "cap"``); the model is not told.
        generation_context: what reaches the image stage of a protocol that draws (one of
            ``GENERATION_CONTEXTS``); other protocols take only the default.
        reader: how replies are read and scored and, in interactive protocols, where an
            episode ends (``vgau_data.readers``: ``ours``, the default, or ``authors``).
    """

    name: str
    budget: BudgetMode = "optimal"
    history: int | None = None
    cap_factor: int = 2
    generation_context: GenerationContext = "reasoning"
    reader: str = DEFAULT_READER

    def __post_init__(self) -> None:
        cls = protocol_class(self.name)
        if self.budget not in BUDGET_MODES:
            raise ProtocolError(f"budget must be one of {BUDGET_MODES}, got {self.budget!r}")
        if self.budget not in cls.budgets:
            raise ProtocolError(f"{self.name!r} takes the budget {' or '.join(cls.budgets)}, not {self.budget!r}")
        if self.history is not None and self.history < 1:
            raise ProtocolError(f"history must keep at least 1 image, got {self.history}")
        if self.cap_factor < 1:
            raise ProtocolError(f"cap_factor must be >= 1, got {self.cap_factor}")
        if self.generation_context not in GENERATION_CONTEXTS:
            raise ProtocolError(
                f"generation_context must be one of {GENERATION_CONTEXTS}, got {self.generation_context!r}"
            )
        if self.generation_context != GENERATION_CONTEXTS[0] and not cls.draws:
            raise ProtocolError(f"{self.name!r} draws nothing, so it takes no generation context")
        if self.reader not in READERS:
            raise ProtocolError(f"reader must be one of {tuple(READERS)}, got {self.reader!r}")

    @property
    def protocol(self) -> type[Episode]:
        return protocol_class(self.name)

    @property
    def variant(self) -> str:
        """``oracle_vcot_fixed``, ``oracle_aug_vcot_last2``...: the name records and submissions use.

        A reader other than the default ends the name (``vgau_data.readers.reader_of_variant``).

        Example:
            >>> ProtocolConfig(name="oracle_vcot", budget="fixed").variant
            'oracle_vcot_fixed'
            >>> ProtocolConfig(name="self_vcot", budget="fixed", generation_context="direct", history=1).variant
            'self_vcot_fixed_direct_last1'
            >>> ProtocolConfig(name="oracle_vcot", history=2, reader="authors").variant
            'oracle_vcot_last2_authors'
        """
        name = budget_variant(self.name, self.budget)
        if self.generation_context != GENERATION_CONTEXTS[0]:
            name += f"_{self.generation_context}"
        name += f"_last{self.history}" if self.history is not None else ""
        return name + (f"_{self.reader}" if self.reader != DEFAULT_READER else "")

    def step_cap(self, optimal_length: int) -> int:
        """Most steps an episode may take: the optimum, or the ``fixed`` budget's cap."""
        if self.budget == "optimal":
            return optimal_length
        return max(self.cap_factor * optimal_length, optimal_length + 1)

    def to_dict(self) -> dict[str, Any]:
        """The settings for record headers and keys (a protocol that draws nothing has no generation context;
        the default reader is left out, so records made before readers keep their keys)."""
        settings = {**asdict(self), "prompt_version": PROMPT_VERSION}
        if not self.protocol.draws:
            del settings["generation_context"]
        if self.reader == DEFAULT_READER:
            del settings["reader"]
        return settings


@dataclass(slots=True)
class Turn:
    """One model turn as recorded: what was asked and sent, what came back, what it meant.

    ``asks`` is the kind of reply requested (``answer``, ``step``, ``remaining``);
    ``step`` the parsed step in the per-step format, ``remaining`` the parsed count,
    ``feedback`` what the environment made of the step.
    """

    asks: str
    text: str
    images_sent: list[str]
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float = 0.0
    finish_reason: str | None = None
    step: str | None = None
    remaining: int | None = None
    feedback: str | None = None
    parse_error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Outcome:
    """How an episode ended.

    ``output`` is the text scored (None when a backend error stopped the episode); ``end``
    names the ending (``answered``, ``goal``, ``illegal``, ``unparseable``, ``budget``,
    ``stopped``, ``unparseable_count``, ``cap``, ``backend_error``); ``steps`` counts the
    environment steps taken.
    """

    output: str | None
    end: str
    error: str | None
    turns: list[Turn] = field(default_factory=list)
    steps: int = 0


class Episode:
    """One instance under one protocol; subclasses are the protocols.

    Class attributes of a protocol:
        name: registry key and the base of its variant names (an entry of ``vgau_data.protocols``).
        rank, summary, budgets: the entry's (set by ``register``): position in tables, one
            line for help texts and the protocol table (docs/contract/protocols.md), step
            budgets it accepts.
        interactive: it steps an environment turn by turn (``InteractiveEpisode``).
        draws: the model makes images (its backend needs an image capability).
        default_runs: runs when none are asked for (3 for protocols that draw, as in the paper).
        needs: the optional ``FamilySpec`` capabilities it uses (``vr`` for Oracle-VR's
            drawing); ``run`` refuses a family that lacks one before any call.
    """

    name: ClassVar[str]
    rank: ClassVar[int]
    budgets: ClassVar[tuple[str, ...]] = ("optimal",)
    summary: ClassVar[str]
    interactive: ClassVar[bool] = False
    draws: ClassVar[bool] = False
    default_runs: ClassVar[int] = 1
    needs: ClassVar[tuple[str, ...]] = ()

    def __init__(self, instance: Instance, config: ProtocolConfig, run: int) -> None:
        if config.name != self.name:
            raise ProtocolError(f"{type(self).__name__} runs {self.name!r}, not {config.name!r}")
        self.instance = instance
        self.family = instance.family
        self.config = config
        self.run = run
        self.session_id = f"{instance.id}/{config.variant}/run{run}"
        self.messages: list[Message] = []
        """The conversation so far (what every later request starts with)."""
        self.turns: list[Turn] = []
        self.done = False
        self._outcome: Outcome | None = None

    # ------------------------------------------------------------------ the driver's API

    def request(self) -> Conversation:
        """What to send now (history option applied)."""
        if self.done:
            raise RuntimeError(f"episode {self.session_id} is finished")
        messages, asks = self._pending()
        return Conversation(keep_last_images(messages, self.config.history), self.session_id, asks)

    def advance(self, completion: Completion) -> None:
        """Take the model's reply to the last ``request()``."""
        if self.done:
            raise RuntimeError(f"episode {self.session_id} is finished")
        messages, asks = self._pending()
        turn = self._record_turn(asks, messages, completion)
        if not completion.ok:
            self._finish(None, "backend_error", completion.error)
            return
        self._reply(turn, completion.text)

    def outcome(self) -> Outcome:
        if self._outcome is None:
            raise RuntimeError(f"episode {self.session_id} is not finished")
        return self._outcome

    def record_fields(self) -> dict[str, Any]:
        """Fields a protocol adds to its episode records (the images a protocol that draws made)."""
        return {}

    # ------------------------------------------------------------------ what a protocol defines

    def _pending(self) -> tuple[list[Message], Asks]:
        """The messages of the next request and the kind of reply it asks for."""
        raise NotImplementedError

    def _reply(self, turn: Turn, text: str) -> None:
        """Handle a reply (backend errors never reach here); call ``_finish`` when done."""
        raise NotImplementedError

    # ------------------------------------------------------------------ shared machinery

    def _record_turn(self, asks: str, messages: list[Message], completion: Completion) -> Turn:
        sent = [part.digest() for part in _last_user_images(keep_last_images(messages, self.config.history))]
        turn = Turn(
            asks=asks,
            text=completion.text,
            images_sent=sent,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            latency_s=round(completion.latency_s, 4),
            finish_reason=completion.finish_reason,
        )
        self.turns.append(turn)
        return turn

    def _finish(self, output: str | None, end: str, error: str | None = None, steps: int = 0) -> None:
        self.done = True
        self._outcome = Outcome(output, end, error, self.turns, steps)


def _last_user_images(messages: Sequence[Message]) -> list[ImagePart]:
    for message in reversed(messages):
        if message.role == "user":
            return [part for part in message.parts if isinstance(part, ImagePart)]
    return []


def make_episode(instance: Instance, config: ProtocolConfig, run: int = 0) -> Episode:
    """A fresh episode of ``config``'s protocol on ``instance`` (run ``run``).

    Example:
        >>> episode = make_episode(instance, ProtocolConfig(name="text_cot"))  # doctest: +SKIP
        >>> episode.request().messages[0].text  # doctest: +SKIP
        'The image shows a maze. ...'
    """
    return config.protocol(instance, config, run)
