"""The table in the group: a member who never opened the bot's private chat sits with ✋ and
plays the whole match in the group, their hand an ephemeral message only they see (Bot API
10.2/10.3), brought by 🃏 Mis cartas on the board (or sent by the bot at the deal when it is an
administrator of the group)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.model.table import HandPlace
from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import match_over
from tests.fakebot import BOT_ID, FakeTelegram, FakeUser, StoredMessage

MY_CARDS = "🃏 Mis cartas"


def board(h: Harness) -> StoredMessage:
    """The group's board: the newest group message with 🃏."""
    found = [m for m in h.fake.live(GROUP) if any(b["text"] == MY_CARDS for b in m.buttons())]
    assert found, "no board"
    return found[-1]


def hand_here(h: Harness, user: FakeUser) -> StoredMessage | None:
    """The user's hand in the group: their newest ephemeral message with moves on it."""
    found = [
        m for m in h.fake.ephemeral_live(GROUP, user.id)
        if any(str(b.get("callback_data", "")).startswith("a:") for b in m.buttons())
    ]
    return found[-1] if found else None


async def play_in_the_group(
    h: Harness, users: list[FakeUser], seed: int, max_taps: int = 3000
) -> int:
    """Tap legal moves on the hands shown in the group until the match ends; a player whose
    hand is not shown (never sent, lost, vanished) taps 🃏 on the board. The taps made."""
    rng = random.Random(seed)
    cards_taps = 0
    for taps in range(max_taps):
        await h.settle()
        if match_over(h):
            return taps
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None and table.state is not None
        acting = {table.seats[a.seat] for a in table.state.legal_actions()}
        movers = [u for u in users if u.id in acting]
        assert movers, "the game waits on nobody"
        user = rng.choice(movers)
        shown = hand_here(h, user)
        if shown is None:
            cards_taps += 1
            assert cards_taps < 200, "🃏 keeps failing to bring the hand"
            await user.tap(GROUP, board(h).message_id, MY_CARDS)
            continue
        moves = [b for b in shown.buttons() if str(b.get("callback_data", "")).startswith("a:")]
        button = rng.choice(moves)
        user.tap_ephemeral_data(GROUP, shown.message_id, button["callback_data"])
    if max_taps >= 100:
        raise AssertionError("the match did not end")
    return max_taps


async def open_in_the_group(h: Harness, users: list[FakeUser], args: str = "") -> None:
    users[0].send(GROUP, f"/nueva {args}".strip())
    await h.settle()
    lobby = h.fake.last(GROUP)
    for index, user in enumerate(users[1:], start=1):
        teams = "2v2" in args or "3v3" in args
        label = f"✋ Equipo {index % 2 + 1}" if teams else "✋ Unirme"
        answer = await user.tap(GROUP, lobby.message_id, label)
        assert answer["url"] is None, answer  # (no trip to the private chat)
        assert "jugás acá en el grupo" in answer["text"], answer
        await h.settle()


