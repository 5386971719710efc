"""tui: a terminal explorer for GPU traces."""

__version__ = "0.1.0"
