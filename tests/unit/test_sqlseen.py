"""tests/sqlseen.py, the check that PostgreSQL ran every statement the bot sent to SQLite: what
it counts as one statement, and what it reports."""

from __future__ import annotations

from tests.sqlseen import Recorder, _shape, unsent


def test_a_run_of_placeholders_is_one_statement_and_a_literal_is_not_a_placeholder() -> None:
    text, groups = _shape(
        "SELECT *  FROM t\n WHERE a = ? AND b IN (?, ?,?) AND c = 'x?, ?' AND d = ?"
    )
    assert text == "SELECT * FROM t WHERE a = ? AND b IN (?…) AND c = 'x?, ?' AND d = ?"
    assert groups == (0, 1, 1, 1, 2)
    one, two = _shape("SELECT * FROM t WHERE b IN (?)"), _shape("SELECT * FROM t WHERE b IN (?, ?)")
    assert one[0] == two[0] and one[1] == (0,) and two[1] == (0, 0)


def test_what_sqlite_had_and_postgresql_did_not_is_reported_with_who_sent_it() -> None:
    seen = Recorder()
    seen.test = "tests/a.py::test_one"
    seen.note("sqlite", "SELECT * FROM t WHERE a = ? AND b IN (?, ?)", [(1, "x", "y")])
    seen.note("sqlite", "UPDATE t SET a = ? WHERE id = ?", [(1.5, 7), (None, 8)])
    seen.note("sqlite", "DELETE FROM t WHERE id = ?", [(3,)])
    seen.note("sqlite", "PRAGMA journal_mode", [()])  # (SQLite's own: not asked of PostgreSQL)
    seen.test = "tests/b.py::test_two"
    seen.note("sqlite", "DELETE FROM t WHERE id = ?", [(4,)])
    # PostgreSQL: the first with a longer list (the same statement), the second with an integer
    # where SQLite had a float (None is no kind), the third not at all.
    seen.note("postgresql", "SELECT * FROM t WHERE a = ? AND b IN (?, ?, ?)", [(2, "a", "b", "c")])
    seen.note("postgresql", "UPDATE t SET a = ? WHERE id = ?", [(None, 9), (2, 9)])
    assert unsent(seen) == [
        ("DELETE FROM t WHERE id = ?", [], ["tests/a.py::test_one", "tests/b.py::test_two"]),
        ("UPDATE t SET a = ? WHERE id = ?", [(0, "float")], ["tests/a.py::test_one"]),
    ]
    seen.note("postgresql", "DELETE FROM t WHERE id = ?", [(5,)])
    seen.note("postgresql", "UPDATE t SET a = ? WHERE id = ?", [(2.5, 9)])
    assert unsent(seen) == []


def test_a_statement_postgresql_ran_inside_a_larger_one_counts_with_its_arguments_there() -> None:
    seen = Recorder()
    seen.note("sqlite", "UPDATE g SET a = ?, b = ? WHERE id = ?", [(1, 2.5, 3)])
    seen.note("sqlite", "INSERT INTO x (a) VALUES (?)", [("s",)])
    seen.note(
        "postgresql",
        "WITH n AS (SELECT ?), u AS (UPDATE g SET a = ?, b = ? WHERE id = ? RETURNING id)"
        " INSERT INTO x (a) VALUES (?)",
        [("n", 1, None, 3, 7)],
    )
    # b had a float on SQLite, nothing there; x.a a string on SQLite, an integer there
    assert unsent(seen) == [
        ("INSERT INTO x (a) VALUES (?)", [(0, "str")], [""]),
        ("UPDATE g SET a = ?, b = ? WHERE id = ?", [(1, "float")], [""]),
    ]
