"""Boards drawn the way the authors' path images are described, for the path image reader.

Their path images (their ``lmms_eval/tasks/path/utils.py`` reads them as ``width / 10``
cells, their prompts describe the colours) are edge-to-edge square cells: black walls,
light-gray roads, an orange start triangle, a blue destination triangle, and black
letters A-E on labelled cells. We draw in that style with our own code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PIL import Image, ImageDraw, ImageFont

WALL = (0, 0, 0)
ROAD = (205, 205, 205)
START = (255, 140, 0)
GOAL = (40, 90, 220)
LETTER = (10, 10, 10)


def draw_path_board(
    rows: Sequence[str],
    start: Sequence[int],
    goal: Sequence[int],
    labels: Mapping[str, Sequence[int]],
    cell_px: int = 32,
) -> Image.Image:
    """``rows`` of ``#``/``.`` as an image in the authors' path style."""
    size = len(rows)
    image = Image.new("RGB", (size * cell_px, size * cell_px), ROAD)
    draw = ImageDraw.Draw(image)
    for r, row in enumerate(rows):
        for c, char in enumerate(row):
            if char == "#":
                draw.rectangle((c * cell_px, r * cell_px, (c + 1) * cell_px - 1, (r + 1) * cell_px - 1), fill=WALL)
    for (r, c), colour in ((start, START), (goal, GOAL)):
        x0, y0, inset = c * cell_px, r * cell_px, cell_px // 6
        draw.polygon([(x0 + cell_px // 2, y0 + inset), (x0 + inset, y0 + cell_px - inset),
                      (x0 + cell_px - inset, y0 + cell_px - inset)], fill=colour)
    font = ImageFont.load_default(size=int(cell_px * 0.7))
    for letter, (r, c) in labels.items():
        centre = (c * cell_px + cell_px // 2, r * cell_px + cell_px // 2)
        draw.text(centre, letter, font=font, fill=LETTER, anchor="mm")
    return image
