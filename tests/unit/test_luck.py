"""¿Suerte o viveza? in words: the cards and the decisions told add up to the result, always
(the decisions rounded to a point, the cards the rest), in both languages."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from bot.ai.review import Luck, Review
from bot.i18n import translator
from bot.views.common import plain
from bot.views.review import luck_text, month_luck_text, review_text


def told(text: str, gave: str, cost: str, what: tuple[str, str]) -> int:
    total = 0
    for name in what:
        found = re.search(
            rf"{name} (?:salieron más o menos parejas \(|came out about even \(they )?"
            rf"(?:te |you )?({gave}|{cost})(?: you)?(?: unos| alrededor de| about)? (\d+)",
            text,
        )
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


def test_one_point_of_cards_is_said_in_the_singular() -> None:
    """"unos 1 punto" was a player's reading of a review (2026-12-07): a point is one."""
    for mine, theirs, decisions in ((12, 10, 1.0), (10, 11, 0.2), (15, 15, -1.2)):
        luck = Luck(mine, theirs, decisions, 1.0, 10)
        es = plain(luck_text(translator("es"), luck))
        assert "unos 1 " not in es and "alrededor de 1 punto" in es, es


def test_a_review_with_costly_decisions_and_no_single_slip_does_not_praise() -> None:
    """A player's reading (2026-12-07): "tus decisiones te costaron 20" and right under it
    "¡Muy bien jugado!". With no costly moment to show, the review praises only decisions that
    cost nothing in the split."""
    t = translator("es")
    costly = Review(7, 0, 30, (), (), (), 68, 15, luck=Luck(19, 30, -19.6, 5.6, 68))
    fine = Review(7, 0, 30, (), (), (), 68, 15, luck=Luck(30, 19, 2.4, 1.0, 68))
    assert "Muy bien jugado" not in plain(review_text(t, costly, "#7"))
    assert "muchas jugadas chicas" in plain(review_text(t, costly, "#7"))
    assert "Muy bien jugado" in plain(review_text(t, fine, "#7"))


def test_cards_within_their_noise_are_said_to_be_about_even() -> None:
    """A player's reading (2026-12-07): "las cartas te dieron 2 puntos" with a spread of 6. A
    cards figure no larger than its noise (the spread and D's error together) is told as what
    it is, about even, its number kept so that the sentence still adds up; one larger than its
    noise is told flatly, as before."""
    t, en = translator("es"), translator("en")
    # The noise: sqrt(6² + 0²) = 6. Lost 29 to 30, the decisions −3 or −8: the cards +2 or +7.
    within = Luck(29, 30, -3.0, 0.0, 60, spread=6.0)
    edge = Luck(29, 30, -7.0, 0.0, 60, spread=6.0)  # (+6: on the line, within)
    beyond = Luck(29, 30, -8.0, 0.0, 60, spread=6.0)
    assert plain(luck_text(t, within)) == (
        "🍀 ¿Suerte o viveza? Perdiste 29 a 30: las cartas salieron más o menos parejas"
        " (te dieron unos 2 puntos, dentro del margen de error); tus decisiones te costaron 3."
    )
    edge_said = plain(luck_text(t, edge))
    assert "más o menos parejas (te dieron unos 6 puntos, dentro del margen de error)" in edge_said
    assert plain(luck_text(t, beyond)) == (
        "🍀 ¿Suerte o viveza? Perdiste 29 a 30: las cartas te dieron unos 7 puntos;"
        " tus decisiones te costaron 8."
    )
    assert "(they gave you about 2 points, within the margin" in plain(luck_text(en, within))
    assert "about even" not in plain(luck_text(en, beyond))
    # D's own error counts too: a spread of 0 and an error of 3 hold +2 within and +7 beyond.
    assert "parejas" in plain(luck_text(t, Luck(29, 30, -3.0, 3.0, 60)))
    assert "parejas" not in plain(luck_text(t, Luck(29, 30, -8.0, 3.0, 60)))
    # Costly cards within their noise, in the singular.
    singular = plain(luck_text(t, Luck(20, 30, -9.0, 0.5, 60, spread=2.0)))
    assert "más o menos parejas (te costaron alrededor de 1 punto, dentro del margen" in singular


