"""The core's model: a table and the values around it.

What the game core decides with and about, as plain values with no I/O: the table (its status,
seats, options, recent calls and the match's `Outcome`), the refusals the core answers with, and
the rows its front ends will send. The engine (`bot.game`) is below it; the storage maps rows to
it and back; the core's services change it; every front end reads it. Nothing here knows a
database, Telegram or the web.
"""
