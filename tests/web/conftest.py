"""The web table under test: the local try-out served in this process, and Debian's Chromium
driven by Playwright (its own browser download is never used).

One Chromium per test process, a fresh browser context per test: a browser's objects belong to
the event loop that launched it, so a test using `browser` (and its other async fixtures) runs
on the process's session loop instead of a loop of its own."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, async_playwright

from bot.config import Settings
from bot.web.local import run_local

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"  # screenshots (not in git)
# Debian's headless shell when it is there (.ci/run installs it): the same Blink without the
# browser's own windows, and about half the CPU of `chromium --headless` for the same test
# (docs/performance.md, "The test suite"); Chromium itself otherwise.
CHROMIUM = (
    os.environ.get("TRUCO_CHROMIUM")
    or shutil.which("chromium-headless-shell")
    or shutil.which("chromium")
    or "/usr/bin/chromium"
)
HAVE_CHROMIUM = Path(CHROMIUM).exists()


def local_settings(database: Path | str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "mode": "local",
        "database": database,
        "web_port": 0,  # any free port
        "bot_delay": 0,
        "ai_workers": 0,
        "seed": 11,
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@pytest.fixture
async def local_url(tmp_path: Path) -> AsyncIterator[str]:
    stop = asyncio.Event()
    port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(
        run_local(local_settings(tmp_path / "local.db"), stop, ready=port.set_result)
    )
    try:
        yield f"http://127.0.0.1:{await asyncio.wait_for(port, 30)}"
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)


@pytest.fixture
def _function_scoped_runner(
    _function_scoped_runner: asyncio.Runner, request: pytest.FixtureRequest
) -> asyncio.Runner:
    """pytest-asyncio's runner of a test's loop: the session's for a test with a browser (the
    browser was launched on it), a loop of the test's own otherwise."""
    if "browser" in request.node.fixturenames:
        runner: asyncio.Runner = request.getfixturevalue("_session_scoped_runner")
        return runner
    return _function_scoped_runner


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def chromium() -> AsyncIterator[Browser]:
    """Chromium, launched once per test process."""
    if not HAVE_CHROMIUM:
        raise RuntimeError(f"no Chromium at {CHROMIUM}: apt-get install chromium (see .ci/run)")
    async with async_playwright() as p:
        launched = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            await launched.close()


@pytest.fixture
async def browser(chromium: Browser) -> AsyncIterator[Browser]:
    """The process's Chromium; whatever contexts (windows, cookies, storage) a test opens are
    closed after it, so the next test starts from none."""
    yield chromium
    for context in list(chromium.contexts):
        await context.close()
