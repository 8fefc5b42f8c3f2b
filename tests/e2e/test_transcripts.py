"""Whole matches played through the buttons, read back message by message as players read
them: every board the group saw and every private hand, checked against the engine's own
account of the match (a replay of the action log)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.game import MatchConfig, MatchState, replay
from bot.game.actions import parse_any
from bot.game.events import (
    CardPlayed,
    EnvidoResolved,
    Event,
    FlorResolved,
    HandDealt,
    HandEnd,
    HandEnded,
    RoundWon,
    Scored,
)
from bot.model.table import Table
from bot.storage.snapshots import to_json
from bot.views.common import card_short, phone_lines, plain
from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import open_table, play_to_the_end, read_account
from tests.e2e.test_history import readme_snippet
from tests.explained import check
from tests.fakebot import FakeTelegram, FakeUser, StoredMessage

ENDS = ("🏆", "🥈")  # a player's own end of the match: won, lost
MOST_LINES = 20  # the board at its busiest, at 36 characters a line (bench/board_lines.py)
WORDS = {
    "es": {
        "hand": "Mano",
        "and": " y ",
        "son_buenas": "son buenas",
        "rematch": "🔁 Revancha",
        "review": "📝 Mi revisión",
        "counted": "ya sum(?:ó|aron)",
        "won": r"🏆 ¡Gana(?:ste|ron vos y \w+), \d+ a \d+!|🏆 ¡Ganaste \d+ a \d+!",
        "lost": r"🥈 Perdi(?:ste|eron vos y \w+,) \d+ a \d+\.",
        "how": r"^(Con|Porque) .*, en la mano \d+[.:]|^Ganando la mano \d+[.:]",
    },
    "en": {
        "hand": "Hand",
        "and": " and ",
        "son_buenas": "son buenas (concedes)",
        "rematch": "🔁 Rematch (revancha)",
        "review": "📝 My review",
        "counted": "had already scored",
        "won": r"🏆 You (?:and \w+ )?won \d+–\d+!",
        "lost": r"🥈 You (?:and \w+ )?lost \d+–\d+\.",
        "how": r"^(With|Because) .*, in hand \d+[.:]|^Winning hand \d+[.:]",
    },
}


@pytest.fixture
async def h(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[Harness]:
    async with harness_with(fake, tmp_path / "truco.db") as harness:
        yield harness


def versions(message: StoredMessage) -> list[str]:
    return message.history or [message.text]  # (an edit is kept in the history as it lands)


def boards(h: Harness) -> list[str]:
    """Every text the group's board ever showed, in order."""
    return [
        text
        for m in h.fake.messages[GROUP].values()
        for text in versions(m)
        if text.startswith("🃏 <b>Truco</b>")
    ]


async def finished(h: Harness) -> tuple[Table, list[list[Event]]]:
    """The last table of the group and the events of each hand, from its action log."""
    rows = await h.db.fetchall("SELECT max(id) AS id FROM games WHERE chat_id = ?", GROUP)
    table = await h.services.tables.get(rows[0]["id"])
    assert table is not None and table.state is not None and table.state.is_over
    log = await h.store.action_log(table.id)
    state = MatchState(table.config)
    hands: list[list[Event]] = []
    for _, _, code in log:
        events = state.apply(parse_any(code))
        if any(isinstance(e, HandDealt) for e in events):
            hands.append([])
        hands[-1].extend(events)
    assert (
        to_json(replay(table.config, [parse_any(c) for _, _, c in log])) == to_json(table.state)
    )
    return table, hands


def said_text(names: list[str], event: EnvidoResolved | FlorResolved, son_buenas: str) -> str:
    return " · ".join(
        f"{names[w.seat]} {son_buenas if w.value is None else w.value}" for w in event.values
    )


def deciding(hands: list[list[Event]], number: int) -> tuple[int, str] | None:
    """The seat whose card won the last round of hand `number`, and that card ("3🗡️"), when
    rounds decided it."""
    events = hands[number - 1]
    end = next((e for e in events if isinstance(e, HandEnded)), None)
    if end is None or end.reason is not HandEnd.ROUNDS:
        return None
    last = [e for e in events if isinstance(e, RoundWon)][-1]
    if last.seat is None:
        return None
    played = [e for e in events if isinstance(e, CardPlayed) and e.seat == last.seat]
    return last.seat, card_short(played[-1].card)


