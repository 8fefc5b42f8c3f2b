"""/config: a group's defaults for new tables (admins only), and its buttons."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from telegram import CallbackQuery, Update
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from bot.callbacks import ConfigData, pack, pattern
from bot.handlers.common import in_group, is_admin, reply, tapped, tapped_message
from bot.i18n import Translator, languages, translator
from bot.model.options import CONFIG_OPTIONS, Option, TableOptions, next_of, parse_option
from bot.model.refusals import Refused
from bot.runtime import Runtime
from bot.service.changes import Refusal
from bot.views.common import (
    Button,
    Keys,
    option_button_text,
    rules_line,
    shown_options,
    timer_text,
)


def config_view(t: Translator, options: TableOptions) -> tuple[str, Keys]:
    bot_line = t("config.bot", level=t(f"bot.level.{options.bot}"))
    text = "\n".join(
        [t("config.title"), "", rules_line(t, options.config), timer_text(t, options.timer),
         bot_line, t("config.help")]
    )  # fmt: skip
    buttons = [
        Button(option_button_text(t, options, o), pack(ConfigData(o.value)))
        for o in shown_options(CONFIG_OPTIONS, options.config)
    ]
    return text, Keys.of([buttons[i : i + 2] for i in range(0, len(buttons), 2)])


async def config_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    command = await in_group(update, context, admin_command=True)
    if command is None:
        return
    message, _, chat, r, t, _ = command
    if not await command.by_admin(context):
        await reply(context, message, t("config.admins_only"))
        return
    text, keys = config_view(t, with_zone(await r.core.chats.defaults(chat.id), r))
    await reply(context, message, text, keys)


def with_zone(options: TableOptions, r: Runtime) -> TableOptions:
    """A group's defaults with its time zone named (the operator's, TRUCO_TIMEZONE, until
    the group chooses one)."""
    return options if options.zone else replace(options, zone=r.settings.timezone)


async def _config(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: ConfigData,
    t: Translator,
) -> None:  # fmt: skip
    """An admin taps a default: it moves to its next value, and the panel shows it."""
    message = tapped_message(query)
    chat_id = message.chat.id
    option = parse_option(data.option)
    if option is None:
        raise Refusal(Refused.BAD_BUTTON)
    if not await is_admin(context, chat_id, query.from_user.id):
        await query.answer(t("config.admins_only"))
        return
    chats = r.core.chats
    options = await chats.defaults(chat_id)
    if option is Option.LANG:
        t = translator(next_of(languages(), t.language))
        text, keys = config_view(t, with_zone(options, r))
        await r.say.set_language(chat_id, t.language, message.message_id, text, keys)
    else:
        # (the zone moves on from the one shown; any other tap leaves it the operator's)
        options = (with_zone(options, r) if option is Option.ZONE else options).cycled(option)
        text, keys = config_view(t, with_zone(options, r))
        await r.say.set_defaults(chat_id, options, message.message_id, text, keys)
    await query.answer(t("config.saved"))


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    app.add_handler(CommandHandler("config", config_command))
    app.add_handler(CallbackQueryHandler(tapped(ConfigData, _config), pattern=pattern(ConfigData)))
