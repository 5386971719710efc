"""A trace's summary together with the gaps and figures it was worked out from, for tests
that check both: `trace_summary` calls `gaps_and_work` on its way (the same trace, the
same threshold, the window it finds), so asking for them again beside it did that work
twice (0.2-0.8 CPU-s a trace)."""

from __future__ import annotations

from typing import Any

import pytest

from tui.analysis import summary as summary_module
from tui.analysis.diagnosis import DeviceTime
from tui.analysis.gaps import Gap
from tui.analysis.summary import TraceSummary, trace_summary
from tui.loading.trace import Trace

GapsAndWork = tuple[list[Gap], list[DeviceTime], list[DeviceTime]]


def summary_and_gaps(trace: Trace, min_gap_ns: int) -> tuple[TraceSummary, GapsAndWork]:
    """trace_summary(trace, min_gap_ns), and what gaps_and_work(trace.con, min_gap_ns)
    gives: (gaps, the whole trace's device figures, the window of work's), as the summary
    had them from it."""
    seen: list[GapsAndWork] = []
    gaps_and_work = summary_module.gaps_and_work

    def kept(*args: Any, **kwargs: Any) -> GapsAndWork:
        seen.append(gaps_and_work(*args, **kwargs))
        return seen[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(summary_module, "gaps_and_work", kept)
        summary = trace_summary(trace, min_gap_ns)
    assert seen, "the summary no longer works out its gaps with gaps_and_work"
    return summary, seen[-1]  # the last: a summary tried again with twice the budget
