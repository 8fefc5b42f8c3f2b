"""The score never moves without a visible line that says why, to the point.

Read as a player reads a chat: each version of a message (the group's board, a player's hand
message) shows the score and the points that explain it: the end of each hand told on it
("🏁 Mano 3: … Beto +2 (truco querido) · Ana ya sumó 2 (envido querido)") and the points of
the hand in play on its betting lines ("Envido: … → Ana +2"). Between one version and the
next, each side's score moves by exactly the points that appeared (each point belongs to a
hand, a side and a moment: a line shown again is the same point, not a new one).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from bot.views.common import plain

# "🏁 Mano 3: …" / "🏁 Hand 3: …", and hands told together: "🏁 Manos 3 a 5: …"
RECORD = re.compile(
    r"^🏁 (?:Mano|Hand|Manos|Hands) (\d+)(?:, (?:duelo|duel) (\d))?(?: (?:a|to) \d+)?: (.*)$"
)
# the hand in play: "🃏 Truco · mano 4 · vale 1", "Mano 4 · vale 1", and in English
HEAD = re.compile(
    r"(?:^|· )(?:[Mm]ano|[Hh]and) (\d+)(?:, (?:duelo|duel) (\d))? · (?:vale|worth) \d+"
)
BETS = ("Envido:", "Flor:")


@dataclass(frozen=True)
class Reading:
    scores: tuple[int, int]
    points: Counter[tuple[int, int, int, bool]]  # (hand, side, points, during) -> how many


Side = str | tuple[str, str]  # a side's name, or its name on the score line and elsewhere


def read(text: str, named: Sequence[Side]) -> Reading | None:
    """The score and the points a message shows (None: a message without a score). A trio
    is named whole on the score lines ("Ana, Caro y Eva: 7") and shortly where its points are
    told ("los de Ana +2")."""
    lines = plain(text).splitlines()
    scores: list[int | None] = [None, None]
    sides = [n if isinstance(n, str) else n[1] for n in named]
    for line in lines:
        for side, name in enumerate(n if isinstance(n, str) else n[0] for n in named):
            if scores[side] is None and (m := re.match(rf"{re.escape(name)}: (\d+)\b", line)):
                scores[side] = int(m.group(1))
    if scores[0] is None or scores[1] is None:
        return None
    records: Counter[tuple[int, int, int, bool]] = Counter()
    bets: Counter[tuple[int, int, int, bool]] = Counter()
    hand = None
    last_record = None
    for line in lines:
        if m := RECORD.match(line):
            # (a pica-pica hand's duels are told apart: hand 4, duel 2 is 42)
            number = last_record = int(m.group(1)) * 10 + int(m.group(2) or 0)
            for part in m.group(3).split(" · "):
                for side, name in enumerate(sides):
                    if s := re.match(rf"{re.escape(name)} \+(\d+)(?: \(|$)", part):
                        records[(number, side, int(s.group(1)), False)] += 1
                    counted = (
                        rf"{re.escape(name)} (?:ya sumó|ya sumaron|had already scored) (\d+) \("
                    )
                    if s := re.match(counted, part):
                        records[(number, side, int(s.group(1)), True)] += 1
        elif hand is None and (m := HEAD.search(line)):
            hand = int(m.group(1)) * 10 + int(m.group(2) or 0)
    # The betting lines are the hand in play's, or, once the match is over, its last hand's.
    betting_hand = hand if hand is not None else last_record
    for line in lines:
        if betting_hand is not None and line.startswith(BETS):
            for side, name in enumerate(sides):
                for s in re.finditer(rf"→ {re.escape(name)} \+(\d+)", line):
                    bets[(betting_hand, side, int(s.group(1)), True)] += 1
    points = records | bets  # (a point told twice on one screen is one point)
    return Reading((scores[0], scores[1]), points)


def check(
    texts: Sequence[str], sides: Sequence[Side], where: str = "", from_zero: bool = True
) -> int:
    """Every change of the score along these versions of a message is explained (from 0-0, or,
    not `from_zero`, from the first version's score); returns how many versions were read."""
    before: Reading | None = Reading((0, 0), Counter()) if from_zero else None
    seen = 0
    for index, text in enumerate(texts):
        now = read(text, sides)
        if now is None:
            continue
        seen += 1
        if before is None:
            before = now
            continue
        new = now.points - before.points
        for side in (0, 1):
            moved = now.scores[side] - before.scores[side]
            explained = sum(n * p for (_, s, p, _), n in new.items() if s == side)
            assert moved == explained, (
                f"{where} version {index}: {sides[side]} moved {moved}, the new lines explain "
                f"{explained} ({dict(new)})\n--- before:\n"
                f"{plain(texts[index - 1]) if index else ''}\n--- now:\n{plain(text)}"
            )
        before = now
    return seen
