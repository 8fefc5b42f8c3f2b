"""The end of a match, as the group and each player are told it."""

from __future__ import annotations

from bot.i18n import Translator
from bot.model.outcome import Outcome
from bot.views.common import Seating, score_lines


def match_summary(
    t: Translator, who: Seating, outcome: Outcome, target: int, again: bool = True
) -> str:
    """The end of a match: who won it and how, the final score (and, for the group, what to
    do next)."""
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
    if again:
        lines.append("")
        lines.append(t("match.again"))
    return "\n".join(lines)
