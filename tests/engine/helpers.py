"""Small scripting helpers for engine tests: hands and actions written as table talk codes."""

from __future__ import annotations

from dataclasses import replace

from bot.game import Action, Deal, MatchConfig, MatchState, cards, new_match
from bot.game.events import Event


def deal_of(hands: str) -> Deal:
    """`"3e 7c 6c | 2o 1b 4b"`: seat 0's cards, then seat 1's, ..."""
    return Deal(tuple(cards(part) for part in hands.split("|")))


def start(
    hands: str,
    config: MatchConfig | None = None,
    scores: tuple[int, int] = (0, 0),
) -> MatchState:
    """A match whose first hand is `hands`, with the scores set as given."""
    config = replace(config or MatchConfig(), players=hands.count("|") + 1)
    state = new_match(config)
    state.scores = list(scores)
    state.apply(deal_of(hands))
    return state


def do(state: MatchState, *codes: str) -> list[Event]:
    """Apply actions written as `0:e`, `1:q`, `0:p:3e`; return every event they caused."""
    events: list[Event] = []
    for code in codes:
        events.extend(state.apply(Action.parse(code)))
    return events


def codes(state: MatchState, seat: int | None = None) -> set[str]:
    return {a.code for a in state.legal_actions() if seat is None or a.seat == seat}
