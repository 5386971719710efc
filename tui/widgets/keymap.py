"""Every key binding, in one table: the widgets' BINDINGS and the help screen read it.

Keys follow common TUI habits: arrows or vi keys to move, +/- to zoom, Home/End,
`q` to quit, `?` for help. The footer shows those with a `footer` name.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class Key:
    keys: str  # comma-separated Textual key names
    action: str
    description: str
    group: str
    display: str  # how the help screen and footer write the keys
    footer: str = ""  # a short name in the footer; empty: not in the footer


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
    Key("plus,equals_sign", "zoom(0.5)", "zoom in around the cursor", "Zoom", "+", "zoom in"),
    Key("minus,underscore", "zoom(2)", "zoom out around the cursor", "Zoom", "-", "zoom out"),
    Key("0,f", "fit", "fit the whole trace", "Zoom", "0", "fit"),
    Key("v", "mark", "mark: start a selection at the cursor", "Zoom", "v"),
    Key("z", "zoom_selection", "zoom to the selection (mark to cursor)", "Zoom", "z"),
    Key("escape", "clear_mark", "clear the selection", "Zoom", "Esc"),
    Key("g", "gap(True)", "next GPU-idle gap", "Gaps", "g", "next gap"),
    Key("G", "gap(False)", "previous GPU-idle gap", "Gaps", "G"),
    Key("b", "biggest_gap", "largest gap (again: the next largest)", "Gaps", "b", "largest gap"),
    Key("n", "toggle_nvtx", "show/hide NVTX (annotation) lanes", "Lanes", "n", "NVTX"),
    Key("t", "toggle_host", "show/hide host-thread lanes", "Lanes", "t", "threads"),
    Key("enter", "drill_down", "open the kernel in Nsight Compute results", "Lanes", "Enter"),
)

APP: tuple[Key, ...] = (
    Key("question_mark", "help", "this help", "Other", "?", "help"),
    Key("tab", "focus_next", "next panel", "Other", "Tab"),
    Key("q", "quit", "quit", "Other", "q", "quit"),
)


def bindings(keys: tuple[Key, ...]) -> list[Binding]:
    return [Binding(k.keys, k.action, k.footer or k.description, show=bool(k.footer),
                    key_display=k.display) for k in keys]
