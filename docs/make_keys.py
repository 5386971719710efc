"""Rewrite the "Keys" section of README.md from the key tables (tui/widgets/keys_doc.py).

    .venv/bin/python docs/make_keys.py
"""

from __future__ import annotations

from pathlib import Path

from tui.widgets.keys_doc import readme_with_keys

README = Path(__file__).resolve().parent.parent / "README.md"


def main() -> None:
    text = README.read_text(encoding="utf-8")
    updated = readme_with_keys(text)
    if updated != text:
        README.write_text(updated, encoding="utf-8")
        print(f"updated the keys in {README}")
    else:
        print("the keys in README.md are up to date")


if __name__ == "__main__":
    main()
