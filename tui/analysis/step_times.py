"""How long the steps of the window of work took, and the steps far slower than the rest.

A checkpoint written, an evaluation run, a recompilation or a stalled batch in one step of
forty hides in the window's totals, yet can hold most of what the diagnosis names as the
loss. The steps are the window's (queries/analysis/window_steps.sql: Kineto's
`ProfilerStep#N`, else the outermost ranges named like steps, tui/core/steps.py), each
timed by its host range, as NVIDIA's `nvtx_sum` and XProf's step time take a step; in a
window of the kernel sequence's repeats (a program that marks nothing), each repeat is a
step, from one launch call of the kernel that comes once a repeat to the next
(queries/analysis/window_repeats.sql). A step
is slow when its own time (its host range less the time its thread spent in synchronising
and copy calls in it: a host running ahead of the GPU waits in the step that reads a
result back, which is long without doing more) is over SLOW_FACTOR times a typical step's
(_slow); each device's idle time of each cause inside the slow steps
(queries/analysis/step_idle.sql) is kept beside the figures, so that the diagnosis can say
how much of its loss they hold.
"""

from __future__ import annotations

from functools import cache
from statistics import median
from typing import TYPE_CHECKING, TypedDict

from tui.analysis.finding import Finding
from tui.analysis.idle_causes import CAUSES, COPY_PATTERN, SYNC_PATTERN
from tui.analysis.remedies import SLOW_STEPS, WARM_UP
from tui.core.queries import fill, fragment, load_query
from tui.core.steps import step_patterns
from tui.core.units import format_ns

if TYPE_CHECKING:
    import duckdb

    from tui.analysis.window import Window

# A step whose own time is over this many times a typical step's is slow (_slow).
SLOW_FACTOR = 2.0
# Fewer steps than this give no median worth comparing a step with.
MIN_STEPS = 4
# The slow steps named, the longest first.
LISTED = 3
# Slow steps holding at least this share of the bound's loss are named in the diagnosis.
MOST_OF_LOSS = 0.5
# Slow steps costing this share of the window or more (beyond a typical step) are a warning.
WARN_SHARE = 0.1


class SlowStep(TypedDict):
    name: str
    pid: int | None
    start_ns: int
    duration_ns: int
    waited_ns: int  # in synchronising and copy calls


class StepFigures(TypedDict):
    """The window's steps (a device's figures carry them, with its idle in the slow ones)."""

    count: int
    first: str
    last: str
    median_ns: int
    mean_ns: int
    max_ns: int
    longest: str  # the longest step's name
    typical_ns: int  # a typical step's time: _slow
    slow: int  # steps whose own time is over SLOW_FACTOR times a typical step's
    slow_ns: int  # their time, summed
    slow_first: bool  # the slow steps are the window's first ones (warm-up, compiling)
    listed: list[SlowStep]  # the slowest of them, at most LISTED, the longest first
    slow_idle: dict[str, int]  # the device's idle time by cause inside the slow steps


def step_figures(con: duckdb.DuckDBPyConnection, window: Window
                 ) -> tuple[StepFigures | None, dict[int, dict[str, int]]]:
    """The window's step figures (None with fewer than MIN_STEPS steps) and, per device,
    the idle time by cause inside its slow steps. Needs the temp table idle_causes
    (idle_causes.every_interval_classified)."""
    rows = _steps(con, window)
    if len(rows) < MIN_STEPS:
        return None, {}
    durations = [end - start for _, _, _, start, end, _ in rows]
    typical, slow = _slow(rows, window.duration_ns)
    longest = max(range(len(rows)), key=lambda i: durations[i])
    figures: StepFigures = {
        "count": len(rows), "first": rows[0][0], "last": rows[-1][0],
        "median_ns": round(median(durations)), "mean_ns": round(sum(durations) / len(rows)),
        "max_ns": durations[longest], "longest": rows[longest][0],
        "typical_ns": typical, "slow": len(slow),
        "slow_ns": sum(durations[i] for i in slow),
        "slow_first": bool(slow) and max(slow) == len(slow) - 1,
        "listed": [{"name": rows[i][0], "pid": rows[i][1], "start_ns": rows[i][3],
                    "duration_ns": durations[i], "waited_ns": rows[i][5]}
                   for i in slow[:LISTED]],
        "slow_idle": {}}
    return figures, _idle_inside(con, [(rows[i][3], rows[i][4]) for i in slow])


