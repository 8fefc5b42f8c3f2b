"""A player's numbers in one match, computed by replaying its action log with the engine."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, fields

from bot.game import ActionKind, Deal, MatchConfig, envido_value, new_match, parse_any, side_of
from bot.game.actions import TRUCO_CHANTS
from bot.game.events import (
    Chanted,
    EnvidoResolved,
    HandDealt,
    HandEnded,
    WentToMazo,
)


@dataclass(frozen=True)
class PlayerMatchStats:
    envidos_wanted: int = 0  # wanted envidos in which this player's side took part
    envidos_won: int = 0  # ... and that the side won
    best_envido: int = 0  # the best envido the player held in a hand whose envido was played
    flores: int = 0  # flores the player declared
    trucos_chanted: int = 0  # truco, retruco and vale cuatro the player chanted
    trucos_won: int = 0  # ... in hands the player's side won
    mazos: int = 0  # times the player went to the mazo
    points_for: int = 0
    points_against: int = 0

    def as_row(self) -> tuple[int, ...]:
        return tuple(getattr(self, f.name) for f in fields(self))


STAT_NAMES = tuple(f.name for f in fields(PlayerMatchStats))


def match_stats(config: MatchConfig, log: Sequence[str]) -> list[PlayerMatchStats]:
    """Stats per seat. The log may stop before the match's end (a concession)."""
    state = new_match(config)
    seats: list[Counter[str]] = [Counter() for _ in range(config.players)]
    trucos_this_hand: list[int] = []
    envidos: list[int] = [0] * config.players  # each seat's envido in the hand dealt
    for code in log:
        action = parse_any(code)
        if isinstance(action, Deal):  # (a flor hand's envido is no envido played: below)
            envidos = [envido_value(hand) for hand in action.hands]
        for event in state.apply(action):
            if isinstance(event, HandDealt):
                trucos_this_hand = []
            elif isinstance(event, Chanted):
                if event.kind in TRUCO_CHANTS:
                    seats[event.seat]["trucos_chanted"] += 1
                    trucos_this_hand.append(event.seat)
                elif event.kind is ActionKind.FLOR:
                    seats[event.seat]["flores"] += 1
            elif isinstance(event, EnvidoResolved) and event.wanted:
                for seat, stats in enumerate(seats):
                    stats["envidos_wanted"] += 1
                    stats["envidos_won"] += side_of(seat) == event.winner
                for seat in {said.seat for said in event.values}:  # (the seats that took part)
                    seats[seat]["best_envido"] = max(seats[seat]["best_envido"], envidos[seat])
            elif isinstance(event, WentToMazo):
                seats[event.seat]["mazos"] += 1
            elif isinstance(event, HandEnded) and event.winner is not None:
                for seat in trucos_this_hand:
                    seats[seat]["trucos_won"] += side_of(seat) == event.winner
    for seat, stats in enumerate(seats):
        stats["points_for"] = state.scores[side_of(seat)]
        stats["points_against"] = state.scores[1 - side_of(seat)]
    return [PlayerMatchStats(**stats) for stats in seats]
