"""The Telegram adapter: what the bot says about each change (outbox rows), how each row becomes
Bot API calls, the sender that delivers them, and python-telegram-bot's requests over aiohttp."""
