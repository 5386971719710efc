"""Several traces at once: the ranks of one distributed run, or a before/after pair.

Each trace keeps its own store (its DuckDB cache file, or Parquet files when there is no
cache), built in parallel processes; one in-memory DuckDB then attaches the stores
read-only and shows them as the usual tables with a `rank` column (see combine.py).
"""
