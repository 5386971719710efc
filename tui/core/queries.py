"""Named SQL queries: one `.sql` file a query, under `queries/<layer>/`, loaded by name.

A query's folder is the layer of the modules that run it (queries/README.md); its name
is unique across the folders, so callers name it alone.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).parent.parent  # tui/


def queries_dir() -> Path:
    """The installed copy (wheel) or the source tree's `queries/` (editable install)."""
    installed = _PACKAGE_DIR / "_queries"
    return installed if installed.is_dir() else _PACKAGE_DIR.parent / "queries"


@cache
def query_paths() -> dict[str, Path]:
    """Every query's file by name, from every folder under `queries/`."""
    paths: dict[str, Path] = {}
    for path in sorted(queries_dir().rglob("*.sql")):
        if path.stem in paths:
            raise RuntimeError(f"two queries named {path.stem!r}: {paths[path.stem]} and {path}")
        paths[path.stem] = path
    return paths


@cache
def load_query(name: str) -> str:
    """The text of the query `name` (`queries/<layer>/<name>.sql`)."""
    path = query_paths().get(name)
    if path is None:
        raise KeyError(f"no query named {name!r} in {queries_dir()}")
    return path.read_text(encoding="utf-8")
