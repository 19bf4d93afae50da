"""The collation of the simulated servers' text columns, written once.

MySQL's default collations ignore case and accents; DuckDB stores text columns with
NOACCENT.NOCASE for that. Python compares text exactly as that collation does only for
ASCII, by its lower case; any other text raises `Declined` and DuckDB compares it. The
storage's unique-key checks and the compiled conditions and orders both key text here,
so the two cannot disagree about which strings are equal or how they order.
"""

from __future__ import annotations

from .declined import Declined

# The DuckDB collation of every text column (types.ColumnType.duckdb_type).
DUCKDB_COLLATION = "NOACCENT.NOCASE"


def compared_by_the_rule(collation: str) -> bool:
    """Whether text under `collation` compares as this module's one rule says (case
    ignored): the servers' default collations and the other _ci ones. A _bin collation
    compares code points (`compares_exactly`); a _cs one, which orders neither way, is
    refused where a column is defined with it."""
    return not collation.endswith(("_bin", "_cs"))


def compares_exactly(collation: str | None) -> bool:
    """A _bin collation of a Unicode charset or ascii: text compares and orders by its code
    points, as DuckDB compares text without a collation (and Python's str). latin1_bin
    orders by latin1's bytes, which is another order for Windows-1252's 0x80-0x9F."""
    return collation is not None and collation.endswith("_bin") and not collation.startswith("latin1")


def pads_spaces(collation: str | None) -> bool:
    """Whether a collation is PAD SPACE: it compares text as if trailing spaces were not
    there ('a ' = 'a'), as every collation does but MySQL's UCA 9.0.0 ones (utf8mb4's
    default, _0900_) and MariaDB's _nopad_ ones. DuckDB compares every character, so a
    value with trailing spaces in such a column, or compared with one, is refused (1235)."""
    return collation is not None and "_0900_" not in collation and "_nopad_" not in collation


def text_key(text: str) -> str:
    """What text compares as under the collation: ASCII by its lower case; other text, and
    text ending in a space (a PAD SPACE collation ignores it), is DuckDB's (Declined)."""
    if not text.isascii() or text.endswith(" "):
        raise Declined
    return text.lower()


def equality_key(value: object) -> object:
    """What a column value is equal by: text its `text_key`; numbers, dates and bytes were
    coerced to the column's type, so Python's equality is DuckDB's."""
    if isinstance(value, str):
        if not value.isascii() or value.endswith(" "):
            raise Declined
        return value.lower()
    return value


def ordered_key(value: object, text: bool) -> tuple:
    """A sort key in MySQL's order: NULL before every value, text under the collation."""
    if value is None:
        return (0,)
    return (1, text_key(value) if text else value)  # type: ignore[arg-type]


def without_collation(duckdb_type: str) -> str:
    """A column's DuckDB type without its collation, which a CAST does not take."""
    return duckdb_type.split(" COLLATE ")[0]
