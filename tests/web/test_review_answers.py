"""📝 answered first on the web, read at the JSON (the real bot and its web server, SQLite and
PostgreSQL): before a costly moment is answered, the review's JSON holds nothing of its answer
(not the best move, not what the move made cost, not the whole review's text); the answer's
route gives what was best once the person answered; the choice tapped is kept, so a reload
says which it was; the whole review at once (`?all=1`, "📄 Ver la revisión entera") tells
everything, as Telegram's button does."""

from __future__ import annotations

from typing import Any

import pytest

from bot.i18n import translator
from bot.views.common import plain
from bot.views.quiz import answer_text, answered_text, asked
from tests.conftest import GROUP, harness_with
from tests.e2e.helpers import open_table, play_to_the_end
from tests.e2e.test_web import call, launch
from tests.fakebot import FakeTelegram

T = translator("es")
# What a moment's JSON says of its answer: the best move, what each move was worth, the words
# that tell them
REVEALING = {
    "best", "cost", "made_points", "best_points", "made_won", "best_won", "text", "title",
    "best_act", "made_worth", "best_worth", "made_shown", "best_shown", "shown",
}  # fmt: skip


def closed(moment: dict[str, Any]) -> bool:
    return REVEALING.isdisjoint(moment)


@pytest.mark.postgresql
async def test_the_review_json_keeps_the_answer_until_the_question_is_answered(
    fake: FakeTelegram, db_target: Any
) -> None:
    async with harness_with(fake, db_target, webapp_url="https://x.invalid/t", web_port=0) as h:
        ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
        await open_table(h, [ana, juan], "1v1 15 sinflor")
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None
        await play_to_the_end(h, [ana, juan], seed=3)
        await h.settle()
        route = f"/api/table/{table.id}/review"
        code, data = await call(h, "GET", route, launch(h, ana))
        assert code == 200, data
        review = await h.services.core.reviews.of(table.id, ana.id)
        order = asked(review)
        assert order, "a match whose review asks a question"
        # Before an answer: each asked moment says where it is, nothing of its answer.
        for index in order:
            moment = data["moments"][index]
            assert closed(moment), moment
            assert moment["step"] == review.slips[index].step
            assert data["quiz"]["moments"][str(index)]["answered"] is None
        assert data["text"] is None  # (the whole review's text tells every answer)

        # A wrong tap: the answer's route tells what was best, and which choice it was.
        first = review.slips[order[0]]
        assert first.puzzle is not None
        wrong = next(i for i in range(len(first.puzzle.choices)) if i not in first.puzzle.right)
        code, told = await call(
            h, "POST", route + "/answer", launch(h, ana), {"index": order[0], "choice": wrong}
        )  # fmt: skip
        assert code == 200, told
        assert told["right"] is False and told["choice"] == wrong
        assert told["told"] == plain(answer_text(T, first, wrong, False))
        assert told["moment"]["best"] == first.best
        assert told["moment"]["cost"] == round(first.cost, 2)

        # A reload: the choice tapped, told as at the tap; the moments not answered still closed.
        code, again = await call(h, "GET", route, launch(h, ana))
        quiz = again["quiz"]["moments"][str(order[0])]
        assert (quiz["answered"], quiz["chosen"]) == (False, wrong)
        assert quiz["told"] == plain(answered_text(T, first, False, wrong))
        assert again["moments"][order[0]] == told["moment"]
        assert all(closed(again["moments"][i]) for i in order[1:])
        row = await h.services.core.history.store.db.fetchone(
            "SELECT choice FROM review_choices WHERE user_id = ? AND game_id = ? AND step = ?",
            ana.id, table.id, first.step,
        )  # fmt: skip
        assert row is not None and row["choice"] == wrong

        # A second tap on it (asked again before it is due) keeps the first choice.
        await call(h, "POST", route + "/answer", launch(h, ana),
                   {"index": order[0], "choice": first.puzzle.best})  # fmt: skip
        code, again = await call(h, "GET", route, launch(h, ana))
        assert again["quiz"]["moments"][str(order[0])]["chosen"] == wrong

        # The whole review at once: everything, as before.
        code, whole = await call(h, "GET", route + "?all=1", launch(h, ana))
        assert code == 200
        assert all(not closed(m) for m in whole["moments"])
        assert whole["text"] and whole["moments"][order[0]]["best"] == first.best