@pytest.mark.parametrize("admin", [False, True], ids=["bot-not-admin", "bot-admin"])
@pytest.mark.parametrize("mode", ["15", "2v2 15"])
async def test_a_match_of_people_who_never_started_the_bot_is_played_in_the_group(
    fake: FakeTelegram, tmp_path: Path, mode: str, admin: bool
) -> None:
    """1v1 and 2v2, the bot an administrator of the group or not: members who never opened
    its private chat play the whole match in the group, not one private message."""
    async with harness_with(fake, tmp_path / "g.db") as h:
        if admin:
            h.fake.admins[GROUP].add(BOT_ID)
        names = ["Ana", "Beto", "Caro", "Dani"][: 4 if "2v2" in mode else 2]
        users = [h.user(11 + i, name, started=False) for i, name in enumerate(names)]
        ana = users[0]
        await open_in_the_group(h, users, mode)
        if admin:  # each dealt hand shown at once, to its player alone
            for user in users:
                shown = h.fake.ephemeral_live(GROUP, user.id)
                assert [m.receiver for m in shown] == [user.id], user.first_name
                assert "Tus cartas:" in shown[0].text
            assert "Tus cartas: tocá" not in board(h).text  # (nothing to ask of them)
        else:
            # Each joiner's ✋ let the bot show them a message in the group, which became
            # their hand at the deal; the opener typed /nueva (no tap): 🃏 brings theirs.
            for user in users[1:]:
                shown = h.fake.ephemeral_live(GROUP, user.id)
                assert len(shown) == 1 and "Tus cartas:" in shown[0].text, user.first_name
                first = shown[0].history[0]  # (the last to sit started the match: the hand)
                last = user is users[-1]
                assert first.startswith("Mano 1" if last else "🃏 Estás en la mesa."), first
            assert "Tus cartas: tocá «Mis cartas»" in board(h).text  # where to find them
            assert hand_here(h, ana) is None  # nothing lets the bot show it yet
            await ana.tap(GROUP, board(h).message_id, MY_CARDS)
            await h.settle()
            shown = h.fake.ephemeral_live(GROUP, ana.id)
            assert len(shown) == 1 and "Tus cartas:" in shown[0].text
        taps = await play_in_the_group(h, users, seed=len(names) + admin)
        assert taps > 0 and match_over(h)
        # Not one private message: the whole match lived in the group.
        assert not any(h.fake.live(u.id) for u in users)
        assert not h.errors.records, [r.getMessage() for r in h.errors.records]
        # each player who saw their hand sees the end said to them there
        for user in users:
            last = h.fake.ephemeral_live(GROUP, user.id)
            if last:
                assert last[-1].text.startswith(("🏆 ¡Gana", "🥈 Perdi")), user.first_name


