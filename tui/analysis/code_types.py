"""What the Code view's analyses return (tui/analysis/code.py, code_hlo.py)."""

from __future__ import annotations

from dataclasses import dataclass

from tui.analysis import summary_types

# What a frame is, by code source: for titles and captions.
FRAME_WORDS = {"python": "Python frame", "cuda_backtrace": "frame (CUDA backtrace)",
               "nvtx": "NVTX range", "hlo": "line of code (XLA's HLO op metadata)"}
# Why a launch may have none, by code source.
WHY_NO_FRAME = {"python": "another thread, e.g. autograd's backward",
                "nvtx": "another thread, e.g. autograd's backward",
                "cuda_backtrace": "nsys took no backtrace of its call",
                "hlo": "no HLO op was found for it, or its op records no line"}


@dataclass
class FrameTime:
    frame: str  # as the trace names it: 'file.py(123): func'
    user_code: bool
    gpu_ns: int  # GPU work launched while the frame was on the stack
    self_gpu_ns: int  # launched with the frame innermost
    launches: int
    self_launches: int

    def as_dict(self) -> summary_types.Frame:
        """The `--summary --json` record of a frame."""
        return {"frame": self.frame, "gpu_ns": self.gpu_ns, "self_gpu_ns": self.self_gpu_ns,
                "launches": self.launches}


@dataclass
class CodeNode:
    node: int  # a hash of the call path
    parent: int | None
    depth: int
    frame: str
    user_code: bool
    gpu_ns: int
    self_gpu_ns: int
    launches: int
    frame_ids: list[int]  # the python_frames of this path
    path: str = ""  # an XLA op path's node: the path from its root ('jit(step)/Dense_0')


@dataclass
class Unattributed:
    gpu_ns: int  # GPU work with no Python frame around its launch
    launches: int
    linked: int  # GPU activities linked to a launching call at all
