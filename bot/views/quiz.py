"""📝 A review you answer first: each costly moment of a match put as a question, with what the
person knew then ("Mano 4: ibas 12 a 20 · ... Te cantaron truco. ¿Qué hacés?"), a button a
choice; their answer, then what was best and what each was worth; the moments missed come back
later (a repaso, spaced)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from bot.ai.puzzle import Choice, Puzzle
from bot.ai.review import Moment, Review
from bot.callbacks import QuizData, QuizOp, pack
from bot.game import Action
from bot.i18n import Translator
from bot.views.common import Button, Keys, plain
from bot.views.daily import (
    choice_label,
    choice_text,
    question_text,
    right_ones,
    values_line,
)
from bot.views.review import (
    luck_text,
    number,
    praise_text,
    relation_text,
    worth_text,
    yardstick_text,
)


def asked(review: Review) -> list[int]:
    """The told slips that make a question (their place among the slips)."""
    return [i for i, m in enumerate(review.slips) if m.puzzle is not None]


def intro_text(t: Translator, review: Review, match: str) -> str:
    luck = (
        [luck_text(t, review.luck), yardstick_text(t, review.luck)]
        if review.luck is not None else []
    )  # fmt: skip
    return "\n".join([
        t("review.title", number=match), *luck,
        t("quiz.intro", decisions=review.decisions, weighed=review.weighed,
          count=len(asked(review))),
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


def worth_of(t: Translator, moment: Moment, choice: Choice) -> str:
    """What a choice of the moment was worth, as the whole review says it: an envido's with how
    often the envido was theirs (la mano del día's words give an envido its points alone)."""
    assert moment.puzzle is not None
    return worth_text(t, choice.code, choice.worth, moment.puzzle.pending, moment.envido_won)


def apart(best: float, other: float) -> float:
    """How much more `best` is than `other` as the values line tells them (each to a tenth, as
    babel rounds: half to even, of its decimal text), so that "+2,1" and "+1,6" are 0,5 apart
    (a player read "0,4 puntos más" beside them)."""
    tenth = Decimal("0.1")
    told = [Decimal(str(v)).quantize(tenth, rounding=ROUND_HALF_EVEN) for v in (best, other)]
    return float(told[0] - told[1])


def answer_text(t: Translator, moment: Moment, choice: int, right: bool) -> str:
    """What their answer was worth, what was best, what they did in the match."""
    p = moment.puzzle
    assert p is not None
    chosen = p.choices[choice]
    lines = [
        t("quiz.right" if right else "quiz.wrong", choice=choice_text(t, p, chosen.code),
          worth=worth_of(t, moment, chosen)),
    ]  # fmt: skip
    if not right:
        best = p.choices[right_ones(p)[0]]
        more = apart(best.worth.points, chosen.worth.points)
        lines.append(t("quiz.best", choice=choice_text(t, p, best.code),
                       worth=worth_of(t, moment, best), points=number(t, more)))  # fmt: skip
    # What the match's move cost is measured against difícil's move, which the worlds may rank
    # below their best (a player's reading saw "Lo mejor era cantar falta envido" beside
    # "🤖 Difícil: cantar envido"): the yardstick is named, so that the two never read as one.
    made = next(i for i, c in enumerate(p.choices) if c.code == moment.made)
    dificil = choice_text(t, p, moment.best)
    if made != choice:
        made_text = choice_text(t, p, moment.made)
        lines.append(t("quiz.made", choice=made_text, dificil=dificil,
                       cost=number(t, moment.cost)))  # fmt: skip
    else:
        lines.append(t("quiz.same", dificil=dificil, cost=number(t, moment.cost)))
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
    relation = relation_text(t, review)  # (the intro told the split: why these are not its parts)
    if relation is not None:
        lines.append(relation)
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



def quiz_json(
    t: Translator, review: Review, match: str, answers: Mapping[int, bool],
    chosen: Mapping[int, int] | None = None,
) -> dict[str, object]:  # fmt: skip
    """The web table's 📝 answered first: each asked moment as Telegram puts it (the question,
    a choice a button), and whether the person answered it already (`answers`: step -> their
    first answer right; `chosen`: step -> the choice they tapped first, where it was kept; an
    answered moment is told, never asked again, as on Telegram's list of what is due). The
    slips' own fields in `review_json` are what its answer reveals (`closed` keeps them back)."""
    chosen = chosen or {}
    moments: dict[str, object] = {}
    for index in asked(review):
        moment = review.slips[index]
        puzzle = moment.puzzle
        assert puzzle is not None
        answered = answers.get(moment.step)
        choice = chosen.get(moment.step)
        moments[str(index)] = {
            "question": plain(question_of(t, review, index, match)),
            "choices": [choice_label(t, c.code) for c in puzzle.choices],
            "answered": answered,
            "chosen": None if answered is None else choice,
            # (the worth of each choice is the answer: sent once answered, not before)
            "told": None if answered is None else plain(answered_text(t, moment, answered, choice)),
        }
    return {
        "intro": plain(
            t("quiz.intro", decisions=review.decisions, weighed=review.weighed, count=len(moments))
        ),
        "all": t("quiz.all"),
        "moments": moments,
    }


# A moment's fields in the review's JSON that tell nothing of its answer: where it is, what the
# person held and did, what they knew
OPEN_FIELDS = ("hand", "step", "praised", "dealt", "held", "scores", "pending", "made", "position")


def closed(data: dict[str, Any], review: Review, answers: Mapping[int, bool]) -> dict[str, Any]:
    """The web's review (`review_json`) with each moment still asked kept back: only where it
    is and what the person knew (`OPEN_FIELDS`), and no whole text (it tells every answer),
    until they answer it; the answer's route gives the rest then."""
    moments = list(data["moments"])
    asking = [i for i in asked(review) if review.slips[i].step not in answers]
    for index in asking:
        moments[index] = {k: moments[index][k] for k in OPEN_FIELDS} | {"asked": True}
    return data | {"moments": moments, "text": None if asking else data["text"]}


def answered_text(
    t: Translator, moment: Moment, right: bool, choice: int | None = None
) -> str:
    """A moment answered before: the choice tapped and what it was worth (only right or not,
    for an answer kept before its choice was), and what each choice was worth (the best move
    and the one made are the sheet's own lines)."""
    p = moment.puzzle
    assert p is not None
    if choice is not None and 0 <= choice < len(p.choices):
        chosen = p.choices[choice]
        head = t("quiz.right" if right else "quiz.wrong", choice=choice_text(t, p, chosen.code),
                 worth=worth_of(t, moment, chosen))  # fmt: skip
    else:
        head = t("quiz.right_pop" if right else "quiz.wrong_pop")
    return "\n".join([head, values_line(t, p)])
