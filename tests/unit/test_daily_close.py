"""The close of a hand of the day, read as a player would (a week read on 2026-12-08,
bench/daily_week.py): where every choice but one was right it said "Lo mejor era tirar el 4 de
espada 🗡️, tirar el 12 de copa 🍷 o irte al mazo (valen lo mismo)" instead of what the question
was about (not to cantar truco); where the mazo and a card were worth the same it measured the
best against the mazo ("más que irte al mazo") when the card was the move in question; a bluff
was told "la mano era tuya 9 de cada 10 veces" holding a card that never wins; and a
hand lost or won in every world was told "menos de 1 de cada 10 veces", as if it could go
either way. The two positions are the week's (its fifth day, a match of the group; its last, the
bank's), their numbers as posed."""

from __future__ import annotations

from bot.ai.daily import Outcome
from bot.ai.puzzle import RIVAL, YOU, Choice, Puzzle
from bot.ai.weigh import Worth
from bot.i18n import translator
from bot.model.daily import Answer, Closing, DailyHand
from bot.views.common import plain
from bot.views.daily import close_text, question_text

T = translator("es")


def hand_of(puzzle: Puzzle, made: str, points: int) -> DailyHand:
    data = {"puzzle": puzzle.to_json(), "outcome": Outcome(made, points).to_json()}
    return DailyHand(1, -100, "2027-03-13", "b:0", None, None, data, "es", 0.0, 1.0, 2.0, 1)


def closed(puzzle: Puzzle, made: str, points: int) -> str:
    closing = Closing((Answer(1, 0, True),), ((1, 1),))
    return plain(close_text(T, hand_of(puzzle, made, points), closing, {1: "Beto"}))


def test_every_choice_but_one_right_says_the_one_not_to_make() -> None:
    # parda in the first, the rival's 1 de copa in the second: 4 and 12 lose it, the hand is lost
    puzzle = Puzzle(
        players=2, target=15, flor=False, hand=2, scores=(2, 0), mano=RIVAL,
        dealt=("12e", "4e", "12c"), held=("4e", "12c"),
        rounds=(((RIVAL, "12b"), (YOU, "12e")), ((RIVAL, "1c"),)), calls=(), announced=(),
        pending=None, envido=24, worlds=48,
        choices=(Choice("0:t", Worth(-1.7, 0.1), 0.2), Choice("0:m", Worth(-1.0, 0.0), 0.0),
                 Choice("0:p:4e", Worth(-1.0, 0.0), 0.0), Choice("0:p:12c", Worth(-1.0, 0.0), 0.0)),
    )  # fmt: skip
    text = closed(puzzle, "0:t", -2)
    assert (
        "Lo mejor era no cantar truco: tirar el 4 de espada 🗡️, tirar el 12 de copa 🍷 o irte"
        " al mazo valían lo mismo, 0,7 puntos más en promedio" in text
    ), text
    assert "Por qué: tirar el 4 de espada 🗡️: la mano era del rival en los 48 repartos." in text


def test_a_card_worth_the_mazo_is_what_the_best_is_measured_against() -> None:
    # the third: the rival's 10 de basto on the table beats the 5 de basto: truco or lose
    puzzle = Puzzle(
        players=2, target=15, flor=False, hand=7, scores=(6, 14), mano=RIVAL,
        dealt=("1o", "5b", "12b"), held=("5b",),
        rounds=(((RIVAL, "12e"), (YOU, "1o")), ((YOU, "12b"), (RIVAL, "1b")), ((RIVAL, "10b"),)),
        calls=(), announced=(), pending=None, envido=25, worlds=48,
        choices=(Choice("1:t", Worth(0.938, 0.938), 0.0), Choice("1:m", Worth(-1.0, 0.0), 0.131),
                 Choice("1:p:5b", Worth(-1.0, 0.0), 0.131)),
    )  # fmt: skip
    text = closed(puzzle, "1:p:5b", -1)
    assert "Lo mejor era cantar truco: 1,9 puntos más que tirar el 5 de basto 🪵" in text, text
    assert "¡Truco! +0,9 ✅ · 5 🪵 −1,0 · Me voy al mazo −1,0" in text, text
    # the 5 never wins the third: what the truco wins, it wins by the rival's no quiero (it
    # read "la mano era tuya 9 de cada 10 veces", holding a 5 against a 10 on the table)
    assert (
        "Por qué: cantar truco es un farol: jugando, la mano era del rival en los 48 repartos;"
        " cantando, el rival no lo quería 9 de cada 10 veces." in text
    ), text


