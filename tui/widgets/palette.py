"""Every key binding as a command palette (ctrl+p) entry, so no action is keys-only.

`binding_commands(screen, extra)` turns the bindings active on `screen` (the focused
widget, its ancestors, the screen and the app) plus the bindings of the `extra` widgets
(e.g. the timeline while a table has focus) into `SystemCommand`s: the binding's long
description (its tooltip) as the name, its key in the help line. Running one runs the
binding's action on the widget that defines it, as the key would.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial

from textual.app import SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode
from textual.screen import Screen

SKIP = {"quit", "command_palette", "help_quit"}  # the palette has its own Quit


def _bindings(screen: Screen, extra: Iterable[DOMNode]) -> Iterator[tuple[DOMNode, Binding]]:
    for active in screen.active_bindings.values():
        if active.enabled:
            yield active.node, active.binding
    for node in extra:
        for _key, binding in node._bindings:
            yield node, binding


def binding_commands(screen: Screen, extra: Iterable[DOMNode] = (),
                     skip: Iterable[str] = ()) -> Iterator[SystemCommand]:
    """Commands for the bindings; actions in `skip` are left to the caller."""
    seen: set[str] = set()
    skipped = SKIP | set(skip)
    for node, binding in _bindings(screen, extra):
        text = binding.tooltip or binding.description
        if binding.system or not text or binding.action in skipped or text in seen:
            continue
        seen.add(text)
        key = binding.key_display or node.app.get_key_display(binding)
        yield SystemCommand(text[:1].upper() + text[1:], f"key {key}",
                            partial(node.app.run_action, binding.action, node))
