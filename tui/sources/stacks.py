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
    ord BIGINT, start_ns BIGINT, name VARCHAR, python_id BIGINT, python_parent_id BIGINT)"""
CONTEXT_KINDS = ["cpu_op", "python"]


def build_stacks(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Fill python_frames, launches and the memory events' context; returns warnings."""
    con.execute(STAGED_PYTHON)  # a loader without Python ids stages none
    con.execute(load_query("stacks_python_frames"),
                {"libraries": list(LIBRARIES), "stdlib": sorted(sys.stdlib_module_names)})
    con.execute("DROP TABLE stacks_staged_python")
    con.execute(load_query("stacks_launch_points"))
    con.execute(load_query("stacks_innermost"), {"kinds": CONTEXT_KINDS})
    con.execute(load_query("stacks_launches"))
    con.execute(load_query("stacks_memory_points"))
    con.execute(load_query("stacks_innermost"), {"kinds": CONTEXT_KINDS})
    con.execute(load_query("stacks_memory_context"))
    con.execute("DROP TABLE stacks_points")
    con.execute("DROP TABLE stacks_found")
    return _frame_warnings(con)


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
