"""What the tests share and are not tests themselves: where the samples are, independent
readings of the traces (the oracles), and the ways to drive the apps through Pilot.

Test modules import from here (or tests.conftest), never from one another:
tests/test_suite_layout.py checks it.
"""
