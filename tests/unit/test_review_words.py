"""The review's words as a player read them (issue 73, 2026-12-07): an envido choice says how
often the envido was theirs, as a hand's choice says how often the hand was; a count of one
match is said in the singular; a "quiero" is told as an answer to the chant, not as a chant."""

from __future__ import annotations

from dataclasses import replace

from bot.ai.puzzle import Choice, Puzzle
from bot.ai.review import PARTNER, RIVAL, YOU, Moment, Review
from bot.ai.weigh import Worth
from bot.i18n import translator
from bot.views.common import plain
from bot.views.daily import question_text
from bot.views.quiz import answer_text, answered_text
from bot.views.review import lesson_text, position_text, review_json, slip_text

ENVIDO, QUIERO, NO_QUIERO, CARD = "0:e", "0:q", "0:nq", "0:p:4c"
ES, EN = translator("es"), translator("en")


def moment(envido_won: float | None = 0.62) -> Moment:
    """Seat 0 played a card where difícil would have chanted envido (33 of envido)."""
    puzzle = Puzzle(
        players=2, target=30, flor=False, hand=3, scores=(4, 6), mano=0,
        dealt=("7e", "6e", "4c"), held=("7e", "6e", "4c"), rounds=(), calls=(), announced=(),
        pending=None, envido=33, worlds=48,
        choices=(Choice(ENVIDO, Worth(0.2, 0.6), 0.3), Choice(CARD, Worth(-1.0, 0.4), 0.3)),
    )  # fmt: skip
    return Moment(
        hand=3, step=2, dealt=puzzle.dealt, held=puzzle.held, table=(), scores=(4, 6), calls=(),
        pending=None, envido=33, made=CARD, best=ENVIDO, made_worth=Worth(-1.0, 0.4),
        best_worth=Worth(0.2, 0.6), error=0.3, habit="quiet_envido", worlds=48, puzzle=puzzle,
        envido_won=envido_won,
    )  # fmt: skip


def test_an_envido_choice_says_how_often_the_envido_was_theirs() -> None:
    """A hand's choice said "la mano era tuya 4 de cada 10"; an envido's said only its points
    (or, in the whole review, the hand's odds, which the envido does not decide)."""
    m = moment()
    slip = plain(slip_text(ES, 1, m))
    said = "(cantar envido): ganabas el envido 6 de cada 10 veces; en promedio, +0,2 puntos."
    assert said in slip, slip
    assert "(tirar el 4 de copa 🍷): la mano era tuya 4 de cada 10 veces;" in slip
    told = plain(answer_text(ES, m, 1, False))  # (the card chosen: the envido was best)
    assert "Lo mejor era cantar envido: ganabas el envido 6 de cada 10 veces; en promedio" in told
    assert "ganabas el envido 6 de cada 10 veces" in plain(answered_text(ES, m, True, 0))
    web = review_json(ES, review_of(m), "7")["moments"][0]  # type: ignore[index]
    assert web["best_worth"] == "ganabas el envido 6 de cada 10 veces; en promedio, +0,2 puntos"
    en = plain(slip_text(EN, 1, m))
    assert "you won the envido 6 times in 10; on average +0.2 points" in en, en


def test_an_envido_refused_says_what_wanting_it_would_have_won() -> None:
    m = replace(moment(0.81), pending="envido", made=NO_QUIERO, best=QUIERO, puzzle=None)
    slip = plain(slip_text(ES, 1, m))
    assert "(no querer el envido): si lo querías, ganabas el envido 8 de cada 10 veces;" in slip
    assert "(querer el envido): ganabas el envido 8 de cada 10 veces;" in slip


def test_a_review_kept_before_the_envido_odds_tells_its_points_alone() -> None:
    """A review stored before its envido's odds were weighed has none to tell: its envido
    choices say their points, never the hand's odds (which the envido does not decide)."""
    slip = plain(slip_text(ES, 1, moment(None)))
    assert "(cantar envido): en promedio, +0,2 puntos." in slip, slip


def review_of(m: Moment) -> Review:
    return Review(7, 0, 30, (m,), (), (), 10, 3)


