"""📝 A review you answer first, through the real bot (PTB against the fake Bot API): /revision
asks each costly moment as a question, with what the person knew then, before it tells what
was best and what each choice was worth; the moments missed come back later, spaced (a day,
three, a week, three weeks), in /revision repaso and at the end of a later review."""

from __future__ import annotations

import re

import pytest

from bot.ai.puzzle import Puzzle
from bot.ai.review import Review
from bot.i18n import translator
from bot.service.review import AGAIN
from bot.views.common import plain
from bot.views.quiz import asked, intro_text, question_of
from bot.views.review import luck_text, month_luck_text, review_pages
from tests.conftest import GROUP, Harness
from tests.e2e.test_daily import reviewed_match
from tests.fakebot import FakeUser, StoredMessage

T = translator("es")


def choices(message: StoredMessage) -> dict[int, str]:
    """A question's answer buttons: the choice's place -> its label."""
    return {
        int(b["callback_data"].split(":")[4]): b["text"]
        for b in message.buttons() if b["callback_data"].startswith("q:")
        and b["callback_data"].split(":")[3] in "ar" and len(b["callback_data"].split(":")) == 5
    }  # fmt: skip


def parts(told: str) -> int:
    """The cards' points and the decisions' as told ("las cartas te costaron unos 8 puntos;
    tus decisiones te dieron 3"), added up."""
    total = 0
    for what in ("las cartas", "tus decisiones"):
        found = re.search(
            what + r" (?:salieron más o menos parejas \()?te (dieron|costaron)"
            r"(?: unos| alrededor de)? (\d+)", told,
        )  # fmt: skip
        if found is not None:
            total += int(found.group(2)) * (1 if found.group(1) == "dieron" else -1)
    return total


async def ask(h: Harness, user: FakeUser, text: str) -> str:
    user.send(user.id, text)
    await h.settle()
    return h.fake.last(user.id).text


async def tap(h: Harness, user: FakeUser, message: StoredMessage, label: str) -> str:
    said = await user.tap(user.id, message.message_id, label)
    await h.settle()
    return str(said["text"])


def puzzle_of(review: Review, question: StoredMessage) -> Puzzle:
    """The puzzle of the question a message asks (its buttons say which moment)."""
    index = int(question.buttons()[0]["callback_data"].split(":")[2])
    found = review.slips[index].puzzle
    assert found is not None
    return found


async def row(h: Harness, user: FakeUser, number: int, step: int) -> tuple[int, float | None]:
    found = await h.services.core.reviews.store.answered(user.id, number, step)
    assert found is not None
    return found


