"""The Textual apps: a trace (trace_app), a run of many ranks (run_app), a diff (diff_app),
an Nsight Compute report on its own (ncu_app)."""
