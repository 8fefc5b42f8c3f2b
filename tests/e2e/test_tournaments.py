"""Tournaments in a group, through the real python-telegram-bot against the fake Bot API:
sign-ups with a tap, the bracket that runs itself, matches played in private chats, the
champion; bad taps refused; a restart in the middle of a round losing nothing."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.i18n import translator
from bot.league.tournament import Status, Tournament, knockout
from bot.views.common import phone_lines, plain
from bot.views.tournament import rules_text
from tests.conftest import GROUP, Harness, harness_with, make_settings
from tests.e2e.helpers import play_to_the_end
from tests.fakebot import BOT_ID, FakeTelegram, FakeUser, StoredMessage

NAMES = ["Ana", "Beto", "Caro", "Dani", "Eva", "Fede", "Gabi", "Hugo"]


@pytest.fixture
async def on_sqlite(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[Harness]:
    """A bot on SQLite only (the core's tournaments run on both databases in
    tests/service/test_tournaments.py)."""
    async with harness_with(fake, tmp_path / "t.db") as h:
        yield h
        # no exception escaped a handler, no outgoing call failed
        assert [r.getMessage() for r in h.errors.records] == []


def tourney_message(h: Harness) -> StoredMessage:
    """The group's newest tournament message (its sign-ups, then its bracket)."""
    return next(m for m in reversed(h.fake.live(GROUP)) if "🏆 <b>Torneo #" in m.text)


async def the_tournament(h: Harness) -> Tournament:
    rows = await h.db.fetchall("SELECT max(id) AS id FROM tournaments")
    found = await h.services.core.tournaments.get(rows[0]["id"])
    assert found is not None
    return found


async def sign_up(h: Harness, users: list[FakeUser], args: str = "") -> StoredMessage:
    users[0].send(GROUP, f"/torneo {args}".strip())
    await h.settle()
    message = tourney_message(h)
    for user in users:
        answer = await user.tap(GROUP, message.message_id, "✋ Anotarme")
        assert answer["text"] == "¡Te anotaste!", answer
        await h.settle()
    return h.fake.messages[GROUP][message.message_id]


async def two_started(
    h: Harness, first: str = "Ana", second: str = "Beto", base: int = 0
) -> list[FakeUser]:
    """Two players signed up and their tournament (a single final) started by the first."""
    users = [h.user(base + 1, first), h.user(base + 2, second)]
    message = await sign_up(h, users)
    await users[0].tap(GROUP, message.message_id, "▶️ Empezar")
    await h.settle()
    return users


async def play_tournament(h: Harness, users: list[FakeUser], seed: int) -> Tournament:
    async def over() -> bool:
        return (await the_tournament(h)).status is Status.FINISHED

    await play_to_the_end(h, users, seed=seed, max_taps=20_000, chat=0, stop=over)
    await h.settle()
    return await the_tournament(h)


