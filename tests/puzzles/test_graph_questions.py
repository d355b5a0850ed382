"""The graph questions the families answer, asked again of networkx, apart from each family's own code.

Each family answers them with its own solver or generator; here a general graph library
answers them from the board alone: the maze's open cells form a tree, so its shortest path
is unique and as long as the optimum; path's road is a tree and its one route passes the
letters of the answer in order; an onet pair links exactly when a route of empty cells
with at most two turns joins it (a shortest path over (cell, heading) with a turn costing
1); and the optimum of every family whose answer is its episode's steps is the distance to
the nearest goal in the graph the rules span (``candidate_steps`` and ``apply_step``).
"""

from __future__ import annotations

import itertools

import networkx as nx
import pytest

from vgau_data.puzzles.base import Illegal
from vgau_data.registry import FAMILIES, get_family
from vgau_data.seeding import instance_seed, rng_for
from vgau_data.types import DELTAS

ROWS = 3
"""Rows per bucket the questions are asked of (their states along the solution too, for onet)."""


def _states(family: str, difficulties: tuple[str, ...] = ("easy", "medium", "hard")) -> list[object]:
    spec = get_family(family)
    return [spec.generate(d, rng_for(instance_seed(0, family, d, i)), spec.slot(d, i))
            for d in difficulties for i in range(ROWS)]  # fmt: skip


def _open_graph(grid: tuple[str, ...]) -> nx.Graph:
    """The grid graph of the cells that are not walls (``#``)."""
    graph = nx.Graph()
    cells = {(r, c) for r, row in enumerate(grid) for c, char in enumerate(row) if char != "#"}
    graph.add_nodes_from(cells)
    graph.add_edges_from(((r, c), (r + dr, c + dc)) for r, c in cells for dr, dc in ((0, 1), (1, 0))
                         if (r + dr, c + dc) in cells)  # fmt: skip
    return graph


def test_maze__the_open_cells_form_a_tree_and_the_shortest_path_is_unique_and_optimal() -> None:
    maze = get_family("maze")
    for state in _states("maze"):
        graph = _open_graph(state.grid)
        assert nx.is_tree(graph)
        paths = list(nx.all_shortest_paths(graph, state.start, state.goal))
        assert len(paths) == 1 and len(paths[0]) - 1 == maze.solve(state).optimal_length


def test_path__the_road_is_a_tree_whose_route_passes_the_answer_s_letters_in_order() -> None:
    path = get_family("path")
    for state in _states("path"):
        graph = _open_graph(state.grid)
        assert nx.is_tree(graph)
        letter_at = {cell: letter for letter, cell in state.labels}
        route = nx.shortest_path(graph, state.start, state.end)
        assert tuple(letter_at[cell] for cell in route if cell in letter_at) == path.solve(state).answer


def _fewest_turns(board: tuple[tuple[str | None, ...], ...], a: tuple[int, int], b: tuple[int, int]) -> float:
    """The fewest turns of a route from ``a`` to ``b`` through empty cells inside the board (inf: none)."""
    size = len(board)
    graph = nx.DiGraph()
    inside = [(r, c) for r in range(size) for c in range(size)]
    for (r, c), (d, (dr, dc)) in itertools.product(inside, DELTAS.items()):
        step = (r + dr, c + dc)
        if 0 <= step[0] < size and 0 <= step[1] < size and (board[step[0]][step[1]] is None or step == b):
            graph.add_edge(((r, c), d), (step, d), weight=0)
        graph.add_edges_from((((r, c), d), ((r, c), other), {"weight": 1}) for other in DELTAS if other != d)
    graph.add_edges_from(("from", (a, d), {"weight": 0}) for d in DELTAS)
    graph.add_edges_from(((b, d), "to", {"weight": 0}) for d in DELTAS)
    try:
        return nx.dijkstra_path_length(graph, "from", "to")
    except nx.NetworkXNoPath:
        return float("inf")


def test_onet__a_pair_links_exactly_when_a_route_with_at_most_two_turns_joins_it() -> None:
    onet = get_family("onet")
    linked = unlinked = 0
    for start in _states("onet", ("easy", "medium")):
        for state in (start, *onet.trajectory(start, onet.solve(start).answer)[:-1]):
            tiles = [(r, c) for r, row in enumerate(state.board) for c, fruit in enumerate(row) if fruit is not None]
            for a, b in itertools.combinations(tiles, 2):
                if state.board[a[0]][a[1]] != state.board[b[0]][b[1]]:
                    continue
                links = _fewest_turns(state.board, a, b) <= 2
                assert (not isinstance(onet.apply_step(state, (a, b)), Illegal)) == links, (onet.to_json(state), a, b)
                linked, unlinked = linked + links, unlinked + (not links)
    assert linked and unlinked  # both answers were asked


@pytest.mark.parametrize("family", [name for name, spec in FAMILIES.items() if spec.episode_steps is None])
def test_optimum__is_the_distance_to_the_nearest_goal_in_the_graph_the_rules_span(family: str) -> None:
    """Easy rows, their graph spanned to the claimed optimum's depth (a few hundred boards at most)."""
    spec = get_family(family)
    for state in _states(family, ("easy",)):
        optimum = spec.solve(state).optimal_length
        graph, frontier = nx.DiGraph(), [state]
        graph.add_node(spec.to_json(state))
        for _ in range(optimum):
            reached = []
            for board in frontier:
                for step in spec.candidate_steps(board):
                    after = spec.apply_step(board, step)
                    if isinstance(after, Illegal):
                        continue
                    key = spec.to_json(after)
                    if key not in graph:
                        reached.append(after)
                    graph.add_edge(spec.to_json(board), key)
            frontier = reached
        goals = {key for key in graph if spec.is_goal(spec.from_json(key))}
        assert goals, f"{family}: no goal within the claimed optimum {optimum}"
        distance = min(nx.shortest_path_length(graph, spec.to_json(state), goal) for goal in goals)
        assert distance == optimum, spec.to_json(state)
