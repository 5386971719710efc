"""What is under the timeline cursor: a kernel (with its launch call, CPU op and NVTX
ranges), a host range, or a GPU-idle gap. Every name is appended as plain text."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.analysis.code_hlo import frame_is_user
from tui.analysis.xla_ops import ActivityOp
from tui.core.safe_text import printable
from tui.core.units import format_bytes, format_ns, format_offset
from tui.views.timeline import GapInfo, HostInfo, KernelInfo
from tui.views.timeline.distributed_lanes import KIND_LABELS, PathInfo, QueueInfo
from tui.views.timeline.gpu_metrics import MetricInfo, short_name
from tui.views.timeline.lookup import Info, StackFrame
from tui.views.timeline.memory import MemoryInfo
from tui.widgets import keymap

KEY_WIDTH = 8
USER_FRAME = "bold yellow"  # the user's own code in a launch stack


Threads = dict[tuple[int, int], str]  # (pid, tid) -> its full name, where the trace names it
Shown = Info | MemoryInfo | MetricInfo | PathInfo | QueueInfo  # what the cursor can be on


class DetailsPanel(Static):
    """`show(info, origin, threads)`: origin is the time shown as 0 (the first GPU
    activity); threads gives host threads' full names (a lane's label may be cut)."""

    DEFAULT_CSS = "DetailsPanel { height: auto; }"

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 (Textual's name)
        super().__init__(id=id)
        self.full_stack = False  # every frame of a stack, not only the user's
        self._shown: tuple[Shown | None, int, Threads] = (None, 0, {})

    def show(self, info: Shown | None, origin: int,
             threads: Threads | None = None) -> None:
        new = info is not self._shown[0]
        self._shown = (info, origin, threads or {})
        # its height follows the text: the scroll view around it scrolls a long one
        self.update(describe(info, origin, threads or {}, self.full_stack))
        if new and isinstance(self.parent, VerticalScroll):
            self.parent.scroll_home(animate=False)  # another event: read from its top

    def toggle_full_stack(self) -> None:
        self.full_stack = not self.full_stack
        self.show(*self._shown)


class DetailsScroll(VerticalScroll):
    """The details' scroll view: `1` gives it the keys to scroll a long kernel name and
    stack (PgDn, End, j/k) and to open the library frames (f); Esc gives them back."""

    BINDINGS = keymap.bindings(keymap.DETAILS)

    def action_full_stack(self) -> None:
        for panel in self.query(DetailsPanel):
            panel.toggle_full_stack()


FULL_STACK_HINT = " (f: every frame)"


def describe(info: Shown | None, origin: int,
             threads: Threads | None = None, full_stack: bool = False) -> Text:
    """The details of `info`; `full_stack`: every frame of its stack, not only the
    user's."""
    out = Text(no_wrap=False, overflow="fold")
    lines: list[tuple[str, list[tuple[str, str]]]]
    if info is None:
        return Text("nothing under the cursor: move it onto a kernel, or press g for the "
                    "next GPU-idle gap", style="dim")
    threads = threads or {}
    if isinstance(info, KernelInfo):
        lines = _kernel(info, origin, threads, full_stack)
    elif isinstance(info, MemoryInfo):
        lines = _memory(info, origin, full_stack)
    elif isinstance(info, MetricInfo):
        lines = _metrics(info, origin)
    elif isinstance(info, HostInfo):
        lines = _host(info, origin, threads)
    elif isinstance(info, PathInfo):
        lines = _path(info, origin, threads)
    elif isinstance(info, QueueInfo):
        lines = _queue(info)
    else:
        lines = _gap(info, origin)
    for i, (key, parts) in enumerate(lines):
        if i:
            out.append("\n")
        out.append(f"{key:<{KEY_WIDTH - 1}} ", style="bold")  # a space even after a long key
        for text, style in parts:
            out.append(printable(text), style=style)  # plain text: no markup, no escapes
    return out


def stack_text(stack: tuple[StackFrame, ...]) -> Text:
    """stack_lines as text, for panels other than this one (the ncu drill-down)."""
    out = Text(no_wrap=False, overflow="fold")
    for i, (key, parts) in enumerate(stack_lines(stack)):
        if i:
            out.append("\n")
        out.append(key.ljust(KEY_WIDTH), style="bold")
        for text, style in parts:
            out.append(printable(text), style=style)
    return out


def _at(t: int, origin: int) -> str:
    return f"at {format_offset(t - origin)}"


