"""The end of a hand in words: the round that decided it ("2ª Beto 3🗡️ mata 11🗡️"), every point
it gave with its reason, the values said and the cards that prove them.

Every point is explained where it happens: an envido or a flor says its points on its own line
of the betting the moment they are scored ("Envido: … → Ana +2"), and the hand's record says
them again as already counted ("Ana ya sumó 2 (envido querido)"), next to the points the
hand's end gave ("Beto +2 (truco querido)"). So whichever versions of a message a player sees,
the score never moves without a line on the same screen that says why, to the point.
"""

from __future__ import annotations

from functools import lru_cache

from bot.game.actions import TRUCO_CHANTS
from bot.game.cards import Card
from bot.game.ending import HandEnding, Points, RoundEnd
from bot.game.events import ScoreReason
from bot.game.seats import side_of
from bot.i18n import Translator, translator
from bot.views.common import Seating, both, card_short, said_line

ROUND_NAMES = ("round.1", "round.2", "round.3")


def round_name(t: Translator, index: int) -> str:
    return t(ROUND_NAMES[index])


def decided_text(
    t: Translator, who: Seating, ending: HandEnding, reader: int | None = None
) -> str | None:
    """How rounds decided the hand: the last round's winning card over the best card of the
    other side ("2ª Beto 3🗡️ mata 11🗡️"), or the parda that left it to an earlier round;
    with `reader` (a player's own end of the match), what is theirs said to them ("2ª tu
    3🗡️ mata 11🗡️", "mata tu 11🗡️")."""
    last = ending.deciding
    if last is None or not last.plays:
        return None
    index = len(ending.rounds) - 1
    name = round_name(t, index)
    if last.parda:
        cards = " · ".join(card_short(c) for _, c in last.plays)
        first = next((r for r in ending.rounds if r.winner is not None), None)
        if first is not None and first.winner is not None:
            if first.winner == reader:
                return t("ending.parda_first_you", round=name, cards=cards)
            return t("ending.parda_first", round=name, cards=cards, name=who.seat(first.winner))
        if ending.mano == reader:
            return t("ending.pardas_you", round=name, cards=cards)
        return t("ending.pardas", round=name, cards=cards, name=who.seat(ending.mano))
    assert last.winner is not None
    beaten = _best_against(last, last.winner)
    card = card_short(next(c for s, c in last.plays if s == last.winner))
    mine = last.winner == reader
    if beaten is None:
        if mine:
            return t("ending.won_round_you", round=name, card=card)
        return t("ending.won_round", round=name, name=who.seat(last.winner), card=card)
    seat, other = beaten[0], card_short(beaten[1])
    if mine:
        return t("ending.kills_you", round=name, card=card, other=other)
    if seat == reader:
        return t("ending.kills_yours", round=name, name=who.seat(last.winner), card=card,
                 other=other)  # fmt: skip
    return t("ending.kills", round=name, name=who.seat(last.winner), card=card, other=other)


def _best_against(round_: RoundEnd, winner: int) -> tuple[int, Card] | None:
    """The best card the other side played in the round, and whose it was."""
    theirs = [(s, c) for s, c in round_.plays if side_of(s) != side_of(winner)]
    return max(theirs, key=lambda sc: sc[1].strength) if theirs else None


