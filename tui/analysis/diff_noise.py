"""When a before/after change is noise: one rule for kernels, steps and totals.

A time moved by less than max(NOISE_PCT of its before value, NOISE_NS for each launch it
covers) is the same. On the gappy_training Kineto trace against its nsys export (one
program, two runs) every kernel's average per launch moved by less than that (the most:
5.3 µs, 1.7%, on a 316 µs GEMM; 0.17 µs, 4%, on a 4 µs kernel), but FillFunctor<float>'s,
whose launches fill other sizes (65 against 200 launches, 7.5 µs against 4.9 µs).
"""

from __future__ import annotations

NOISE_PCT = 2.0
NOISE_NS = 1_000  # per launch


def noise_ns(before_ns: float, launches: float = 1) -> float:
    """The largest change of `before_ns` that is still noise."""
    return max(abs(before_ns) * NOISE_PCT / 100, NOISE_NS * launches)


def change(before_ns: float, after_ns: float, launches: float = 1) -> str:
    """'faster', 'slower' or 'same' (within noise_ns)."""
    if abs(after_ns - before_ns) < noise_ns(before_ns, launches):
        return "same"
    return "slower" if after_ns > before_ns else "faster"


def describe() -> str:
    """The rule in words, for findings."""
    return f"{NOISE_PCT:g}% or {NOISE_NS / 1000:g} µs a launch, whichever is more"
