"""Write the picture of docs/render-styles.md: each family's board in the benchmark style, three
training styles and the held-out style, side by side.

    python docs/render_style_images.py [--out docs/images]

Every board is the first medium row of the seed-0 build; each is drawn natively in its style
(so the held-out boards are larger) and shrunk to one height only for the picture.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from PIL import Image, ImageDraw

from vgau_data.builders.instances import RowTask, generate_verified
from vgau_data.registry import FAMILIES
from vgau_data.render_styles import BENCHMARK_STYLE, OOD_STYLE, sample_style
from vgau_data.rendering import font

ROW = ("medium", 0)
STYLES = (BENCHMARK_STYLE, sample_style(0), sample_style(2), sample_style(4), OOD_STYLE)
HEIGHT = 150
CAPTION = 18


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "images")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, family in FAMILIES.items():
        task = RowTask(name, *ROW, master_seed=0)
        state, _ = generate_verified(name, task.difficulty, task.seed, task.slot)
        boards = [family.styled(style).render(state) for style in STYLES]
        rows.append([board.resize((round(board.width * HEIGHT / board.height), HEIGHT), Image.Resampling.LANCZOS)
                     for board in boards])  # fmt: skip
    widths = [max(row[k].width for row in rows) for k in range(len(STYLES))]
    sheet = Image.new("RGB", (sum(widths) + 8 * len(STYLES), CAPTION + len(rows) * (HEIGHT + 8)), (255, 255, 255))
    draw = ImageDraw.Draw(sheet)
    x = 0
    for k, style in enumerate(STYLES):
        label = "benchmark" if style.is_benchmark else ("held out: " if style == OOD_STYLE else "") + style.name
        draw.text((x + 4, 2), label, font=font(12), fill=(0, 0, 0))
        for r, row in enumerate(rows):
            sheet.paste(row[k], (x + 4, CAPTION + r * (HEIGHT + 8)))
        x += widths[k] + 8
    path = args.out / "render-styles.png"
    sheet.quantize(colors=128).save(path, optimize=True)
    print(f"{path} ({path.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
