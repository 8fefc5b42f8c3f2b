"""Settings: documented, and a missing token is one clear line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from bot.config import Settings

ROOT = Path(__file__).resolve().parents[2]


def test_env_example_documents_every_setting() -> None:
    text = (ROOT / ".env.example").read_text()
    documented = set(re.findall(r"^#?\s*TRUCO_([A-Z_]+)=", text, re.MULTILINE))
    assert documented == {name.upper() for name in Settings.model_fields}


def test_defaults() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert str(settings.database) == "truco.db" and settings.language == "es"
    assert settings.group_interval * 20 >= 60  # never more than 20 calls a minute in a group


def test_running_without_a_token_says_so_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUCO_")}
    result = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().count("\n") == 0 and "TRUCO_BOT_TOKEN" in result.stderr
