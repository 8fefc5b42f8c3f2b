"""A match's end is two facts, each stored once: the game's end (`games.outcome`, `Table.outcome`:
how play at the table ended, a computer player's play included) and the league's result (the
`matches` row, `MatchRecord`: what the league credits, settled when a side left a 2v2). They
differ when a side leaves a 2v2 and a computer player plays on; neither can be worked out from
the other, and a database from before the game's end was stored gets it from its league's row
where the two are the same."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import codec
from bot.core import Core
from bot.game import ActionKind, MatchConfig
from bot.model.outcome import Outcome, Termination
from bot.model.table import BOT_IDS, TableStatus
from bot.storage.connect import open_database
from bot.storage.migrations import MIGRATIONS
from bot.storage.repo import Store
from tests.olddb import database_before

CHAT = -42
ANA, BETO, CARO, DANI = 1, 2, 3, 4
BOT = BOT_IDS["normal"]


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
async def core(db_target: Path | str) -> AsyncIterator[Core]:
    db = await open_database(db_target)
    service = Core.build(Store(db), seed=1, clock=Clock())
    for user, name in [(ANA, "Ana"), (BETO, "Beto"), (CARO, "Caro"), (DANI, "Dani")]:
        await service.people.see(user, name, None)
    yield service
    await db.close()


async def _until_scored(core: Core, table_id: int, mazo_side: int) -> tuple[int, int]:
    """Side `mazo_side` goes to the mazo at its first chance (the other plays its first card)
    until somebody has points: the score then."""
    while True:
        table = await core.tables.get(table_id)
        assert table is not None and table.state is not None
        if table.scores != (0, 0):
            return table.scores
        legal = table.state.legal_actions()
        mazo = [a for a in legal if a.kind is ActionKind.MAZO and a.seat % 2 == mazo_side]
        action = mazo[0] if mazo else next(a for a in legal if a.kind is ActionKind.PLAY)
        user = table.seats[action.seat]
        assert user is not None
        await core.play.act(table_id, user, table.state.step, action.kind, action.card)


@pytest.mark.postgresql
async def test_a_side_that_leaves_a_2v2_loses_in_the_league_whoever_ends_the_game(
    core: Core,
) -> None:
    """Dani leaves at 0–1: the league credits Ana and Caro at once. Beto hands Dani's seat to a
    computer player; then Ana leaves, and Caro ends the match: the game's end is Beto's side's
    win by Ana's concession, and the league's result stays Ana's side's win by Dani's."""
    table = await core.lobby.open(CHAT, 0, ANA, MatchConfig(players=4, target=15), "es")
    for seat, user in enumerate((ANA, BETO, CARO, DANI)):
        await core.lobby.join(table.id, user, seat % 2)
    scores = await _until_scored(core, table.id, mazo_side=0)
    assert scores[0] == 0 and scores[1] > 0
    await core.turns.concede(table.id, DANI)  # seat 3, side 1
    await core.turns.fill_vacated(table.id, BETO, keep_playing=True)
    await core.turns.concede(table.id, ANA)  # seat 0, side 0
    await core.turns.fill_vacated(table.id, CARO, keep_playing=False)
    ended = await core.history.table(table.id)
    assert ended is not None and ended.status is TableStatus.FINISHED
    assert ended.seats == [ANA, BETO, CARO, BOT]
    # The game's end: Ana's side conceded, Beto's side (with the computer player) won.
    assert ended.outcome == Outcome(Termination.CONCESSION, 1, ended.scores, 0)
    # The league's result: Dani's side lost when he left, and it is what /tabla counts.
    record = await core.history.record(table.id)
    assert record is not None
    assert (record.termination, record.winner, record.scores) == (
        Termination.CONCESSION, 0, scores,
    )  # fmt: skip
    standings = {s.name: (s.played, s.won) for s in await core.history.standings(CHAT)}
    assert standings == {"Ana": (1, 1), "Caro": (1, 1), "Beto": (1, 0), "Dani": (1, 0)}


# The migration that added `games.outcome` (the schema the rows below are written in is the one
# before it, with the league's old words in `matches.outcome`).
BEFORE_OUTCOMES = next(
    i
    for i, m in enumerate(MIGRATIONS)
    if "ADD COLUMN outcome" in (m if isinstance(m, str) else m[0])
)

