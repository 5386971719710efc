"""The profiled launches of a report, one row each in report order: verdict, SM % and
memory % of peak, duration and (with a trace) whether the launch is found in it."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from tui.core.safe_text import plain
from tui.core.units import format_ns
from tui.views.ncu_session import NcuSession
from tui.widgets.ncu_text import VERDICT_LABEL

NAME_WIDTH = 48
_STATUS_STYLE = {"matched": "", "ambiguous": "bold yellow", "unmatched": "dim"}


def _short(name: str) -> str:
    return name if len(name) <= NAME_WIDTH else name[: NAME_WIDTH - 1] + "…"


class NcuLaunchList(DataTable[Text]):
    """Row keys are launch ids (as text); `launch_id` is the one under the cursor."""

    DEFAULT_CSS = "NcuLaunchList { height: auto; max-height: 40%; }"

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._ids: list[int] = []

    def show(self, session: NcuSession) -> None:
        self.clear(columns=True)
        columns = ["#", "kernel", "verdict", "SM %", "mem %", "duration"]
        if session.has_trace:
            columns.append("in the trace")
        for column in columns:
            self.add_column(column, key=column)
        self._ids = session.launch_ids
        for launch_id in self._ids:
            k = session.launches[launch_id]
            cells = [Text(str(launch_id), justify="right"),
                     plain(_short(k["short_name"] or k["name"])),
                     Text(VERDICT_LABEL.get(k["verdict"], "?") if k["verdict"] else "?"),
                     Text(_pct(k["sm_pct"]), justify="right"),
                     Text(_pct(k["mem_pct"]), justify="right"),
                     Text(format_ns(k["duration_ns"]), justify="right")]
            if session.has_trace:
                m = session.matches.get(launch_id)
                status = m.status if m is not None else "unmatched"
                cells.append(Text(status, style=_STATUS_STYLE.get(status, "")))
            self.add_row(*cells, key=str(launch_id))

    @property
    def launch_id(self) -> int | None:
        if not self._ids or not 0 <= self.cursor_row < len(self._ids):
            return None
        return self._ids[self.cursor_row]

    def select_launch(self, launch_id: int) -> None:
        if launch_id in self._ids:
            self.move_cursor(row=self._ids.index(launch_id), animate=False)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"
