"""The order the tests run in, so that two cores finish together.

`pytest -n auto --dist worksteal` (README, .ci/run) gives each test process a contiguous slice
of the collected tests and later lets an idle one take half of another's queue, from its end.
In the order pytest collects them, the longest tests (the real-process kill tests, over a
minute each) came last: the run ended with one process alone on them while the others stood
idle. Here the tests are dealt out before xdist slices them: the slices are made of equal
counts (as xdist cuts them), filled longest first, each going to the slice that has the least
work so far (longest-processing-time first), and each slice runs its longest first, so what
is left to steal at the end is short.

How long a test takes is read from tests/durations.json, written by a whole run with
`--store-durations`; a test it does not know counts as the median of those it does. The
file only orders the run: a stale one makes it slower, never wrong.
"""

from __future__ import annotations

import json
import os
import statistics
from pathlib import Path

import pytest

DURATIONS = Path(__file__).with_name("durations.json")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--store-durations",
        action="store_true",
        help="write each test's time (setup, call and teardown) to tests/durations.json",
    )


def _known() -> dict[str, float]:
    try:
        data = json.loads(DURATIONS.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def slice_sizes(count: int, workers: int) -> list[int]:
    """The sizes of the slices xdist's work-stealing scheduler first hands out: to each test
    process in turn, what is left divided by the processes still without work."""
    sizes = []
    left = count
    for remaining in range(workers, 0, -1):
        sizes.append(left // remaining)
        left -= sizes[-1]
    return sizes


def deal(weights: list[float], workers: int) -> list[int]:
    """The order (indices into `weights`) in which `workers` equal slices each get about the
    same total weight, heaviest first within each."""
    sizes = slice_sizes(len(weights), workers)
    bins: list[list[int]] = [[] for _ in sizes]
    totals = [0.0] * len(sizes)
    for index in sorted(range(len(weights)), key=lambda i: (-weights[i], i)):
        open_bins = [b for b in range(len(bins)) if len(bins[b]) < sizes[b]]
        chosen = min(open_bins, key=lambda b: (totals[b], b))
        bins[chosen].append(index)
        totals[chosen] += weights[index]
    return [index for each in bins for index in each]


@pytest.hookimpl(trylast=True)  # after `-m` and `-k` have deselected what will not run
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    known = _known()
    if not known or len(items) < 2:
        return
    default = statistics.median(known.values())
    weights = [known.get(item.nodeid, default) for item in items]
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    items[:] = [items[i] for i in deal(weights, max(1, workers))]


class _Store:
    """Collects each test's time in the process that reports (xdist's controller too)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.seconds:
            rounded = {k: round(v, 2) for k, v in sorted(self.seconds.items())}
            DURATIONS.write_text(json.dumps(rounded, indent=0, ensure_ascii=False) + "\n")


def pytest_configure(config: pytest.Config) -> None:
    is_worker = hasattr(config, "workerinput")
    if config.getoption("--store-durations") and not is_worker:
        config.pluginmanager.register(_Store(), "truco-store-durations")
