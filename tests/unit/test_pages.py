"""Long texts cut into pages: a page fits a phone's screen (`PAGE_LINES` phone lines, as
`phone_lines` measures them), never cuts a block that fits a page, never cuts inside a tag or
an entity, closes every tag on its page, and loses nothing."""

from __future__ import annotations

import itertools
import random
import re
from html import escape, unescape

from bot.views.common import PHONE_WIDTH, phone_lines, plain, short_name, split_html, split_lines
from bot.views.pages import PAGE_LINES, paginate
from tests.fakebot import html_error

HOSTILE = ["&&&'\"<b>", "A&amp;B" * 9, "'" * 64, "<i>&lt;", "José & María 🃏" * 4]


def visible(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


def account(rng: random.Random, lines: int) -> str:
    """A hand's account as /partida writes it: names escaped, bold, code, a pre block."""
    out = []
    for n in range(lines):
        name = short_name(rng.choice(HOSTILE))
        out.append(f"<b>{name}</b> {escape(rng.choice(HOSTILE))} · <code>{n}</code> &amp; más")
        if n % 17 == 0:
            block = "\n".join(escape(rng.choice(HOSTILE)) for _ in range(5))
            out.append(f"<pre>{block}</pre>")
    return "\n".join(out)


def test_a_phone_line_is_36_characters_of_what_the_reader_sees() -> None:
    """The one measure of a reading's height (bench/board_lines.py's too): tags stripped,
    entities read, each line wrapped at 36 characters, an emoji two."""
    assert PHONE_WIDTH == 36
    assert phone_lines("") == 1 and phone_lines("x" * 36) == 1 and phone_lines("x" * 37) == 2
    assert phone_lines("<b>" + "x" * 36 + "</b>") == 1  # tags are not seen
    assert phone_lines("&lt;" * 36) == 1 and phone_lines("&amp;" * 37) == 2  # nor entities
    assert phone_lines("🃏" * 18) == 1 and phone_lines("🃏" * 19) == 2  # an emoji is wide
    assert phone_lines("a\n\nb") == 3  # a blank line is a line
    assert phone_lines("x" * 73 + "\ny") == 4
    assert plain("<b>Ana</b> &amp; <i>Beto</i>") == "Ana & Beto"


def test_every_piece_is_whole_html_under_the_limit_and_nothing_is_lost() -> None:
    rng = random.Random(3)
    for limit in (300, 1000, 3500):
        for lines in (5, 80, 400):
            text = account(rng, lines)
            pieces = split_html(text, limit)
            for piece in pieces:
                assert len(piece) <= limit
                assert html_error(piece) is None, piece
            assert "".join(visible(p) for p in pieces).replace("\n", "") == visible(text).replace(
                "\n", ""
            )


def test_one_line_longer_than_a_page_is_cut_between_tokens() -> None:
    line = "<b>" + "&amp;x" * 2000 + "</b>"
    pieces = split_html(line, 500)
    assert len(pieces) > 10
    for piece in pieces:
        assert len(piece) <= 500 and html_error(piece) is None


def test_a_text_cut_by_phone_lines_is_whole_html_and_loses_nothing() -> None:
    rng = random.Random(4)
    for most in (3, 10, PAGE_LINES):
        for lines in (2, 40, 200):
            text = account(rng, lines)
            pieces = split_lines(text, most)
            for piece in pieces:
                assert phone_lines(piece) <= most, (most, plain(piece))
                assert html_error(piece) is None, piece
            joined = "".join(visible(p) for p in pieces).replace("\n", "")
            assert joined == visible(text).replace("\n", "")
    # a line taller than a page: cut between its words' characters, every piece whole
    tall = "<b>" + "José &amp; María 🃏 " * 200 + "</b>"
    pieces = split_lines(tall, 5)
    assert len(pieces) > 5
    assert all(phone_lines(p) <= 5 and html_error(p) is None for p in pieces)
    assert "".join(visible(p) for p in pieces) == visible(tall)


def test_pages_fit_a_phone_and_never_cut_a_block_that_fits_one() -> None:
    rng = random.Random(5)
    blocks = [account(rng, n) for n in (3, 4, 2, 7, 60, 5, 1, 9, 2)]
    assert max(phone_lines(b) for b in blocks) > 3 * PAGE_LINES
    head = "🔎 <b>Partida 7</b> · 01/02 21:30\n<b>Ana</b> vs <b>Beto</b>"
    pages = paginate(blocks, head=head)
    assert len(pages) > 4
    for page in pages:
        assert phone_lines(page) <= PAGE_LINES, plain(page)
        assert html_error(page) is None, page
        assert page.startswith(head + "\n\n")  # what it is, on every page
    for block in blocks:
        if phone_lines(block) <= PAGE_LINES - phone_lines(head) - 1:
            assert sum(block in page for page in pages) == 1  # whole, on one page
    told = "".join(visible(p[len(head) :]) for p in pages).replace("\n", "")
    assert told == "".join(visible(b) for b in blocks).replace("\n", "")
    # the fewest pages a greedy filling gives: a page ends only where the next block won't fit
    for page, after in itertools.pairwise(pages):
        first = next((b for b in blocks if after[len(head) + 2 :].startswith(b)), None)
        if first is not None:  # (else the piece of a block taller than a page)
            assert phone_lines(page + "\n\n" + first) > PAGE_LINES


def test_a_short_text_is_one_page_and_an_empty_one_a_page_still() -> None:
    assert paginate(["Hola"]) == ["Hola"]
    assert paginate([]) == [""]
    assert paginate(["a", "b"], most=3) == ["a\n\nb"]
    assert paginate(["a", "b"], most=2) == ["a", "b"]