async def check_transcript(h: Harness, users: list[FakeUser], language: str = "es") -> None:
    words = WORDS[language]
    table, hands = await finished(h)
    first = {u.id: u.first_name for u in users}
    names = [first[u] for u in table.seats if u is not None]
    sides = [words["and"].join(names[side::2]) for side in (0, 1)]
    seen = boards(h)
    assert len(seen) > 2 * len(hands), (len(seen), len(hands))

    # The board fits a phone at every moment of the match.
    tallest = max(seen, key=phone_lines)
    assert phone_lines(tallest) <= MOST_LINES, plain(tallest)

    # Every pending chant names one singer and what each answer is worth.
    pending = [line for b in seen for line in plain(b).splitlines() if line.startswith("⏳")]
    assert pending, "nobody chanted in the whole match: pick another seed"
    for line in pending:
        singer = line[2:].split(":")[0]
        assert singer in names, line
        assert line.count("→") >= 2, line  # "Quiero → vale 2 · No quiero → Ana +1"

    # Every version of the board, and of each player's hand message, explains every point
    # the score moves by, on the same screen.
    check(seen, sides, "board")
    for user in users:
        hand_texts = [
            text for _, text in h.fake.timeline[user.id] if not text.startswith((*ENDS, "✅"))
        ]
        assert check(hand_texts, sides, f"{user.first_name}'s chat") > len(hands)

    # Each hand's end is told, on the board and in every player's chat: what the engine
    # scored, side by side, and the card that won the hand's last round.
    for reader, texts in [("board", seen)] + [
        (u.first_name, [text for _, text in h.fake.timeline[u.id]]) for u in users
    ]:
        records: dict[int, str] = {}
        for text in texts:
            for line in plain(text).splitlines():
                if m := re.match(rf"🏁 {words['hand']} (\d+): (.*)", line):
                    records[int(m.group(1))] = m.group(2)
        assert sorted(records) == list(range(1, len(hands) + 1)), (reader, sorted(records))
        for number, text in records.items():
            for side in (0, 1):
                total = sum(e.points for e in hands[number - 1] if isinstance(e, Scored)
                            and e.side == side)  # fmt: skip
                told = [int(n) for n in re.findall(rf"{sides[side]} \+(\d+)", text)]
                told += [
                    int(n) for n in re.findall(rf"{sides[side]} {words['counted']} (\d+)", text)
                ]
                assert sum(told) == total, (reader, number, text, side, total)
            won = deciding(hands, number)
            if won is not None:
                seat, card = won
                assert f"{names[seat]} {card}" in text or f"{names[seat]}'s {card}" in text, (
                    reader, number, text,
                )  # fmt: skip
    # The values said in each hand, as said (R19), on a board of that hand or in its end.
    for number, events in enumerate(hands, start=1):
        for e in events:
            if isinstance(e, EnvidoResolved | FlorResolved) and e.values:
                said = said_text(names, e, words["son_buenas"])
                assert any(said in plain(b) for b in seen), (number, said)

    # Each player's own chat tells how it ended in a message of its own (it notifies), said
    # to them: won or lost, the score, how; a rematch button and their review; the last hand
    # message has nothing left to tap, and its last edit came before the end.
    state = table.state
    assert state is not None and state.winner is not None
    for user in users:
        mine = [m for m in h.fake.live(user.id) if m.text.startswith(ENDS)]
        assert len(mine) == 1, f"{user.first_name}'s chat never said who won"
        last = plain(mine[-1].text)
        side = table.geometry.side(table.seat_of(user.id) or 0)
        assert re.match(words["won" if side == state.winner else "lost"], last), last
        assert f": {state.scores[state.winner]}" in last, last
        assert "Tus cartas" not in last and "Your cards" not in last  # no dead hand
        assert [b["text"] for b in mine[-1].buttons()] == [words["rematch"], words["review"]]
        order = [m for m, _ in h.fake.timeline[user.id]]
        assert order[-1] == mine[-1].message_id, "the hand's last edit came after the end"

    # The group's end: who beat whom, the score, how, within 12 lines of a phone, after the
    # board's last edit (in its usual order); the seed is for /verificar, not for the eye.
    ended = [m for m in h.fake.live(GROUP) if m.text.startswith("🏆")]
    assert len(ended) == 1
    end = ended[0]
    lines = phone_lines(end.text)
    print(f"🏆 message: {lines} phone lines")
    assert lines <= 12, plain(end.text)
    assert f"/verificar {table.id}" in end.text and (table.seed or "-") not in end.text
    winners = words["and"].join(names[state.winner :: 2])
    assert winners in plain(end.text).splitlines()[0], plain(end.text)
    assert re.search(words["how"], plain(end.text).splitlines()[1]), plain(end.text)
    landed = [m for m, _ in h.fake.timeline[GROUP]]
    assert landed[-1] == end.message_id, "the board's last edit came after the 🏆"


