"""Settings from the environment or a .env file, prefix TRUCO_."""

from __future__ import annotations

import re
from datetime import UTC, tzinfo
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.i18n import DEFAULT_LANGUAGE, languages


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="TRUCO_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    bot_token: SecretStr | None = Field(default=None, description="From @BotFather; required")
    database: str | Path = Field(
        default=Path("truco.db"),
        description="SQLite file, or a postgresql:// URL (several workers share one database)",
    )
    db_pool: int = Field(
        default=10,
        ge=1,
        description="PostgreSQL: connections each worker opens at most (and one that listens)",
    )
    api_base_url: str = Field(
        default="https://api.telegram.org/bot",
        description="Bot API base URL; point it at a local Bot API server if you run one",
    )
    language: str = Field(
        default=DEFAULT_LANGUAGE, description="Default language of chats (one of locales/)"
    )
    seed: int | None = Field(default=None, description="Reproducible deals (tests, demos)")
    turn_seconds: int = Field(
        default=120, ge=0, description="Default seconds a player has to move; 0: sin tiempo"
    )
    timer_tick: float = Field(
        default=1.0, gt=0, description="Seconds between checks of the turn deadlines"
    )
    lobby_seconds: int = Field(default=600, ge=1, description="An unstarted table expires")
    group_interval: float = Field(
        default=3.1, ge=0, description="Seconds between the bot's calls in one group (20/min)"
    )
    private_per_second: float = Field(
        default=1.0,
        ge=0,
        description="Calls a second in one private chat, after a burst (0: not paced)",
    )
    private_burst: int = Field(
        default=3, ge=1, description="Calls at once in one private chat before its pace holds"
    )
    watched_board_interval: float = Field(
        default=10.0,
        ge=0,
        description="Seconds between two edits of a group's board while every player at its"
        " table has their hand in their private chat, which shows the table (a hand's end and"
        " the match's go at once; 0: every change at the group's pace)",
    )
    own_hand_defer: float = Field(
        default=20.0,
        ge=0,
        description="Seconds the tapper's own hand may wait after their move when nothing"
        " edits it sooner (their next turn, a chant they must answer, the hand's end do;"
        " 0: at once)",
    )
    own_hand_defer_above: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="At a team table, the share of the bot's send budget in use above which"
        " the tapper's own hand waits for their next edit (their next turn is several moves"
        " away; 0: always). In 1v1 it always waits: the answer to their tap says the card that"
        " went and that the message catches up at their turn, seconds later",
    )
    max_live_tables: int = Field(
        default=50,
        ge=0,
        description="Matches in play at once; a lobby that fills past them waits in line and"
        " starts when one ends (50: what 30 calls a second carry at a person's pace,"
        " docs/operations.md); 0: no limit",
    )
    concurrent_updates: int = Field(default=64, ge=1, description="Updates handled at once")
    poll_timeout: int = Field(default=30, ge=0, description="getUpdates long-poll seconds")
    rate_group_per_minute: int = Field(default=20, ge=1, description="AIORateLimiter, per group")
    rate_overall_per_second: int = Field(default=30, ge=1, description="AIORateLimiter, overall")
    paid_broadcast: bool = Field(
        default=False,
        description="New messages sent with allow_paid_broadcast: past Telegram's free 30 a"
        " second, for a fee in Stars from the bot's balance (edits are never paid)",
    )
    max_retries: int = Field(default=3, ge=0, description="Retries after a 429 (RetryAfter)")
    reply_burst: int = Field(
        default=8, ge=1, description="Answers to one person's commands in a group, at once"
    )
    reply_every: float = Field(
        default=6.0, gt=0, description="Seconds for each further answer to one person's commands"
    )
    sign_catch_chance: float = Field(
        default=0.25, ge=0, le=1, description="2v2: chance that each rival catches a seña"
    )
    webhook_url: str | None = Field(
        default=None, description="Public HTTPS URL Telegram posts updates to; unset: polling"
    )
    webhook_listen: str = Field(default="127.0.0.1", description="Address the webhook listens on")
    webhook_port: int = Field(default=8443, ge=1, le=65535, description="Port of the webhook")
    webhook_path: str = Field(default="telegram", description="Path of the webhook")
    webhook_secret: SecretStr | None = Field(
        default=None,
        description="Secret token Telegram sends with each update (1-256 of A-Z a-z 0-9 _ -)",
    )
    worker_id: str = Field(
        default="main",
        description="This process's name as a sender of the outbox; each worker needs its own",
    )
    outbox_poll: float = Field(
        default=1.0, gt=0, description="Seconds between looks for messages left to send"
    )
    bot_delay: float = Field(
        default=1.5, ge=0, description="Seconds a computer player pauses before it moves"
    )
    ai_workers: int = Field(
        default=1,
        ge=0,
        description="Processes that think for the computer players; 0: a thread of this one",
    )
    bot_level: Literal["facil", "normal", "dificil"] = Field(
        default="normal", description="Computer players' level unless a group's /config says"
    )
    metrics_port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description="Port of /metrics in Prometheus's text format (docs/operations.md); unset: off",
    )
    metrics_host: str = Field(default="127.0.0.1", description="Address /metrics listens on")
    timezone: str = Field(
        default="America/Argentina/Buenos_Aires",
        description="The time zone of dates the bot shows (/historial, /partida)",
    )

    @property
    def zone(self) -> tzinfo:
        """The time zone of the times the bot shows (UTC if the name is unknown here)."""
        try:
            return ZoneInfo(self.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            return UTC

    log_level: str = Field(default="INFO")
    stats_file: Path | None = Field(
        default=None,
        description="Every tick, what the database door counted (round trips...), as JSON",
    )
    mode: Literal["telegram", "local"] = Field(
        default="telegram",
        description="local: the web table on this machine, no token, no Telegram (try it out)",
    )
    web_host: str = Field(default="127.0.0.1", description="Where the web table listens")
    web_port: int = Field(default=8080, ge=0, le=65535, description="The web table's port")
    webapp_url: str | None = Field(
        default=None,
        description="The web table's public https address: Telegram opens it as a Mini App",
    )
    webapp_name: str | None = Field(
        default=None,
        description="The Mini App's short name (BotFather /newapp): the group board's link",
    )
    webapp_max_age: int = Field(
        default=86_400, gt=0, description="Seconds a Mini App's launch data stays good"
    )
    web_rate: float = Field(
        default=20.0, gt=0, description="The web table's requests an address may make a second"
    )
    web_burst: float = Field(default=60.0, ge=1, description="... and at once")
    web_streams: int = Field(
        default=16, ge=1, description="Live streams of the web table one address keeps open"
    )
    web_proxies: list[str] = Field(
        default=["127.0.0.1", "::1"],
        description="Reverse proxies in front of the Mini App: the client's address is the last"
        " one they add to X-Forwarded-For (never in local mode)",
    )

    def webhook_args(self) -> dict[str, object] | None:
        """The keyword arguments of PTB's run_webhook/start_webhook, or None for polling."""
        if not self.webhook_url or self.webhook_secret is None:
            return None
        return {
            "listen": self.webhook_listen,
            "port": self.webhook_port,
            "url_path": self.webhook_path,
            "webhook_url": self.webhook_url,
            "secret_token": self.webhook_secret.get_secret_value(),
        }

    @field_validator("language")
    @classmethod
    def _spoken(cls, value: str) -> str:
        if value not in languages():
            raise ValueError(f"no locale file for it: one of {', '.join(languages())}")
        return value

    @model_validator(mode="after")
    def _webhook_needs_a_secret(self) -> Settings:
        if self.webhook_url:
            secret = self.webhook_secret.get_secret_value() if self.webhook_secret else ""
            if not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret):
                raise ValueError("TRUCO_WEBHOOK_SECRET (1-256 of A-Z a-z 0-9 _ -) is required")
        return self
