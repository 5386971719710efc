"""One timeline lane's cells as characters and styles: busy bars, named blocks, gaps.

Pure functions of the binned data (no Textual), so tests can check what a lane shows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style

from tui.core.safe_text import printable
from tui.views.timeline import Cell
from tui.views.timeline.lanes import LANE_GPU
from tui.widgets import theme
from tui.widgets.text import short_name

Cells = list[tuple[str, Style | None]]  # one (character, style) per screen column


def lane_cells(cells: list[Cell | None], gaps: list[float] | None, kind: int) -> Cells:
    """Draw a lane: a run of columns filled by one interval becomes a block with its
    name; other columns show how busy they were in eighths; GPU-idle gaps over the
    threshold show the gap glyph (or, where the column is partly busy, a red bar)."""
    out: Cells = []
    n, x = len(cells), 0
    while x < n:
        cell = cells[x]
        end = _run_end(cells, x)
        if cell is not None and end - x >= theme.MIN_BLOCK:
            out.extend(_block(cell, end - x, kind, x > 0 and _is_block_end(cells, x - 1)))
            x = end
            continue
        out.append(_column(cell, gaps[x] if gaps else 0.0, kind))
        x += 1
    return out


def _run_end(cells: list[Cell | None], x: int) -> int:
    """End of the run of solid columns held by the same interval as column x."""
    first = cells[x]
    if first is None or not first.solid or first.top_id is None:
        return x + 1
    end = x + 1
    while end < len(cells):
        nxt = cells[end]
        if nxt is None or nxt.top_id != first.top_id or not nxt.solid:
            break
        end += 1
    return end


def _is_block_end(cells: list[Cell | None], x: int) -> bool:
    cell = cells[x]
    return cell is not None and cell.solid


def _block(cell: Cell, width: int, kind: int, after_block: bool) -> Cells:
    name = cell.top_name or ""
    label = short_name(name) if kind == LANE_GPU else printable(name)
    style = Style(color=theme.colour_for(name, cell.top_kind), reverse=True)
    # a thin edge where two blocks meet, so that back-to-back kernels stay apart
    text = ("▏" if after_block else " ") + label
    chars = [ch if cell_len(ch) == 1 else "?" for ch in text[:width]]
    if len(text) > width and width > 1:
        chars[-1] = "…"
    chars += [" "] * (width - len(chars))
    return [(ch, style) for ch in chars]


def _column(cell: Cell | None, gap: float, kind: int) -> tuple[str, Style | None]:
    busy = cell.busy if cell is not None else 0.0
    if busy <= 0.0:
        return (theme.GAP_GLYPH, theme.GAP_STYLE) if gap > 0 else (" ", None)
    level = min(8, max(1, math.ceil(busy * 8)))
    if gap > 0:
        return theme.BARS[level], theme.GAP_TOUCH_STYLE
    assert cell is not None
    return theme.BARS[level], Style(color=theme.colour_for(cell.top_name, cell.top_kind))


def mark_hits(cells: Cells, hit: Sequence[bool] | np.ndarray) -> Cells:
    """The columns where a search hit falls, in the hit style (the name stays legible)."""
    return [(ch, (style or Style()) + theme.HIT_STYLE) if hit[x] else (ch, style)
            for x, (ch, style) in enumerate(cells)]


def label_cells(label: str, selected: bool) -> Cells:
    """The lane's name, padded into the label column, then the separator."""
    text = printable(label)[: theme.LABEL_WIDTH - 2].ljust(theme.LABEL_WIDTH - 1)
    style = theme.LABEL_SELECTED if selected else theme.LABEL_STYLE
    cells: Cells = [(ch, style) for ch in text]
    return cells + [("│", theme.SEPARATOR_STYLE)]


def to_segments(cells: Cells, base: Style) -> list[Segment]:
    """Join neighbouring cells of the same style into one segment each."""
    segments: list[Segment] = []
    run: list[str] = []
    style: Style | None = None
    ink = theme.on_light if theme.is_light(base) else None  # colours for a light theme
    for ch, cell_style in cells:
        if run and cell_style != style:
            segments.append(_segment(run, base, style, ink))
            run = []
        run.append(ch)
        style = cell_style
    if run:
        segments.append(_segment(run, base, style, ink))
    return segments


def _segment(run: list[str], base: Style, style: Style | None,
             ink: Callable[[Style], Style] | None) -> Segment:
    if style is None:
        return Segment("".join(run), base)
    return Segment("".join(run), base + (ink(style) if ink is not None else style))