async def test_a_whole_eight_player_knockout_read_as_the_group_and_a_player(
    on_sqlite: Harness,
) -> None:
    h = on_sqlite
    users = [h.user(201 + i, name) for i, name in enumerate(NAMES)]
    message = await sign_up(h, users, "15")
    text = plain(message.text)
    assert "eliminación directa · 1v1 · a 15" in text and "Anotados (8)" in text, text
    # when its sign-ups close it starts by itself, and the message says so
    assert re.search(r"⏱️ Empieza solo a las \d\d:\d\d con los anotados, o antes si Ana lo "
                     r"empieza\.", text), text  # fmt: skip
    # Someone else's taps on the opener's controls change nothing.
    answer = await users[3].tap(GROUP, message.message_id, "▶️ Empezar")
    assert answer["text"] == "Solo quien abrió el torneo o un admin puede hacer eso."
    answer = await users[3].tap(GROUP, message.message_id, "🔄 Serie: a un partido")
    assert answer["text"].startswith("Solo quien abrió el torneo")
    # A second sign-up is refused and changes nothing.
    answer = await users[1].tap(GROUP, message.message_id, "✋ Anotarme")
    assert answer["text"] == "Ya te anotaste."
    before = len(h.fake.calls_in(GROUP))
    first = len(h.fake.calls)
    answer = await users[0].tap(GROUP, message.message_id, "▶️ Empezar")
    assert answer["text"] == "¡Empieza el torneo!"
    await h.settle()
    t = await the_tournament(h)
    assert t.status is Status.RUNNING and len(t.entries) == 8
    # Four matches at once, each player told in private, no board per match in the group.
    tables = await h.services.core.tournaments.tables_of(t.id)
    assert len(tables) == 4
    for user in users:
        notices = [x for x in h.fake.texts(user.id) if "Tu partido del torneo" in x]
        assert len(notices) == 1 and "Cuartos de final" in notices[0], user.first_name
    stale = users[2].tap_data(GROUP, message.message_id, f"T:{t.id}:s:")  # a sign-up, too late
    answer = await users[2].answer_of(stale)
    assert answer["text"] == "El torneo ya empezó: las inscripciones están cerradas."

    t = await play_tournament(h, users, seed=38)
    assert t.champion is not None and len(t.fixtures) == 7
    champion = NAMES[t.entries[t.champion][0] - 201]
    # The group read it: the start, each of the seven results, the champion with the path.
    group = [plain(x) for x in h.fake.texts(GROUP)]
    results = [x for x in group if re.match(r"🏆 (Cuartos de final|Semifinales|Final):", x)]
    assert len(results) == 7, results
    assert any(re.search(r"\w pasa a semifinales\.", x) for x in results), results
    crowned = [x for x in group if f"🥇 ¡{champion} ganó el torneo!" in x]
    assert crowned and "· Final:" in crowned[-1] and "· Cuartos de final:" in crowned[-1]
    bracket = plain(tourney_message(h).text)
    assert f"🥇 Ganó el torneo: {champion}" in bracket and bracket.count("✅") == 7, bracket
    # Within the group's limits: no 429, and a few new messages a match (a result; the
    # final's start), the bracket's live score edited at the group's pace (coalesced: at
    # the tests' full speed, about one edit a hand).
    assert not [e for e in h.fake.errors if e[1] == 429]
    calls = len(h.fake.calls_in(GROUP)) - before
    sent = [c for c in h.fake.calls[first:] if c[2] == GROUP]
    posts = sum(1 for _, method, _ in sent if method == "sendMessage")
    assert posts <= 2 * 7 + 4, posts
    # the most in any one of the fake's minutes (Telegram's 20 a minute, its minute shrunk as
    # the tests' pacing is): the matches, played at full speed, never crowd the group
    _, minute = h.fake.group_limit
    times = h.fake.calls_in(GROUP)
    busiest = max(sum(1 for x in times if at <= x < at + minute) for at in times)
    assert busiest <= 20, busiest
    print(f"group calls: {calls} ({posts} new) for 7 matches, the busiest minute {busiest}")
    # A player's chat: the notice of each match, the hand, the end of each match.
    final = t.fixture(2, 0)
    assert final is not None and final.a is not None
    finalist = users[t.entries[final.a][0] - 201]
    notices = [x for x in h.fake.texts(finalist.id) if "Tu partido del torneo" in x]
    assert [n for n in notices if "Final)" in n], notices
    # /torneos keeps it, /yo counts it, /torneo opens the next one.
    users[0].send(GROUP, "/torneos")
    await h.settle()
    assert f"🥇 {champion}" in plain(h.fake.last(GROUP).text)
    winner = users[t.entries[t.champion][0] - 201]
    winner.send(GROUP, "/yo")
    await h.settle()
    assert "Torneos: 1 · ganados 1" in h.fake.last(GROUP).text
    if __import__("os").environ.get("TRUCO_SHOW"):
        print("\n---\n".join([*[x for x in group if x.startswith(("🏆", "🥇"))], bracket]))
        print("---\n" + "\n---\n".join(plain(x) for x in h.fake.texts(finalist.id)[:3]))


async def test_bad_input_changes_nothing(harness: Harness) -> None:
    h = harness
    ana, beto = h.user(301, "Ana"), h.user(302, "Beto")
    ana.send(GROUP, "/torneo 4v4")
    await h.settle()
    assert (
        "No entendí «4v4»" in h.fake.last(GROUP).text and "Uso: /torneo" in h.fake.last(GROUP).text
    )
    ana.send(GROUP, "/torneo liga")
    await h.settle()
    message = tourney_message(h)
    assert "liguilla" in plain(message.text)
    ana.send(GROUP, "/torneo ko")  # one open tournament a group (or topic)
    await h.settle()
    assert "Ya hay un torneo abierto" in h.fake.last(GROUP).text
    await ana.tap(GROUP, message.message_id, "✋ Anotarme")
    await h.settle()
    answer = await ana.tap(GROUP, message.message_id, "▶️ Empezar")  # a liguilla needs three
    assert answer["text"] == "Faltan 2 jugadores para empezar."
    answer = await beto.tap(GROUP, message.message_id, "🚪 Borrarme")
    assert answer["text"] == "No te anotaste en este torneo."
    forged = ana.tap_data(GROUP, message.message_id, "T:999:s:")
    assert (await ana.answer_of(forged))["text"] == "Ese torneo ya no está abierto."
    forged = ana.tap_data(GROUP, message.message_id, "T:1:z:")  # not an operation of ours
    assert (await ana.answer_of(forged))["text"] == (
        await ana.answer_of(ana.tap_data(GROUP, message.message_id, "zz:1"))
    )["text"]  # answered as any button we did not make
    t = await the_tournament(h)
    assert t.status is Status.SIGNUP and t.signed == [301]
    # Someone outside the group cannot sign up.
    beto.leave_group(GROUP)
    answer = await beto.tap(GROUP, message.message_id, "✋ Anotarme")
    assert "miembros" in answer["text"], answer
    assert (await the_tournament(h)).signed == [301]


