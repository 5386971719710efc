"""How table cells write numbers: durations, counts, shares, sizes, rates."""

from __future__ import annotations

from typing import Any

from tui.core.units import format_bytes, format_flops, format_ns


def duration(value: Any) -> str:
    return format_ns(value)


def count(value: Any) -> str:
    return "-" if value is None else f"{value:,}"


def percent(value: Any) -> str:
    return "-" if value is None else f"{value:.1f}"


def size(value: Any) -> str:
    return format_bytes(value)


def rate(value: Any) -> str:
    """bytes per ns, i.e. GB/s."""
    return "-" if value is None else f"{value:,.1f}"


def flop_rate(value: Any) -> str:
    """FLOP/s, with an SI prefix: '121 T'."""
    return "-" if value is None else format_flops(value, "").strip()


def text(value: Any) -> str:
    return "-" if value is None else str(value)
