"""Path's key: the route from the marker and the labelled cells, side roads and letters forgotten."""

from __future__ import annotations

from vgau_data.puzzles.path.solver import solve
from vgau_data.puzzles.path.state import from_ascii
from vgau_data.training.keys import canonical_key

BASE = ["S.A.T#####", "#.########", "#B########", *["##########"] * 7]


def test_side_roads_off_the_route_leave_the_key() -> None:
    more = ["S.A.T#####", "#.########", "#B...#####", *["##########"] * 7]
    assert solve(from_ascii(BASE)) == solve(from_ascii(more))
    assert canonical_key("path", from_ascii(BASE)) == canonical_key("path", from_ascii(more))


def test_a_label_moved_off_the_route_changes_the_key() -> None:
    moved_label = ["S.A.T#####", "#B########", "#.########", *["##########"] * 7]
    assert canonical_key("path", from_ascii(moved_label)) != canonical_key("path", from_ascii(BASE))
