"""Group messages at the end of a hand and of a match."""

from __future__ import annotations

from collections.abc import Sequence

from bot.game import MatchConfig, Observation, observe
from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS
from bot.game.events import (
    Chanted,
    EnvidoResolved,
    Event,
    FlorResolved,
    HandEnd,
    HandEnded,
    Scored,
    ScoreReason,
    WentToMazo,
)
from bot.game.record import replay_hand
from bot.game.state import HandLog
from bot.i18n import Translator
from bot.model.outcome import Outcome
from bot.views.common import Seating, card_short, cards_text, said_line, score_lines
from bot.views.table import _rounds


def _reason(t: Translator, who: Seating, event: Scored, events: Sequence[Event]) -> str:
    """Why points were scored, in the table's words: "retruco no querido", "vale cuatro
    querido", "envido, real envido", "Beto se fue al mazo en la primera ronda"."""
    reason = event.reason
    if reason is ScoreReason.HAND and event.points > 1:
        chant = TRUCO_CHANTS[min(event.points, 4) - 2]  # 2 truco, 3 retruco, 4 vale cuatro
        return t("score_reason.wanted", chant=t(f"chant.{chant.value}"))
    if reason is ScoreReason.TRUCO_NOT_WANTED and 1 <= event.points <= 3:
        chant = TRUCO_CHANTS[event.points - 1]  # 1 truco, 2 retruco, 3 vale cuatro
        return t("score_reason.not_wanted", chant=t(f"chant.{chant.value}"))
    envidos = [e.kind for e in events if isinstance(e, Chanted) and e.kind in ENVIDO_CHANTS]
    if reason is ScoreReason.ENVIDO_NOT_WANTED and envidos:
        return t("score_reason.not_wanted", chant=t(f"chant.{envidos[-1].value}"))
    if reason is ScoreReason.ENVIDO and envidos:
        return ", ".join(t(f"chant.{kind.value}") for kind in envidos)
    if reason is ScoreReason.MAZO:
        gone = next((e.seat for e in events if isinstance(e, WentToMazo)), None)
        if gone is not None:
            early = event.points == 2 and not any(
                isinstance(e, Chanted) and e.kind in TRUCO_CHANTS for e in events
            )
            key = "score_reason.mazo_early" if early else "score_reason.mazo_by"
            return t(key, name=who.seat(gone))
    return t(f"score_reason.{reason.value}")


def points_lines(t: Translator, who: Seating, events: Sequence[Event]) -> list[str]:
    """The envido and flor values compared, and who scored what and why, in order."""
    lines = []
    for event in events:
        if isinstance(event, EnvidoResolved) and event.wanted:
            values = said_line(t, who, [(w.seat, w.value) for w in event.values])
            lines.append(t("summary.envido_values", values=values))
        elif isinstance(event, FlorResolved) and event.values:
            values = said_line(t, who, [(w.seat, w.value) for w in event.values])
            lines.append(t("summary.flor_values", values=values))
        elif isinstance(event, Scored):
            lines.append(
                t(
                    "summary.scored",
                    side=who.side(t, event.side),
                    points=event.points,
                    reason=_reason(t, who, event, events),
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


def match_summary(t: Translator, who: Seating, outcome: Outcome, target: int) -> str:
    """The end of a match: who won it and how, and the final score."""
    lines = []
    if outcome.winner is not None:
        lines.append(
            t("match.winner", side=who.side(t, outcome.winner), count=who.size(outcome.winner))
        )
    if outcome.conceded and outcome.loser is not None:
        loser = outcome.loser
        lines.append(t("match.conceded", side=who.side(t, loser), count=who.size(loser)))
    lines.append("")
    lines += score_lines(t, who, outcome.scores, target)
    lines.append("")
    lines.append(t("match.again"))
    return "\n".join(lines)


def hand_result(
    t: Translator, who: Seating, config: MatchConfig, log: HandLog, proof: bool = False
) -> str:
    """A finished hand in one line: "🏁 Mano 3: Beto +2 (retruco no querido) · Ana +1
    (envido)"; with `proof`, followed by the cards that prove the values that scored."""
    _, events = replay_hand(config, log)
    by_side: dict[int, list[tuple[int, str]]] = {}  # a side named once: shorter on a phone
    for e in events:
        if isinstance(e, Scored):
            by_side.setdefault(e.side, []).append((e.points, _reason(t, who, e, events)))
    scored = []
    for side, parts in by_side.items():
        if len(parts) == 1:
            points, reason = parts[0]
        else:
            points = sum(p for p, _ in parts)
            reason = ", ".join(f"{r} +{p}" for p, r in parts)
        scored.append(t("summary.scored", side=who.side(t, side), points=points, reason=reason))
    text = t("hand.last_result", number=log.number, points=" · ".join(scored) or "—")
    end = next((e for e in events if isinstance(e, HandEnded)), None)
    if proof and end is not None and end.shown:
        shown = [
            t("summary.shown", name=who.seat(seat), cards=" ".join(card_short(c) for c in cards))
            for seat, cards in end.shown
        ]
        text += " · " + " · ".join(shown)
    return text
