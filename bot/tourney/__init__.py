"""A group's tournaments, one feature built on the game core, each concern a module:
`model` (a tournament as plain values: sign-ups, seeds, series, who plays next), `formats/` (a
format a file, reached only through `model`), `bracket` (ties and lines), `later` (its day and
hour as people type them), `store` (its rows), `service` (`Tournaments`: sign-ups, the start,
`settle`), `news` (what it tells and whom) and `views` (its words). Inside, the floors are the
bot's: the model imports nothing of the package above it, the store no service or view, the
views no store or service. The core knows a tournament only by a table's place in it
(`bot.model.tourney.TourneyPlace`) and carries its changes; `bot.core` builds it with the rest.
"""
