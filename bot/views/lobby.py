"""The lobby message: options, who has joined, and the buttons to join."""

from __future__ import annotations

from bot.ai.characters import character_of
from bot.callbacks import LobbyAct, LobbyData, LobbyOp, pack
from bot.game.seats import SIDES
from bot.i18n import Translator
from bot.model.names import BOT_MARK
from bot.model.options import LOBBY_OPTIONS, Option
from bot.model.table import Table
from bot.views.common import (
    Button,
    Keys,
    Seating,
    level_name,
    option_button_text,
    rules_line,
    seating_at,
    short_name,
    shown_options,
    timer_text,
)


def character_text(t: Translator, who: Seating, table: Table, seat: int) -> str:
    """The character of the computer player at `seat`, agreeing with its name ("mentirosa")."""
    return t(who.agree(f"character.{character_of(table.lineage, seat).value}", [seat]))


def lobby_text(t: Translator, table: Table, names: dict[int, str], place: int = 0) -> str:
    """Who sits where (computer players by name, with their level), the options, how to join;
    a table in the admission line, its `place` there (as it was when drawn)."""
    config = table.config
    who = seating_at(t, table, names)
    teams = table.geometry.team_size > 1

    def seated(seat: int) -> str:
        if table.seats[seat] is None:
            return t("lobby.free")
        level = table.bot_level(seat)
        name = who.names[seat]
        if level is None:
            return name
        name = f"{BOT_MARK} {name}"  # (where a computer player tells: the lobby)
        return f"{name} · {character_text(t, who, table, seat)} · {level_name(t, level)}"

    lines = [t("lobby.title", rules=rules_line(t, config)), ""]
    if table.in_line:
        lines[1:1] = [t("lobby.in_line", place=place), ""]
    if not teams:
        lines += [f"{seat + 1}. {seated(seat)}" for seat in table.geometry.all]
    else:
        for team in SIDES:
            members = " · ".join(seated(s) for s in table.geometry.of_side(team))
            lines.append(t("lobby.team", team=team + 1, members=members))
    lines.append("")
    lines.append(timer_text(t, table.turn_seconds))
    if table.hints:
        lines.append(t("lobby.hints"))
    lines.append(t("lobby.help_teams", count=config.players) if teams else t("lobby.help_1v1"))
    missing = sum(1 for user in table.seats if user is None)
    if missing:
        lines.append(t("lobby.missing", count=missing))
    opener = short_name(names.get(table.opener_id, "?"))
    lines.append(t("lobby.opener", name=opener))
    if table.opener_id not in table.seats:
        lines.append(t("lobby.opener_unseated", name=f"<b>{opener}</b>"))
    return "\n".join(lines)


def bot_buttons(t: Translator, table: Table) -> list[Button]:
    """Seat a computer player (per team in 2v2) where a seat is free, or take one out."""
    tid = table.id
    out = []
    if table.geometry.team_size > 1:
        for team in SIDES:
            if any(table.seats[s] is None for s in table.geometry.of_side(team)):
                out.append(
                    Button(t("button.add_bot_team", team=team + 1),
                           pack(LobbyData(tid, LobbyOp.ADD_BOT, str(team))))
                )  # fmt: skip
    elif None in table.seats:
        out.append(Button(t("button.add_bot"), pack(LobbyData(tid, LobbyOp.ADD_BOT))))
    if table.bot_seats:
        out.append(Button(t("button.remove_bot"), pack(LobbyData(tid, LobbyOp.REMOVE_BOT))))
    return out


def lobby_keys(t: Translator, table: Table, join_link: str) -> Keys:
    tid = table.id
    if table.in_line:  # full, waiting to start: its place, leave (the line), cancel
        return Keys.of([
            [Button(t("button.place"), pack(LobbyData(tid, LobbyOp.PLACE))),
             Button(t("button.leave"), pack(LobbyData(tid, LobbyOp.LEAVE)))],
            [Button(t("button.cancel"), pack(LobbyData(tid, LobbyOp.OPTION, LobbyAct.CANCEL)))],
        ])  # fmt: skip
    if table.geometry.team_size > 1:
        first = [
            Button(t("button.join_team", team=team + 1),
                   pack(LobbyData(tid, LobbyOp.JOIN, str(team))))
            for team in SIDES
        ]
    else:
        first = [Button(t("button.join"), pack(LobbyData(tid, LobbyOp.JOIN)))]
    first.append(Button(t("button.leave"), pack(LobbyData(tid, LobbyOp.LEAVE))))
    # Each option button shows the value the table has now; a tap moves it to the next one.
    options = table.options
    shown = [
        o for o in shown_options(LOBBY_OPTIONS, table.config)
        if o is not Option.BOT or table.bot_seats
    ]  # fmt: skip
    toggles = [
        Button(option_button_text(t, options, o), pack(LobbyData(tid, LobbyOp.OPTION, o.value)))
        for o in shown
    ]
    last = [
        Button(t("button.open_private"), url=join_link),
        Button(t("button.cancel"), pack(LobbyData(tid, LobbyOp.OPTION, LobbyAct.CANCEL))),
    ]
    pairs = [toggles[i : i + 2] for i in range(0, len(toggles), 2)]  # two to a row on a phone
    return Keys.of([first, *pairs, bot_buttons(t, table), last])


def practice_text(t: Translator, table: Table, names: dict[int, str]) -> str:
    """A practice starts (it has no lobby): its rules, whom you play with and against, each
    computer player with its character, their level, 💡 and the clock, said once."""
    who = seating_at(t, table, names)
    me = table.seat_of(table.opener_id)
    seat = me if me is not None else 0

    def named(seats_: list[int]) -> str:
        shown = [f"{who.marked(s)} ({character_text(t, who, table, s)})" for s in seats_]
        return shown[0] if len(shown) == 1 else t("side.pair", a=", ".join(shown[:-1]), b=shown[-1])

    partners = list(table.geometry.partners(seat))
    rivals = [s for s in table.geometry.all if table.geometry.side(s) != table.geometry.side(seat)]
    lines = [t("practice.title", rules=rules_line(t, table.config))]
    if partners:
        key = who.agree("practice.partners", partners)  # "Tu compañera", "Tus compañeros"
        lines.append(t(key, names=named(partners), count=len(partners)))
    lines.append(t("practice.rivals", names=named(rivals), count=len(rivals)))
    levels = [table.bot_level(s) for s in table.bot_seats]
    level = next((x for x in levels if x is not None), "normal")
    lines.append(
        t("practice.level", level=level_name(t, level)) + " · " + timer_text(t, table.turn_seconds)
    )
    if table.hints:
        lines.append(t("practice.hints"))
    lines.append(t("practice.leave"))
    return "\n".join(lines)
