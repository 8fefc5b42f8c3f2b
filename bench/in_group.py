"""Where the hands live, counted: the same matches played with every hand in a private chat
(how the bot played before hands could live in the group), in the group with the bot no
administrator (a hand shown when its player taps 🃏), and in the group with the bot an
administrator (the bot shows each hand itself).

    python bench/in_group.py [--matches 6]

Through the real bot (python-telegram-bot, the outbox, the planner) against the fake Bot API,
in one process, scripted players tapping random legal moves (and 🃏 when their hand is not in
sight). For 1v1 and 2v2 to 15, it prints per player and hand the taps a player needs (moves
and 🃏), and per move the Bot API calls by kind: answers to taps, hand messages sent and
edited (private or ephemeral), board edits, new group messages, deletions. A benchmark, not a
test: its figures go in the notes, nothing asserts them.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import GROUP, harness_with  # noqa: E402
from tests.e2e.helpers import action_buttons, hand_message, match_over  # noqa: E402
from tests.e2e.test_in_group import MY_CARDS, board, hand_here  # noqa: E402
from tests.fakebot import BOT_ID, FakeTelegram  # noqa: E402

PLACES = ("private", "group", "group-admin")


def kind_of(method: str, chat: int | None) -> str:
    group = chat is not None and chat < 0
    if method == "answerCallbackQuery":
        return "answers"
    if method in ("editEphemeralMessageText", "editEphemeralMessageReplyMarkup"):
        return "hand edits"
    if method == "editMessageText":
        return "board edits" if group else "hand edits"
    if method == "sendMessage":
        return "group messages" if group else "private messages"
    if method in ("deleteMessage", "deleteEphemeralMessage"):
        return "deletions"
    return method


async def one(place: str, players: int, seed: int, folder: Path) -> tuple[Counter[str], int, int]:
    """One match: (calls by kind, moves, hands); ephemeral sends count as hand sends."""
    fake = FakeTelegram(group_limit=(20, 60 / 620))
    await fake.start()
    try:
        async with harness_with(fake, folder / f"{place}-{players}-{seed}.db") as h:
            if place == "group-admin":
                fake.admins[GROUP].add(BOT_ID)
            names = ["Ana", "Beto", "Caro", "Dani"][:players]
            users = [h.user(1 + i, n, started=place == "private") for i, n in enumerate(names)]
            mode = "2v2 15" if players == 4 else "15"
            users[0].send(GROUP, f"/nueva {mode}")
            await h.settle()
            lobby = fake.last(GROUP)
            for index, user in enumerate(users[1:], start=1):
                label = f"✋ Equipo {index % 2 + 1}" if players == 4 else "✋ Unirme"
                await user.tap(GROUP, lobby.message_id, label)
                await h.settle()
            first = len(fake.calls)
            group_before = len(fake.messages[GROUP])
            shown_before = sum(len(m) for m in fake.ephemeral.values())
            rng = random.Random(seed)
            moves = cards = 0
            while not match_over(h):
                table = await h.services.tables.table_in(GROUP, 0)
                assert table is not None and table.state is not None
                acting = {table.seats[a.seat] for a in table.state.legal_actions()}
                user = rng.choice([u for u in users if u.id in acting])
                if place == "private":
                    message = hand_message(h, user)
                    assert message is not None
                    button = rng.choice(action_buttons(message))
                    user.tap_data(user.id, message.message_id, button["callback_data"])
                else:
                    shown = hand_here(h, user)
                    if shown is None:
                        cards += 1
                        await user.tap(GROUP, board(h).message_id, MY_CARDS)
                        await h.settle()
                        continue
                    button = rng.choice(action_buttons(shown))
                    user.tap_ephemeral_data(GROUP, shown.message_id, button["callback_data"])
                moves += 1
                await h.settle()
            last = await h.db.fetchone("SELECT max(id) AS id FROM games")
            assert last is not None
            finished = await h.services.core.history.table(int(last["id"]))
            assert finished is not None and finished.state is not None
            hands = finished.state.hand_number
            counted = Counter(
                kind_of(method, chat) for _, method, chat in fake.calls[first:]
                if method not in ("getUpdates", "getChatMember")
            )  # fmt: skip
            counted["🃏 taps"] = cards
            # a send to the group is a group message, or a hand shown there (ephemeral)
            shown = sum(len(m) for m in fake.ephemeral.values()) - shown_before
            counted["group messages"] = len(fake.messages[GROUP]) - group_before
            counted["hand sends"] = shown + counted.pop("private messages", 0)
            return counted, moves, hands
    finally:
        await fake.stop()


async def main(matches: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for players in (2, 4):
            for place in PLACES:
                total: Counter[str] = Counter()
                moves = hands = 0
                for seed in range(matches):
                    counted, m, n = await one(place, players, seed, Path(folder))
                    total += counted
                    moves += m
                    hands += n
                taps = moves + total["🃏 taps"]
                print(f"\n{players // 2}v{players // 2} · hands in {place}: {matches} matches,"
                      f" {hands} hands, {moves} moves")  # fmt: skip
                print(f"  taps a player needs per hand: {taps / (hands * players):.2f}"
                      f" ({total['🃏 taps'] / (hands * players):.2f} of them on 🃏)")  # fmt: skip
                calls = sum(v for k, v in total.items() if k != "🃏 taps")
                print(f"  Bot API calls per move: {calls / moves:.2f}")
                for kind in ("answers", "hand sends", "hand edits", "board edits",
                             "group messages", "deletions"):  # fmt: skip
                    print(f"    {kind}: {total[kind] / moves:.2f}")
                print(f"  new group messages per hand: {total['group messages'] / hands:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=6)
    asyncio.run(main(parser.parse_args().matches))
