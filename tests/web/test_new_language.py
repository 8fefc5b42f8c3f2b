"""A new language is its locale file: written beside the project's two in a directory of the
test's own (Italian, which the project does not ship), it reaches every surface at once (the
bot's words, /idioma's buttons and its tap, /config's turn, the web table's accepted languages,
the page's words and the cards' names), and a key it leaves out falls back to Spanish, key by
key, as for English today."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from bot.callbacks import LanguageData, pack, unpack
from bot.config import Settings
from bot.game import Card
from bot.handlers.commands import language_keys
from bot.i18n import LOCALES_DIR, languages, translator, use_locales
from bot.model.options import next_of
from bot.views.common import Button, card_name

ITALIAN = {
    "language.name": "🇮🇹 Italiano",
    "idioma.choose": "Scegli la lingua della chat:",
    "suit.o": "denari",
    "suit.e": "spade",
    "card": "{number} di {suit}",
    "web.enter": "Entra",
    "web.and": "e",
}


@pytest.fixture
def italian(tmp_path: Path) -> Iterator[None]:
    for path in LOCALES_DIR.glob("*.json"):
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "it.json").write_text(json.dumps(ITALIAN), encoding="utf-8")
    use_locales(tmp_path)
    try:
        yield
    finally:
        use_locales(LOCALES_DIR)


def test_the_bot_speaks_it_and_offers_it(italian: None) -> None:
    assert languages() == ("es", "en", "it")
    t = translator("it")
    assert t.language == "it" and t("idioma.choose") == "Scegli la lingua della chat:"
    assert t("idioma.set") == translator("es")("idioma.set")  # (a key it lacks: Spanish)
    assert card_name(t, Card.parse("4o")) == "4 di denari 🪙"
    assert card_name(t, Card.parse("1e")) == "ancho de spade 🗡️"  # (its own suit, Spanish words)
    (row,) = language_keys()
    assert [b.text for b in row] == ["🇦🇷 Castellano", "🇬🇧 English", "🇮🇹 Italiano"]
    assert row[2] == Button("🇮🇹 Italiano", pack(LanguageData("it")))
    assert unpack(pack(LanguageData("it"))) == LanguageData("it")
    assert next_of(languages(), "en") == "it" and next_of(languages(), "it") == "es"
    assert Settings(_env_file=None, language="it").language == "it"  # type: ignore[call-arg]


async def test_the_web_table_accepts_it_and_draws_in_it(italian: None, local_url: str) -> None:
    async with aiohttp.ClientSession() as s:
        async with s.get(f"{local_url}/api/words/it-IT") as answer:
            assert answer.headers["Content-Language"] == "it"  # (the page keeps it as its own)
            words = await answer.json()
        assert words["enter"] == "Entra" and words["and"] == "e"
        assert words["name"] == translator("es")("web.name")  # (a key it lacks: Spanish)
        for ask in ({"params": {"lang": "it"}}, {"headers": {"Accept-Language": "it-IT,it"}}):
            async with s.get(f"{local_url}/cards/7o.svg", **ask) as answer:  # type: ignore[arg-type]
                assert 'aria-label="7 di denari"' in await answer.text(), ask
        async with s.post(
            f"{local_url}/api/local/login", json={"name": "Ana", "language": "fr"}
        ) as answer:
            assert answer.status == 400  # (a language with no locale file: refused, as today)
        async with s.post(
            f"{local_url}/api/local/login", json={"name": "Ana", "language": "it"}
        ) as answer:
            assert answer.status == 200, await answer.text()