def _thread(pid: int | None, tid: int | None, threads: Threads) -> str:
    """'python3 (thread 449)' where the thread is named, else 'thread 449'; with no pid,
    the name only when one thread has that tid."""
    names = [name for (p, t), name in threads.items() if t == tid and pid in (None, p)]
    named = names[0] if len(names) == 1 else None
    return f"{named} (thread {tid})" if named else f"thread {tid}"


def _kernel(k: KernelInfo, origin: int, threads: Threads,
            full: bool = False) -> list[tuple[str, list[tuple[str, str]]]]:
    lines = [(k.kind, [(k.name, "bold")]),
             ("where", [(f"GPU {k.device} stream {k.stream} · {_at(k.start_ns, origin)} · "
                         f"took {format_ns(k.duration_ns)}", "")])]
    if k.grid is not None and k.block is not None:
        shape = f"grid {k.grid[0]}×{k.grid[1]}×{k.grid[2]} · block " \
                f"{k.block[0]}×{k.block[1]}×{k.block[2]}"
        if k.registers_per_thread is not None:
            shape += f" · {k.registers_per_thread} registers/thread"
        if k.shared_memory_bytes:
            shape += f" · {format_bytes(k.shared_memory_bytes)} shared"
        lines.append(("shape", [(shape, "")]))
    if k.bytes is not None:
        lines.append(("bytes", [(f"{format_bytes(k.bytes)} {k.copy_kind or ''}".rstrip(), "")]))
    if k.launch_name is not None:
        call = f" on {_thread(None, k.launch_tid, threads)} · " \
               f"{_at(k.launch_start_ns or 0, origin)} · took " \
               f"{format_ns(k.launch_duration_ns or 0)}"
        lines.append(("launch", [(k.launch_name, "bold"), (call, "")]))
    else:
        lines.append(("launch", [("no launch call recorded for this correlation id", "dim")]))
    if k.cpu_op:
        lines.append(("cpu op", [(k.cpu_op, "")]))
    if k.nvtx_path:
        lines.append(("nvtx", [(k.nvtx_path, "")]))
    if k.op is not None:
        lines += _hlo_op(k.op)
        if k.op.stack:  # the lines that made the op, not the runtime that launched it
            return lines + stack_lines(tuple(
                StackFrame(0, name, frame_is_user(name))
                for name in reversed(k.op.stack)), full, FULL_STACK_HINT)
    lines += stack_lines(k.stack, full, FULL_STACK_HINT)
    return lines


# How an XLA kernel was tied to its op, where that is worth saying (queries/core/schema.sql).
HOW_TIED = {"reuse": "the kernel of an identical op, placed by the command buffer's order",
            "order": "placed by the command buffer's order",
            "guess": "a guess: placed by the command buffer's order among several ops"}


def _hlo_op(op: ActivityOp) -> list[tuple[str, list[tuple[str, str]]]]:
    """An XLA kernel's HLO op, the command buffer it ran in, its line and op path."""
    parts = [(op.hlo_op, "bold")]
    if op.category:
        parts.append((f" ({op.category})", ""))
    if op.command_buffer:
        parts.append((f" · in {op.command_buffer}", ""))
    if op.matched in HOW_TIED:
        parts.append((f" · {HOW_TIED[op.matched]}", "dim"))
    lines = [("op", parts)]
    if op.source_file:
        lines.append(("line", [(f"{op.source_file}:{op.source_line or 0}",
                                USER_FRAME if op.user_code else "")]))
    if op.op_name:
        lines.append(("op path", [(op.op_name, "")]))
    return lines


# Frames of a stack without the user's own shown in full, from the innermost.
INNERMOST_SHOWN = 4


def stack_lines(stack: tuple[StackFrame, ...], full: bool = False,
                hint: str = "") -> list[tuple[str, list[tuple[str, str]]]]:
    """The launch's stack, innermost first: the innermost frame and the user's own frames
    (highlighted) in full, each run of library frames between them as a count (`full`:
    every frame; `hint` follows a count). A stack with none of the user's frames (a
    native backtrace of a Python program) shows its innermost few frames and its
    outermost."""
    lines: list[tuple[str, list[tuple[str, str]]]] = []
    hidden = 0
    in_full = {0}
    if full:
        in_full = set(range(len(stack)))
    elif not any(frame.user_code for frame in stack):
        in_full = set(range(INNERMOST_SHOWN)) | {len(stack) - 1}
    for i, frame in enumerate(stack):
        if frame.user_code or i in in_full:
            if hidden:
                lines.append(("", [(f"… {hidden} library frames{hint}", "dim")]))
                hidden = 0
            lines.append(("stack" if i == 0 else "",
                          [(frame.name, USER_FRAME if frame.user_code else "")]))
        else:
            hidden += 1
    if hidden:
        lines.append(("", [(f"… {hidden} library frames{hint}", "dim")]))
    return lines


