"""A roofline drawn in text cells: log-log axes in decades, the DRAM roof (╱) up to the
ridge (┊), the compute roof (─) after it, and each launch as its mark (its number, then
letters), the selected one highlighted. Also the SVG of the same chart for `tui export`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape

from rich.text import Text

from tui.analysis.ncu.roofline import Chart, Point

LABEL_WIDTH = 6  # the y axis labels ('100T ') and the axis line
_SI = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "K"), (1.0, ""))
_SIDE_STYLE = {"memory": "cyan", "compute": "magenta"}


def si(value: float) -> str:
    """1e12 -> '1T', 2.5e10 -> '25G' (FLOP/s and bytes/s on the axes)."""
    for scale, prefix in _SI:
        if value >= scale:
            return f"{value / scale:.3g}{prefix}"
    return f"{value:.2g}"


def mark(point: Point) -> str:
    """A launch's mark: its number (0-9), then a-z, else '•'."""
    n = point.launch_id
    return str(n) if n < 10 else chr(ord("a") + n - 10) if n < 36 else "•"


def _decade(value: float) -> str:
    return f"{value:g}" if value < 1000 else si(value)


class _Grid:
    """Character cells with a style each; (0, 0) is the top left of the plot area."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells = [[(" ", "")] * width for _ in range(height)]

    def put(self, col: int, row: int, ch: str, style: str = "") -> None:
        if 0 <= col < self.width and 0 <= row < self.height:
            self.cells[row][col] = (ch, style)

    def get(self, col: int, row: int) -> str:
        return self.cells[row][col][0]


def render(chart: Chart, width: int, height: int, selected: int | None = None,
           precision: str = "fp32") -> Text:
    """The chart in `width` x `height` cells (at least 30 x 8), the roof of `precision`."""
    width, height = max(width, 30), max(height, 8)
    plot_w, plot_h = width - LABEL_WIDTH - 1, height - 2  # two rows: axis and labels
    x0, x1, y0, y1 = chart.bounds()
    lx0, lx1, ly0, ly1 = (math.log10(v) for v in (x0, x1, y0, y1))

    def col_of(x: float) -> int:
        return round((math.log10(x) - lx0) / (lx1 - lx0) * (plot_w - 1))

    def row_of(y: float) -> int:
        return plot_h - 1 - round((math.log10(y) - ly0) / (ly1 - ly0) * (plot_h - 1))

    def x_at(col: int) -> float:
        return 10 ** (lx0 + col / max(plot_w - 1, 1) * (lx1 - lx0))

    grid = _Grid(plot_w, plot_h)
    for d in range(int(ly0), int(ly1) + 1):  # decade dots: where the eye reads values
        for e in range(int(lx0), int(lx1) + 1):
            grid.put(col_of(10.0 ** e), row_of(10.0 ** d), "·", "dim")
    ridge = chart.ridge(precision)
    if ridge is not None and x0 <= ridge <= x1:
        top = row_of(chart.peaks[precision])
        for row in range(top, plot_h):
            grid.put(col_of(ridge), row, "┊", "dim yellow")
    last: int | None = None
    for col in range(plot_w):
        roof = chart.roof(x_at(col), precision)
        if roof is None or roof < y0:
            continue
        row = row_of(min(roof, y1))
        flat = ridge is not None and x_at(col) >= ridge
        for r in range(row, (last if last is not None and last > row else row) + 1):
            grid.put(col, r, "─" if flat else "╱", "yellow")
        last = row
    for point in sorted(chart.points, key=lambda p: p.launch_id == selected):
        if point.intensity <= 0 or point.flop_per_s <= 0:
            continue
        style = "bold reverse" if point.launch_id == selected else \
            f"bold {_SIDE_STYLE.get(point.side, '')}"
        grid.put(col_of(point.intensity), row_of(point.flop_per_s), mark(point), style)
    return _frame(grid, (lx0, lx1, ly0, ly1), col_of, row_of, width)


def _frame(grid: _Grid, logs: tuple[float, float, float, float],
           col_of: Callable[[float], int], row_of: Callable[[float], int],
           width: int) -> Text:
    """The plot cells with the y labels and axis on the left, the x axis and labels below."""
    lx0, lx1, ly0, ly1 = logs
    labels = {row_of(10.0 ** d): si(10.0 ** d) for d in range(int(ly0), int(ly1) + 1)}
    out = Text(no_wrap=True, overflow="crop")
    for row in range(grid.height):
        out.append(f"{labels.get(row, ''):>{LABEL_WIDTH - 1}} ", "dim")
        out.append("│", "dim")
        for ch, style in grid.cells[row]:
            out.append(ch, style)
        out.append("\n")
    out.append(" " * (LABEL_WIDTH - 1) + " └" + "─" * (grid.width - 1) + "\n", "dim")
    axis = [" "] * (width)
    for e in range(int(lx0), int(lx1) + 1):
        text = _decade(10.0 ** e)
        at = LABEL_WIDTH + 1 + col_of(10.0 ** e) - len(text) // 2
        if at >= 0 and at + len(text) <= width and all(
                c == " " for c in axis[max(at - 1, 0):at + len(text) + 1]):
            axis[at:at + len(text)] = list(text)
    out.append("".join(axis).rstrip(), "dim")
    return out


def caption(chart: Chart, precision: str = "fp32") -> str:
    """What the axes and roofs are, in one line."""
    parts = [f"FLOP/s ({precision}) against FLOP per DRAM byte, log-log"]
    if chart.bandwidth:
        parts.append(f"DRAM roof {si(chart.bandwidth)}B/s")
    peak = chart.peaks.get(precision)
    if peak:
        parts.append(f"{precision} peak {si(peak)}FLOP/s")
    ridge = chart.ridge(precision)
    if ridge:
        parts.append(f"ridge at {ridge:.1f} FLOP/byte")
    return " · ".join(parts)


def svg(chart: Chart, precision: str = "fp32", width: int = 720, height: int = 480) -> str:
    """The same chart as a standalone SVG document."""
    left, right, top, bottom = 70, 20, 40, 50
    pw, ph = width - left - right, height - top - bottom
    x0, x1, y0, y1 = chart.bounds()
    lx0, lx1, ly0, ly1 = (math.log10(v) for v in (x0, x1, y0, y1))

    def px(x: float) -> float:
        return left + (math.log10(x) - lx0) / (lx1 - lx0) * pw

    def py(y: float) -> float:
        return top + ph - (math.log10(y) - ly0) / (ly1 - ly0) * ph

    title = f"Roofline{' · ' + chart.device if chart.device else ''}"
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="22" font-size="15" font-weight="bold">{escape(title)}</text>']
    for e in range(int(lx0), int(lx1) + 1):
        x = px(10.0 ** e)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + ph}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{top + ph + 16}" text-anchor="middle">'
                   f'{escape(_decade(10.0 ** e))}</text>')
    for d in range(int(ly0), int(ly1) + 1):
        y = py(10.0 ** d)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">'
                   f'{escape(si(10.0 ** d))}</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" '
               'stroke="#444"/>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 10}" text-anchor="middle">'
               'arithmetic intensity (FLOP per DRAM byte)</text>')
    out.append(f'<text transform="translate(16 {top + ph / 2}) rotate(-90)" '
               f'text-anchor="middle">{precision} FLOP/s</text>')
    ridge = chart.ridge(precision)
    peak = chart.peaks.get(precision)
    if ridge and peak and chart.bandwidth:
        start = max(x0, y0 / chart.bandwidth)
        out.append(f'<polyline fill="none" stroke="#c80" stroke-width="2" points="'
                   f'{px(start):.1f},{py(chart.bandwidth * start):.1f} '
                   f'{px(ridge):.1f},{py(peak):.1f} {px(x1):.1f},{py(peak):.1f}"/>')
        out.append(f'<line x1="{px(ridge):.1f}" y1="{py(peak):.1f}" x2="{px(ridge):.1f}" '
                   f'y2="{top + ph}" stroke="#c80" stroke-dasharray="3,3"/>')
        out.append(f'<text x="{px(ridge) + 4:.1f}" y="{top + ph - 6}" fill="#c80">ridge '
                   f'{ridge:.1f}</text>')
        out.append(f'<text x="{left + pw - 4}" y="{py(peak) - 6:.1f}" text-anchor="end" '
                   f'fill="#c80">peak {escape(si(peak))}FLOP/s · DRAM '
                   f'{escape(si(chart.bandwidth))}B/s</text>')
    for p in chart.points:
        if p.precision != precision or p.intensity <= 0 or p.flop_per_s <= 0:
            continue
        colour = "#08c" if p.side == "memory" else "#a0a"
        x, y = px(p.intensity), py(p.flop_per_s)
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{colour}">'
                   f'<title>#{p.launch_id} {escape(p.name)}: {p.intensity:.3g} FLOP/byte, '
                   f'{escape(si(p.flop_per_s))}FLOP/s ({p.pct_of_peak:.1f}% of peak)'
                   '</title></circle>')
        out.append(f'<text x="{x + 7:.1f}" y="{y + 4:.1f}">#{p.launch_id} '
                   f'{escape(p.name[:32])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
