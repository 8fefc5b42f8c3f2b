"""Views: what each eye may see, and texts and buttons within Telegram's limits."""

from __future__ import annotations

import random
import re

from bot.callbacks import unpack
from bot.game import MatchConfig, new_match, observe, random_deal
from bot.game.events import CardPlayed, HandEnded
from bot.i18n import translator
from bot.views.common import fosforos_text, seating
from bot.views.summary import hand_summary
from bot.views.table import board_markup, board_text, hand_markup, hand_text

CARD = re.compile(r"(1[0-2]|[1-7]) de (oro|copa|espada|basto)")
SUITS = {"oro": "o", "copa": "c", "espada": "e", "basto": "b"}


def mentioned(text: str) -> set[str]:
    return {f"{n}{SUITS[s]}" for n, s in CARD.findall(text)}


def test_fosforos_draw_squares_of_five_and_split_malas_and_buenas() -> None:
    assert fosforos_text(0, 30) == "·"
    assert fosforos_text(7, 30) == "⊠||"
    assert fosforos_text(15, 30) == "⊠⊠⊠"
    assert fosforos_text(21, 30) == "⊠⊠⊠ ┃ ⊠|"
    assert fosforos_text(16, 15) == "⊠⊠⊠|"


def test_no_view_shows_a_card_its_reader_may_not_see() -> None:
    t = translator("es")
    for players in (2, 4):
        who = seating(list(range(1, players + 1)), {i: f"<P{i}>" for i in range(1, players + 1)})
        for seed in range(40):
            rng = random.Random(seed)
            state = new_match(MatchConfig(players=players, target=15))
            public: set[str] = set()
            while not state.is_over:
                if state.needs_deal:
                    state.apply(random_deal(rng, players))
                    public = set()
                    continue
                assert state.hand is not None
                held = {s: {c.code for c in state.hand.held[s]} for s in range(players)}
                board = observe(state)
                text = board_text(t, who, board, [])
                assert mentioned(text) <= public, text
                assert "&lt;P1&gt;" in text and len(text) < 4096
                markup = board_markup(t, 1, board)
                for row in markup.inline_keyboard if markup else ():
                    for button in row:
                        assert unpack(button.callback_data) is not None  # type: ignore[arg-type]
                for seat in range(players):
                    obs = observe(state, seat)
                    mine = hand_text(t, who, obs, "x")
                    others = set().union(*(held[s] for s in range(players) if s != seat))
                    assert not mentioned(mine) & (others - public), mine
                    assert len(mine) < 4096
                    hand_markup(t, 1, obs, signs=players == 4)
                before = observe(state)
                events = state.apply(rng.choice(state.legal_actions()))
                for event in events:
                    if isinstance(event, CardPlayed):
                        public.add(event.card.code)
                    if isinstance(event, HandEnded):
                        shown = {c.code for _, cs in event.shown for c in cs}
                        summary = hand_summary(t, who, observe(state), events)
                        assert mentioned(summary) <= public | shown, summary
                del before
