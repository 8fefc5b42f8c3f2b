"""truco-bot: truco argentino for Telegram groups."""

import os

# Opt in to python-telegram-bot's coming behaviour (time periods as timedelta) so that its
# deprecation warnings, which our tests treat as errors, do not fire.
os.environ.setdefault("PTB_TIMEDELTA", "1")
