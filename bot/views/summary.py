"""Group messages at the end of a hand and of a match."""

from __future__ import annotations

from collections.abc import Sequence

from bot.game import MatchConfig, Observation, observe
from bot.game.events import (
    EnvidoResolved,
    Event,
    FlorResolved,
    HandEnd,
    HandEnded,
    MatchEnded,
    Scored,
)
from bot.game.record import replay_hand
from bot.game.state import HandLog
from bot.i18n import Translator
from bot.views.common import Seating, cards_text, score_lines
from bot.views.table import _rounds


def points_lines(t: Translator, who: Seating, events: Sequence[Event]) -> list[str]:
    """The envido and flor values compared, and who scored what and why, in order."""
    lines = []
    for event in events:
        if isinstance(event, EnvidoResolved) and event.wanted:
            values = ", ".join(f"{who.seat(v.seat)} {v.value}" for v in event.values)
            lines.append(t("summary.envido_values", values=values))
        elif isinstance(event, FlorResolved) and event.values:
            values = ", ".join(f"{who.seat(v.seat)} {v.value}" for v in event.values)
            lines.append(t("summary.flor_values", values=values))
        elif isinstance(event, Scored):
            lines.append(
                t(
                    "summary.scored",
                    side=who.side(t, event.side),
                    points=event.points,
                    reason=t(f"score_reason.{event.reason.value}"),
                )
            )
    return lines


def hand_summary(
    t: Translator,
    who: Seating,
    ended: Observation,
    events: Sequence[Event],
    scores: bool = True,
) -> str:
    """What the hand was: the rounds, who scored what and why, the cards that prove it."""
    end = next((e for e in events if isinstance(e, HandEnded)), None)
    lines = [t("summary.title", number=ended.hand_number)]
    lines += _rounds(t, who, ended)
    lines += points_lines(t, who, events)
    if end is not None:
        if end.reason is not HandEnd.MATCH_OVER and end.winner is not None:
            lines.append(
                t(
                    f"summary.end.{end.reason.value}",
                    side=who.side(t, end.winner),
                    count=who.size(end.winner),
                )
            )
        for seat, shown in end.shown:
            lines.append(t("summary.shown", name=who.seat(seat), cards=cards_text(t, shown)))
    if scores:
        lines.append("")
        lines += score_lines(t, who, ended.scores, ended.config.target)
    return "\n".join(lines)


def hand_record(t: Translator, who: Seating, config: MatchConfig, log: HandLog) -> str:
    """A finished hand told from its log, replayed by the engine (every event of the hand,
    not only those of its last action)."""
    state, events = replay_hand(config, log)
    return hand_summary(t, who, observe(state), events, scores=False)


def match_summary(
    t: Translator,
    who: Seating,
    scores: Sequence[int],
    target: int,
    winner: int | None,
    conceded_by: int | None = None,
) -> str:
    lines = []
    if winner is not None:
        lines.append(t("match.winner", side=who.side(t, winner), count=who.size(winner)))
    if conceded_by is not None:
        lines.append(
            t("match.conceded", side=who.side(t, conceded_by), count=who.size(conceded_by))
        )
    lines.append("")
    lines += score_lines(t, who, scores, target)
    lines.append("")
    lines.append(t("match.again"))
    return "\n".join(lines)


def match_winner(events: Sequence[Event]) -> int | None:
    for event in events:
        if isinstance(event, MatchEnded):
            return event.winner
    return None
