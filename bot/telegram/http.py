"""python-telegram-bot's requests over aiohttp instead of httpx.

PTB lets an application bring its own `BaseRequest`; aiohttp makes a Bot API call for a fraction
of httpx's CPU (its pool, anyio and h11 layers; docs/performance.md). The behaviour PTB relies on
is kept: timeouts map to `TimedOut`, connection failures to `NetworkError`, the status code and
body go back to PTB, which parses them (and raises its own errors) as it does for httpx.
Calls without files go as one JSON body, which the Bot API accepts as it accepts a form.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import aiohttp
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TelegramError, TimedOut
from telegram.request import BaseRequest, RequestData

from bot import codec


def _given(value: object, default: float | None) -> float | None:
    """A timeout PTB passed explicitly (None: wait forever), or ours for DEFAULT_NONE."""
    if value is None or isinstance(value, int | float):
        return value
    return default


class JsonBody(RequestData):  # type: ignore[misc]  # final for typing; only do_request reads it
    """A call's fields as they go out, for `request.post` (the outbox's calls): no
    RequestParameter per field, no JSON per field, and the keyboard encoded once. PTB marks
    RequestData final; BaseRequest.post hands it untouched to `do_request` below, the one
    reader of `parameters` and `multipart_data` (empty here: no files)."""

    def __init__(self, fields: dict[str, Any]) -> None:
        super().__init__()
        self._fields = fields

    @property
    def parameters(self) -> dict[str, Any]:
        return self._fields


class AiohttpRequest(BaseRequest):
    """One aiohttp session with a bounded pool of keep-alive connections."""

    def __init__(
        self,
        connection_pool_size: int = 256,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        media_write_timeout: float | None = 20.0,
        answered: Callable[[str, int], None] | None = None,
    ) -> None:
        self._answered = answered  # told of each answer: (url, status), for the metrics
        self._pool_size = connection_pool_size
        self._read = read_timeout
        self._write = write_timeout
        self._connect = connect_timeout
        self._pool = pool_timeout
        self._media_write = media_write_timeout
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._read

    @staticmethod
    def parse_json_payload(payload: bytes) -> dict[str, Any]:
        """Telegram's answer, read by orjson (PTB's documented place to bring a faster JSON)."""
        try:
            parsed: dict[str, Any] = codec.loads(payload)
        except ValueError as error:
            raise TelegramError("Invalid server response") from error
        return parsed

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=self._pool_size, ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(connector=connector)

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data.multipart_data if request_data else None
        headers = {"User-Agent": self.USER_AGENT}
        body: aiohttp.FormData | bytes | None = None
        if files:
            assert request_data is not None
            form = aiohttp.FormData()
            for name, value in request_data.json_parameters.items():
                form.add_field(name, value)
            for name, (filename, content, mime) in files.items():
                form.add_field(name, content, filename=filename, content_type=mime)
            body = form
        elif request_data is not None:
            # One JSON body (the Bot API takes it as it takes a form): cheaper than encoding
            # every field to JSON and then the lot as a urlencoded form.
            body = codec.dump_bytes(request_data.parameters)
            headers["Content-Type"] = "application/json"
        read = _given(read_timeout, self._read)
        write = _given(write_timeout, self._media_write if files else self._write)
        connect = _given(connect_timeout, self._connect)
        pool = _given(pool_timeout, self._pool)
        timeout = aiohttp.ClientTimeout(
            # aiohttp has no separate write timeout: sending counts against the read one
            sock_read=None if read is None else read + (write or 0.0),
            connect=None if connect is None and pool is None else (connect or 0.0) + (pool or 0.0),
        )
        try:
            async with self._session.request(
                method, url, data=body, headers=headers, timeout=timeout
            ) as response:
                payload = await response.read()
        except TimeoutError as error:
            raise TimedOut from error
        except aiohttp.ClientError as error:
            raise NetworkError(f"aiohttp.{error.__class__.__name__}: {error}") from error
        if self._answered is not None:
            self._answered(url, response.status)
        return response.status, payload


# What the bot reads of the message under a tapped button: which message, in which chat (an
# ephemeral one, seen by its tapper alone, has no message_id but an ephemeral_message_id).
_TAPPED_MESSAGE_KEPT = (
    "message_id", "date", "chat", "message_thread_id", "is_topic_message", "ephemeral_message_id",
)  # fmt: skip


class UpdatesRequest(AiohttpRequest):
    """The connection `getUpdates` runs on. Every tap's update carries the whole message the
    button sits under (its text, entities and keyboard), and PTB builds an object of each part
    (a good share of a tap's CPU: docs/performance.md). The handlers read only the message's id and
    chat, so the rest is dropped before PTB parses the update; `query.message.text` and
    `.reply_markup` are therefore None here (see tests/e2e for what the handlers rely on)."""

    @staticmethod
    def parse_json_payload(payload: bytes) -> dict[str, Any]:
        parsed = AiohttpRequest.parse_json_payload(payload)
        updates = parsed.get("result")
        if isinstance(updates, list):
            for update in updates:
                query = update.get("callback_query") if isinstance(update, dict) else None
                message = query.get("message") if isinstance(query, dict) else None
                if isinstance(query, dict) and isinstance(message, dict):
                    query["message"] = {
                        key: message[key] for key in _TAPPED_MESSAGE_KEPT if key in message
                    }
        return parsed
