"""What an implementation of the function library raises where the server's result is one
the simulator does not model, and how DuckDB carries it back: either evaluator reports it
as 1235 naming what."""

from __future__ import annotations

# The marker DuckDB's error text carries when an implementation raised Unmodelled.
UNMODELLED_MARKER = "rpl-unmodelled: "


class Unmodelled(ValueError):
    """The server's result here is one the simulator does not model (a warning, a
    collation's comparison of non-ASCII text): refused with 1235 naming it."""

    def __init__(self, what: str) -> None:
        super().__init__(UNMODELLED_MARKER + what + UNMODELLED_MARKER)
        self.what = what


def unmodelled_in(text: str) -> str | None:
    """What an implementation refused, from the text of the error DuckDB raised for it."""
    if UNMODELLED_MARKER not in text:
        return None
    return text.split(UNMODELLED_MARKER)[1]
