"""One fixed board per family, written out here, for the golden key values (they must never change)."""

from __future__ import annotations

from vgau_data.puzzles.klotski import state as klotski
from vgau_data.puzzles.maze import state as maze
from vgau_data.puzzles.onet import state as onet
from vgau_data.puzzles.parking import state as parking
from vgau_data.puzzles.path import state as path
from vgau_data.puzzles.sokoban import state as sokoban

GOLDEN_STATES = {
    "maze": maze.from_ascii(["##########", "#S...#...#", "#.##.#.#.#", "#.#..#.#.#", "#.#.##.#.#",
                             "#...#..#.#", "###...##.#", "#...#....#", "#.###.##G#", "##########"]),
    "sokoban": sokoban.from_ascii(["##########", "#P...#...#", "#.##.....#", "#..B..#..#", "#........#",
                                   "#.#...#..#", "#......T.#", "#..#.....#", "#........#", "##########"]),
    "path": path.from_ascii(["S.A.T#####", "#.##.#####", "#B##.#####", "####C#####", "####.#####",
                             "####D#####", "####.#####", "###E.#####", "##########", "##########"]),
    "onet": onet.from_ascii(["AA....", "B....B", "..CC..", "......", "...D..", "...D.."]),
    "parking": parking.from_ascii(["..A.....", "..A.....", "RRA.....>", "...BBB..", "........", "........",
                                   "........", "........"]),
    "klotski": klotski.from_ascii(["||||||", "||||||", "----oo", "|oTTo|", "|oTTo|", "--..oo"]),
}
