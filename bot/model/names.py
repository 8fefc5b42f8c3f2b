"""Names people choose, made fit to show: nothing invisible, nothing that reorders the text,
nothing that passes for a computer player.

A name is user input that every front end shows beside others: a name of zero-width spaces
looks empty, a right-to-left override turns "Ana" into something else on screen, and "🤖 Lola"
would look like a computer player (whose mark is the server's alone, `BOT_MARK`). Control and
format characters are removed, the mark too, whitespace collapsed; what is left may be empty,
and the caller says what then.
"""

from __future__ import annotations

import unicodedata

BOT_MARK = "🤖"  # the server's mark of a computer player: no person's name carries it
MAX_NAME = 64  # characters kept of a name (views shorten it further where room is short)
# Control, format (zero-width, bidi overrides and isolates), private use, surrogates,
# unassigned, and the line and paragraph separators.
_DROPPED = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})


def clean_name(name: str) -> str:
    """`name` as it may be shown (possibly empty)."""
    kept = "".join(
        c for c in name if unicodedata.category(c) not in _DROPPED and c != BOT_MARK
    )
    # composed after the dropping (a mark the dropped character kept apart joins its letter
    # now, not at the next cleaning), cut after the collapse (no space left at the cut)
    return " ".join(unicodedata.normalize("NFC", kept).split())[:MAX_NAME].rstrip()


def told_apart(names: list[str]) -> list[str]:
    """Names at one table, the same ones told apart as a table of people would, by a number
    after the first ("Ana", "Ana 2"), in seat order."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        key = name.casefold()
        seen[key] = seen.get(key, 0) + 1
        out.append(name if seen[key] == 1 else f"{name} {seen[key]}")
    return out