async def test_a_restart_in_the_middle_of_a_round_loses_and_doubles_nothing(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    users: list[FakeUser]
    async with harness_with(fake, tmp_path / "t.db") as h:
        users = [h.user(401 + i, name) for i, name in enumerate(NAMES[:6])]
        message = await sign_up(h, users, "15")  # six: the two best seeds get byes
        await users[0].tap(GROUP, message.message_id, "▶️ Empezar")
        await h.settle()
        t = await the_tournament(h)
        assert [f.bye for f in t.fixtures if f.round == 0].count(True) == 2
        assert len(await h.services.core.tournaments.tables_of(t.id)) == 2
        for fixture in (f for f in t.fixtures if f.bye):  # told in private: no first round
            byed = t.entries[fixture.a if fixture.a is not None else fixture.b or 0][0]
            told = [plain(x) for x in h.fake.texts(byed) if x.startswith("☕")]
            assert len(told) == 1 and "semifinales" in told[0], told

        async def one_result() -> bool:
            return any(f.games for f in (await the_tournament(h)).fixtures)

        await play_to_the_end(h, users, seed=5, chat=0, stop=one_result)
        await h.restart()
        t = await play_tournament(h, users, seed=6)
    assert t.status is Status.FINISHED and t.champion is not None
    tables = [f.games for f in t.fixtures if not f.bye]
    assert all(len(g) == 1 for g in tables)  # one match each: nothing counted twice


@pytest.mark.postgresql
async def test_abandonar_in_private_concedes_the_tournament_match(harness: Harness) -> None:
    h = harness
    ana, beto = await two_started(h, base=500)
    beto.send(GROUP, "/abandonar")  # not at a table of the group: his match is the tournament's
    await h.settle()
    t = await the_tournament(h)
    assert t.status is Status.FINISHED and t.entries[t.champion or 0] == (501,)
    group = [plain(x) for x in h.fake.texts(GROUP)]
    assert any("🥇 ¡Ana ganó el torneo!" in x for x in group), group
    ana.send(ana.id, "/abandonar")  # nothing left to concede
    await h.settle()
    assert h.fake.last(ana.id).text == "Esta partida ya no está en juego."


async def test_a_pair_signs_up_together_with_a_link(harness: Harness) -> None:
    h = harness
    ana, beto, caro, dani = (
        h.user(601 + i, n) for i, n in enumerate(["Ana", "Beto", "Caro", "Dani"])
    )
    for user in (ana, beto):
        user.send(user.id, "/start")  # they can be written to in private
    await h.settle()
    ana.send(GROUP, "/torneo 2v2")
    await h.settle()
    message = tourney_message(h)
    answer = await ana.tap(GROUP, message.message_id, "🤝 Con pareja")
    assert answer["text"] == "Te mandé por privado el enlace para tu pareja."
    await h.settle()
    link = next(x for x in h.fake.texts(ana.id) if "Mandale este enlace" in x)
    token = re.search(r"start=(tp[\w-]+)", link)
    assert token is not None
    assert "(esperando pareja)" in plain(h.fake.messages[GROUP][message.message_id].text)
    beto.send(GROUP, "hola")  # a member of the group
    beto.send(beto.id, f"/start {token.group(1)}")
    await h.settle()
    assert "jugás el torneo #1 con Ana" in h.fake.last(beto.id).text
    text = plain(h.fake.messages[GROUP][message.message_id].text)
    assert "Anotados (2): Ana y Beto" in text and "esperando" not in text, text
    # the link is spent: someone else opening it is refused
    caro.send(GROUP, "hola")
    caro.send(caro.id, f"/start {token.group(1)}")
    await h.settle()
    assert h.fake.last(caro.id).text.startswith("No te pude sumar:")
    for user in (caro, dani):
        await user.tap(GROUP, message.message_id, "✋ Anotarme")
        await h.settle()
    await ana.tap(GROUP, message.message_id, "▶️ Empezar")
    await h.settle()
    t = await the_tournament(h)
    assert {tuple(sorted(e)) for e in t.entries} == {(601, 602), (603, 604)}


async def test_a_tournament_match_reminds_and_times_out_in_private_only(on_sqlite: Harness) -> None:
    h = on_sqlite
    await two_started(h, base=700)
    group_before = len(h.fake.texts(GROUP))
    table_id = next(iter((await h.services.core.tournaments.tables_of(1)).values()))
    table = await h.services.tables.get(table_id)
    assert table is not None and table.state is not None
    waited = table.seats[table.state.acting_seats()[0]]
    h.clock.advance(31)  # half the tournament's 60 s: a reminder, in private
    await h.until(lambda: any("te quedan" in t for t in h.fake.texts(waited or 0)))
    h.clock.advance(30)  # the timer moves for them: said in private too
    await h.until(lambda: any("Se le acabó el tiempo" in t for t in h.fake.texts(waited or 0)))
    await h.settle()
    new = [plain(t) for t in h.fake.texts(GROUP)[group_before:]]
    assert not any("te quedan" in t or "Se le acabó" in t for t in new), new


async def test_when_neither_side_ever_comes_the_better_seed_goes_through_and_the_group_is_told(
    on_sqlite: Harness,
) -> None:
    h = on_sqlite
    await two_started(h, base=800)
    t = await the_tournament(h)
    better = NAMES[t.entries[0][0] - 801]  # seed 1
    worse = NAMES[t.entries[1][0] - 801]
    table_id = next(iter((await h.services.core.tournaments.tables_of(t.id)).values()))
    for _ in range(2):  # each side's first turn runs out, nobody ever taps
        table = await h.services.tables.get(table_id)
        assert table is not None and table.state is not None
        waited = table.seats[table.state.acting_seats()[0]] or 0
        seen = sum("Se le acabó el tiempo" in x for x in h.fake.texts(waited))
        h.clock.advance(61)
        await h.until(lambda w=waited, s=seen: sum(  # type: ignore[misc]
            "Se le acabó el tiempo" in x for x in h.fake.texts(w)) > s)  # fmt: skip
    h.clock.advance(6)  # the next look of the sweep
    await h.until(lambda: any("no se presentó" in plain(x) for x in h.fake.texts(GROUP)))
    await h.settle()
    t = await the_tournament(h)
    assert t.status is Status.FINISHED and t.champion == 0, t.fixtures
    told = next(plain(x) for x in h.fake.texts(GROUP) if "no se presentó" in plain(x))
    assert f"no se presentó ninguno ({better} ni {worse})" in told, told
    assert f"mejor cabeza de serie: {better}" in told, told


@pytest.mark.postgresql
async def test_a_trio_keeps_its_mode_and_a_broken_tournament_is_shown_to_cancel(
    harness: Harness,
) -> None:
    h = harness
    ana, beto, caro = (h.user(901 + i, n) for i, n in enumerate(["Ana", "Beto", "Caro"]))
    for user in (ana, beto, caro):
        user.send(user.id, "/start")
        user.send(GROUP, "hola")
    await h.settle()
    ana.send(GROUP, "/torneo 3v3")
    await h.settle()
    message = tourney_message(h)
    await ana.tap(GROUP, message.message_id, "🤝 Con pareja")
    await h.settle()
    link = next(x for x in h.fake.texts(ana.id) if "Mandale este enlace" in x)
    token = re.search(r"start=(tp[\w-]+)", link)
    assert token is not None
    for user in (beto, caro):
        user.send(user.id, f"/start {token.group(1)}")
        await h.settle()
    answer = await ana.tap(GROUP, message.message_id, "🔄 Juego: 3v3")
    assert "equipo de 3 anotado junto" in answer["text"], answer
    await h.settle()
    t = await the_tournament(h)
    assert t.config.players == 6 and t.teams == [[901, 902, 903]]
    assert "🔄 Juego: 3v3" in str(h.fake.messages[GROUP][message.message_id].reply_markup)
    # As an older version left one: running, with entries its matches cannot seat.
    t.status, t.started_at, t.config = Status.RUNNING, h.clock(), replace(t.config, players=4)
    t.entries, t.fixtures = [(901, 902, 903), (904, 905, 906)], knockout(2)
    async with h.db.transaction() as conn:
        assert await h.services.core.tournaments.store.save(conn, t, t.version)
    h.clock.advance(6)
    await h.until(lambda: any("se trabó" in plain(x) for x in h.fake.texts(GROUP)))
    await h.settle()
    told = next(plain(x) for x in h.fake.texts(GROUP) if "se trabó" in plain(x))
    assert "Torneo #1" in told and "cancelarlo" in told, told
    bracket = tourney_message(h)
    assert "Se trabó" in plain(bracket.text), bracket.text
    h.clock.advance(6)  # more ticks: said once, logged once
    await h.services.core.sweep()
    h.clock.advance(6)
    await h.services.core.sweep()
    await h.settle()
    assert sum("se trabó" in plain(x) for x in h.fake.texts(GROUP)) == 1
    assert len(h.errors.records) == 1 and "tournament 1" in h.errors.records[0].getMessage()
    h.errors.records.clear()
    answer = await ana.tap(GROUP, bracket.message_id, "🛑 Cancelar torneo")
    assert answer["text"] == "Torneo cancelado."
    await h.settle()
    assert (await the_tournament(h)).status is Status.CANCELLED


async def test_a_2v2_match_starts_with_one_hand_message_each_sent_once(on_sqlite: Harness) -> None:
    """At a 2v2 tournament match's start each player gets one hand message; play coming to
    them a moment later edits it (it notified just now), never deletes and sends it again."""
    h = on_sqlite
    users = [h.user(1001 + i, n) for i, n in enumerate(["Ana", "Beto", "Caro", "Dani"])]
    message = await sign_up(h, users, "2v2")
    await users[0].tap(GROUP, message.message_id, "▶️ Empezar")
    await h.settle()

    def hand_ids(user: FakeUser) -> list[int]:
        return [m.message_id for m in h.fake.messages[user.id].values() if "Mano " in m.text]

    for user in users:
        assert len(hand_ids(user)) == 1, [m.text for m in h.fake.messages[user.id].values()]

    async def play_one() -> FakeUser:
        """Whoever the game waits on plays a card: the next to act (a person)."""
        table_id = next(iter((await h.services.core.tournaments.tables_of(1)).values()))
        table = await h.services.tables.get(table_id)
        assert table is not None and table.state is not None
        seat = table.state.acting_seats()[0]
        user = next(u for u in users if u.id == table.seats[seat])
        hand = next(m for m in h.fake.live(user.id) if "Mano " in m.text)
        card = next(b for b in hand.buttons() if b.get("callback_data", "").count(":") == 4)
        await user.tap(user.id, hand.message_id, card["text"])
        await h.settle()
        table = await h.services.tables.get(table_id)
        assert table is not None and table.state is not None
        return next(u for u in users if u.id == table.seats[table.state.acting_seats()[0]])

    for _ in range(4):  # a round played at once: play comes to each in turn
        await play_one()
    for user in users:
        assert len(hand_ids(user)) == 1, user.first_name  # edited, never sent again
    # Everyone looks away; play comes to someone: their hand comes anew (it notifies), and a
    # send that fails on the way is tried again without deleting the old message twice.
    h.clock.advance(25)
    h.fake.fail_next["sendMessage"] = (500, "Internal Server Error: try again", None)
    nxt = await play_one()
    live = [m for m in h.fake.live(nxt.id) if "Mano " in m.text]
    assert len(hand_ids(nxt)) == 2 and len(live) == 1, [m.text for m in live]
    gone = [e for e in h.fake.errors if "message to delete not found" in e[2]]
    assert not gone, h.fake.errors


async def test_torneo_again_leaves_the_earlier_sign_up_message_a_stub(harness: Harness) -> None:
    h = harness
    ana = h.user(1101, "Ana")
    ana.send(GROUP, "/torneo")
    await h.settle()
    first = tourney_message(h)
    await ana.tap(GROUP, first.message_id, "✋ Anotarme")
    await h.settle()
    ana.send(GROUP, "/torneo")  # shown again, below
    await h.settle()
    again = tourney_message(h)
    assert again.message_id != first.message_id and again.buttons()
    old = h.fake.messages[GROUP][first.message_id]
    assert not old.reply_markup, old.reply_markup  # no live-looking buttons
    assert "Empieza solo" not in old.text and "más abajo" in plain(old.text), old.text
    await ana.tap(GROUP, again.message_id, "🚪 Borrarme")  # the new one is the live one
    await h.settle()
    assert "Anotados (0)" in plain(h.fake.messages[GROUP][again.message_id].text)
    assert "más abajo" in plain(h.fake.messages[GROUP][first.message_id].text)


async def test_a_swiss_of_five_read_as_the_group_round_by_round(on_sqlite: Harness) -> None:
    """`/torneo suizo 3`: five players over three rounds through the real bot: each round's
    pairings and the table with its tie-break said once in plain words in the group's message,
    which fits a phone in 25 lines at every edit; a bye each round, told to who rests in
    private; each round opened when the one before ends; the champion, told in private last;
    /torneos, every match in the league."""
    h = on_sqlite
    users = [h.user(501 + i, name) for i, name in enumerate(NAMES[:5])]
    message = await sign_up(h, users, "suizo 3 15")
    text = plain(message.text)
    assert "sistema suizo (3 rondas) · 1v1 · a 15" in text and "Anotados (5)" in text, text
    await users[0].tap(GROUP, message.message_id, "▶️ Empezar")
    await h.settle()
    t = await the_tournament(h)
    assert t.status is Status.RUNNING and t.rounds == 1
    bracket = plain(tourney_message(h).text)
    assert "Ronda 1 de 3" in bracket and "descansa esta ronda y suma un punto" in bracket
    assert "Pts Des  Dif" in bracket, bracket
    resting = next(f.a for f in t.fixtures if f.bye)
    for user in users:  # the four who play are told; the one who rests is told so
        notices = [x for x in h.fake.texts(user.id) if "Tu partido del torneo" in x]
        assert len(notices) == (0 if t.entry_of(user.id) == resting else 1), user.first_name
        assert all("(Ronda 1 de 3)" in n for n in notices)
    shown: list[str] = []

    async def next_round() -> bool:
        found = await the_tournament(h)
        if found.rounds > len(shown) or found.status is Status.FINISHED:
            shown.append(plain(tourney_message(h).text))
            return True
        return False

    rng_seed = 50
    while (await the_tournament(h)).status is Status.RUNNING:
        rng_seed += 1
        await play_to_the_end(h, users, seed=rng_seed, max_taps=20_000, chat=0, stop=next_round)
    await h.settle()
    t = await the_tournament(h)
    assert t.status is Status.FINISHED and t.rounds == 3 and t.champion is not None
    print("\n" + "\n\n".join(shown))
    assert "Ronda 2 de 3" in shown[1] and "Ronda 1 de 3" not in shown[1], shown[1]
    byes = [f.a for f in t.fixtures if f.bye]
    assert len(byes) == len(set(byes)) == 3  # a bye each round, never twice to one
    met = [frozenset((f.a, f.b)) for f in t.fixtures if not f.bye]
    assert len(met) == len(set(met)) == 6  # no rematch
    group = [plain(x) for x in h.fake.texts(GROUP)]
    results = [x for x in group if re.match(r"🏆 Ronda \d de 3: ", x)]
    assert len(results) == 6, results
    assert sum("🔀 Empieza la Ronda 2 de 3." in x for x in group) == 1, group
    assert sum("🔀 Empieza la Ronda 3 de 3." in x for x in group) == 1, group
    champion = NAMES[t.entries[t.champion][0] - 501]
    assert any(f"🥇 ¡{champion} ganó el torneo!" in x for x in group)
    final = plain(tourney_message(h).text)
    assert f"🥇 Ganó el torneo: {champion}" in final and final.count("☕") == 3, final
    # Every edit of the group's message fits a phone; the tie-break said once, in plain words.
    edits = tourney_message(h).history
    tallest = max(edits, key=phone_lines)
    print(f"the tallest edit: {phone_lines(tallest)} phone lines")
    assert phone_lines(tallest) <= 25, (phone_lines(tallest), plain(tallest))
    plainly = "desempate: la suma de puntos de los rivales que enfrentaste"
    tables = [x for x in edits if "<pre>" in x]  # (its sign-ups came first)
    assert tables and all(plain(x).count(plainly) == 1 and "Buchholz" not in x for x in tables)
    # Who rests is told in private, once a round; the champion hears it in private, last.
    for fixture in (f for f in t.fixtures if f.bye):
        assert fixture.a is not None
        rested = t.entries[fixture.a][0]
        told = [plain(x) for x in h.fake.texts(rested) if x.startswith("☕")]
        assert sum(f"Ronda {fixture.round + 1} de 3" in x for x in told) == 1, told
    crowned = t.entries[t.champion][0]
    assert plain(h.fake.last(crowned).text).startswith("🏆 ¡Ganaste el torneo #1!")
    rows = await h.db.fetchall("SELECT count(*) AS n FROM matches WHERE chat_id = ?", GROUP)
    assert rows[0]["n"] == 6
    users[0].send(GROUP, "/torneos")
    await h.settle()
    past = plain(h.fake.last(GROUP).text)
    assert f"🥇 {champion}" in past and "sistema suizo (3 rondas)" in past, past


async def test_a_relampago_read_as_the_group_to_its_podium(on_sqlite: Harness) -> None:
    """`/torneo relampago 30`: four players through the real bot; whoever ends is paired again,
    the leaderboard is the group's one message, with the hour it ends and the minutes left
    (kept current by the sweep), a player pauses with a tap and comes back; a win a streak
    doubles is said so with its result; once the half hour is up the matches in play end and
    count, the podium is told, and the champion hears it in private last."""
    h = on_sqlite
    users = [h.user(601 + i, name) for i, name in enumerate(NAMES[:4])]
    message = await sign_up(h, users, "relampago 30 15")
    text = plain(message.text)
    assert "torneo relámpago de 30 min · 1v1 · a 15" in text, text
    await users[0].tap(GROUP, message.message_id, "▶️ Empezar")
    await h.settle()
    t = await the_tournament(h)
    assert (
        t.status is Status.RUNNING and len(await h.services.core.tournaments.tables_of(t.id)) == 2
    )
    assert t.started_at is not None
    end = t.started_at + 30 * 60
    hour = datetime.fromtimestamp(end, ZoneInfo(h.settings.timezone)).strftime("%H:%M")
    board = tourney_message(h)
    assert f"⏱️ Termina a las {hour} · quedan 30 min" in plain(board.text), board.text
    assert f'<tg-time unix="{int(end)}" format="t">{hour}</tg-time>' in board.text, board.text
    h.clock.advance(20)  # (less than a turn's half) no result: the sweep redraws the minutes
    await h.services.core.sweep()
    await h.until(lambda: "quedan 29 min" in plain(tourney_message(h).text))

    def results() -> int:
        return sum(1 for x in h.fake.texts(GROUP) if plain(x).startswith("🏆 Relámpago: "))

    async def counted(n: int) -> bool:
        await h.settle()
        return results() >= n

    await play_to_the_end(h, users, seed=101, max_taps=20_000, chat=0, stop=lambda: counted(3))
    board = tourney_message(h)
    answer = await users[3].tap(GROUP, board.message_id, "⏸️ Pausa / volver")
    assert answer["text"].startswith("En pausa"), answer
    await h.settle()
    middle = plain(tourney_message(h).text)
    assert "Dani está en pausa" in middle and "Pts PJ  Dif" in middle, middle
    await play_to_the_end(h, users, seed=102, max_taps=20_000, chat=0, stop=lambda: counted(5))
    answer = await users[3].tap(GROUP, tourney_message(h).message_id, "⏸️ Pausa / volver")
    assert answer["text"].startswith("¡Volviste!"), answer
    await h.settle()
    h.clock.advance(30 * 60)  # the time is up: what is in play finishes, nothing more opens
    # Every turn's deadline passed with it: the timer's moves are made now, not by a periodic
    # sweep racing the next tap (which would then find its button stale).
    await h.services.core.sweep()
    await h.settle()

    async def over() -> bool:
        return (await the_tournament(h)).status is Status.FINISHED

    await play_to_the_end(h, users, seed=103, max_taps=20_000, chat=0, stop=over)
    h.clock.advance(6)  # (the sweep's next look, should the last match have ended by time)
    await h.until(lambda: any("🥇 ¡" in x for x in h.fake.texts(GROUP)))
    await h.settle()
    t = await the_tournament(h)
    assert t.status is Status.FINISHED and t.champion is not None
    end = plain(tourney_message(h).text)
    group = [plain(x) for x in h.fake.texts(GROUP)]
    podium = next(x for x in group if "🥇 ¡" in x)
    print("\n" + middle + "\n\n" + end + "\n\n" + podium)
    assert "🥈" in podium and "🥉" in podium and " pts" in podium, podium
    assert "En juego" not in end and "Relámpago" not in end, end
    assert results() == len(t.fixtures), group
    # each win a streak doubled said so when it was told (and no other)
    streak, doubled = [0] * len(t.entries), 0
    for fixture in sorted(t.fixtures, key=lambda f: f.key):
        winner = fixture.winner
        assert winner is not None
        doubled += streak[winner] >= 2
        streak[winner] += 1
        streak[fixture.b if winner == fixture.a else fixture.a or 0] = 0
    told = [x for x in group if x.startswith("🏆 Relámpago: ")]
    assert doubled and sum("· 🔥 ×2" in x for x in told) == doubled, (doubled, told)
    print("\n".join(told))
    # the champion told in private too, the last word in their chat
    champion = t.entries[t.champion][0]
    assert plain(h.fake.last(champion).text).startswith("🏆 ¡Ganaste el torneo #1!")
    rows = await h.db.fetchall("SELECT count(*) AS n FROM matches WHERE chat_id = ?", GROUP)
    assert rows[0]["n"] == len(t.fixtures)
    _, minute = h.fake.group_limit
    times = h.fake.calls_in(GROUP)
    busiest = max(sum(1 for x in times if at <= x < at + minute) for at in times)
    assert not [e for e in h.fake.errors if e[1] == 429] and busiest <= 20, busiest
    print(f"group calls {len(times)}, the busiest minute {busiest}")


async def test_a_tournament_set_for_later_through_the_bot(on_sqlite: Harness) -> None:
    """`/torneo a las HH:MM` in the group's time zone (the operator's here): sign-ups now, the
    hour on its message, a private reminder ten minutes before (once each), the start by
    itself; a bad hour is answered and opens nothing."""
    h = on_sqlite
    ana, beto = h.user(901, "Ana"), h.user(902, "Beto")
    for bad, said in (("a las 25:00", "No entiendo esa hora"), ("hoy 0:00", "ya pasó")):
        ana.send(GROUP, f"/torneo {bad}")
        await h.settle()
        assert said in plain(h.fake.last(GROUP).text), h.fake.last(GROUP).text
    assert (await h.db.fetchall("SELECT count(*) AS n FROM tournaments"))[0]["n"] == 0
    zone = ZoneInfo(h.settings.timezone)
    hour = datetime.fromtimestamp(h.clock() + 3 * 3600 + 60, zone).strftime("%H:%M")
    message = await sign_up(h, [ana, beto], f"a las {hour}")
    assert re.search(rf"Empieza (hoy|mañana) a las {hour}", plain(message.text)), message.text
    t = await the_tournament(h)
    assert t.status is Status.SIGNUP and t.starts_at is not None
    assert datetime.fromtimestamp(t.starts_at, zone).strftime("%H:%M") == hour
    h.clock.now = t.starts_at - 10 * 60
    for user in (901, 902):
        await h.until(lambda u=user: any("⏰" in x for x in h.fake.texts(u)))  # type: ignore[misc]
    await h.settle()
    h.clock.advance(6)  # more sweeps: nobody is told twice
    await h.settle()
    for user in (901, 902):
        assert [plain(x) for x in h.fake.texts(user) if "⏰" in x] == [
            f"⏰ En diez minutos, a las {hour}, empieza el torneo #{t.id} ("
            + plain(rules_text(translator("es"), t)) + "). Te anotaste: tus partidos te llegan "
            "acá, por privado."
        ]  # fmt: skip
    h.clock.now = t.starts_at
    await h.until(lambda: any("¡Empieza el torneo" in x for x in h.fake.texts(GROUP)))
    await h.settle()
    assert (await the_tournament(h)).status is Status.RUNNING


async def test_the_groups_time_zone_from_config_and_a_call_off_for_too_few(
    on_sqlite: Harness,
) -> None:
    """An admin sets the group's time zone in /config (Madrid): `/torneo mañana 22` is 22:00
    in Madrid; one alone signed up at that hour: it is called off, told in the group and to
    them."""
    h = on_sqlite
    boss, ana = h.user(909, "Boss"), h.user(901, "Ana")
    h.fake.admins[GROUP].add(909)
    boss.send(GROUP, "/config")
    await h.settle()
    panel = h.fake.last(GROUP)
    assert "🔄 Hora: Buenos Aires" in [b["text"] for b in panel.buttons()]
    shown = "Buenos Aires"
    while shown != "Madrid":
        await boss.tap(GROUP, panel.message_id, f"🔄 Hora: {shown}")
        await h.settle()
        panel = h.fake.messages[GROUP][panel.message_id]
        shown = next(b["text"] for b in panel.buttons() if "Hora:" in b["text"])[len("🔄 Hora: "):]
    message = await sign_up(h, [ana], "mañana 22")
    assert "Empieza mañana a las 22:00" in plain(message.text), message.text
    t = await the_tournament(h)
    assert t.zone == "Europe/Madrid" and t.starts_at is not None
    assert datetime.fromtimestamp(t.starts_at, ZoneInfo("Europe/Madrid")).hour == 22
    h.clock.now = t.starts_at
    said = f"🛑 El torneo #{t.id} no se juega: a las 22:00 se había anotado 1 y hacían falta 2."
    await h.until(lambda: any(said == plain(x) for x in h.fake.texts(GROUP)))
    await h.until(lambda: any(said == plain(x) for x in h.fake.texts(901)))
    await h.settle()
    assert (await the_tournament(h)).status is Status.CANCELLED


async def test_a_restart_between_the_reminder_and_the_start_tells_nobody_twice(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    path = tmp_path / "t.db"
    async with harness_with(fake, path) as h:
        ana, beto = h.user(901, "Ana"), h.user(902, "Beto")
        zone = ZoneInfo(h.settings.timezone)
        hour = datetime.fromtimestamp(h.clock() + 3 * 3600 + 60, zone).strftime("%H:%M")
        await sign_up(h, [ana, beto], f"at {hour}")
        t = await the_tournament(h)
        assert t.starts_at is not None
        starts = t.starts_at
        h.clock.now = starts - 10 * 60
        for user in (901, 902):
            await h.until(lambda u=user: any("⏰" in x for x in h.fake.texts(u)))  # type: ignore[misc]
        await h.settle()
    again = Harness(fake, make_settings(f"http://127.0.0.1:{fake.port}/bot", path))
    again.clock.now = starts - 5 * 60
    await again.start()
    try:
        await again.settle()
        again.clock.advance(6)  # sweeps after the restart, before the hour
        await again.settle()
        again.clock.now = starts
        await again.until(lambda: any("¡Empieza el torneo" in x for x in fake.texts(GROUP)))
        await again.settle()
        for user in (901, 902):
            assert sum("⏰" in x for x in fake.texts(user)) == 1, fake.texts(user)
        assert sum("¡Empieza el torneo" in x for x in fake.texts(GROUP)) == 1
    finally:
        await again.stop()


@pytest.mark.parametrize("rights", [True, False])
async def test_the_champion_is_told_in_private_and_tagged_where_the_bot_may(
    fake: FakeTelegram, tmp_path: Path, rights: bool
) -> None:
    """The champion hears it in their own chat too ("🏆 ¡Ganaste el torneo"); where the bot is
    an administrator with the right to manage tags (Bot API 9.5) the group shows them as
    "Campeón"; where it is not, nothing is tried that Telegram would refuse."""
    async with harness_with(fake, tmp_path / "c.db") as h:
        if rights:
            h.fake.admins[GROUP].add(BOT_ID)
            h.fake.tag_rights.add(GROUP)
        users = await two_started(h, base=900)
        t = await play_tournament(h, users, seed=5)
        assert t.champion is not None
        winner = t.entries[t.champion][0]
        loser = next(u.id for u in users if u.id != winner)
        assert any("🏆 ¡Ganaste el torneo" in x for x in h.fake.texts(winner))
        assert not any("🏆 ¡Ganaste el torneo" in x for x in h.fake.texts(loser))
        assert h.fake.tags == ({(GROUP, winner): "Campeón"} if rights else {})
        assert not [m for _, m, _ in h.fake.calls if m == "setChatMemberTag"] or rights
        won = [m for m in h.fake.live(winner) if m.effect]  # 🎉 over "¡Ganaste!" in private
        assert won and all(m.chat_id > 0 for m in won)


async def test_a_groups_first_tournament_is_its_number_one(on_sqlite: Harness) -> None:
    """Tournaments are numbered in each group: one opened in another group before does not
    make this group's first "#2" (in its message, the start, the champion's private word,
    /torneos); its buttons keep the tournament's one id. The group's next is its #2."""
    h = on_sqlite
    other = -100_556
    h.user(1290, "Zoe").send(other, "/torneo")
    await h.settle()
    assert any(plain(x).startswith("🏆 Torneo #1") for x in h.fake.texts(other))
    users = await two_started(h, base=1200)
    t = await the_tournament(h)
    assert t.id == 2
    board = tourney_message(h)
    assert plain(board.text).startswith("🏆 Torneo #1\n"), board.text
    assert any(b.get("callback_data", "").startswith(f"T:{t.id}:") for b in board.buttons())
    assert any("¡Empieza el torneo #1!" in plain(x) for x in h.fake.texts(GROUP))
    t = await play_tournament(h, users, seed=7)
    assert t.champion is not None
    crowned = t.entries[t.champion][0]
    assert plain(h.fake.last(crowned).text).startswith("🏆 ¡Ganaste el torneo #1!")
    users[0].send(GROUP, "/torneos")
    await h.settle()
    assert plain(h.fake.last(GROUP).text).split("\n")[1].startswith("#1 · "), h.fake.last(GROUP)
    users[0].send(GROUP, "/torneo")
    await h.settle()
    assert plain(tourney_message(h).text).startswith("🏆 Torneo #2\n")
