"""Locale files -> strings. The language is always passed in: no global current locale."""

from __future__ import annotations

import json
import string
from functools import cache
from pathlib import Path

LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"
LANGUAGES = ("es", "en")
DEFAULT_LANGUAGE = "es"


@cache
def catalog(language: str) -> dict[str, str]:
    path = LOCALES_DIR / f"{language}.json"
    data: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return data


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


class Translator:
    """`t("board.turn", name=...)` in one language, falling back to Spanish for a missing key."""

    def __init__(self, language: str) -> None:
        self.language = language if language in LANGUAGES else DEFAULT_LANGUAGE

    def __call__(self, key: str, **params: object) -> str:
        text = catalog(self.language).get(key)
        if text is None:
            text = catalog(DEFAULT_LANGUAGE).get(key, key)
        return text.format(**params) if params else text

    def has(self, key: str) -> bool:
        return key in catalog(self.language)


def translator(language: str | None) -> Translator:
    return Translator(language or DEFAULT_LANGUAGE)
