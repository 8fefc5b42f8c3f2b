"""/config: a group's defaults for new tables (admins only)."""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import Application, CommandHandler, ContextTypes

from bot.app import Services
from bot.callbacks import ConfigData, pack
from bot.game import MatchConfig
from bot.handlers.common import chat_translator, in_group, is_admin, reply
from bot.i18n import LANGUAGES, Translator
from bot.service.publisher import edit_row
from bot.service.tables import TIMER_CHOICES
from bot.views.common import option_label, rules_line
from bot.views.lobby import timer_text

OPTIONS = ("mode", "target", "flor", "house", "timer", "bot", "lang")
BOT_LEVEL_ORDER = ("facil", "normal", "dificil")


def defaults_config(defaults: dict[str, Any]) -> MatchConfig:
    return MatchConfig(
        players=int(defaults.get("players", 2)),
        target=int(defaults.get("target", 30)),
        flor=bool(defaults.get("flor", True)),
        mazo_penalty=bool(defaults.get("house", True)),
    )


def toggled(defaults: dict[str, Any], option: str, fallback_timer: int) -> dict[str, Any]:
    config = defaults_config(defaults)
    new = dict(defaults)
    if option == "mode":
        new["players"] = 4 if config.players == 2 else 2
    elif option == "target":
        new["target"] = 15 if config.target == 30 else 30
    elif option == "flor":
        new["flor"] = not config.flor
    elif option == "house":
        new["house"] = not config.mazo_penalty
    elif option == "timer":
        now = int(defaults.get("timer", fallback_timer))
        index = TIMER_CHOICES.index(now) if now in TIMER_CHOICES else -1
        new["timer"] = TIMER_CHOICES[(index + 1) % len(TIMER_CHOICES)]
    elif option == "bot":
        level = defaults.get("bot", "normal")
        index = BOT_LEVEL_ORDER.index(level) if level in BOT_LEVEL_ORDER else 0
        new["bot"] = BOT_LEVEL_ORDER[(index + 1) % len(BOT_LEVEL_ORDER)]
    return new


def config_view(
    t: Translator, defaults: dict[str, Any], fallback_timer: int
) -> tuple[str, InlineKeyboardMarkup]:
    config = defaults_config(defaults)
    timer = int(defaults.get("timer", fallback_timer))
    level = defaults.get("bot", "normal")
    level = level if level in BOT_LEVEL_ORDER else "normal"
    bot_line = t("config.bot", level=t(f"bot.level.{level}"))
    text = "\n".join(
        [t("config.title"), "", rules_line(t, config), timer_text(t, timer), bot_line,
         t("config.help")]
    )  # fmt: skip
    values = {  # what each button shows: the value now (a tap moves to the next)
        "mode": ("mode", "1v1" if config.players == 2 else "2v2"),
        "target": ("target", t("option.target_value", points=config.target)),
        "flor": ("flor", t("option.flor_on") if config.flor else t("option.flor_off")),
        "house": ("house", "2" if config.mazo_penalty else "1"),
        "timer": ("timer", f"{timer} s" if timer else t("option.timer_off")),
        "bot": ("bots", t(f"bot.level.{level}")),
        "lang": ("lang", t.language),
    }
    buttons = [
        InlineKeyboardButton(option_label(t, *values[o]), callback_data=pack(ConfigData(o)))
        for o in OPTIONS
    ]
    return text, InlineKeyboardMarkup([buttons[i : i + 2] for i in range(0, len(buttons), 2)])


async def config_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    command = await in_group(update, context)
    if command is None:
        return
    message, user, chat, s, t = command
    if not await is_admin(context, chat.id, user.id):
        await reply(context, message, t("config.admins_only"))
        return
    text, markup = config_view(t, await s.store.chat_defaults(chat.id), s.settings.turn_seconds)
    await reply(context, message, text, markup)


async def config_tap(
    s: Services,
    context: ContextTypes.DEFAULT_TYPE,
    chat_id: int,
    message_id: int,
    user_id: int,
    option: str,
) -> str:
    """Apply a /config toggle; returns the pop-up text."""
    t = await chat_translator(context, chat_id)
    if option not in OPTIONS:
        return t("refusal.bad_button")
    if not await is_admin(context, chat_id, user_id):
        return t("config.admins_only")
    defaults = await s.store.chat_defaults(chat_id)
    if option == "lang":
        current = t.language
        await s.store.set_chat_language(chat_id, LANGUAGES[(LANGUAGES.index(current) + 1) % 2])
        t = await chat_translator(context, chat_id)
    else:
        defaults = toggled(defaults, option, s.settings.turn_seconds)
        await s.store.set_chat_defaults(chat_id, defaults)
    text, markup = config_view(t, defaults, s.settings.turn_seconds)
    await s.publisher.say(edit_row(chat_id, message_id, text, markup))
    return t("config.saved")


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    app.add_handler(CommandHandler("config", config_command))
