"""Every prompt carries its paper table's content (Tables 12-35) and nothing the tables lack.

``REQUIRED`` lists, per table, what its prompt must say (in our words: patterns for the
facts and formats, not the table's sentences); ``FORBIDDEN`` what no prompt may say, and
``FORBIDDEN_IN`` what a family's prompts may not, each with the reason (docs/prompts.md).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from vgau_data.puzzles import prompts
from vgau_data.puzzles.base import FamilySpec
from vgau_data.registry import FAMILIES

# fmt: off
LEGEND = {
    "maze": [r"walls?\b", r"cannot be entered", r"walked on", r"blue", r"agent", r"start", r"green", r"goal",
             r"open too"],
    "sokoban": [r"single box", r"brick", r"walls?", r"sand", r"floor", r"small person", r"player", r"wooden crate",
                r"\bX\b", r"green X", r"target"],
    "path": [r"five labelled points: A, B, C, D and E", r"black cells are walls", r"cannot be entered",
             r"light-grey cells are walkable", r"orange triangle", r"start", r"blue triangle", r"destination",
             r"letter marks a walkable cell"],
    "onet": [r"onet", r"6x6", r"fruit", r"or is empty"],
    "parking": [r"parking-exit puzzle", r"8x8", r"letter", r'red car is "R"'],
    "klotski": [r"klotski", r"6x6", r"exactly two cells are empty", r"exactly one block", r"2x2 target block",
                r'"T"', r"vertical blocks, 1 cell wide and 2 tall", r"horizontal blocks, 2 cells wide and 1 tall",
                r"1x1 blocks"],
}
"""What the image shows (each Text-CoT table's SEMANTICS / Legend; Tables 18-23 for onet, parking, klotski)."""

RULES = {
    "maze": [r"up, down, left or right", r"one cell per move", r"never diagonally", r"never jumping",
             r"never into a wall", r"agent moves onto the goal"],
    "sokoban": [r"up, down, left or right", r"one cell per move", r"pushes it one cell in the same direction",
                r"push is allowed only when .* floor", r"no diagonal", r"push the box onto the target"],
    "path": [r"up, down, left or right", r"one cell per step", r"never diagonally", r"never jumping",
             r"never into a wall", r"simple path", r"no backtracking", r"visited twice",
             r"which labelled points lie on that path", r"from the orange triangle to the blue triangle"],
    "onet": [r"0-based", r"row r, column c", r"\(0,0\) is the top-left", r"r increases downward",
             r"c increases to the right", r"clear the whole board", r"pair of identical fruits",
             r"horizontal and vertical segments", r"at most 2 turns", r"no other fruit"],
    "parking": [r"keeps its orientation", r"horizontal or vertical", r"exactly one vehicle by one cell",
                r"never overlap", r"never leave the board", r'rightmost cell of the red car "R"',
                r"right edge of the board on row index \d", r"numbered from 0"],
    "klotski": [r"0-based", r"row r, column c", r"\(0,0\) is the top-left", r"top-left cell at the moment",
                r"ONE block by exactly ONE cell", r"UP, DOWN, LEFT or RIGHT", r"never rotate", r"diagonally",
                r"jump", r"newly cover", r"empty before the move", r"one or two cells for a 1x2 or 2x1 block",
                r"two for the 2x2 block", r"other blocks can never be passed", r"\(4,2\)"],
}
"""The rules, goal and coordinates (each Text-CoT table's rules; the VCoT tables repeat them)."""

ANSWER = {
    "maze": r'lowercase.*<ANSWER_JSON>\["up","left","down"\]</ANSWER_JSON>',
    "sokoban": r'<ANSWER_JSON>\["left","left","up"\]</ANSWER_JSON>',
    "path": r"letters the path passes, in the order .*<answer>A,C</answer>",
    "onet": r"<answer_json>\[\[\[r1,c1\],\[r2,c2\]\],\[\[r3,c3\],\[r4,c4\]\]\]</answer_json>",
    "parking": r'<ANSWER_JSON>\[\{"car":"A","direction":"up"\},\{"car":"R","direction":"right"\}\]</ANSWER_JSON>',
    "klotski": r'\{"solution":\[\{"from":\[r1,c1\],"direction":"UP"\},',
}
"""The final answer's format, with the tables' example."""

REASONING = {
    "maze": r"Reason briefly: identify the agent's start and the goal, describe the moves you plan, and check that "
    r"none of them enters a wall\.",
    "sokoban": r"Reason briefly: check that each move is legal and follow where the player and the box end up",
    "path": r"Reason briefly: identify the start and the destination, describe the moves of the route, and check "
    r"that it never enters a black cell\.",
    "onet": r"1\) Reason briefly\.\n",
    "parking": r"1\) Reason briefly\.\n",
    "klotski": r"1\) Reason briefly\.\n",
}
"""Tables 12-14 say what the brief reasoning covers; Tables 15-17 only ask for it (no hint of ours)."""

AID_EDIT = {
    "maze": [r"every cell, walls included", r"green goal square sits inside one grid cell", r"10 rows and 10 columns"],
    "sokoban": [r"every cell that is not a wall", r"10 rows and 10 columns"],
    "path": [r"every cell, walls included", r"10 rows and 10 columns"],
    "onet": [r"at the centre of every cell", r"6 rows and 6 columns"],
    "parking": [r"at the centre of every cell", r"8 rows and 8 columns"],
    "klotski": [r"at the centre of every cell", r"dashed", r"infer its 6x6 tiling", r"1x2 block stays 1x2",
                r"shrinks, splits or merges"],
}
"""Self-GtA's first stage (Tables 18-23), beyond what every one of them asks (``AID_EDIT_EVERY``)."""
AID_EDIT_EVERY = [r"exactly one annotated copy", r"stays exactly as it is", r"thin red", r"boundaries between cells",
                  r"\(r,c\) in black text at the centre", r"\(0,0\) is the top-left cell", r"rows downward",
                  r"columns rightward", r"no arrows, path lines, legend, caption, title"]

VCOT_EVERY = [r"one step at a time", r"exactly one", r"one separate image per step", r"not the board before it",
              r"same layout, colours and scale", r"No collage", r"no arrows, captions"]
"""Self-VCoT (Tables 24-29): one step per round, one image per step of the board after it."""
STEP = {
    "maze": [r"Next, move one step <direction>\.", r"only the blue agent square has moved"],
    "sokoban": [r"Next, move one step <direction>\.", r"only the player and, when it was pushed, the box"],
    "path": [r'<STEP_JSON>\{"move":"up","hit_labels":\["A"\]\}</STEP_JSON>', r"newly passed on this move",
             r"upper case", r"\[\] when none", r"only the orange triangle, your current position, has moved"],
    "onet": [r"<STEP_JSON>\[\[r1,c1\],\[r2,c2\]\]</STEP_JSON>", r"only the two removed fruits are gone"],
    "parking": [r'<STEP_JSON>\{"car":"A","direction":"right"\}</STEP_JSON>', r"only the moved vehicle"],
    "klotski": [r'<STEP_JSON>\{"from":\[r,c\],"direction":"UP"\}</STEP_JSON>', r"only the moved block"],
}

SOLUTION = {
    "maze": [r"one continuous bright red line", r"a tenth of a cell wide", r"centre of the agent's start cell",
             r"centre of the goal cell", r"horizontal and vertical segments only", r"never crosses or touches a wall"],
    "sokoban": [r"one continuous bright red line", r"a tenth of a cell wide", r"player's walk",
                r"from which the player pushes the box onto the target", r"never crosses a wall",
                r"Do not draw the box's path"],
    "path": [r"one continuous bright red line", r"a tenth of a cell wide", r"centre of the start cell",
             r"centre of the destination cell", r"never crosses or touches a black cell", r"visits no cell twice"],
    "onet": [r"each pair of identical fruits", r"removal order that clears the board", r"a tenth of a cell wide",
             r"centre of one fruit's cell to the centre of the other's", r"at most 2 turns", r"own bright colour"],
    "parking": [r"numbered markers or direction cues", r"board cells only", r"legal one-cell slides",
                r"no vehicle turns", r"Do not move any vehicle"],
    "klotski": [r"ordered markers and direction cues", r"legal one-cell slides", r"no overlap and no rotation",
                r"Do not move any block", r"no long text"],
}
"""Self-VR's drawing (Tables 30-35)."""
SOLUTION_EVERY = [r"exactly one annotated copy", r"stays exactly as it is", r"no grid lines, coordinates, legend"]

FORBIDDEN = {
    r"shortest|optimal|fewest|minimum number|as few": "no table asks for a shortest solution or names the optimum",
    r"border|frame|margin": "our board's frame is ours to draw, not a fact of the puzzle (no table mentions one)",
    r"outside": "no table says whether links may leave the board (onet) or what lies outside it",
    r"0 means|finished": "the authors' steps-left question does not say what 0 means",
}
"""What no prompt says, and why."""
FORBIDDEN_IN = {
    "onet": {r"matching pairs|order of removals": "Table 16 asks only for brief reasoning"},
    "parking": {r"\bblock|two or three|opening": "Table 15 asks only for brief reasoning; it names no lengths or exit opening"},
    "klotski": {r"where the blocks and the two empty cells are": "Table 17 asks only for brief reasoning"},
}

TABLES = {
    "text_cot": {"maze": 12, "sokoban": 13, "path": 14, "parking": 15, "onet": 16, "klotski": 17},
    "gta": {"maze": 18, "sokoban": 19, "parking": 20, "path": 21, "onet": 22, "klotski": 23},
    "vcot": {"maze": 24, "sokoban": 25, "path": 26, "onet": 27, "parking": 28, "klotski": 29},
    "vr": {"maze": 30, "sokoban": 31, "path": 32, "parking": 33, "onet": 34, "klotski": 35},
}
"""The paper's table of each family's prompt per protocol."""
# fmt: on


PAPER_FAMILIES = list(TABLES["text_cot"])
"""The families the paper gives prompts for; every registered family's prompts pass the FORBIDDEN checks."""


def _state(family: FamilySpec) -> object:
    if family.fidelity is None:
        return family.generate("easy", np.random.default_rng(0))
    return family.fidelity.palette_states()[0]


def _texts(family: FamilySpec) -> dict[str, str]:
    """Every prompt of a family, by protocol (the text of each turn that carries the table's content)."""
    state = _state(family)
    return {
        "text_cot": family.question(state, "text_cot"),
        "direct": family.question(state, "direct"),
        "gta": prompts.aid_edit(family, state) + "\n" + prompts.with_aid(family, state, drawn_by_model=True),
        "oracle_gta": prompts.with_aid(family, state),
        "vcot": prompts.vcot_intro(family, state, images="drawn") + "\n" + prompts.step_request(family, 1),
        "oracle_vcot": prompts.vcot_intro(family, state, images="shown"),
        "oracle_aug_vcot": prompts.vcot_intro(family, state, images="shown_annotated"),
        "vr": prompts.solution_edit(family, state) + "\n" + prompts.with_solution_drawing(family, state),
        "oracle_vr": prompts.with_solution_drawing(family, state, drawn_by_model=False),
    }


def _required(family: FamilySpec, protocol: str) -> list[str]:
    name = family.name
    facts = LEGEND[name] + RULES[name]
    if protocol == "text_cot":
        return facts + [REASONING[name], ANSWER[name]]
    if protocol == "gta":
        return LEGEND[name] + AID_EDIT_EVERY + AID_EDIT[name] + [ANSWER[name]]
    if protocol == "vcot":
        return facts + VCOT_EVERY + STEP[name]
    return LEGEND[name] + SOLUTION_EVERY + SOLUTION[name] + [ANSWER[name]]


def _missing(text: str, patterns: list[str]) -> list[str]:
    return [p for p in patterns if not re.search(p, text, re.IGNORECASE | re.DOTALL)]


@pytest.mark.parametrize("protocol", list(TABLES))
@pytest.mark.parametrize("name", PAPER_FAMILIES)
def test_prompts__carry_their_tables_content(name: str, protocol: str) -> None:
    family = FAMILIES[name]
    text = _texts(family)[protocol]
    assert not _missing(text, _required(family, protocol)), f"Table {TABLES[protocol][name]} ({name}, {protocol})"


@pytest.mark.parametrize("name", list(FAMILIES))
def test_prompts__say_nothing_the_tables_lack(name: str) -> None:
    texts = {**_texts(FAMILIES[name]), "remaining": prompts.REMAINING_QUESTION}
    for protocol, text in texts.items():
        for pattern, reason in {**FORBIDDEN, **FORBIDDEN_IN.get(name, {})}.items():
            found = re.search(pattern, text, re.IGNORECASE)
            assert found is None, f"{name} {protocol} says {found.group(0)!r}: {reason}"


@pytest.mark.parametrize("name", list(FAMILIES))
def test_prompts__the_oracle_aid_is_described_as_drawn(name: str) -> None:
    """Oracle-GtA and Oracle-Aug-VCoT show our aid: the prompt says where its labels are, on which cells."""
    family = FAMILIES[name]
    texts = _texts(family)
    where = "near the top-left corner of" if family.aid.label_anchor == "top_left" else "at the centre of"
    for protocol in ("oracle_gta", "oracle_aug_vcot"):
        assert f"{where} {family.aid.labelled}" in texts[protocol]
        assert ("red dashed lines" in texts[protocol]) == (family.aid.dash is not None)
    assert "red lines" not in texts["oracle_vcot"] and "red dashed" not in texts["oracle_vcot"]


def test_prompts__the_steps_left_question_is_the_authors() -> None:
    """The authors' probe: how many more steps, one non-negative integer in <answer> tags, an example."""
    question = prompts.REMAINING_QUESTION
    assert not _missing(question, [r"How many more steps", r"one non-negative integer", r"<answer></answer>",
                                   r"for example <answer>\d</answer>\.$"])  # fmt: skip


def test_prompts__every_table_12_to_35_is_checked() -> None:
    assert sorted(t for tables in TABLES.values() for t in tables.values()) == list(range(12, 36))
    assert all(set(tables) == set(PAPER_FAMILIES) for tables in TABLES.values())
    assert set(PAPER_FAMILIES) <= set(FAMILIES)
