"""The end of a hand, as the table saw it: every round with its cards and who won it, the last
card played, the values said, the cards that prove them, and every point the hand gave, with
its reason and whether it was scored during the hand (an envido, a flor) or at its end.

At a real table the cards stay on the felt a moment when a hand ends; here the next hand is
dealt in the same commit, so the front ends draw the end of the hand from this value
(`MatchState.ending()`), built by replaying the hand's log. All of it is public.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS, Action, ActionKind
from bot.game.cards import Card
from bot.game.events import (
    CardPlayed,
    Chanted,
    EnvidoResolved,
    FlorResolved,
    HandEnd,
    HandEnded,
    RoundWon,
    Said,
    Scored,
    ScoreReason,
    WentToMazo,
)
from bot.game.record import replay_hand
from bot.game.state import RECENT_HANDS, HandLog, MatchConfig, MatchState

DURING = (
    ScoreReason.ENVIDO,
    ScoreReason.ENVIDO_NOT_WANTED,
    ScoreReason.FLOR,
    ScoreReason.FLOR_CONTEST,
    ScoreReason.FLOR_ACHICO,
    ScoreReason.FLOR_NOT_WANTED,
)


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """One round: its cards in the order played, and the seat whose card won it (None for a
    parda, or a round the hand ended before finishing)."""

    plays: tuple[tuple[int, Card], ...]
    winner: int | None
    parda: bool

    @property
    def complete(self) -> bool:
        return self.winner is not None or self.parda


@dataclass(frozen=True, slots=True)
class Points:
    """Points a side took in the hand. `during`: scored the moment it was decided (an envido,
    a flor), not when the hand ended. `chants`: the chants it answered (the envido's chain, or
    the truco chant wanted or refused), for the words that say why."""

    side: int
    points: int
    reason: ScoreReason
    during: bool
    chants: tuple[ActionKind, ...] = ()
    seat: int | None = None  # a mazo: who went
    wanted: int = 0  # the truco level wanted when the hand ended (0: none)


@dataclass(frozen=True, slots=True)
class HandEnding:
    number: int
    dealer: int
    mano: int
    rounds: tuple[RoundEnd, ...]
    last: tuple[int, Card] | None  # the last card played in the hand
    how: HandEnd
    winner: int | None  # the side the hand's end gave its points (None: the match ended first)
    points: tuple[Points, ...]  # in the order they were scored
    envido_said: tuple[Said, ...]
    flor_said: tuple[Said, ...]
    shown: tuple[tuple[int, tuple[Card, ...]], ...]  # the cards that prove the values that won
    start_scores: tuple[int, int]
    end_scores: tuple[int, int]
    calls: tuple[Action, ...]  # every chant, answer and mazo, in order
    duel: int | None = None  # a pica-pica hand's duel (R39): its end is one of three

    @property
    def deciding(self) -> RoundEnd | None:
        """The round that decided the hand, when rounds decided it (the last one played)."""
        if self.how is not HandEnd.ROUNDS or not self.rounds:
            return None
        return self.rounds[-1]

    def by_side(self, side: int) -> int:
        return sum(p.points for p in self.points if p.side == side)


def ended_hands(state: MatchState) -> tuple[HandEnding, ...]:
    """The hands that ended last, oldest first (`RECENT_HANDS` at most): the hands before the
    one in play, and the hand the match ended in."""
    logs = state.recent_hands
    h = state.hand
    if state.is_over and h is not None:
        logs = (*logs, HandLog.of(h))
    return tuple(ending_of(state.config, log) for log in logs[-RECENT_HANDS:])


def last_ended(state: MatchState) -> HandEnding | None:
    """The hand that ended last (the match's last hand, once it is over)."""
    ended = ended_hands(state)
    return ended[-1] if ended else None


@lru_cache(maxsize=4096)
def ending_of(config: MatchConfig, log: HandLog) -> HandEnding:
    """The end of the hand `log` records (replayed by the engine; remembered, as every front
    end draws the same hands' ends again and again)."""
    state, events = replay_hand(config, log)
    rounds: list[RoundEnd] = []
    current: list[tuple[int, Card]] = []
    last: tuple[int, Card] | None = None
    points: list[Points] = []
    envido: tuple[Said, ...] = ()
    flor: tuple[Said, ...] = ()
    how: HandEnd = HandEnd.MATCH_OVER
    winner: int | None = None
    shown: tuple[tuple[int, tuple[Card, ...]], ...] = ()
    chants: list[ActionKind] = []
    envidos: list[ActionKind] = []
    mazo: int | None = None
    for event in events:
        if isinstance(event, CardPlayed):
            current.append((event.seat, event.card))
            last = (event.seat, event.card)
        elif isinstance(event, RoundWon):
            rounds.append(RoundEnd(tuple(current), event.seat, event.side is None))
            current = []
        elif isinstance(event, Chanted):
            if event.kind in TRUCO_CHANTS:
                chants.append(event.kind)
            elif event.kind in ENVIDO_CHANTS:
                envidos.append(event.kind)
        elif isinstance(event, WentToMazo):
            mazo = event.seat
        elif isinstance(event, EnvidoResolved) and event.wanted:
            envido = event.values
        elif isinstance(event, FlorResolved) and event.values:
            flor = event.values
        elif isinstance(event, Scored):
            why: tuple[ActionKind, ...] = ()
            if event.reason in (ScoreReason.ENVIDO, ScoreReason.ENVIDO_NOT_WANTED):
                why = tuple(envidos)
            elif event.reason in (ScoreReason.TRUCO_NOT_WANTED, ScoreReason.HAND, ScoreReason.MAZO):
                why = tuple(chants)
            seat = mazo if event.reason is ScoreReason.MAZO else None
            during = event.reason in DURING
            points.append(Points(event.side, event.points, event.reason, during, why, seat))
        elif isinstance(event, HandEnded):
            how, winner, shown = event.reason, event.winner, event.shown
    if current:
        rounds.append(RoundEnd(tuple(current), None, False))
    hand = state.hand
    assert hand is not None
    # (the truco level wanted is known once the hand is over: the points of its end say it)
    level = hand.truco_level
    points = [
        p if p.during else Points(p.side, p.points, p.reason, False, p.chants, p.seat, level)
        for p in points
    ]
    if how is HandEnd.MATCH_OVER:
        winner = None
    calls = tuple(a for a in log.history if a.kind is not ActionKind.PLAY)
    return HandEnding(
        log.number, log.dealer, hand.mano, tuple(rounds), last, how, winner, tuple(points),
        envido, flor, shown, log.start_scores, (state.scores[0], state.scores[1]), calls,
        log.duel,
    )  # fmt: skip
