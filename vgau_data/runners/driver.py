"""The lock-step episode loop, and a whole benchmark run with records and resume.

``drive`` keeps up to ``batch_size`` episodes live and advances all of them together:
each round it collects every live episode's ``request()`` and sends the requests of one
kind in one backend call (``Conversation``s go to ``backend.chat``, ``ImageRequest``s to
``backend.generate``), single-turn and interactive episodes alike. A finished episode
leaves the batch at once and a pending one takes its place, so long episodes do not hold
short ones back. A new kind of request is routed by ``register_sender``; the loop itself
does not change.

``run_benchmark`` runs every (protocol, run) over the instances: it skips episodes whose
key already has an error-free record, drives the rest, and appends one record line per
finished episode as soon as it finishes. Images the model draws are stored beside the
records (``image_store``) before the line that references them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vgau_data.metrics.scoring import score_answer
from vgau_data.runners.backends.base import (
    IMAGE_CAPABILITIES,
    BackendError,
    ImageRequest,
    capabilities_of,
    family_needs,
    image_limit,
    image_source,
)
from vgau_data.runners.image_store import ImageStore, StoringBackend, send_images
from vgau_data.runners.messages import Conversation
from vgau_data.runners.protocols import Episode, ProtocolConfig, ProtocolError, make_episode
from vgau_data.runners.records import (
    RecordWriter,
    RunRequest,
    episode_key,
    finished_keys,
    folder_lock,
    model_slug,
    now_iso,
    record_request,
    records_path,
    run_files,
    software_versions,
)

if TYPE_CHECKING:
    from vgau_data.puzzles.base import FamilySpec
    from vgau_data.runners.backends.base import ChatBackend, GenParams
    from vgau_data.runners.instances import DatasetSource, Instance

logger = logging.getLogger(__name__)


Sender = Callable[[Any, Sequence[Any], "GenParams"], Sequence[Any]]
"""``send(backend, requests, gen) -> replies``: one backend call for a batch of requests of one kind."""

_SENDERS: dict[type, Sender] = {}


def register_sender(kind: type, send: Sender) -> None:
    """Route requests of type ``kind`` (what ``Episode.request()`` returns) to ``send``."""
    _SENDERS[kind] = send


def _chat(backend: ChatBackend, conversations: Sequence[Conversation], gen: GenParams) -> Sequence[Any]:
    return backend.chat(conversations, gen)


register_sender(Conversation, _chat)
register_sender(ImageRequest, send_images)


def check_backend(configs: Sequence[ProtocolConfig], backend: Any) -> None:
    """Refuse protocols the backend cannot play: any protocol needs chat, one that draws an image capability."""
    capabilities = capabilities_of(backend)
    for config in configs:
        if "chat" not in capabilities:
            raise ProtocolError(f"backend {backend.name!r} cannot chat, so it cannot answer {config.variant!r}")
        if config.protocol.draws and not capabilities & IMAGE_CAPABILITIES:
            raise ProtocolError(
                f"{config.variant!r} has the model draw, and backend {backend.name!r} makes no images; use a unified "
                "model, or a pair (--backend pair --generator NAME) to have another model or a script draw"
            )


def _declares(family: FamilySpec, need: str) -> bool:
    """Whether ``family`` has the capability ``need`` names (a field, or a dotted path into one)."""
    value: Any = family
    for part in need.split("."):
        value = getattr(value, part, None)
        if value is None:
            return False
    return True


def check_families(configs: Sequence[ProtocolConfig], instances: Sequence[Instance], backend: Any = None) -> None:
    """Refuse, before any call, a protocol on a family that lacks a capability it or its drawer needs.

    The protocol's own (``Episode.needs``), and for a protocol that draws, the backend's
    (``backends.base.family_needs``: a scripted drawing of the solution needs ``vr``).
    """
    families = {instance.family.name: instance.family for instance in instances}
    for config in configs:
        protocol = config.protocol
        needs = {need: "" for need in protocol.needs}
        if protocol.draws and backend is not None:
            drawer = getattr(backend, "display_name", None) or backend.name
            needs |= {need: f" drawn by {drawer!r}" for need in family_needs(backend, protocol.purpose)}
        for need, whose in needs.items():
            lacking = sorted(name for name, family in families.items() if not _declares(family, need))
            if lacking:
                raise ProtocolError(
                    f"{config.variant!r}{whose} needs FamilySpec.{need}, which {', '.join(lacking)} does not declare; "
                    "run it on the other families (--families)"
                )


def fit_history(configs: Sequence[ProtocolConfig], backend: Any) -> list[ProtocolConfig]:
    """Configs whose conversations keep no more images than the backend reads (``max_images``, A.4)."""
    limit = image_limit(backend)
    if limit is None:
        return list(configs)
    return [
        config if config.history is not None and config.history <= limit else replace(config, history=limit)
        for config in configs
    ]


@dataclass(slots=True)
class DriveStats:
    """What ``drive`` did: backend calls, model turns, finished episodes, largest batch."""

    calls: int = 0
    turns: int = 0
    episodes: int = 0
    max_batch: int = 0


def drive(
    backend: ChatBackend,
    episodes: Iterable[Episode],
    gen: GenParams,
    *,
    batch_size: int = 16,
    on_done: Callable[[Episode], None] | None = None,
) -> DriveStats:
    """Advance ``episodes`` in lock-step batches until all are done.

    Args:
        backend: any ``ChatBackend``.
        episodes: fresh episodes (consumed lazily, so a generator is fine).
        gen: generation settings for every call.
        batch_size: most conversations per ``chat`` call.
        on_done: called with each episode as soon as it finishes.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    pending = iter(episodes)
    live: list[Episode] = []
    stats = DriveStats()
    exhausted = False
    while True:
        while not exhausted and len(live) < batch_size:
            episode = next(pending, None)
            if episode is None:
                exhausted = True
            else:
                live.append(episode)
        if not live:
            return stats
        requests = [episode.request() for episode in live]
        replies = _send_all(backend, requests, gen, stats)
        stats.turns += len(live)
        stats.max_batch = max(stats.max_batch, len(live))
        still_live = []
        for episode, reply in zip(live, replies):
            episode.advance(reply)
            if episode.done:
                stats.episodes += 1
                if on_done is not None:
                    on_done(episode)
            else:
                still_live.append(episode)
        live = still_live