def test_what_happened_is_told_in_points_won_or_lost_not_a_signed_number() -> None:
    """"y la mano le dio −1 a su lado" / "le dio 0": a signed number where a player says what
    the hand cost or left."""
    puzzle = Puzzle(
        players=2, target=15, flor=False, hand=7, scores=(6, 14), mano=RIVAL,
        dealt=("1o", "5b", "12b"), held=("5b",), rounds=(), calls=(), announced=(),
        pending=None, envido=25, worlds=48,
        choices=(Choice("1:t", Worth(0.938, 0.938), 0.0), Choice("1:p:5b", Worth(-1.0, 0.0), 0.1)),
    )  # fmt: skip
    said = {points: closed(puzzle, "1:p:5b", points) for points in (-1, -2, 0, 1, 3)}
    assert "Lo que pasó: el bot eligió tirar el 5 de basto 🪵, y esa mano le costó 1 punto." in (
        said[-1]), said[-1]  # fmt: skip
    assert "y esa mano le costó 2 puntos." in said[-2]
    assert "y esa mano terminó pareja." in said[0]
    assert "y esa mano le dejó 1 punto." in said[1]
    assert "y esa mano le dejó 3 puntos." in said[3]
    group = DailyHand(1, -100, "2027-03-13", "g:4:9", 4, 7,
                      hand_of(puzzle, "1:p:5b", -1).data, "es", 0.0, 1.0, 2.0, 1)  # fmt: skip
    closing = Closing((Answer(1, 0, True),), ((1, 1),))
    text = plain(close_text(T, group, closing, {1: "Beto", 7: "Ana"}))
    assert "Lo que pasó: quien la jugó eligió tirar el 5 de basto 🪵, y esa mano le costó" in text
    named = Closing((Answer(1, 0, True),), ((1, 1),), (), True)
    text = plain(close_text(T, group, named, {1: "Beto", 7: "Ana"}))
    assert "Lo que pasó: era una mano de Ana (partida 4): eligió tirar el 5 de basto 🪵, y esa" in (
        text), text  # fmt: skip


def test_the_cards_played_are_told_in_the_order_they_were_played() -> None:
    """"Te quedan: 2🪵 (ya tiraste 1🪵 y 11🍷…)" when the 11 went first: the order dealt, not
    the order the table saw."""
    puzzle = Puzzle(
        players=2, target=15, flor=False, hand=1, scores=(0, 2), mano=YOU,
        dealt=("1b", "2b", "11c"), held=("2b",),
        rounds=(((YOU, "11c"), (RIVAL, "12c")), ((RIVAL, "6c"), (YOU, "1b"))), calls=(),
        announced=(), pending=None, envido=23, worlds=48,
        choices=(Choice("0:t", Worth(2.9, 1.0), 0.0), Choice("0:p:2b", Worth(1.1, 1.0), 0.1)),
    )  # fmt: skip
    text = plain(question_text(T, puzzle))
    assert "Te quedan: 2🪵 (ya tiraste 11🍷 y 1🪵; tenías 23 de envido)" in text, text
    # (a table says "primera", "segunda": it read "1ª en la mesa: 11🍷 (vos), …")
    assert "\nPrimera: 11🍷 (vos), 12🍷 (rival) · la ganó el rival\n" in text, text
    assert "\nSegunda: 6🍷 (rival), 1🪵 (vos) · la ganaste\n" in text, text
