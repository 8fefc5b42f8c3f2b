"""The 40 cards of the baraja española, drawn by the project as SVG (no image is downloaded).

Each card is a 60×92 picture: the number in two corners, the suit's pips (1 to 7) or a figure
(10 sota, 11 caballo, 12 rey) holding its suit, and the frame cut as the rule sheet says: oros
uncut, copas once, espadas twice, bastos three times (the gaps in the frame's top and bottom
lines tell the suit when the card is half hidden). Every card carries its name as a text
alternative ("7 de espada")."""

from __future__ import annotations

from functools import cache
from html import escape

from bot.game import Card

WIDTH, HEIGHT = 60, 92
COLOURS = {"o": "#c8961e", "c": "#b3261e", "e": "#1f4e9c", "b": "#2e7d32"}
CUTS = {"o": 0, "c": 1, "e": 2, "b": 3}  # gaps in the frame's top and bottom lines
FIGURES = {10: "S", 11: "C", 12: "R"}  # sota, caballo, rey

# Where the pips go for 1 to 7 (in a 60×92 card), as the Spanish deck lays them out.
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((30, 46),),
    2: ((30, 26), (30, 66)),
    3: ((30, 22), (30, 46), (30, 70)),
    4: ((19, 26), (41, 26), (19, 66), (41, 66)),
    5: ((19, 24), (41, 24), (30, 46), (19, 68), (41, 68)),
    6: ((19, 22), (41, 22), (19, 46), (41, 46), (19, 70), (41, 70)),
    7: ((19, 20), (41, 20), (30, 33), (19, 46), (41, 46), (19, 72), (41, 72)),
}


def _symbol(suit: str, x: float, y: float, size: float) -> str:
    """One suit sign centred on (x, y), about `size` high."""
    c, s = COLOURS[suit], size / 20
    if suit == "o":  # a coin: a disc, a ring and a centre
        return (
            f'<circle cx="{x}" cy="{y}" r="{9 * s:.1f}" fill="{c}"/>'
            f'<circle cx="{x}" cy="{y}" r="{6 * s:.1f}" fill="none" stroke="#fff6d5" '
            f'stroke-width="{1.2 * s:.1f}"/>'
            f'<circle cx="{x}" cy="{y}" r="{2 * s:.1f}" fill="#fff6d5"/>'
        )
    if suit == "c":  # a cup: bowl, stem and foot
        return (
            f'<path d="M{x - 8 * s:.1f},{y - 8 * s:.1f} h{16 * s:.1f} '
            f"q0,{9 * s:.1f} -{6 * s:.1f},{10 * s:.1f} v{3 * s:.1f} h{4 * s:.1f} "
            f"v{3 * s:.1f} h-{12 * s:.1f} v-{3 * s:.1f} h{4 * s:.1f} v-{3 * s:.1f} "
            f'q-{6 * s:.1f},-{1 * s:.1f} -{6 * s:.1f},-{10 * s:.1f} z" fill="{c}"/>'
        )
    if suit == "e":  # a sword: blade, guard and grip, upright
        return (
            f'<path d="M{x:.1f},{y - 10 * s:.1f} l{2 * s:.1f},{3 * s:.1f} v{10 * s:.1f} '
            f'h-{4 * s:.1f} v-{10 * s:.1f} z" fill="{c}"/>'
            f'<rect x="{x - 6 * s:.1f}" y="{y + 3 * s:.1f}" width="{12 * s:.1f}" '
            f'height="{2 * s:.1f}" fill="{c}"/>'
            f'<rect x="{x - 1.2 * s:.1f}" y="{y + 5 * s:.1f}" width="{2.4 * s:.1f}" '
            f'height="{5 * s:.1f}" fill="{c}"/>'
        )
    # a club: a knotted stick, wider at the top
    return (
        f'<path d="M{x - 3 * s:.1f},{y + 10 * s:.1f} l-{1 * s:.1f},-{17 * s:.1f} '
        f'q{4 * s:.1f},-{5 * s:.1f} {8 * s:.1f},0 l-{1 * s:.1f},{17 * s:.1f} z" fill="{c}"/>'
        f'<circle cx="{x - 3 * s:.1f}" cy="{y - 2 * s:.1f}" r="{1.3 * s:.1f}" fill="#e8f5e9"/>'
        f'<circle cx="{x + 2.5 * s:.1f}" cy="{y + 3 * s:.1f}" r="{1.3 * s:.1f}" fill="#e8f5e9"/>'
    )