async def test_a_1v1_match_read_back_message_by_message(h: Harness) -> None:
    users = [h.user(31, "Ana"), h.user(32, "Beto")]
    await open_table(h, users, "1v1 15 conflor")
    await play_to_the_end(h, users, seed=5)
    await check_transcript(h, users)


async def test_the_end_of_a_match_tells_the_story(h: Harness) -> None:
    """A 2v2 match decided by a falta envido in its first hand: the group reads who beat whom,
    the score and how ("con la falta envido querida, 27 a 23"); the league once for all four;
    each player reads it said to them."""
    users = [h.user(41, "Ana"), h.user(42, "Beto"), h.user(43, "Caro"), h.user(44, "Dani")]
    await open_table(h, users, "2v2 15 sinflor")
    await play_to_the_end(h, users, seed=6)
    await check_transcript(h, users)
    _table, _ = await finished(h)
    end = plain(next(m.text for m in h.fake.live(GROUP) if m.text.startswith("🏆")))
    print(end)
    assert end.startswith(
        "🏆 ¡Beto y Dani les ganaron 15 a 0 a Ana y Caro!\n"
        "Con la falta envido querida, 27 a 23, en la mano 1.\n"
    ), end
    assert end.count("4 partidas más") == 1  # said once for all
    assert "📊 Ana, Beto, Caro y Dani entran a /tabla en 4 partidas más" in end
    said = {
        42: "🏆 ¡Ganaron vos y Dani, 15 a 0!\nCon la falta envido querida, 27 a 23, en la mano 1.",
        41: "🥈 Perdieron vos y Caro, 0 a 15.\nCon la falta envido querida, 27 a 23, en la mano 1.",
    }
    for user_id, text in said.items():
        mine = next(m.text for m in h.fake.live(user_id) if m.text.startswith(ENDS))
        assert plain(mine).startswith(text), plain(mine)


async def test_a_2v2_match_read_back_message_by_message(h: Harness) -> None:
    users = [h.user(41, "Ana"), h.user(42, "Beto"), h.user(43, "Caro"), h.user(44, "Dani")]
    await open_table(h, users, "2v2 15 sinflor")
    await play_to_the_end(h, users, seed=6)
    await check_transcript(h, users)


async def test_a_1v1_match_in_english_glosses_the_spanish_words(h: Harness) -> None:
    ana, beto = h.user(51, "Ana"), h.user(52, "Beto")
    h.fake.admins[GROUP].add(ana.id)
    ana.send(GROUP, "/idioma")
    await h.settle()
    await ana.tap(GROUP, h.fake.last(GROUP).message_id, "🇬🇧 English")
    await h.settle()
    ana.send(GROUP, "/nueva 1v1 15")
    await h.settle()
    await beto.tap(GROUP, h.fake.last(GROUP).message_id, "✋ Join")
    await h.settle()
    await play_to_the_end(h, [ana, beto], seed=7)
    await check_transcript(h, [ana, beto], "en")
    text = "\n".join(plain(b) for b in boards(h))
    assert "is mano: leads" in text
    assert "Quiero (accept)" in text and "No quiero (decline)" in text


