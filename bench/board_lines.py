"""The board's and the private hand message's height on a phone, at every step of random matches.

    python bench/board_lines.py [--matches N] [--seed S] [--names typical|short|long] [--show]
                                [--modes 1v1,2v2,3v3]

Each message is drawn as its reader sees it (the board: the end of the last hand, score, the
hand in play, its betting, the short seal; each player's hand message: the same said to them,
their cards and envido, with its buttons), tags stripped, each line wrapped at 36 characters
(an emoji counts as two). Prints, per mode, the tallest and the 95th percentile of the board,
and of the hand message its text lines and its rows of buttons, and how many are over a page
(`PAGE_LINES`); `--show` prints the tallest.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.game import MatchConfig, new_match, random_deal
from bot.game.ending import ended_hands
from bot.game.seats import SEAT_COUNTS, mode_of
from bot.i18n import translator
from bot.model.table import Table, TableStatus
from bot.service.play import remember_calls
from bot.views.common import PHONE_WIDTH, phone_lines, plain
from bot.views.pages import PAGE_LINES
from bot.views.scene import scene_of
from bot.views.table import board_text, hand_markup, hand_text

NAMES = {
    "short": ("Ana", "Beto", "Caro", "Dani", "Eva", "Fede"),
    "typical": ("Sofía", "Martín", "Lucía", "Joaquín", "Camila", "Tomás"),
    "long": ("Valentina", "Maximiliano", "Florencia", "Bartolomé", "Guadalupe", "Sebastián"),
}


def messages(
    config: MatchConfig, rng: random.Random, language: str, names_of: str
) -> tuple[list[str], list[tuple[str, int]]]:
    """Every board and every hand message (with its rows of buttons) of one random match."""
    t = translator(language)
    names = dict(enumerate(NAMES[names_of], start=1))
    seats: list[int | None] = list(range(1, config.players + 1))
    table = Table(0, -1, 0, TableStatus.PLAYING, 1, config, seats, language, 0.0, 0.0)
    table.seed = "0" * 64
    state = table.state = new_match(config)
    boards: list[str] = []
    hands: list[tuple[str, int]] = []
    while not state.is_over:
        if state.needs_deal:
            events = state.apply(random_deal(rng, config.players))
        else:
            events = state.apply(rng.choice(state.legal_actions()))
        remember_calls(table, events)
        if state.needs_deal:
            continue  # the next deal is in the same commit: nobody sees this board
        if state.is_over:
            table.status = TableStatus.FINISHED
        ended = ended_hands(state)
        shown = ended[-2:] if state.is_over and ended and not ended[-1].rounds else ended[-1:]
        boards.append(board_text(t, scene_of(t, table, names, None, shown)))
        for seat in range(config.players):
            scene = scene_of(t, table, names, seat, shown)
            assert scene.obs is not None
            keys = hand_markup(t, 1, scene.obs, signs=config.players > 2 and scene.obs.duel is None)
            hands.append((hand_text(t, scene), len(keys) if keys else 0))
    return boards, hands


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--language", default="es")
    parser.add_argument("--names", choices=sorted(NAMES), default="typical")
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--modes", default=",".join(mode_of(n) for n in SEAT_COUNTS))
    args = parser.parse_args()
    for players in (n for n in SEAT_COUNTS if mode_of(n) in args.modes.split(",")):
        for flor in (True, False):
            rng = random.Random(args.seed)
            config = MatchConfig(players=players, flor=flor)
            boards: list[str] = []
            hands: list[tuple[str, int]] = []
            for _ in range(args.matches):
                more_boards, more_hands = messages(config, rng, args.language, args.names)
                boards += more_boards
                hands += more_hands
            board = sorted((phone_lines(b), b) for b in boards)
            hand = sorted((phone_lines(text), rows, text) for text, rows in hands)
            rows = sorted(rows for _, rows in hands)
            tallest = max(hand, key=lambda h: h[0] + 2 * h[1])  # a button row: about two lines
            mode = f"{mode_of(players)} {'con' if flor else 'sin'} flor"
            print(
                f"{mode}: boards {len(boards)}, tallest {board[-1][0]} lines, p95 "
                f"{board[int(0.95 * (len(board) - 1))][0]} · hand messages {len(hands)}, "
                f"tallest {hand[-1][0]} lines, p95 {hand[int(0.95 * (len(hand) - 1))][0]}, "
                f"median {hand[len(hand) // 2][0]}; button rows at most {rows[-1]}; tallest "
                f"with its buttons: {tallest[0]} lines + {tallest[1]} rows; over a page "
                f"({PAGE_LINES} lines): {sum(h[0] > PAGE_LINES for h in hand)} hand messages, "
                f"{sum(b[0] > PAGE_LINES for b in board)} boards"
            )
            if args.show:
                print(plain(board[-1][1]))
                print("-" * PHONE_WIDTH)
                print(plain(tallest[2]))
                print("=" * PHONE_WIDTH)


if __name__ == "__main__":
    main()