def leading_slow_steps(con: duckdb.DuckDBPyConnection, window: Window
                       ) -> tuple[int, list[tuple]] | None:
    """How many of the window's first steps are slow, one after another (warming up), and
    its steps (_steps); None where none is, or fewer than MIN_STEPS - 1 would stay."""
    rows = _steps(con, window)
    if len(rows) < MIN_STEPS:
        return None
    _typical, slow = _slow(rows, window.duration_ns)
    warm = 0
    while warm in slow:
        warm += 1
    if not warm or len(rows) - warm < MIN_STEPS - 1:
        return None
    return warm, rows


def _steps(con: duckdb.DuckDBPyConnection, window: Window) -> list[tuple]:
    """(name, pid, tid, start_ns, end_ns, waited_ns) of each step in `window`, by start: its
    annotated steps, or in a window of the kernel sequence's repeats (nothing marks the
    steps), each repeat on the host, from one launch of its anchor kernel to the next
    (window_repeats.sql)."""
    bounds = {"sync_pattern": SYNC_PATTERN, "copy_pattern": COPY_PATTERN,
              "start_ns": window.start_ns, "end_ns": window.end_ns}
    if window.kind == "iteration":
        return con.execute(steps_query("window_repeats"),
                           {**bounds, "anchor": window.name, "repeats": window.ranges,
                            "stride": window.stride}).fetchall()
    return con.execute(steps_query("window_steps"), {**step_patterns(), **bounds}).fetchall()


@cache
def steps_query(name: str) -> str:
    """window_steps.sql or window_repeats.sql, ended by window_step_waits.sql."""
    return fill(name, waited=fragment("window_step_waits"))


def _slow(rows: list[tuple], window_ns: int) -> tuple[int, list[int]]:
    """A typical step's time and the slow steps' indices, the longest first: the steps
    whose own time (the host range less the time the thread spent in synchronising and
    copy calls in it) is over SLOW_FACTOR times a typical step's. That is the median of
    the own times, or the window's time per step where that is longer: a host that runs
    ahead of the GPU issues each step in microseconds, and a step doing 50 µs more work
    than that is no slower for the GPU."""
    own = [end - start - waited for _, _, _, start, end, waited in rows]
    typical = round(max(median(own), window_ns / len(rows)))
    slow = sorted((i for i, ns in enumerate(own) if ns > SLOW_FACTOR * typical),
                  key=lambda i: -(rows[i][4] - rows[i][3]))
    return typical, slow


def slow_step_finding(con: duckdb.DuckDBPyConnection, steps: StepFigures | None,
                      window: Window | None) -> Finding | None:
    """The finding `slow_steps`: every slow step of the window (rows: name, pid, tid,
    start_ns, duration_ns, beyond_typical_ns: its own time beyond a typical step's; longest
    first), its cost their time beyond a typical step; None without slow steps. A warning
    where that is at least WARN_SHARE of the window."""
    if not steps or not steps["slow"] or window is None:
        return None
    rows = _steps(con, window)
    typical, slow = _slow(rows, window.duration_ns)
    found = [{"name": rows[i][0], "pid": rows[i][1], "tid": rows[i][2],
              "start_ns": rows[i][3], "duration_ns": rows[i][4] - rows[i][3],
              "beyond_typical_ns": rows[i][4] - rows[i][3] - rows[i][5] - typical}
             for i in slow]
    if not found:
        return None
    cost = sum(r["beyond_typical_ns"] for r in found)
    share = 100 * cost / window.duration_ns if window.duration_ns else 0.0
    which = (f"{'The first step' if len(found) == 1 else f'The first {len(found):,} steps'}"
             if steps.get("slow_first") else
             f"{len(found):,} step{'s' if len(found) > 1 else ''}")
    advice = (WARM_UP if steps.get("slow_first") else
              SLOW_STEPS.format(does="it does" if len(found) == 1 else "they do"))
    text = (f"{which} of {steps['count']:,} in the window took over "
            f"{_times(SLOW_FACTOR)} a typical step ({format_ns(typical)}), waits on the GPU "
            f"left out: {_listed(steps)}; {format_ns(cost)} beyond a typical step "
            f"({share:.1f}% of the window); {advice}.")
    return Finding("slow_steps", "warning" if share >= 100 * WARN_SHARE else "info",
                   text, cost, found)


