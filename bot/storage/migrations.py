"""Schema migrations, applied in order (`PRAGMA user_version`; PostgreSQL: `schema_version`).
Never edit a released one. A migration is SQLite's SQL (`bot.storage.postgres` widens its types for
PostgreSQL), or that SQL with `{name}` holes and each dialect's statement for them."""

# SQL; or SQL with holes and, per dialect, the statement for its one hole `{hands}` or for each
# of its named holes
Migration = str | tuple[str, dict[str, str]] | tuple[str, dict[str, dict[str, str]]]


def script_of(migration: Migration, dialect: str) -> str:
    """A migration's statements for `dialect` ("sqlite" or "postgresql")."""
    if isinstance(migration, str):
        return migration
    text, holes = migration
    fill = holes[dialect]
    if isinstance(fill, str):
        return text.replace("{hands}", fill)
    for name, statement in fill.items():
        text = text.replace("{" + name + "}", statement)
    return text


MIGRATIONS: list[Migration] = [
    """
CREATE TABLE chats (
    chat_id INTEGER PRIMARY KEY,
    language TEXT,
    defaults TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE players (
    user_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    username TEXT,
    can_dm INTEGER NOT NULL DEFAULT 0,
    updated_at REAL NOT NULL
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id INTEGER NOT NULL,
    thread_id INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
    opener_id INTEGER NOT NULL,
    config TEXT NOT NULL,
    seats TEXT NOT NULL DEFAULT '[]',
    state TEXT,
    version INTEGER NOT NULL DEFAULT 0,
    message_id INTEGER,
    hand_messages TEXT NOT NULL DEFAULT '{}',
    calls TEXT NOT NULL DEFAULT '[]',
    language TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    started_at REAL,
    ended_at REAL
);
CREATE UNIQUE INDEX games_one_open_per_topic ON games (chat_id, thread_id)
    WHERE status IN ('lobby', 'playing');
CREATE INDEX games_status ON games (status);
CREATE TABLE actions (
    game_id INTEGER NOT NULL REFERENCES games (id),
    seq INTEGER NOT NULL,
    user_id INTEGER,
    code TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE matches (
    game_id INTEGER PRIMARY KEY REFERENCES games (id),
    chat_id INTEGER NOT NULL,
    players INTEGER NOT NULL,
    target INTEGER NOT NULL,
    flor INTEGER NOT NULL,
    house_rule INTEGER NOT NULL,
    outcome TEXT NOT NULL CHECK (outcome IN ('won', 'conceded', 'cancelled')),
    winner_side INTEGER,
    score0 INTEGER NOT NULL,
    score1 INTEGER NOT NULL,
    hands INTEGER NOT NULL,
    started_at REAL,
    ended_at REAL NOT NULL
);
CREATE INDEX matches_chat_ended ON matches (chat_id, ended_at);
CREATE TABLE match_players (
    game_id INTEGER NOT NULL REFERENCES matches (game_id),
    seat INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    side INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX match_players_user ON match_players (user_id)
""",
]

MIGRATIONS.append(
    """
CREATE TABLE ratings (
    chat_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    matches INTEGER NOT NULL,
    streak INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (chat_id, user_id)
);
CREATE TABLE player_match_stats (
    game_id INTEGER NOT NULL REFERENCES matches (game_id),
    user_id INTEGER NOT NULL,
    envidos_wanted INTEGER NOT NULL,
    envidos_won INTEGER NOT NULL,
    best_envido INTEGER NOT NULL,
    flores INTEGER NOT NULL,
    trucos_chanted INTEGER NOT NULL,
    trucos_won INTEGER NOT NULL,
    mazos INTEGER NOT NULL,
    points_for INTEGER NOT NULL,
    points_against INTEGER NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
CREATE INDEX player_match_stats_user ON player_match_stats (user_id);
ALTER TABLE match_players ADD COLUMN rating_before REAL;
ALTER TABLE match_players ADD COLUMN rating_after REAL;
CREATE INDEX matches_chat_outcome ON matches
    (chat_id, outcome, players, ended_at, winner_side, score0, score1);
CREATE INDEX match_players_game_side ON match_players (game_id, side, user_id)
"""
)

MIGRATIONS.append(
    """
ALTER TABLE games ADD COLUMN turn_seconds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN deadline REAL;
ALTER TABLE games ADD COLUMN strikes TEXT NOT NULL DEFAULT '[0, 0]'
"""
)

