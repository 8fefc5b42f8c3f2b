"""💡 A hint in the game's own words: the move, and the chance it stands on, in tenths."""

from __future__ import annotations

from bot.ai.hints import Hint, Stakes, Topic
from bot.game import Action, ActionKind
from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS
from bot.i18n import Translator
from bot.views.common import card_name
from bot.views.table import kind_label

K = ActionKind


def move_text(t: Translator, action: Action) -> str:
    """ "Tirá el 3 de espadas 🗡️", "Quiero", "¡Truco!"."""
    if action.kind is K.PLAY and action.card is not None:
        return t("hint.play", card=card_name(t, action.card))
    return kind_label(t, action.kind)


def odds_text(t: Translator, tenths: int, only: bool = False) -> str:
    """ "8 de cada 10 veces"; under one in ten and over nine in ten said so; `only`: a chance
    said as small ("solo 2 de cada 10 veces"), never "solo menos de 1"."""
    if tenths <= 0:
        return t("hint.odds_low")
    if tenths >= 10:
        return t("hint.odds_high")
    return t("hint.odds_only" if only else "hint.odds", count=tenths)


BLUFF = 4  # tenths: a chant that wins this seldom when wanted is a bluff (a farol)
CHANTS = frozenset(ENVIDO_CHANTS) | frozenset(TRUCO_CHANTS)


def range_text(t: Translator, low: int, high: int, team: bool = False) -> str | None:
    """ "3 a 5 de cada 10, contra alguien que no conocés todavía": where the rivals are not
    known yet, the chance is a range (in tenths), said to be one; None if it is within one
    way of saying it (all under one in ten, or over nine)."""
    low, high = min(max(low, 1), 9), min(max(high, 1), 9)
    if low >= high:
        return None
    return t("hint.odds_range_team" if team else "hint.odds_range", low=low, high=high)


def points_text(t: Translator, points: int) -> str:
    """ "1 punto", "30 puntos"."""
    return t("hint.points", count=points)


def hint_text(t: Translator, hint: Hint, team: bool = False) -> str:
    """Two sentences at most for the asker alone (an alert over their hand: 200 characters at
    most), as a teacher at the table says them: the move, why, and the chance it stands on,
    always. A refusal (or the mazo) is told by the chance it turns down, and what backing down
    costs against what the want would risk; a chant that seldom wins is named a farol, with how
    often it works, what it gains when it does and what it risks when it does not. With
    partners (`team`), the envido and the hand are their side's ("ganan")."""
    plural = "_team" if team else ""
    move = move_text(t, hint.action)
    tenths = hint.tenths
    if tenths is None:  # (no world could be drawn: it says whose move it is, and why no odds)
        return t("hint.no_odds", move=move)
    kind = hint.action.kind
    stakes = hint.stakes
    odds = odds_text(t, tenths)
    if hint.topic is Topic.FLOR:
        return t("hint.flor" + plural, move=move, flor=hint.flor, odds=odds)
    bluff = kind in CHANTS and hint.probe == hint.action and tenths <= BLUFF
    if hint.topic is Topic.ENVIDO:
        if bluff:
            said = t("hint.envido_bluff" + plural, move=move, envido=hint.envido, odds=odds)
            return _with(t, said, "hint.envido_bluff_stakes" + plural, stakes)
        if kind in (K.NO_QUIERO, K.MAZO):  # the chance the want would have had, said so
            only = odds_text(t, tenths, only=True)
            said = t("hint.envido_refuse" + plural, move=move, envido=hint.envido, odds=only)
            what = "hint.mazo_stakes" if kind is K.MAZO else "hint.refuse_stakes"
            return _with(t, said, what + plural, stakes)
        return t("hint.envido" + plural, move=move, envido=hint.envido, odds=odds)
    if bluff:  # the hand's chance after the chant counts the times they do not want it
        said = t("hint.hand_bluff" + plural, move=move, odds=odds)
        return _with(t, said, "hint.hand_bluff_stakes" + plural, stakes)
    # where the rivals are not known yet, the hand's chance is a range, said to be one
    span = range_text(t, *hint.span, team=team) if hint.span is not None else None
    if hint.probe != hint.action:  # a truco refused, the mazo: the chance it turns down
        mazo = kind is K.MAZO
        key = "hint.mazo" if mazo else "hint.refuse"
        said = t(key + plural, move=move, odds=span or odds_text(t, tenths, only=True))
        return _with(t, said, ("hint.mazo_stakes" if mazo else "hint.refuse_stakes") + plural,
                     stakes)  # fmt: skip
    return t(f"hint.hand{plural}", move=move, odds=span or odds)


def _with(t: Translator, said: str, key: str, stakes: Stakes | None) -> str:
    """`said`, then what is at stake (`key`: the words for it), when it is known."""
    if stakes is None:
        return said
    # (the first number of a sentence says "puntos", the others are bare: an alert holds 200
    # characters, Telegram's limit for the answer to a tap)
    points = {
        "folded": points_text(t, stakes.folded), "folded_n": stakes.folded,
        "wanted_n": stakes.wanted, "now": stakes.now,
        "extra_n": max(stakes.wanted - stakes.now, 0),
    }  # fmt: skip
    return f"{said} {t(key, **points)}"
