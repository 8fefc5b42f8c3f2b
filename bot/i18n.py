"""Locale files -> strings. The language is always passed in: no global current locale.

A string that depends on a number is an object of CLDR plural forms, chosen by `count`:
`"ending.counted": {"one": "{side} ya sumó …", "other": "{side} ya sumaron …"}` and
`t("ending.counted", count=2, side=...)`. Babel supplies each language's CLDR plural rule
(Spanish has `one`, `many` and `other`; English `one` and `other`); a form a string leaves out
falls back to `other`.
"""

from __future__ import annotations

import json
import string
from functools import cache
from pathlib import Path

from babel import Locale

LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"  # the project's own
DEFAULT_LANGUAGE = "es"

# Where the locale files are read from: the project's own unless `use_locales` says otherwise.
_directory = LOCALES_DIR


Entry = str | dict[str, str]  # a string, or its plural forms


def use_locales(directory: Path) -> None:
    """Read the locale files from `directory` (a test of a language the project does not ship;
    the bot itself never calls it: it reads nothing outside the project)."""
    global _directory
    _directory = directory


def languages() -> tuple[str, ...]:
    """Every language we speak: one a locale file, so a new language is its file and nothing
    else. The default comes first and the rest by code: the order of /idioma's buttons and of
    /config's turns."""
    return _languages(_directory)


@cache
def _languages(directory: Path) -> tuple[str, ...]:
    others = sorted(path.stem for path in directory.glob("*.json") if path.stem != DEFAULT_LANGUAGE)
    return (DEFAULT_LANGUAGE, *others)


def language_for(tag: str, fallback: str = DEFAULT_LANGUAGE) -> str:
    """The language we speak that a reader's tag names ("en-US" -> "en"; Telegram's
    `language_code`, a browser's `Accept-Language`), else `fallback`."""
    tag = tag.lower()
    return next((language for language in languages() if tag.startswith(language)), fallback)


def catalog(language: str) -> dict[str, Entry]:
    return _catalog(_directory, language)


@cache
def _catalog(directory: Path, language: str) -> dict[str, Entry]:
    data: dict[str, Entry] = json.loads((directory / f"{language}.json").read_text("utf-8"))
    return data


@cache
def plural_forms(language: str) -> frozenset[str]:
    """The CLDR plural categories of a language, `other` included."""
    return frozenset(Locale.parse(language).plural_form.tags) | {"other"}


def plural_form(language: str, count: int) -> str:
    form: str = Locale.parse(language).plural_form(abs(count))
    return form


def placeholders(entry: Entry) -> set[str]:
    texts = entry.values() if isinstance(entry, dict) else [entry]
    return {name for text in texts for _, name, _, _ in string.Formatter().parse(text) if name}


class Translator:
    """`t("board.turn", name=...)` in one language, falling back to Spanish for a missing key."""

    def __init__(self, language: str) -> None:
        self.language = language if language in languages() else DEFAULT_LANGUAGE

    def __call__(self, key: str, **params: object) -> str:
        language = self.language
        entry = catalog(language).get(key)
        if entry is None:
            language = DEFAULT_LANGUAGE
            entry = catalog(language).get(key, key)
        if isinstance(entry, dict):
            count = params.get("count")
            if not isinstance(count, int):
                raise TypeError(f"{key} has plural forms: pass count=<int>")
            entry = entry.get(plural_form(language, count), entry["other"])
        return entry.format(**params) if params else entry

    def has(self, key: str) -> bool:
        return key in catalog(self.language)


def translator(language: str | None) -> Translator:
    return Translator(language or DEFAULT_LANGUAGE)
