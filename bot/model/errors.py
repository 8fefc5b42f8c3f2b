"""Faults the core can meet that are nobody's mistake."""


class Unavailable(Exception):
    """The database will not take a write now (locked by another process past its wait, full,
    read-only, or a transaction the server broke): nothing of the transaction happened; it may
    work in a moment."""