MIGRATIONS.append(
    """
CREATE TABLE outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id INTEGER NOT NULL,
    priority INTEGER NOT NULL,
    kind TEXT NOT NULL,
    key TEXT,
    payload TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 1,
    done INTEGER NOT NULL DEFAULT 0,
    loud INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL
);
CREATE UNIQUE INDEX outbox_key ON outbox (chat_id, key) WHERE key IS NOT NULL;
CREATE INDEX outbox_lane ON outbox (chat_id, priority, id);
CREATE TABLE lanes (
    chat_id INTEGER PRIMARY KEY,
    owner TEXT,
    lease_until REAL NOT NULL DEFAULT 0,
    next_at REAL NOT NULL DEFAULT 0
);
ALTER TABLE games ADD COLUMN join_token TEXT;
CREATE UNIQUE INDEX games_join_token ON games (join_token)
"""
)

MIGRATIONS.append(
    """
ALTER TABLE matches ADD COLUMN bots INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN vacated INTEGER
"""
)

MIGRATIONS.append(
    """
ALTER TABLE games ADD COLUMN reminded INTEGER
"""
)

MIGRATIONS.append(
    """
ALTER TABLE games ADD COLUMN acted TEXT NOT NULL DEFAULT '{}'
"""
)

MIGRATIONS.append(
    """
ALTER TABLE games ADD COLUMN seed TEXT
"""
)

MIGRATIONS.append(
    """
ALTER TABLE games ADD COLUMN rematch_of BIGINT
"""
)

# The table version an outbox row was last written for: a worker that has that version of the
# table in memory (it committed it) renders the row without reading the table again.
MIGRATIONS.append(
    """
ALTER TABLE outbox ADD COLUMN stamp INTEGER NOT NULL DEFAULT 0
"""
)

# The core's table keeps no front end's bookkeeping: each front end keeps its own records of a
# table (Telegram: its messages' ids, the token of its join links) in `front_records`; the
# match's outcome is one typed value (`bot.model.outcome`). What open tables had moves over.
MIGRATIONS.append(
    (
        """
ALTER TABLE games ADD COLUMN outcome TEXT;
ALTER TABLE matches ADD COLUMN termination TEXT;
CREATE TABLE front_records (
    front TEXT NOT NULL,
    table_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (front, table_id, name)
);
CREATE INDEX front_records_value ON front_records (front, name, value);
INSERT INTO front_records (front, table_id, name, value)
    SELECT 'telegram', id, 'board', CAST(message_id AS TEXT) FROM games
    WHERE message_id IS NOT NULL AND status IN ('lobby', 'playing');
INSERT INTO front_records (front, table_id, name, value)
    SELECT 'telegram', id, 'join', join_token FROM games
    WHERE join_token IS NOT NULL AND status IN ('lobby', 'playing');
{hands};
DROP INDEX games_join_token;
ALTER TABLE games DROP COLUMN join_token;
ALTER TABLE games DROP COLUMN message_id;
ALTER TABLE games DROP COLUMN hand_messages
""",
        {
            "sqlite": "INSERT INTO front_records (front, table_id, name, value)"
            " SELECT 'telegram', g.id, 'hand:' || j.key, CAST(j.value AS TEXT)"
            " FROM games g, json_each(g.hand_messages) j WHERE g.status IN ('lobby', 'playing')",
            "postgresql": "INSERT INTO front_records (front, table_id, name, value)"
            " SELECT 'telegram', g.id, 'hand:' || j.key, j.value"
            " FROM games g, jsonb_each_text(g.hand_messages::jsonb) j"
            " WHERE g.status IN ('lobby', 'playing')",
        },
    )
)

# Tournaments (`bot.league.tournament`): one open per group topic, its state as JSON; each of its
# matches is a table tagged with the tie and match it plays (unique: two workers never open one
# twice), and a tournament's tables are not the topic's one open table.
MIGRATIONS.append(
    """
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id INTEGER NOT NULL,
    thread_id INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL CHECK (status IN ('signup', 'running', 'finished', 'cancelled')),
    opener_id INTEGER NOT NULL,
    language TEXT NOT NULL,
    data TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE UNIQUE INDEX tournaments_one_open_per_topic ON tournaments (chat_id, thread_id)
    WHERE status IN ('signup', 'running');
CREATE INDEX tournaments_chat ON tournaments (chat_id, status);
ALTER TABLE games ADD COLUMN tournament TEXT;
CREATE UNIQUE INDEX games_tournament ON games (tournament) WHERE tournament IS NOT NULL;
DROP INDEX games_one_open_per_topic;
CREATE UNIQUE INDEX games_one_open_per_topic ON games (chat_id, thread_id)
    WHERE status IN ('lobby', 'playing') AND tournament IS NULL
"""
)

