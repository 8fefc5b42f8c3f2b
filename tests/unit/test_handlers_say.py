"""No handler writes an outbox row or a record itself: it asks the Telegram adapter
(`bot.telegram.say`). The import contracts keep the row builders and records out of
`bot.handlers`; this catches what an import does not show, the runtime's outbox and the core's
records reached as attributes."""

from __future__ import annotations

import ast
from pathlib import Path

HANDLERS = Path(__file__).resolve().parents[2] / "bot" / "handlers"


def _reached(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "outbox":
            found.append((node.lineno, "outbox"))
        elif (
            isinstance(node, ast.Attribute)
            and node.attr == "put"
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "records"
        ):
            found.append((node.lineno, "records.put"))
    return found


def test_no_handler_reaches_the_outbox_or_writes_a_record() -> None:
    said = [
        f"{path.name}:{line}: {what}"
        for path in sorted(HANDLERS.glob("*.py"))
        for line, what in _reached(ast.parse(path.read_text()))
    ]
    assert said == []
