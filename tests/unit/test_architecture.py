"""Seats are the engine's to know (`bot.game.seats`): nothing outside it does arithmetic on seat
numbers or assumes a table of four, so 2, 4 and 6 seats are one code path everywhere."""

from __future__ import annotations

import re
from pathlib import Path

BOT = Path(__file__).resolve().parents[2] / "bot"
# Seat arithmetic: "% 4", "range(4)", "players == 4" (and "!= 4", "=== 4" in the page's
# script), "(seat + 2)" and the like.
FOUR_SEATS = re.compile(
    r"%\s*4\b|range\(4\)|players\s*[!=]==?\s*4\b|\(\s*[\w.]*seat\s*\+\s*[123]\s*\)|\bfour\s*="
)


def test_nothing_outside_the_engine_assumes_four_seats() -> None:
    found = []
    for path in sorted([*BOT.rglob("*.py"), *BOT.rglob("*.js")]):
        if path.is_relative_to(BOT / "game"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0] if path.suffix == ".py" else line.split("//", 1)[0]
            if FOUR_SEATS.search(code):
                found.append(f"{path.relative_to(BOT.parent)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_pattern_finds_what_it_is_for() -> None:
    for line in [
        "partner = (seat + 2) % 4",
        "if table.config.players == 4:",
        "for s in range(4):",
        "const teams = t.players === 4 ? [0, 1] : [null];",
        "rival = (change.seat + 1)",
    ]:
        assert FOUR_SEATS.search(line), line
    for line in ["for side in SIDES:", "partners = table.geometry.partners(seat)", "x = 40 % 7"]:
        assert not FOUR_SEATS.search(line), line
