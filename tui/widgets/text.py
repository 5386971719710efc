"""Kernel names made short enough for a block a few cells wide.

Names are untrusted: they pass through `tui.core.safe_text.printable` and are drawn as plain
segments, never as markup.
"""

from __future__ import annotations

import re
from functools import lru_cache

from tui.core.safe_text import printable

_BRACKETED = re.compile(r"<[^<>]*>|\([^()]*\)")


@lru_cache(maxsize=4096)
def short_name(name: str) -> str:
    """A C++ kernel name without return type, template and call arguments, or namespaces:
    `void at::native::(anonymous namespace)::foo_kernel<float>(int, float*)` -> `foo_kernel`.
    Used where a block has only a few cells; the details panel shows the full name."""
    stripped, previous = name, None
    while stripped != previous:  # innermost brackets first, until none are left
        previous, stripped = stripped, _BRACKETED.sub("", stripped)
    stripped = stripped.strip()
    if stripped.startswith("void "):
        stripped = stripped[5:]
    last = stripped.rsplit("::", 1)[-1].strip()
    return printable(last or name)


def cut_middle(text: str, width: int) -> str:
    """`text` in `width` cells, its middle cut out: a frame keeps its file's name and line
    (`transformers/…/modeling_gpt2.py(321): forward`), where the end would lose them."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    tail = (width - 1) * 2 // 3  # the end says more: the file, its line, the function
    return text[: width - 1 - tail] + "…" + text[len(text) - tail:]
