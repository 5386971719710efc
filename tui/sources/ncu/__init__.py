"""Nsight Compute input (`.ncu-rep`, `ncu --csv`) into DuckDB tables ncu_meta, ncu_kernels,
ncu_metrics, ncu_rules, and the per-instruction source tables."""
