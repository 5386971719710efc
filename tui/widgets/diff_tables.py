"""The tables of DiffApp (`tui diff` on a terminal): totals, and kernels by change."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from tui.core.safe_text import plain
from tui.core.units import format_ns
from tui.runs.diff import kernel_label, signed_ns

STATUS_STYLE = {"appeared": "yellow", "vanished": "cyan", "variant": "magenta",
                "faster": "green", "slower": "red", "same": "dim"}
STATUSES = tuple(STATUS_STYLE)
# (name shown, key): how `s` cycles the kernel order
SORTS = (
    ("biggest change first", lambda k: (-abs(k["delta_ns"]), k["name"])),
    ("biggest gain first", lambda k: (k["delta_ns"], k["name"])),
    ("biggest loss first", lambda k: (-k["delta_ns"], k["name"])),
)


def _right(text: str, style: str = "") -> Text:
    return Text(text, style=style, justify="right")


class TotalsTable(DataTable):
    """diff["totals"]: GPU time, idle, step, gaps... before, after and the change."""

    DEFAULT_CSS = "TotalsTable { height: auto; width: auto; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", **kwargs)

    def show(self, rows: list[dict]) -> None:
        self.clear(columns=True)
        for col in ("", "before", "after", "change", "%"):
            self.add_column(col, key=col or "metric")
        for r in rows:
            count = r["metric"] in ("kernels", "gaps")
            cell = (lambda v: f"{v:,}") if count else format_ns
            delta = f"{r['delta']:+,}" if count else signed_ns(r["delta"])
            pct = f"{r['change_pct']:+.1f}" if r["change_pct"] is not None else "-"
            # less of any of these is better: green when it went down, red when up
            style = "green" if r["delta"] < 0 else "red" if r["delta"] > 0 else ""
            if r["metric"] == "kernels":
                style = ""
            self.add_row(r["label"], _right(cell(r["before"])), _right(cell(r["after"])),
                         _right(delta, style), _right(pct, style), key=r["metric"])


class KernelDiffTable(DataTable):
    """diff["kernels"], sorted by `sort_index` (into SORTS; not `sort`: DataTable.sort is a
    method), only `status` if set."""

    DEFAULT_CSS = "KernelDiffTable { height: 1fr; min-height: 8; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.kernels: list[dict] = []
        self.sort_index = 0
        self.status: str | None = None

    def show(self, kernels: list[dict]) -> None:
        self.kernels = kernels
        self.refill()

    def shown(self) -> list[dict]:
        rows = [k for k in self.kernels if self.status is None or k["status"] == self.status]
        return sorted(rows, key=SORTS[self.sort_index][1])

    def describe(self) -> str:
        what = self.status or "all"
        return (f"Kernels ({what}: {len(self.shown())} of {len(self.kernels)}), "
                f"{SORTS[self.sort_index][0]}")

    def refill(self) -> None:
        self.clear(columns=True)
        for col in ("status", "count", "total before → after", "change",
                    "avg before → after", "name"):
            self.add_column(col, key=col)
        for index, k in enumerate(self.shown()):
            self.add_row(
                plain(k["status"], style=STATUS_STYLE.get(k["status"], "")),
                _right(f"{k['before_count']:,} → {k['after_count']:,}"),
                _right(f"{format_ns(k['before_total_ns'])} → {format_ns(k['after_total_ns'])}"),
                _right(signed_ns(k["delta_ns"]), "green" if k["delta_ns"] < 0 else
                       "red" if k["delta_ns"] > 0 else ""),
                _right(f"{format_ns(k['before_avg_ns'])} → {format_ns(k['after_avg_ns'])}"),
                plain(kernel_label(k)),
                key=str(index),
            )

    def next_sort(self) -> None:
        self.sort_index = (self.sort_index + 1) % len(SORTS)
        self.refill()

    def next_filter(self) -> None:
        order = (None, *STATUSES)
        self.status = order[(order.index(self.status) + 1) % len(order)]
        self.refill()
