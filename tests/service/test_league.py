"""The league from stored match records: standings worked out by hand, ratings, recompute."""

from __future__ import annotations

import asyncio
import itertools
import re
from pathlib import Path

import pytest

from bot.game import ActionKind, MatchConfig
from bot.i18n import translator
from bot.league.ratings import Rating, rate
from bot.league.stats import match_stats
from bot.service.core import Core
from bot.storage.connect import open_database
from bot.storage.db import Database
from bot.storage.repo import Store
from bot.views.standings import WIDTH, standings_lines

CHAT = -42


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


async def play_out(service: Core, table_id: int, loser_side: int) -> None:
    """The losing side goes to the mazo whenever it may act; the other plays its first card."""
    while True:
        table = await service.tables.get(table_id)
        if table is None or table.state is None or table.state.is_over:
            return
        state = table.state
        legal = state.legal_actions()
        mazo = [a for a in legal if a.kind is ActionKind.MAZO and a.seat % 2 == loser_side]
        action = mazo[0] if mazo else next(a for a in legal if a.kind is ActionKind.PLAY)
        user = table.seats[action.seat]
        assert user is not None
        await service.play.act(table_id, user, state.step, action.kind, action.card)


async def match(
    service: Core, seats: list[int], loser_side: int | None, concede: int | None = None
) -> int:
    config = MatchConfig(players=len(seats), target=15, flor=False)
    table = await service.lobby.open(CHAT, 0, seats[0], config, "es")
    for seat, user in enumerate(seats):
        team = seat % 2 if len(seats) == 4 else None
        await service.lobby.join(table.id, user, team)
    if concede is not None:
        await service.turns.concede(table.id, concede)
    elif loser_side is None:
        await service.lobby.cancel(table.id, seats[0], is_admin=False)
    else:
        await play_out(service, table.id, loser_side)
    return table.id


@pytest.fixture
async def league_service(db_target: Path | str) -> Core:
    db = await open_database(db_target)
    service = Core.build(Store(db), seed=1, clock=Clock())
    for user, name in [(1, "Ana"), (2, "Beto"), (3, "Caro"), (4, "Dani")]:
        await service.people.see(user, name, None)
    yield service  # type: ignore[misc]
    await db.close()


@pytest.mark.postgresql
async def test_standings_worked_out_by_hand(league_service: Core) -> None:
    service = league_service
    await match(service, [1, 2], loser_side=1)  # Ana beats Beto
    await match(service, [1, 2], loser_side=1)  # again
    await match(service, [3, 1], loser_side=1)  # Caro beats Ana
    await match(service, [1, 2, 3, 4], loser_side=1)  # Ana+Caro beat Beto+Dani
    await match(service, [2, 4], loser_side=None, concede=4)  # Dani concedes to Beto
    await match(service, [1, 3], loser_side=None)  # cancelled: never counts
    league = service.history
    rows = {r.name: r for r in await league.standings(CHAT)}
    got = {
        n: (r.played, r.won, r.lost, r.points_for, r.points_against, r.streak)
        for n, r in rows.items()
    }
    assert got == {
        "Ana": (4, 3, 1, 48, 16, 1),
        "Beto": (4, 1, 3, 0, 48, 1),
        "Caro": (2, 2, 0, 32, 0, 2),
        "Dani": (2, 0, 2, 0, 16, -2),
    }
    assert {r.name: (r.played, r.won) for r in await league.standings(CHAT, players=2)} == {
        "Ana": (3, 2), "Beto": (3, 1), "Caro": (1, 1), "Dani": (1, 0),
    }  # fmt: skip
    pairs = await league.pairs(CHAT)
    assert [(set(p.names), p.played, p.won) for p in pairs] == [
        ({"Ana", "Caro"}, 1, 1), ({"Beto", "Dani"}, 1, 0),
    ]  # fmt: skip
    # The ratings are openskill's, applied in the same order by hand here.
    r = {u: Rating() for u in (1, 2, 3, 4)}
    for sides, winner in [([[1], [2]], 0), ([[1], [2]], 0), ([[3], [1]], 0),
                          ([[1, 3], [2, 4]], 0), ([[2], [4]], 0)]:  # fmt: skip
        new = rate([[r[u] for u in side] for side in sides], winner)
        for side, ratings in zip(sides, new, strict=True):
            for user, rating in zip(side, ratings, strict=True):
                r[user] = rating
    stored = await stored_ratings(service.store.db, CHAT)
    for user, rating in r.items():
        assert stored[user][:2] == pytest.approx((rating.mu, rating.sigma))
    assert r[1].mu > Rating().mu > r[4].mu  # winners go up, losers go down
    changes = await league.rating_changes(4)
    assert {c.name for c in changes} == {"Ana", "Beto", "Caro", "Dani"}
    assert all((c.after > c.before) == (c.name in ("Ana", "Caro")) for c in changes)


