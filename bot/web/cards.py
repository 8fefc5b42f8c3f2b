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
from bot.i18n import DEFAULT_LANGUAGE, translator
from bot.views.common import card_name

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
    """A sota standing, a caballo mounted, a rey crowned: each in its suit's colours, holding
    its suit's sign, so the three read apart at a glance (and by their letter, as printed)."""
    suit, colour = card.suit.value, COLOURS[card.suit.value]
    skin = '#f2c9a0" stroke="#5d4037" stroke-width="0.8'
    if card.number == 10:  # the sota: a page standing, tunic, legs and a feathered cap
        body = (
            f'<circle cx="28" cy="27" r="5.5" fill="{skin}"/>'
            f'<path d="M22,23 q6,-7 12,0 l2,-4 -1,5 z" fill="{colour}"/>'
            f'<path d="M20,58 l3,-22 q5,-4 10,0 l3,22 z" fill="{colour}" opacity="0.9"/>'
            f'<rect x="22" y="58" width="4" height="16" fill="#5d4037"/>'
            f'<rect x="30" y="58" width="4" height="16" fill="#5d4037"/>'
            f'<path d="M20,74 h7 v3 h-8 z M29,74 h7 v3 h-7 z" fill="#3e2723"/>'
        )
        sign = _symbol(suit, 44, 44, 12)
    elif card.number == 11:  # the caballo: a rider on a horse seen from the side
        body = (
            f'<path d="M12,60 q2,-12 16,-11 h12 q6,-9 11,-5 l-2,5 -4,2 v12 l-2,14 h-3 l1,-12 '
            f'h-15 l-2,12 h-3 l-1,-12 q-6,-2 -8,-5 z" fill="#8d6e63"/>'
            f'<circle cx="29" cy="28" r="5" fill="{skin}"/>'
            f'<path d="M23,50 l2,-17 q4,-3 8,0 l2,17 z" fill="{colour}" opacity="0.9"/>'
            f'<path d="M25,31 q4,-9 9,-2" fill="none" stroke="{colour}" stroke-width="1.5"/>'
        )
        sign = _symbol(suit, 44, 30, 11)
    else:  # the rey: crowned and bearded, in a long robe with a cape
        body = (
            f'<circle cx="30" cy="30" r="6" fill="{skin}"/>'
            f'<path d="M25,33 q5,7 10,0 q-1,5 -5,6 q-4,-1 -5,-6 z" fill="#9e9e9e"/>'
            f'<path d="M23,25 l1,-8 3,4 3,-6 3,6 3,-4 1,8 z" fill="#f9a825" '
            f'stroke="#8d6e00" stroke-width="0.5"/>'
            f'<path d="M16,78 q2,-34 14,-38 q12,4 14,38 z" fill="{colour}" opacity="0.9"/>'
            f'<path d="M21,78 q2,-28 9,-31 q7,3 9,31 z" fill="#fff" opacity="0.25"/>'
        )
        sign = _symbol(suit, 44, 50, 12)
    letter = FIGURES[card.number]
    mark = (
        f'<text x="11" y="84" text-anchor="middle" font-size="8" font-family="serif" '
        f'fill="{colour}" font-weight="bold">{letter}</text>'
    )
    return body + sign + mark


MATADORES = frozenset({"1e", "1b", "7e", "7o"})  # the four highest cards of truco


def _ace(card: Card) -> str:
    """An ace as the deck prints it: one big sign; the ancho de espadas a great sword with a
    hilt and a laurel, the ancho de bastos a great club."""
    suit, colour = card.suit.value, COLOURS[card.suit.value]
    if suit == "e":
        return (
            f'<path d="M30,14 l4,7 v38 h-8 v-38 z" fill="{colour}"/>'
            f'<path d="M30,18 v40" stroke="#fff" stroke-width="0.8" opacity="0.7"/>'
            f'<path d="M16,59 q14,-6 28,0 v4 q-14,-5 -28,0 z" fill="#c8961e"/>'
            f'<rect x="27.5" y="63" width="5" height="11" rx="1" fill="#5d4037"/>'
            f'<circle cx="30" cy="76" r="3.2" fill="#c8961e"/>'
            f'<path d="M20,44 q-6,-10 2,-20 M40,44 q6,-10 -2,-20" fill="none" '
            f'stroke="#2e7d32" stroke-width="1.6"/>'
        )
    if suit == "b":
        return (
            f'<path d="M25,78 l-3,-52 q8,-14 16,0 l-3,52 z" fill="{colour}"/>'
            f'<circle cx="26" cy="36" r="2.4" fill="#e8f5e9"/>'
            f'<circle cx="34" cy="48" r="2.4" fill="#e8f5e9"/>'
            f'<circle cx="27" cy="60" r="2.4" fill="#e8f5e9"/>'
            f'<path d="M36,24 q8,-4 9,4 q-5,1 -9,-4 z" fill="#66bb6a"/>'
        )
    return _symbol(suit, 30, 46, 40)


def card_svg(card: Card, language: str = DEFAULT_LANGUAGE) -> str:
    """The card's SVG, with its name as title and label (the text alternative)."""
    return _drawn(card, card_name(translator(language), card, picture=True))


@cache  # (by the name, not the language: the name is what the locale files say now)
def _drawn(card: Card, said: str) -> str:
    suit, name = card.suit.value, escape(said)
    if card.number == 1:
        pips = _ace(card)
    elif card.number <= 7:
        pips = "".join(_symbol(suit, x, y, 13) for x, y in PIPS[card.number])
    else:
        pips = _figure(card)
    # The matadores wear a gold band inside the frame: found at once in a hand or on the felt.
    band = (
        '<rect x="3" y="3" width="54" height="86" rx="4" fill="none" stroke="#d4a017" '
        'stroke-width="1.6" class="matador"/>'
        if card.code in MATADORES
        else ""
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
        f"{band}{_frame(suit)}{corner}{pips}</svg>"
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