def _send_all(backend: ChatBackend, requests: list[Any], gen: GenParams, stats: DriveStats) -> list[Any]:
    """The replies to ``requests``, in order: one backend call per kind of request."""
    by_kind: dict[type, list[int]] = {}
    for index, request in enumerate(requests):
        by_kind.setdefault(type(request), []).append(index)
    replies: list[Any] = [None] * len(requests)
    for kind, indexes in by_kind.items():
        send = _SENDERS.get(kind)
        if send is None:
            raise BackendError(f"no sender registered for {kind.__name__} requests")
        answers = send(backend, [requests[i] for i in indexes], gen)
        if len(answers) != len(indexes):
            raise BackendError(f"backend {backend.name!r} returned {len(answers)} replies for {len(indexes)} requests")
        stats.calls += 1
        for index, answer in zip(indexes, answers):
            replies[index] = answer
    return replies


@dataclass(frozen=True, kw_only=True)
class RunPlan:
    """Everything a benchmark run needs besides the backend and the instances.

    ``selection`` describes how the instances were chosen (families, difficulties,
    limit, shard); it goes into record headers.
    """

    out_dir: Path
    protocols: Sequence[ProtocolConfig]
    gen: GenParams
    runs: int | None = None
    """Runs of every protocol; None: each protocol's ``default_runs`` (3 for those that draw)."""
    batch_size: int = 16
    shard: tuple[int, int] | None = None
    model_name: str = ""
    selection: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.runs is not None and self.runs < 1:
            raise ValueError(f"runs must be >= 1, got {self.runs}")
        if not self.protocols:
            raise ValueError("at least one protocol is needed")

    def runs_of(self, config: ProtocolConfig) -> int:
        return self.runs if self.runs is not None else config.protocol.default_runs


@dataclass(slots=True)
class RunSummary:
    """Counts over a whole run: episodes skipped as already done, run now, errored now."""

    model_dir: Path
    skipped: int = 0
    finished: int = 0
    errors: int = 0
    calls: int = 0
    seconds: float = 0.0
    files: list[Path] = field(default_factory=list)


def gen_for_run(gen: GenParams, run: int) -> GenParams:
    """Run ``k`` uses seed ``base + k`` (base 0 when unset), so runs differ when sampling."""
    return replace(gen, seed=(gen.seed or 0) + run)


