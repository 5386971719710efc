"""The lowest layer: DuckDB connections, named SQL, errors, units, safe text, and the
helpers every other layer shares. It imports nothing else of tui."""
