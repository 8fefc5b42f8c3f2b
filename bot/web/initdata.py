"""Telegram's Mini App launch data (`initData`), checked as Telegram documents it: the hash is
HMAC-SHA256 of the data-check-string (every field but `hash`, sorted by key, `key=value` lines)
under the key HMAC-SHA256("WebAppData", bot token); compared in constant time; `auth_date` no
older than `max_age` seconds. Nothing from the page is believed before this says so."""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

MAX_LENGTH = 4096  # launch data is a few hundred bytes: anything longer is not Telegram's


class BadInitData(ValueError):
    """The launch data is missing, malformed, forged, tampered with or too old."""


@dataclass(frozen=True)
class Launch:
    user_id: int
    first_name: str
    username: str | None
    auth_date: int
    start_param: str | None  # `startapp=<token>` of a direct link: which table


def _secret(token: str) -> bytes:
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def _check_string(fields: dict[str, str]) -> bytes:
    return "\n".join(f"{k}={fields[k]}" for k in sorted(fields) if k != "hash").encode()


def sign(fields: dict[str, str], token: str) -> str:
    """Launch data as Telegram would send it for `fields` (tests, the local table's tools)."""
    digest = hmac.new(_secret(token), _check_string(fields), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})


def validate(raw: str, token: str, now: float, max_age: float) -> Launch:
    if not raw or len(raw) > MAX_LENGTH:
        raise BadInitData("no launch data")
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise BadInitData("malformed") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise BadInitData("a field given twice")
    given = fields.get("hash", "")
    expected = hmac.new(_secret(token), _check_string(fields), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise BadInitData("bad signature")
    try:
        auth_date = int(fields["auth_date"])
        user = json.loads(fields["user"])
        user_id = int(user["id"])
    except (KeyError, ValueError, TypeError):
        raise BadInitData("no user") from None
    if not 0 <= now - auth_date <= max_age:
        raise BadInitData("too old")
    return Launch(
        user_id=user_id,
        first_name=str(user.get("first_name", "")),
        username=user.get("username") if isinstance(user.get("username"), str) else None,
        auth_date=auth_date,
        start_param=fields.get("start_param"),
    )
