"""The protocol table below the runners: every entry is played by one registered class of its kind."""

from __future__ import annotations

from vgau_data.protocols import PROTOCOLS, budget_variants, is_interactive, protocol_names
from vgau_data.runners import protocols as runners
from vgau_data.runners.protocols.drawn import DrawingEpisode
from vgau_data.runners.protocols.interactive import InteractiveEpisode


def test_protocols__each_entry_is_a_registered_class_of_its_kind() -> None:
    assert set(runners.PROTOCOLS) == set(PROTOCOLS)
    assert runners.protocol_names() == protocol_names()
    for name, info in PROTOCOLS.items():
        cls = runners.protocol_class(name)
        assert issubclass(cls, InteractiveEpisode) == info.interactive == is_interactive(name)
        assert issubclass(cls, DrawingEpisode) == info.draws == cls.draws
        assert (cls.rank, cls.summary, cls.budgets) == (info.rank, info.summary, info.budgets)


def test_budget_variants__name_every_protocol_and_budget_the_runners_accept() -> None:
    accepted = [runners.ProtocolConfig(name=n, budget=b).variant for n in protocol_names() for b in PROTOCOLS[n].budgets]
    assert budget_variants() == accepted
    assert not is_interactive("no_such_protocol")