async def test_trios_of_3v3_are_counted_as_the_pairs_of_2v2(league_service: Core) -> None:
    service = league_service
    for user, name in [(5, "Eva"), (6, "Fede")]:
        await service.people.see(user, name, None)
    await match(service, [1, 2, 3, 4, 5, 6], loser_side=1)  # Ana, Caro, Eva beat the others
    await match(service, [1, 2, 3, 4, 5, 6], loser_side=0)
    await match(service, [1, 2, 3, 4, 5, 6], loser_side=1)
    await match(service, [1, 2, 3, 4], loser_side=1)  # a 2v2: not a trio
    league = service.history
    trios = await league.pairs(CHAT, players=6)
    assert [(set(p.names), p.played, p.won) for p in trios] == [
        ({"Ana", "Caro", "Eva"}, 3, 2), ({"Beto", "Dani", "Fede"}, 3, 1),
    ]  # fmt: skip
    rows = {r.name: (r.played, r.won) for r in await league.standings(CHAT, players=6)}
    assert rows == {"Ana": (3, 2), "Caro": (3, 2), "Eva": (3, 2),
                    "Beto": (3, 1), "Dani": (3, 1), "Fede": (3, 1)}  # fmt: skip


async def stored_ratings(db: Database, chat_id: int) -> dict[int, tuple[float, float, int]]:
    """A group's ratings as stored: user -> (mu, sigma, matches rated)."""
    rows = await db.fetchall(
        "SELECT user_id, mu, sigma, matches FROM ratings WHERE chat_id = ?", chat_id
    )
    return {r["user_id"]: (r["mu"], r["sigma"], r["matches"]) for r in rows}


async def test_recomputing_from_scratch_gives_the_same_table(league_service: Core) -> None:
    service = league_service
    for seats, loser in [([1, 2], 0), ([3, 4], 1), ([1, 2, 3, 4], 0), ([2, 3], 1), ([4, 1], 0)]:
        await match(service, seats, loser)
    league = service.history
    before_ratings = await stored_ratings(service.store.db, CHAT)
    before = await league.standings(CHAT)
    await league.rebuild_ratings(CHAT)
    assert await stored_ratings(service.store.db, CHAT) == before_ratings
    assert await league.standings(CHAT) == before


async def test_stats_of_a_player_come_from_the_action_logs(league_service: Core) -> None:
    service = league_service
    await match(service, [1, 2], loser_side=1)
    await match(service, [2, 1, 4, 3], loser_side=0)  # Beto+Dani lose: Beto leaves
    numbers = await service.history.numbers(2)
    assert (numbers.played, numbers.won) == (2, 0)
    assert numbers.totals.mazos >= 8 and numbers.totals.trucos_chanted == 0
    assert numbers.partner == "Dani" and numbers.partner_matches == 1
    assert numbers.totals.points_against == 32


