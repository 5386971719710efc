"""The tables' key bindings, in the shape of `tui.widgets.keymap` (one list to read).

Kept beside the tables rather than in keymap.py so the timeline's table stays as it is;
the help screen can list these with `keymap.TIMELINE + keymap.APP + TABLE + ...`.
"""

from __future__ import annotations

from textual.binding import Binding

from tui.widgets.keymap import Key

TABLE: tuple[Key, ...] = (
    Key("up,k", "cursor(-1)", "previous row", "Tables", "↑ k"),
    Key("down,j", "cursor(1)", "next row", "Tables", "↓ j"),
    Key("pageup", "page(-1)", "a screen up", "Tables", "PgUp"),
    Key("pagedown", "page(1)", "a screen down", "Tables", "PgDn"),
    Key("home", "edge(False)", "first row", "Tables", "Home"),
    Key("end", "edge(True)", "last row", "Tables", "End"),
    Key("left,h", "scroll_columns(-8)", "scroll left", "Tables", "← h"),
    Key("right,l", "scroll_columns(8)", "scroll right", "Tables", "→ l"),
    Key("enter", "select", "open the row / jump to it on the timeline", "Tables", "Enter",
        "open"),
    Key("s", "sort_by(1)", "sort by the next column (a header click too)", "Tables", "s",
        "sort"),
    Key("S", "sort_by(-1)", "sort by the previous column", "Tables", "S"),
    Key("r", "reverse", "reverse the sort", "Tables", "r", "reverse"),
    Key("f", "full_names", "full names / shortened names", "Tables", "f", "full names"),
)

PANEL: tuple[Key, ...] = (
    Key("slash", "filter", "filter rows: a substring, any case (Esc clears)", "Tables", "/",
        "filter"),
    Key("m", "maximize", "the table full screen, or back", "Tables", "m", "maximize"),
    Key("backspace", "back", "back a level: from a kernel's launches to the kernels, a "
        "frame's kernels to the frames, a finding's rows to the findings (Esc: the timeline)",
        "Tables", "Backspace"),
)

KERNELS: tuple[Key, ...] = (
    Key("c", "categories", "group kernels by category, or by name", "Kernels", "c",
        "categories"),
    Key("n", "instance(1)", "the next instance of the kernel on the timeline", "Kernels", "n",
        "next"),
    Key("N", "instance(-1)", "the previous instance on the timeline", "Kernels", "N"),
    Key("d", "drill_down", "the kernel's Nsight Compute results (with --ncu): the launch "
        "under the cursor, or the name's first", "Kernels", "d", "ncu"),
)

GAPS: tuple[Key, ...] = (
    Key("t", "threshold", "change the gap threshold (ms): the table and the timeline's "
        "highlights", "Gaps", "t", "threshold"),
    Key("w", "host", "while the GPU waited: the host's CPU samples in the gap (a call "
        "tree), its OS calls, or its Python frames", "Gaps", "w", "host"),
)


CODE: tuple[Key, ...] = (
    Key("v", "view", "the top-down tree of call paths, or the bottom-up table of frames",
        "Code", "v", "tree/table"),
    Key("K", "kernels", "the kernels the frame (or tree node) launched", "Code", "K",
        "kernels"),
)

# The Code tab's top-down tree (`v`).
TREE: tuple[Key, ...] = (
    Key("down,j", "cursor_down", "next line", "Code", "↓ j"),
    Key("up,k", "cursor_up", "previous line", "Code", "↑ k"),
    Key("enter,right,l", "open", "open the call path (again: step into it)", "Code",
        "Enter → l", "open"),
    Key("left,h", "close", "close the call path (again: up to its caller)", "Code", "← h",
        "close"),
    Key("space", "toggle_node", "open or close", "Code", "Space"),
)


def panel_bindings(count: int) -> list[Binding]:
    """App keys 1..count: show that tab below the timeline and focus what is in it."""
    return [Binding(str(i), f"panel({i - 1})", f"panel {i}", show=False)
            for i in range(1, count + 1)]
