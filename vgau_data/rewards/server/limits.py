"""What one request, one connection and one worker may take: every default is far above an honest OpenRLHF batch."""

from __future__ import annotations

from dataclasses import dataclass, fields

ELEMENTS_PER_SAMPLE = 16
"""JSON values a sample may bring (its query, prompt and label strings, or a label mapping's few keys)."""


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """The server's bounds; ``vgau-data serve-reward`` sets each from its option of the same name.

    Attributes:
        max_body_bytes: largest request body (413 past it, before it is read).
        max_buffered_bytes: request bytes held by the server at once, all connections
            together (503 past it): a body counts as it arrives, so a slow sender holds
            only what it sent.
        max_samples: samples per request (413 past it).
        read_timeout_s: a request's headers and body must arrive whole within this, counted
            from its connection (or its previous reply); a slow or idle sender is then cut off.
        request_timeout_s: the work's deadline (waiting for a worker, then scoring); past it
            the worker is killed and replaced and the reply is 504.
        solve_seconds: each label's solve budget within a request; past it (or past
            ``solve_positions``) the sample pays 0 and ``extra_logs.vgau_over_budget`` is 1.
        solve_positions: positions each label's solve may meet (the core's ``SolveBudget``).
        max_connections: open connections; one more is answered 503 at once.
        max_queued: requests waiting for a worker; one more is answered 503.
        backlog: the kernel's queue of connections not yet accepted.
        worker_memory_mb: address space each worker may add to what it holds once started.
        keep_alive_s: an idle keep-alive connection is closed after this.
    """

    max_body_bytes: int = 64 * 1024 * 1024
    max_buffered_bytes: int = 256 * 1024 * 1024
    max_samples: int = 16_384
    read_timeout_s: float = 10.0
    request_timeout_s: float = 30.0
    solve_seconds: float = 5.0
    solve_positions: int = 200_000
    max_connections: int = 1024
    max_queued: int = 1024
    backlog: int = 1024
    worker_memory_mb: int = 1024
    keep_alive_s: float = 5.0

    def __post_init__(self) -> None:
        bad = [field.name for field in fields(self) if not getattr(self, field.name) > 0]
        if bad:
            raise ValueError(f"server limits must be positive: {', '.join(bad)} of {self}")
        if self.max_buffered_bytes < self.max_body_bytes:
            raise ValueError(f"max_buffered_bytes ({self.max_buffered_bytes}) must hold one body of max_body_bytes "
                             f"({self.max_body_bytes})")  # fmt: skip

    @property
    def max_elements(self) -> int:
        """JSON values a body may hold (counted before it is parsed): the Python objects a parse makes."""
        return 64 + ELEMENTS_PER_SAMPLE * self.max_samples
