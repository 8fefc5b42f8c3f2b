"""The tests' and the bot's compiled form made once, by xdist's controller, before its test
processes start.

pytest rewrites each test file's `assert`s before it runs it and keeps the result beside the
file (`__pycache__/*-pytest-*.pyc`). In a fresh clone there is none yet: the test processes of
`-n auto` start together, and each rewrote all ~100 files itself (about 6 s of CPU each, most of
a process's collection) before running a test. Here the controller, which collects nothing of
its own, writes them first (once, about 6 s); the test processes then read them. With the
files there already (a second run), it only checks them. The same for the bot's modules and the
tests' helpers, compiled as Python compiles them (an environment with PYTHONDONTWRITEBYTECODE,
as this one has, kept each process compiling them again).

This uses pytest's own rewriting functions, which are not a public API: if a pytest version
moves them, nothing is written ahead, and the test processes rewrite as they always did.
"""

from __future__ import annotations

import compileall
import fnmatch
import re
from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return  # (a test process, or a run without xdist: it rewrites what it imports)
    compileall.compile_dir(Path(config.rootpath, "bot"), quiet=2)
    try:
        from _pytest.assertion.rewrite import (
            PYC_TAIL,
            _read_pyc,
            _rewrite_test,
            _write_pyc,
            assertstate_key,
            get_cache_dir,
            try_makedirs,
        )

        state = config.stash[assertstate_key]
    except (ImportError, KeyError):
        return
    patterns = [*config.getini("python_files"), "conftest.py"]
    tests = re.compile(r"(/test_[^/]*|/conftest)\.py$")  # (the test files: rewritten below)
    compileall.compile_dir(Path(config.rootpath, "tests"), quiet=2, rx=tests)
    for path in sorted(Path(config.rootpath, "tests").rglob("*.py")):
        if not any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns):
            continue
        cache = get_cache_dir(path)
        if not try_makedirs(cache):
            return  # (a read-only checkout: nothing can be kept)
        pyc = cache / (path.name[:-3] + PYC_TAIL)
        if _read_pyc(path, pyc, state.trace) is None:
            source_hash, code = _rewrite_test(path, config)
            _write_pyc(state, code, source_hash, pyc)
