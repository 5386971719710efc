"""`tui DIR` / `tui r0.json r1.json …`: the ranks of one distributed run.

Loads the run in a worker (tui.runs.run.open_run, in parallel across ranks) behind a
loading indicator, then shows a header naming the straggler, the per-rank table, the
findings, a pipeline's stages and bubbles (where the ranks send to each other; `p`), the
waits per collective and what each collective achieved (bandwidth; `b`). Enter
on a rank leaves this app with that rank's trace file, or its store where the rank was
read from one (`tui convert`); `run_run_app` then opens it in the usual TraceApp, and q
there comes back here.
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, cast

import duckdb
from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Label, ProgressBar, Static

from tui.analysis.distributed.stragglers import ranks_text
from tui.analysis.rank_findings import straggler_headline
from tui.analysis.summary_types import Pipeline, RunSummary
from tui.core.errors import TraceError
from tui.core.load_progress import LoadStopped
from tui.core.safe_text import plain
from tui.core.units import format_ns
from tui.loading.paths import expand_paths, run_label
from tui.loading.store import TraceStore
from tui.views.progress_line import TracesProgress
from tui.views.reports.ranks import cache_text
from tui.widgets import keymap
from tui.widgets.key_footer import KeyFooter
from tui.widgets.rank_breakdown import breakdown_text
from tui.widgets.run_tables import (
    BandwidthTable,
    CollectiveTable,
    CounterTable,
    PipelineTable,
    RankTable,
    pipeline_remedy_text,
    pipeline_title,
)


@dataclass
class LoadedRun:
    summary: RunSummary
    collectives: list[dict] = field(default_factory=list)
    # the ranks read from Parquet stores (`tui convert`): where each store is, for its
    # timeline to open from it, not from its trace parsed again
    stores: dict[int, Path] = field(default_factory=dict)


def load_run(paths: list[Path], use_cache: bool, min_gap_ns: int,
             stop: threading.Event | None = None,
             on_done: Callable[[TraceStore], None] | None = None,
             files: list[Path] | None = None) -> LoadedRun:
    """The run's summary dict (as `tui --summary`) and its collective waits: kept from an
    earlier open of the same ranks, none changed since (tui.runs.run_memo), else worked
    out and kept. Raises LoadStopped once `stop` is set; on_done(store) as each trace is
    ready. `files`: the traces of `paths` where the caller listed them already
    (expand_paths)."""
    from tui.runs.run import open_run, stopped_by
    from tui.runs.run_memo import RunMemoWriter, run_memo_file, run_stamps, stored_run
    from tui.runs.summary import collective_waits, run_summary

    files = files or expand_paths(paths)
    label = run_label(paths)
    if use_cache:
        with stored_run(files, label, min_gap_ns) as stored:
            kept = stored.summary() if stored is not None else None
            if stored is not None and kept is not None:
                return LoadedRun(cast(RunSummary, kept), stored.app.get("collectives", []),
                                 {rank: Path(where) for rank, where
                                  in stored.app.get("stores", [])})
    with open_run(files, use_cache=use_cache, min_gap_ns=min_gap_ns, stop=stop,
                  on_done=on_done) as run, stopped_by(run.con, stop):
        stamps = run_stamps(files) if use_cache else None
        summary = run_summary(run, min_gap_ns, label)
        stores = {rank: store.location for rank, store in zip(run.ranks, run.stores,
                                                              strict=True)
                  if store.location is not None}
        loaded = LoadedRun(summary, collective_waits(run.con), stores)
    if stamps is not None:
        target = run_memo_file(files, label, min_gap_ns)
        memo = RunMemoWriter(target, stamps, summary["source"],
                             {"collectives": loaded.collectives,
                              "stores": [[rank, str(where)] for rank, where in stores.items()]})
        if memo.keeping:
            from tui.views.reports.run_json import write_run_json

            write_run_json(summary, memo, None)
    return loaded


def header_text(summary: RunSummary) -> Text:
    source = summary["source"]
    text = plain(f"{source['path']}  ({source['format']}, {source['ranks']} ranks"
                 + (f" of {source['world_size']}" if "world_size" in source else "")
                 + f", span {format_ns(source['span_ns'])})", style="bold")
    text.append("\n")
    # whether the ranks came from their caches, and if not why
    text.append_text(plain(cache_text(source).removeprefix(" — "), style="dim"))
    line = straggler_headline(summary["balance"])
    group = summary.get("straggler_group") or {}
    if len(group.get("ranks", [])) > 1:  # several arrive last: name them all
        line = (f"stragglers: ranks {ranks_text(group['ranks'])} ({len(group['ranks'])} of "
                f"{source['ranks']})" + ("; they share " + " and ".join(group["shared"])
                                         if group.get("shared") else "")
                + " — " + line.removeprefix("straggler: "))
    text.append("\n")
    text.append_text(plain(line, style="bold red" if summary["straggler"] is not None
                           else ""))
    if summary.get("diagnosis"):  # what bounds the run, then each rank's bound
        text.append("\n")
        text.append_text(plain(summary["diagnosis"]["text"], style="bold"))
        bounds = {r["rank"]: r["diagnosis"]["bound"] for r in summary["ranks"]
                  if r.get("diagnosis") and r["diagnosis"]["bound"]}
        words = ([f"rank {rank} {bound}-bound" for rank, bound in bounds.items()]
                 if len(bounds) <= 8 else
                 [f"{bound}-bound: {n} ranks" for bound, n in Counter(bounds.values())
                  .most_common()])
        if len(bounds) > 1:
            text.append("\n")
            text.append_text(plain(" · ".join(words), style="dim"))
    return text


DETAIL_GAPS = 3  # a rank's longest gaps shown beside its breakdown


def details_text(rank: int, kept: dict) -> Text:
    """A rank's own summary in a few lines: its diagnosis judged alone, where its idle time
    went, its longest gaps and what each was waiting for."""
    from tui.views.reports.summary import idle_line

    text = Text()
    diagnosis = kept.get("diagnosis") or {}
    if diagnosis.get("text"):
        text.append_text(plain(f"rank {rank} alone: {diagnosis['text']}"))
        line = idle_line(diagnosis)
        if line:
            text.append("\n")  # its own: plain() escapes control codes
            text.append_text(plain(f"  {line}", style="dim"))
    gaps = list(kept["gaps"][:DETAIL_GAPS])
    if gaps:
        text.append(f"\n  longest gaps ({len(kept['gaps'])}): ", style="dim")
        text.append_text(plain("; ".join(
            f"{format_ns(g['duration_ns'])} on GPU {g['device']} ({g['kind']}: {g['cause']})"
            for g in gaps), style="dim"))
    return text


def findings_text(summary: RunSummary) -> Text:
    text = Text("Findings", style="bold")
    for finding in summary["findings"]:
        text.append("\n  • ")
        text.append_text(plain(finding.text))
    for warning in summary["warnings"]:
        text.append("\n")
        text.append_text(plain(f"warning: {warning}", style="yellow"))
    return text


class RunApp(App[Path | None]):
    """Returns the trace file (or store) of the rank chosen with Enter, or None on q."""

    TITLE = "tui"
    BINDINGS: ClassVar[list[BindingType]] = [*keymap.bindings(keymap.RUN)]
    DEFAULT_CSS = """
    #run-body { height: 1fr; }
    #run-progress { height: 1; }
    #run-progress > ProgressBar { width: 40; }
    #run-progress > Label { width: 1fr; }
    #run-header { padding: 0 1; margin-bottom: 1; }
    #run-findings { padding: 0 1; margin: 1 0; }
    #rank-breakdown { padding: 0 1; margin-top: 1; }
    #rank-details { padding: 0 1; }
    #pipeline-remedy { padding: 0 1; margin-bottom: 1; }
    .run-title { padding: 0 1; text-style: bold; }
    """

    def __init__(self, paths: list[Path], use_cache: bool = True,
                 min_gap_ns: int = 1_000_000, files: list[Path] | None = None,
                 loaded: LoadedRun | None = None) -> None:
        """`files`: the traces of `paths`, where the caller listed them already; `loaded`:
        the run as an earlier RunApp loaded it (shown again, not loaded again)."""
        super().__init__()
        self.paths = paths
        self.files = files
        self.use_cache = use_cache
        self.min_gap_ns = min_gap_ns
        self.run_data = loaded
        self._stop_load = threading.Event()

    class Progress(Message):
        """Posted from the load's thread as each trace is ready."""

        def __init__(self, ready: int, total: int, line: str) -> None:
            super().__init__()
            self.ready, self.total, self.line = ready, total, line

    def compose(self) -> ComposeResult:
        with Horizontal(id="run-progress"):
            yield ProgressBar(total=None, show_eta=False)
            yield Label(plain(f"loading {len(self.paths)} path(s) …"))
        with VerticalScroll(id="run-body"):
            yield Static(plain(f"loading {len(self.paths)} path(s) …"), id="run-header")
            yield RankTable(id="ranks")
            yield Static("", id="rank-breakdown")
            yield Static("", id="rank-details")
            yield Static("", id="run-findings")
            yield Static("", id="pipeline-title", classes="run-title")
            yield PipelineTable(id="pipeline")
            yield Static("", id="pipeline-remedy")
            yield Static("Waits per collective", id="collectives-title", classes="run-title")
            yield CollectiveTable(id="collectives")
            yield Static("Collective bandwidth (nccl-tests' algbw and busbw, medians)",
                         id="bandwidth-title", classes="run-title")
            yield BandwidthTable(id="bandwidth")
            yield Static("GPU hardware counters (mean % of peak, each rank's own GPU)",
                         id="counters-title", classes="run-title")
            yield CounterTable(id="counters")
        yield KeyFooter()

    @property
    def ranks(self) -> RankTable:
        return self.query_one(RankTable)

    def on_mount(self) -> None:
        if self.run_data is not None:
            self._loaded(self.run_data)
            return
        self.query_one("#run-body").loading = True
        self._load()

    @work(thread=True, exclusive=True, group="load")
    def _load(self) -> None:
        def ready(store: TraceStore) -> None:
            progress.one_done(store)
            self.post_message(self.Progress(progress.count, len(progress.sizes),
                                            progress.line()))

        try:
            # listed once (an object store's prefix: a request per entry)
            files = self.files or expand_paths(self.paths)
            progress = TracesProgress(files, on_stderr=False, then="working out the run")
            self.post_message(self.Progress(0, len(progress.sizes), progress.line()))
            loaded = load_run(self.paths, self.use_cache, self.min_gap_ns, self._stop_load,
                              ready, files)
        except LoadStopped:  # the app is quitting
            return
        except (TraceError, OSError, duckdb.Error) as exc:
            self.call_from_thread(self._failed, str(exc))
            return
        except Exception as exc:  # anything else (a pool's process killed): one line, not a
            # crash of the app with the run's load gone and nothing said
            self.call_from_thread(self._failed, f"{type(exc).__name__}: {exc}")
            return
        self.call_from_thread(self._loaded, loaded)

    def on_run_app_progress(self, event: Progress) -> None:
        # every trace ready: the bar pulses while the summaries are worked out
        self.query_one("#run-progress ProgressBar", ProgressBar).update(
            total=event.total if event.ready < event.total else None, progress=event.ready)
        self.query_one("#run-progress Label", Label).update(event.line)  # figures only

    def _failed(self, message: str) -> None:
        self.query_one("#run-progress").display = False
        self.query_one("#run-body").loading = False
        self.query_one("#run-header", Static).update(plain("could not open the run"))
        self.notify(message, title="cannot open the run", severity="error", timeout=30,
                    markup=False)

    def _loaded(self, loaded: LoadedRun) -> None:
        self.run_data = loaded
        summary = loaded.summary
        self.query_one("#run-progress").display = False
        self.query_one("#run-body").loading = False
        self.query_one("#run-header", Static).update(header_text(summary))
        self.ranks.show(summary["ranks"], summary["straggler"], summary.get("stragglers"))
        self.query_one("#run-findings", Static).update(findings_text(summary))
        has_collectives = bool(loaded.collectives)
        self.query_one("#collectives-title").display = has_collectives
        collectives = self.query_one(CollectiveTable)
        collectives.display = has_collectives
        collectives.show(loaded.collectives)
        rates = summary.get("collective_bandwidth") or []
        self.query_one("#bandwidth-title").display = bool(rates)
        bandwidth = self.query_one(BandwidthTable)
        bandwidth.display = bool(rates)
        bandwidth.show(rates)
        counters = summary.get("gpu_metrics")
        self.query_one("#counters-title").display = counters is not None
        self.query_one(CounterTable).display = counters is not None
        self.query_one(CounterTable).show(counters)
        self._show_pipeline(summary.get("pipeline"))
        self.refresh_bindings()  # `p`, `b` and `m` where there is something to show
        if summary["straggler"] is not None:
            self.ranks.move_cursor(row=self.ranks.get_row_index(str(summary["straggler"])))
        self.ranks.focus()

    def _show_pipeline(self, p: Pipeline | None) -> None:
        for selector in ("#pipeline-title", "#pipeline", "#pipeline-remedy"):
            self.query_one(selector).display = p is not None
        self.query_one(PipelineTable).show(p)
        if p is not None:
            self.query_one("#pipeline-title", Static).update(plain(pipeline_title(p)))
            self.query_one("#pipeline-remedy", Static).update(pipeline_remedy_text(p))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`p`, `b` and `m` only where the run has a pipeline, collectives' bandwidth,
        GPU hardware counters."""
        tables: dict[str, type[DataTable]] = {"show_pipeline": PipelineTable,
                                              "show_bandwidth": BandwidthTable,
                                              "show_counters": CounterTable}
        if action in tables:
            return self.run_data is not None and self.query_one(tables[action]).display
        return True

    def action_show_pipeline(self) -> None:
        self._bring("#pipeline-title", PipelineTable)

    def action_show_bandwidth(self) -> None:
        self._bring("#bandwidth-title", BandwidthTable)

    def action_show_counters(self) -> None:
        self._bring("#counters-title", CounterTable)

    def _bring(self, title: str, table: type[DataTable]) -> None:
        """Scroll the table's title to the top and give the table the keys."""
        shown = self.query_one(table)
        if not shown.display:
            return
        self.query_one("#run-body", VerticalScroll).scroll_to_widget(
            self.query_one(title), animate=False, top=True)
        shown.focus(scroll_visible=False)

    def exit(self, result: Path | None = None, return_code: int = 0,
             message: RenderableType | None = None) -> None:
        # still loading: stop it (each trace's load removes what it built), or the exit
        # would wait for the whole run to load and be cached
        self._stop_load.set()
        super().exit(result, return_code, message)

    @on(DataTable.RowHighlighted, "#ranks")
    def _rank_highlighted(self) -> None:
        """The breakdown view follows the cursor: the rank it is on."""
        rank = self.ranks.rank_at_cursor()
        row = self.ranks.rows_by_rank.get(rank) if rank is not None else None
        self.query_one("#rank-breakdown", Static).update(
            breakdown_text(row) if row is not None else "")
        self.query_one("#rank-details", Static).update("")
        if row is not None and self.use_cache and self.run_data is not None:
            self._load_details(row, self.run_data.stores.get(row["rank"]))

    @work(exclusive=True, group="details")
    async def _load_details(self, row: dict, store: Path | None) -> None:
        """The rank's own summary (its diagnosis alone, its longest gaps), read from what
        its last load kept (tui.analysis.rank_memo) as the cursor comes to it, off the UI
        thread."""
        import asyncio

        from tui.runs.run_memo import kept_rank_summary

        kept = await asyncio.to_thread(kept_rank_summary, Path(row["path"]), store,
                                       self.min_gap_ns, row["rank"])
        if kept is not None and self.ranks.rank_at_cursor() == row["rank"]:  # still on it
            self.query_one("#rank-details", Static).update(details_text(row["rank"], kept))

    @on(DataTable.RowSelected, "#ranks")
    def _rank_selected(self) -> None:
        self.action_open_rank()

    def action_open_rank(self) -> None:
        rank = self.ranks.rank_at_cursor()
        if rank is None or self.run_data is None:
            return
        store = self.run_data.stores.get(rank)  # opens at once: nothing to parse
        if store is not None:
            self.exit(store)
            return
        path = Path(self.ranks.rows_by_rank[rank]["path"])
        if not path.is_file():
            self.notify(f"rank {rank} is {path.name}, not a trace file the app can open",
                        severity="warning", markup=False)
            return
        self.exit(path)


