"""¿Suerte o viveza? in words: the cards and the decisions told add up to the result, always
(the decisions rounded to a point, the cards the rest), in both languages."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from bot.ai.review import Luck
from bot.i18n import translator
from bot.views.common import plain
from bot.views.review import luck_text, month_luck_text


def told(text: str, gave: str, cost: str, what: tuple[str, str]) -> int:
    total = 0
    for name in what:
        found = re.search(rf"{name} (?:te |you )?({gave}|{cost})(?: you)?(?: unos| about)? (\d+)",
                          text)  # fmt: skip
        if found is not None:
            total += int(found.group(2)) * (1 if found.group(1) == gave else -1)
    return total


def test_the_issues_example_reads_as_the_issue_wrote_it() -> None:
    luck = Luck(25, 30, 3.2, 1.1, 40)
    assert plain(luck_text(translator("es"), luck)) == (
        "🍀 ¿Suerte o viveza? Perdiste 25 a 30: las cartas te costaron unos 8 puntos;"
        " tus decisiones te dieron 3."
    )


@given(st.integers(0, 40), st.integers(0, 40), st.floats(-40, 40, allow_nan=False))
def test_what_is_told_adds_up_to_the_result(mine: int, theirs: int, decisions: float) -> None:
    luck = Luck(mine, theirs, decisions, 1.0, 10)
    es = plain(luck_text(translator("es"), luck))
    assert told(es, "dieron", "costaron", ("las cartas", "tus decisiones")) == mine - theirs
    en = plain(luck_text(translator("en"), luck))
    assert told(en, "gave", "cost", ("the cards", "your decisions")) == mine - theirs
    month = plain(month_luck_text(translator("es"), 3, mine - theirs, decisions))
    assert told(month, "dieron", "costaron", ("las cartas", "tus decisiones")) == mine - theirs
