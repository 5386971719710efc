"""Pure parts of the timeline view: zoom arithmetic, ruler ticks, lane drawing, names."""

from __future__ import annotations

from tui.core.safe_text import printable
from tui.views.timeline import Cell, View
from tui.views.timeline.lanes import LANE_GPU
from tui.widgets import theme, viewport
from tui.widgets.lane_render import lane_cells
from tui.widgets.ruler import ticks
from tui.widgets.text import short_name


def same(npc: int) -> int:
    return npc


def test_zoom_keeps_the_cursor_column() -> None:
    view = View(1000, 5000, 100)
    anchor = (5000 + 30) * 1000 + 500
    zin = viewport.zoom(view, 0.5, anchor, same, 10**9)
    assert zin.npc == 500 and zin.x_of(anchor) == 30
    zout = viewport.zoom(zin, 2, anchor, same, 10**9)
    assert zout.npc == 1000 and zout.x_of(anchor) == 30
    assert viewport.zoom(view, 2, anchor, same, 1500).npc == 1500  # capped


def test_fit_shows_the_whole_range() -> None:
    view = viewport.fit(1_000_003, 9_000_017, 80, same)
    assert view.t0 <= 1_000_003 and view.t1 >= 9_000_017
    assert view.ncols == 80


def test_clamp_keeps_the_trace_on_screen() -> None:
    far = View(10, 10**9, 100)
    clamped = viewport.clamp(far, 0, 10_000)
    assert clamped.t0 < 10_000


def test_ruler_units_follow_zoom() -> None:
    origin = 10**15
    for npc, unit in ((10**7, " s"), (10**5, " ms"), (100, " µs"), (1, " ns")):
        labels = [label for _, label in ticks(View(npc, origin // npc, 100), origin)]
        assert labels and all(label.endswith(unit) for label in labels), (npc, labels)
    marks = ticks(View(10**5, origin // 10**5, 100), origin)
    assert marks[0] == (0, "0 ms")
    gaps = [b[0] - a[0] for a, b in zip(marks, marks[1:], strict=False)]
    assert min(gaps) > max(len(label) for _, label in marks)  # labels never touch


def test_ruler_decimals_deep_in_a_long_trace() -> None:
    origin = 10**15
    view = View(10, (origin + 1_234_567_890) // 10, 100)
    labels = [label for _, label in ticks(view, origin)]
    assert labels[0].startswith("1.23456") and labels[0].endswith(" s")
    assert len(set(labels)) == len(labels)


def cell(busy: float, top_id: int | None, name: str = "k", solid: bool = False) -> Cell:
    return Cell(busy, top_id, name, "kernel", solid)


def test_a_long_kernel_is_a_named_block() -> None:
    cells = [cell(1.0, 7, "void ns::gemm_kernel<float>(float*)", True)] * 12
    drawn = "".join(ch for ch, _ in lane_cells(cells, None, LANE_GPU))
    assert drawn.strip() == "gemm_kernel"
    assert all(style is not None and style.reverse for _, style in
               lane_cells(cells, None, LANE_GPU))


def test_coarse_columns_show_busy_eighths_and_gaps() -> None:
    cells = [cell(0.1, 1), cell(1.0, 2), None, None, cell(0.5, 3)]
    gaps = [0.0, 0.0, 1.0, 0.0, 0.3]
    drawn = lane_cells(cells, gaps, LANE_GPU)
    assert "".join(ch for ch, _ in drawn) == f"▁█{theme.GAP_GLYPH} ▄"
    assert drawn[2][1] == theme.GAP_STYLE and drawn[4][1] == theme.GAP_TOUCH_STYLE


def test_untrusted_names_stay_literal() -> None:
    evil = "[bold]boom\x1b[31m\x07"
    assert printable(evil) == "[bold]boom\\x1b[31m\\x07"
    block = [cell(1.0, 1, evil, True)] * 30
    drawn = "".join(ch for ch, _ in lane_cells(block, None, LANE_GPU))
    assert "\x1b" not in drawn and "[bold]boom\\x1b[31m" in drawn


def test_short_name() -> None:
    assert short_name("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel"
                      "<float, float, false>(int, float, float const*)") == \
        "vectorized_layer_norm_kernel"
    assert short_name("nvjet_sm90_tst_256x128") == "nvjet_sm90_tst_256x128"
    assert short_name("Memcpy HtoD (Pageable -> Device)") == "Memcpy HtoD"
