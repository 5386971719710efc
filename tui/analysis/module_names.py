"""Friendlier names of native modules (by file name), for sentences; tables keep the file
name itself."""

from __future__ import annotations

import re

# Friendlier names of common modules (by file name), for sentences; the tables keep the
# file name itself.
_MODULE_LABELS = (
    (re.compile(r"^(lib)?python\d|^libpython"), "the Python interpreter"),
    (re.compile(r"openblas", re.I), "OpenBLAS"),
    (re.compile(r"^libmkl|^libiomp", re.I), "MKL"),
    (re.compile(r"^libcuda\.so|^libcudart"), "the CUDA driver/runtime"),
    (re.compile(r"^libtorch|^libc10"), "PyTorch"),
    (re.compile(r"^libc\.so|^libpthread|^ld-linux"), "libc"),
    (re.compile(r"kallsyms|^\[kernel|vmlinux"), "the OS kernel"),
    # data preparation's usual libraries (NumPy's compiled modules: _multiarray_umath,
    # its random generators _pcg64, _bounded_integers, …)
    (re.compile(r"^_multiarray|^_umath|^_pcg64|^_philox|^_mt19937|^_sfc64|^mtrand"
                r"|^_generator\.cpython|^_bounded_integers|^bit_generator|^libnumpy|numpy"),
     "NumPy"),
    (re.compile(r"^_imaging|^libjpeg|^libturbojpeg|^libpng|^libwebp"), "Pillow"),
    (re.compile(r"^(lib)?opencv|^cv2"), "OpenCV"),
    # compilers run while the program runs (COMPILERS)
    (re.compile(r"^libnvrtc"), "NVRTC"),
    (re.compile(r"^libnvidia-ptxjitcompiler"), "the driver's PTX compiler"),
    (re.compile(r"^libtriton"), "Triton's compiler"),
    (re.compile(r"^ptxas"), "ptxas"),
)
# The labels of compilers that build GPU kernels while the program runs: samples in them
# on the thread that issues GPU work are kernels compiled while the GPU waits.
COMPILERS = frozenset({"NVRTC", "the driver's PTX compiler",
                       "Triton's compiler", "ptxas"})


# The profiler's own code in the process (nsys' injection libraries, CUPTI): samples in it
# on threads of their own are the profiler's, not the program's.
_PROFILER = re.compile(r"^libToolsInjection|^libcupti|^libnvperf")


def is_profiler(module: str) -> bool:
    """Whether `module` (a file name) is the profiler's own (nsys' injection, CUPTI)."""
    return bool(_PROFILER.search(module))


def module_label(module: str) -> str:
    """'the Python interpreter' for python3.12, 'OpenBLAS' for libscipy_openblas64_….so;
    else the file name."""
    for pattern, label in _MODULE_LABELS:
        if pattern.search(module):
            return label
    return module
