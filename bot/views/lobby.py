"""The lobby message: options, who has joined, and the buttons to join."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import LobbyData, pack
from bot.i18n import Translator
from bot.service.tables import LobbyOption
from bot.storage.repo import Table
from bot.views.common import rules_line, short_name


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
    lines.append(t("lobby.opener", name=short_name(names.get(table.opener_id, "?"))))
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
    options = [
        (LobbyOption.MODE, "2v2" if config.players == 2 else "1v1"),
        (LobbyOption.TARGET, "15" if config.target == 30 else "30"),
        (LobbyOption.FLOR, t("rules.sin_flor") if config.flor else t("rules.con_flor")),
        (LobbyOption.HOUSE, t("button.house_off") if config.mazo_penalty else t("button.house_on")),
        (LobbyOption.TIMER, t("button.timer")),
    ]
    bots = table.bot_seats
    if bots:
        level = table.bot_level(bots[0]) or "normal"
        options.append((LobbyOption.BOT, "🤖 " + t(f"bot.level.{level}")))
    toggles = [
        InlineKeyboardButton(f"⚙️ {label}", callback_data=pack(LobbyData(tid, "o", name)))
        for name, label in options
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
