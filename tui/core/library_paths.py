"""Which code is not the user's own, by the path of its file: a native frame's module, a
Python frame's file. No imports: a warm `--summary` reads it without DuckDB."""

# Modules and files that are not the user's own code: installed packages, system and CUDA
# libraries, Python's standard library (/usr/lib/python3.x).
LIBRARY_MODULES = (r"/(site|dist)-packages/|^/usr/(lib|lib64|local/cuda|local/nvidia)/|"
                   r"^/(lib|lib64|opt/nvidia)/|/cuda[^/]*/(lib|lib64|targets)/|"
                   r"libcudart|libstdc\+\+|libgcc")
