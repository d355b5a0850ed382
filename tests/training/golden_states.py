"""One fixed board per family, written out here, for the golden key values (they must never change)."""

from __future__ import annotations

from vgau_data.puzzles import klotski, maze, onet, parking, path, sokoban

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