@pytest.mark.postgresql
async def test_a_review_is_answered_question_by_question_and_the_missed_come_back(
    harness: Harness,
) -> None:
    h = harness
    ana = h.user(1, "Ana")
    number = await reviewed_match(h, ana, 13)
    review: Review = await h.services.core.reviews.of(number, ana.id)
    order = asked(review)
    assert len(order) >= 2, "pick a seed whose review has two moments to ask"
    first = h.fake.last(ana.id)
    intro = intro_text(T, review, str(number))
    assert first.text == intro + "\n\n" + question_of(T, review, order[0], str(number))
    assert "¿Qué hacés?" in first.text and "Lo mejor" not in first.text  # (the answer: after)
    # ¿suerte o viveza?: the result split, told so that it adds up
    luck = review.luck
    assert luck is not None and luck_text(T, luck) in first.text
    assert luck.result == parts(plain(luck_text(T, luck)))
    # and in /yo, over the month's reviewed matches
    yo = await ask(h, ana, "/yo")
    assert month_luck_text(T, 1, luck.result, luck.decisions, luck.noise) in yo, yo

    # a wrong answer: what it was worth, what was best, what she did in the match
    puzzle = review.slips[order[0]].puzzle
    assert puzzle is not None
    wrong = next(i for i in range(len(puzzle.choices)) if i not in puzzle.right)
    assert await tap(h, ana, first, choices(first)[wrong]) == "No era esa."
    first = h.fake.messages[ana.id][first.message_id]
    text = plain(first.text)
    assert "❌ Elegiste" in text and "Lo mejor era" in text and "Puntos de cada opción" in text
    assert choices(first) == {}  # (answered: its buttons are gone, the next one is offered)
    now = h.clock.now
    assert await row(h, ana, number, review.slips[order[0]].step) == (1, now + AGAIN[0])

    # the next one, right
    await tap(h, ana, first, "Siguiente ▶️")
    second = h.fake.last(ana.id)
    assert plain(second.text).startswith("Pregunta 2 de")
    puzzle = review.slips[order[1]].puzzle
    assert puzzle is not None
    assert await tap(h, ana, second, choices(second)[puzzle.best]) == "¡Bien!"
    assert "✅ ¡Bien!" in plain(h.fake.messages[ana.id][second.message_id].text)
    assert await row(h, ana, number, review.slips[order[1]].step) == (0, None)  # (learned)
    last = second
    for _ in order[2:]:
        await tap(h, ana, h.fake.messages[ana.id][last.message_id], "Siguiente ▶️")
        last = h.fake.last(ana.id)
        await tap(h, ana, last, choices(last)[puzzle_of(review, last).best])
    await tap(h, ana, h.fake.messages[ana.id][last.message_id], "Siguiente ▶️")
    end = plain(h.fake.last(ana.id).text)
    assert f"Acertaste {len(order) - 1} de {len(order)}" in end and "vuelve mañana" in end, end
    # the whole review, at once
    await tap(h, ana, h.fake.last(ana.id), T("quiz.all"))
    assert plain(h.fake.last(ana.id).text) == plain(review_pages(T, review, str(number))[0])

    # not due yet: /revision repaso has nothing to ask
    ana.send(ana.id, "/revision repaso")
    await h.settle()
    assert h.fake.last(ana.id).text == T("quiz.none_due")
    # a day later the missed one is due: the end of a review offers it, missed again: a day on
    h.clock.advance(AGAIN[0])
    await tap(h, ana, h.fake.messages[ana.id][last.message_id], "Siguiente ▶️")
    assert "🔁 Y tenés 1 de antes para repasar ahora." in plain(h.fake.last(ana.id).text)
    await tap(h, ana, h.fake.last(ana.id), T("quiz.next_due"))
    again = h.fake.last(ana.id)
    assert plain(again.text).startswith(f"🔁 Repaso · de la partida {number}")
    puzzle = review.slips[order[0]].puzzle
    assert puzzle is not None
    assert await tap(h, ana, again, choices(again)[wrong]) == "No era esa."
    assert await row(h, ana, number, review.slips[order[0]].step) == (1, h.clock.now + AGAIN[0])
    # a day later, /revision repaso asks it: right, the next box, three days on
    h.clock.advance(AGAIN[0])
    ana.send(ana.id, "/revision repaso")
    await h.settle()
    again = h.fake.last(ana.id)
    assert plain(again.text).startswith(f"🔁 Repaso · de la partida {number}")
    assert await tap(h, ana, again, choices(again)[puzzle.best]) == "¡Bien!"
    assert await row(h, ana, number, review.slips[order[0]].step) == (2, h.clock.now + AGAIN[1])
    ana.send(ana.id, "/revision repaso")
    await h.settle()
    assert h.fake.last(ana.id).text == T("quiz.none_due")
    # someone else's buttons, or a match not hers: refused, nothing kept
    beto = h.user(2, "Beto")
    data = f"q:{number}:{order[0]}:a:0"
    said = await beto.answer_of(beto.tap_data(beto.id, 1, data))
    assert said["text"] == T("refusal.review_not_yours")
    assert await h.services.core.reviews.store.answered(beto.id, number, 0) is None
    assert GROUP < 0
