"""A fake Telegram Bot API server on 127.0.0.1, and scripted users that talk to the bot.

It answers like Telegram does, errors included: 403 to a user who never started the bot,
400 "message is not modified", 400 for what Telegram refuses in a text, a keyboard or a list of
commands (tests/botapi_rules.py: HTML as documented, lengths after entity parsing, buttons, chat
types by the form of their ids), 429 with retry_after past a group's flood limit. The real
python-telegram-bot Application polls it over HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from bot import codec
from tests.botapi_rules import ApiError as _ApiError
from tests.botapi_rules import (
    chat_type,
    check_answer,
    check_caption,
    check_commands,
    check_keyboard,
    check_text,
)
from tests.botapi_rules import html_error as html_error

BOT_ID = 999_000
BOT_USERNAME = "truco_test_bot"
TOKEN = "999000:TEST-token"


def _form_value(value: Any) -> str:
    """A JSON body's field as the same field of a form: text as is, the rest as JSON."""
    return value if isinstance(value, str) else codec.dumps(value)


@dataclass
class StoredMessage:
    chat_id: int
    message_id: int
    text: str
    reply_markup: dict[str, Any] | None
    thread_id: int | None
    history: list[str] = field(default_factory=list)
    deleted: bool = False
    reply_to: int | None = None  # the message this one answers
    parse_mode: str | None = None
    receiver: int | None = None  # an ephemeral message's one reader
    effect: str | None = None  # a message effect (private chats only)
    lost: bool = False  # an ephemeral message sent and never shown (its edits still succeed)

    def buttons(self) -> list[dict[str, Any]]:
        if not self.reply_markup:
            return []
        return [b for row in self.reply_markup.get("inline_keyboard", []) for b in row]

    def button(self, text: str) -> dict[str, Any]:
        for b in self.buttons():
            if b["text"] == text:
                return b
        raise KeyError(f"no button {text!r} in {[b['text'] for b in self.buttons()]}")


