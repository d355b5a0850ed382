"""Rewards for drawn images: a right drawing pays, any wrong cell or wrong step does not, hostile images are refused."""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from PIL import Image

from tests.families import SHIPPED
from tests.rewards.conftest import row_spec
from vgau_data.oracle_aids import oracle_aid, prompted_layer
from vgau_data.puzzles.base import Illegal
from vgau_data.registry import FAMILIES
from vgau_data.rewards import RewardError
from vgau_data.rewards.images import IMAGE_REWARD_KINDS, image_rewards, load_drawing, score_drawing
from vgau_data.seeding import rng_for


def _first_step(row: dict[str, Any]) -> tuple[Any, Any, Any]:
    family = FAMILIES[row["task"]]
    state = family.from_json(row["state"])
    step = family.oracle_steps(state, family.answer_from_payload(row["solution"]))[0]
    return family, state, step


def test_the_true_board_after_an_optimal_step__pays_next_state_and_move_for_every_row(
    reward_rows: list[dict[str, Any]]
) -> None:
    for row in reward_rows:
        family, state, step = _first_step(row)
        board = family.render(family.apply_step(state, step))
        for drawing in (board, board.resize((board.width * 7 // 10, board.height * 7 // 10))):
            result = image_rewards(drawing, row["state"], step=family.format_step(step), optimal_length=row["optimal_length"])
            assert (result["score"], result["next_state"], result["move"], result["cells"]) == (1.0, 1.0, 1.0, 1.0), row["id"]


def test_a_wrong_cell_or_the_board_before_the_step__pays_nothing(reward_rows: list[dict[str, Any]]) -> None:
    for row in reward_rows:
        family, state, step = _first_step(row)
        after = family.apply_step(state, step)
        text = family.format_step(step)
        wrong_cell = family.render(family.fidelity.perturb(after, 1, rng_for(1)))
        perturbed = image_rewards(wrong_cell, row["state"], step=text)
        assert perturbed["next_state"] == perturbed["move"] == 0.0, row["id"]  # the move was right, the drawing not
        record = score_drawing(wrong_cell, row["state"], step=text)
        assert record.step_optimal and not record.board_exact, row["id"]
        cells = len(family.fidelity.cell_labels(after))
        assert record.cells == pytest.approx(1 - 1 / cells) and 0.0 < perturbed["cells"] < record.cells
        unchanged = image_rewards(family.render(state), row["state"], step=text)
        assert unchanged["next_state"] == 0.0 and unchanged["cells"] < 1.0, row["id"]
        noise = np.random.default_rng(0).integers(0, 256, (*family.geometry.size[::-1], 3), dtype=np.uint8)
        assert image_rewards(noise, row["state"], step=text)["next_state"] == 0.0


def test_an_illegal_unreadable_or_roundabout_step__is_judged_apart_from_the_drawing(
    reward_rows: list[dict[str, Any]]
) -> None:
    row = next(row for row in reward_rows if row["task"] == "maze" and row["optimal_length"] > 2)
    family, state, step = _first_step(row)
    others = [d for d in ("up", "down", "left", "right") if d != step]
    illegal = next(d for d in others if isinstance(family.apply_step(state, d), Illegal))
    away = next((d for d in others if not isinstance(family.apply_step(state, d), Illegal)), None)
    record = score_drawing(family.render(state), row["state"], step=family.format_step(illegal))
    assert (record.step_read, record.step_legal, record.step_optimal) == (True, False, False)
    assert image_rewards(family.render(state), row["state"], step=family.format_step(illegal))["next_state"] == 0.0
    assert not score_drawing(family.render(state), row["state"], step="I would go up").step_read
    if away is not None:  # a legal move that is on no optimal solution: the drawing is right, the move is not
        result = image_rewards(family.render(family.apply_step(state, away)), row["state"], step=family.format_step(away))
        assert (result["next_state"], result["move"]) == (1.0, 0.0)


def test_aids__pay_when_the_board_is_intact_and_the_annotation_drawn(reward_rows: list[dict[str, Any]]) -> None:
    for row in reward_rows:
        if row["difficulty"] != "medium":
            continue  # one board per family: aids take a render and an annotation each
        family, state, _ = _first_step(row)
        aid = oracle_aid(family, state)
        for drawing in (aid, aid.resize((aid.width * 3 // 4, aid.height * 3 // 4))):
            result = image_rewards(drawing, row["state"], purpose="aid")
            assert result["score"] == result["aid"] == 1.0 and result["grid"] >= 0.8, row["id"]
        bare = image_rewards(family.render(state), row["state"], purpose="aid")
        assert bare["aid"] == 0.0 and bare["grid"] < 0.2 and bare["cells"] == 1.0  # the board, but no annotation
        wrong = oracle_aid(family, family.fidelity.perturb(state, 1, rng_for(2)))
        assert image_rewards(wrong, row["state"], purpose="aid")["aid"] == 0.0
        colours, coverage = prompted_layer(family, state)  # labels at the centres, as Tables 18-23 ask
        prompted = family.render(state)
        prompted.paste(colours, (0, 0), coverage)
        assert image_rewards(prompted, row["state"], purpose="aid")["aid"] == 1.0, row["id"]


def test_drawings__arrive_in_every_form_trainers_hand_over(reward_rows: list[dict[str, Any]]) -> None:
    import torch

    family, state, step = _first_step(reward_rows[0])
    board = family.render(family.apply_step(state, step))
    buffer = io.BytesIO()
    board.save(buffer, format="PNG")
    pixels = np.asarray(board)
    forms = [board, board.convert("RGBA"), buffer.getvalue(), {"bytes": buffer.getvalue(), "path": None}, pixels,
             pixels.transpose(2, 0, 1), pixels.transpose(2, 0, 1)[None], pixels / 255.0,
             torch.from_numpy(pixels.transpose(2, 0, 1).copy())]  # fmt: skip
    for form in forms:
        assert image_rewards(form, reward_rows[0]["state"], step=family.format_step(step))["score"] == 1.0, type(form)


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` pixels (and holds almost nothing)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))  # noqa: E731
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")


@pytest.mark.parametrize(
    ("drawing", "message"),
    [
        (_png_header(100_000, 100_000), "pixels"),
        (b"not an image at all", "not a PNG, WebP or JPEG image"),
        (b"%!PS-Adobe-3.0\n", r"\(PostScript\)"),
        (np.zeros((5, 5), dtype=np.uint8), "shape"),
        ("a path/to/image.png", "must be an image"),
    ],
)
def test_hostile_drawings__are_refused_with_a_reason(reward_rows: list[dict[str, Any]], drawing: Any, message: str) -> None:
    with pytest.raises(RewardError, match=message):
        image_rewards(drawing, reward_rows[0]["state"], step="Next, move one step up.")
    assert load_drawing(Image.new("L", (4, 4))).mode == "RGB"


def test_image_kinds__registry_and_trl_reward(reward_rows: list[dict[str, Any]]) -> None:
    from vgau_data.rewards.trl import make_image_reward

    assert set(IMAGE_REWARD_KINDS) == {"next_state", "move", "aid", "cells"}
    row = reward_rows[0]
    family, state, step = _first_step(row)
    board = family.render(family.apply_step(state, step))
    reward = make_image_reward()
    assert reward.__name__ == "vgau_image_next_state"
    completions = [[{"role": "assistant", "content": f"I move. {family.format_step(step)}"}]] * 3
    got = reward(prompts=[[]] * 3, completions=completions, completion_ids=[[1]] * 3, drawn_images=[board, board, board],
                 state=[row["state"], family.to_json(family.apply_step(state, step)), "x"], task=["maze", "maze", "chess"])
    assert got[0] == 1.0 and got[2] is None
    with pytest.raises(RewardError, match="drawn_images"):
        reward(prompts=[[]], completions=completions[:1], completion_ids=[[1]], state=[row["state"]])
    with pytest.raises(RewardError, match="purpose must be one of"):
        image_rewards(board, row["state"], purpose="vr")


# ---------------------------------------------------------------------------- a pure image policy: no step stated


def test_a_drawn_legal_next_board__is_found_among_the_legal_steps_and_pays(reward_rows: list[dict[str, Any]]) -> None:
    """Each legal step's board, drawn (resized too), is read as that step; an optimal one pays ``move`` as well."""
    for row in reward_rows:
        if row["difficulty"] != "easy":
            continue
        family = FAMILIES[row["task"]]
        state = family.from_json(row["state"])
        for step in family.candidate_steps(state):
            after = family.apply_step(state, step)
            if isinstance(after, Illegal):
                continue
            board = family.render(after)
            for drawing in (board, board.resize((board.width * 7 // 10, board.height * 7 // 10))):
                record = score_drawing(drawing, row["state"], purpose="drawn_step", optimal_length=row["optimal_length"])  # fmt: skip
                assert (record.board_exact, record.step_legal, record.cells) == (True, True, 1.0), (row["id"], step)
                shown = family.apply_step(state, family.parse_step(record.step))
                assert family.fidelity.cell_labels(shown) == family.fidelity.cell_labels(after), (row["id"], step)
            solution = family.solve(after)
            optimal = solution is not None and solution.optimal_length == row["optimal_length"] - 1
            result = image_rewards(board, row["state"], purpose="drawn_step", optimal_length=row["optimal_length"])
            assert (result["score"], result["next_state"], result["move"]) == (1, 1, optimal), (row["id"], step)


def test_a_drawn_board_no_legal_step_leads_to__pays_nothing(reward_rows: list[dict[str, Any]]) -> None:
    for row in reward_rows:
        family, state, step = _first_step(row)
        after = family.apply_step(state, step)
        unchanged = score_drawing(family.render(state), row["state"], purpose="drawn_step")
        assert (unchanged.step_legal, unchanged.board_exact, unchanged.step) == (False, False, None)
        assert unchanged.cells < 1.0
        wrong_cell = family.render(family.fidelity.perturb(after, 1, rng_for(1)))
        perturbed = image_rewards(wrong_cell, row["state"], purpose="drawn_step")
        assert perturbed["next_state"] == perturbed["move"] == 0.0, row["id"]
        nearest = score_drawing(wrong_cell, row["state"], purpose="drawn_step")
        assert nearest.cells >= 1 - 1 / len(family.fidelity.cell_labels(after)) - 1e-9  # the nearest legal board
        assert 0.0 < perturbed["cells"] == nearest.cell_credit < 1.0
        two_steps = family.trajectory(state, family.oracle_steps(state))
        if len(two_steps) >= 2:
            assert image_rewards(family.render(two_steps[1]), row["state"], purpose="drawn_step")["score"] == 0.0


def test_drawn_steps__from_the_trl_and_verl_adapters(reward_rows: list[dict[str, Any]]) -> None:
    from vgau_data.rewards.trl import make_image_reward
    from vgau_data.rewards.verl import compute_image_score

    row = next(row for row in reward_rows if row["task"] == "parking")
    family, state, step = _first_step(row)
    board = family.render(family.apply_step(state, step))
    reward = make_image_reward(purpose="drawn_step")
    assert reward.__name__ == "vgau_image_next_state"
    empty = [[{"role": "assistant", "content": ""}]] * 2  # the policy wrote no text: only its drawings count
    got = reward(prompts=[[]] * 2, completions=empty, completion_ids=[[1]] * 2, state=[row["state"]] * 2,
                 drawn_images=[board, family.render(state)], task=["parking"] * 2)  # fmt: skip
    assert got == [1.0, 0.0]
    move = make_image_reward("move", purpose="drawn_step")
    got = move(completions=[""], drawn_images=[board], state=[row["state"]], optimal_length=[row["optimal_length"]])
    assert got == [1.0]
    pixels = np.asarray(board).transpose(2, 0, 1)
    result = compute_image_score("vgau/parking", pixels, row["state"], {"purpose": "drawn_step"})
    assert result["score"] == result["next_state"] == result["move"] == 1.0


def test_drawn_step_of_a_styled_row__pays_its_styled_next_board_and_not_a_wrong_one(
    styled_export: Callable[[str], list[dict[str, Any]]]
) -> None:
    """Through TRL's reward, on a --render-variety export: each row's oracle next board, drawn in the
    row's style, pays 1; the board before the step and a board with one wrong cell, in that style, pay 0."""
    from vgau_data.oracle_aids import oracle_image
    from vgau_data.rewards.trl import make_image_reward

    rows = styled_export("trl")
    reward, move = make_image_reward(purpose="drawn_step"), make_image_reward("move", purpose="drawn_step")
    drawings, columns = [], {name: [] for name in ("id", "family", "state", "optimal_length", "render_style")}
    for row in rows:
        spec = row_spec(row["family"], row["render_style"])
        state = spec.from_json(row["state"])
        after = spec.apply_step(state, spec.oracle_steps(state)[0])
        drawings += [oracle_image(spec, after, "next_state"), spec.render(state),
                     spec.render(spec.fidelity.perturb(after, 1, rng_for(3)))]  # fmt: skip
        for name, values in columns.items():
            values += [row[name]] * 3
    got = reward(completions=[""] * len(drawings), drawn_images=drawings, **columns)
    assert got == [1.0, 0.0, 0.0] * len(rows)
    assert move(completions=[""] * len(drawings), drawn_images=drawings, **columns) == [1.0, 0.0, 0.0] * len(rows)
    unstyled = reward(completions=[""] * len(drawings), drawn_images=drawings, **{**columns, "render_style": None})
    assert unstyled[::3] != [1.0] * len(rows)  # some styled boards do not read as the benchmark's: the style matters


def test_a_styled_rows_aid_and_next_state__read_in_its_style_through_verl(
    styled_export: Callable[[str], list[dict[str, Any]]]
) -> None:
    """verl-omni's call, with the export's extra_info (render_style inside): the styled aid and next board pay."""
    from vgau_data.rewards.verl import compute_image_score

    for row in styled_export("verl"):
        extra = row["extra_info"]
        spec = row_spec(extra["family"], extra["render_style"])
        truth = row["reward_model"]["ground_truth"]
        state = spec.from_json(truth)
        step = spec.oracle_steps(state)[0]
        board = np.asarray(spec.render(spec.apply_step(state, step))).transpose(2, 0, 1)  # what the manager passes
        result = compute_image_score(row["data_source"], board, truth, {**extra, "purpose": "next_state",
                                                                       "step": spec.format_step(step)})  # fmt: skip
        assert result["score"] == result["move"] == 1.0, extra["id"]
        aid = compute_image_score(row["data_source"], oracle_aid(spec, state), truth, {**extra, "purpose": "aid"})
        assert aid["score"] == 1.0 and aid["grid"] > 0.99, extra["id"]


def test_an_image_reward_of_a_row_whose_style_is_not_one__names_the_row(reward_rows: list[dict[str, Any]]) -> None:
    from vgau_data.errors import VgauError
    from vgau_data.rewards.trl import make_image_reward
    from vgau_data.rewards.verl import compute_image_score

    row = reward_rows[0]
    board = FAMILIES[row["task"]].render(FAMILIES[row["task"]].from_json(row["state"]))
    with pytest.raises(VgauError, match=f"^row '{row['id']}': not a render style"):
        make_image_reward(purpose="drawn_step")(completions=[""], drawn_images=[board], state=[row["state"]],
                                                id=[row["id"]], render_style=["{}"])  # fmt: skip
    with pytest.raises(VgauError, match=f"^row '{row['id']}': unknown palette"):
        compute_image_score(f"vgau/{row['task']}", board, row["state"],
                            {"id": row["id"], "render_style": '{"palette":"x","line_scale":1,"cell_scale":1}'})


@pytest.mark.parametrize("purpose", ["next_state", "drawn_step", "aid"])
def test_noise_a_blank_and_a_black_image__earn_nothing_in_any_image_kind(
    reward_rows: list[dict[str, Any]], purpose: str
) -> None:
    """Every kind in IMAGE_REWARD_KINDS reads the drawing: an image that shows no board pays 0 in all of them,
    with the true optimal step stated beside it (``move`` once paid that step whatever was drawn)."""
    for family_name in SHIPPED:  # the families the reward rows hold (the bare toy family draws no aid)
        row = next(row for row in reward_rows if row["task"] == family_name)
        family, _, step = _first_step(row)
        width, height = family.geometry.size
        drawings = {"noise": np.random.default_rng(0).integers(0, 256, (height, width, 3), dtype=np.uint8),
                    "blank": Image.new("RGB", (width, height), "white"),
                    "black": Image.new("RGB", (width, height), "black")}  # fmt: skip
        for name, drawing in drawings.items():
            result = image_rewards(drawing, row["state"], purpose=purpose, step=family.format_step(step),
                                   optimal_length=row["optimal_length"])  # fmt: skip
            assert {kind: result[kind] for kind in IMAGE_REWARD_KINDS} == dict.fromkeys(IMAGE_REWARD_KINDS, 0.0), (
                family_name, name)
