"""The bot's rooms (its top-level modules and packages) and their imports, as floors.

    python bench/house.py [--root DIR] [--inside PACKAGE]

A room is a module `bot/x.py` or a package `bot/x/` (with `--inside tourney`, the files of
`bot/tourney/` instead). An arrow A -> B is an import of B's code anywhere in A (under
`TYPE_CHECKING` too: a type is knowledge of B). A room's floor is one above the highest room it
imports (floor 1 imports no other room), so no arrow runs up unless rooms import each other in a
loop, which is printed as a circle. It reads the source only (`ast`), never runs it: run it on
another checkout with `--root` (`git worktree add /tmp/old c82e698`, then `--root /tmp/old`) to
compare two versions of the house.
"""

from __future__ import annotations

import argparse
import ast
from collections import defaultdict
from pathlib import Path


def room_of(module: str, inside: str | None) -> str | None:
    """The room a dotted module `bot.x.y` belongs to (None: not a room of this drawing)."""
    parts = module.split(".")
    if parts[0] != "bot" or len(parts) < 2:
        return None
    if inside is None:
        return parts[1]
    if parts[1] != inside or len(parts) < 3:
        return None
    return parts[2]


def module_of(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, module: str) -> set[str]:
    """The dotted modules `path` imports (relative imports resolved from `module`)."""
    found: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def house(root: Path, inside: str | None) -> dict[str, set[str]]:
    """Each room and the rooms it imports."""
    arrows: dict[str, set[str]] = defaultdict(set)
    for path in sorted((root / "bot").rglob("*.py")):
        module = module_of(path, root)
        room = room_of(module, inside)
        if room is None:
            continue
        arrows[room]  # a room that imports nothing is a room too
        for imported in imports(path, module):
            other = room_of(imported, inside)
            if other is not None and other != room:
                arrows[room].add(other)
    rooms = set(arrows)
    return {room: {o for o in targets if o in rooms} for room, targets in arrows.items()}


def circles(arrows: dict[str, set[str]]) -> list[list[str]]:
    """The rooms that import each other in a loop (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(room: str) -> None:
        index[room] = low[room] = len(index)
        stack.append(room)
        for other in arrows[room]:
            if other not in index:
                visit(other)
                low[room] = min(low[room], low[other])
            elif other in stack:
                low[room] = min(low[room], index[other])
        if low[room] == index[room]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == room:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for room in sorted(arrows):
        if room not in index:
            visit(room)
    return found


def floors(arrows: dict[str, set[str]]) -> dict[str, int]:
    """Each room's floor: 1 + the highest floor it imports (a loop's rooms share one)."""
    floor: dict[str, int] = {}

    def of(room: str, seen: frozenset[str]) -> int:
        if room in floor:
            return floor[room]
        below = [of(o, seen | {room}) for o in arrows[room] if o not in seen]
        floor[room] = 1 + max(below, default=0)
        return floor[room]

    for room in sorted(arrows):
        of(room, frozenset())
    return floor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--inside", help="a package of bot/ to draw file by file")
    args = parser.parse_args()
    arrows = house(args.root, args.inside)
    floor = floors(arrows)
    loops = circles(arrows)
    up = sum(1 for room, targets in arrows.items() for o in targets if floor[o] >= floor[room])
    for level in range(max(floor.values()), 0, -1):
        rooms = sorted(r for r in floor if floor[r] == level)
        print(f"floor {level:2}: {'  '.join(rooms)}")
    print(
        f"{len(arrows)} rooms, {max(floor.values())} floors, "
        f"{sum(len(t) for t in arrows.values())} arrows, {up} running up, {len(loops)} circles"
    )
    for loop in loops:
        print("circle:", " <-> ".join(loop))


if __name__ == "__main__":
    main()
