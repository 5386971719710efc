"""Where the real JAX recordings' files are: each run a LOGDIR under sample_traces/."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.paths import SAMPLES


def run_folder(workload: str) -> Path:
    (folder,) = (SAMPLES / workload / "plugins" / "profile").iterdir()
    return folder


SAMPLE_FILES = {
    "jax_train": run_folder("jax_train") / "perfetto_trace.json.gz",
    "jax_eager": run_folder("jax_eager") / "perfetto_trace.json.gz",
    "jax_streams": run_folder("jax_streams") / "vm.trace.json.gz",
}
