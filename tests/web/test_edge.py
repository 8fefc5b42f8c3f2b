"""The web table's edge, probed as an attacker would, in local mode and in Mini App mode: no
input answers 5xx (random and hostile bodies, parameters, headers and path segments at every
route, thrown by hypothesis), a stranger's flood costs a handful of Bot API calls, the page
answers only to its own name with its security headers on, names cannot lie, and the live
streams one client keeps are bounded, and a stranger cannot tell which tournaments exist."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core import Core
from bot.game import MatchConfig
from bot.model.limits import Buckets
from bot.tourney.model import Tournament
from bot.web import hub as web_hub
from bot.web.auth import LocalAuth
from bot.web.hub import Hub
from bot.web.server import WebTable, serve
from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import open_table
from tests.e2e.test_web import launch
from tests.fakebot import FakeTelegram
from tests.waiting import until
from tests.web.conftest import local_settings


class Local:
    """The local try-out served in this process, its parts at hand."""

    def __init__(self, url: str, table: WebTable, session: str, table_id: int) -> None:
        self.url = url
        self.table = table
        self.session = session
        self.table_id = table_id


@pytest.fixture
async def local(db_target: Path | str) -> AsyncIterator[Local]:
    core = await Core.open(local_settings(db_target), turn_seconds=0)
    hub = Hub()
    core.changes.subscribe(hub)
    auth = LocalAuth()
    table = WebTable(core, auth, hub, auth)
    await core.start()
    try:
        async with serve(table.app(), "127.0.0.1", 0, hub) as runner:
            url = f"http://127.0.0.1:{runner.addresses[0][1]}"
            async with aiohttp.ClientSession() as session:
                async with session.post(f"{url}/api/local/login", json={"name": "Ana"}) as r:
                    token = (await r.json())["session"]
                headers = {"X-Local-Session": token}
                async with session.post(f"{url}/api/local/new", json={}, headers=headers) as r:
                    table_id = (await r.json())["table"]
            yield Local(url, table, token, table_id)
    finally:
        core.stop()
        await core.close()


# -- hostile input ------------------------------------------------------------------------------
HOSTILE = st.sampled_from(
    [
        "", "0", "-1", "1e999", "NaN", "99999999999999999999999", "1.5", "../../etc/passwd",
        "%00", "\x00", "<script>alert(1)</script>", "ﬀ", "\u202e🤖 Bot", "a" * 300, "[]", "{}",
        "null", "true", "1e", "e", "fr", "es", "en", "p", "q", "1e.svg", "back",
    ]
)  # fmt: skip
TEXT = st.one_of(HOSTILE, st.text(max_size=40))
JSON_VALUE = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), TEXT,
        st.sampled_from([10**30, -(10**30), 2**63, 1e308]),
    ),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)  # fmt: skip
# Values a route expects, near enough to get past the first checks into the game's.
PLAUSIBLE = st.one_of(
    st.integers(0, 40), st.sampled_from(["p", "t", "q", "nq", "e", "re", "m", "f", "1e", "4c",
    "7o", "12b", "ok", "1v1", "2v2", "facil", "dificil", "es", "en"]), st.sampled_from([0, 1]),
    st.booleans(),
)  # fmt: skip
VALUE = st.one_of(JSON_VALUE, PLAUSIBLE)
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "step": VALUE, "kind": VALUE, "card": VALUE, "sign": VALUE, "team": VALUE,
        "name": VALUE, "mode": VALUE, "target": VALUE, "flor": VALUE, "level": VALUE,
        "friend": VALUE, "language": VALUE, "hints": VALUE,
    },
)  # fmt: skip
BODY = st.one_of(
    JSON_VALUE.map(lambda v: json.dumps(v, allow_nan=True).encode()),
    FIELDS.map(lambda v: json.dumps(v, allow_nan=True).encode()),
    st.binary(max_size=64),
)
ROUTES = [
    ("GET", "/"), ("GET", "/static/{x}"), ("GET", "/cards/{x}.svg"), ("GET", "/api/words/{x}"),
    ("GET", "/api/table/{t}"), ("POST", "/api/table/{t}/act"), ("POST", "/api/table/{t}/sign"),
    ("GET", "/api/table/{x}"), ("POST", "/api/table/{x}/act"), ("POST", "/api/local/login"),
    ("POST", "/api/local/new"), ("GET", "/api/local/tables"), ("POST", "/api/table/{t}/join"),
    ("POST", "/api/table/{x}/join"), ("GET", "/{x}"), ("POST", "/api/table/{t}/events"),
    ("POST", "/api/table/{t}/rematch"), ("POST", "/api/table/{x}/rematch"),
    ("GET", "/api/local/me"), ("GET", "/api/table/{t}/replay"), ("GET", "/api/table/{x}/replay"),
    ("POST", "/api/table/{t}/hint"), ("POST", "/api/table/{t}/handoff"),
    ("POST", "/api/table/{x}/hint"),
]  # fmt: skip
REQUEST = st.fixed_dictionaries(
    {
        "route": st.sampled_from(ROUTES),
        "segment": TEXT,
        "query": st.dictionaries(st.sampled_from(["lang", "table", "x", "step"]), TEXT, max_size=2),
        "body": BODY,
        "signed": st.booleans(),
        "headers": st.dictionaries(
            st.sampled_from(
                ["X-Local-Session", "X-Telegram-Init-Data", "Content-Type", "Accept-Language"]
            ),
            TEXT.filter(lambda v: v.isprintable() and "\n" not in v and "\r" not in v),
            max_size=2,
        ),
    }
)


async def hostile(
    session: aiohttp.ClientSession, base: str, table_id: int, auth: dict[str, str], r: Any
) -> int:
    method, template = r["route"]
    segment = r["segment"].replace("/", "%2F").replace("?", "%3F").replace("#", "%23")
    path = template.replace("{t}", str(table_id)).replace("{x}", segment)
    headers = {**(auth if r["signed"] else {}), **r["headers"]}
    try:
        async with session.request(
            method, base + path, params=r["query"], data=r["body"], headers=headers
        ) as response:
            await response.read()
            return response.status
    except (aiohttp.InvalidURL, ValueError, aiohttp.ClientPayloadError):
        return 0  # not a request a client can make (the server never saw it)


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


FUZZ = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(request=REQUEST)
async def test_no_input_makes_the_local_table_fail(
    local: Local, caplog: pytest.LogCaptureFixture, request: dict[str, Any]
) -> None:
    local.table._requests = Buckets(1e9, 1e9)  # (the address limit has a test of its own)
    async with aiohttp.ClientSession() as session:
        status = await hostile(
            session, local.url, local.table_id, {"X-Local-Session": local.session}, request
        )
    assert status < 500, (status, request)
    assert not errors(caplog)


@pytest.fixture
async def mini(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[Harness]:
    async with harness_with(
        fake, tmp_path / "edge.db", webapp_url="https://x.invalid/t", web_port=0
    ) as harness:
        yield harness


@pytest.mark.slow("many cases: the whole suite runs them")
@FUZZ
@given(request=REQUEST)
async def test_no_input_makes_the_mini_app_fail(
    mini: Harness, caplog: pytest.LogCaptureFixture, request: dict[str, Any]
) -> None:
    h = mini
    web = h.services.web
    assert web is not None
    web.table._requests = Buckets(1e9, 1e9)
    table = await h.services.tables.table_in(GROUP, 0)
    if table is None:
        await open_table(h, [h.user(1, "Ana"), h.user(2, "Juan")], "1v1 15")
        table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None
    init = launch(h, h.user(1, "Ana"))
    async with aiohttp.ClientSession() as session:
        status = await hostile(
            session, f"http://127.0.0.1:{web.port}", table.id, {"X-Telegram-Init-Data": init},
            request,
        )  # fmt: skip
    assert status < 500, (status, request)
    assert not errors(caplog) and not h.errors.records


# -- the findings, one by one ---------------------------------------------------------------------
async def status_of(
    session: aiohttp.ClientSession, method: str, url: str, **kwargs: Any
) -> tuple[int, Any]:
    async with session.request(method, url, **kwargs) as response:
        text = await response.text()
        try:
            return response.status, json.loads(text)
        except json.JSONDecodeError:
            return response.status, text


async def test_the_probes_500s_are_400s_now(local: Local) -> None:
    """Each input the probe found a 500 with, in local mode: now a clear 400 (or 404)."""
    auth = {"X-Local-Session": local.session}
    base, t = local.url, local.table_id
    async with aiohttp.ClientSession() as s:
        act = f"{base}/api/table/{t}/act"
        for body in ('{"step": 1e999, "kind": "p"}', '{"step": 1e999, "kind": "q"}'):
            status, answer = await status_of(s, "POST", act, data=body, headers=auth)
            assert status == 400 and answer["error"] == "Ese botón no es válido.", answer
        sign = f"{base}/api/table/{t}/sign"
        assert (await status_of(s, "POST", sign, data='{"step": 1e999}', headers=auth))[0] == 400
        new = f"{base}/api/local/new"
        assert (await status_of(s, "POST", new, data="[]", headers=auth))[0] == 400
        assert (await status_of(s, "POST", new, data='{"target": 1e999}', headers=auth))[0] == 400
        join = f"{base}/api/table/{t}/join"
        assert (await status_of(s, "POST", join, data="[]", headers=auth))[0] == 400
        assert (await status_of(s, "POST", join, data='{"team": 1e999}', headers=auth))[0] == 400
        huge = f"{base}/api/table/99999999999999999999999"
        assert (await status_of(s, "GET", huge, headers=auth))[0] == 404
        for lang in ("fr", "", "<script>"):
            status, svg = await status_of(s, "GET", f"{base}/cards/1e.svg", params={"lang": lang})
            assert status == 200 and svg.startswith("<svg")
        # A name of nothing but zero-width spaces: refused, said in the page's language.
        login = f"{base}/api/local/login"
        status, answer = await status_of(
            s, "POST", login, json={"name": "\u200b\u200b\u200c", "language": "en"}
        )
        assert status == 400 and answer["error"] == "Pick a name that can be read."


async def test_the_local_table_answers_only_to_its_own_name_with_its_headers_on(
    local: Local,
) -> None:
    port = local.url.rsplit(":", 1)[1]
    async with aiohttp.ClientSession() as s:
        for host in ("evil.example", f"evil.example:{port}", "127.0.0.1:1", "localhost"):
            status, _ = await status_of(s, "GET", f"{local.url}/", headers={"Host": host})
            assert status == 421, host
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
            async with s.get(f"{local.url}/", headers={"Host": host}) as page:
                assert page.status == 200, host
        for path in ("/", "/static/app.js", "/cards/1e.svg", "/api/words/es", "/api/table/1"):
            async with s.get(local.url + path) as answer:
                csp = answer.headers["Content-Security-Policy"]
                assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
                assert answer.headers["X-Content-Type-Options"] == "nosniff"
                assert answer.headers["Referrer-Policy"] == "no-referrer"


async def test_a_strangers_flood_costs_a_handful_of_bot_api_calls(mini: Harness) -> None:
    """1,000 requests with valid launch data from someone who is not in the group: refused,
    and Telegram asked about them a few times, not a thousand; their address is slowed too."""
    h = mini
    await open_table(h, [h.user(1, "Ana"), h.user(2, "Juan")], "1v1 15")
    table = await h.services.tables.table_in(GROUP, 0)
    web = h.services.web
    assert table is not None and web is not None
    stranger = h.user(99, "Extraño")  # not in the group
    before = sum(1 for _, method, _ in h.fake.calls if method == "getChatMember")
    statuses: dict[int, int] = {}
    async with aiohttp.ClientSession() as s:
        for n in range(1000):
            init = launch(h, stranger, age=n % 50)  # (each a different, valid launch)
            status, _ = await status_of(
                s, "GET", f"http://127.0.0.1:{web.port}/api/table/{table.id}",
                headers={"X-Telegram-Init-Data": init},
            )  # fmt: skip
            statuses[status] = statuses.get(status, 0) + 1
    asked = sum(1 for _, method, _ in h.fake.calls if method == "getChatMember") - before
    assert asked <= 5, asked
    assert set(statuses) <= {403, 429} and statuses.get(403), statuses


@pytest.mark.postgresql
async def test_names_cannot_lie(local: Local) -> None:
    """Invisible characters and bidi overrides go; the computer players' mark is the server's:
    a person named "🤖 Bot normal" is shown without it; two Anas are told apart."""
    async with aiohttp.ClientSession() as s:

        async def login(name: str) -> dict[str, str]:
            _, answer = await status_of(
                s, "POST", f"{local.url}/api/local/login", json={"name": name}
            )
            return {"X-Local-Session": answer["session"]}

        liar = await login("\u202e🤖 Bot\u200b normal")
        _, opened = await status_of(
            s, "POST", f"{local.url}/api/local/new", json={"friend": True, "mode": "1v1"},
            headers=liar,
        )  # fmt: skip
        ana = await login("Ana")
        await status_of(s, "POST", f"{local.url}/api/table/{opened['table']}/join", json={},
                        headers=ana)  # fmt: skip
        _, view = await status_of(s, "GET", f"{local.url}/api/table/{opened['table']}", headers=ana)
        names = [seat["name"] for seat in view["seats"]]
        assert names == ["Bot normal", "Ana"], names
        assert not any(seat["bot"] for seat in view["seats"])
        # Two Anas at one table: told apart.
        other = await login("Ana")
        _, table2 = await status_of(
            s, "POST", f"{local.url}/api/local/new", json={"friend": True}, headers=ana
        )
        await status_of(s, "POST", f"{local.url}/api/table/{table2['table']}/join", json={},
                        headers=other)  # fmt: skip
        _, view = await status_of(s, "GET", f"{local.url}/api/table/{table2['table']}", headers=ana)
        assert [seat["name"] for seat in view["seats"]] == ["Ana", "Ana 2"]


async def test_one_client_keeps_a_few_streams_the_oldest_closed(local: Local) -> None:
    """200 live streams of one table from one client: the oldest are closed, a few stay."""
    url = f"{local.url}/api/table/{local.table_id}/events"
    headers = {"X-Local-Session": local.session}
    hub = local.table.hub
    local.table._requests = Buckets(1e9, 1e9)  # (the address limit has a test of its own)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as s:
        responses = []
        for _ in range(200):
            response = await s.get(url, headers=headers)
            assert response.status == 200
            await response.content.readuntil(b"\n\n")  # its first view
            responses.append(response)
        await until(lambda: hub.watchers() <= web_hub.STREAMS_PER_VIEWER)
        ended = 0
        for response in responses[: -web_hub.STREAMS_PER_VIEWER]:
            ended += response.content.at_eof() or await _ends(response)
        assert ended == 200 - web_hub.STREAMS_PER_VIEWER
        for response in responses:
            response.close()


async def _ends(response: aiohttp.ClientResponse) -> bool:
    try:
        await asyncio.wait_for(response.content.read(), 30)
    except (TimeoutError, aiohttp.ClientError):
        return False
    return True


async def test_the_address_limit_slows_a_flood(local: Local) -> None:
    async with aiohttp.ClientSession() as s:
        statuses = [
            (await status_of(s, "GET", f"{local.url}/api/local/tables",
                             headers={"X-Local-Session": local.session}))[0]
            for _ in range(200)
        ]  # fmt: skip
    assert statuses.count(200) >= 50 and statuses.count(429) > 100, statuses


async def test_a_stranger_cannot_tell_a_tournament_of_another_group_from_none(
    mini: Harness,
) -> None:
    """Walking /api/tourney/1..60 (and the real one again and again, past the stranger's
    lookups at Telegram): every answer is the one for a tournament that does not exist. A
    member of the group sees the bracket."""
    h = mini
    web = h.services.web
    assert web is not None
    web.table._requests = Buckets(1e9, 1e9)
    base = Tournament(0, GROUP, 0, 1, "es", 0.0, 0.0, config=MatchConfig(target=15))
    tour = await h.services.core.tournaments.open(GROUP, 0, 1, "es", base)
    stranger, member = h.user(99, "Extraño"), h.user(3, "Carla")
    member.send(GROUP, "hola")
    await h.settle()
    answers: dict[int, list[tuple[int, Any]]] = {}
    async with aiohttp.ClientSession() as s:
        for number in [*range(1, 61), *[tour.id] * 12]:
            init = launch(h, stranger, age=number % 50)
            found = await status_of(
                s, "GET", f"http://127.0.0.1:{web.port}/api/tourney/{number}",
                headers={"X-Telegram-Init-Data": init},
            )  # fmt: skip
            answers.setdefault(number, []).append(found)
        seen = await status_of(
            s, "GET", f"http://127.0.0.1:{web.port}/api/tourney/{tour.id}",
            headers={"X-Telegram-Init-Data": launch(h, member)},
        )  # fmt: skip
    nothing = answers[60][0]
    assert nothing[0] == 404, nothing
    assert {n: a for n, a in answers.items() if any(x != nothing for x in a)} == {}
    assert seen[0] == 200 and seen[1]["title"].endswith(f"#{tour.id}"), seen