def run_benchmark(
    backend: ChatBackend,
    instances: Sequence[Instance],
    dataset: DatasetSource,
    plan: RunPlan,
    *,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    on_skip: Callable[[int], None] | None = None,
) -> RunSummary:
    """Run every protocol and run of ``plan`` over ``instances``, resuming from records.

    Returns a summary. For progress displays, ``on_record`` sees each record line as it
    is written and ``on_skip`` the number of episodes skipped as already finished.
    """
    check_backend(plan.protocols, backend)
    check_families(plan.protocols, instances, backend)
    description = backend.describe()
    model_name = plan.model_name or str(description.get("model", backend.name))
    summary = RunSummary(Path(plan.out_dir) / model_slug(model_name, backend.fingerprint()))
    if any(config.protocol.draws for config in plan.protocols):
        store = ImageStore(summary.model_dir)
        if removed := store.remove_leftovers():
            logger.info("%s: removed %d temporary image file(s) a killed run left", summary.model_dir, removed)
        backend = StoringBackend(backend, store)
    start = time.perf_counter()
    rows = tuple((i.id, i.task, i.difficulty) for i in instances)
    by_runs: dict[int, list[str]] = {}
    for config in plan.protocols:
        by_runs.setdefault(plan.runs_of(config), []).append(config.variant)
    with folder_lock(summary.model_dir, exclusive=False):
        for runs, variants in by_runs.items():
            record_request(summary.model_dir, RunRequest(tuple(variants), runs, rows, plan.shard))
        for config in plan.protocols:
            for run in range(plan.runs_of(config)):
                _run_group(backend, instances, dataset, plan, config, run, summary, on_record, on_skip)
    summary.seconds = time.perf_counter() - start
    return summary


def _run_group(
    backend: ChatBackend,
    instances: Sequence[Instance],
    dataset: DatasetSource,
    plan: RunPlan,
    config: ProtocolConfig,
    run: int,
    summary: RunSummary,
    on_record: Callable[[dict[str, Any]], None] | None,
    on_skip: Callable[[int], None] | None,
) -> None:
    """One (protocol, run): skip finished keys, drive the rest, append a record per episode."""
    gen = gen_for_run(plan.gen, run)
    header = record_header(backend, dataset, plan, config, run, gen, len(instances))
    keys = {
        instance.id: episode_key(
            model_fingerprint=header["model_fingerprint"],
            backend=backend.name,
            protocol=header["protocol"],
            instance_id=instance.id,
            run=run,
            gen=header["gen"],
        )
        for instance in instances
    }
    done = finished_keys(run_files(summary.model_dir, config.variant, run))
    todo = [instance for instance in instances if keys[instance.id] not in done]
    summary.skipped += len(instances) - len(todo)
    if on_skip is not None and len(todo) < len(instances):
        on_skip(len(instances) - len(todo))
    if not todo:
        return
    path = records_path(summary.model_dir, config.variant, run, plan.shard)
    summary.files.append(path)
    with RecordWriter(path, header) as writer:

        def write(episode: Episode) -> None:
            record = episode_record(episode, keys[episode.instance.id], run)
            writer.append(record)
            summary.finished += 1
            summary.errors += record["error"] is not None
            if on_record is not None:
                on_record(record)

        episodes = (make_episode(instance, config, run) for instance in todo)
        stats = drive(backend, episodes, gen, batch_size=plan.batch_size, on_done=write)
    summary.calls += stats.calls
    logger.info("%s run %d: %d episodes in %d calls", config.variant, run, stats.episodes, stats.calls)


def record_header(
    backend: ChatBackend,
    dataset: DatasetSource,
    plan: RunPlan,
    config: ProtocolConfig,
    run: int,
    gen: GenParams,
    n_instances: int,
) -> dict[str, Any]:
    """The first line of a records file: who ran what, how, on which dataset build."""
    description = backend.describe()
    drawn_by = {}
    if config.protocol.draws:
        source = image_source(backend)
        drawn_by = {"images": {"source": source.source, "generator": source.generator}}
    return {
        "format": 1,
        "created": now_iso(),
        "model": plan.model_name or description.get("model"),
        "model_fingerprint": backend.fingerprint(),
        "backend_name": backend.name,
        "backend": description,
        "protocol": config.to_dict(),
        "variant": config.variant,
        "reader": config.reader,
        "run": run,
        "gen": gen.to_dict(),
        "dataset_fingerprint": dataset.fingerprint,
        "dataset": {"source": dataset.source, "revision": dataset.revision, "fingerprint": dataset.fingerprint},
        "selection": {**plan.selection, "shard": list(plan.shard) if plan.shard else None, "n_instances": n_instances},
        "versions": software_versions(),
        **drawn_by,
    }


def episode_record(episode: Episode, key: str, run: int) -> dict[str, Any]:
    """The JSON line of a finished episode (verdict included when it has an output)."""
    outcome = episode.outcome()
    instance = episode.instance
    verdict = None
    if outcome.error is None:
        verdict = score_answer(outcome.output, instance.reference, episode.config.reader).to_dict()
    return {
        "key": key,
        "id": instance.id,
        "task": instance.task,
        "difficulty": instance.difficulty,
        "protocol": episode.config.variant,
        "run": run,
        "output": outcome.output,
        "error": outcome.error,
        "end": outcome.end,
        "steps": outcome.steps,
        "verdict": verdict,
        "reference": instance.reference,
        "turns": [turn.to_dict() for turn in outcome.turns],
        **episode.record_fields(),
        "finished": now_iso(),
    }