async def test_revancha_opens_the_same_table_again_for_those_who_played(h: Harness) -> None:
    ana, beto, carla = h.user(61, "Ana"), h.user(62, "Beto"), h.user(63, "Carla")
    await open_table(h, [ana, beto], "1v1 15 sinflor")
    await play_to_the_end(h, [ana, beto], seed=8)
    old, _ = await finished(h)
    ended = next(m for m in h.fake.live(GROUP) if m.text.startswith("🏆"))
    before = len(h.fake.live(GROUP))
    # Someone who did not play cannot start it, and nothing changes.
    answer = await carla.tap(GROUP, ended.message_id, "🔁 Revancha")
    assert answer["text"] == "La revancha es para los que jugaron esa partida."
    await h.settle()
    assert len(h.fake.live(GROUP)) == before
    # Ana, from her own chat: a lobby in the group, with the same options, Ana in her seat.
    mine = next(m for m in reversed(h.fake.live(ana.id)) if m.text.startswith(ENDS))
    answer = await ana.tap(ana.id, mine.message_id, "🔁 Revancha")
    assert answer["text"] == "🔁 Revancha: la mesa está abierta en el grupo."
    await h.settle()
    new = await h.services.tables.table_in(GROUP, 0)
    assert new is not None and new.id != old.id and new.rematch_of == old.id
    assert new.config == old.config and new.seats[old.seat_of(ana.id) or 0] == ana.id
    # A second tap on it (Ana again): she is already seated, it says so and changes nothing.
    answer = await ana.tap(ana.id, mine.message_id, "🔁 Revancha")
    assert answer["text"] == "Ya estás en la mesa."
    # Beto, from the group's message: he joins it, and the match starts.
    answer = await beto.tap(GROUP, ended.message_id, "🔁 Revancha")
    assert answer["text"] == "🔁 Revancha: mesa abierta."
    await h.settle()
    again = await h.services.tables.get(new.id)
    assert (
        again is not None
        and again.state is not None
        and again.seats[old.seat_of(beto.id) or 0] == beto.id
    )
    # A forged rematch of a match still being played is refused.
    query = ana.tap_data(GROUP, ended.message_id, f"r:{new.id}")
    assert (await ana.answer_of(query))[
        "text"
    ] == "Esa partida no terminó: no hay revancha todavía."


