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
)


def module_label(module: str) -> str:
    """'the Python interpreter' for python3.12, 'OpenBLAS' for libscipy_openblas64_….so;
    else the file name."""
    for pattern, label in _MODULE_LABELS:
        if pattern.search(module):
            return label
    return module
