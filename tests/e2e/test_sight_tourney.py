"""A tournament night to follow (issue 47): the bracket shows each match in play with its live
score, the final's start is told in the group, and each player's private end of a match says
their next step in the tournament."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.views.common import plain
from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.test_tournaments import play_tournament, sign_up, tourney_message
from tests.fakebot import FakeTelegram

NAMES = ["Ana", "Beto", "Caro", "Dani"]
LIVE = re.compile(r"⚔️ (\w+) (\d+)–(\d+) (\w+)$", re.M)


@pytest.fixture
async def on_sqlite(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[Harness]:
    async with harness_with(fake, tmp_path / "t.db") as h:
        yield h
        assert [r.getMessage() for r in h.errors.records] == []


async def test_a_knockout_of_four_followed_from_the_group_and_each_chat(
    on_sqlite: Harness,
) -> None:
    h = on_sqlite
    users = [h.user(301 + i, name) for i, name in enumerate(NAMES)]
    message = await sign_up(h, users, "15")
    await users[0].tap(GROUP, message.message_id, "▶️ Empezar")
    await h.settle()
    bracket = tourney_message(h)
    t = await play_tournament(h, users, seed=11)
    assert t.champion is not None

    # the bracket was edited with each match's live score as it went
    shown = [plain(x) for x in h.fake.messages[GROUP][bracket.message_id].history]
    scores = [m.groups() for x in shown for m in LIVE.finditer(x)]
    assert scores, shown
    assert any(int(x) + int(y) > 0 for _, x, y, _ in scores), scores
    final_pair = {
        NAMES[u - 301]
        for e in (t.fixture(1, 0).a, t.fixture(1, 0).b)  # type: ignore[union-attr]
        for u in t.entries[e or 0]
    }
    assert any({a, b} == final_pair for a, _, _, b in scores), (final_pair, scores)

    # the group was told the final started
    group = [plain(x) for x in h.fake.texts(GROUP)]
    started = [x for x in group if x.startswith("🔥 Empieza la final")]
    assert len(started) == 1, group
    assert all(name in started[0] for name in final_pair), started

    # each player's own end of a match says what comes next
    champion = NAMES[t.entries[t.champion][0] - 301]
    runner_up = (final_pair - {champion}).pop()
    for index, name in enumerate(NAMES):
        chat = [plain(x) for x in h.fake.texts(301 + index)]
        ends = [x for x in chat if "¡Ganaste" in x or "Perdiste" in x]
        steps = "\n".join(ends)
        if name == champion:  # (told once that they won it: the champion's own notice)
            assert "Pasás a la final" in steps, steps
            assert sum("¡Ganaste el torneo" in x for x in chat) == 1, chat
        elif name == runner_up:
            assert "Pasás a la final" in steps and "🥈 Segundo puesto" in steps, steps
        else:
            assert "Quedaste afuera en semifinales" in steps, steps
    # each match's notice says who the player meets, to them: the rival, not their own name
    for index, name in enumerate(NAMES):
        notices = [plain(x) for x in h.fake.texts(301 + index) if "Tu partido del torneo" in x]
        assert notices and all(name not in x for x in notices), notices
        met = {n for n in NAMES if n != name and any(n in x for x in notices)}
        assert 1 <= len(met) <= 2, notices
    if __import__("os").environ.get("TRUCO_SHOW"):
        print("\n---\n".join(plain(text) for _, text in h.fake.timeline[GROUP]))
        champion_chat = t.entries[t.champion][0]
        print("\n---\n".join(plain(x) for x in h.fake.texts(champion_chat) if "Ganaste" in x))