def test_the_review_says_what_its_two_figures_are_measured_against() -> None:
    """A player's reading (2026-12-07): "tus decisiones te costaron 20" and then a list adding
    to 3. The split counts every decision against what 🤖 normal would have done (the bots'
    baseline); the list, only the decisions compared with 🤖 difícil. The review says both,
    how many each counts, and, under a list that falls short of the split's loss, why."""
    from bot.ai.review import RIVAL, Moment, Worth
    from bot.views.quiz import intro_text

    t = translator("es")
    slip = Moment(
        hand=3, step=20, dealt=("1e", "7o", "4c"), held=("7o", "4c"), table=((RIVAL, "3b"),),
        scores=(4, 6), calls=(), pending=None, envido=7, made="0:p:4c", best="0:p:7o",
        made_worth=Worth(-1.0, 0.3), best_worth=Worth(2.0, 0.6), error=0.1, habit="card",
        worlds=48,
    )  # fmt: skip
    lost = Review(7, 0, 30, (slip,), (), (("card", 3.0),), 68, 15,
                  luck=Luck(10, 30, -20.4, 2.0, 68, spread=4.0))  # fmt: skip
    text = plain(review_text(t, lost, "#7"))
    assert "Tus decisiones con opciones (68), cada una contra lo que habría hecho 🤖 normal" in text
    assert "Comparé 15 de ellas con lo que habría hecho 🤖 difícil" in text
    assert (
        "Estas se miden contra 🤖 difícil, que juega mejor, y solo en las 15 decisiones que"
        " comparé: por eso no suman los 20 puntos de arriba." in text
    ), text
    # The questions' intro (Telegram's first message) says the same.
    asked = plain(intro_text(t, lost, "#7"))
    assert "cada una contra lo que habría hecho 🤖 normal" in asked
    assert "comparé 15 con lo que habría hecho 🤖 difícil" in asked, asked
    # A list as costly as the split's loss, or a split that gained, needs no such line.
    even = Review(7, 0, 30, (slip,), (), (("card", 3.0),), 68, 15,
                  luck=Luck(28, 30, -2.6, 2.0, 68))  # fmt: skip
    assert "no suman" not in plain(review_text(t, even, "#7"))
    # With nothing to show, where the loss went is said the same way.
    none = Review(7, 0, 30, (), (), (), 68, 15, luck=Luck(10, 30, -20.4, 2.0, 68))
    assert "De las 15 decisiones que comparé con 🤖 difícil" in plain(review_text(t, none, "#7"))
    # In English too.
    en = plain(review_text(translator("en"), lost, "#7"))
    assert "each against what 🤖 normal would have done" in en and "the 20 points above" in en


def test_the_months_cards_within_their_noise_are_said_to_be_about_even() -> None:
    """/yo's month, read after a practice (2026-12-07): the review said "las cartas salieron
    más o menos parejas (te dieron unos 7 puntos)" and /yo, of that one match, "las cartas te
    dieron unos 7 puntos". The month's cards are told against the month's noise too."""
    t = translator("es")
    within = plain(month_luck_text(t, 1, -16, -23.0, noise=9.0))
    assert "más o menos parejas (te dieron unos 7 puntos, dentro del margen de error)" in within
    beyond = plain(month_luck_text(t, 1, -16, -23.0, noise=6.0))
    assert "las cartas te dieron unos 7 puntos;" in beyond


def test_the_end_of_the_questions_says_why_they_do_not_add_up() -> None:
    """Read after a practice (2026-12-07): the questions' intro said "tus decisiones te
    costaron 23", the three answers 8,1, 3,3 and 3,3 against difícil, and nothing said why
    they did not add up: the end of the questions says it, as the whole review does."""
    from bot.ai.review import RIVAL, Moment, Worth
    from bot.views.quiz import end_text

    t = translator("es")
    slip = Moment(
        hand=3, step=20, dealt=("1e", "7o", "4c"), held=("7o", "4c"), table=((RIVAL, "3b"),),
        scores=(4, 6), calls=(), pending=None, envido=7, made="0:p:4c", best="0:p:7o",
        made_worth=Worth(-1.0, 0.3), best_worth=Worth(2.0, 0.6), error=0.1, habit="card",
        worlds=48,
    )  # fmt: skip
    lost = Review(7, 0, 30, (slip,), (), (("card", 3.0),), 71, 15,
                  luck=Luck(17, 33, -23.2, 2.0, 71, spread=9.0))  # fmt: skip
    assert "por eso no suman los 23 puntos de arriba" in plain(end_text(t, lost, {20: False}, 0))
