"""The documented keys, made from the key tables so that they stay true.

`docs/make_keys.py` writes every key into docs/app.md (between KEYS_START and KEYS_END)
and the first keys a newcomer needs into README.md (between FIRST_KEYS_START and
FIRST_KEYS_END); a test fails when a page and the bindings disagree.
"""

from __future__ import annotations

from types import ModuleType

from tui.widgets import keymap
from tui.widgets.keymap import Key
from tui.widgets.tables import TAB_COUNT
from tui.widgets.tables import keys as table_keys

KEYS_START = "<!-- keys: made by docs/make_keys.py from tui/widgets/keymap.py -->"
KEYS_END = "<!-- /keys -->"
FIRST_KEYS_START = ("<!-- first keys: made by docs/make_keys.py from tui/widgets/keymap.py "
                    "(moving, and the footer's keys) -->")
FIRST_KEYS_END = "<!-- /first keys -->"
TITLES = {  # a key table's name in its module → its heading; others get their own name
    "APP": "Anywhere",
    "TIMELINE": "On the timeline",
    "TABLE": "In a table",
    "PANEL": "In a table tab",
    "DETAILS": "On the Details tab",
    "KERNELS": "On the Kernels tab",
    "GAPS": "On the Gaps tab",
    "CODE": "On the Code tab",
    "TREE": "In the Code tab's tree (v)",
    "SQL": "On the SQL prompt",
    "NCU": "On the Nsight Compute screen",
    "SOURCE": "In the Source view of a launch",
    "RUN": "On the ranks of a run (`tui DIR`)",
    "DIFF": "In `tui diff` on a terminal",
}
ALONE = {  # a description that reads well in the help screen but not in the README
    "help": "help: every key",
}
EXTRA = {  # keys that Textual or a helper binds, not a Key table
    "APP": ((f"1 … {TAB_COUNT}", "show that tab below the timeline and give it the keys"),
            ("^p", "command palette: every action by name, and the theme list")),
}


def key_tables(module: ModuleType) -> list[tuple[str, tuple[Key, ...]]]:
    """Every tuple of Keys defined in `module`, in the order it defines them."""
    return [(name, value) for name, value in vars(module).items()
            if isinstance(value, tuple) and value and all(isinstance(k, Key) for k in value)]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def keys_markdown() -> str:
    out: list[str] = []
    tables = key_tables(keymap) + key_tables(table_keys)
    tables.sort(key=lambda item: list(TITLES).index(item[0]) if item[0] in TITLES else 99)
    for name, keys in tables:
        out += [f"**{TITLES.get(name, name.title())}**", "", "| key | what it does |",
                "| --- | --- |"]
        rows = [(k.display, k.description) for k in keys] + list(EXTRA.get(name, ()))
        out += [f"| `{_cell(display)}` | {_cell(text)} |" for display, text in rows]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def first_keys_markdown() -> str:
    """One table of what a newcomer needs first: moving the cursor, then every key the
    footer shows (the app's and the timeline's), then the tabs."""
    moving = [k for k in keymap.TIMELINE if k.action.startswith(("cursor(", "lane("))]
    footer = [k for k in keymap.TIMELINE + keymap.APP if k.footer]
    rows = [(k.display, ALONE.get(k.action, k.description)) for k in moving + footer]
    rows += list(EXTRA["APP"][:1])
    out = ["| key | what it does |", "| --- | --- |"]
    out += [f"| `{_cell(display)}` | {_cell(text)} |" for display, text in rows]
    return "\n".join(out) + "\n"


def _between(text: str, start: str, end: str, body: str, page: str) -> str:
    head, _, rest = text.partition(start)
    _, found_end, tail = rest.partition(end)
    if not rest or not found_end:
        raise ValueError(f"{page} has no {start!r} … {end!r} markers")
    return f"{head}{start}\n\n{body}\n{end}{tail}"


def page_with_keys(page: str) -> str:
    """`page` (docs/app.md) with the text between the markers replaced by every key table."""
    return _between(page, KEYS_START, KEYS_END, keys_markdown(), "the page")


def readme_with_first_keys(readme: str) -> str:
    """`readme` with the text between its markers replaced by the first keys' table."""
    return _between(readme, FIRST_KEYS_START, FIRST_KEYS_END, first_keys_markdown(),
                    "README.md")
