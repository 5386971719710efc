"""Rewrite the documented keys from the key tables (tui/widgets/keys_doc.py): every key in
docs/app.md, the first keys in README.md.

    .venv/bin/python docs/make_keys.py
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tui.widgets.keys_doc import page_with_keys, readme_with_first_keys

ROOT = Path(__file__).resolve().parent.parent
PAGES: tuple[tuple[Path, Callable[[str], str]], ...] = (
    (ROOT / "docs" / "app.md", page_with_keys),
    (ROOT / "README.md", readme_with_first_keys),
)


def main() -> None:
    for path, rewrite in PAGES:
        text = path.read_text(encoding="utf-8")
        updated = rewrite(text)
        if updated != text:
            path.write_text(updated, encoding="utf-8")
            print(f"updated the keys in {path}")
        else:
            print(f"the keys in {path.relative_to(ROOT)} are up to date")


if __name__ == "__main__":
    main()