# Computer players that teach and remember (`bot.ai.hints`, `bot.ai.personas`): a table's 💡
# option, who asked for a hint (such a match is marked so and moves nobody's rating), the step a
# person handed to their computer partner; and what difícil learned of each person, per group
# (`rivals`, bounded per group by `bot.storage.rivals`).
MIGRATIONS.append(
    """
ALTER TABLE games ADD COLUMN hints INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN hinted TEXT NOT NULL DEFAULT '[]';
ALTER TABLE games ADD COLUMN handed INTEGER;
ALTER TABLE matches ADD COLUMN hinted INTEGER NOT NULL DEFAULT 0;
CREATE TABLE rivals (
    chat_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    belief TEXT NOT NULL,
    matches INTEGER NOT NULL DEFAULT 0,
    seen_at REAL NOT NULL,
    PRIMARY KEY (chat_id, user_id)
);
CREATE INDEX rivals_seen ON rivals (chat_id, seen_at)
"""
)

# Who ever acted at a table by their own hand (`Table.came`: a tournament's walkover is a side
# none of whose people did); a row from before it (NULL) reads as the people `acted` holds.
MIGRATIONS.append(
    """
ALTER TABLE games ADD COLUMN came TEXT
"""
)

# A review after the match (`bot.ai.review`): each person's, computed once when they first ask
# and kept as JSON (`bot.storage.reviews`); the user's index reads their reviewed matches for /yo.
MIGRATIONS.append(
    """
CREATE TABLE reviews (
    game_id INTEGER NOT NULL REFERENCES games (id),
    user_id INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    data TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
CREATE INDEX reviews_user ON reviews (user_id, created_at)
"""
)

# The senders alive now (`bot.service.mailbox`): each renews its row while it runs, and the
# bot's overall budget of Bot API calls is split among those whose row is alive (a sender that
# died without a word gives its share up when its row expires).
MIGRATIONS.append(
    """
CREATE TABLE senders (
    owner TEXT PRIMARY KEY,
    alive_until REAL NOT NULL
)
"""
)

# One vocabulary of how a match ended: the model's `Termination` (`matches.termination`, with
# `winner_side`); the older words of `matches.outcome` ('won', 'conceded', 'cancelled') are gone.
# A record from before `termination` was kept reads as its old word said it ('conceded' could
# not tell a concession from timeouts then: a concession).
MIGRATIONS.append(
    """
UPDATE matches SET termination = CASE outcome WHEN 'won' THEN 'target'
    WHEN 'cancelled' THEN 'cancelled' ELSE 'concession' END WHERE termination IS NULL;
DROP INDEX matches_chat_outcome;
ALTER TABLE matches DROP COLUMN outcome;
CREATE INDEX matches_chat_termination ON matches
    (chat_id, termination, players, ended_at, winner_side, score0, score1)
"""
)

# Each live sender's load (`demand`: the calls it made in the last window and those waiting for
# the budget) and the part of the bot's budget it may be using (`share`, calls a second): the
# budget is split by load, each taking only what the others' shares leave free.
MIGRATIONS.append(
    """
ALTER TABLE senders ADD COLUMN demand REAL NOT NULL DEFAULT 0;
ALTER TABLE senders ADD COLUMN share REAL NOT NULL DEFAULT 0
"""
)

# The line of full lobbies waiting to start while the bot carries as many matches as Telegram's
# budget allows (`bot.service.admission`): when each joined it (kept once the match starts).
MIGRATIONS.append(
    """
ALTER TABLE games ADD COLUMN queued REAL;
CREATE INDEX games_line ON games (queued, id) WHERE status = 'lobby' AND queued IS NOT NULL
"""
)

# A match is its rules, its seal and its action log; `games.state` is only a cache of the state
# the log replays to (`bot.storage.snapshots`, which says which format wrote a snapshot and how
# many actions it saw). The snapshots of the old shapes go: each match is replayed from its log
# when next read, and its snapshot written again at its next save. The rules a group's defaults,
# a table or a tournament stored under the house rule's old name ("house") take its name.
MIGRATIONS.append(
    (
        """
UPDATE games SET state = NULL WHERE state IS NOT NULL;
{chats};
{games};
{tournaments}
""",
        {
            "sqlite": {
                "chats": "UPDATE chats SET defaults = json_remove(json_insert(defaults,"
                " '$.mazo_penalty', json(CASE WHEN json_extract(defaults, '$.house')"
                " THEN 'true' ELSE 'false' END)), '$.house')"
                " WHERE json_type(defaults, '$.house') IS NOT NULL",
                "games": "UPDATE games SET config = json_remove(json_insert(config,"
                " '$.mazo_penalty', json(CASE WHEN json_extract(config, '$.house')"
                " THEN 'true' ELSE 'false' END)), '$.house')"
                " WHERE json_type(config, '$.house') IS NOT NULL",
                "tournaments": "UPDATE tournaments SET data = json_remove(json_insert(data,"
                " '$.config.mazo_penalty', json(CASE WHEN json_extract(data, '$.config.house')"
                " THEN 'true' ELSE 'false' END)), '$.config.house')"
                " WHERE json_type(data, '$.config.house') IS NOT NULL",
            },
            "postgresql": {
                "chats": "UPDATE chats SET defaults = jsonb_set(defaults::jsonb - 'house',"
                " '{mazo_penalty}', COALESCE(defaults::jsonb -> 'mazo_penalty',"
                " defaults::jsonb -> 'house'))::text WHERE defaults::jsonb -> 'house' IS NOT NULL",
                "games": "UPDATE games SET config = jsonb_set(config::jsonb - 'house',"
                " '{mazo_penalty}', COALESCE(config::jsonb -> 'mazo_penalty',"
                " config::jsonb -> 'house'))::text WHERE config::jsonb -> 'house' IS NOT NULL",
                "tournaments": "UPDATE tournaments SET data = jsonb_set(data::jsonb"
                " #- '{config,house}', '{config,mazo_penalty}', COALESCE(data::jsonb"
                " #> '{config,mazo_penalty}', data::jsonb #> '{config,house}'))::text"
                " WHERE data::jsonb #> '{config,house}' IS NOT NULL",
            },
        },
    )
)

