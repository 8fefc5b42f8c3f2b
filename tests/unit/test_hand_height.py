"""The private hand message at its tallest fits a phone (issue 72): at every step of random
matches of two, four and six with the longest names a view shows, its text is at most
`PAGE_LINES` phone lines (bench/board_lines.py measures it so); the end of the last hand is
still told at the deal, when the hand in play has room for it."""

from __future__ import annotations

import random

import pytest

from bot.game import MatchConfig, new_match, random_deal
from bot.game.ending import ended_hands
from bot.i18n import translator
from bot.model.table import Table, TableStatus
from bot.service.play import remember_calls
from bot.views.common import phone_lines, plain
from bot.views.pages import PAGE_LINES
from bot.views.scene import scene_of
from bot.views.table import hand_text

LONG = ("Valentina", "Maximiliano", "Florencia", "Bartolomé", "Guadalupe", "Sebastián")


@pytest.mark.parametrize("players", [2, 4, 6])
@pytest.mark.parametrize("flor", [True, False])
def test_every_hand_message_fits_a_phone(players: int, flor: bool) -> None:
    rng = random.Random(players * 10 + flor)
    t = translator("es")
    names = dict(enumerate(LONG[:players], start=1))
    tallest, told_at_deal = 0, 0
    for _ in range(25):
        config = MatchConfig(players=players, flor=flor)
        seats: list[int | None] = list(range(1, players + 1))
        table = Table(0, -1, 0, TableStatus.PLAYING, 1, config, seats, "es", 0.0, 0.0)
        table.seed = "0" * 64
        state = table.state = new_match(config)
        while not state.is_over:
            if state.needs_deal:
                events = state.apply(random_deal(rng, players))
            else:
                events = state.apply(rng.choice(state.legal_actions()))
            remember_calls(table, events)
            if state.needs_deal:
                continue
            if state.is_over:
                table.status = TableStatus.FINISHED
            ended = ended_hands(state)
            shown = ended[-2:] if state.is_over and ended and not ended[-1].rounds else ended[-1:]
            for seat in range(players):
                text = hand_text(t, scene_of(t, table, names, seat, shown))
                height = phone_lines(text)
                tallest = max(tallest, height)
                assert height <= PAGE_LINES, (height, plain(text))
                dealt = state.hand is not None and not state.hand.history
                if shown and dealt and not state.is_over:
                    assert "🏁" in text, plain(text)  # at the deal, the last hand's end is told
                    told_at_deal += 1
    assert told_at_deal > 0
    print(f"{players} players, flor {flor}: the tallest hand message {tallest} phone lines")
