"""The project's own card art: 40 distinct SVG cards that parse, say their name, and have
their frame cut as the rule sheet says (oros uncut, copas once, espadas twice, bastos thrice)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from bot.game import DECK, Card
from bot.web.cards import back_svg, card_svg

NS = "{http://www.w3.org/2000/svg}"


def test_every_card_is_its_own_picture_with_its_name() -> None:
    drawn = {card.code: card_svg(card) for card in DECK}
    assert len(drawn) == 40 and len(set(drawn.values())) == 40
    for card in DECK:
        root = ET.fromstring(drawn[card.code])
        suit = dict(o="oro", c="copa", e="espada", b="basto")[card.suit.value]
        # (the two top cards by the names players give them, as the hints and the buttons say)
        name = f"ancho de {suit}" if card.code in ("1e", "1b") else f"{card.number} de {suit}"
        assert root.get("aria-label") == name and root.get("role") == "img"
        assert root.findtext(f"{NS}title") == name
        corners = [t.text for t in root.iter(f"{NS}text") if t.text == str(card.number)]
        assert len(corners) == 2  # the number in two corners
    assert card_svg(DECK[0], "en").count(" of ") >= 1
    assert ET.fromstring(back_svg()).get("aria-label") == "carta boca abajo"


def test_an_english_picture_names_its_card_as_the_chat_does() -> None:
    """The pictures' names come from the locales, as the chat's: the English anchos say their
    suit as every other English card does ("espadas", not "espada")."""
    label = {code: ET.fromstring(card_svg(Card.parse(code), "en")).get("aria-label")
             for code in ("1e", "1b", "7o", "4c")}  # fmt: skip
    assert label == {
        "1e": "ancho de espadas (1)", "1b": "ancho de bastos (1)",
        "7o": "7 of oros", "4c": "4 of copas",
    }  # fmt: skip


def test_the_frame_is_cut_once_for_copas_twice_for_espadas_three_times_for_bastos() -> None:
    for card in DECK:
        root = ET.fromstring(card_svg(card))
        segments = [e for e in root.iter(f"{NS}line") if e.get("class") == "frame"]
        cuts = {"o": 0, "c": 1, "e": 2, "b": 3}[card.suit.value]
        assert len(segments) == 2 * (cuts + 1)  # top and bottom lines, each in cuts+1 pieces


def test_the_figures_are_sota_caballo_and_rey() -> None:
    for suit in "oceb":
        sota, caballo, rey = (card_svg(next(c for c in DECK if c.code == f"{n}{suit}"))
                              for n in (10, 11, 12))  # fmt: skip
        assert ">S<" in sota and ">C<" in caballo and ">R<" in rey
        assert len({sota, caballo, rey}) == 3
        assert "#8d6e63" in caballo and "#8d6e63" not in sota + rey  # the caballo's horse
        assert "#f9a825" in rey and "#f9a825" not in caballo + sota  # the rey's crown
        assert sota.count("<rect") > rey.count("<rect")  # the sota stands on two legs


def test_the_matadores_stand_out_and_the_aces_are_one_big_sign() -> None:
    """The four highest cards wear a gold band; the aces are drawn as one big sign (the ancho
    de espadas a great sword with its hilt, the ancho de bastos a great club)."""
    for card in DECK:
        svg = card_svg(card)
        banded = 'class="matador"' in svg
        assert banded == (card.code in ("1e", "1b", "7e", "7o")), card.code
    ancho = card_svg(next(c for c in DECK if c.code == "1e"))
    two = card_svg(next(c for c in DECK if c.code == "2e"))
    assert "#c8961e" in ancho and "#c8961e" not in two  # the golden hilt
    for suit in "oceb":
        ace = ET.fromstring(card_svg(next(c for c in DECK if c.code == f"1{suit}")))
        shapes = [e for e in ace.iter() if e.tag in (f"{NS}path", f"{NS}circle")]
        assert shapes, suit
