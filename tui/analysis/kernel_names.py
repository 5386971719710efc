"""A kernel's name reduced to what every profiler spells the same way, to match kernels
across sources (a Kineto trace against an nsys export of the same program).

CUPTI (Kineto) and Nsight Systems demangle the same symbol differently: `(anonymous
namespace)` against `<unnamed>`, `true`/`32u` against `(bool)1`/`(unsigned int)32`,
`{lambda(int)#1}` against `[lambda(int) (instance 1)]`, `float const*` against
`const T1 *`, `> >` against `>>`, and nsys adds return types (`void f<...>`). The key
keeps the qualified name and template arguments, drops every parameter list, and removes
whitespace: on the gappy_training pair all 35 kernel names match one to one.

Coarser keys find variants of one kernel for `tui diff` (tui/analysis/diff_variants.py):
dtype_key abstracts scalar types, variant_key numbers too, family_key drops every template
argument.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

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
    key = _one_spelling(name)
    while True:  # innermost parameter lists first, until none is left
        shorter = _INNER_PARENS.sub("", key)
        if shorter == key:
            break
        key = shorter
    return _SPACE.sub("", key) or name


def _one_spelling(name: str) -> str:
    """The name with Kineto's and nsys's spellings made one (see the module doc)."""
    key = name.replace("(anonymous namespace)", "<unnamed>")
    key = _BOOL.sub(lambda m: "true" if m.group(1) == "1" else "false", key)
    key = _INT_CAST.sub(r"\1", key)
    key = _INT_SUFFIX.sub(r"\1", key)
    key = _NSYS_LAMBDA.sub(r"{lambda(\1)#\2}", key)
    return _VOID.sub("", key)


# Scalar types a kernel template is instantiated for, as kernel_key spells them (no spaces).
_SCALAR = re.compile(
    r"(?<![\w:])(?:c10::(?:BFloat16|Half|Float8_\w+|complex<\w+>)|__nv_bfloat16|__nv_fp8_\w+|"
    r"__half|half|bfloat16|float|double|bool|true|false|(?:unsigned|signed)?(?:char|short|int|"
    r"long(?:long)?)|u?int(?:8|16|32|64)_t|std::byte)(?![\w:])")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?![\w.])")
_LAMBDA_INDEX = re.compile(r"(\{lambda)#\d+\}")
_TEMPLATE_ARGS = re.compile(r"<[^<>]*>")
_TOKEN = re.compile(r"[A-Za-z_][\w:]*|\d+|#\d+|\S")


def variant_key(name: str | None, numbers: bool = True) -> str | None:
    """kernel_key with every scalar type and lambda index replaced, and with `numbers`
    every number too: the same template instantiated for another dtype, size or flag
    ('reduce_kernel<128, 4, ReduceOp<float, ...>>', 'reduce_kernel<128, 4,
    ReduceOp<c10::BFloat16, ...>>')."""
    key = kernel_key(name)
    if key is None:
        return None
    key = _LAMBDA_INDEX.sub(r"\1#N}", _SCALAR.sub("T", key))
    return _NUMBER.sub("N", key) if numbers else key


def dtype_key(name: str | None) -> str | None:
    """variant_key that keeps the numbers: only the scalar types may differ."""
    return variant_key(name, numbers=False)


def family_key(name: str | None) -> str | None:
    """kernel_key without any template argument list: the kernel's qualified name alone
    ('cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>' -> 'cutlass::Kernel2')."""
    key = kernel_key(name)
    if key is None:
        return None
    key = key.replace("<unnamed>", "(anonymous)")  # a namespace, not template arguments
    while True:  # innermost argument lists first, until none is left
        shorter = _TEMPLATE_ARGS.sub("", key)
        if shorter == key:
            return key
        key = shorter


def variant_label(before: str, after: str, width: int = 48) -> str:
    """What differs between two variants of one kernel, for prose: the kernel's short name
    and the template arguments that changed (a lambda's index is not news), e.g.
    'vectorized_elementwise_kernel<…FillFunctor…> (4 → 8, unsigned char → c10::BFloat16)';
    only the short name when that list is long."""
    b, a = _tokens(before), _tokens(after)
    changes = []
    for op, b0, b1, a0, a1 in SequenceMatcher(None, b, a, autojunk=False).get_opcodes():
        if op != "equal" and not all(t.startswith("#") for t in b[b0:b1] + a[a0:a1]):
            changes.append(f"{' '.join(b[b0:b1]) or '-'} → {' '.join(a[a0:a1]) or '-'}")
    short = hinted_kernel_name(after)
    said = ", ".join(dict.fromkeys(changes))  # each change once, in order
    if not said or len(said) > width:
        return short
    return f"{short} ({said})"


def hinted_kernel_name(name: str) -> str:
    """short_kernel_name with the first named template argument, which tells generic
    kernels apart: 'vectorized_elementwise_kernel<…GeluCUDAKernelImpl…>'."""
    short = short_kernel_name(name)
    tokens = _tokens(name)
    if not short.endswith("<…>") or "<" not in tokens:
        return short
    hint = next((t.rsplit("::", 1)[-1] for t in tokens[tokens.index("<") + 1:]
                 if t[0].isalpha() and not _SCALAR.fullmatch(t)), "")
    return f"{short[:-2]}…{hint}…>" if hint else short


def _tokens(name: str) -> list[str]:
    """The name without parameters, in one spelling, as identifiers, numbers, marks."""
    text = _one_spelling(name).replace("<unnamed>::", "")
    return _TOKEN.findall(_without_parameters(text))


def _without_parameters(name: str) -> str:
    """The name without its trailing parameter list: 'f<int>(int, float)' -> 'f<int>'."""
    text = name.rstrip()
    if not text.endswith(")"):
        return text
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(text[i], 0)
        if depth == 0:
            return text[:i].rstrip()
    return text


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
