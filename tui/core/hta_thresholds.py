"""Thresholds Holistic Trace Analysis defines, shared by the figures and the text that
names them (a module of constants: the summary's text imports it without DuckDB)."""

from __future__ import annotations

# HTA's consecutive_kernel_delay: a gap between a stream's kernels shorter than this, with
# the next one already queued, is launch overhead ("kernel wait"), not idleness
KERNEL_WAIT_NS = 30_000
