"""Long texts cut into pages Telegram accepts: never inside a tag or an entity, every tag
closed on its page, nothing lost."""

from __future__ import annotations

import random
import re
from html import escape, unescape

from bot.views.common import short_name, split_html
from bot.views.history import paginate
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


def test_pages_of_a_long_account_stay_under_the_limit() -> None:
    rng = random.Random(5)
    blocks = [account(rng, 200), account(rng, 3), account(rng, 150)]  # one 6,000+ characters
    assert max(len(b) for b in blocks) > 6000
    for page in paginate(blocks, 3500):
        assert len(page) <= 3500 and html_error(page) is None