def run_run_app(paths: list[Path], use_cache: bool = True,
                min_gap_ns: int = 1_000_000) -> int:
    """RunApp; Enter on a rank opens its trace in TraceApp, whose q comes back here."""
    from tui.apps.trace_app import TraceApp, exit_status
    from tui.loading.parquet_store import is_parquet_store
    from tui.sources.detect import detect_format

    # bad input (a missing file, no traces in a folder...) fails here, exit status 2,
    # before a terminal app starts
    files = expand_paths(paths)
    for path in files:
        if not is_parquet_store(path):
            detect_format(path)
    loaded = None
    while True:  # back from a rank's timeline, the run as it was loaded (every rank summed
        # up again, a store at a URL fetched again, would take as long as the first time)
        app = RunApp(paths, use_cache, min_gap_ns, files, loaded)
        app.run()
        loaded = app.run_data
        if app.return_value is None or app.return_code:
            return app.return_code or 0
        with _local_copy(app.return_value) as path:
            trace_app = TraceApp(path, use_cache, min_gap_ns)
            trace_app.run()
        if trace_app.return_code:
            return exit_status(trace_app)


@contextlib.contextmanager
def _local_copy(path: Path) -> Iterator[Path]:
    """`path`, or for a store at an object-store prefix, a copy of it fetched for the
    time the rank's timeline is open."""
    from tui.loading.locations import fetch, is_remote

    if not is_remote(path):
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="tui-store-") as scratch:
        yield fetch(path, Path(scratch))
