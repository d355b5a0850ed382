"""Parking's symmetry: only the up-down flip and renaming the other vehicles keep the puzzle."""

from __future__ import annotations

from tests.puzzles.test_symmetry import boards
from vgau_data.puzzles.parking.state import SIZE, ParkingState, Vehicle
from vgau_data.training.keys import canonical_key


def test_the_left_right_mirror_moves_the_exit_so_it_changes_the_key() -> None:
    park, _ = boards("parking")[3]
    mirrored = ParkingState(park.exit_row, tuple(
        Vehicle(v.id, v.row, SIZE - v.col - (v.length if v.orientation == "h" else 1), v.length, v.orientation)
        for v in park.vehicles))
    assert canonical_key("parking", mirrored) != canonical_key("parking", park)
