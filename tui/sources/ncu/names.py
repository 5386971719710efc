"""Kernel names in their several spellings, reduced to keys that can be compared.

The same kernel is spelled differently by each tool: ncu's CSV prints a simplified
demangled name ('void at::vectorized_elementwise_kernel<4, ...>(int, T2, T3)'), a .ncu-rep
the full one ('... at::native::vectorized_elementwise_kernel<(int)4, ...'), Kineto the
libstdc++ one ('... std::array<char*, 3ul> >(int, ...)', '{lambda(float)#1}'), and nsys
may keep the mangled name. `short_name` and `canonical_name` strip those differences.
"""

from __future__ import annotations

import re

_OPEN = {"(": ")", "<": ">", "[": "]", "{": "}"}
_CLOSE = {v: k for k, v in _OPEN.items()}


def _matching_open(text: str, close_at: int) -> int:
    """Index of the bracket that opens the one closing at `close_at`, or -1."""
    depth = 0
    for i in range(close_at, -1, -1):
        ch = text[i]
        if ch in _CLOSE:
            depth += 1
        elif ch in _OPEN:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _top_level_split(text: str, sep: str) -> list[str]:
    """Split on `sep` only where no bracket is open ('void f<a b>(x y)' -> 2 parts)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            start = i + len(sep)
    parts.append(text[start:])
    return parts


def qualified_name(name: str) -> str:
    """Drop the return type and the parameter list: 'void ns::f<T>(int)' -> 'ns::f<T>'."""
    text = name.strip()
    text = re.sub(r"\s+const$", "", text)  # a trailing member-function qualifier
    if text.endswith(")"):
        start = _matching_open(text, len(text) - 1)
        if start > 0:
            text = text[:start].rstrip()
    tokens = [t for t in _top_level_split(text, " ") if t]
    return tokens[-1] if tokens else text


def short_name(name: str) -> str:
    """The bare function name: 'void at::native::f<4, X>(int)' -> 'f' (ncu's 'function')."""
    if name.startswith("_Z"):
        return mangled_short_name(name) or name
    text = qualified_name(name)
    if text.endswith(">"):
        start = _matching_open(text, len(text) - 1)
        if start > 0:
            text = text[:start]
    return _top_level_split(text, "::")[-1] or text


_LAMBDA_NCU = re.compile(r"\[lambda\(([^()\[\]]*)\) \(instance (\d+)\)\]")
_BOOL_CAST = re.compile(r"\(bool\)([01])\b")
_INT_CAST = re.compile(r"\((?:(?:un)?signed )?(?:char|short|int|long|long long|__int128)\)(-?\d)")
_INT_SUFFIX = re.compile(r"\b(\d+)(?:ull|ul|ll|u|l)\b", re.IGNORECASE)
_QUALIFIER = re.compile(r"(?:[A-Za-z_]\w*|<unnamed>)::")
_CV = re.compile(r"\b(?:const|volatile)\b")
# ncu spells a function passed as a template argument with its return type ('void f<..>').
_FUNCTION_TYPE = re.compile(r"\bvoid\s+(?=[A-Za-z_])")


def _drop_call_parens(text: str) -> str:
    """Remove parameter lists ('f(int&)', 'lambda(float)', 'operator()()'): demanglers
    disagree on them ('const T1 &' vs the full type), and they are not needed to tell
    kernels apart once template arguments are compared."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "(" and out and (out[-1][-1:].isalnum() or out[-1][-1:] in "_>)"):
            depth = 0
            while i < len(text):
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
                if depth == 0:
                    break
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def canonical_name(name: str) -> str:
    """A key equal for the same kernel whichever tool spelled its demangled name. A mangled
    name is left as it is (there is no demangler here): it equals only itself."""
    if name.startswith("_Z"):
        return name
    text = name.replace("(anonymous namespace)", "<unnamed>")
    text = _LAMBDA_NCU.sub(r"{lambda(\1)#\2}", text)
    text = qualified_name(text)
    text = _BOOL_CAST.sub(lambda m: "true" if m.group(1) == "1" else "false", text)
    text = _INT_CAST.sub(r"\1", text)
    text = _INT_SUFFIX.sub(r"\1", text)
    text = _CV.sub("", text)
    text = _FUNCTION_TYPE.sub("", text)
    text = re.sub(r"\s+", "", text)
    text = _QUALIFIER.sub("", text)
    return _drop_call_parens(text)


def mangled_short_name(mangled: str) -> str | None:
    """The function name inside an Itanium-mangled name: '_Z5saxpyifPKfPf' -> 'saxpy',
    '_ZN7cutlass7Kernel2I...EEvNT_6ParamsE' -> 'Kernel2'. None when it cannot tell."""
    if not mangled.startswith("_Z"):
        return None
    i, nested, last = 2, False, None
    if mangled[i:i + 1] == "N":
        nested, i = True, i + 1
        while mangled[i:i + 1] in ("K", "V", "r"):  # cv-qualifiers of a member function
            i += 1
    while i < len(mangled):
        m = re.match(r"\d+", mangled[i:])
        if not m:
            break
        length = int(m.group())
        start = i + len(m.group())
        last = mangled[start:start + length]
        i = start + length
        if not nested:
            break
        if mangled[i:i + 1] == "I":  # template arguments: the name before them is it
            break
    return last
