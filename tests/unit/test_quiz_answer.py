"""The answer to a review's question names its two yardsticks apart: what was best over the
worlds (the question's right answer) and difícil's move (what the match's move cost is measured
against). A player's reading (2026-12-07) saw "Lo mejor era cantar falta envido" beside
"🤖 Difícil: cantar envido" and "te costó 1,2 puntos" with nothing saying which was which."""

from __future__ import annotations

from bot.ai.puzzle import Choice, Puzzle
from bot.ai.review import Moment
from bot.ai.weigh import Worth
from bot.i18n import translator
from bot.views.common import plain
from bot.views.daily import choice_text
from bot.views.quiz import answer_text

ENVIDO, FALTA, CARD = "0:e", "0:fe", "0:p:4c"


def moment() -> Moment:
    puzzle = Puzzle(
        players=2, target=30, flor=False, hand=3, scores=(4, 6), mano=0,
        dealt=("7e", "6e", "4c"), held=("7e", "6e", "4c"), rounds=(), calls=(), announced=(),
        pending=None, envido=33, worlds=48,
        choices=(Choice(ENVIDO, Worth(0.2, 0.6), 0.3), Choice(FALTA, Worth(0.6, 0.6), 0.0),
                 Choice(CARD, Worth(-1.0, 0.4), 0.3)),
    )  # fmt: skip
    return Moment(
        hand=3, step=2, dealt=puzzle.dealt, held=puzzle.held, table=(), scores=(4, 6), calls=(),
        pending=None, envido=33, made=CARD, best=ENVIDO, made_worth=Worth(-1.0, 0.4),
        best_worth=Worth(0.2, 0.6), error=0.3, habit="envido", worlds=48, puzzle=puzzle,
    )  # fmt: skip


def test_the_answer_names_dificils_move_as_the_yardstick_of_the_matchs_cost() -> None:
    t = translator("es")
    m = moment()
    assert m.puzzle is not None
    dificil = plain(choice_text(t, m.puzzle, ENVIDO))
    for choice in range(3):  # (envido: difícil's; falta: the best; the card: the match's)
        told = plain(answer_text(t, m, choice, choice == 1))
        assert f"🤖 difícil ({dificil})" in told, told
        assert "1,2 puntos" in told, told


def test_a_question_with_every_card_played_says_so() -> None:
    """A player's reading of a practice's review (2026-12-07): a truco answered after all three
    cards were played read "Te quedan:  (ya tiraste 2🪵, 1🪵 y 11🍷; tenías 23 de envido)"."""
    from dataclasses import replace

    from bot.views.daily import question_text

    p = moment().puzzle
    assert p is not None
    done = replace(p, held=(), dealt=("2b", "1b", "11c"), envido=23, pending="truco",
                   rounds=(((0, "11c"), (1, "12c")),), choices=p.choices[:2])  # fmt: skip
    for language, said in (
        ("es", "Ya tiraste tus tres cartas: 2🪵, 1🪵 y 11🍷 (tenías 23 de envido)"),
        ("en", "You played all three cards: 2🪵, 1🪵 and 11🍷 (you had 23 of envido)"),
    ):
        text = plain(question_text(translator(language), done))
        assert said in text and ":  " not in text, text


def test_a_right_answer_reads_as_a_sentence() -> None:
    """Read after a practice (2026-12-07): "✅ ¡Bien! querer el vale cuatro: la mano era tuya
    …", the choice in lower case after the exclamation. It reads as the wrong one does."""
    m = moment()
    es = plain(answer_text(translator("es"), m, 1, True))
    assert es.startswith("✅ ¡Bien! Elegiste cantar falta envido: "), es
    en = plain(answer_text(translator("en"), m, 1, True))
    assert en.startswith("✅ Well done! You chose calling falta envido: "), en
