"""`tui TRACE --ncu REPORT`: the report inside the timeline app.

The report loads in a worker beside the trace (a progress line shows it), is matched to
the trace's kernels once both are in, and opens on Enter on a kernel (`drill_down`) or on
`c` (`show_launches`). A kernel the report did not profile, or one whose match is
ambiguous, is said plainly; widgets never see the SQL behind it (tui.views.ncu_session).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import duckdb
from textual.app import App

from tui.core.db import CursorSource
from tui.core.errors import TraceError
from tui.loading.trace import Trace
from tui.views.ncu_session import NcuSession, open_ncu
from tui.widgets.ncu_progress import NcuProgress
from tui.widgets.ncu_screen import NcuScreen

NO_REPORT = "no Nsight Compute report loaded: open the trace with --ncu REPORT"


class NcuAttachment:
    """state: 'none' (no --ncu), 'loading', 'loaded' (no trace yet), 'matching', 'ready'
    (matched) or 'failed'."""

    def __init__(self, app: App[int], path: Path | None) -> None:
        self.app = app
        self.path = path
        self.session: NcuSession | None = None
        self.state = "none" if path is None else "loading"
        self.error = ""
        self._trace: CursorSource | None = None
        self._progress: NcuProgress | None = None

    def start(self) -> None:
        """Begin loading the report (call once the app is mounted)."""
        if self.path is None:
            return
        self._progress = NcuProgress(f"Nsight Compute: reading {self.path.name} …")
        self.app.screen_stack[0].mount(self._progress)
        self.app.run_worker(partial(self._load, self.path), thread=True, group="ncu",
                            exclusive=True)

    def _load(self, path: Path) -> None:
        def progress(done: int, total: int) -> None:
            self.app.call_from_thread(self._stage, f"Nsight Compute: explaining launch "
                                      f"{done} of {total}", done, total)

        try:
            session = open_ncu(path, progress)
        except (TraceError, OSError, duckdb.Error) as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        self.app.call_from_thread(self._opened, session)

    def _stage(self, text: str, done: int | None = None, total: int | None = None) -> None:
        if self._progress is not None and self._progress.is_mounted:
            self._progress.stage(text, done, total)

    def _failed(self, message: str) -> None:
        self.state, self.error = "failed", message
        self._done()
        self.app.notify(message, title="cannot open the Nsight Compute report",
                        severity="error", timeout=30, markup=False)

    def _opened(self, session: NcuSession) -> None:
        self.session, self.state = session, "loaded"
        if self._trace is not None:
            self._match(session, self._trace)
        else:
            self._stage("Nsight Compute: waiting for the trace to match its kernels …")

    def trace_loaded(self, trace: Trace) -> None:
        self._trace = trace
        if self.session is not None and self.state == "loaded":
            self._match(self.session, trace)

    def _match(self, session: NcuSession, trace: CursorSource) -> None:
        self.state = "matching"
        self._stage("Nsight Compute: matching the launches to the trace's kernels …")
        self.app.run_worker(partial(self._match_in_worker, session, trace), thread=True,
                            group="ncu", exclusive=True)

    def _match_in_worker(self, session: NcuSession, trace: CursorSource) -> None:
        try:
            session.attach_trace(trace)
        except duckdb.Error as exc:
            self.app.call_from_thread(self._failed, f"matching the report to the trace "
                                      f"failed: {exc}")
            return
        self.app.call_from_thread(self._ready, session)

    def _ready(self, session: NcuSession) -> None:
        self.state = "ready"
        self._done()
        counts = session.match_counts()
        found = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
        self.app.notify(f"{len(session.launches)} profiled launches from "
                        f"{session.path.name}; in the trace: {found}. Enter on a kernel "
                        "opens its results; c lists them all.", title="Nsight Compute",
                        markup=False)
        for warning in session.warnings:
            self.app.notify(warning, title="Nsight Compute", severity="warning", markup=False)

    def _done(self) -> None:
        if self._progress is not None:
            self._progress.remove()
            self._progress = None

    def _unavailable(self, need_trace: bool) -> str | None:
        """Why the report cannot be shown now, or None when it can."""
        if self.state == "none":
            return NO_REPORT
        if self.state == "failed":
            return f"the Nsight Compute report could not be loaded: {self.error}"
        if self.state in ("loading", "matching") or (need_trace and self.state != "ready"):
            return "the Nsight Compute report is still loading"
        return None

    def drill_down(self, activity_id: int, name: str) -> None:
        """Enter on a trace kernel: open its profiled launch, or say why there is none."""
        why = self._unavailable(need_trace=True)
        if why is not None or self.session is None:
            self.app.notify(why or NO_REPORT, title="Enter on a kernel", severity="warning",
                            markup=False)
            return
        profile = self.session.profile_of(activity_id, name)
        if not profile.launch_ids:
            self.app.notify(profile.message, title="Nsight Compute", severity="warning",
                            timeout=10, markup=False)
            return
        warn = profile.status == "ambiguous"
        if warn:
            self.app.notify(profile.message, title="ambiguous match", severity="warning",
                            timeout=10, markup=False)
        self.app.push_screen(NcuScreen(self.session, profile.launch_ids[0],
                                       profile.message, warn))

    def show_launches(self) -> None:
        """`c`: every profiled launch, the first selected."""
        if isinstance(self.app.screen, NcuScreen):
            return  # already showing them
        why = self._unavailable(need_trace=False)
        if why is not None or self.session is None:
            self.app.notify(why or NO_REPORT, title="Nsight Compute", severity="warning",
                            markup=False)
            return
        self.app.push_screen(NcuScreen(self.session))

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
