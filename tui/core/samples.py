"""The sample traces shipped with tui, so `tui` with no argument shows something."""

from __future__ import annotations

from pathlib import Path

from tui.core.errors import TraceError

DEFAULT_SAMPLE = "gappy_training.pt.trace.json.gz"


def samples_dir() -> Path:
    """The installed copy (wheel) or the source tree's `sample_traces/`."""
    package = Path(__file__).parent.parent  # tui/
    installed = package / "_sample_traces"
    return installed if installed.is_dir() else package.parent / "sample_traces"


def default_sample() -> Path:
    path = samples_dir() / DEFAULT_SAMPLE
    if not path.is_file():
        raise TraceError(f"the bundled sample trace is missing ({path}); give a trace file")
    return path
