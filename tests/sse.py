"""Reading the web table's server-sent events (the tests and bench/web.py)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp


async def views(response: aiohttp.ClientResponse) -> AsyncIterator[dict[str, Any]]:
    """Each view a stream sends (`data:` events), as it arrives; comments are skipped."""
    buffer = b""
    async for chunk in response.content.iter_any():
        buffer += chunk
        while b"\n\n" in buffer:
            event, buffer = buffer.split(b"\n\n", 1)
            if event.startswith(b"data: "):
                yield json.loads(event[6:])
