"""tui: a terminal explorer for GPU traces.

Installed as the distribution `gpu-trace-tui` (`tui` on the package index is another
project); the package and the command are `tui`.
"""

import os

# The one place the version is written: pyproject.toml reads it (hatchling's dynamic
# version), `tui --version` prints it, and the summary memo is keyed by it.
__version__ = "0.1.0"

# NumPy's OpenBLAS starts a thread a core when imported, and each spins a while waiting for
# work. tui calls no BLAS routine (its NumPy work is sorts and searches), so one, unless the
# user set otherwise: on 2 cores the import cost 0.084 CPU-s and 0.065 more spun in the 2 s
# after it, against 0.056 and none.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
