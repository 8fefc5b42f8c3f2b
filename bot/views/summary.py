"""The end of a match, as the group and each player are told it: who won, the score, and how
(the last hand's decisive line: "Con la falta envido querida, 33 a 31, en la mano 12.")."""

from __future__ import annotations

from collections.abc import Sequence

from bot.game import MatchState
from bot.game.actions import TRUCO_CHANTS, ActionKind
from bot.game.ending import HandEnding, Points, last_ended
from bot.game.events import Said, ScoreReason
from bot.game.seats import side_of
from bot.i18n import Translator
from bot.model.outcome import Outcome
from bot.model.table import Table
from bot.views.common import Seating, both, mark_first, score_lines
from bot.views.ending import decided_text, reason_text

K = ActionKind


def decisive(ending: HandEnding, winner: int, target: int) -> Points | None:
    """The points of the last hand that took the winner to the match's points."""
    score = ending.start_scores[winner]
    for points in ending.points:
        if points.side != winner:
            continue
        score += points.points
        if score >= target:
            return points
    return None


def _best(said: Sequence[Said], side: int) -> int | None:
    values = [w.value for w in said if side_of(w.seat) == side and w.value is not None]
    return max(values) if values else None


def _chain(t: Translator, chants: Sequence[ActionKind]) -> str:
    return both(t, [t(f"chant.{kind.value}") for kind in chants])


def how_it_ended(
    t: Translator,
    who: Seating,
    state: MatchState | None,
    outcome: Outcome,
    target: int,
    reader: int | None = None,
) -> str | None:
    """How the match was won, in a line: the points of its last hand that decided it, with
    the values that won them or the round that did ("Con el truco querido, en la mano 9: 3ª
    Ana 1🗡️ mata 3🍷."), or who left it; with `reader` (a player's own end), what they did
    said to them ("Porque te fuiste al mazo", "3ª tu 1🗡️ mata 3🍷")."""
    if outcome.winner is None:
        return None
    if outcome.conceded and outcome.loser is not None:
        scores = outcome.scores
        return t(
            "how.conceded",
            side=who.side(t, outcome.loser),
            count=who.size(outcome.loser),
            lost=scores[outcome.loser],
            won=scores[outcome.winner],
        )
    ending = last_ended(state) if state is not None else None
    points = decisive(ending, outcome.winner, target) if ending is not None else None
    if ending is None or points is None:
        return None
    reason = points.reason
    values: tuple[int | None, int | None] | None = None
    decided: str | None = None
    if reason is ScoreReason.ENVIDO and points.chants:
        falta = points.chants[-1] is K.FALTA_ENVIDO
        how = t("how.falta_wanted") if falta else t("how.wanted", chant=_chain(t, points.chants))
        said = ending.envido_said
        values = (_best(said, outcome.winner), _best(said, 1 - outcome.winner))
    elif reason is ScoreReason.ENVIDO_NOT_WANTED and points.chants:
        falta = points.chants[-1] is K.FALTA_ENVIDO
        chant = t(f"chant.{points.chants[-1].value}")
        how = t("how.falta_not_wanted") if falta else t("how.not_wanted", chant=chant)
    elif reason in (ScoreReason.FLOR, ScoreReason.FLOR_CONTEST):
        how = t(f"how.{reason.value}")
        said = ending.flor_said
        values = (_best(said, outcome.winner), _best(said, 1 - outcome.winner))
    elif reason is ScoreReason.HAND:
        decided = decided_text(t, who, ending, reader)
        if points.points <= 1:  # ("mano" once, the hand's: "Ganando la mano 17: 2ª …")
            if decided is None:
                return t("how.hand_only", number=ending.number)
            return t("how.hand_round", number=ending.number, decided=decided)
        chant = TRUCO_CHANTS[min(points.points, 4) - 2]  # 2 truco, 3 retruco, 4 vale cuatro
        how = t("how.wanted", chant=t(f"chant.{chant.value}"))
    elif reason is ScoreReason.TRUCO_NOT_WANTED and points.chants:
        how = t("how.not_wanted", chant=t(f"chant.{points.chants[-1].value}"))
    elif reason is ScoreReason.MAZO:
        how = t("how.because", reason=reason_text(t, who, points, reader))
    elif reason in (ScoreReason.FLOR_ACHICO, ScoreReason.FLOR_NOT_WANTED):
        how = t(f"how.{reason.value}")
    else:
        how = t("how.because", reason=reason_text(t, who, points, reader))
    number = ending.number
    if values is not None and values[0] is not None:
        if values[1] is None:
            told = t("how.values_good", won=values[0])
        else:
            told = t("how.values", won=values[0], lost=values[1])
        return t("how.line_values", how=how, values=told, number=number)
    if decided is not None:
        return t("how.line_round", how=how, number=number, decided=decided)
    return t("how.line", how=how, number=number)