async def test_a_3v3_match_with_pica_pica_read_back_message_by_message(h: Harness) -> None:
    """Six people, /nueva 3v3, every move a tap in a private chat: pica-pica hands come in the
    window and each of their duels is told ("mano 4, duelo 2"); the score never moves without a
    line that says why, on the board and in each of the six chats; each chat gets the end."""
    names = ["Ana", "Beto", "Caro", "Dani", "Eva", "Fede"]
    users = [h.user(61 + i, name) for i, name in enumerate(names)]
    await open_table(h, users, "3v3 15")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.config.players == 6 and table.config.pica_pica
    await play_to_the_end(h, users, seed=37)
    done, hands = await finished(h)
    first = {u.id: u.first_name for u in users}
    seated = [first[u] for u in done.seats if u is not None]
    sides = [
        (f"{seated[s]}, {seated[s + 2]} y {seated[s + 4]}", f"los de {seated[s]}") for s in (0, 1)
    ]
    seen = boards(h)
    duels = [b for b in seen if re.search(r"mano \d+, duelo [123]", plain(b))]
    assert duels, "no pica-pica hand in a whole 3v3 match: pick another seed"
    assert any(re.search(r"🏁 Mano \d+, duelo 3:", plain(b)) for b in seen)
    # A duel's board says who faces whom (not who dealt), and the pica-pica hand's tally
    # stays up while its duels go on and once they are done.
    for board in duels:
        text = plain(board)
        assert re.search(rf"⚔️ ({'|'.join(names)}) contra ({'|'.join(names)})", text), text
        assert "(da " not in text, text
    assert any("pica-pica hasta acá:" in plain(b) for b in seen), "no pica-pica tally"
    assert any("pica-pica en total:" in plain(b) for b in seen), "no whole pica-pica tally"
    check(seen, sides, "board")
    for user in users:
        texts = [text for _, text in h.fake.timeline[user.id] if not text.startswith((*ENDS, "✅"))]
        assert check(texts, sides, f"{user.first_name}'s chat") > len(hands)
        mine = [m for m in h.fake.live(user.id) if m.text.startswith(ENDS)]
        assert len(mine) == 1, f"{user.first_name}'s chat never said who won"
    if os.environ.get("TRUCO_SHOW"):  # (to read as a player: a duel's board and a chat)
        print(plain(duels[len(duels) // 2]), "\n---")
        ana = [t for _, t in h.fake.timeline[users[0].id] if "⚔️" in t]
        print(plain(ana[len(ana) // 2]) if ana else "")
    # The league counts it: /tabla 3v3 has the six, with partners who won together.
    users[0].send(GROUP, "/tabla 3v3")
    await h.settle()
    standings = plain(h.fake.last(GROUP).text)
    assert "3v3" in standings and all(name in standings for name in names), standings
    # the trios who won together, as the pairs of 2v2 are: three names a line, winners first
    assert "Tríos" in standings, standings
    trios = standings[standings.index("Tríos") :].splitlines()[1:]
    assert any(re.fullmatch(r"\w+ \+ \w+ \+ \w+ 1/1", line) for line in trios), trios
    end = next(m.text for m in h.fake.live(GROUP) if m.text.startswith("🏆"))
    print(f"3v3 🏆 message: {phone_lines(end)} phone lines\n{plain(end)}")
    assert phone_lines(end) <= 12, plain(end)
    heights = sorted(phone_lines(b) for b in seen)
    print(f"3v3 board: tallest {heights[-1]} lines, p95 {heights[int(len(heights) * 0.95)]}")
    assert heights[-1] <= MOST_LINES, plain(max(seen, key=phone_lines))
    await read_back_six(h, users[1], done)


async def read_back_six(h: Harness, user: FakeUser, table: Table) -> None:
    """A finished 3v3 match looked back on: /historial names the trios, /partida tells each
    pica-pica duel, the export replays with the engine, /verificar checks its deals."""
    state = table.state
    assert state is not None and table.seed is not None
    user.send(GROUP, "/historial")
    await h.settle()
    listing = h.fake.last(GROUP)
    assert f"{state.scores[0]}–{state.scores[1]}" in listing.text
    assert plain(listing.text).count(" y ") >= 2, plain(listing.text)  # two trios
    seen = await read_account(h, user, listing, table.id)
    account = h.fake.last(GROUP)
    assert all(len(text) <= 4096 for text in h.fake.texts(GROUP))
    hands = {int(n) for n in re.findall(r"<b>Mano (\d+)[,<]", seen)}
    assert hands == set(range(1, state.hand_number + 1)), sorted(hands)
    assert re.search(r"duelo 3", plain(seen)), plain(seen)[:3000]
    if os.environ.get("TRUCO_SHOW"):
        start = plain(seen).find("duelo 1")
        print(plain(seen)[start - 20 : start + 900])
    await user.tap(GROUP, account.message_id, "📄 Exportar JSON")
    await h.settle()
    chat, filename, body, _ = h.fake.documents[-1]
    assert chat == user.id and filename == f"partida-{table.id}.json"
    exported = json.loads(body)
    config = MatchConfig.of(exported["config"])
    assert config == table.config and config.players == 6
    again = replay(config, [parse_any(code) for code in exported["log"]])
    assert to_json(again) == to_json(state)
    user.send(GROUP, f"/verificar {table.id}")
    await h.settle()
    verdict = h.fake.last(GROUP).text
    assert f"Los {state.hand_number} repartos salen de la semilla ✅" in verdict, verdict
    namespace: dict[str, object] = {}
    exec(readme_snippet(), namespace)  # docs/playing.md's check, on six hands a deal
    assert namespace["check"](exported) is True  # type: ignore[operator]
