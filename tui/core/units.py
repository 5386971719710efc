"""Human-readable durations and sizes."""

from __future__ import annotations


def format_ns(ns: float | int | None) -> str:
    """1234 -> '1.23 µs'; picks ns/µs/ms/s so the number stays short."""
    if ns is None:
        return "-"
    value = float(ns)
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {unit}" if abs(value) < 100 * scale else (
                f"{value / scale:.0f} {unit}"
            )
    return f"{value:.0f} ns"


def format_offset(ns: float | int | None) -> str:
    """A time since the trace's start, signed, with its unit: 1234567 -> '+1.235 ms'.

    Three decimals in the unit that fits, so two times a µs apart read apart."""
    if ns is None:
        return "-"
    value = float(ns)
    sign = "-" if value < 0 else "+"
    value = abs(value)
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if value >= scale:
            return f"{sign}{value / scale:.3f} {unit}"
    return f"{sign}{value:.0f} ns"


def format_bytes(n: float | int | None) -> str:
    if n is None:
        return "-"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def format_flops(n: float | int | None, unit: str = "FLOP") -> str:
    """2.62e12 -> '2.62 TFLOP'; with unit='FLOP/s', a rate: '121 TFLOP/s'."""
    if n is None:
        return "-"
    value = float(n)
    for prefix, scale in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.0f} {unit}"
