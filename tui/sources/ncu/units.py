"""Numbers and units as ncu prints them, brought to base units.

ncu's CSV pages scale units for reading ("61.82 us", "2.96 Tbyte/s", "1.50 Ghz") while a
.ncu-rep stores base units (ns, byte/s, hz). Converting everything to base units at load
time makes the three input forms agree and lets queries compare values directly.
"""

from __future__ import annotations

import math

# SI prefixes as ncu uses them: a "Kbyte" is 1000 bytes (1.024 Kbyte = 1024 bytes).
_PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}

# Time is based on the nanosecond (gpu__time_duration is in ns in a .ncu-rep).
_TIME_NS = {
    "ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6,
    "s": 1e9, "second": 1e9,
}
# As a denominator ("sector/ns") time is per second, as in the .ncu-rep ("sector/s").
_PER_TIME_S = {"ns": 1e9, "nsecond": 1e9, "us": 1e6, "usecond": 1e6, "ms": 1e3,
               "msecond": 1e3, "s": 1.0, "second": 1.0}


def _scale_term(term: str) -> tuple[str, float]:
    """('Kbyte', ...) -> ('byte', 1e3); ('Ghz') -> ('hz', 1e9); ('us') -> ('ns', 1e3)."""
    if term in _TIME_NS:
        return "ns", _TIME_NS[term]
    for base in ("byte", "hz", "Hz"):
        if term.endswith(base) and term[: -len(base)] in _PREFIX:
            return base.lower(), _PREFIX[term[: -len(base)]]
    return term, 1.0


def to_base(value: float, unit: str) -> tuple[float, str]:
    """Scale `value` given in `unit` to ncu's base unit; unknown units pass through."""
    unit = unit.strip()
    if not unit:
        return value, ""
    num, sep, den = unit.partition("/")
    if not sep:
        base, factor = _scale_term(num)
        return value * factor, base
    num_base, num_factor = _scale_term(num)
    if den in _PER_TIME_S:
        return value * num_factor * _PER_TIME_S[den], f"{num_base}/s"
    den_base, den_factor = _scale_term(den)
    return value * num_factor / den_factor, f"{num_base}/{den_base}"


def parse_number(text: str) -> float | None:
    """ncu's printed number ('65,536', '61.82', 'nan') as a float; None if not a number."""
    cleaned = text.strip().replace(",", "")
    if not cleaned:
        return None
    try:
        value = float(cleaned)
    except ValueError:
        return None
    return None if math.isnan(value) or math.isinf(value) else value
