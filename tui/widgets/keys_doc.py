"""The README's "Keys" section, made from the key tables so that it stays true.

`docs/make_keys.py` writes it into README.md between the KEYS_START and KEYS_END
markers; a test fails when the README and the bindings disagree.
"""

from __future__ import annotations

from types import ModuleType

from tui.widgets import keymap
from tui.widgets.keymap import Key
from tui.widgets.tables import keys as table_keys

KEYS_START = "<!-- keys: made by docs/make_keys.py from tui/widgets/keymap.py -->"
KEYS_END = "<!-- /keys -->"
TITLES = {  # a key table's name in its module → its heading; others get their own name
    "APP": "Anywhere",
    "TIMELINE": "On the timeline",
    "TABLE": "In a table",
    "PANEL": "In a table tab",
    "KERNELS": "On the Kernels tab",
    "GAPS": "On the Gaps tab",
    "CODE": "On the Code tab",
    "SQL": "On the SQL prompt",
    "NCU": "On the Nsight Compute screen",
    "SOURCE": "In the Source view of a launch",
    "RUN": "On the ranks of a run (`tui DIR`)",
    "DIFF": "In `tui diff` on a terminal",
}
EXTRA = {  # keys that Textual or a helper binds, not a Key table
    "APP": (("1 … 9", "show that tab below the timeline and focus its table"),
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


def readme_with_keys(readme: str) -> str:
    """`readme` with the text between the markers replaced by the keys tables."""
    head, _, rest = readme.partition(KEYS_START)
    _, _, tail = rest.partition(KEYS_END)
    if not rest:
        raise ValueError("README.md has no keys markers")
    return f"{head}{KEYS_START}\n\n{keys_markdown()}\n{KEYS_END}{tail}"