def _memory(m: MemoryInfo, origin: int,
            full: bool = False) -> list[tuple[str, list[tuple[str, str]]]]:
    share = 100.0 * m.total_allocated / m.peak_allocated_bytes if m.peak_allocated_bytes else 0
    reserved = (f" · {format_bytes(m.total_reserved)} reserved"
                if m.total_reserved is not None else "")
    if m.bytes is None:
        event = "the first memory event of the trace on this GPU (its size is unknown)"
    else:
        event = (f"{'allocated' if m.bytes >= 0 else 'freed'} {format_bytes(abs(m.bytes))}")
    lines = [("memory", [(f"GPU {m.device}: {format_bytes(m.total_allocated)} allocated "
                          f"({share:.0f}% of its peak {format_bytes(m.peak_allocated_bytes)})"
                          f"{reserved}", "bold")]),
             ("event", [(f"{event} · {_at(m.ts_ns, origin)}", "")])]
    if m.op:
        lines.append(("cpu op", [(m.op, "")]))
    lines += stack_lines(m.stack, full, FULL_STACK_HINT)
    return lines


def _metrics(m: MetricInfo, origin: int) -> list[tuple[str, list[tuple[str, str]]]]:
    samples = max(n for _, _, n in m.values)
    where = (f"mean of {samples} samples in the cursor's column" if samples > 1
             else "the sample whose period holds the cursor")
    lines = [("counters", [(f"GPU {m.device} · {_at(m.t_ns, origin)} · {where}", "bold")])]
    values = " · ".join(f"{short_name(name)} {mean:.0f}%" for name, mean, _ in m.values)
    lines.append(("% peak", [(values, "")]))
    return lines


def _host(h: HostInfo, origin: int,
          threads: Threads) -> list[tuple[str, list[tuple[str, str]]]]:
    lines = [(h.kind, [(h.name, "bold")]),
             ("where", [(f"{_thread(h.pid, h.tid, threads)}, pid {h.pid} · "
                         f"{_at(h.start_ns, origin)} · took "
                         f"{format_ns(h.duration_ns)} · depth {h.depth}", "")])]
    if h.parents:
        lines.append(("inside", [(h.parents, "")]))
    if h.launched:
        lines.append(("launched", [(f"{h.launched} GPU activities", "")]))
    return lines


def _path(p: PathInfo, origin: int,
          threads: Threads) -> list[tuple[str, list[tuple[str, str]]]]:
    s = p.segment
    where = (f"GPU {s.device} stream {s.stream}" if s.device is not None
             else _thread(None, s.tid, threads) if s.tid is not None else "")
    return [
        ("path", [(KIND_LABELS.get(s.kind, s.kind), "bold"),
                  (f" · from {format_offset(s.start_ns - origin)} to "
                   f"{format_offset(s.end_ns - origin)} · took "
                   f"{format_ns(s.end_ns - s.start_ns)}", "")]),
        *([("where", [(where, "")])] if where else []),
        ("what", [("the step's critical path: the chain of CPU work, launch delays, "
                   "kernels, communication and waiting that set its length (p hides it)",
                   "dim")]),
    ]


def _queue(q: QueueInfo) -> list[tuple[str, list[tuple[str, str]]]]:
    return [
        ("queue", [(f"{q.queue:,} launches outstanding", "bold"),
                   (f" on GPU {q.device} stream {q.stream} (its deepest: {q.deepest:,})",
                    "")]),
        ("what", [("called on the host and not yet started on the GPU (HTA's queue "
                   "length); a deep queue means the host runs ahead (p hides it)", "dim")]),
    ]


def _gap(g: GapInfo, origin: int) -> list[tuple[str, list[tuple[str, str]]]]:
    return [
        ("idle", [(f"GPU {g.device} idle for {format_ns(g.duration_ns)}", "bold red"),
                  (f" · from {format_offset(g.start_ns - origin)} to "
                   f"{format_offset(g.end_ns - origin)}", "")]),
        ("why", [(f"{g.kind}: ", "bold"), (g.cause or "", "")]),
        # named as the summary and the Gaps tab name them: the work before the gap → after
        ("before", [(g.before_name or "(start of trace)", "")]),
        ("after", [(g.after_name or "(end of trace)", "")]),
    ] + [("host" if i == 0 else "", [(line.strip(), "dim" if i else "")])
         for i, line in enumerate(g.host)]
