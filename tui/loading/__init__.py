"""Opening what the user names: what a path is (resolve.py), the cache, a trace through
its source into DuckDB (trace.py), and the stores a loaded trace leaves behind."""
