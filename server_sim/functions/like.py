"""`x LIKE pattern [ESCAPE 'c']` as the servers match it (Item_func_like, my_wildcmp).

Three things DuckDB's LIKE does otherwise, each a silently different answer:
- the escape character: the servers' default is backslash (`'a_b' LIKE 'a\\_b'`),
  DuckDB has none unless told;
- an escape character that ends the pattern is itself matched (DuckDB raises an error);
- collation: two strings that come from no column compare under collation_connection,
  which ignores case and accents (`'ABC' LIKE 'a%'` is 1); DuckDB's literals compare
  exactly. A column's own collation decides where one takes part (DuckDB carries the
  column's collation through the functions of it). Trailing spaces count in LIKE,
  whatever the collation's padding.

x of any type is matched by its text. NO_BACKSLASH_ESCAPES (no default escape) is refused
where the sql_mode is set (server_sim/sysvars.py).
"""

from __future__ import annotations

import re

from sqlglot import exp

from ..errors import ErrorCode, SqlError, not_supported
from ..types import TypeFamily
from .library import SqlFunction, Translating

_DEFAULT_ESCAPE = "\\"
_WILDCARDS = ("%", "_")


def _like(node: exp.Expression, translation: Translating) -> exp.Expression:
    """`x LIKE pattern` with the default escape character."""
    return _matched(node, _DEFAULT_ESCAPE, translation)


def _escape(node: exp.Expression, translation: Translating) -> exp.Expression:
    """`x LIKE pattern ESCAPE c`: c must be one character. NULL is backslash, '' no escape
    character at all in MySQL (eval_escape_clause) and backslash in MariaDB."""
    like, character = node.this, node.expression
    if not isinstance(like, exp.Like):
        raise not_supported(f"ESCAPE in {node.sql(dialect='mysql')!r}")
    if isinstance(character, exp.Null):
        return _matched(like, _DEFAULT_ESCAPE, translation)
    if not (isinstance(character, exp.Literal) and character.is_string):
        raise not_supported(f"an ESCAPE character that is no string literal ({character.sql(dialect='mysql')})")
    if len(character.name) > 1:
        raise SqlError(ErrorCode.ER_WRONG_ARGUMENTS, "ESCAPE")
    if character.name in _WILDCARDS:
        raise not_supported(f"the wildcard {character.name!r} as LIKE's ESCAPE character")
    if not character.name:
        return _matched(like, _DEFAULT_ESCAPE if translation.context.flavor.empty_like_escape_is_backslash else None, translation)
    return _matched(like, character.name, translation)


def _matched(like: exp.Like, escape: str | None, translation: Translating) -> exp.Expression:
    """The DuckDB match of `like`: like_escape(text, pattern, escape), or LIKE without one."""
    left, right = like.this, like.expression
    text = translation.rewrite(left)
    if not _is_string(left):
        text = exp.cast(text, exp.DataType.build("VARCHAR"))
    written = _literal_text(right)
    if written is not None:
        pattern: exp.Expression = exp.Literal.string(_doubled_end(written, escape))
    else:
        pattern = exp.cast(translation.rewrite(right), exp.DataType.build("VARCHAR"))
        if escape is not None:
            quoted = re.escape(escape)
            lone_end = exp.Literal.string(f"(^|[^{quoted}])((?:{quoted}{quoted})*){quoted}$")
            doubled = exp.Literal.string("\\1\\2" + escape.replace("\\", "\\\\") * 2)  # RE2's rewrite text escapes a backslash
            pattern = exp.Anonymous(this="regexp_replace", expressions=[pattern, lone_end, doubled])
    if not _decided_by_a_column(like, translation):
        if isinstance(pattern, exp.Literal):
            pattern = translation.connection_collated(pattern, pads=False)
        elif _is_string(left):
            text = translation.connection_collated(left.copy(), pads=False)
        else:
            raise not_supported(f"LIKE of two computed strings under collation_connection ({like.sql(dialect='mysql')!r})")
    if escape is None:
        matched: exp.Expression = exp.Like(this=text, expression=pattern)
    else:
        matched = exp.Anonymous(this="like_escape", expressions=[text, pattern, exp.Literal.string(escape)])
    return exp.Not(this=matched) if like.args.get("negate") else matched  # sqlglot's NOT LIKE


def _is_string(node: exp.Expression) -> bool:
    return isinstance(node, exp.Literal) and node.is_string


def _literal_text(node: exp.Expression) -> str | None:
    """A literal pattern's text: a string's, or an exact number's digits as written (a
    float's text is the server's formatting of it: not a literal pattern here)."""
    if isinstance(node, exp.Literal) and (node.is_string or not any(c in node.name for c in "eE")):
        return node.name
    return None


def _decided_by_a_column(like: exp.Like, translation: Translating) -> bool:
    """Whether a text column takes part in the match, so that its collation decides it
    (DuckDB's, a _bin column's exact one included); a number's or a date's text compares
    under collation_connection, as a string from no column does."""
    for column in like.find_all(exp.Column):
        declared = translation.column_type(column)
        if declared is None or declared.family not in _UNCOLLATED:
            return True  # unknown (an alias, a derived table's column): DuckDB's collation of it
    return False


def _doubled_end(pattern: str, escape: str | None) -> str:
    """The pattern with a lone escape character at its end doubled: the servers match it
    as itself (my_wildcmp), DuckDB refuses such a pattern (the regexp_replace above does
    the same to a pattern known only when the row is read)."""
    if escape is None:
        return pattern
    trailing = len(pattern) - len(pattern.rstrip(escape))
    return pattern + escape if trailing % 2 else pattern


# Column types whose text is no collated string: numbers, dates and times, BIT.
_UNCOLLATED = (TypeFamily.INTEGER, TypeFamily.DECIMAL, TypeFamily.FLOAT, TypeFamily.DATE, TypeFamily.DATETIME, TypeFamily.TIME, TypeFamily.YEAR, TypeFamily.BIT)


LIKE: tuple[SqlFunction, ...] = (
    SqlFunction(nodes=(exp.Like,), duckdb=_like),
    SqlFunction(nodes=(exp.Escape,), duckdb=_escape),
)
