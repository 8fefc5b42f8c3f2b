"""What the web table shows one viewer, as JSON: `observe(state, seat)` for a seated player,
the public view otherwise, and nothing the viewer may not see. Texts (the pending chant, the
betting, the last hand's record) come from the same views as Telegram's, so both front ends
say the same thing; the page draws the cards, the seats and the fósforos itself."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.ai.signs import SIGNS
from bot.game import Observation, Phase, envido_value, flor_value, has_flor, observe
from bot.game.fair import commitment
from bot.game.scoring import fosforos, malas_buenas
from bot.game.seats import side_of
from bot.game.state import HandLog
from bot.i18n import translator
from bot.model.table import Table, TableStatus
from bot.views.common import Seating, plain, rules_line, seating_at
from bot.views.summary import hand_result
from bot.views.table import (
    BUTTON_ORDER,
    answered_bets,
    bets,
    kind_label,
    pending_line,
    status_lines,
)
from bot.web.cards import card_name

SEAL_SHOWN = 12


def _buenas(points: int, obs: Observation) -> bool:
    halves = malas_buenas(points, obs.config.target)
    return halves is not None and halves[1] > 0


def _actions(t: Any, obs: Observation, language: str) -> list[dict[str, Any]]:
    """The seat's legal actions now, in the buttons' order: cards first."""
    out: list[dict[str, Any]] = []
    for action in obs.actions:
        if action.card is not None:
            label = card_name(action.card, language)
            out.append({"code": action.code, "card": action.card.code, "label": label})
    order = {kind: i for i, kind in enumerate(BUTTON_ORDER)}
    chants = sorted((a for a in obs.actions if a.card is None), key=lambda a: order[a.kind])
    out += [{"code": a.code, "label": kind_label(t, a.kind)} for a in chants]
    return out


def table_view(
    table: Table, names: dict[int, str], seat: int | None, shown: Sequence[str] = ()
) -> dict[str, Any]:
    """The table as `seat` sees it (None: the public view); `shown`: the señas its partner
    showed it this hand."""
    t = translator(table.language)
    who: Seating = seating_at(t, table, names)
    view: dict[str, Any] = {
        "id": table.id,
        "version": table.version,  # the page keeps the newest it has seen (answers and pushes race)
        "status": table.status.value,
        "language": table.language,
        "rules": plain(rules_line(t, table.config)),
        "players": table.config.players,
        "team_size": table.geometry.team_size,
        "target": table.config.target,
        "seat": seat,
        "seats": [
            {"name": plain(who.names[s]), "bot": table.bot_level(s) is not None, "side": side_of(s)}
            for s in range(table.config.players)
        ],
    }
    state = table.state
    if state is None:
        return view
    obs = observe(state, seat)
    hand = state.hand
    ended = HandLog.of(hand) if state.is_over and hand else state.last_hand
    view.update(
        step=obs.step,
        phase=obs.phase.value,
        winner=obs.winner,
        scores=list(obs.scores),
        fosforos=[
            {"squares": fosforos(p)[0], "loose": fosforos(p)[1], "buenas": _buenas(p, obs)}
            for p in obs.scores
        ],
        hand_number=obs.hand_number,
        dealer=obs.dealer,
        mano=obs.mano,
        turn=obs.turn,
        hand_value=obs.hand_value,
        rounds=[
            [{"seat": s, "card": c.code, "name": card_name(c, table.language)} for s, c in plays]
            for plays in obs.rounds
        ],
        results=list(obs.results),
        cards_left=list(obs.cards_left),
        waiting_on=list(obs.waiting_on),
        record=plain(hand_result(t, who, state.config, ended, True)) if ended else None,
        status_lines=[plain(x) for x in status_lines(t, who, obs)],
        bets=[plain(x) for x in bets(t, who, answered_bets(obs, table.calls))],
        pending=(
            plain(pending_line(t, who, obs))
            if obs.phase is Phase.PLAY and obs.pending_chant is not None
            else None
        ),
        seal=commitment(table.seed)[:SEAL_SHOWN] if table.seed else None,
        over=state.is_over or table.status is not TableStatus.PLAYING,
    )
    if seat is not None:
        if obs.dealt and obs.config.flor and has_flor(obs.dealt):
            view["mine"] = plain(t("hand.flor", value=flor_value(obs.dealt)))
        elif obs.dealt and not any(obs.flor_declared):
            view["mine"] = plain(t("hand.envido", value=envido_value(obs.dealt)))
        view["hand"] = [{"card": c.code, "name": card_name(c, table.language)} for c in obs.cards]
        playing = table.status is TableStatus.PLAYING
        view["actions"] = _actions(t, obs, table.language) if playing else []
        if table.geometry.partners(seat) and playing:
            view["signs"] = [{"key": k, "label": t(f"sign.{k}")} for k in SIGNS]
            view["signs_seen"] = [
                f"{t(f'sign.{k}')} ({t(f'sign.meaning.{k}')})" for k in shown if k in SIGNS
            ]
    return view
