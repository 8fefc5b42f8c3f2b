"""Every reading a person may ask for, or a group's own message, at its tallest: each page fits
a phone (`PAGE_LINES` phone lines), in both languages. /tabla of a big group with long names,
/yo with every block there is, /historial of ten matches of long names, /verificar of a match
whose deals do not match, /ayuda, /torneos, and a tournament's sign-ups and bracket of every
format at the largest size it allows, at every step of it."""

from __future__ import annotations

import dataclasses
import random
from datetime import UTC

import pytest

from bot.app import COMMANDS
from bot.game import Deal, MatchConfig
from bot.game.fair import fair_deal
from bot.i18n import translator
from bot.league.stats import PlayerMatchStats
from bot.league.tournament import Format, Status, Tournament, playable, record, start, tick
from bot.league.values import Pair, PlayerNumbers, Standing
from bot.model.outcome import Termination
from bot.model.records import MatchRecord
from bot.model.table import Table, TableStatus
from bot.views.common import Seating, phone_lines, plain
from bot.views.history import history_view, verify_text
from bot.views.pages import PAGE_LINES, text_pages
from bot.views.review import lesson_text
from bot.views.standings import numbers_pages, standings_pages
from bot.views.tournament import (
    bracket_pages,
    champion_text,
    match_notice,
    past_text,
    result_text,
    signup_text,
)
from tests.botapi_rules import html_error

LANGUAGES = ("es", "en")
LONG = [
    "Bartolomé José Domingo Faustino Sarmiento y Albarracín del Valle",  # 64: a name's most
    "María Florencia de los Ángeles Fernández",
    "Maximiliano Ezequiel",
    "Guadalupe Valentina",
    "Sebastián",
    "Bo",
]


def fits(pages: list[str]) -> None:
    for page in pages:
        assert phone_lines(page) <= PAGE_LINES, (phone_lines(page), plain(page))
        assert html_error(page) is None, page


@pytest.mark.parametrize("language", LANGUAGES)
def test_tabla_of_a_big_group_in_pages_each_player_whole(language: str) -> None:
    t = translator(language)
    rows = [
        Standing(100 + i, f"{LONG[i % len(LONG)]} {i}", 3 + i % 9 if i < 30 else 2, i % 5,
                 99, 120, 30.0 - i / 3, (-1) ** i * (i % 4))
        for i in range(45)
    ]  # fmt: skip
    pairs = [Pair((LONG[i % 6], LONG[(i + 1) % 6], LONG[(i + 2) % 6]), 9, 4) for i in range(10)]
    for asker in (None, 100 + 40, 100 + 3):
        pages = standings_pages(t, rows, t("tabla.scope_all"), pairs, asker)
        assert len(pages) > 2
        fits(pages)
        seen = " ".join(" ".join(plain(p).split()) for p in pages)
        for row in rows:  # every player, their name whole
            assert " ".join(row.name.split()) in seen or row.name[:20] in seen, row.name
        assert LONG[4] in seen  # the trios too


@pytest.mark.parametrize("language", LANGUAGES)
def test_yo_with_every_block_in_pages(language: str) -> None:
    t = translator(language)
    stats = PlayerMatchStats(**{f.name: 999 for f in dataclasses.fields(PlayerMatchStats)})
    here = PlayerNumbers(999, 555, stats, 33, LONG[0], 999)
    everywhere = PlayerNumbers(1999, 1555, stats, 33, LONG[1], 999)
    bots = {"facil": (99, 50), "normal": (99, 50), "dificil": (99, 50)}
    more = [lesson_text(t, "want_truco_weak", 0.6, 14, 13), t("yo.tourneys", played=9, won=3)]
    pages = numbers_pages(t, LONG[0], here, everywhere, bots, True, more)
    fits(pages)
    told = "\n".join(plain(p) for p in pages)
    for needed in (t("yo.here"), t("yo.everywhere"), t("yo.bots"), plain(more[0]), more[1]):
        assert plain(needed) in told, needed
    assert len(pages) == 2  # (and no more than it takes)
    alone = numbers_pages(t, "Ana", here, here, None, False, [])
    assert len(alone) == 1


@pytest.mark.parametrize("language", LANGUAGES)
def test_historial_lists_what_a_phone_shows_whole(language: str) -> None:
    t = translator(language)
    who = Seating(tuple(LONG[:4]))
    record = MatchRecord(12345, -1, 4, 30, True, True, Termination.CONCESSION, 1, (29, 30),
                         44, 0.0, 3600.0, 0, True)  # fmt: skip
    text, keys = history_view(t, [(record, who)] * 10, UTC)
    fits([text])
    assert keys is not None
    listed = sum(len(row) for row in keys)
    assert 1 <= listed <= 10 and plain(text).count("12345") == listed  # a button for each


