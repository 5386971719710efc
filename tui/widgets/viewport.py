"""Zoom and pan arithmetic on a `View`: pure functions, so they are easy to test.

Zoom keeps the cursor on the same screen column; pans and zooms are clamped so the
trace never leaves the screen entirely and one may zoom out only to twice "fit all".
"""

from __future__ import annotations

import math
from collections.abc import Callable

from tui.views.timeline import View

Snap = Callable[[int], int]


def fit(start: int, end: int, ncols: int, snap: Snap) -> View:
    """[start, end) across the screen, centred."""
    npc = snap(max(1, math.ceil((end - start) / max(1, ncols - 1))))
    used = math.ceil((end - start) / npc)
    return View(npc, start // npc - max(0, ncols - used) // 2, ncols)


def show_range(start: int, end: int, ncols: int, snap: Snap, margin: float = 0.25) -> View:
    """[start, end) with `margin` of its length either side, centred."""
    pad = int((end - start) * margin)
    return fit(start - pad, end + pad, ncols, snap)


def zoom(view: View, factor: float, anchor: int, snap: Snap, max_npc: int) -> View:
    """`factor` < 1 zooms in. The column holding `anchor` stays where it is on screen."""
    npc = snap(min(max_npc, max(1, round(view.npc * factor))))
    if npc == view.npc and factor < 1 and view.npc > 1:
        npc = view.npc - 1  # snapping undid the step: still make progress
    x = view.x_of(anchor)
    return View(npc, anchor // npc - x, view.ncols)


def pan(view: View, columns: int) -> View:
    return View(view.npc, view.c0 + columns, view.ncols)


def clamp(view: View, start: int, end: int) -> View:
    """Keep the screen's middle column inside [start, end): the trace never leaves."""
    half = view.ncols // 2
    lo = start // view.npc - half
    hi = max(lo, (end - 1) // view.npc - half)
    return View(view.npc, min(max(view.c0, lo), hi), view.ncols)


def follow(view: View, t: int, margin: int = 2) -> View:
    """Pan the least needed so that time `t` is on screen, `margin` columns in."""
    x = view.x_of(t)
    margin = min(margin, view.ncols // 4)
    if x < margin:
        return pan(view, x - margin)
    if x >= view.ncols - margin:
        return pan(view, x - view.ncols + margin + 1)
    return view
