"""Every key binding, in one table: the widgets' BINDINGS and the help screen read it.

Keys follow common TUI habits: arrows or vi keys to move, +/- to zoom, Home/End,
`q` to quit, `?` for help. The footer shows those with a `footer` name.

Who owns a key: the focused widget first (a table's keys while a table has focus), then
the app. Esc always gives the timeline the keys back; the timeline's keys marked
`anywhere` (zoom, gaps, go to, lanes) work from any panel too and give it the keys,
unless the focused widget binds the same key for itself (`t` on the Gaps tab).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType


@dataclass(frozen=True)
class Key:
    keys: str  # comma-separated Textual key names
    action: str
    description: str
    group: str
    display: str  # how the help screen and footer write the keys
    footer: str = ""  # a short name in the footer; empty: not in the footer
    anywhere: bool = False  # a timeline key that works from any panel (the app forwards it)


TIMELINE: tuple[Key, ...] = (
    Key("left,h", "cursor(-1)", "cursor left one column", "Move", "← h"),
    Key("right,l", "cursor(1)", "cursor right one column", "Move", "→ l"),
    Key("up,k", "lane(-1)", "previous lane", "Move", "↑ k"),
    Key("down,j", "lane(1)", "next lane", "Move", "↓ j"),
    Key("shift+left,H", "pan(-0.5)", "pan left half a screen", "Move", "⇧← H"),
    Key("shift+right,L", "pan(0.5)", "pan right half a screen", "Move", "⇧→ L"),
    Key("left_square_bracket", "kernel(False)", "previous kernel on the lane", "Move", "["),
    Key("right_square_bracket", "kernel(True)", "next kernel on the lane", "Move", "]"),
    Key("home", "edge(False)", "go to the start", "Move", "Home"),
    Key("end", "edge(True)", "go to the end", "Move", "End"),
    Key("plus,equals_sign", "zoom(0.5)", "zoom in around the cursor", "Zoom", "+", "zoom in",
        anywhere=True),
    Key("minus,underscore", "zoom(2)", "zoom out around the cursor", "Zoom", "-", "out",
        anywhere=True),
    Key("0,f", "fit", "fit the whole trace", "Zoom", "0", "fit", anywhere=True),
    Key("v", "mark", "mark: start a selection at the cursor", "Zoom", "v"),
    Key("z", "zoom_selection", "zoom to the selection (mark to cursor)", "Zoom", "z"),
    Key("escape", "clear", "clear the selection and the search (an opened lane closes)", "Zoom",
        "Esc"),
    Key("g", "gap(True)", "next GPU-idle gap", "Gaps", "g", "gap", anywhere=True),
    Key("G", "gap(False)", "previous GPU-idle gap", "Gaps", "G", anywhere=True),
    Key("b", "biggest_gap", "largest gap (again: the next largest)", "Gaps", "b", "largest",
        anywhere=True),
    Key("slash", "search", "search names: kernels, copies, NVTX, host ops, Python frames (a "
        "substring, any case; re:REGEX for a regular expression); Enter selects the first hit "
        "from the cursor", "Search", "/", "search"),
    Key("n", "hit(True)", "select the next search hit in time: its lane shown (opened at its "
        "depth if need be), zoomed in until it is a few columns wide, in the details, for y",
        "Search", "n"),
    Key("N", "hit(False)", "select the previous search hit", "Search", "N"),
    Key("at", "goto", "go to a time (1.25s; +10ms from the cursor; 850us), a step (step 3: "
        "ProfilerStep#3, NVTX step_3, JAX train step 3) or an NVTX range by name, zoomed to "
        "fit", "Search", "@", "go to", anywhere=True),
    Key("a", "toggle_nvtx", "show/hide NVTX (annotation) lanes", "Lanes", "a", "NVTX",
        anywhere=True),
    Key("t", "toggle_host", "show/hide host-thread lanes", "Lanes", "t", "threads",
        anywhere=True),
    Key("m", "toggle_metrics", "show/hide the GPU metric lanes under each GPU: SMs active, "
        "tensor cores, DRAM, NVLink and PCIe throughput as % of peak (nsys "
        "--gpu-metrics-devices, XLA's PM sampling)", "Lanes", "m"),
    Key("p", "toggle_distributed", "show/hide the critical path of each step and each "
        "stream's queue length (outstanding launches)", "Lanes", "p", anywhere=True),
    Key("enter", "drill_down", "open the kernel in Nsight Compute results", "Lanes", "Enter"),
)

APP: tuple[Key, ...] = (
    Key("c", "ncu_launches", "list the Nsight Compute launches (tui TRACE --ncu REPORT)",
        "Nsight Compute", "c"),
    Key("colon", "sql", "SQL prompt: read-only SQL over the trace", "SQL and export", ":",
        "SQL"),
    Key("x,ctrl+s", "export", "export the table or SQL result in focus: CSV, Parquet, JSON "
        "(ctrl+s too)", "SQL and export", "x", "export"),
    Key("y", "copy", "copy what is selected to the clipboard (OSC 52: over SSH, in tmux): the "
        "full name under the timeline cursor, a table row, the SQL result as TSV",
        "SQL and export", "y", "copy"),
    Key("escape", "to_timeline", "back to the timeline: its keys again (from a table, the "
        "details, a prompt)", "Other", "Esc", "timeline"),
    Key("ctrl+t", "toggle_theme", "light / dark theme", "Other", "^t"),
    Key("question_mark", "help", "this help", "Other", "?", "help"),
    Key("tab", "focus_next", "next panel", "Other", "Tab"),
    Key("q", "quit", "quit", "Other", "q", "quit"),
    Key("ctrl+c", "quit", "quit (while a trace loads too: the load stops)", "Other", "^c"),
)

# The Details tab (`1` gives it the keys): PgUp/PgDn, Home/End and the arrows scroll it.
DETAILS: tuple[Key, ...] = (
    Key("down,j", "scroll_down", "scroll down a line", "Details", "↓ j"),
    Key("up,k", "scroll_up", "scroll up a line", "Details", "↑ k"),
    Key("pagedown,space", "page_down", "a screen down", "Details", "PgDn"),
    Key("pageup", "page_up", "a screen up", "Details", "PgUp"),
    Key("end", "scroll_end", "the end", "Details", "End"),
    Key("home", "scroll_home", "the top", "Details", "Home"),
    Key("f", "full_stack", "every frame of the stack, or the user's frames only (the "
        "library frames between them as a count)", "Details", "f", "all frames"),
)

# On the Nsight Compute screen (over the timeline); Tab moves between list and details.
NCU: tuple[Key, ...] = (
    Key("escape", "close", "back to the timeline", "Nsight Compute", "Esc", "back"),
    Key("t", "show_on_timeline", "show the launch's kernel on the timeline (Enter on "
        "the list too)", "Nsight Compute", "t", "on timeline"),
    Key("s", "source", "the launch's Source view: its hot CUDA lines, why they stall and "
        "their SASS (Enter on the list of a report opened alone)", "Nsight Compute", "s",
        "source"),
    Key("r", "roofline", "the launches on a roofline: the device's ceilings and ridge, each "
        "launch a point", "Nsight Compute", "r", "roofline"),
)

# On the roofline of a report (tui/widgets/ncu_roofline.py).
ROOFLINE: tuple[Key, ...] = (
    Key("escape", "close", "back to the launches, the one under the cursor selected",
        "Roofline", "Esc", "back"),
)

# In the Source view of a launch (tui/widgets/ncu_source.py).
SOURCE: tuple[Key, ...] = (
    Key("n", "hot(True)", "next hot line (the lines with the most warp samples)", "Source view",
        "n", "next hot"),
    Key("N", "hot(False)", "previous hot line", "Source view", "N", "prev hot"),
    Key("v", "toggle_view", "CUDA lines (the SASS of the line below) or the whole SASS "
        "listing", "Source view", "v", "CUDA/SASS"),
    Key("tab", "focus_next", "the lines, then the SASS of the line", "Source view", "Tab"),
    Key("escape", "close", "back to the launches", "Source view", "Esc", "back"),
)

# On the SQL prompt (`:`); Tab moves between the editor, the results and the schema.
SQL: tuple[Key, ...] = (
    Key("ctrl+r,ctrl+enter", "run", "run the SQL: one read-only statement (ctrl+enter too)",
        "SQL and export", "^r", "run"),
    Key("escape", "close", "back to the timeline (the SQL and its result stay)",
        "SQL and export", "Esc", "back"),
)


# `tui DIR` / `tui r0.json r1.json ...`: the ranks of a distributed run (tui/apps/run_app.py).
RUN: tuple[Key, ...] = (
    Key("enter", "open_rank", "open the rank under the cursor in the timeline app (q there: "
        "back to the ranks)", "Ranks", "Enter", "open rank"),
    Key("p", "show_pipeline", "the pipeline's stages: order, micro-batches, schedule, the "
        "expected and measured bubble of each, and the remedy (a pipeline-parallel run)",
        "Ranks", "p", "pipeline"),
    Key("b", "show_bandwidth", "what each collective achieved: bytes, ranks, instances, "
        "transfer, algbw and busbw (medians) beside the link's peak", "Ranks", "b",
        "bandwidth"),
    Key("m", "show_counters", "the GPUs' hardware counters (nsys --gpu-metrics-devices): "
        "each rank's mean SM, tensor, DRAM and NVLink use over its busy span, NVTX ranges "
        "and top kernels", "Ranks", "m", "counters"),
    Key("tab", "focus_next", "next table", "Ranks", "Tab"),
    Key("q", "quit", "quit", "Ranks", "q", "quit"),
)

# `tui diff BEFORE AFTER` on a terminal (tui/apps/diff_app.py).
DIFF: tuple[Key, ...] = (
    Key("s", "sort", "sort the kernels: by change in total time, biggest gain first, biggest "
        "loss first", "Diff", "s", "sort"),
    Key("f", "filter", "show only appeared / vanished / faster / slower / same kernels, "
        "then all", "Diff", "f", "filter"),
    Key("tab", "focus_next", "next table", "Diff", "Tab"),
    Key("q", "quit", "quit", "Diff", "q", "quit"),
)


def bindings(keys: tuple[Key, ...]) -> list[BindingType]:
    return [Binding(k.keys, k.action, k.footer or k.description, show=bool(k.footer),
                    key_display=k.display, tooltip=k.description) for k in keys]


def forwarded(keys: tuple[Key, ...]) -> list[Binding]:
    """The app's bindings of the `anywhere` keys: each gives the timeline the keys and
    runs its action there (`to_timeline('gap(True)')`); hidden, as the timeline shows them."""
    return [Binding(k.keys, f"to_timeline({k.action!r})", k.description, show=False,
                    key_display=k.display) for k in keys if k.anywhere]
