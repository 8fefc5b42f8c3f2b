"""The lobby message: options, who has joined, and the buttons to join."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import LobbyData, pack
from bot.i18n import Translator
from bot.service.tables import LobbyOption
from bot.storage.repo import Table
from bot.views.common import option_label, rules_line, short_name


def lobby_text(t: Translator, table: Table, names: dict[int, str]) -> str:
    config = table.config
    lines = [t("lobby.title", rules=rules_line(t, config)), ""]
    if config.players == 2:
        for seat, user in enumerate(table.seats):
            name = short_name(names.get(user, "?")) if user else t("lobby.free")
            lines.append(f"{seat + 1}. {name}")
    else:
        for team in (0, 1):
            members = [
                short_name(names.get(u, "?")) if u else t("lobby.free")
                for u in (table.seats[team], table.seats[team + 2])
            ]
            lines.append(t("lobby.team", team=team + 1, members=" · ".join(members)))
    lines.append("")
    lines.append(timer_text(t, table.turn_seconds))
    lines.append(t("lobby.help_2v2") if config.players == 4 else t("lobby.help_1v1"))
    opener = short_name(names.get(table.opener_id, "?"))
    lines.append(t("lobby.opener", name=opener))
    if table.opener_id not in table.seats:
        lines.append(t("lobby.opener_unseated", name=f"<b>{opener}</b>"))
    return "\n".join(lines)


def bot_buttons(t: Translator, table: Table) -> list[InlineKeyboardButton]:
    """Seat a computer player (per team in 2v2) where a seat is free, or take one out."""
    tid = table.id
    out = []
    if table.config.players == 4:
        for team in (0, 1):
            if any(table.seats[s] is None for s in (team, team + 2)):
                out.append(
                    InlineKeyboardButton(
                        t("button.add_bot_team", team=team + 1),
                        callback_data=pack(LobbyData(tid, "b", str(team))),
                    )
                )
    elif None in table.seats:
        out.append(InlineKeyboardButton(t("button.add_bot"),
                                        callback_data=pack(LobbyData(tid, "b"))))  # fmt: skip
    if table.bot_seats:
        out.append(InlineKeyboardButton(t("button.remove_bot"),
                                        callback_data=pack(LobbyData(tid, "r"))))  # fmt: skip
    return out


def timer_text(t: Translator, seconds: int) -> str:
    return t("lobby.timer", seconds=seconds) if seconds else t("lobby.no_timer")


def lobby_markup(t: Translator, table: Table, join_link: str) -> InlineKeyboardMarkup:
    tid = table.id
    config = table.config
    rows: list[list[InlineKeyboardButton]] = []
    if config.players == 4:
        rows.append(
            [
                InlineKeyboardButton(
                    t("button.join_team", team=team + 1),
                    callback_data=pack(LobbyData(tid, "j", str(team))),
                )
                for team in (0, 1)
            ]
        )
    else:
        rows.append(
            [InlineKeyboardButton(t("button.join"), callback_data=pack(LobbyData(tid, "j")))]
        )
    rows[0].append(InlineKeyboardButton(t("button.leave"), callback_data=pack(LobbyData(tid, "x"))))
    # Each option button shows the value the table has now; a tap moves it to the next one.
    seconds = table.turn_seconds
    options = [
        (LobbyOption.MODE, "mode", "1v1" if config.players == 2 else "2v2"),
        (LobbyOption.TARGET, "target", t("option.target_value", points=config.target)),
        (LobbyOption.FLOR, "flor", t("option.flor_on") if config.flor else t("option.flor_off")),
        (LobbyOption.HOUSE, "house", "2" if config.mazo_penalty else "1"),
        (LobbyOption.TIMER, "timer", f"{seconds} s" if seconds else t("option.timer_off")),
    ]
    bots = table.bot_seats
    if bots:
        level = table.bot_level(bots[0]) or "normal"
        options.append((LobbyOption.BOT, "bots", t(f"bot.level.{level}")))
    toggles = [
        InlineKeyboardButton(
            option_label(t, key, value), callback_data=pack(LobbyData(tid, "o", name))
        )
        for name, key, value in options
    ]
    rows += [toggles[:2], toggles[2:4], toggles[4:]]
    rows.append(bot_buttons(t, table))
    rows.append(
        [
            InlineKeyboardButton(t("button.open_private"), url=join_link),
            InlineKeyboardButton(
                t("button.cancel"), callback_data=pack(LobbyData(tid, "o", "cancel"))
            ),
        ]
    )
    return InlineKeyboardMarkup(rows)
