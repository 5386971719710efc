"""Untrusted trace text (kernel names, ranges) made safe to print.

Names come from the trace file: they are shown as plain text, never as Rich markup,
and control characters (ESC, BEL, C1 codes...) are replaced by visible escapes so a name
can never move the cursor, set a title or change colours in the user's terminal.
"""

from __future__ import annotations

from rich.text import Text

_CONTROL = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x20), *range(0x7F, 0xA0))}


def printable(text: object) -> str:
    """`text` with control characters shown as \\xNN escapes."""
    return str(text).translate(_CONTROL)


def plain(text: object, style: str = "") -> Text:
    """A Rich Text that shows `text` literally (no markup, no control codes)."""
    return Text(printable(text), style=style)