@pytest.mark.parametrize("language", LANGUAGES)
def test_verificar_fits_even_when_no_deal_matches(language: str) -> None:
    t = translator(language)
    config = MatchConfig(players=6)
    table = Table(123456, -1, 0, TableStatus.FINISHED, 1, config, [1, 2, 3, 4, 5, 6], language,
                  0.0, 0.0)  # fmt: skip
    table.seed = "ab" * 32
    other = "cd" * 32
    from bot.game import new_match

    table.state = new_match(config)
    deals: list[Deal] = [fair_deal(other, n, 6) for n in range(1, 61)]
    fits([verify_text(t, table, deals)])


@pytest.mark.parametrize("language", LANGUAGES)
def test_ayuda_tells_every_command_and_where_the_cards_are_in_pages(language: str) -> None:
    """/ayuda names every command the bot registers (Telegram's menu), says a hand is seen
    in the group (🃏 on the board) or in private (/mano privado), and fits a phone, paged."""
    t = translator(language)
    pages = text_pages(t("help"))
    fits(pages)
    told = "\n".join(plain(p) for p in pages)
    for command in COMMANDS:
        if command not in ("start", "ayuda"):
            assert f"/{command}" in told, command
    assert t("button.my_cards") in told and "/mano" in told


def tournament(fmt: Format, entries: int, players: int = 2, **kw: int) -> Tournament:
    tour = Tournament(
        7, -1, 0, 1, "es", AT, AT + 1800, number=12, format=fmt,
        config=MatchConfig(players=players, target=15), **kw,  # type: ignore[arg-type]
    )  # fmt: skip
    tour.signed = list(range(1, entries * tour.team_size + 1))
    return tour


AT = 1_800_000_000.0  # a moment to start at
NAMES = {u: f"{LONG[u % len(LONG)][:22]} {u}" for u in range(1, 70)}
SIZES = [
    (Format.KNOCKOUT, 32, {}),
    (Format.KNOCKOUT, 16, {"series": 3}),
    (Format.LEAGUE, 8, {}),
    (Format.SWISS, 32, {}),
    (Format.ARENA, 32, {"minutes": 30}),
]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("fmt", "entries", "kw"), SIZES)
def test_a_tournament_fits_a_phone_at_every_step(
    language: str, fmt: Format, entries: int, kw: dict[str, int]
) -> None:
    """Its sign-ups (every name there may be, at a name's most), then its bracket in pages at
    every step of a whole run, a result at a time, with the matches in play."""
    t = translator(language)
    tour = tournament(fmt, entries, **kw)
    fits([signup_text(t, tour, NAMES, UTC)])
    rng = random.Random(entries)
    start(tour, {}, rng, AT)
    now, table, tallest = AT, 0, 0
    while tour.status is Status.RUNNING and now < AT + 10**6:
        now += 60
        tick(tour, now)
        ready = playable(tour, [])
        live = {f.key: (rng.randrange(15), rng.randrange(15)) for f in ready}
        pages, shown = bracket_pages(t, tour, NAMES, live, now, UTC)
        fits(pages)
        assert 0 <= shown < len(pages)
        tallest = max(tallest, len(pages))
        if ready:
            table += 1
            won = rng.randrange(2)
            points = (15, rng.randrange(15)) if won == 0 else (rng.randrange(15), 15)
            fixture = ready[0]
            record(tour, fixture, table, won, points, now=now)
            last = [(fixture.round, fixture.slot, len(fixture.games) - 1)]
            fits([result_text(t, tour, last, NAMES)])
    assert tour.status is Status.FINISHED
    fits(bracket_pages(t, tour, NAMES, {}, now, UTC)[0])
    # the group's message of the last result and the champion with their path (the planner's)
    fits([result_text(t, tour, last, NAMES) + "\n\n" + champion_text(t, tour, NAMES)])
    print(f"{fmt.value} of {entries}: {tallest} pages at most")


@pytest.mark.parametrize("language", LANGUAGES)
def test_torneos_fits(language: str) -> None:
    t = translator(language)
    past = []
    for number in range(1, 11):  # (the storage's most)
        tour = tournament(Format.SWISS, 4, players=6, series=3)
        tour.number, tour.status, tour.champion = number, Status.FINISHED, 0
        tour.entries = [tuple(range(1, 4)), tuple(range(4, 7))]
        tour.ended_at = AT
        past.append(tour)
    fits([past_text(t, past, NAMES)])


def test_a_match_notice_is_said_to_its_reader() -> None:
    """Each player's notice of a tournament match names whom they meet (and their partner),
    never themselves in the third person."""
    t = translator("es")
    tour = tournament(Format.KNOCKOUT, 2, players=4)
    start(tour, {}, random.Random(1), AT)
    (fixture,) = [f for f in tour.fixtures if not f.bye]
    names = {u: f"P{u}" for u in range(1, 5)}
    for user in range(1, 5):
        said = plain(match_notice(t, tour, fixture, 0, names, user))
        mine = tour.entries[tour.entry_of(user) or 0]
        partner = next(u for u in mine if u != user)
        rivals = [u for u in range(1, 5) if u not in mine]
        assert said.startswith(f"🏆 Tu partido del torneo: con P{partner}, contra P"), said
        assert f"P{user}" not in said and all(f"P{u}" in said for u in rivals), said
