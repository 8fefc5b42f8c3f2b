"""Every hint of fixed matches with no time budget, as one digest, and their CPU time.

    python bench/hint_digest.py [--matches 4]

A hint (difícil's move and the chance) takes worlds until its budget runs out, so on a faster
machine, or after a speed-up, it may see more worlds and say something else. With no budget the
worlds' caps alone decide: a change that only makes the search faster must leave the digest
as it was (compare two checkouts side by side, which also shares the machine's load fairly).
Matches alternate 1v1, 2v2, 1v1, 3v3; side 0 follows the hints, the rest play normal.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.ai import side0_decisions
from bot.ai import hints


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=4)
    args = parser.parse_args()
    told: list[tuple[object, ...]] = []
    cpu = 0.0
    tables = [(2, 4, 2, 6)[index % 4] for index in range(args.matches)]
    for state, obs, tag in side0_decisions(tables, "det", "d"):
        started = time.process_time()
        hint = hints.advise(obs, tag, budget=1e9)
        cpu += time.process_time() - started
        told.append((str(hint.action), hint.chance, hint.low, hint.high, hint.worlds, hint.raw))
        state.apply(hint.action)
    digest = hashlib.sha256(repr(told).encode()).hexdigest()[:16]
    print(f"{len(told)} hints, digest {digest}, CPU of the hints {cpu:.2f} s")


if __name__ == "__main__":
    main()