def test_match_stats_of_the_worked_hand() -> None:
    moves = "0:e 1:q 0:p:3e 1:p:2o 0:p:7c 1:t 0:q 1:p:1b 1:p:4b 0:p:6c"
    log = ["deal:3e 7c 6c|2o 1b 4b", *moves.split(" ")]
    mine, rival = match_stats(MatchConfig(), log)
    assert (mine.envidos_wanted, mine.envidos_won, mine.best_envido) == (1, 1, 33)
    assert (rival.envidos_wanted, rival.envidos_won, rival.best_envido) == (1, 0, 25)
    assert (rival.trucos_chanted, rival.trucos_won, mine.trucos_chanted) == (1, 0, 0)
    assert (mine.points_for, mine.points_against) == (4, 0)


def test_the_table_fits_a_phone() -> None:
    from bot.league.values import Standing

    rows = [
        Standing(i, name, played, won, 9999, 9999, rating, streak)
        for i, (name, played, won, rating, streak) in enumerate(
            itertools.product(
                ["A", "Ñandú con un nombre larguísimo 🧉🧉", "محمد"],
                [3, 999],
                [0, 999],
                [-12.3, 45.6],
                [-9, 12],
            )
        )
        if won <= played
    ]
    for language in ("es", "en"):
        for line in standings_lines(translator(language), rows):
            assert len(line) <= WIDTH, line


@pytest.mark.postgresql  # (races: the locks are PostgreSQL's own)
async def test_two_matches_ending_at_the_same_moment_both_count_once(
    league_service: Core,
) -> None:
    service = league_service
    tables = []
    for topic, seats in ((1, [1, 2]), (2, [1, 3])):
        table = await service.lobby.open(CHAT, topic, seats[0], MatchConfig(), "es")
        for user in seats:
            await service.lobby.join(table.id, user)
        tables.append(table.id)
    await asyncio.gather(service.turns.concede(tables[0], 2), service.turns.concede(tables[1], 3))
    league = service.history
    rows = {r.name: (r.played, r.won) for r in await league.standings(CHAT)}
    assert rows == {"Ana": (2, 2), "Beto": (1, 0), "Caro": (1, 0)}
    stored = await stored_ratings(service.store.db, CHAT)
    assert stored[1][2] == 2  # Ana rated twice, once per match


def test_the_rating_line_adds_up_and_a_newcomer_is_told_what_is_left() -> None:
    from bot.league.values import RatingChange, Standing
    from bot.views.standings import rating_lines

    t = translator("es")
    rows = [
        Standing(1, "Ana", 6, 4, 150, 120, 5.351, 2),
        Standing(2, "Beto", 5, 1, 100, 140, -0.46, -3),
        Standing(3, "Carla", 1, 0, 12, 30, -2.1, -1),
    ]
    changes = [
        RatingChange(1, "Ana", 2.649, 5.351),
        RatingChange(2, "Beto", 0.04, -0.46),
        RatingChange(3, "Carla", 0.0, -2.1),
    ]
    lines = rating_lines(t, changes, rows)
    # shown rounded once: 2.6 + 2.8 = 5.4 (not 2.6 -> 5.4 (+2.7))
    assert lines[0] == "Ana: 1º · nivel 5.4 (+2.8) · ganó 4, perdió 2"
    assert lines[1] == "Beto: 2º · nivel -0.5 (-0.5) · ganó 1, perdió 4"
    assert lines[2] == "Carla: ganó 0, perdió 1 · entra a la tabla en 4 partidas más"
    for line in lines[:2]:
        after, delta = (float(x) for x in re.findall(r"nivel (-?[\d.]+) \(([+-][\d.]+)\)", line)[0])
        before = next(round(c.before, 1) for c in changes if line.startswith(c.name))
        assert round(before + delta, 1) == after
    assert translator("en")("match.rating_new", name="C", won=0, lost=1, count=1).endswith(
        "ranked after 1 more match"
    )


# -- /tabla and /yo, as they read -----------------------------------------------------------
def test_the_best_envido_is_of_the_hands_where_an_envido_was_played() -> None:
    """/yo's "mejor envido" is the best envido a player held in a hand whose envido was
    played (wanted): a flor hand's 33, where no envido was played, is not one."""
    flor = ["deal:7e 6e 5e|4c 5o 1b", "0:f", "0:m"]  # seat 0's flor (38; envido 33), no envido
    envido = ["deal:4o 6c 2b|1c 3c 5o", "1:e", "0:q", "1:m"]  # seat 1's 24 (1c 3c) wanted
    mine, rival = match_stats(MatchConfig(), flor + envido)
    assert (mine.best_envido, rival.best_envido) == (6, 24)
    mine, rival = match_stats(MatchConfig(), flor)
    assert (mine.best_envido, rival.best_envido) == (0, 0)


