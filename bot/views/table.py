"""The board (group) and the hand message (private): a table's state as text and buttons."""

from __future__ import annotations

from collections.abc import Sequence

from bot.callbacks import ActData, CardsData, SignData, VacatedData, pack
from bot.game import Action, ActionKind, Observation, Phase, envido_value, flor_value, has_flor
from bot.i18n import Translator
from bot.storage.repo import Call, Note
from bot.views.common import (
    Button,
    Keys,
    Seating,
    card_name,
    cards_text,
    rules_line,
    score_lines,
)

K = ActionKind

# The order chants and answers appear on buttons: answers first, then raises, then the rest.
BUTTON_ORDER = (
    K.QUIERO, K.NO_QUIERO, K.FLOR, K.CON_FLOR_ME_ACHICO, K.CONTRAFLOR, K.CONTRAFLOR_AL_RESTO,
    K.TRUCO, K.RETRUCO, K.VALE_CUATRO, K.ENVIDO, K.REAL_ENVIDO, K.FALTA_ENVIDO, K.MAZO,
)  # fmt: skip
ROUND_NAMES = ("round.1", "round.2", "round.3")
# Only a flor holder can use these: they live in the holder's private hand message, never on
# the board (which cannot know who holds flor without telling everyone).
FLOR_FAMILY = frozenset({K.FLOR, K.CON_FLOR_ME_ACHICO, K.CONTRAFLOR, K.CONTRAFLOR_AL_RESTO})


def kind_label(t: Translator, kind: ActionKind) -> str:
    return t(f"kind.{kind.value}")


def call_line(t: Translator, who: Seating, call: Call) -> str:
    what = call.what
    if what in (Note.ENVIDO_VALUES, Note.FLOR_VALUES):
        values = ", ".join(f"{who.seat(s)} {v}" for s, v in call.values)
        return t(f"call.{what.value}", values=values)
    name = who.seat(call.seat) if call.seat is not None else "?"
    if isinstance(what, Note):
        return t(f"call.{what.value}", name=name)
    return t("call.said", name=name, chant=kind_label(t, what))


def _rounds(t: Translator, who: Seating, obs: Observation) -> list[str]:
    lines = []
    for index, plays in enumerate(obs.rounds):
        played = " · ".join(f"{who.seat(s)} {card_name(t, c)}" for s, c in plays)
        result = ""
        if index < len(obs.results):
            won = obs.results[index]
            result = " → " + (t("round.parda") if won is None else who.side(t, won))
        lines.append(f"{t(ROUND_NAMES[index])}: {played}{result}")
    return lines


def _status(t: Translator, who: Seating, obs: Observation) -> list[str]:
    lines = [
        t(
            "board.hand",
            number=obs.hand_number,
            dealer=who.seat(obs.dealer),
            mano=who.seat(obs.mano),
            value=obs.hand_value,
        )
    ]
    lines.extend(_rounds(t, who, obs))
    if obs.phase is not Phase.PLAY:
        return lines
    if obs.pending_chant is not None and obs.pending_side is not None:
        lines.append(
            t(
                "board.pending",
                side=who.side(t, obs.pending_side),
                chant=kind_label(t, obs.pending_chant),
                answer=who.side(t, 1 - obs.pending_side),
                count=who.size(obs.pending_side),
            )
        )
    elif obs.turn is not None:
        lines.append(t("board.turn", name=who.seat(obs.turn)))
    return lines


def board_text(
    t: Translator,
    who: Seating,
    obs: Observation,
    calls: Sequence[Call],
    record: str | None = None,
) -> str:
    """The group's one message: the last hand's record on top (so the end of a hand costs no
    message of its own), the score, and the hand in play."""
    lines = [t("board.title", rules=rules_line(t, obs.config)), ""]
    if record:
        lines += [record, ""]
    lines += score_lines(t, who, obs.scores, obs.config.target)
    if obs.phase is Phase.OVER:
        return "\n".join(lines)
    lines.append("")
    lines += _status(t, who, obs)
    if calls:
        lines.append("")
        lines += [f"· {call_line(t, who, entry)}" for entry in calls[-4:]]
    return "\n".join(lines)


def _call_buttons(
    t: Translator, table_id: int, step: int, actions: Sequence[Action]
) -> list[tuple[Button, ...]]:
    kinds = {a.kind for a in actions if a.kind is not K.PLAY}
    buttons = [
        Button(kind_label(t, k), pack(ActData(table_id, step, k)))
        for k in BUTTON_ORDER
        if k in kinds and k is not K.MAZO
    ]
    rows = [tuple(buttons[i : i + 3]) for i in range(0, len(buttons), 3)]
    if K.MAZO in kinds:
        rows.append((Button(kind_label(t, K.MAZO), pack(ActData(table_id, step, K.MAZO))),))
    return rows


def board_markup(t: Translator, table_id: int, obs: Observation) -> Keys | None:
    if obs.phase is Phase.OVER:
        return None
    if obs.pending_chant in FLOR_FAMILY:
        public: list[Action] = []  # a flor exchange is answered by holders, in private
    else:
        public = [a for a in obs.actions if a.kind not in FLOR_FAMILY]
    rows = _call_buttons(t, table_id, obs.step, public)
    rows.append((Button(t("button.my_cards"), pack(CardsData(table_id))),))
    return Keys(rows)


def hand_text(t: Translator, who: Seating, obs: Observation, title: str) -> str:
    assert obs.seat is not None
    lines = [title, ""]
    lines.append(t("hand.cards", cards=cards_text(t, obs.cards) if obs.cards else "—"))
    if obs.dealt:
        if obs.config.flor and has_flor(obs.dealt):
            lines.append(t("hand.flor", value=flor_value(obs.dealt)))
        else:
            lines.append(t("hand.envido", value=envido_value(obs.dealt)))
    lines.append("")
    lines += score_lines(t, who, obs.scores, obs.config.target)
    lines.append("")
    lines += _status(t, who, obs)
    if obs.phase is Phase.PLAY and obs.seat in obs.waiting_on and obs.actions:
        lines.append(t("hand.your_move"))
    return "\n".join(lines)


def hand_markup(t: Translator, table_id: int, obs: Observation, signs: bool) -> Keys | None:
    if obs.phase is not Phase.PLAY:
        return None
    rows: list[tuple[Button, ...]] = [  # one card a row: easy to hit on a phone
        (Button(card_name(t, a.card), pack(ActData(table_id, obs.step, K.PLAY, a.card))),)
        for a in obs.actions
        if a.kind is K.PLAY and a.card is not None
    ]
    rows += _call_buttons(t, table_id, obs.step, obs.actions)
    if signs:
        rows.append((Button(t("button.signs"), pack(SignData(table_id, obs.step, "m"))),))
    return Keys(rows) if rows else None


def vacated_keys(t: Translator, table_id: int) -> Keys:
    """A seat left empty mid-match: a computer player takes it, or the match ends."""
    return Keys.of(
        [
            [
                Button(t("button.bot_takes_seat"), pack(VacatedData(table_id, "b"))),
                Button(t("button.end_match"), pack(VacatedData(table_id, "e"))),
            ]
        ]
    )