async def test_a_hand_that_never_arrives_or_vanishes_comes_back_with_one_tap(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Telegram does not promise delivery, and an ephemeral message may disappear: the hand
    Beto's tap asked for never shows; Ana's vanishes mid-hand. Each taps 🃏 once more and has
    it again (the toast of the tap tells the cards at once); the match goes on to its end."""
    async with harness_with(fake, tmp_path / "v.db") as h:
        h.fake.admins[GROUP].add(BOT_ID)
        ana, beto = h.user(41, "Ana", started=False), h.user(42, "Beto", started=False)
        await open_in_the_group(h, [ana, beto], "15")
        h.fake.lose_next(GROUP, beto.id)  # (his app was offline a moment)
        await beto.tap(GROUP, board(h).message_id, MY_CARDS)
        await h.settle()
        assert h.fake.ephemeral_live(GROUP, ana.id) and not h.fake.ephemeral_live(GROUP, beto.id)
        answer = await beto.tap(GROUP, board(h).message_id, MY_CARDS)
        assert answer["text"].startswith("Tus cartas: ") and not answer["show_alert"]
        await h.settle()
        shown = h.fake.ephemeral_live(GROUP, beto.id)
        assert len(shown) == 1 and shown[0].text.startswith("Mano 1")
        # Ana's hand vanishes (her app restarted): the bot's edits find it gone; she taps 🃏.
        h.fake.vanish(GROUP, ana.id)
        assert not h.fake.ephemeral_live(GROUP, ana.id)
        await ana.tap(GROUP, board(h).message_id, MY_CARDS)
        await h.settle()
        assert len(h.fake.ephemeral_live(GROUP, ana.id)) == 1
        for _ in range(3):  # and again, later in the match (the loop taps 🃏 when it must)
            h.fake.vanish(GROUP, ana.id)
            await play_in_the_group(h, [ana, beto], seed=4, max_taps=3)
        await play_in_the_group(h, [ana, beto], seed=4)
        assert match_over(h)
        assert not h.fake.live(ana.id) and not h.fake.live(beto.id)


async def test_stale_forged_and_others_taps_on_a_hand_in_the_group_change_nothing(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    async with harness_with(fake, tmp_path / "f.db") as h:
        h.fake.admins[GROUP].add(BOT_ID)
        ana, beto = h.user(51, "Ana", started=False), h.user(52, "Beto", started=False)
        eve = h.user(53, "Eve", started=False)
        eve.joins(GROUP)
        await open_in_the_group(h, [ana, beto], "15 sinflor")
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None and table.state is not None
        mover = ana if table.seats[table.state.legal_actions()[0].seat] == ana.id else beto
        other = beto if mover is ana else ana
        mine = hand_here(h, mover)
        assert mine is not None
        truco = mine.button("¡Truco!")["callback_data"]
        step = table.state.step
        # Someone else sends the mover's button (forged: they never saw it)
        answer = await other.answer_of(other.tap_data(GROUP, board(h).message_id, truco))
        assert answer["text"] != "" and (await h.services.tables.get(table.id)).state.step == step  # type: ignore[union-attr]
        answer = await eve.answer_of(eve.tap_data(GROUP, board(h).message_id, truco))
        assert answer["text"] == "No estás jugando en esta mesa."
        answer = await mover.answer_of(mover.tap_data(GROUP, board(h).message_id, "a:zz"))
        assert answer["text"] == "Ese botón no es válido."
        # The real tap moves the game; the same button again is stale
        mover.tap_ephemeral_data(GROUP, mine.message_id, truco)
        await h.settle()
        after = await h.services.tables.get(table.id)
        assert after is not None and after.state is not None and after.state.step == step + 1
        answer = await mover.answer_of(mover.tap_ephemeral_data(GROUP, mine.message_id, truco))
        assert answer["text"] == "Esa jugada ya pasó."
        await h.settle()
        assert (await h.services.tables.get(table.id)).state.step == step + 1  # type: ignore[union-attr]


async def test_when_telegram_will_not_show_the_hand_the_tap_still_tells_the_cards(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """A bot that is no administrator, and a tap whose window passed before the hand could go
    (here: a window of zero): the hand is not shown, nothing fails, the toast said the cards."""
    async with harness_with(fake, tmp_path / "w.db") as h:
        ana, beto = h.user(61, "Ana", started=False), h.user(62, "Beto", started=False)
        await open_in_the_group(h, [ana, beto], "15")
        h.fake.ephemeral_window = 0.0
        answer = await ana.tap(GROUP, board(h).message_id, MY_CARDS)
        assert answer["text"].startswith("Tus cartas: ") and "envido" in answer["text"].lower()
        await h.settle()
        assert not h.fake.ephemeral_live(GROUP, ana.id)
        assert not h.errors.records, [r.getMessage() for r in h.errors.records]
        h.fake.ephemeral_window = 15.0
        await ana.tap(GROUP, board(h).message_id, MY_CARDS)
        await h.settle()
        assert len(h.fake.ephemeral_live(GROUP, ana.id)) == 1


async def test_an_ephemeral_command_is_answered_to_its_asker_alone(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """/reglas, /ayuda, /yo, /mano are registered as ephemeral commands (Bot API 10.2): sent
    so, the answer is shown to the asker alone, in the group; nobody else sees anything. The
    same command sent as any other is answered in the group, as before."""
    async with harness_with(fake, tmp_path / "c.db") as h:
        registered = {c["command"]: c.get("is_ephemeral", False) for c in h.fake.commands[None]}
        assert {n for n, e in registered.items() if e} == {"yo", "reglas", "ayuda", "revision",
                                                            "mano"}  # fmt: skip
        ana = h.user(71, "Ana", started=False)
        before = len(h.fake.live(GROUP))
        for command in ("/reglas", "/ayuda", "/yo", "/mano"):
            asked = ana.send(GROUP, command, ephemeral=True)
            await h.settle()
            answer = h.fake.ephemeral_answers.get((GROUP, asked))
            assert answer is not None, command
            shown = h.fake.ephemeral[(GROUP, ana.id)][answer]
            assert shown.receiver == ana.id and len(shown.text) > 40, command
        assert len(h.fake.live(GROUP)) == before  # the group saw nothing
        assert "🃏 Tu mano vive en el grupo" in shown.text  # (/mano: she never started the bot)
        ana.send(GROUP, "/reglas")
        await h.settle()
        assert len(h.fake.live(GROUP)) == before + 1


async def test_a_3v3_with_hands_in_the_group_in_private_chats_and_on_the_web_table(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Six at one table, each playing where they like: two who never started the bot, in the
    group; three in their private chats; one on the web table (the Mini App's API, as its page
    calls it). The match, pica-pica and all, is played to its end."""
    from tests.e2e.test_web import call, launch  # (the web table's signed requests)

    async with harness_with(
        fake, tmp_path / "m.db", webapp_url="https://truco.example.invalid/table",
        webapp_name="mesa", web_port=0,
    ) as h:  # fmt: skip
        names = ["Ana", "Beto", "Caro", "Dani", "Eva", "Fede"]
        here = {0, 3}  # never started the bot: in the group
        users = [h.user(81 + i, n, started=i not in here) for i, n in enumerate(names)]
        web = users[4]
        await open_in_the_group_mixed(h, users, "3v3 15", here)
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None
        rng = random.Random(6)
        moves = {"group": 0, "private": 0, "web": 0}
        for _ in range(3000):
            await h.settle()
            if match_over(h):
                break
            table = await h.services.tables.get(table.id)
            assert table is not None and table.state is not None
            acting = {table.seats[a.seat] for a in table.state.legal_actions()}
            user = rng.choice([u for u in users if u.id in acting])
            if users.index(user) in here:
                shown = hand_here(h, user)
                if shown is None:
                    await user.tap(GROUP, board(h).message_id, MY_CARDS)
                    continue
                options = [b for b in shown.buttons()
                           if str(b.get("callback_data", "")).startswith("a:")]  # fmt: skip
                data = rng.choice(options)["callback_data"]
                user.tap_ephemeral_data(GROUP, shown.message_id, data)
                moves["group"] += 1
            elif user is web:
                status, view = await call(h, "GET", f"/api/table/{table.id}", launch(h, user))
                assert status == 200
                action = rng.choice(view["actions"])
                _, kind, *card = action["code"].split(":")  # (as the page sends it)
                body = {"step": view["step"], "kind": kind, "card": card[0] if card else None}
                status, _ = await call(h, "POST", f"/api/table/{table.id}/act", launch(h, user),
                                       body)  # fmt: skip
                assert status in (200, 409)
                moves["web"] += 1
            else:
                message = [m for m in h.fake.live(user.id) if any(
                    str(b.get("callback_data", "")).startswith("a:") for b in m.buttons())]
                assert message, user.first_name
                options = [b for b in message[-1].buttons()
                           if str(b.get("callback_data", "")).startswith("a:")]  # fmt: skip
                user.tap_data(user.id, message[-1].message_id, rng.choice(options)["callback_data"])
                moves["private"] += 1
        assert match_over(h), moves
        assert all(moves.values()), moves
        for index in here:  # nothing of theirs went to a private chat
            assert not h.fake.live(users[index].id)
        assert not h.errors.records, [r.getMessage() for r in h.errors.records]


async def open_in_the_group_mixed(
    h: Harness, users: list[FakeUser], args: str, here: set[int]
) -> None:
    users[0].send(GROUP, f"/nueva {args}")
    await h.settle()
    lobby = h.fake.last(GROUP)
    for index, user in enumerate(users[1:], start=1):
        answer = await user.tap(GROUP, lobby.message_id, f"✋ Equipo {index % 2 + 1}")
        assert answer["url"] is None
        assert ("jugás acá en el grupo" in answer["text"]) == (index in here), answer
        await h.settle()


@pytest.mark.postgresql
async def test_mano_chooses_where_a_hand_lives_and_it_is_remembered(harness: Harness) -> None:
    """/mano privado asks for the private chat (refused, with the way there, to whoever never
    started the bot); /mano grupo brings the hand to the group; the choice outlives the match."""
    h = harness
    ana, beto = h.user(91, "Ana"), h.user(92, "Beto", started=False)
    beto.send(GROUP, "/mano privado")
    await h.settle()
    assert "primero abrí el chat con el bot" in h.fake.last(GROUP).text
    ana.send(GROUP, "/mano grupo")  # she started the bot, and still wants her hand here
    await h.settle()
    assert "tu mano vive en el grupo" in h.fake.last(GROUP).text
    await open_in_the_group(h, [beto, ana], "15")
    await beto.tap(GROUP, board(h).message_id, MY_CARDS)
    await h.settle()
    assert h.fake.ephemeral_live(GROUP, ana.id) and h.fake.ephemeral_live(GROUP, beto.id)
    assert not [m for m in h.fake.live(ana.id) if "Mano 1" in m.text]  # nothing in private
    ana.send(ana.id, "/mano")
    await h.settle()
    assert "Tu mano vive en el grupo" in h.fake.last(ana.id).text
    ana.send(ana.id, "/mano privado")
    await h.settle()
    assert "tu mano te llega en privado" in h.fake.last(ana.id).text
    assert await h.services.core.people.plays_in(ana.id) is HandPlace.PRIVATE
