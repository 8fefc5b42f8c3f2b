"""Tests only: a process whose wall clock is off (a machine whose clock is wrong), by
`TESTS_CLOCK_SKEW` seconds, ahead (positive) or behind. Python imports `sitecustomize` at start,
before anything else, from the first folder of the path that has one: a test puts this folder
first on one worker's PYTHONPATH (tests/e2e/test_skewed_workers.py), and only that process's
`time.time` and `time.time_ns` are shifted. Its monotonic clock, and every other process's
clock, are left alone, as they would be on a machine whose wall clock was set wrong."""

import os
import time

_SKEW = float(os.environ.get("TESTS_CLOCK_SKEW") or 0.0)

if _SKEW:
    _time, _time_ns = time.time, time.time_ns

    def _skewed() -> float:
        return _time() + _SKEW

    def _skewed_ns() -> int:
        return _time_ns() + int(_SKEW * 1e9)

    time.time = _skewed
    time.time_ns = _skewed_ns
