"""What the tables waiting in the admission line cost the tables in play (issue 71): a join
checks the private chat only when the person's hand place is not known, and a table that
joins the line tells its group so in one call (its lobby, which then says the place)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import harness_with
from tests.e2e.helpers import open_table
from tests.fakebot import OVERALL_COUNTED, FakeTelegram

FIRST, SECOND = -100_821, -100_822
CHECK = "Te sumaste a la mesa"  # the private check's words (dm.joined)


async def test_a_join_of_a_person_whose_hand_place_is_known_sends_no_private_check(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    async with harness_with(fake, tmp_path / "known.db") as h:
        ana, beto, caro = h.user(720, "Ana"), h.user(721, "Beto"), h.user(722, "Caro")
        beto.send(beto.id, "/start")  # Beto's private chat is known: his hand goes there
        await h.settle()
        caro.send(FIRST, "/mano grupo")  # Caro chose the group: no private chat needed
        await h.settle()
        await open_table(h, [ana, beto], chat=FIRST)
        assert not any(CHECK in text for text in fake.texts(beto.id)), fake.texts(beto.id)
        assert fake.live(beto.id), "no hand in Beto's private chat"  # his hand there, as known
        # a person the bot knows nothing of is still checked (that is how it learns)
        assert any(CHECK in text for text in fake.texts(ana.id))

        await open_table(h, [caro, ana], chat=SECOND)  # now Ana is known too
        assert sum(CHECK in text for text in fake.texts(ana.id)) == 1
        assert not any(CHECK in text for text in fake.texts(caro.id))


async def test_a_table_that_joins_the_line_tells_its_group_in_one_call(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    async with harness_with(fake, tmp_path / "line.db", max_live_tables=1) as h:
        ana, beto, caro, dani = (h.user(730 + i, n) for i, n in enumerate("ABCD"))
        await open_table(h, [ana, beto], chat=FIRST)
        caro.send(SECOND, "/nueva")
        await h.settle()
        lobby = fake.last(SECOND)
        since = fake.calls[-1][0]
        answer = await dani.tap(SECOND, lobby.message_id, "✋ Unirme")
        await h.settle()
        assert "puesto 1" in answer["text"], answer  # the joiner told at once, for free
        calls = [(m, c) for at, m, c in fake.calls
                 if m in OVERALL_COUNTED and c == SECOND and at > since]  # fmt: skip
        assert calls == [("editMessageText", SECOND)], calls
        text = fake.messages[SECOND][lobby.message_id].text
        assert "Completa, en la fila para empezar: puesto 1." in text, text


async def test_a_join_that_fills_a_table_into_the_line_is_answered_before_its_check(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """A person the bot does not know joins a table that, full, waits in line: their tap is
    answered at once, and the check of their private chat (which can wait: their deal is a
    match away) comes after, behind the turns of the tables in play; it still comes."""
    async with harness_with(fake, tmp_path / "later.db", max_live_tables=1) as h:
        ana, beto, caro, dani = (h.user(740 + i, n) for i, n in enumerate("ABCD"))
        await open_table(h, [ana, beto], chat=FIRST)
        opened = fake.calls[-1][0]
        caro.send(SECOND, "/nueva")  # (so is the opener's, whose table will wait too)
        await h.settle()
        lobby = fake.last(SECOND)
        since = fake.calls[-1][0]
        answer = await dani.tap(SECOND, lobby.message_id, "✋ Unirme")
        assert "puesto 1" in answer["text"], answer
        await h.until(lambda: any(CHECK in text for text in fake.texts(caro.id)))
        sent = [c for at, m, c in fake.calls if at > opened and m == "sendMessage"]
        assert sent.index(SECOND) < sent.index(caro.id), sent  # the lobby first
        await h.until(lambda: any(CHECK in text for text in fake.texts(dani.id)))
        order = [m for at, m, c in fake.calls if at > since and (c == dani.id or c is None)
                 and m in ("answerCallbackQuery", "sendMessage")]  # fmt: skip
        assert order[:2] == ["answerCallbackQuery", "sendMessage"], order


async def test_a_person_whose_check_failed_is_not_checked_again_at_their_next_join(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Eva never started the bot: her first join tries her private chat (refused) and her hand
    lives in the group; at her next join that is known, nothing is tried, and she is shown
    where her cards will be in the group as before."""
    async with harness_with(fake, tmp_path / "refused.db") as h:
        ana, beto, eva = h.user(750, "Ana"), h.user(751, "Beto"), h.user(752, "Eva", started=False)

        def tries() -> int:
            return sum(1 for _, m, c in fake.calls if m == "sendMessage" and c == eva.id)

        await open_table(h, [ana, eva], chat=FIRST)
        assert tries() == 1 and fake.ephemeral_live(FIRST, eva.id)
        await open_table(h, [beto, eva], chat=SECOND)
        assert tries() == 1, tries()
        shown = fake.ephemeral_live(SECOND, eva.id)
        assert len(shown) == 1 and "Tus cartas:" in shown[0].text
