"""A match told hand by hand, rebuilt from its action log with the engine itself.

The hand record on the board, `/partida`, the JSON export and `/verificar` all come from here, so
they can only say what the engine would compute again from the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.game.actions import AnyAction, Deal
from bot.game.events import Event
from bot.game.state import HandLog, MatchConfig, MatchState


def replay_hand(config: MatchConfig, log: HandLog) -> tuple[MatchState, list[Event]]:
    """Play one hand again from its log: the state at its end and every event it caused."""
    state = MatchState(config)
    state.scores = list(log.start_scores)
    state.hand_number = log.number - 1
    # `_deal` moves the dealer on from the second hand (R3): start one seat back.
    state.dealer = log.dealer if log.number == 1 else (log.dealer - 1) % config.players
    # the kind of hand recorded: a redondo, or the duel of a pica-pica hand (R39)
    events = state.deal_as(Deal(log.dealt), log.duel)
    for action in log.history:
        events += state.apply(action)
    return state, events


@dataclass
class HandRecord:
    """One hand of a finished (or running) match."""

    log: HandLog
    events: list[Event] = field(default_factory=list)
    end_scores: tuple[int, int] = (0, 0)


def hands_of(config: MatchConfig, log: Sequence[AnyAction]) -> tuple[MatchState, list[HandRecord]]:
    """Replay a whole match: its final state and its hands in order."""
    state = MatchState(config)
    hands: list[HandRecord] = []
    for action in log:
        before = state.hand
        events = state.apply(action)
        scores = (state.scores[0], state.scores[1])
        if isinstance(action, Deal):
            assert state.hand is not None
            hands.append(HandRecord(HandLog.of(state.hand), events, scores))
            continue
        assert hands and before is not None, "an action log starts with a deal"
        current = hands[-1]
        current.events += events
        current.log = HandLog.of(before)
        current.end_scores = scores
        if state.hand is not before and state.hand is not None:  # a pica-pica hand's next duel
            hands.append(HandRecord(HandLog.of(state.hand), [], scores))
    return state, hands