def test_a_table_with_nobody_ranked_yet_prints_no_empty_header() -> None:
    """With nobody at five matches, /tabla is its provisional list alone: no header of
    columns over no rows."""
    from bot.league.values import Standing
    from bot.views.standings import standings_pages

    t = translator("es")
    rows = [Standing(1, "Ana", 3, 2, 40, 30, 1.2, 2), Standing(2, "Beto", 3, 1, 30, 40, -1.0, -1)]
    (page,) = standings_pages(t, rows, "todas las partidas")
    assert "Jugador" not in page and "Nivel" not in page, page
    assert "Ana" in page and "Beto" in page and "Con menos de 5 partidas" in page
    ranked = [*rows, Standing(3, "Caro", 6, 4, 90, 60, 3.0, 1)]
    (page,) = standings_pages(t, ranked, "todas las partidas")
    assert page.count("Jugador") == 1


def test_with_one_group_yo_says_its_numbers_once() -> None:
    """A player whose every match is in this group (or /yo asked in private, where "here" is
    every group) sees one block, not the same block twice."""
    from bot.league.stats import PlayerMatchStats
    from bot.league.values import PlayerNumbers
    from bot.views.standings import numbers_text

    t = translator("es")
    numbers = PlayerNumbers(7, 4, PlayerMatchStats(envidos_wanted=3), 31, "Caro", 2)
    text = numbers_text(t, "Ana", numbers, numbers)
    assert text.count("Partidas: 7") == 1, text
    assert "En todos los grupos" not in text, text
    more = PlayerNumbers(9, 5, PlayerMatchStats(envidos_wanted=4), 31, "Caro", 2)
    text = numbers_text(t, "Ana", numbers, more)
    assert "En este grupo" in text and "En todos los grupos" in text and "Partidas: 9" in text
    text = numbers_text(t, "Ana", more, more, in_group=False)  # (asked in private)
    assert "En este grupo" not in text and text.count("Partidas: 9") == 1, text
    assert "mejor envido 31" in text
    none = PlayerNumbers(2, 1, PlayerMatchStats(), 0, None, 0)
    assert "mejor envido" not in numbers_text(t, "Ana", none, none), "no envido played: no best"
    never = PlayerNumbers(0, 0, PlayerMatchStats(), 0, None, 0)
    text = numbers_text(t, "Ana", never, never)
    assert "el único" not in text and text.count("Todavía sin partidas") == 1, text


@pytest.mark.postgresql
async def test_a_tables_streak_is_of_the_matches_it_counts(league_service: Core) -> None:
    """/tabla 2v2's streak counts its 2v2 matches only (and /tabla mes this month's): Caro
    lost her one 2v2 match, whatever she won in 1v1 after it."""
    service = league_service
    await match(service, [1, 2, 3, 4], loser_side=1)  # Ana+Caro beat Beto+Dani (2v2)
    await match(service, [3, 1], loser_side=0)  # Ana beats Caro (1v1)
    await match(service, [3, 1], loser_side=0)  # again
    await match(service, [2, 1], loser_side=1)  # Beto beats Ana
    league = service.history
    every = {r.name: r.streak for r in await league.standings(CHAT)}
    assert every == {"Ana": -1, "Beto": 1, "Caro": -2, "Dani": -1}
    pairs = {r.name: r.streak for r in await league.standings(CHAT, players=4)}
    assert pairs == {"Ana": 1, "Beto": -1, "Caro": 1, "Dani": -1}
    single = {r.name: r.streak for r in await league.standings(CHAT, players=2)}
    assert single == {"Ana": -1, "Beto": 1, "Caro": -2}