def _idle_inside(con: duckdb.DuckDBPyConnection, ranges: list[tuple[int, int]]
                 ) -> dict[int, dict[str, int]]:
    """Per device, the idle time by cause inside `ranges` (merged first: the steps of
    several processes may overlap)."""
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    if not merged:
        return {}
    out: dict[int, dict[str, int]] = {}
    for device, cause, ns in con.execute(load_query("step_idle"), {
            "starts": [s for s, _ in merged], "ends": [e for _, e in merged]}).fetchall():
        by_cause = out.setdefault(device, dict.fromkeys(CAUSES, 0))
        key = cause if cause in by_cause else "other"
        by_cause[key] += ns
    return out


def steps_text(steps: StepFigures | None, window_ns: int) -> str | None:
    """'Steps: 40 (step 0 … step 39), median 16.7 ms, mean 42.3 ms; 1 slow (over twice a
    typical step, waits on the GPU left out), 1.04 s in all (61% of the window): step 20
    1.04 s (357 ms of it waiting on the GPU).'; None without steps."""
    if not steps:
        return None
    head = (f"Steps: {steps['count']:,} ({steps['first']} … {steps['last']}), median "
            f"{format_ns(steps['median_ns'])}, mean {format_ns(steps['mean_ns'])}")
    if not steps["slow"]:
        return (f"{head}, longest {format_ns(steps['max_ns'])} ({steps['longest']}); none "
                f"slow (over {_times(SLOW_FACTOR)} a typical step, waits on the GPU left out).")
    share = f" ({100 * steps['slow_ns'] / window_ns:.0f}% of the window)" if window_ns else ""
    first = " (the first)" if steps.get("slow_first") else ""
    return (f"{head}; {steps['slow']:,}{first} slow (over {_times(SLOW_FACTOR)} a typical "
            f"step, waits on the GPU left out), {format_ns(steps['slow_ns'])} in "
            f"all{share}: {_listed(steps)}.")


def in_slow_steps(steps: StepFigures | None, cause: str, loss_ns: int) -> str:
    """', 870 ms of it in step 20, which took 1.34 s against a median step of 17.3 ms'
    (', 345 ms of it in its first step (step_0 367 ms) against a median step of 40.4 ms'
    where they are the window's first) where the slow steps hold at least MOST_OF_LOSS
    of the idle time `loss_ns` of `cause`; else ''."""
    if not steps or not steps["slow"] or loss_ns <= 0:
        return ""
    inside = steps["slow_idle"].get(cause, 0)
    if inside < MOST_OF_LOSS * loss_ns:
        return ""
    median_step = format_ns(steps["median_ns"])
    if steps.get("slow_first"):
        first = ("its first step" if steps["slow"] == 1
                 else f"its first {steps['slow']:,} steps")
        return (f", {format_ns(inside)} of it in {first} ({_listed(steps, by_start=True)}) "
                f"against a median step of {median_step}")
    if steps["slow"] == 1:
        one = steps["listed"][0]
        return (f", {format_ns(inside)} of it in {one['name']}, which took "
                f"{format_ns(one['duration_ns'])} against a median step of {median_step}")
    return (f", {format_ns(inside)} of it in {steps['slow']:,} steps over "
            f"{_times(SLOW_FACTOR)} the median step of {median_step} ({_listed(steps)})")


def summed(figures: list[StepFigures | None]) -> StepFigures | None:
    """Devices' step figures as one (the steps are the trace's, the same for every device;
    the idle inside the slow steps summed over the devices)."""
    present = [f for f in figures if f]
    if not present:
        return None
    idle = dict.fromkeys(CAUSES, 0)
    for f in present:
        for cause, ns in f["slow_idle"].items():
            idle[cause] = idle.get(cause, 0) + ns
    return {**present[0], "slow_idle": idle}


def _listed(steps: StepFigures, by_start: bool = False) -> str:
    """'step 20 1.34 s, step 30 120 ms, …', the longest first (`by_start`: in time order); a
    step named with its process where several processes' steps share names ('step 0 (pid
    4242) 630 ms')."""
    listed = (sorted(steps["listed"], key=lambda s: s["start_ns"]) if by_start
              else steps["listed"])
    shared = len({s["name"] for s in listed}) < len(listed)
    parts = []
    for step in listed:
        process = f" (pid {step['pid']})" if shared else ""
        waited = step.get("waited_ns", 0)
        waiting = (f" ({format_ns(waited)} of it waiting on the GPU)"
                   if waited > 0.1 * step["duration_ns"] else "")
        parts.append(f"{step['name']}{process} {format_ns(step['duration_ns'])}{waiting}")
    return ", ".join(parts) + (", …" if steps["slow"] > len(listed) else "")


def _times(factor: float) -> str:
    return "twice" if factor == 2 else f"{factor:g}×"