# Each live sender's calls waiting for the budget by rank ("3,0,12,40": the turns to show, the
# tappers', the boards, everyone else's hands): the budget is split rank by rank.
MIGRATIONS.append(
    """
ALTER TABLE senders ADD COLUMN queued TEXT NOT NULL DEFAULT ''
"""
)

# The señas of a match, made, seen and caught: part of the match, as its calls are (every
# worker and a restarted bot know them; a replay shows them).
MIGRATIONS.append(
    """
ALTER TABLE games ADD COLUMN signs TEXT NOT NULL DEFAULT '[]'
"""
)

# Where each person's hand lives at a group's table, by their choice (NULL: none made): in the
# group, seen by them alone (Telegram's ephemeral messages), or in their private chat.
MIGRATIONS.append(
    """
ALTER TABLE players ADD COLUMN hand_place TEXT
"""
)

# Tournaments are numbered in each group (what its messages say: a group's first is its #1);
# `id` stays what every button, link and table tag carries. Those made before get theirs in
# each group in the order they were made.
MIGRATIONS.append(
    """
ALTER TABLE tournaments ADD COLUMN number INTEGER NOT NULL DEFAULT 0;
UPDATE tournaments SET number = (SELECT count(*) FROM tournaments AS earlier
    WHERE earlier.chat_id = tournaments.chat_id AND earlier.id <= tournaments.id);
CREATE UNIQUE INDEX tournaments_number ON tournaments (chat_id, number)
"""
)

# La mano del día (`bot.storage.daily`): a group's hour for it (NULL: off; kept beside its
# defaults, where /config writes it, so the sweep finds the groups that want one) and when it
# was chosen (an hour passed before it was chosen is not due that day), each hand
# posted (one a group and day), each person's answer (the first one counts), and who lets a
# decision of theirs be shown with their name.
MIGRATIONS.append(
    """
ALTER TABLE chats ADD COLUMN daily_hour INTEGER;
ALTER TABLE chats ADD COLUMN daily_set_at REAL;
CREATE TABLE daily_hands (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id INTEGER NOT NULL,
    day TEXT NOT NULL,
    source TEXT NOT NULL,
    game_id INTEGER,
    user_id INTEGER,
    data TEXT NOT NULL,
    language TEXT NOT NULL,
    posted_at REAL NOT NULL,
    closes_at REAL NOT NULL,
    closed_at REAL,
    UNIQUE (chat_id, day)
);
CREATE INDEX daily_hands_open ON daily_hands (closes_at) WHERE closed_at IS NULL;
CREATE INDEX daily_hands_chat ON daily_hands (chat_id, posted_at);
CREATE TABLE daily_answers (
    hand_id INTEGER NOT NULL REFERENCES daily_hands (id),
    user_id INTEGER NOT NULL,
    choice INTEGER NOT NULL,
    right_choice INTEGER NOT NULL,
    answered_at REAL NOT NULL,
    PRIMARY KEY (hand_id, user_id)
);
CREATE INDEX daily_answers_user ON daily_answers (user_id, hand_id);
CREATE TABLE daily_named (
    user_id INTEGER PRIMARY KEY,
    named INTEGER NOT NULL
)
"""
)

# A review answered first (`bot.storage.reviews`): each costly moment a person was asked, whether
# their first answer was right, and when a missed one comes back (spaced: its box, its due time;
# NULL once learned).
MIGRATIONS.append(
    """
CREATE TABLE review_answers (
    user_id INTEGER NOT NULL,
    game_id INTEGER NOT NULL REFERENCES games (id),
    step INTEGER NOT NULL,
    first_right INTEGER NOT NULL,
    box INTEGER NOT NULL,
    due_at REAL,
    answered_at REAL NOT NULL,
    PRIMARY KEY (user_id, game_id, step)
);
CREATE INDEX review_answers_due ON review_answers (user_id, due_at) WHERE due_at IS NOT NULL
"""
)
