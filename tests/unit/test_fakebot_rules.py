"""The fake Bot API refuses what Telegram refuses (tests/botapi_rules.py): each rule with a call
Telegram takes and one it does not, over HTTP as the bot makes them."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from tests.fakebot import TOKEN, FakeTelegram, FakeUser, html_error

USER = 42
SUPERGROUP = -1_001_000_000_555
BASIC_GROUP = -555


class Api:
    """Calls to a running fake, as JSON bodies (as PTB sends them)."""

    def __init__(self, fake: FakeTelegram, session: aiohttp.ClientSession) -> None:
        self.fake = fake
        self.session = session

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        url = f"http://127.0.0.1:{self.fake.port}/bot{TOKEN}/{method}"
        async with self.session.post(url, json=params) as response:
            body: dict[str, Any] = await response.json()
            return body

    async def ok(self, method: str, **params: Any) -> Any:
        body = await self.call(method, **params)
        assert body["ok"], body
        return body["result"]

    async def refused(self, method: str, **params: Any) -> str:
        body = await self.call(method, **params)
        assert not body["ok"] and body["error_code"] == 400, body
        description: str = body["description"]
        return description

    async def send(self, text: str, **params: Any) -> dict[str, Any]:
        body = await self.call(
            "sendMessage", **{"chat_id": USER, "text": text, "parse_mode": "HTML", **params}
        )
        return body


@pytest.fixture
async def api() -> AsyncIterator[Api]:
    fake = FakeTelegram()
    fake.started.add(USER)
    await fake.start()
    async with aiohttp.ClientSession() as session:
        yield Api(fake, session)
    await fake.stop()


# -- HTML (https://core.telegram.org/bots/api#html-style) ----------------------------------------
ACCEPTED_HTML = [
    "1 &lt; 2 &gt; 0 &amp; &quot;q&quot; &#128512; &#x1F600;",
    "<b>b</b> <strong>b</strong> <i>i</i> <em>i</em> <u>u</u> <ins>u</ins>",
    "<s>s</s> <strike>s</strike> <del>s</del>",
    '<span class="tg-spoiler">x</span> <tg-spoiler>x</tg-spoiler>',
    '<a href="https://t.me/truco_test_bot?start=j1">x</a> <a href="tg://user?id=5">x</a>',
    '<a href="example.com/x">x</a>',
    '<tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>',
    '<tg-time unix="1647531900" format="wDT">x</tg-time> <tg-time unix="1647531900">x</tg-time>',
    '<tg-time unix="1647531900" format="r">x</tg-time>',
    "<code>x</code> <pre>x</pre>",
    '<pre><code class="language-python">x = 1</code></pre>',
    "<blockquote>x</blockquote> <blockquote expandable>x</blockquote>",
    "<b>bold <i>italic <u>under</u></i> <a href='https://a.io'>link</a></b>",
    "<blockquote><code>x</code> <b>y</b></blockquote>",
    "<B>upper case tags</B>",
    "a<b> </b>b",  # an entity over a space, inside a text
    "<b></b>x",  # an empty tag makes no entity
]

REFUSED_HTML = {
    "1 < 2": 'Unsupported start tag "" at byte offset 2',
    "<br>": 'Unsupported start tag "br" at byte offset 0',
    "<span>x</span>": 'Tag "span" must have class "tg-spoiler" at byte offset 0',
    '<span class="tg-x">x</span>': 'Tag "span" must have class "tg-spoiler"',
    "<b>x</i>": 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"',
    "<b>x": 'Can\'t find end tag corresponding to start tag "b"',
    "x</b>": "Unexpected end tag at byte offset 1",
    "<b x": 'Unclosed start tag "b" at byte offset 0',
    "A & B": '"&" at byte offset 2 is not a supported HTML entity',
    "&nbsp;": '"&nbsp;" at byte offset 0 is not a supported HTML entity',
    "a > b": 'bare ">" at byte offset 2',
    '<a href="javascript:alert(1)">x</a>': "URL 'javascript:alert(1)' is invalid",
    '<a href="ftp://files.example.com">x</a>': "Unsupported URL protocol",
    '<a href="mailto:ana@example.com">x</a>': "Unsupported URL protocol",
    '<a href="localhost">x</a>': "Wrong HTTP URL",
    '<tg-emoji emoji-id="x">👍</tg-emoji>': "Invalid custom emoji identifier specified",
    "<tg-time>x</tg-time>": "Invalid date specified",
    '<tg-time unix="1647531900" format="Tw">x</tg-time>': "Invalid date format used",
    "<b><code>x</code></b>": '"code" inside "b"',
    "<code><b>x</b></code>": '"b" inside "code"',
    "<a href='https://a.io'><a href='https://b.io'>x</a></a>": '"a" inside "a"',
    "<blockquote><blockquote>x</blockquote></blockquote>": '"blockquote" inside "blockquote"',
    '<code class="language-python">x</code>': "standalone code tags",
    "<pre>a<code>b</code></pre>": '"code" inside "pre"',
    "&#xD800;": "invalid Unicode characters after decoding HTML entities",
}


@pytest.mark.parametrize("text", ACCEPTED_HTML)
async def test_html_telegram_takes_is_taken(api: Api, text: str) -> None:
    body = await api.send(text)
    assert body["ok"], body


@pytest.mark.parametrize(("text", "why"), REFUSED_HTML.items())
async def test_html_telegram_refuses_is_refused(api: Api, text: str, why: str) -> None:
    body = await api.send(text)
    assert not body["ok"] and body["error_code"] == 400, body
    assert body["description"].startswith("Bad Request: can't parse entities: "), body
    assert why in body["description"]
    error = html_error(text)  # (what tests/unit/test_pages.py reads)
    assert error is not None and why in error


async def test_a_bare_less_than_is_text_without_a_parse_mode(api: Api) -> None:
    assert (await api.ok("sendMessage", chat_id=USER, text="1 < 2 & 3 > 0"))["text"]


async def test_an_unknown_parse_mode_is_refused(api: Api) -> None:
    assert (
        await api.refused("sendMessage", chat_id=USER, text="x", parse_mode="BBCode")
        == "Bad Request: unsupported parse_mode"
    )


async def test_an_entity_over_spaces_alone_leaves_no_text(api: Api) -> None:
    """`<b> </b>`: Telegram cuts spaces and new lines at the ends of a text (TDLib's
    fix_formatted_text), and nothing is left."""
    for text in ("<b> </b>", "<i>\n</i> \n"):
        assert (await api.send(text)) == {
            "ok": False, "error_code": 400, "description": "Bad Request: text must be non-empty"
        }  # fmt: skip
    assert await api.refused("sendMessage", chat_id=USER, text="") == (
        "Bad Request: message text is empty"
    )


# -- lengths, after entity parsing ----------------------------------------------------------------
async def test_4096_characters_are_counted_after_the_tags_and_entities(api: Api) -> None:
    assert (await api.send("<b>" + "x" * 4096 + "</b>"))["ok"]
    assert (await api.send("&amp;" * 4096))["ok"]  # 20,480 characters of HTML, 4,096 shown
    assert (await api.send("<b>x</b>" * 4096))["ok"]
    assert (await api.send("x" * 4096 + "\n \n"))["ok"]  # the ends are cut before counting
    for text in ("<b>" + "x" * 4097 + "</b>", "&amp;" * 4097, "<i>x</i>" * 4000 + "x" * 97):
        assert (await api.send(text))["description"] == "Bad Request: message is too long"
    # Past 32,768 bytes of HTML Telegram does not parse it (Client::get_formatted_text)
    assert (await api.send("<i>x</i>" * 4097))["description"] == "Bad Request: text is too long"


async def test_length_is_in_characters_not_utf16_code_units(api: Api) -> None:
    assert (await api.send("🃏" * 4096))["ok"]  # 8,192 UTF-16 code units
    assert (await api.send("🃏" * 4097))["description"] == "Bad Request: message is too long"


async def test_an_edit_is_held_to_the_same_length(api: Api) -> None:
    sent = await api.ok("sendMessage", chat_id=USER, text="x", parse_mode="HTML")
    edit = {"chat_id": USER, "message_id": sent["message_id"], "parse_mode": "HTML"}
    assert await api.ok("editMessageText", **edit, text="<b>" + "y" * 4096 + "</b>")
    assert await api.refused("editMessageText", **edit, text="<b>" + "z" * 4097 + "</b>") == (
        "Bad Request: message is too long"
    )
    assert "Unsupported start tag" in await api.refused("editMessageText", **edit, text="1 < 2")


async def test_a_caption_is_1024_characters_after_parsing(api: Api) -> None:
    async def document(caption: str) -> dict[str, Any]:
        form = aiohttp.FormData()
        form.add_field("chat_id", str(USER))
        form.add_field("caption", caption)
        form.add_field("parse_mode", "HTML")
        form.add_field("document", b"{}", filename="partida.json")
        url = f"http://127.0.0.1:{api.fake.port}/bot{TOKEN}/sendDocument"
        async with api.session.post(url, data=form) as response:
            body: dict[str, Any] = await response.json()
            return body

    assert (await document("<b>" + "c" * 1024 + "</b>"))["ok"]
    assert (await document(""))["ok"]
    assert (await document("<b>" + "c" * 1025 + "</b>"))["description"] == (
        "Bad Request: message caption is too long"
    )
    assert "Unsupported start tag" in (await document("1 < 2"))["description"]


async def test_a_callback_answer_is_200_characters(api: Api) -> None:
    assert await api.ok("answerCallbackQuery", callback_query_id="q1", text="🃏" * 200)
    assert await api.refused("answerCallbackQuery", callback_query_id="q2", text="x" * 201) == (
        "Bad Request: MESSAGE_TOO_LONG"
    )


# -- inline keyboards (#inlinekeyboardbutton) ----------------------------------------------------
def keyboard(*buttons: dict[str, Any]) -> dict[str, Any]:
    return {"inline_keyboard": [list(buttons)]}


ACCEPTED_BUTTONS = [
    {"text": "Quiero", "callback_data": "a:1:2:q"},
    {"text": "Quiero", "callback_data": "ñ" * 32},  # 64 bytes
    {"text": "Ver", "url": "https://t.me/truco_test_bot?start=j1"},
    {"text": "Ana", "url": "tg://user?id=5"},
    {"text": "¡Truco!", "callback_data": "a:1:2:t", "style": "danger"},
    {"text": "Sí", "callback_data": "y", "style": "success"},
    {"text": "Mesa", "callback_data": "m", "style": "primary"},
    {"text": "Ya jugó", "disabled": {}},
    {"text": "Copiar", "copy_text": {"text": "semilla"}},
    {"text": "Mesa", "web_app": {"url": "https://truco.example.invalid/table?table=1"}},
]

REFUSED_BUTTONS: list[tuple[dict[str, Any], str]] = [
    (
        {"text": "Dos", "callback_data": "x", "url": "https://t.me/x"},
        "exactly one of the fields",
    ),
    ({"text": "Nada"}, "Text buttons are unallowed in the inline keyboard"),
    ({"text": "Vacío", "callback_data": ""}, "Text buttons are unallowed in the inline keyboard"),
    ({"text": "", "callback_data": "x"}, "inline keyboard button text must be non-empty"),
    ({"callback_data": "x"}, 'Can\'t find field "text"'),
    ({"text": "Largo", "callback_data": "ñ" * 32 + "a"}, "BUTTON_DATA_INVALID"),
    ({"text": "Mal", "url": "javascript:alert(1)"}, "Unsupported URL protocol"),
    ({"text": "Mal", "url": "http://localhost/x"}, "Wrong HTTP URL"),
    ({"text": "Link", "callback_data": "x", "style": "link"}, "invalid button style specified"),
    ({"text": "Mesa", "web_app": {"url": "http://x.example/t"}}, "Only HTTPS links are allowed"),
    ({"text": "Pagar", "pay": True}, "games and invoices"),
]


@pytest.mark.parametrize("button", ACCEPTED_BUTTONS)
async def test_a_button_telegram_takes_is_taken(api: Api, button: dict[str, Any]) -> None:
    assert (await api.send("x", reply_markup=keyboard(button)))["ok"]


@pytest.mark.parametrize(("button", "why"), REFUSED_BUTTONS)
async def test_a_button_telegram_refuses_is_refused(
    api: Api, button: dict[str, Any], why: str
) -> None:
    body = await api.send("x", reply_markup=keyboard(button))
    assert not body["ok"] and body["description"].startswith("Bad Request: "), body
    assert why in body["description"]


async def test_a_web_app_button_works_in_private_chats_only(api: Api) -> None:
    markup = keyboard({"text": "Mesa", "web_app": {"url": "https://truco.example.invalid/t"}})
    for group in (SUPERGROUP, BASIC_GROUP):
        assert (
            await api.refused("sendMessage", chat_id=group, text="x", reply_markup=markup)
            == "Bad Request: BUTTON_TYPE_INVALID"
        )


async def test_at_most_100_buttons_and_8_a_row(api: Api) -> None:
    def grid(rows: int, width: int) -> dict[str, Any]:
        return {
            "inline_keyboard": [
                [{"text": f"{r}.{c}", "callback_data": f"{r}.{c}"} for c in range(width)]
                for r in range(rows)
            ]
        }

    assert (await api.send("x", reply_markup=grid(12, 8)))["ok"]  # 96
    assert (await api.send("x", reply_markup=grid(25, 4)))["ok"]  # 100
    for markup in (grid(101, 1), grid(1, 9)):
        body = await api.send("x", reply_markup=markup)
        assert body["description"] == "Bad Request: reply markup is too long"


async def test_a_keyboard_alone_is_checked_on_its_edit(api: Api) -> None:
    sent = await api.ok("sendMessage", chat_id=SUPERGROUP, text="x")
    bad = keyboard({"text": "Dos", "callback_data": "x", "url": "https://t.me/x"})
    description = await api.refused(
        "editMessageReplyMarkup", chat_id=SUPERGROUP, message_id=sent["message_id"],
        reply_markup=bad,
    )  # fmt: skip
    assert "exactly one of the fields" in description


# -- setMyCommands (#setmycommands, #botcommand) -------------------------------------------------
def commands(*names: str, **extra: Any) -> list[dict[str, Any]]:
    return [{"command": name, "description": f"{name}!", **extra} for name in names]


async def test_commands_telegram_takes_are_taken(api: Api) -> None:
    assert await api.ok("setMyCommands", commands=commands("nueva", "tabla_2", "x9"))
    assert await api.ok("setMyCommands", commands=commands("jugar", is_ephemeral=True))
    assert await api.ok("setMyCommands", commands=commands("a"), language_code="en")
    assert await api.ok("setMyCommands", commands=commands("a"), language_code="")
    assert await api.ok("setMyCommands", commands=[])
    assert await api.ok("setMyCommands", commands=commands(*(f"c{i}" for i in range(100))))
    assert await api.ok("setMyCommands", commands=commands("a"), scope={"type": "all_group_chats"})
    assert await api.ok(
        "setMyCommands", commands=commands("a"), scope={"type": "chat", "chat_id": SUPERGROUP}
    )
    assert api.fake.commands["en"] == commands("a")


REFUSED_COMMANDS: list[tuple[dict[str, Any], str]] = [
    ({"commands": commands("Nueva")}, "Bad Request: BOT_COMMAND_INVALID"),
    ({"commands": commands("nueva-mesa")}, "Bad Request: BOT_COMMAND_INVALID"),
    ({"commands": commands("ñandú")}, "Bad Request: BOT_COMMAND_INVALID"),
    ({"commands": commands("a" * 33)}, "Bad Request: command length must not exceed 32"),
    ({"commands": commands("nueva", "nueva")}, "Bad Request: BOT_COMMAND_INVALID"),
    (
        {"commands": [{"command": "nueva", "description": " "}]},
        "Bad Request: command description must be non-empty",
    ),
    (
        {"commands": [{"command": "nueva", "description": "d" * 257}]},
        "Bad Request: command description length must not exceed 256",
    ),
    (
        {"commands": [{"command": "nueva"}]},
        "Bad Request: can't parse BotCommand: Can't find field \"description\"",
    ),
    (
        {"commands": commands(*(f"c{i}" for i in range(101)))},
        "Bad Request: BOT_COMMANDS_TOO_MUCH",
    ),
    (
        {"commands": commands("jugar", is_ephemeral="yes")},
        'Bad Request: can\'t parse BotCommand: Field "is_ephemeral" must be of type Boolean',
    ),
    (
        {"commands": commands("a"), "language_code": "eng"},
        "Bad Request: invalid language code specified",
    ),
    (
        {"commands": commands("a"), "language_code": "EN"},
        "Bad Request: invalid language code specified",
    ),
    (
        {"commands": commands("a"), "scope": {"type": "everyone"}},
        "Bad Request: can't parse BotCommandScope: Unsupported type specified",
    ),
    (
        {"commands": commands("a"), "scope": {"type": "chat"}},
        "Bad Request: can't parse BotCommandScope: Can't find field \"chat_id\"",
    ),
]


@pytest.mark.parametrize(("params", "description"), REFUSED_COMMANDS)
async def test_commands_telegram_refuses_are_refused(
    api: Api, params: dict[str, Any], description: str
) -> None:
    assert await api.refused("setMyCommands", **params) == description
    assert api.fake.commands == {}


# -- chat types by the form of their ids ---------------------------------------------------------
async def test_a_chat_is_private_a_group_or_a_supergroup_by_its_id(api: Api) -> None:
    for chat, kind in ((USER, "private"), (BASIC_GROUP, "group"), (SUPERGROUP, "supergroup")):
        sent = await api.ok("sendMessage", chat_id=chat, text="x")
        assert sent["chat"]["type"] == kind
        ana = FakeUser(api.fake, USER, "Ana")
        ana.send(chat, "/nueva")
        assert api.fake.updates[-1]["message"]["chat"]["type"] == kind
        ana.tap_data(chat, sent["message_id"], "x")
        assert api.fake.updates[-1]["callback_query"]["message"]["chat"]["type"] == kind
    assert json.dumps(list(api.fake.updates))  # (plain JSON, as the bot reads it)
