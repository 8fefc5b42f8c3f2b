"""📝 A review you answer first: each costly moment of a match put as a question, with what the
person knew then ("Mano 4: ibas 12 a 20 · ... Te cantaron truco. ¿Qué hacés?"), a button a
choice; their answer, then what was best and what each was worth; the moments missed come back
later (a repaso, spaced)."""

from __future__ import annotations

from collections.abc import Mapping

from bot.ai.puzzle import Puzzle
from bot.ai.review import Moment, Review
from bot.callbacks import QuizData, QuizOp, pack
from bot.game import Action
from bot.i18n import Translator
from bot.views.common import Button, Keys
from bot.views.daily import (
    choice_label,
    choice_text,
    question_text,
    right_ones,
    values_line,
    worth_of,
)
from bot.views.review import luck_text, number, praise_text


def asked(review: Review) -> list[int]:
    """The told slips that make a question (their place among the slips)."""
    return [i for i, m in enumerate(review.slips) if m.puzzle is not None]


def intro_text(t: Translator, review: Review, match: str) -> str:
    luck = [luck_text(t, review.luck)] if review.luck is not None else []
    return "\n".join([
        t("review.title", number=match), *luck,
        t("quiz.intro", decisions=review.decisions, count=len(asked(review))),
    ])  # fmt: skip


def question_of(
    t: Translator, review: Review, index: int, match: str, again: bool = False
) -> str:
    """One moment as a question: "Pregunta 1 de 3" (or, come back, "🔁 Repaso · partida 12"),
    what the person knew then, and the question."""
    puzzle = review.slips[index].puzzle
    assert puzzle is not None
    order = asked(review)
    head = (
        t("quiz.again", number=match) if again
        else t("quiz.question", place=order.index(index) + 1, count=len(order))
    )  # fmt: skip
    return f"{head}\n{question_text(t, puzzle)}"


def question_keys(
    t: Translator, table_id: int, index: int, puzzle: Puzzle, again: bool
) -> Keys:
    """A button a choice (the cards on a row, the chants below); and the whole review at once."""
    op = QuizOp.AGAIN if again else QuizOp.ANSWER
    cards: list[Button] = []
    rest: list[Button] = []
    for choice, c in enumerate(puzzle.choices):
        button = Button(choice_label(t, c.code), pack(QuizData(table_id, index, op, choice)))
        (cards if Action.parse(c.code).card is not None else rest).append(button)
    everything = [] if again else [Button(t("quiz.all"), pack(QuizData(table_id, 0, QuizOp.ALL)))]
    return Keys.of([cards, *(rest[i : i + 2] for i in range(0, len(rest), 2)), everything])


def answer_text(t: Translator, moment: Moment, choice: int, right: bool) -> str:
    """What their answer was worth, what was best, what they did in the match."""
    p = moment.puzzle
    assert p is not None
    chosen = p.choices[choice]
    lines = [
        t("quiz.right" if right else "quiz.wrong", choice=choice_text(t, p, chosen.code),
          worth=worth_of(t, p, chosen)),
    ]  # fmt: skip
    if not right:
        best = p.choices[right_ones(p)[0]]
        lines.append(t("quiz.best", choice=choice_text(t, p, best.code),
                       worth=worth_of(t, p, best),
                       points=number(t, best.worth.points - chosen.worth.points)))  # fmt: skip
    made = next(i for i, c in enumerate(p.choices) if c.code == moment.made)
    if made != choice:
        made_text = choice_text(t, p, moment.made)
        lines.append(t("quiz.made", choice=made_text, cost=number(t, moment.cost)))
    else:
        lines.append(t("quiz.same", cost=number(t, moment.cost)))
    lines.append(values_line(t, p))
    return "\n".join(lines)


def next_keys(t: Translator, table_id: int, index: int, again: bool, more_due: bool) -> Keys:
    """After an answer: the next moment (or the rest of the review); after a repaso, the next
    one due, if any."""
    if again:
        if not more_due:
            return Keys(())
        return Keys.of([[Button(t("quiz.next_due"), pack(QuizData(0, 0, QuizOp.DUE)))]])
    return Keys.of([[Button(t("quiz.next"), pack(QuizData(table_id, index + 1, QuizOp.NEXT)))]])


def end_text(
    t: Translator, review: Review, answers: Mapping[int, bool], due: int
) -> str:
    """The end of a match's questions: how many they got right (and that the missed ones come
    back), the rest of the review (what was well played), and the moments of before due now."""
    order = asked(review)
    right = sum(1 for i in order if answers.get(review.slips[i].step, False))
    missed = sum(1 for i in order if answers.get(review.slips[i].step) is False)
    lines = [t("quiz.score", right=right, count=len(order))]
    if missed:
        lines.append(t("quiz.missed", count=missed))
    if review.praise:
        lines.append("")
        lines.append(t("review.praise_title"))
        lines.extend(praise_text(t, m) for m in review.praise)
    if due:
        lines.append("")
        lines.append(t("quiz.due", count=due))
    return "\n".join(lines)


def end_keys(t: Translator, table_id: int, due: int) -> Keys:
    rows = [[Button(t("quiz.all"), pack(QuizData(table_id, 0, QuizOp.ALL)))]]
    if due:
        rows.append([Button(t("quiz.next_due"), pack(QuizData(0, 0, QuizOp.DUE)))])
    return Keys.of(rows)

