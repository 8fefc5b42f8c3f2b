"""The board's height on a phone: lines at 36 characters wide, at every step of random matches.

    python bench/board_lines.py [--matches N] [--seed S] [--show]

The board is rendered as the group sees it (record of the last hand, score, the hand in play,
its betting, the short seal), tags stripped, each line wrapped at 36 characters (an emoji
counts as two). Prints the worst and the 95th percentile per mode; `--show` prints the
tallest board.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.game import MatchConfig, new_match, observe, random_deal
from bot.game.state import HandLog
from bot.i18n import translator
from bot.model.table import Call
from bot.service.play import remember_calls
from bot.views.common import PHONE_WIDTH, phone_lines, plain, seating
from bot.views.summary import hand_result
from bot.views.table import board_text


class _Calls:
    calls: list[Call]

    def __init__(self) -> None:
        self.calls = []


NAMES = {
    "short": ("Ana", "Beto", "Caro", "Dani"),
    "typical": ("Sofía", "Martín", "Lucía", "Joaquín"),
    "long": ("Valentina", "Maximiliano", "Florencia", "Bartolomé"),
}


def boards(config: MatchConfig, rng: random.Random, language: str, names_of: str) -> list[str]:
    t = translator(language)
    names = dict(enumerate(NAMES[names_of], start=1))
    who = seating(list(range(1, config.players + 1)), names)
    state = new_match(config)
    table = _Calls()
    out = []
    while not state.is_over:
        if state.needs_deal:
            events = state.apply(random_deal(rng, config.players))
        else:
            events = state.apply(rng.choice(state.legal_actions()))
        remember_calls(table, events)  # type: ignore[arg-type]
        if state.needs_deal:
            continue  # the next deal is in the same commit: nobody sees this board
        last = HandLog.of(state.hand) if state.is_over and state.hand else state.last_hand
        record = hand_result(t, who, config, last, True) if last else None
        seal = t("fair.commitment_short", commitment="0123456789ab", number=123)
        text = board_text(t, who, observe(state), table.calls, record, seal)
        out.append(text)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--language", default="es")
    parser.add_argument("--names", choices=sorted(NAMES), default="typical")
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    for players in (2, 4):
        for flor in (True, False):
            rng = random.Random(args.seed)
            config = MatchConfig(players=players, flor=flor)
            texts = [
                b
                for _ in range(args.matches)
                for b in boards(config, rng, args.language, args.names)
            ]
            heights = sorted((phone_lines(b), b) for b in texts)
            worst = heights[-1]
            p95 = heights[int(0.95 * (len(heights) - 1))][0]
            mode = f"{players // 2}v{players // 2} {'con' if flor else 'sin'} flor"
            print(f"{mode}: boards {len(texts)}, tallest {worst[0]} lines, p95 {p95}")
            if args.show:
                print(plain(worst[1]))
                print("-" * PHONE_WIDTH)


if __name__ == "__main__":
    main()
