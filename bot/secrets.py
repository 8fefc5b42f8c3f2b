"""Secrets never reach a log line: the bot token (it is in every Bot API URL) and the webhook's
secret token (python-telegram-bot logs `setWebhook`'s parameters at DEBUG, aiohttp's errors
carry the URL). A log-record factory masks them in every record, whoever logs it and whatever
handler writes it, tracebacks included."""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Iterable
from typing import Any

MASK = "«secret»"

_lock = threading.Lock()
_secrets: set[str] = set()
_installed = False


def redact(text: str) -> str:
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def mask_in_logs(secrets: Iterable[str | None]) -> None:
    """From now on, these strings (and the numeric-less half of a bot token, which identifies
    it too) are masked in every log record of this process."""
    global _installed
    with _lock:
        for secret in secrets:
            if secret and len(secret) >= 8:
                _secrets.add(secret)
                if ":" in secret:  # a bot token: "<bot id>:<key>"; the key alone is secret too
                    _secrets.add(secret.split(":", 1)[1])
        if _installed:
            return
        _installed = True
        make = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = make(*args, **kwargs)
            if not _secrets:
                return record
            text = record.getMessage()
            clean = redact(text)
            if clean != text:
                record.msg, record.args = clean, None
            if record.exc_info and record.exc_info[1] is not None:
                rendered = "".join(traceback.format_exception(*record.exc_info)).rstrip("\n")
                record.exc_text = redact(rendered)
            return record

        logging.setLogRecordFactory(factory)
