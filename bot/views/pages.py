"""Long readings in pages a phone shows whole: at most `PAGE_LINES` phone lines each (the one
measure, `phone_lines`), turned with ◀️ n/m ▶️ in place."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.callbacks import CallbackData, pack
from bot.views.common import Button, phone_lines, split_lines

# About what a phone's screen shows of a message at once: a reading taller than this is
# scrolled through, its start out of sight, so it comes in pages of this many phone lines.
PAGE_LINES = 25


def paginate(
    blocks: Sequence[str], most: int = PAGE_LINES, head: str = "", gap: str = "\n\n"
) -> list[str]:
    """Blocks (a hand, a decision, a rule), `gap` between them (a blank line), in pages of at
    most `most` phone lines, each under `head` (what the reading is, a blank line below it). A
    block that fits a page is never cut: a page ends before it instead; one taller than a page
    alone gets pages of its own, cut between its lines (`split_lines`)."""
    room = most - (phone_lines(head) + 1 if head else 0)
    pages: list[str] = []
    current = ""
    for block in blocks:
        parts = [block] if phone_lines(block) <= room else split_lines(block, room)
        for part in parts:
            joined = f"{current}{gap}{part}" if current else part
            if current and phone_lines(joined) > room:
                pages.append(current)
                current = part
            else:
                current = joined
    if current or not pages:
        pages.append(current)
    return [f"{head}\n\n{page}" if head else page for page in pages]


def text_pages(text: str) -> list[str]:
    """A text of paragraphs (/reglas) in pages: its first paragraph, its title, on each; a
    paragraph never cut."""
    head, *blocks = text.split("\n\n")
    return paginate(blocks, head=head) if blocks else paginate([head])


def pager(at: Callable[[int], CallbackData], page: int, pages: int) -> list[Button]:
    """◀️ n/m ▶️: `at(page)`, the data of a button to a page."""
    row = []
    if page > 0:
        row.append(Button("◀️", pack(at(page - 1))))
    if pages > 1:
        row.append(Button(f"{page + 1}/{pages}", pack(at(page))))
    if page < pages - 1:
        row.append(Button("▶️", pack(at(page + 1))))
    return row
