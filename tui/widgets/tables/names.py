"""Long C++ kernel names shortened for a table column; the full name is never dropped.

`shorten` keeps what tells kernels apart: the function name (with its class or namespace
when the name alone says little, like `kernel`) and its first level of template
arguments, each without namespaces and with deeper templates collapsed to `<…>`. The
return type and the parameter list go. The tables show the full name on demand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from tui.core.safe_text import printable

_CLOSE = {"<": ">", "(": ")", "[": "]", "{": "}"}
# Scope markers that only add length: `(anonymous namespace)::`, `<unnamed>::`.
_ANONYMOUS = re.compile(r"\(anonymous namespace\)::|<unnamed>::")
# Casts one demangler writes in template arguments: `(int)4`, `(bool)1`.
_CAST = re.compile(r"\((?:unsigned |signed )?(?:int|long|long long|short|char|bool)\)")
_QUALIFIER = re.compile(r"\b[A-Za-z_]\w*::")
_LEADING_WORD = re.compile(r"^(?:void|const|struct|class|typename)\s+")
SHORT_NAME = 8  # a function name this short keeps its scope: `gemvx::kernel`


@dataclass
class _Group:
    open: str
    children: list[_Group | str]


Nodes = list["_Group | str"]


def _parse(text: str) -> Nodes | None:
    """`text` as a tree of bracket groups; None when the brackets do not balance."""
    stack: list[Nodes] = [[]]
    opens: list[str] = []
    start = 0
    for i, ch in enumerate(text):
        if ch in _CLOSE or ch in ">)]}":
            if start < i:
                stack[-1].append(text[start:i])
            start = i + 1
            if ch in _CLOSE:
                stack.append([])
                opens.append(ch)
            elif not opens or _CLOSE[opens[-1]] != ch:
                return None
            else:
                children = stack.pop()
                stack[-1].append(_Group(opens.pop(), children))
    if opens:
        return None
    if start < len(text):
        stack[-1].append(text[start:])
    return stack[0]


def _collapsed(group: _Group) -> str:
    return f"{group.open}…{_CLOSE[group.open]}" if group.children else \
        f"{group.open}{_CLOSE[group.open]}"


def _arg(nodes: Nodes) -> str:
    """One template argument: no namespaces, up to its first bracket group."""
    out = ""
    for node in nodes:
        if isinstance(node, _Group):
            return _LEADING_WORD.sub("", (out + _collapsed(node)).strip())
        out += _QUALIFIER.sub("", node)
    return _LEADING_WORD.sub("", out.strip())


def _template(group: _Group) -> str:
    args: list[Nodes] = [[]]
    for node in group.children:
        if isinstance(node, str):
            first, *rest = node.split(",")
            args[-1].append(first)
            for piece in rest:
                args.append([piece])
        else:
            args[-1].append(node)
    shown = [_arg(a) for a in args]
    return "<" + ", ".join(s for s in shown if s) + ">"


@lru_cache(maxsize=65536)
def shorten(name: str) -> str:
    """`void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>,
    std::array<char*, 1ul> >(int, ...)` -> `vectorized_elementwise_kernel<4,
    FillFunctor<…>, array<…>>`. Printable; unparsable names come back whole."""
    cleaned = _CAST.sub("", _ANONYMOUS.sub("", name))
    nodes = _parse(cleaned)
    if not nodes:
        return printable(name)
    # the parameter list: the first top-level (...) after some name text
    for i, node in enumerate(nodes):
        if isinstance(node, _Group) and node.open == "(" and i and nodes[i - 1] != " ":
            nodes = nodes[:i]
            break
    # the function name is the last top-level token: drop the return type before it
    for i in range(len(nodes) - 1, -1, -1):
        node = nodes[i]
        if isinstance(node, str) and " " in node.strip(" "):
            nodes = [node.rsplit(" ", 1)[1], *nodes[i + 1:]]
            break
        if isinstance(node, str) and node.startswith(" ") and i:
            nodes = [node.strip(), *nodes[i + 1:]]
            break
    # namespaces: keep the last scope only when the name alone says little
    for i in range(len(nodes) - 1, -1, -1):
        node = nodes[i]
        if isinstance(node, str) and "::" in node:
            parts = node.split("::")
            keep = 2 if len(parts[-1]) <= SHORT_NAME and len(parts) > 1 else 1
            nodes = ["::".join(parts[-keep:]), *nodes[i + 1:]]
            break
    out = "".join(
        n if isinstance(n, str) else _template(n) if n.open == "<" else _collapsed(n)
        for n in nodes
    ).strip()
    return printable(out or name)
