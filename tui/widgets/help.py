"""The `?` screen: every key (from keymap.py) and what the timeline's glyphs mean."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.widgets import keymap, theme
from tui.widgets.tables import keys as tables_keys

LEGEND = (
    (theme.BARS[1:], "how busy a column of time was (eighths), coloured by its main kernel"),
    (f"{theme.GAP_GLYPH * 3}", "GPU idle longer than the threshold (--min-gap-ms)"),
    ("[name]", "a kernel or range wide enough to carry its name (reverse video)"),
    ("▼ ┊", "the cursor's column, on the ruler and on the other lanes"),
)


def help_text() -> Text:
    out = Text()
    groups: dict[str, list[keymap.Key]] = {}
    for key in (keymap.TIMELINE + keymap.APP + tables_keys.TABLE + tables_keys.PANEL
                + keymap.DETAILS + tables_keys.KERNELS + tables_keys.GAPS + tables_keys.CODE
                + tables_keys.TREE + keymap.SQL + keymap.NCU + keymap.SOURCE
                + keymap.ROOFLINE):
        groups.setdefault(key.group, []).append(key)
    for group, keys in groups.items():
        out.append(f"{group}\n", style="bold underline")
        for key in keys:
            out.append(f"  {key.display:<10}", style="bold")
            out.append(f"{key.description}\n")
        out.append("\n")
    out.append("Legend\n", style="bold underline")
    for glyphs, meaning in LEGEND:
        out.append(f"  {glyphs:<10}", style="bold")
        out.append(f"{meaning}\n")
    out.append("\nThe mouse works too: click a lane to put the cursor there.", style="dim")
    return out


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "close help")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 80; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; padding: 0 1; background: $surface;
    }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(help_text())
