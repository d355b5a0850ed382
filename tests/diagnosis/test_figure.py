"""Figure 3: a PNG per family and over all, with an LPIPS row only when LPIPS was computed."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from vgau_data.diagnosis.collect import ALL, Accuracy, Diagnosis, Fidelity
from vgau_data.diagnosis.conditions import TEXT, Condition, Source
from vgau_data.diagnosis.figure import figure_paradigms, plot_figure3, plot_figures


def _diagnosis(lpips: bool) -> Diagnosis:
    found = Diagnosis(("easy",), ["maze"], lpips={"trunk_sha256": "t"} if lpips else None)
    found.accuracy[Condition("qwen", TEXT, "text_cot")] = {f: Accuracy(0.25, 0.3, 20, 1) for f in ("maze", ALL)}
    sources = [(Source("noise"), 0.1, 0.02, 0.8), (Source("external", "Qwen-Image-Edit"), 0.3, 0.7, 0.3),
               (Source("oracle"), 0.9, 1.0, 0.0)]  # fmt: skip
    for paradigm in ("gta", "vcot", "vcot_fixed", "vr"):
        for source, accuracy, cells, distance in sources:
            condition = Condition("qwen", source, paradigm)
            found.accuracy[condition] = {f: Accuracy(accuracy, accuracy, 20, 3) for f in ("maze", ALL)}
            summary = Fidelity(10, cells, cells, cells, distance if lpips else None)
            found.fidelity[condition] = {f: summary for f in ("maze", ALL)}
    return found


def test_figure_paradigms__the_captions_fixed_vcot() -> None:
    assert figure_paradigms(_diagnosis(False)) == ["gta", "vcot_fixed", "vr"]


def test_plot_figures__one_per_family_and_all(tmp_path: Path) -> None:
    written = plot_figures(_diagnosis(True), tmp_path)
    assert [p.name for p in written] == ["figure3_all.png", "figure3_maze.png"]
    with_lpips = Image.open(written[0]).size
    (without,) = [p for p in plot_figures(_diagnosis(False), tmp_path / "no") if p.name == "figure3_all.png"]
    assert with_lpips[0] == Image.open(without).size[0] and with_lpips[1] > Image.open(without).size[1]


def test_plot_figure3__nothing_measured_draws_nothing(tmp_path: Path) -> None:
    empty = Diagnosis(("easy",), ["maze"])
    assert plot_figure3(empty, tmp_path / "f.png") is None and not (tmp_path / "f.png").exists()


def test_plot_figure3__the_title_says_what_a_point_rests_on(tmp_path: Path, monkeypatch) -> None:
    from vgau_data.metrics.plots import pyplot

    plt = pyplot()
    closed = []
    monkeypatch.setattr(plt, "close", closed.append)
    found = _diagnosis(False)
    plot_figure3(found, tmp_path / "f.png")
    assert closed[0]._suptitle.get_text().endswith("easy rows, 20 rows a point, 3 runs (LPIPS: pass --lpips-weights)")
    vr = next(c for c in found.accuracy if c.paradigm == "vr")
    found.accuracy[vr] = {f: Accuracy(0.1, 0.1, 12, 1) for f in ("maze", ALL)}  # one condition ran fewer rows, once
    plot_figure3(found, tmp_path / "g.png")
    assert closed[1]._suptitle.get_text().endswith("easy rows, 12-20 rows a point, 1-3 runs (LPIPS: pass --lpips-weights)")
    monkeypatch.undo()  # plt.close is ours again (closing through the patch would append to the list being walked)
    for figure in closed:
        plt.close(figure)