def reason_text(t: Translator, who: Seating, points: Points, reader: int | None = None) -> str:
    """Why points were scored, in the table's words: "truco querido", "ganó la mano",
    "envido y real envido querido", "Beto se fue al mazo con el truco querido" (to the one who
    left, with `reader`: "te fuiste al mazo con el truco querido")."""
    reason = points.reason
    chants = points.chants
    if reason is ScoreReason.HAND:
        if points.points <= 1:
            return t("score_reason.hand")
        chant = TRUCO_CHANTS[min(points.points, 4) - 2]  # 2 truco, 3 retruco, 4 vale cuatro
        return t("score_reason.wanted", chant=t(f"chant.{chant.value}"))
    if reason is ScoreReason.TRUCO_NOT_WANTED and chants:
        return t("score_reason.not_wanted", chant=t(f"chant.{chants[-1].value}"))
    if reason is ScoreReason.ENVIDO and chants:
        names = both(t, [t(f"chant.{kind.value}") for kind in chants])
        return t("score_reason.wanted", chant=names)
    if reason is ScoreReason.ENVIDO_NOT_WANTED and chants:
        return t("score_reason.not_wanted", chant=t(f"chant.{chants[-1].value}"))
    if reason is ScoreReason.MAZO and points.seat is not None:
        name = who.seat(points.seat)
        you = "_you" if points.seat == reader else ""  # (the one who left reads it so)
        if points.wanted:
            wanted = TRUCO_CHANTS[points.wanted - 1]
            return t(f"score_reason.mazo_wanted{you}", name=name,
                     chant=t(f"chant.{wanted.value}"))  # fmt: skip
        if chants:  # it left with a truco waiting: as not wanted (R23)
            return t(f"score_reason.mazo_refused{you}", name=name,
                     chant=t(f"chant.{chants[-1].value}"))  # fmt: skip
        if points.points == 2:
            return t(f"score_reason.mazo_early{you}", name=name)
        return t(f"score_reason.mazo_by{you}", name=name)
    return t(f"score_reason.{reason.value}")


def points_texts(t: Translator, who: Seating, ending: HandEnding) -> list[str]:
    """Each side's points, those of the hand's end first ("Beto +2 (truco querido)"), then those
    counted during the hand ("Ana ya sumó 2 (envido querido)"), a side named once each way."""
    out = []
    for during in (False, True):
        for side in (0, 1):
            mine = [p for p in ending.points if p.side == side and p.during == during]
            if not mine:
                continue
            total = sum(p.points for p in mine)
            if len(mine) == 1:
                why = reason_text(t, who, mine[0])
            else:
                why = ", ".join(f"{reason_text(t, who, p)} +{p.points}" for p in mine)
            key = "ending.counted" if during else "ending.scored"
            out.append(t(key, side=who.short(t, side), count=who.size(side), points=total,
                         reason=why))  # fmt: skip
    return out


def record_lines(t: Translator, who: Seating, ending: HandEnding, proof: bool = True) -> list[str]:
    """A finished hand in one line (as short on a phone as it can be): its number, the round
    that decided it, the points with their reasons and, with `proof`, the cards that prove the
    values that won. (Remembered: every message of the table draws it again at every edit.)"""
    return list(_record(t.language, who.names, ending, proof))


@lru_cache(maxsize=4096)
def _record(language: str, names: tuple[str, ...], ending: HandEnding, proof: bool) -> tuple[str]:
    t, who = translator(language), Seating(names)
    head = (
        t("ending.head", number=ending.number)
        if ending.duel is None
        else t("ending.head_duel", number=ending.number, duel=ending.duel + 1)
    )
    decided = decided_text(t, who, ending)
    parts = points_texts(t, who, ending) or ["—"]
    if proof:
        parts += [
            t("summary.shown", name=who.seat(seat), cards=" ".join(card_short(c) for c in cards))
            for seat, cards in ending.shown
        ]
    if decided is not None:  # (none when a mazo, a no quiero or the match's last point ended it)
        parts.insert(0, decided)
    return (f"{head}: {' · '.join(parts)}",)


def said_lines(t: Translator, who: Seating, ending: HandEnding) -> list[str]:
    """The values said in the hand (R19), as the table heard them."""
    lines = []
    if ending.envido_said:
        values = said_line(t, who, [(w.seat, w.value) for w in ending.envido_said])
        lines.append(t("call.envido_values", values=values))
    if ending.flor_said:
        values = said_line(t, who, [(w.seat, w.value) for w in ending.flor_said])
        lines.append(t("call.flor_values", values=values))
    return lines


def rounds_lines(t: Translator, who: Seating, rounds: tuple[RoundEnd, ...]) -> list[str]:
    """One line a round: its cards in the order played, and whose card won it."""
    lines = []
    for index, round_ in enumerate(rounds):
        played = " · ".join(f"{who.seat(s)} {card_short(c)}" for s, c in round_.plays)
        result = ""
        if round_.parda:
            result = " → " + t("round.parda")
        elif round_.winner is not None:
            result = " → " + who.seat(round_.winner)
        lines.append(f"{round_name(t, index)}: {played}{result}")
    return lines
