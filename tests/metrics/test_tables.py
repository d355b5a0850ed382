"""Plain-text tables and bar charts from results."""

from __future__ import annotations

from pathlib import Path

import pytest

from vgau_data.metrics.tables import format_report, format_table, percent


def cell(optimal: float, feasible: float) -> dict:
    return {"n": 10, "optimal_accuracy": optimal, "feasible_accuracy": feasible, "parse_rate": 1.0}


RESULT_DIRECT = {
    "optimal_accuracy": 0.4567,
    "feasible_accuracy": 0.5,
    "runs": 1,
    "coverage": {"answered": [600, 598], "rows": 600, "complete": False},
    "per_family_difficulty": {
        "maze": {"easy": cell(1.0, 1.0), "medium": cell(0.5, 0.75), "hard": cell(0.0, 0.1234)},
        "klotski": {"hard": cell(0.05, 0.25)},
    },
}
RESULT_SELF_VCOT = {
    "optimal_accuracy": 0.25,
    "optimal_accuracy_std": 0.0333,
    "feasible_accuracy": 0.3,
    "feasible_accuracy_std": 0.0,
    "runs": 3,
    "per_family_difficulty": {"maze": {"easy": cell(0.25, 0.3)}},
}
RESULTS = {"direct": RESULT_DIRECT, "self_vcot": RESULT_SELF_VCOT}


def test_table__rows_are_protocols_columns_family_by_difficulty() -> None:
    lines = format_table(RESULTS).splitlines()
    assert lines[0] == "Optimal accuracy (%)"
    assert lines[1].split("|")[1].strip() == "maze" and lines[1].split("|")[2].strip() == "klotski"
    assert lines[2].split("|")[1].split() == ["E", "M", "H"]
    direct = lines[4].split("|")
    assert direct[0].strip() == "direct"
    assert direct[1].split() == ["100.0", "50.0", "0.0"]
    assert direct[2].split() == ["-", "-", "5.0"]
    assert direct[3].strip() == "45.7"
    vcot = lines[5].split("|")
    assert vcot[3].strip() == "25.0±3.3" and vcot[4].strip() == "3"
    assert lines[1].split("|")[5].strip() == "answered"
    assert direct[5].strip() == "598-600/600" and vcot[5].strip() == "-"  # runs differ; not recorded
    bars = [[i for i, ch in enumerate(line) if ch in "|+"] for line in lines[1:]]
    assert bars[0] == bars[2] == bars[3] == bars[4], "columns line up"
    assert bars[1] == bars[0][: len(bars[1])]


def test_table__feasible_metric_and_family_selection() -> None:
    text = format_table(RESULTS, "feasible_accuracy", families=["klotski"])
    assert text.splitlines()[0] == "Feasible accuracy (%)"
    assert "maze" not in text
    assert text.splitlines()[4].split("|")[1].split() == ["-", "-", "25.0"]


def test_table__unknown_metric_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown metric 'accuracy'"):
        format_table(RESULTS, "accuracy")


def test_report__two_tables_then_warnings() -> None:
    text = format_report("m", RESULTS, ["direct: 3 missing row(s)"])
    assert text.index("m: optimal accuracy (%)") < text.index("m: feasible accuracy (%)")
    assert text.endswith("warning: direct: 3 missing row(s)")


def test_report__a_subset_says_so_in_both_titles() -> None:
    text = format_report("m", RESULTS, subset=True)
    assert text.count("[subset: answered rows only, not comparable]") == 2


def test_percent__one_decimal() -> None:
    assert [percent(v) for v in (0.0, 0.12345, 1.0, None)] == ["0.0", "12.3", "100.0", "-"]


def test_plot__one_png_per_protocol(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from PIL import Image

    from vgau_data.metrics.plots import plot_results

    paths = plot_results("org/Model 7B", RESULTS, tmp_path, families=["maze", "klotski"])
    assert [p.name for p in paths] == ["org_Model_7B_direct.png", "org_Model_7B_self_vcot.png"]
    with Image.open(paths[0]) as image:
        assert image.format == "PNG" and image.width >= 600


def test_plot__title_gives_coverage_and_spread_and_an_unasked_difficulty_draws_no_bar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("matplotlib")
    from vgau_data.metrics import plots

    plt = plots.pyplot()
    closed = []
    monkeypatch.setattr(plt, "close", closed.append)
    result = {"optimal_accuracy": 0.5, "optimal_accuracy_std": 0.25, "runs": 2,
              "coverage": {"answered": [23, 23], "rows": 36, "complete": False},
              "per_family_difficulty": {"maze": {"easy": {"optimal_accuracy": 0.5, "optimal_accuracy_std": 0.125,
                                                          "feasible_accuracy": 1.0}}}}  # fmt: skip
    plots.plot_protocol("m", "direct", result, tmp_path / "p.png", families=["maze"])
    (ax,) = closed[0].axes
    assert ax.get_title() == "m / direct: 50.0 ± 25.0% optimal (2 runs), 23/36 rows answered"
    heights = sorted(bar.get_height() for bar in ax.patches)
    assert heights == [50.0, 100.0]  # easy only: medium and hard were never asked, so no 0 bars ...
    assert [t.get_text() for t in ax.texts] == ["-", "-"]  # ... but a "-" each
    spreads = [[list(point) for point in segment] for c in ax.containers if getattr(c, "errorbar", None) is not None
               for lines in c.errorbar.lines[2] for segment in lines.get_segments()]  # fmt: skip
    assert spreads == [[[-0.26, 37.5], [-0.26, 62.5]]]  # the easy bar's ± 12.5
    assert "± std over 2 runs" in ax.get_ylabel()
    monkeypatch.undo()
    plt.close(closed[0])
