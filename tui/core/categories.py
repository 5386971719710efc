"""Kernel categories (GEMM, attention, elementwise, ...) from name rules in one data file.

The rules live in `tui/core/data/kernel_categories.toml` so they can be read and extended
without touching code: each category is a list of regular expressions, tried in file
order, first match wins, "other" when none matches.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

OTHER = "other"


@dataclass(frozen=True)
class Category:
    name: str
    pattern: re.Pattern[str]


@cache
def rules() -> tuple[Category, ...]:
    """The categories of the data file, in their order of precedence."""
    text = resources.files("tui.core").joinpath("data/kernel_categories.toml").read_text("utf-8")
    out = []
    for entry in tomllib.loads(text)["category"]:
        joined = "|".join(f"(?:{p})" for p in entry["patterns"])
        out.append(Category(entry["name"], re.compile(joined, re.IGNORECASE)))
    return tuple(out)


def names() -> tuple[str, ...]:
    """Every category name, "other" last."""
    return (*(c.name for c in rules()), OTHER)


@lru_cache(maxsize=65536)
def categorize(kernel_name: str) -> str:
    for category in rules():
        if category.pattern.search(kernel_name):
            return category.name
    return OTHER