# (id, status, seats, calls, started, the league's word, winner side, scores, bots)
OLD = [
    (1, "finished", [ANA, BETO], [], True, "won", 0, (15, 7), 0),
    (2, "finished", [ANA, BETO], [[1, "concede", None]], True, "conceded", 0, (3, 4), 0),
    (3, "cancelled", [ANA, BETO], [], True, "cancelled", None, (2, 2), 0),
    # Dani left a 2v2 and his partner chose to end it
    (4, "finished", [ANA, BETO, CARO, DANI], [[3, "concede", None]], True, "conceded", 0,
     (6, 6), 0),
    # Dani left a 2v2 and a computer player played on in his seat to the end
    (5, "finished", [ANA, BETO, CARO, BOT], [], True, "conceded", 0, (6, 6), 0),
    (6, "finished", [ANA, BOT], [], True, "won", 0, (15, 3), 1),  # a practice
    (7, "playing", [ANA, BETO], [], True, None, None, (0, 0), 0),  # in play
    (8, "cancelled", [ANA, None], [], False, None, None, (0, 0), 0),  # a lobby nobody filled
]  # fmt: skip


async def _database_of_old_ends(target: Path | str) -> None:
    rows: list[tuple[str, tuple[object, ...]]] = [
        ("INSERT INTO players (user_id, name, updated_at) VALUES (?, ?, 0)", (user, name))
        for user, name in [(ANA, "Ana"), (BETO, "Beto"), (CARO, "Caro"), (DANI, "Dani")]
    ]
    for game, status, seats, calls, started, word, winner, scores, bots in OLD:
        config = codec.dumps(MatchConfig(players=len(seats), target=15).options())
        rows.append((
            "INSERT INTO games (id, chat_id, status, opener_id, config, seats, calls, language,"
            " created_at, updated_at, started_at, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'es',"
            " ?, ?, ?, ?)",
            (game, CHAT, status, ANA, config, codec.dumps(seats), codec.dumps(calls), game,
             game, game if started else None, game + 0.5 if status != "playing" else None),
        ))  # fmt: skip
        if word is None:
            continue
        rows.append((
            "INSERT INTO matches (game_id, chat_id, players, target, flor, house_rule, outcome,"
            " winner_side, score0, score1, hands, started_at, ended_at, bots)"
            " VALUES (?, ?, ?, 15, 0, 0, ?, ?, ?, ?, 3, ?, ?, ?)",
            (game, CHAT, len(seats), word, winner, *scores, game, game + 0.5, bots),
        ))  # fmt: skip
        rows += [
            (
                "INSERT INTO match_players (game_id, seat, user_id, side) VALUES (?, ?, ?, ?)",
                (game, seat, DANI if game == 5 and user == BOT else user, seat % 2),
            )
            for seat, user in enumerate(seats)
            if user is not None
        ]
    await database_before(target, BEFORE_OUTCOMES, rows, ["SELECT setval('games_id_seq', 8)"])


@pytest.mark.postgresql
async def test_the_matches_that_ended_before_the_game_s_end_was_stored_have_it_stored(
    db_target: Path | str,
) -> None:
    """Each old match whose league's row is its game's end gets that end stored, as the tables'
    reading used to work it out on every read (the seat that conceded from its last calls). A
    match a computer player played on after the league's row was written keeps no game's end
    (only its log, replayed, would tell it; nothing reads the end of a long finished table);
    its league's result is unchanged."""
    await _database_of_old_ends(db_target)
    db = await open_database(db_target)  # migrates
    try:
        core = Core.build(Store(db), seed=1)
        stored = {
            int(r["id"]): r["outcome"]
            for r in await db.fetchall("SELECT id, outcome FROM games ORDER BY id")
        }
        ends = {
            n: None if s is None else Outcome.from_json(codec.loads(s)) for n, s in stored.items()
        }
        assert ends == {
            1: Outcome.reached(0, (15, 7)),
            2: Outcome.left(1, (3, 4)),
            3: Outcome.cancelled((2, 2)),
            4: Outcome.left(3, (6, 6)),
            5: None,
            6: Outcome.reached(0, (15, 3)),
            7: None,
            8: None,
        }
        for game, end in ends.items():
            table = await core.history.table(game)
            assert table is not None and table.outcome == end
        # The league's results are the rows it always had.
        words = {"won": Termination.TARGET, "conceded": Termination.CONCESSION,
                 "cancelled": Termination.CANCELLED}  # fmt: skip
        for game, _, _, _, _, word, winner, scores, _ in OLD:
            record = await core.history.record(game)
            if word is None:
                assert record is None
                continue
            assert record is not None
            assert (record.termination, record.winner, record.scores) == (
                words[word], winner, scores,
            )  # fmt: skip
        standings = {s.name: (s.played, s.won) for s in await core.history.standings(CHAT)}
        assert standings == {"Ana": (4, 4), "Beto": (4, 0), "Caro": (2, 2), "Dani": (2, 0)}
    finally:
        await db.close()