def match_summary(
    t: Translator,
    who: Seating,
    outcome: Outcome,
    target: int,
    again: bool = True,
    state: MatchState | None = None,
) -> str:
    """The group's end of a match: who beat whom and the score, how it was won, the final
    score in fósforos (and, with `again`, what to do next)."""
    lines = []
    winner = outcome.winner
    if winner is not None and outcome.conceded:  # the score says little: who left says it
        lines.append(t("match.winner", side=who.side(t, winner), count=who.size(winner)))
    elif winner is not None:
        loser = 1 - winner
        scores = outcome.scores
        lines.append(
            t(
                "match.beat",
                side=who.side(t, winner),
                other=who.side(t, loser),
                count=who.size(winner),
                won=scores[winner],
                lost=scores[loser],
            )
        )
    how = how_it_ended(t, who, state, outcome, target)
    if how:
        lines.append(how)
    lines += score_lines(t, who, outcome.scores, target)
    if again:
        lines.append("")
        lines.append(t("match.again"))
    return mark_first("\n".join(lines), who)


def group_ending(
    t: Translator, who: Seating, outcome: Outcome, table: Table, league: str | None
) -> str:
    """The group's message at the end of a match (at most 12 lines on a phone): who beat
    whom and the score, how, the score in fósforos, the league said once for all, and the
    command that shows the seed and checks every deal (the seed itself is 64 characters:
    three lines of a phone that nobody reads)."""
    text = match_summary(t, who, outcome, table.config.target, again=False, state=table.state)
    tail = [league] if league else []
    if table.seed is not None:
        tail.append(t("fair.check", number=table.id))
    return text + ("\n\n" + "\n".join(tail) if tail else "")


def private_ending(
    t: Translator,
    who: Seating,
    outcome: Outcome,
    side: int,
    seat: int,
    state: MatchState | None,
    next_step: str | None = None,
) -> str:
    """A player's own end of the match, said to them ("🏆 ¡Ganaste 30 a 21!", "🥈 Perdiste 21
    a 30."), how it was won, the final score; `next_step` (a tournament's: where they go
    now) closes it."""
    target = state.config.target if state is not None else 0
    scores = outcome.scores
    partners = [who.seat(s) for s in who.table.of_side(side) if s != seat]
    mine, theirs = scores[side], scores[1 - side]
    if outcome.winner is None:
        head = t("match.cancelled")
    else:
        key = "match.you_won" if outcome.winner == side else "match.you_lost"
        key += "_with" if partners else ""
        key += "_left" if outcome.conceded else ""  # (the score then says little)
        team = both(t, [t("match.you"), *partners])  # "vos y Caro", "vos, Caro y Eva"
        head = t(key, team=team, mine=mine, theirs=theirs)
    lines = [head]
    if outcome.conceded and outcome.seat == seat:
        lines.append(t("how.you_left", mine=mine, theirs=theirs))
    else:
        how = how_it_ended(t, who, state, outcome, target, reader=seat)
        if how:
            lines.append(how)
    if target:
        lines += score_lines(t, who, outcome.scores, target)
    if next_step:
        lines += ["", next_step]
    return mark_first("\n".join(lines), who)
