"""Settings from the environment or a .env file, prefix TRUCO_."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="TRUCO_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    bot_token: SecretStr | None = Field(default=None, description="From @BotFather; required")
    database: Path = Field(default=Path("truco.db"), description="SQLite file")
    api_base_url: str = Field(
        default="https://api.telegram.org/bot",
        description="Bot API base URL; point it at a local Bot API server if you run one",
    )
    language: Literal["es", "en"] = Field(default="es", description="Default language of chats")
    seed: int | None = Field(default=None, description="Reproducible deals (tests, demos)")
    turn_seconds: int = Field(
        default=120, ge=0, description="Default seconds a player has to move; 0: sin tiempo"
    )
    lobby_seconds: int = Field(default=600, ge=1, description="An unstarted table expires")
    group_interval: float = Field(
        default=3.1, ge=0, description="Seconds between the bot's calls in one group (20/min)"
    )
    concurrent_updates: int = Field(default=64, ge=1, description="Updates handled at once")
    poll_timeout: int = Field(default=30, ge=0, description="getUpdates long-poll seconds")
    rate_group_per_minute: int = Field(default=20, ge=1, description="AIORateLimiter, per group")
    rate_overall_per_second: int = Field(default=30, ge=1, description="AIORateLimiter, overall")
    max_retries: int = Field(default=3, ge=0, description="Retries after a 429 (RetryAfter)")
    sign_catch_chance: float = Field(
        default=0.25, ge=0, le=1, description="2v2: chance that each rival catches a seña"
    )
    log_level: str = Field(default="INFO")