class FakeTelegram:
    def __init__(
        self,
        group_limit: tuple[int, float] = (20, 60.0),
        overall_limit: tuple[int, float] | None = None,
        private_limit: tuple[float, int] | None = None,
        private_grace: float = 0.2,
    ) -> None:
        self.group_limit = group_limit
        # Telegram's other limits, off unless asked for: the whole bot's (`overall_limit`:
        # (calls, seconds) in any sliding window, 30 a second) and one private chat's
        # (`private_limit`: (calls a second, burst), about 1 a second after a burst of 3;
        # `private_grace`: how early a call may come, as "about" a second allows). Each answers
        # 429 with retry_after, as Telegram does; `limited` counts them by kind.
        self.overall_limit = overall_limit
        self.private_limit = private_limit
        self.private_grace = private_grace
        self.overall_calls: deque[float] = deque()  # calls taken within the overall window
        self.private_due: dict[int, float] = {}  # chat -> when its bucket is full again
        self.limited: Counter[str] = Counter()  # 429s by kind: "group", "overall", "private"
        self.limited_calls: list[tuple[str, str, int]] = []  # (kind, method, chat) of each
        self.taken: list[tuple[float, str, int]] = []  # calls the limits let through
        self.updates: deque[dict[str, Any]] = deque()
        self.update_ids = itertools.count(1)
        self.query_ids = itertools.count(1)
        self.new_update = asyncio.Event()
        self.messages: dict[int, dict[int, StoredMessage]] = defaultdict(dict)
        # Every text each chat was shown, in the order it landed: (message id, text), a new
        # message or an edit (what a reader scrolling the chat saw change, in order)
        self.timeline: dict[int, list[tuple[int, str]]] = defaultdict(list)
        self.message_ids: dict[int, itertools.count[int]] = defaultdict(lambda: itertools.count(1))
        self.started: set[int] = set()  # users who pressed Start in the bot's private chat
        self.admins: dict[int, set[int]] = defaultdict(set)
        # Who is in each group: whoever wrote or tapped there (the scripted users), less those
        # who left; a group in `hidden_members` does not tell the bot (getChatMember fails).
        self.members: dict[int, set[int]] = defaultdict(set)
        self.left: dict[int, set[int]] = defaultdict(set)
        self.hidden_members: set[int] = set()
        self.answers: dict[str, dict[str, Any]] = {}
        self.answer_events: dict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.query_users: dict[str, int] = {}
        self.calls: list[tuple[float, str, int | None]] = []  # (time, method, chat)
        self.paid: list[tuple[str, int | None]] = []  # calls asking for a paid broadcast
        self.errors: list[tuple[str, int, str]] = []  # (method, code, description)
        self.documents: list[tuple[int, str, bytes, str]] = []  # (chat, filename, body, caption)
        self.group_calls: dict[int, deque[float]] = defaultdict(deque)
        self.commands: dict[str | None, list[dict[str, Any]]] = {}
        self.fail_next: dict[str, tuple[int, str, int | None]] = {}
        self.last_request = time.monotonic()
        self.delivered = 0
        self.acked = 0  # the bot asked past this update: it has queued everything up to it
        self.pushed = 0
        self.webhook: tuple[str, str | None] | None = None
        # As Telegram behind a load balancer: every worker that set a webhook is a backend,
        # and each update is posted to the next one (to another if that one is down).
        self.backends: list[tuple[str, str | None]] = []
        self.balancer: asyncio.Task[None] | None = None
        self.posted: dict[int, str] = {}  # update id -> the backend that took it
        self.changed: dict[int, asyncio.Event] = defaultdict(asyncio.Event)
        self.runner: web.AppRunner | None = None
        self.port = 0
        self.closing = False  # stop() was called: a long poll returns at once
        # Ephemeral messages (Bot API 10.2/10.3, "Ephemeral messages and commands"): each seen
        # by one member of a group, kept by (group, receiver) -> ephemeral message id.
        # Any bot may send one within `ephemeral_window` seconds of the receiver's tap (its
        # callback_query_id); a bot that is an administrator of the group (BOT_ID in its
        # `admins`), to any non-bot member at any time. Delivery is not guaranteed and one may
        # disappear: `lose_next` (the next one to that receiver never shows) and `vanish`.
        self.ephemeral: dict[tuple[int, int], dict[int, StoredMessage]] = defaultdict(dict)
        self.ephemeral_ids: dict[int, itertools.count[int]] = defaultdict(
            lambda: itertools.count(1)
        )
        self.ephemeral_window = 15.0
        self.ephemeral_lost: set[tuple[int, int]] = set()  # (group, receiver): next one lost
        # Whether ephemeral calls count toward the group's flood limit (the documentation does
        # not say; off: each receiver's are paced as a private chat's, when that limit is on)
        self.ephemeral_in_group_limit = False
        # Everything any chat was shown, in order: (chat, the one reader of an ephemeral message
        # or None, message id, text, "new" or "edit"): a person's transcript of a group is its
        # messages and their own ephemeral ones (`transcript`)
        self.seen: list[tuple[int, int | None, int, str, str]] = []
        self.query_seen: dict[str, tuple[float, int, int]] = {}  # id -> (when, chat, user)
        # Member tags (Bot API 9.5): the groups where the bot, an administrator, was given the
        # right to manage them, and the tags it set
        self.tag_rights: set[int] = set()
        self.tags: dict[tuple[int, int], str] = {}
        # ephemeral messages people sent the bot (commands): (group, id) -> (when, user)
        self.ephemeral_asked: dict[tuple[int, int], tuple[float, int]] = {}
        self.ephemeral_answers: dict[tuple[int, int], int] = {}  # (group, asked) -> answer

    # -- server --------------------------------------------------------------------------------
    async def start(self) -> str:
        app = web.Application()
        app.router.add_post("/bot{token}/{method}", self._handle)
        app.router.add_get("/bot{token}/{method}", self._handle)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None and server.sockets
        self.port = server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{self.port}/bot"

    async def stop(self) -> None:
        # A long poll the bot gave up on when it stopped is still waiting here, and the server's
        # cleanup would wait for it (up to its timeout): wake it, and any that comes after.
        self.closing = True
        self.new_update.set()
        if self.runner is not None:
            await self.runner.cleanup()

    async def _handle(self, request: web.Request) -> web.Response:
        self.last_request = time.monotonic()
        if request.match_info["token"] != TOKEN:
            return self._error(401, "Unauthorized")
        method = request.match_info["method"]
        params: dict[str, Any] = {}
        if request.content_type == "application/json":
            # As Telegram does, a JSON body means the same as a form: read the fields as a form
            # would carry them (numbers as text, objects as JSON text).
            form: dict[str, Any] = {}
            params = {k: _form_value(v) for k, v in codec.loads(await request.read()).items()}
        else:
            form = dict(await request.post()) if request.can_read_body else {}
            params = {k: v for k, v in form.items() if isinstance(v, str)}
        for name, value in form.items():  # uploads (sendDocument): name -> (filename, bytes)
            if isinstance(value, web.FileField):
                params[name] = (value.filename, value.file.read())
        handler = getattr(self, f"api_{method}", None)
        if handler is None:
            return self._error(404, f"Not Found: method {method} not found")
        chat = int(params["chat_id"]) if "chat_id" in params else None
        if method != "getUpdates":
            self.calls.append((time.time(), method, chat))
        if str(params.get("allow_paid_broadcast", "")).lower() == "true":
            self.paid.append((method, chat))
        if method in self.fail_next:
            code, description, retry = self.fail_next.pop(method)
            return self._error(code, description, retry)
        ephemeral = method in EPHEMERAL_METHODS or "ephemeral_message_parameters" in params
        if (
            chat is not None and chat < 0 and method in _COUNTED
            and (not ephemeral or self.ephemeral_in_group_limit)
        ):  # fmt: skip
            limited = self._flood(chat)
            if limited is not None:
                self.limited["group"] += 1
                return limited
        if chat is not None and method in OVERALL_COUNTED:
            if ephemeral:  # (paced per receiver, as a private chat is)
                receiver = _ephemeral_receiver(params)
                chat = receiver if receiver is not None else chat
            limited = self._limits(chat, method)
            if limited is not None:
                return limited
        try:
            result = await handler(params)
        except _ApiError as error:
            return self._error(error.code, error.description)
        return web.json_response({"ok": True, "result": result}, dumps=codec.dumps)

    def _flood(self, chat: int) -> web.Response | None:
        limit, window = self.group_limit
        now = time.monotonic()
        recent = self.group_calls[chat]
        while recent and recent[0] <= now - window:
            recent.popleft()
        if len(recent) >= limit:
            retry = max(1, int(recent[0] + window - now + 0.999))
            return self._error(429, f"Too Many Requests: retry after {retry}", retry)
        recent.append(now)
        return None

    def _limits(self, chat: int, method: str = "") -> web.Response | None:
        """The overall and private limits (when on): a 429 if this call is over either."""
        now = time.monotonic()
        if self.private_limit is not None and chat > 0:
            per_second, burst = self.private_limit
            every = 1.0 / per_second
            due = max(self.private_due.get(chat, 0.0), now)
            if due - now > (burst - 1) * every + self.private_grace:
                self.limited["private"] += 1
                self.limited_calls.append(("private", method, chat))
                retry = max(1, int(due - (burst - 1) * every - now + 0.999))
                return self._error(429, f"Too Many Requests: retry after {retry}", retry)
        if self.overall_limit is not None:
            limit, window = self.overall_limit
            recent = self.overall_calls
            while recent and recent[0] <= now - window:
                recent.popleft()
            if len(recent) >= limit:
                self.limited["overall"] += 1
                self.limited_calls.append(("overall", method, chat))
                retry = max(1, int(recent[0] + window - now + 0.999))
                return self._error(429, f"Too Many Requests: retry after {retry}", retry)
            recent.append(now)
        if self.private_limit is not None and chat > 0:
            due = max(self.private_due.get(chat, 0.0), now)
            self.private_due[chat] = due + 1.0 / self.private_limit[0]
        self.taken.append((time.time(), method, chat))
        return None

    def busiest(self, window: float = 1.0, since: float = 0.0) -> int:
        """The most calls the limits let through in any sliding `window` (counted calls)."""
        times = sorted(at for at, _, _ in self.taken if at >= since)
        best, j = 0, 0
        for i, at in enumerate(times):
            while times[j] <= at - window:
                j += 1
            best = max(best, i - j + 1)
        return best

    def _error(self, code: int, description: str, retry: int | None = None) -> web.Response:
        self.errors.append(("", code, description))
        body: dict[str, Any] = {"ok": False, "error_code": code, "description": description}
        if retry is not None:
            body["parameters"] = {"retry_after": retry}
        return web.json_response(body, status=code, dumps=codec.dumps)

    # -- Bot API methods -----------------------------------------------------------------------
    async def api_getMe(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "Truco",
            "username": BOT_USERNAME,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }

    async def api_deleteWebhook(self, params: dict[str, Any]) -> bool:
        if self.balancer is None:  # behind the balancer, a worker leaving changes nothing
            self.webhook = None
        return True

    async def api_setWebhook(self, params: dict[str, Any]) -> bool:
        self.webhook = (params["url"], params.get("secret_token"))
        if self.webhook not in self.backends:
            self.backends.append(self.webhook)
        return True

    def start_balancing(self) -> None:
        """Post updates to the webhooks set, round-robin, instead of answering getUpdates."""
        self.balancer = asyncio.get_running_loop().create_task(self._balance())

    async def stop_balancing(self) -> None:
        if self.balancer is not None:
            self.balancer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.balancer
            self.balancer = None

    async def _balance(self) -> None:
        turn = 0
        async with aiohttp.ClientSession() as session:
            while True:
                if not self.updates:
                    self.new_update.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.new_update.wait(), 0.5)
                    continue
                update = self.updates[0]
                for _ in range(len(self.backends)):
                    url, secret = self.backends[turn % len(self.backends)]
                    turn += 1
                    headers = {"X-Telegram-Bot-Api-Secret-Token": secret} if secret else {}
                    try:
                        async with session.post(
                            url,
                            json=update,
                            headers=headers,
                            timeout=aiohttp.ClientTimeout(total=5),
                        ) as got:
                            if got.status != 200:
                                continue
                    except (aiohttp.ClientError, TimeoutError):
                        continue  # that worker is down: the next one takes it
                    self.updates.popleft()
                    self.posted[update["update_id"]] = url
                    self.delivered = self.acked = update["update_id"]
                    break
                else:
                    await asyncio.sleep(0.05)  # nobody took it: Telegram tries again later

    async def api_setMyCommands(self, params: dict[str, Any]) -> bool:
        commands = check_commands(
            params.get("commands"), params.get("scope"), params.get("language_code")
        )
        self.commands[params.get("language_code")] = commands
        return True

    async def api_getUpdates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(params.get("offset", 0) or 0)
        self.acked = max(self.acked, offset - 1)
        while self.updates and self.updates[0]["update_id"] < offset:
            self.updates.popleft()
        timeout = float(params.get("timeout", 0) or 0)
        if not self.updates and timeout > 0 and not self.closing:
            self.new_update.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.new_update.wait(), min(timeout, 1.0))
        limit = int(params.get("limit", 100) or 100)
        batch = list(itertools.islice(self.updates, limit))
        if batch:
            self.delivered = max(self.delivered, batch[-1]["update_id"])
        return batch

    def _check_text(
        self,
        text: str,
        markup: dict[str, Any] | None,
        parse_mode: str | None = "HTML",
        chat_id: int | None = None,
    ) -> None:
        """A message's text and keyboard, as Telegram checks them (tests/botapi_rules.py)."""
        check_text(text, parse_mode)
        check_keyboard(markup, "private" if chat_id is None else chat_type(chat_id))

    def _message_json(self, stored: StoredMessage) -> dict[str, Any]:
        kind = chat_type(stored.chat_id)
        chat: dict[str, Any] = {"id": stored.chat_id, "type": kind}
        if kind == "private":
            chat["first_name"] = "user"
        else:
            chat["title"] = "Grupo"
        data: dict[str, Any] = {
            "message_id": stored.message_id,
            "date": int(time.time()),
            "chat": chat,
            "from": {"id": BOT_ID, "is_bot": True, "first_name": "Truco", "username": BOT_USERNAME},
            "text": stored.text,
        }
        if stored.reply_markup:
            data["reply_markup"] = stored.reply_markup
        if stored.thread_id:
            data["message_thread_id"] = stored.thread_id
            data["is_topic_message"] = True
        return data

    async def api_sendDocument(self, params: dict[str, Any]) -> dict[str, Any]:
        chat_id = int(params["chat_id"])
        if chat_id > 0 and chat_id not in self.started:
            raise _ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        upload = params.get("document")
        if not isinstance(upload, tuple):
            raise _ApiError(400, "Bad Request: there is no document in the request")
        filename, content = upload
        caption = params.get("caption", "")
        check_caption(caption, params.get("parse_mode"))
        self.documents.append((chat_id, filename, content, caption))
        stored = StoredMessage(chat_id, next(self.message_ids[chat_id]), caption, None, None)
        stored.history.append(caption)
        self.messages[chat_id][stored.message_id] = stored
        self.changed[chat_id].set()
        data = self._message_json(stored)
        data["document"] = {"file_id": f"doc{stored.message_id}", "file_unique_id": "u",
                            "file_name": filename}  # fmt: skip
        return data

    async def api_sendMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        chat_id = int(params["chat_id"])
        if "ephemeral_message_parameters" in params:
            return self._send_ephemeral(chat_id, params)
        if chat_id > 0 and chat_id not in self.started:
            raise _ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        markup = codec.loads(params["reply_markup"]) if "reply_markup" in params else None
        text = params.get("text", "")
        self._check_text(text, markup, params.get("parse_mode"), chat_id)
        if "message_effect_id" in params and chat_id < 0:  # "for private chats only"
            raise _ApiError(400, "Bad Request: message effects are for private chats only")
        thread = int(params["message_thread_id"]) if "message_thread_id" in params else None
        stored = StoredMessage(chat_id, next(self.message_ids[chat_id]), text, markup, thread)
        stored.effect = params.get("message_effect_id")
        stored.history.append(text)
        self.timeline[chat_id].append((stored.message_id, text))
        self.seen.append((chat_id, None, stored.message_id, text, "new"))
        stored.parse_mode = params.get("parse_mode")
        if "reply_parameters" in params:
            stored.reply_to = codec.loads(params["reply_parameters"]).get("message_id")
        elif "reply_to_message_id" in params:
            stored.reply_to = int(params["reply_to_message_id"])
        self.messages[chat_id][stored.message_id] = stored
        self.changed[chat_id].set()
        return self._message_json(stored)

    def _send_ephemeral(self, chat_id: int, params: dict[str, Any]) -> dict[str, Any]:
        """sendMessage with `ephemeral_message_parameters` (10.3). The refusals' texts are not
        documented (nor seen from a live server): these are ours, a 400 each, as the
        documentation's rules say when one cannot be sent."""
        ephemeral = codec.loads(params["ephemeral_message_parameters"])
        receiver = ephemeral.get("receiver_user_id")
        if receiver is None:
            raise _ApiError(400, "Bad Request: receiver_user_id is required")
        receiver = int(receiver)
        if chat_id > 0:
            raise _ApiError(400, "Bad Request: ephemeral messages are for groups only")
        if receiver not in self.members[chat_id] or receiver in self.left[chat_id]:
            raise _ApiError(400, "Bad Request: receiver is not a member of the chat")
        query = ephemeral.get("callback_query_id")
        replied = codec.loads(params["reply_parameters"]) if "reply_parameters" in params else {}
        asked = replied.get("ephemeral_message_id")
        if BOT_ID not in self.admins[chat_id]:
            # the user's eligible action: their tap, or their ephemeral message (a command)
            seen = self.query_seen.get(str(query)) if query is not None else None
            if seen is None and asked is not None:
                found = self.ephemeral_asked.get((chat_id, int(asked)))
                seen = None if found is None else (found[0], chat_id, found[1])
            if seen is None or seen[1] != chat_id or seen[2] != receiver:
                raise _ApiError(400, "Bad Request: ephemeral message needs the user's action")
            if time.monotonic() - seen[0] > self.ephemeral_window:
                raise _ApiError(400, "Bad Request: the user's action is too old")
        if ephemeral.get("replace_callback_query_message") and query is None:
            raise _ApiError(400, "Bad Request: there is no callback query message to replace")
        markup = codec.loads(params["reply_markup"]) if "reply_markup" in params else None
        text = params.get("text", "")
        self._check_text(text, markup, params.get("parse_mode"), chat_id)
        thread = int(params["message_thread_id"]) if "message_thread_id" in params else None
        number = next(self.ephemeral_ids[chat_id])
        if asked is not None:
            self.ephemeral_answers[(chat_id, int(asked))] = number
        stored = StoredMessage(chat_id, number, text, markup, thread)
        stored.parse_mode = params.get("parse_mode")
        stored.history.append(text)
        stored.receiver = receiver
        if (chat_id, receiver) in self.ephemeral_lost:  # sent, and never shown
            self.ephemeral_lost.discard((chat_id, receiver))
            stored.deleted = True
            stored.lost = True
        self.ephemeral[(chat_id, receiver)][number] = stored
        if not stored.lost:
            self.seen.append((chat_id, receiver, number, text, "new"))
        self.changed[chat_id].set()
        return self._ephemeral_json(stored)

    def _ephemeral_json(self, stored: StoredMessage) -> dict[str, Any]:
        data = self._message_json(stored)
        data["message_id"] = 0  # "0 for ephemeral messages"
        data["ephemeral_message_id"] = stored.message_id
        data["receiver_user"] = {"id": stored.receiver, "is_bot": False, "first_name": "u"}
        return data

    def _ephemeral_stored(self, params: dict[str, Any], what: str) -> StoredMessage:
        key = (int(params["chat_id"]), int(params["receiver_user_id"]))
        stored = self.ephemeral[key].get(int(params["ephemeral_message_id"]))
        if stored is None or (stored.deleted and not stored.lost):
            raise _ApiError(400, f"Bad Request: message to {what} not found")
        return stored

    async def api_editEphemeralMessageText(self, params: dict[str, Any]) -> bool:
        stored = self._ephemeral_stored(params, "edit")
        markup = codec.loads(params["reply_markup"]) if "reply_markup" in params else None
        text = params.get("text", "")
        self._check_text(text, markup, params.get("parse_mode"), stored.chat_id)
        if text == stored.text and markup == stored.reply_markup:
            raise _ApiError(400, "Bad Request: message is not modified")
        stored.text, stored.reply_markup = text, markup
        stored.history.append(text)
        if not stored.lost:
            self.seen.append((stored.chat_id, receiver_of(stored), stored.message_id, text, "edit"))
        self.changed[stored.chat_id].set()
        return True

    async def api_editEphemeralMessageReplyMarkup(self, params: dict[str, Any]) -> bool:
        stored = self._ephemeral_stored(params, "edit")
        markup = codec.loads(params["reply_markup"]) if "reply_markup" in params else None
        self._check_text(stored.text, markup, stored.parse_mode, stored.chat_id)
        if markup == stored.reply_markup:
            raise _ApiError(400, "Bad Request: message is not modified")
        stored.reply_markup = markup
        self.changed[stored.chat_id].set()
        return True

    async def api_deleteEphemeralMessage(self, params: dict[str, Any]) -> bool:
        stored = self._ephemeral_stored(params, "delete")
        stored.deleted = True
        stored.lost = False
        self.changed[stored.chat_id].set()
        return True

    def vanish(self, chat_id: int, receiver: int) -> None:
        """Every ephemeral message the receiver sees in the group disappears (it expired, or
        their app restarted): the bot's edits of them fail from now on."""
        for stored in self.ephemeral[(chat_id, receiver)].values():
            stored.deleted = True
            stored.lost = False

    def lose_next(self, chat_id: int, receiver: int) -> None:
        """The next ephemeral message to the receiver in the group is sent and never shown
        (they were offline): Telegram takes it, and its edits, but they never see it."""
        self.ephemeral_lost.add((chat_id, receiver))

    def transcript(self, chat_id: int, reader: int) -> list[tuple[str, int, str, str]]:
        """What `reader` saw in group `chat_id`, in order: ("group" or "mine", message id,
        "new" or "edit", text)."""
        return [
            ("group" if who is None else "mine", number, how, text)
            for chat, who, number, text, how in self.seen
            if chat == chat_id and who in (None, reader)
        ]

    def ephemeral_live(self, chat_id: int, receiver: int) -> list[StoredMessage]:
        """The ephemeral messages the receiver sees in the group, oldest first."""
        return [m for m in self.ephemeral[(chat_id, receiver)].values() if not m.deleted]

    def _stored(self, params: dict[str, Any]) -> StoredMessage:
        chat_id = int(params["chat_id"])
        stored = self.messages[chat_id].get(int(params["message_id"]))
        if stored is None or stored.deleted:
            raise _ApiError(400, "Bad Request: message to edit not found")
        return stored

    async def api_editMessageText(self, params: dict[str, Any]) -> dict[str, Any]:
        stored = self._stored(params)
        markup = codec.loads(params["reply_markup"]) if "reply_markup" in params else None
        text = params.get("text", "")
        self._check_text(text, markup, params.get("parse_mode"), stored.chat_id)
        if text == stored.text and markup == stored.reply_markup:
            raise _ApiError(
                400,
                "Bad Request: message is not modified: specified new message content and reply "
                "markup are exactly the same as a current content and reply markup of the message",
            )
        stored.text = text
        stored.reply_markup = markup
        stored.history.append(text)
        self.timeline[stored.chat_id].append((stored.message_id, text))
        self.seen.append((stored.chat_id, None, stored.message_id, text, "edit"))
        self.changed[stored.chat_id].set()
        return self._message_json(stored)

    async def api_editMessageReplyMarkup(self, params: dict[str, Any]) -> dict[str, Any]:
        stored = self._stored(params)
        markup = codec.loads(params["reply_markup"]) if "reply_markup" in params else None
        check_keyboard(markup, chat_type(stored.chat_id))
        if markup == stored.reply_markup:
            raise _ApiError(400, "Bad Request: message is not modified")
        stored.reply_markup = markup
        self.changed[stored.chat_id].set()
        return self._message_json(stored)

    async def api_deleteMessage(self, params: dict[str, Any]) -> bool:
        chat_id = int(params["chat_id"])
        stored = self.messages[chat_id].get(int(params["message_id"]))
        if stored is None or stored.deleted:
            raise _ApiError(400, "Bad Request: message to delete not found")
        stored.deleted = True
        self.changed[chat_id].set()
        return True

    async def api_answerCallbackQuery(self, params: dict[str, Any]) -> bool:
        query_id = params["callback_query_id"]
        if query_id in self.answers:
            raise _ApiError(400, "Bad Request: query is too old and response timeout expired")
        text = params.get("text", "")
        check_answer(text)
        self.answers[query_id] = {
            "text": text,
            "show_alert": params.get("show_alert") == "true",
            "url": params.get("url"),
        }
        self.answer_events[query_id].set()
        return True

    async def api_getChatMember(self, params: dict[str, Any]) -> dict[str, Any]:
        chat_id, user_id = int(params["chat_id"]), int(params["user_id"])
        if chat_id > 0 and user_id not in (chat_id, BOT_ID):
            # A private chat has two members, its person and the bot; Telegram (TDLib's
            # do_get_dialog_participant) answers anyone else so.
            raise _ApiError(400, "Bad Request: member not found")
        if chat_id in self.hidden_members and user_id not in self.admins[chat_id]:
            raise _ApiError(400, "Bad Request: member list is inaccessible")
        if user_id in self.admins[chat_id]:
            status = "administrator"
        elif user_id in self.members[chat_id] and user_id not in self.left[chat_id]:
            status = "member"
        else:
            status = "left"
        member: dict[str, Any] = {
            "status": status,
            "user": {"id": user_id, "is_bot": False, "first_name": f"u{user_id}"},
        }
        if status == "administrator" and user_id == BOT_ID:
            member["can_manage_tags"] = chat_id in self.tag_rights
        if status == "administrator":
            member.update(
                {
                    "can_be_edited": False, "is_anonymous": False, "can_manage_chat": True,
                    "can_delete_messages": True, "can_manage_video_chats": True,
                    "can_restrict_members": True, "can_promote_members": False,
                    "can_change_info": True, "can_invite_users": True, "can_post_stories": False,
                    "can_edit_stories": False, "can_delete_stories": False,
                }
            )  # fmt: skip
        return member

    async def api_setChatMemberTag(self, params: dict[str, Any]) -> bool:
        """ "The bot must be an administrator in the chat for this to work and must have the
        can_manage_tags administrator right"; a tag is 0-16 characters, no emoji; for a regular
        member (the refusals' texts are ours: Telegram documents none)."""
        chat_id, user_id = int(params["chat_id"]), int(params["user_id"])
        if BOT_ID not in self.admins[chat_id] or chat_id not in self.tag_rights:
            raise _ApiError(400, "Bad Request: not enough rights")
        tag = params.get("tag", "")
        if len(tag) > 16 or any(ord(c) > 0xFFFF for c in tag):
            raise _ApiError(400, "Bad Request: TAG_INVALID")
        if user_id in self.admins[chat_id]:
            raise _ApiError(400, "Bad Request: the user is an administrator")
        self.tags[(chat_id, user_id)] = tag
        return True

    # -- what the tests use --------------------------------------------------------------------
    def push(self, update: dict[str, Any]) -> None:
        update["update_id"] = self.pushed = next(self.update_ids)
        self.updates.append(update)
        self.new_update.set()

    def undelivered(self) -> int:
        return sum(1 for u in self.updates if u["update_id"] > self.delivered)

    def unacked(self) -> int:
        """Updates the bot has not taken into its queue yet (polling)."""
        return max(0, self.pushed - self.acked) if self.updates or self.pushed else 0

    def dump_chats(self) -> dict[str, Any]:
        """What the chats hold (their messages, who pressed Start, who is in which group), as
        JSON: a later fake that loads it stands where this one left off (tests/data)."""
        return {
            "messages": [
                {**vars(m), "history": list(m.history)}
                for chat in self.messages.values() for m in chat.values()
            ],
            "next_ids": {str(c): max(ms) + 1 for c, ms in self.messages.items() if ms},
            "started": sorted(self.started),
            "members": {str(c): sorted(us) for c, us in self.members.items()},
            "admins": {str(c): sorted(us) for c, us in self.admins.items()},
        }  # fmt: skip

    def load_chats(self, data: dict[str, Any]) -> None:
        for m in data["messages"]:
            self.messages[m["chat_id"]][m["message_id"]] = StoredMessage(**m)
        for chat, first in data["next_ids"].items():
            self.message_ids[int(chat)] = itertools.count(first)
        self.started.update(data["started"])
        for chat, users in data["members"].items():
            self.members[int(chat)].update(users)
        for chat, users in data["admins"].items():
            self.admins[int(chat)].update(users)

    def live(self, chat_id: int) -> list[StoredMessage]:
        return [m for m in self.messages[chat_id].values() if not m.deleted]

    def last(self, chat_id: int) -> StoredMessage:
        return self.live(chat_id)[-1]

    def texts(self, chat_id: int) -> list[str]:
        """Every text the chat has shown, edits included."""
        return [text for m in self.messages[chat_id].values() for text in m.history]

    def calls_in(self, chat_id: int, since: float = 0.0) -> list[float]:
        return [
            at
            for at, method, chat in self.calls
            if chat == chat_id and at >= since and method in _COUNTED
        ]


