"""Stopping the bot while its sweep job is due: nothing is logged as an error."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import harness_with
from tests.fakebot import FakeTelegram


async def test_stopping_while_the_sweep_is_due_logs_no_error(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    # A sweep every millisecond: each stop lands while a sweep is running or about to start
    # (the scheduler used to start one between waiting for the running jobs and shutting down,
    # and cancelled it before its first step: "Error running job" in the log).
    errors: list[str] = []
    for _ in range(15):
        async with harness_with(fake, tmp_path / "truco.db", timer_tick=0.001) as h:
            await h.until(lambda: h.app.bot_data.get("sweeps", 0) >= 3)
            errors_handler = h.errors
        errors += [r.getMessage() for r in errors_handler.records]
    assert errors == []
