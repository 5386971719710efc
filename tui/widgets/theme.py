"""How the timeline looks: glyphs, colours, the label column. One place to restyle.

Colours are a hint, never the only signal: gaps use their own glyph, blocks and the
cursor use reverse video, so the timeline reads the same with NO_COLOR.
"""

from __future__ import annotations

import functools
import zlib

from rich.color import Color
from rich.style import Style

LABEL_WIDTH = 14  # the lane-label column, separator included, on every timeline row

BARS = " ▁▂▃▄▅▆▇█"  # busy share of a column, in eighths
GAP_GLYPH = "░"  # GPU idle longer than the threshold
CURSOR_GLYPH = "┊"  # the cursor's column on lanes other than the selected one
MIN_BLOCK = 3  # columns a single interval must fill before it is drawn with its name

# Distinct hues that survive a 256-colour terminal; a kernel keeps its colour by name.
KERNEL_COLOURS = ("#5fafff", "#87d75f", "#d787ff", "#5fd7d7", "#ffaf5f", "#af87ff",
                  "#87afd7", "#d7d75f", "#ff87af", "#5fd787")
HOST_COLOURS = ("#8787af", "#87af87", "#af8787", "#87afaf", "#afaf87", "#af87af")
MEMCPY_COLOUR = "#ffd75f"
MEMSET_COLOUR = "#a8a8a8"
MEMORY_COLOUR = "#5fafd7"  # a memory lane's step line
MEMORY_PEAK_COLOUR = "#ff5f5f"  # the column where a GPU's allocated memory peaked
METRIC_COLOUR = "#d7af5f"  # a GPU metric lane's bars (% of peak)

GAP_STYLE = Style(color="#ff5f5f", bgcolor="#5f0000", bold=True)
GAP_TOUCH_STYLE = Style(color="#ff5f5f", bold=True)  # a busy column that a gap also touches
LABEL_STYLE = Style(color="#bcbcbc")
LABEL_SELECTED = Style(reverse=True, bold=True)
SEPARATOR_STYLE = Style(color="#585858")
CURSOR_STYLE = Style(reverse=True, bold=True)
CURSOR_LINE_STYLE = Style(color="#808080")
SELECTION_STYLE = Style(underline=True)
VIEWPORT_STYLE = Style(reverse=True)
# a search hit: dark on yellow, underlined so that it shows without colour too
HIT_STYLE = Style(color="#000000", bgcolor="#ffd700", reverse=False, bold=True, underline=True)
DIM_STYLE = Style(color="#808080")
PENDING_STYLE = Style(color="#585858")


def colour_for(name: str | None, kind: str | None) -> str:
    """A stable colour per name; copies and sets get their own."""
    if kind == "memcpy":
        return MEMCPY_COLOUR
    if kind == "memset":
        return MEMSET_COLOUR
    if kind == "memory":
        return MEMORY_COLOUR
    if kind == "memory_peak":
        return MEMORY_PEAK_COLOUR
    if kind == "gpu_metric":
        return METRIC_COLOUR
    palette = KERNEL_COLOURS if kind in (None, "kernel") else HOST_COLOURS
    return palette[zlib.crc32((name or "").encode("utf-8", "replace")) % len(palette)]


# -- light themes ----------------------------------------------------------------------
# The colours above are picked for a dark background. On a light one (textual-light),
# `to_segments` re-inks each style: colours darker, reverse-video blocks with dark text.
INK_ON_LIGHT = "#1c1c1c"
DARKEN = 0.55


def is_light(base: Style) -> bool:
    """Whether `base` (a widget's style) paints on a light background."""
    if base.bgcolor is None:
        return False
    r, g, b = base.bgcolor.get_truecolor()
    return 0.299 * r + 0.587 * g + 0.114 * b > 140


@functools.lru_cache(maxsize=512)
def on_light(style: Style) -> Style:
    """`style` readable on a light background."""
    color, bgcolor = style.color, style.bgcolor
    if color is not None and not color.is_default:
        r, g, b = color.get_truecolor()
        color = Color.from_rgb(r * DARKEN, g * DARKEN, b * DARKEN)
    if style.reverse and style.color is not None and style.bgcolor is None:
        # a block: its colour becomes the background, the text goes dark
        color, bgcolor = style.color, Color.parse(INK_ON_LIGHT)
    return style + Style.from_color(color, bgcolor)
