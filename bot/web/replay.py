"""A finished match, to watch again on the web table: the public view after every action of its
log (the engine plays the log again; nothing is stored twice), and what the page needs to check
the deals against the sealed seed itself.

Each frame tells its moment whole, all of it computed here (the page only draws it): the hand's
bets so far ("Truco: Mirta ¡Truco! → Ana Quiero"), what was said aloud at this action, for a
bubble at the seat (`spoken`), the reason of every point scored at this action ("Beto +2
(envido querido)", `scored`), and, once a hand is over (`hand_over`), its end with every card
each player held (`held`: the match is finished, so nothing is secret any more)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from bot.game import AnyAction, Deal, MatchState
from bot.game.ending import ending_of
from bot.game.fair import commitment
from bot.game.state import HandLog, HandState
from bot.i18n import Translator, translator
from bot.model.table import Table, TableStatus
from bot.service.play import calls_of, remember_calls
from bot.views.common import Seating, card_name, plain
from bot.views.ending import reason_text
from bot.views.scene import SEAL_SHOWN, scene_of
from bot.web.view import _said_now, table_view

Held = list[dict[str, Any] | None]


def _held(t: Translator, who: Seating, hand: HandState) -> Held:
    """Every card each seat of `hand` was dealt, and the words that say it ("Mirta tenía: …";
    None: a seat out of a pica-pica duel)."""
    seats = None if hand.duel is None else {hand.mano, hand.table.next(hand.mano)}
    out: Held = []
    for seat, dealt in enumerate(hand.dealt):
        if seats is not None and seat not in seats:
            out.append(None)
            continue
        cards = [{"card": c.code, "name": card_name(t, c, picture=True)} for c in dealt]
        label = t("web.held", name=plain(who.seat(seat)), cards=", ".join(c["name"] for c in cards))
        out.append({"cards": cards, "label": label})
    return out


def _signs_made(
    t: Translator, table: Table, names: dict[int, str], step: int
) -> list[dict[str, Any]]:
    """The señas made when the match had taken `step` actions, said at the seat that made
    them (with the rivals who caught them): the match is over, nothing is secret any more."""
    made = [s for s in table.signs if s.step == step]
    if not made:
        return []
    who = scene_of(t, table, names, None, ()).who
    out = []
    for n, sign in enumerate(made):
        text = t("replay.sign", sign=t(f"sign.{sign.sign}"), meaning=t(f"sign.meaning.{sign.sign}"))
        if sign.caught_by:
            caught = ", ".join(who.seat(s) for s in sign.caught_by)
            text += " · " + t("replay.sign_caught", names=caught)
        out.append({"seat": sign.seat, "text": plain(text), "key": f"s{step}.{n}"})
    return out


def replay_of(table: Table, names: dict[int, str], log: Sequence[AnyAction]) -> dict[str, Any]:
    """Every frame of match `table` (finished), oldest first, and its deals and seed."""
    finished = table.status is TableStatus.FINISHED  # (the cards held: never in a match in play)
    t = translator(table.language)
    state = MatchState(table.config)
    frames: list[dict[str, Any]] = []
    deals: list[str] = []
    calls: Table = dataclasses.replace(table, state=None, calls=[])  # the hand's calls so far
    last: tuple[HandLog, Held] | None = None  # the hand ended last
    for number, action in enumerate(log, start=1):
        before = state.hand
        points_before = len(ending_of(state.config, HandLog.of(before)).points) if before else 0
        events = state.apply(action)
        remember_calls(calls, events)
        if isinstance(action, Deal):
            deals.append("|".join(" ".join(c.code for c in hand) for hand in action.hands))
        over = state.is_over and number == len(log)
        moment = dataclasses.replace(
            table,
            state=state,
            status=table.status if over else TableStatus.PLAYING,
            version=number,
            calls=list(calls.calls),
            deadline=None,
            turn_seconds=0,
        )
        scored: list[str] = []
        hand_over = False
        if before is not None and not isinstance(action, Deal):
            played = HandLog.of(before)
            ending = ending_of(state.config, played)
            who = scene_of(t, moment, names, None, ()).who
            scored = [
                plain(t("ending.scored", side=who.short(t, p.side), count=who.size(p.side),
                        points=p.points, reason=reason_text(t, who, p)))
                for p in ending.points[points_before:]
            ]  # fmt: skip
            hand_over = state.hand is not before or state.needs_deal or state.is_over
            if hand_over:
                last = (played, _held(t, who, before) if finished else [])
        ended = [ending_of(state.config, last[0])] if last else []
        frame = table_view(moment, names, None, ended)
        if last and frame["ended"]:
            frame["ended"][-1]["held"] = last[1]
        frame["action"] = number
        frame["hand_over"] = hand_over or (state.needs_deal and last is not None)
        frame["scored"] = scored
        frame["spoken"] = _said_now(t, calls_of(events)) + _signs_made(t, moment, names, number)
        frames.append(frame)
    return {
        "id": table.id,
        "language": table.language,
        "frames": frames,
        "deals": deals,
        "players": table.config.players,
        "seed": table.seed,
        "commitment": commitment(table.seed) if table.seed else None,
        "seal": commitment(table.seed)[:SEAL_SHOWN] if table.seed else None,  # (as the board)
    }