def test_one_reviewed_match_is_said_in_the_singular() -> None:
    """/yo read "lo vi 2 veces en tus partidas revisadas" after one reviewed match."""
    one = lesson_text(ES, "want_truco_weak", 0.6, 2, 1)
    assert one.endswith("(lo vi 2 veces en tu partida revisada)."), one
    many = lesson_text(ES, "want_truco_weak", 0.6, 3, 2)
    assert many.endswith("(lo vi 3 veces en tus 2 partidas revisadas)."), many
    assert lesson_text(EN, "want_truco_weak", 0.6, 2, 1).endswith(
        "(seen 2 times in your reviewed match)."
    )


def test_a_quiero_is_told_as_the_answer_it_was() -> None:
    """The position listed "se cantó: envido (rival), quiero (vos)": a quiero is no chant."""
    m = replace(
        moment(), calls=((RIVAL, "envido"), (YOU, "quiero"), (YOU, "truco"), (RIVAL, "retruco")),
        pending="retruco",
    )  # fmt: skip
    said = plain(position_text(ES, m))
    assert said.endswith("se cantó: envido (rival), lo quisiste; truco (vos), retruco (rival)")
    refused = replace(m, calls=((YOU, "envido"), (RIVAL, "real_envido"), (PARTNER, "no_quiero")))
    assert plain(position_text(ES, refused)).endswith(
        "se cantó: envido (vos), real envido (rival), no lo quiso tu compañero"
    )
    theirs = replace(m, calls=((YOU, "truco"), (RIVAL, "quiero")))
    assert plain(position_text(ES, theirs)).endswith("se cantó: truco (vos), lo quiso el rival")
    assert plain(position_text(EN, theirs)).endswith("called: truco (you), the rival wanted it")
    puzzle = m.puzzle
    assert puzzle is not None
    asked = plain(question_text(ES, replace(puzzle, calls=m.calls, pending="retruco")))
    assert "Se cantó: envido (rival), lo quisiste; truco (vos), retruco (rival)" in asked, asked


def test_more_points_is_the_difference_of_the_points_shown() -> None:
    """Read after a practice (2026-12-07): "Lo mejor era cantar retruco …: +2,1 puntos (0,4
    puntos más)" beside "¡Retruco! +2,1 · Quiero +1,6": the difference of the values told, not
    of the values before they were rounded."""
    m = moment()
    assert m.puzzle is not None
    choices = (Choice(ENVIDO, Worth(2.14, 0.6), 0.3), Choice(CARD, Worth(1.56, 0.4), 0.3))
    m = replace(m, puzzle=replace(m.puzzle, choices=choices))
    told = plain(answer_text(ES, m, 1, False))
    assert "+2,1" in told and "+1,6" in told, told
    assert "(0,5 puntos más)" in told, told


def test_yo_with_practices_alone_does_not_say_no_matches_above_them() -> None:
    """Read after a practice (2026-12-07): "En todos los grupos: Todavía sin partidas." above
    "🤖 fácil: jugadas 1": the practices are matches too, only not a group's."""
    import dataclasses

    from bot.league.stats import PlayerMatchStats
    from bot.league.values import PlayerNumbers
    from bot.views.standings import numbers_pages

    stats = PlayerMatchStats(**{f.name: 0 for f in dataclasses.fields(PlayerMatchStats)})
    none = PlayerNumbers(0, 0, stats, 0, None, 0)
    page = plain(numbers_pages(ES, "Ana", none, none, {"facil": (1, 0)}, in_group=False)[0])
    assert "Todavía sin partidas." not in page, page
    assert "Todavía sin partidas en grupos" in page, page
    alone = plain(numbers_pages(ES, "Ana", none, none, {}, in_group=False)[0])
    assert "Todavía sin partidas." in alone, alone


def test_odds_read_alike_whatever_their_number() -> None:
    """Read in one answer (2026-12-07): "la mano era tuya 9 de cada 10" and "la mano era tuya
    más de 9 de cada 10 veces": every chance says "veces", as the hints' do."""
    m = replace(moment(), made_worth=Worth(-1.0, 0.97), best_worth=Worth(0.2, 0.6))
    slip = plain(slip_text(ES, 1, m))
    assert "la mano era tuya más de 9 de cada 10 veces;" in slip, slip
    assert "ganabas el envido 6 de cada 10 veces;" in slip, slip