_COUNTED = {
    "sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage", "sendPhoto",
    "editEphemeralMessageText", "editEphemeralMessageReplyMarkup", "deleteEphemeralMessage",
}  # fmt: skip
EPHEMERAL_METHODS = {
    "editEphemeralMessageText", "editEphemeralMessageReplyMarkup", "deleteEphemeralMessage",
}  # fmt: skip


def receiver_of(stored: StoredMessage) -> int | None:
    return stored.receiver


def _ephemeral_receiver(params: dict[str, Any]) -> int | None:
    if "receiver_user_id" in params:
        return int(params["receiver_user_id"])
    if "ephemeral_message_parameters" in params:
        found = codec.loads(params["ephemeral_message_parameters"]).get("receiver_user_id")
        return None if found is None else int(found)
    return None


# What Telegram's overall and private limits count: messages sent and edited (not deletes,
# nor answers to taps)
OVERALL_COUNTED = {"sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto",
                   "sendDocument", "editEphemeralMessageText",
                   "editEphemeralMessageReplyMarkup"}  # fmt: skip


@dataclass
class FakeUser:
    fake: FakeTelegram
    id: int
    first_name: str
    username: str | None = None

    def json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.username:
            data["username"] = self.username
        return data

    def joins(self, chat_id: int) -> None:
        """Who writes or taps in a group is in it (unless the test made them leave)."""
        if chat_id < 0:
            self.fake.members[chat_id].add(self.id)

    def leave_group(self, chat_id: int) -> None:
        self.fake.left[chat_id].add(self.id)

    def send(
        self,
        chat_id: int,
        text: str,
        thread_id: int | None = None,
        sender_chat: dict[str, Any] | None = None,
        ephemeral: bool = False,
    ) -> int:
        """The user writes `text` in the chat; the message's id. `sender_chat`: on behalf of a
        chat (a channel, or the group itself for an anonymous admin), as Telegram sends it.
        `ephemeral`: an ephemeral command in a group (Bot API 10.2: a command registered with
        is_ephemeral, which only the bot sees): its message_id is 0; its ephemeral id is
        returned."""
        self.joins(chat_id)
        chat: dict[str, Any] = {"id": chat_id, "type": chat_type(chat_id)}
        if chat_id > 0:
            chat["first_name"] = self.first_name
        else:
            chat["title"] = "Grupo"
        message: dict[str, Any] = {
            "message_id": next(self.fake.message_ids[chat_id]),
            "date": int(time.time()),
            "chat": chat,
            "from": self.json(),
            "text": text,
        }
        if text.startswith("/"):
            command = text.split()[0]
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": len(command)}]
        if thread_id:
            message["message_thread_id"] = thread_id
            message["is_topic_message"] = True
        if sender_chat is not None:
            message["sender_chat"] = sender_chat
        if ephemeral and chat_id < 0:
            number = next(self.fake.ephemeral_ids[chat_id])
            message["ephemeral_message_id"] = number
            message["message_id"] = 0
            self.fake.ephemeral_asked[(chat_id, number)] = (time.monotonic(), self.id)
            self.fake.push({"message": message})
            return number
        self.fake.push({"message": message})
        return int(message["message_id"])

    def start_bot(self, payload: str = "") -> None:
        self.fake.started.add(self.id)
        self.send(self.id, f"/start {payload}".strip())

    def tap_data(self, chat_id: int, message_id: int, data: str) -> str:
        stored = self.fake.messages[chat_id].get(message_id)
        message = (
            self.fake._message_json(stored)
            if stored is not None
            else {
                "message_id": message_id,
                "date": 0,
                "chat": {"id": chat_id, "type": chat_type(chat_id)},
            }
        )
        query_id = f"q{next(self.fake.query_ids)}"
        self.fake.query_users[query_id] = self.id
        self.fake.query_seen[query_id] = (time.monotonic(), chat_id, self.id)
        self.joins(chat_id)
        self.fake.push(
            {
                "callback_query": {
                    "id": query_id,
                    "from": self.json(),
                    "chat_instance": str(chat_id),
                    "data": data,
                    "message": message,
                }
            }
        )
        return query_id

    def tap_ephemeral_data(self, chat_id: int, ephemeral_id: int, data: str) -> str:
        """A tap on a button of an ephemeral message this user sees in the group: the query's
        message is the ephemeral one (message_id 0, its ephemeral_message_id)."""
        stored = self.fake.ephemeral[(chat_id, self.id)].get(ephemeral_id)
        if stored is None or stored.deleted:
            raise KeyError(f"{self.first_name} sees no ephemeral message {ephemeral_id}")
        query_id = f"q{next(self.fake.query_ids)}"
        self.fake.query_users[query_id] = self.id
        self.fake.query_seen[query_id] = (time.monotonic(), chat_id, self.id)
        self.joins(chat_id)
        self.fake.push(
            {
                "callback_query": {
                    "id": query_id,
                    "from": self.json(),
                    "chat_instance": str(chat_id),
                    "data": data,
                    "message": self.fake._ephemeral_json(stored),
                }
            }
        )
        return query_id

    async def tap_ephemeral(
        self, chat_id: int, ephemeral_id: int, text: str, within: float = 60.0
    ) -> dict[str, Any]:
        stored = self.fake.ephemeral[(chat_id, self.id)][ephemeral_id]
        data = stored.button(text)["callback_data"]
        return await self.answer_of(self.tap_ephemeral_data(chat_id, ephemeral_id, data), within)

    async def tap(
        self, chat_id: int, message_id: int, text: str, within: float = 60.0
    ) -> dict[str, Any]:
        stored = self.fake.messages[chat_id][message_id]
        data = stored.button(text)["callback_data"]
        return await self.answer_of(self.tap_data(chat_id, message_id, data), within)

    async def answer_of(self, query_id: str, within: float = 60.0) -> dict[str, Any]:
        # (a generous deadline: a busy 2-core machine running the whole suite once took more
        # than 10 s to answer a tap)
        await asyncio.wait_for(self.fake.answer_events[query_id].wait(), within)
        return self.fake.answers[query_id]
