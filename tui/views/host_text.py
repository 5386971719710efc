"""What the host was doing while the GPU waited, as short lines of text: from the
`host_samples` dict of a summary or of one gap (tui/analysis/host_samples.py), for
`--summary` and the app's gap details alike."""

from __future__ import annotations

from tui.core.units import format_ns

TOP = 4  # entries a line names
NAME_WIDTH = 40
# Below this share of the time with no traced op, nothing is said of it.
UNTRACED_SAY = 0.05


def host_lines(host: dict, what: str = "the gaps") -> list[str]:
    """The launching thread's samples (or Python frames' time) by module and function,
    every thread's by module, and the OS calls that held the launching thread."""
    samples = host["unit"] == "samples"
    thread = _thread(host.get("thread"))
    lines = [f"{host['where'][0].upper()}{host['where'][1:]}"] if host.get("where") else []
    if samples:
        on_cpu = host.get("on_cpu_ns")
        ran = (f" (on a CPU {100 * on_cpu / host['range_ns']:.0f}% of it)"
               if on_cpu is not None and host["range_ns"] else "")
        lines.append(f"CPU samples of {thread} in {format_ns(host['range_ns'])} of {what}"
                     f"{ran}: {host['in_idle']:,}")
    else:
        lines.append(f"own time of the Python frames and CPU ops of {thread} in "
                     f"{format_ns(host['range_ns'])} of {what}")
    if samples and not host["in_idle"]:
        lines.append("  none: the thread was not running (see its OS calls)")
    lines += _shares_line("modules" if samples else "files", host["by_module"], "module",
                          samples)
    lines += _shares_line("functions" if samples else "frames", host["by_function"],
                          "function", samples)
    lines += _shares_line("CPU ops", host.get("by_op") or [], "op", samples)
    untraced = host.get("untraced_ns")
    if untraced is not None and host["range_ns"] and untraced / host["range_ns"] >= UNTRACED_SAY:
        lines.append(f"  no traced op for {100 * untraced / host['range_ns']:.0f}% of this "
                     "time: it is in code the profiler does not see")
    every = host.get("all_threads") or {}
    if samples and every.get("in_idle"):
        lines += _shares_line(f"every thread ({every['in_idle']:,})", every["by_module"],
                              "module", True)
    elif not samples and every.get("by_function") != host["by_function"]:
        lines += _shares_line("every thread's frames", every.get("by_function") or [],
                              "function", False)
    if host.get("osrt"):
        calls = [f"{_fit(o['name'])} {format_ns(o['ns'])} ({o['calls']:,} call"
                 f"{'s' if o['calls'] != 1 else ''}, longest {format_ns(o['longest_ns'])})"
                 for o in host["osrt"][:TOP]]
        lines.append(f"  OS calls it waited in: {', '.join(calls)}")
    return lines


def _thread(thread: dict | None) -> str:
    if not thread:
        return "the host"
    name = thread.get("name") or ""
    if name.startswith("thread "):  # Kineto names its threads 'thread 474 (python3)'
        return f"the launching {name}"
    return f"the launching thread {name + ' ' if name else ''}({thread['pid']}/{thread['tid']})"


def _shares_line(label: str, rows: list[dict], key: str, samples: bool) -> list[str]:
    if not rows:
        return []
    parts = [f"{_fit(r[key])} {r['pct']:.1f}%" + ("" if samples else f" {format_ns(r['ns'])}")
             for r in rows[:TOP]]
    more = ", …" if len(rows) > TOP else ""
    return [f"  {label}: {', '.join(parts)}{more}"]


def _fit(text: str) -> str:
    return text if len(text) <= NAME_WIDTH else text[: NAME_WIDTH - 1] + "…"
