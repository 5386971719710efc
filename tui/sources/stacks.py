"""Launch stacks and memory context, built from the schema once a loader has filled it:
Python frames with their parents, each GPU activity's launching call, CPU op and
innermost Python frame, and each memory event's op and frame (queries/stacks_*.sql)."""

from __future__ import annotations

import sys

import duckdb

from tui.queries import load_query

# Top-level packages that are libraries, not the user's own code. A trace names a frame
# by its path below the sys.path entry it came from ('torch/nn/modules/module.py'), so
# the first part of the path says whose code it is.
LIBRARIES = (
    "torch", "torchvision", "torchaudio", "torchtext", "functorch", "triton", "transformers",
    "accelerate", "datasets", "tokenizers", "safetensors", "huggingface_hub", "peft", "trl",
    "diffusers", "timm", "numpy", "scipy", "pandas", "sklearn", "jax", "jaxlib", "flax",
    "optax", "apex", "deepspeed", "megatron", "lightning", "pytorch_lightning",
    "lightning_fabric", "torchmetrics", "xformers", "flash_attn", "vllm", "bitsandbytes",
    "einops", "tqdm", "typing_extensions", "sympy", "packaging", "wandb", "tensorboard",
    "google", "absl", "hydra", "omegaconf", "yaml", "regex", "filelock", "fsspec",
    "requests", "urllib3", "jinja2", "importlib_metadata", "setuptools", "pkg_resources",
    "nvidia", "_pytest", "pytest", "pluggy",
)
STAGED_PYTHON = """CREATE TABLE IF NOT EXISTS stacks_staged_python (
    ord BIGINT, start_ns BIGINT, python_id BIGINT, python_parent_id BIGINT)"""


def build_stacks(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Fill python_frames, launches and the memory events' context; returns warnings.

    A trace without Python frames (nsys, or Kineto recorded without with_stack) has its
    NVTX / user annotation ranges stand in as frames; trace_meta's `code_source` says
    which ('python' | 'nvtx' | 'none')."""
    kind = _frame_kind(con)
    con.execute(STAGED_PYTHON)  # a loader without Python ids stages none
    con.execute(load_query("stacks_python_frames"),
                {"libraries": list(LIBRARIES), "stdlib": sorted(sys.stdlib_module_names),
                 "kind": kind})
    con.execute("DROP TABLE stacks_staged_python")
    con.execute(load_query("stacks_points"))
    _find_innermost(con, ["cpu_op", kind])
    con.execute(load_query("stacks_launches"), {"frame_kind": kind})
    con.execute(load_query("stacks_memory_context"), {"frame_kind": kind})
    con.execute(load_query("stacks_memory_write"))
    con.execute("DROP TABLE stacks_points")
    con.execute("DROP TABLE stacks_found")
    has_frames = con.execute("SELECT 1 FROM python_frames LIMIT 1").fetchone() is not None
    source = "none" if not has_frames else "python" if kind == "python" else "nvtx"
    con.execute("INSERT OR REPLACE INTO trace_meta VALUES ('code_source', ?)", [source])
    return _frame_warnings(con)


def _find_innermost(con: duckdb.DuckDBPyConnection, kinds: list[str]) -> None:
    """Fill stacks_found. Where stacks are shallow beside the ranges (JAX's Python tracer:
    millions of short frames, a few levels deep), each point's last range to start before
    it, then the levels above it, are looked up; deep stacks with many launches (Kineto
    with_stack) would need more lookups than a sweep over every range sorts."""
    row = con.execute(load_query("stacks_innermost_cost"), {"kinds": kinds}).fetchone()
    assert row is not None
    level_lookups, ranges = row
    if level_lookups > ranges:
        con.execute(load_query("stacks_innermost"), {"kinds": kinds})
        return
    con.execute(load_query("stacks_ranges"), {"kinds": kinds})
    con.execute(load_query("stacks_last_started"), {"kinds": kinds})
    con.execute(load_query("stacks_innermost_levels"), {"kinds": kinds})
    con.execute("DROP TABLE stacks_last_started")
    con.execute("DROP TABLE stacks_ranges")


def _frame_kind(con: duckdb.DuckDBPyConnection) -> str:
    """'python' when the trace has Python frames, else 'annotation' (NVTX ranges)."""
    row = con.execute("SELECT 1 FROM host_activities WHERE kind = 'python' LIMIT 1").fetchone()
    return "python" if row is not None else "annotation"


def _frame_warnings(con: duckdb.DuckDBPyConnection) -> list[str]:
    row = con.execute(load_query("stacks_frame_checks")).fetchone()
    assert row is not None
    _, missing, other = row
    warnings = []
    if missing:
        warnings.append(f"{missing:,} Python frames name a parent id no frame has: each is "
                        "placed under the frame that encloses it in time")
    if other:
        warnings.append(f"{other:,} Python frames name a parent id other than the frame "
                        "enclosing them (a cycle, or clocks out of step): the enclosing "
                        "frame is used")
    return warnings
