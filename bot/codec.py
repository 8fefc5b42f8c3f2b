"""JSON, through orjson: every tap writes the match's state and the outbox's rows, and makes
Bot API calls whose bodies go out and whose answers come back as JSON; orjson does it in a
fraction of the standard library's time (docs/performance.md), and reads everything `json` wrote
before (the stored texts are plain JSON).

Text comes out compact and in UTF-8 (no `\\u` escapes); integer keys become strings, as the
standard library makes them.
"""

from __future__ import annotations

from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> str:
    return orjson.dumps(value, option=_OPTIONS).decode()


def dump_bytes(value: Any) -> bytes:
    return orjson.dumps(value, option=_OPTIONS)


loads = orjson.loads
