"""Pieces every view shares: names, cards in words, fósforos, score lines."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any, NamedTuple

from bot.game import Card, MatchConfig
from bot.game.scoring import fosforos, malas_buenas
from bot.i18n import Translator

SUIT_EMOJI = {"o": "🪙", "c": "🍷", "e": "🗡️", "b": "🪵"}
MAX_NAME = 24


def short_name(name: str) -> str:
    """Escaped and trimmed: names are user input and go into HTML."""
    clean = " ".join(name.split()) or "?"
    if len(clean) > MAX_NAME:
        clean = clean[: MAX_NAME - 1] + "…"
    return escape(clean)


class Button(NamedTuple):
    """A callback button (the field names are PTB's and Telegram's)."""

    text: str
    callback_data: str


class Keys(tuple[tuple[Button, ...], ...]):
    """An inline keyboard of callback buttons, as plain tuples: a board and two hands are drawn
    on every tap, and PTB's keyboard objects (built, hashed, then turned back into dicts) were a
    twentieth of the bot's CPU. Hashable, so an unchanged message is not edited again."""

    @property
    def inline_keyboard(self) -> tuple[tuple[Button, ...], ...]:
        return self

    def to_dict(self) -> dict[str, Any]:
        return {
            "inline_keyboard": [
                [{"text": b.text, "callback_data": b.callback_data} for b in row] for row in self
            ]
        }


@dataclass(frozen=True)
class Seating:
    """Who sits where, with their names ready for HTML."""

    names: tuple[str, ...]  # per seat, escaped

    def seat(self, seat: int) -> str:
        return f"<b>{self.names[seat]}</b>"

    def size(self, side: int) -> int:
        """How many players a side has: 1 in 1v1, 2 in 2v2 (for plural forms)."""
        return len(self.names) // 2

    def side(self, t: Translator, side: int) -> str:
        seats = range(side, len(self.names), 2)
        if len(self.names) == 2:
            return self.seat(side)
        a, b = (self.seat(s) for s in seats)
        return t("side.pair", a=a, b=b)


def seating(seats: Sequence[int | None], names: dict[int, str]) -> Seating:
    return Seating(tuple(short_name(names.get(u, "?")) if u else "—" for u in seats))


def option_label(t: Translator, key: str, value: str) -> str:
    """An option button: its name and the value it has now ("🔄 Flor: con")."""
    return t("button.option", name=t(f"option.{key}"), value=value)


def card_name(t: Translator, card: Card) -> str:
    return t("card", number=card.number, suit=t(f"suit.{card.suit.value}")) + (
        " " + SUIT_EMOJI[card.suit.value]
    )


def cards_text(t: Translator, cards: Sequence[Card]) -> str:
    return ", ".join(card_name(t, c) for c in cards)


def fosforos_text(points: int, target: int) -> str:
    """R27: ⊠ is a square of five (four matches and the fifth crossing), | a loose match."""

    def draw(n: int) -> str:
        squares, loose = fosforos(n)
        return "⊠" * squares + "|" * loose

    halves = malas_buenas(points, target)
    if halves is None or halves[1] == 0:
        return draw(points) or "·"
    return f"{draw(halves[0])} ┃ {draw(halves[1])}"


def rules_line(t: Translator, config: MatchConfig) -> str:
    return t(
        "rules.line",
        mode="1v1" if config.players == 2 else "2v2",
        target=config.target,
        flor=t("rules.con_flor") if config.flor else t("rules.sin_flor"),
        house=t("rules.house_on") if config.mazo_penalty else t("rules.house_off"),
    )


def score_lines(t: Translator, who: Seating, scores: Sequence[int], target: int) -> list[str]:
    lines = []
    for side in (0, 1):
        lines.append(
            t(
                "score.line",
                side=who.side(t, side),
                points=scores[side],
                fosforos=fosforos_text(scores[side], target),
                half=half_name(t, scores[side], target),
            )
        )
    return lines


def half_name(t: Translator, points: int, target: int) -> str:
    halves = malas_buenas(points, target)
    if halves is None:
        return ""
    return t("score.buenas") if halves[1] > 0 else t("score.malas")
