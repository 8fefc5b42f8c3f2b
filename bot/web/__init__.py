"""The web table's front end (a Telegram Mini App, and the local try-out): groundwork."""
