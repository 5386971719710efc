"""A kernel's name reduced to what every profiler spells the same way, to match kernels
across sources (a Kineto trace against an nsys export of the same program).

CUPTI (Kineto) and Nsight Systems demangle the same symbol differently: `(anonymous
namespace)` against `<unnamed>`, `true`/`32u` against `(bool)1`/`(unsigned int)32`,
`{lambda(int)#1}` against `[lambda(int) (instance 1)]`, `float const*` against
`const T1 *`, `> >` against `>>`, and nsys adds return types (`void f<...>`). The key
keeps the qualified name and template arguments, drops every parameter list, and removes
whitespace: on the gappy_training pair all 35 kernel names match one to one.
"""

from __future__ import annotations

import re

_BOOL = re.compile(r"\(bool\)([01])\b")
_INT_CAST = re.compile(
    r"\((?:unsigned |signed )?(?:char|short|int|long|long long|__int128)\)(-?\d+)")
_INT_SUFFIX = re.compile(r"\b(\d+)(?:ull|ul|ll|u|l)\b", re.IGNORECASE)
_NSYS_LAMBDA = re.compile(r"\[lambda\(([^()]*)\) \(instance (\d+)\)\]")
_VOID = re.compile(r"\bvoid\s+")
_INNER_PARENS = re.compile(r"\([^()]*\)")
_SPACE = re.compile(r"\s+")


def kernel_key(name: str | None) -> str | None:
    """The matching key of a demangled kernel name (None stays None)."""
    if name is None:
        return None
    key = name.replace("(anonymous namespace)", "<unnamed>")
    key = _BOOL.sub(lambda m: "true" if m.group(1) == "1" else "false", key)
    key = _INT_CAST.sub(r"\1", key)
    key = _INT_SUFFIX.sub(r"\1", key)
    key = _NSYS_LAMBDA.sub(r"{lambda(\1)#\2}", key)
    key = _VOID.sub("", key)
    while True:  # innermost parameter lists first, until none is left
        shorter = _INNER_PARENS.sub("", key)
        if shorter == key:
            break
        key = shorter
    return _SPACE.sub("", key) or name


def short_kernel_name(name: str, width: int = 60) -> str:
    """A kernel's function name without namespaces, arguments or parameters, for prose:
    'void at::native::vectorized_elementwise_kernel<4, ...>(int, ...)' ->
    'vectorized_elementwise_kernel<…>'."""
    bare = name.replace("(anonymous namespace)::", "").replace("<unnamed>::", "")
    text = _VOID.sub("", bare, count=1).strip()
    cut = min((i for i in (text.find("<"), text.find("(")) if i > 0), default=len(text))
    head = text[:cut].rsplit("::", 1)[-1] or text[:cut]
    short = head + ("<…>" if text[cut:cut + 1] == "<" else "")
    return short if len(short) <= width else short[: width - 1] + "…"
