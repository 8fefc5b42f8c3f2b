"""The Mini App's launch data: only Telegram's, signed with this bot's token, and fresh."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlencode

import pytest

from bot.web.initdata import BadInitData, sign, validate

TOKEN = "123456:TEST-token"
NOW = 1_800_000_000.0


def fields(**extra: str) -> dict[str, str]:
    user = {"id": 42, "first_name": "Ana", "username": "ana"}
    return {"auth_date": str(int(NOW) - 60), "user": json.dumps(user), **extra}


def test_good_launch_data_names_the_user_and_the_table() -> None:
    launch = validate(sign(fields(start_param="t7"), TOKEN), TOKEN, NOW, 3600)
    assert (launch.user_id, launch.first_name, launch.username) == (42, "Ana", "ana")
    assert launch.start_param == "t7"


def test_a_known_vector_computed_apart() -> None:
    """The scheme spelled out with hashlib, independently of the module's helpers."""
    import hashlib
    import hmac

    data = fields()
    check = "\n".join(f"{k}={data[k]}" for k in sorted(data)).encode()
    key = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    raw = urlencode({**data, "hash": hmac.new(key, check, hashlib.sha256).hexdigest()})
    assert validate(raw, TOKEN, NOW, 3600).user_id == 42


@pytest.mark.parametrize(
    "raw",
    [
        "",  # nothing
        "not a query string",
        "auth_date=1&user=%7B%7D",  # no hash
        "x" * 5000,  # too long to be Telegram's
    ],
)
def test_missing_or_malformed_launch_data_is_refused(raw: str) -> None:
    with pytest.raises(BadInitData):
        validate(raw, TOKEN, NOW, 3600)


def test_forged_tampered_replayed_or_another_bots_launch_data_is_refused() -> None:
    good = sign(fields(), TOKEN)
    with pytest.raises(BadInitData, match="signature"):
        validate(sign(fields(), "999:another-bot"), TOKEN, NOW, 3600)  # another bot's
    tampered = dict(parse_qsl(good))
    tampered["user"] = json.dumps({"id": 43, "first_name": "Beto"})  # someone else's seat
    with pytest.raises(BadInitData, match="signature"):
        validate(urlencode(tampered), TOKEN, NOW, 3600)
    forged = dict(parse_qsl(good))
    forged["hash"] = "0" * 64
    with pytest.raises(BadInitData, match="signature"):
        validate(urlencode(forged), TOKEN, NOW, 3600)
    with pytest.raises(BadInitData, match="twice"):
        validate(good + "&auth_date=1", TOKEN, NOW, 3600)
    with pytest.raises(BadInitData, match="old"):
        validate(good, TOKEN, NOW + 7200, 3600)  # older than the allowed age
    with pytest.raises(BadInitData, match="old"):
        validate(good, TOKEN, NOW - 3600, 3600)  # from the future
