"""The headless reports: the summary and diff dicts as Rich tables, and JSON streams."""
