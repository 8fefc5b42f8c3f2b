"""Computer players are named as people are, some with women's names: every word that refers
to one agrees with its name (a character, compañero or compañera, who decides)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.ai.characters import CHARACTERS, Character, character_of
from bot.game import MatchConfig
from bot.i18n import translator
from bot.model.table import BOT_IDS, Table, TableStatus
from bot.views.common import computer_names, plain, seating_at
from bot.views.lobby import lobby_text, practice_text
from bot.views.table import handed_text, sign_menu_text

es = translator("es")
NAMES = [n.strip() for n in es("bot.names").split(",")]
# Which names take feminine words, said here once more (not read from the locale under test)
WOMEN = {"Lola", "Chela", "Nena", "Mirta", "Beba", "Pirucha"}
# Each character in Spanish: (said of a man, said of a woman)
SAID = {
    Character.PRUDENTE: ("prudente", "prudente"),
    Character.MENTIROSO: ("mentiroso", "mentirosa"),
    Character.CANTOR: ("cantor", "cantora"),
    Character.GUAPO: ("guapo", "guapa"),
}
BOT = BOT_IDS["normal"]


def table_of(number: int, players: int, status: TableStatus = TableStatus.PLAYING) -> Table:
    """Table `number` (its computer players' names and characters are drawn from it): Ana at
    seat 0, a computer player in every other seat."""
    seats: list[int | None] = [1] + [BOT] * (players - 1)
    config = MatchConfig(players=players, target=15)
    return Table(number, 1, 0, status, 1, config, seats, "es", 0.0, 0.0)


def said(name: str, character: Character) -> str:
    return SAID[character][name in WOMEN]


def found(players: int, seat: int) -> Iterator[tuple[Table, str, Character]]:
    """Tables whose computer player at `seat` has each name with each character (the first
    table found for each pair)."""
    wanted = {(n, c) for n in NAMES for c in CHARACTERS}
    for number in range(1, 20_000):
        table = table_of(number, players)
        name = computer_names(es, table, {1: "Ana"})[seat].removeprefix("🤖 ")
        pair = (name, character_of(number, seat))
        if pair in wanted:
            wanted.discard(pair)
            yield table, *pair
        if not wanted:
            return
    raise AssertionError(f"no table draws {sorted(wanted)}")


def test_the_names_are_the_ones_this_test_knows() -> None:
    assert len(NAMES) == 12 and set(NAMES) > WOMEN


def test_a_characters_adjective_agrees_with_the_name_in_the_lobby_and_the_practice() -> None:
    for table, name, character in found(2, 1):
        adjective = said(name, character)
        table.status = TableStatus.LOBBY
        lobby = plain(lobby_text(es, table, {1: "Ana"}))
        assert f"🤖 {name} · {adjective} · normal" in lobby, (name, character, lobby)
        table.status = TableStatus.PLAYING
        start = plain(practice_text(es, table, {1: "Ana"}))
        assert f"Tu rival: 🤖 {name} ({adjective})" in start, (name, character, start)


def test_a_partner_is_a_compañera_or_a_compañero_by_name() -> None:
    for table, name, character in found(4, 2):
        start = plain(practice_text(es, table, {1: "Ana"}))
        partner = "compañera" if name in WOMEN else "compañero"
        line = f"Tu {partner}: 🤖 {name} ({said(name, character)})"
        assert line in start, (name, character, start)
        names = computer_names(es, table, {1: "Ana"})
        shown = [f"{names[s]} ({said(names[s][2:], character_of(table.id, s))})" for s in (1, 3)]
        assert f"Tus rivales: {shown[0]} y {shown[1]}" in start, start
        who = seating_at(es, table, {1: "Ana"})
        assert handed_text(es, who, 2) == f"🤖 Listo: decide tu {partner}."
        assert sign_menu_text(es, who, 0) == f"🤫 Elegí la seña para tu {partner}:"


def test_two_partners_are_compañeras_only_when_both_are_women() -> None:
    both_ways = {True: False, False: False}
    for number in range(1, 400):
        table = table_of(number, 6)
        names = computer_names(es, table, {1: "Ana"})
        women = all(names[s].removeprefix("🤖 ") in WOMEN for s in (2, 4))
        start = plain(practice_text(es, table, {1: "Ana"}))
        assert ("Tus compañeras:" in start) == women, start
        assert ("Tus compañeros:" in start) != women, start
        who = seating_at(es, table, {1: "Ana"})
        partners = "compañeras" if women else "compañeros"
        assert sign_menu_text(es, who, 0) == f"🤫 Elegí la seña para tus {partners}:"
        both_ways[women] = True
    assert all(both_ways.values())


@pytest.mark.parametrize("language", ["es", "en"])
def test_a_person_partner_keeps_the_words_as_they_were(language: str) -> None:
    """A person's gender is not known: the words stay as they were (the generic masculine)."""
    t = translator(language)
    table = table_of(1, 4)
    table.seats[2] = 3
    who = seating_at(t, table, {1: "Ana", 3: "Caro"})
    assert sign_menu_text(t, who, 0) == t("sign.menu", count=1)
    assert handed_text(t, who, 2) == t("hint.handed")


def test_a_review_names_a_computer_partner_as_its_name_asks() -> None:
    """A practice's review says whose cards were on the table: "(tu compañera)" for a computer
    partner with a woman's name."""
    from bot.ai.review import PARTNER, RIVAL, YOU, Moment, Review, Worth
    from bot.views.review import review_text

    moment = Moment(
        hand=3, step=20, dealt=("1e", "7o", "4c"), held=("7o", "4c"),
        table=((RIVAL, "3b"), (PARTNER, "2o"), (YOU, "1e")), scores=(4, 6), calls=(),
        pending=None, envido=7, made="0:p:4c", best="0:p:7o", made_worth=Worth(-1.0, 0.3),
        best_worth=Worth(0.2, 0.6), error=0.1, habit="card", worlds=48,
    )  # fmt: skip
    review = Review(7, 0, 15, (moment,), (), (("card", 1.2),), 9, 9)
    for table, name, _ in found(4, 2):
        who = seating_at(es, table, {1: "Ana"})
        text = plain(review_text(es, review, "7", who))
        partner = "tu compañera" if name in WOMEN else "tu compañero"
        assert f"2🪙 ({partner})" in text, (name, text)
