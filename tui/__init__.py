"""tui: a terminal explorer for GPU traces.

Installed as the distribution `gpu-trace-tui` (`tui` on the package index is another
project); the package and the command are `tui`.
"""

# The one place the version is written: pyproject.toml reads it (hatchling's dynamic
# version), `tui --version` prints it, and the summary memo is keyed by it.
__version__ = "0.1.0"
