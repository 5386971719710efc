"""Named SQL queries: one `.sql` file a query, in the `queries/` folder."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).parent.parent  # tui/


def queries_dir() -> Path:
    """The installed copy (wheel) or the source tree's `queries/` (editable install)."""
    installed = _PACKAGE_DIR / "_queries"
    return installed if installed.is_dir() else _PACKAGE_DIR.parent / "queries"


@cache
def load_query(name: str) -> str:
    """The text of `queries/<name>.sql`."""
    path = queries_dir() / f"{name}.sql"
    if not path.is_file():
        raise KeyError(f"no query named {name!r} in {queries_dir()}")
    return path.read_text(encoding="utf-8")