def _frame(suit: str) -> str:
    """The inner frame, its top and bottom lines cut CUTS[suit] times."""
    left, right, top, bottom = 6.0, WIDTH - 6.0, 12.0, HEIGHT - 12.0
    cuts = CUTS[suit]
    parts = [
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}"/>',
        f'<line x1="{right}" y1="{top}" x2="{right}" y2="{bottom}"/>',
    ]
    span = right - left
    gap = 3.0
    pieces = cuts + 1
    piece = (span - cuts * gap) / pieces
    for y in (top, bottom):
        for i in range(pieces):
            x1 = left + i * (piece + gap)
            parts.append(
                f'<line class="frame" x1="{x1:.1f}" y1="{y}" x2="{x1 + piece:.1f}" y2="{y}"/>'
            )
    colour = COLOURS[suit]
    return f'<g stroke="{colour}" stroke-width="1.2">{"".join(parts)}</g>'


def _figure(card: Card) -> str:
    """A sota, caballo or rey: a robed figure with its letter, holding its suit's sign."""
    suit, colour = card.suit.value, COLOURS[card.suit.value]
    body = (
        f'<circle cx="30" cy="30" r="6" fill="#f2c9a0" stroke="#5d4037" stroke-width="0.8"/>'
        f'<path d="M18,72 q2,-30 12,-34 q10,4 12,34 z" fill="{colour}" opacity="0.85"/>'
    )
    if card.number == 11:  # the caballo rides: a horse's head beside the rider
        body += '<path d="M40,56 q8,-6 10,2 l-3,2 -2,-2 -3,6 z" fill="#795548"/>'
    if card.number == 12:  # the rey's crown
        body += '<path d="M24,24 l2,-6 2,4 2,-5 2,5 2,-4 2,6 z" fill="#f9a825"/>'
    letter = FIGURES[card.number]
    mark = (
        f'<text x="30" y="66" text-anchor="middle" font-size="10" font-family="serif" '
        f'fill="#fff" font-weight="bold">{letter}</text>'
    )
    return body + mark + _symbol(suit, 44, 46, 12)


def card_name(card: Card, language: str = "es") -> str:
    suits = {
        "es": {"o": "oro", "c": "copa", "e": "espada", "b": "basto"},
        "en": {"o": "oros", "c": "copas", "e": "espadas", "b": "bastos"},
    }[language]
    word = "de" if language == "es" else "of"
    return f"{card.number} {word} {suits[card.suit.value]}"


@cache
def card_svg(card: Card, language: str = "es") -> str:
    """The card's SVG, with its name as title and label (the text alternative)."""
    suit, name = card.suit.value, escape(card_name(card, language))
    pips = (
        "".join(_symbol(suit, x, y, 13 if card.number > 1 else 26) for x, y in PIPS[card.number])
        if card.number <= 7
        else _figure(card)
    )
    corner = (
        f'<text x="3.5" y="10" font-size="9" font-family="sans-serif" font-weight="bold" '
        f'fill="{COLOURS[suit]}">{card.number}</text>'
        f'<text x="56.5" y="88" font-size="9" font-family="sans-serif" font-weight="bold" '
        f'fill="{COLOURS[suit]}" text-anchor="end">{card.number}</text>'
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{name}" data-card="{card.code}"><title>{name}</title>'
        f'<rect x="0.5" y="0.5" width="{WIDTH - 1}" height="{HEIGHT - 1}" rx="5" '
        f'fill="#fffdf7" stroke="#9e9e9e"/>'
        f"{_frame(suit)}{corner}{pips}</svg>"
    )


def back_svg() -> str:
    """The back of a card (the others' hands, the deck)."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="carta boca abajo"><title>carta boca abajo</title>'
        f'<rect x="0.5" y="0.5" width="{WIDTH - 1}" height="{HEIGHT - 1}" rx="5" '
        f'fill="#7b1f1f" stroke="#4a1010"/>'
        f'<rect x="6" y="6" width="{WIDTH - 12}" height="{HEIGHT - 12}" rx="3" fill="none" '
        f'stroke="#e0b04a" stroke-width="1.2" stroke-dasharray="3 2"/></svg>'
    )
