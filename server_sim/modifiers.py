"""Parts of a statement that change no result, or that the simulator does not model, dealt
with before the statement is classified: planner and buffering modifiers after SELECT and
DELETE, `/*+ ... */` optimizer hints, `FROM DUAL`, and partition selection."""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

from .errors import not_supported
from .syntax import syntax_error

_MYSQL = sqlglot.Dialect.get_or_raise("mysql")

# Words after SELECT, UPDATE or DELETE that change no result, only how the server plans or
# buffers the statement: taken out before sqlglot reads it (which would take SQL_NO_CACHE
# for a column), the statement logged as sent. Those that change how MyISAM's table locks
# queue (LOW_PRIORITY, HIGH_PRIORITY, after INSERT too) are not modelled.
_NEUTRAL_MODIFIERS = {
    "SELECT": frozenset({"STRAIGHT_JOIN", "SQL_SMALL_RESULT", "SQL_BIG_RESULT", "SQL_BUFFER_RESULT", "SQL_CACHE", "SQL_NO_CACHE"}),
    "DELETE": frozenset({"QUICK"}),
}
_QUEUEING_MODIFIERS = frozenset({"LOW_PRIORITY", "HIGH_PRIORITY"})
_SELECT_OPTIONS = frozenset({"DISTINCT", "DISTINCTROW", "ALL", "SQL_CALC_FOUND_ROWS"})
_MODIFIER_HINTS = ("STRAIGHT_JOIN", "SQL_", "QUICK", "PRIORITY")


def without_neutral_modifiers(source: str) -> str:
    """`source` without the result-neutral modifiers of its SELECTs and DELETE; 1235 for a
    LOW_PRIORITY or HIGH_PRIORITY one of any statement."""
    upper = source.upper()
    if not any(word in upper for word in _MODIFIER_HINTS):
        return source
    try:
        tokens = _MYSQL.tokenize(source)
    except TokenError:
        return source  # the parser reports it
    cuts: list[Token] = []
    for index, token in enumerate(tokens):
        verb = token.text.upper()
        if verb not in ("SELECT", "INSERT", "UPDATE", "DELETE") or token.token_type in (TokenType.STRING, TokenType.IDENTIFIER):
            continue
        for following in tokens[index + 1 :]:
            word = following.text.upper() if following.token_type is not TokenType.IDENTIFIER else ""
            if word in _QUEUEING_MODIFIERS:
                raise not_supported(f"{verb} {word} (MyISAM's lock queueing)")
            if verb == "SELECT" and word in _SELECT_OPTIONS:
                continue  # DISTINCT and friends may come between the modifiers
            if word not in _NEUTRAL_MODIFIERS.get(verb, ()):
                break
            cuts.append(following)
    for token in reversed(cuts):
        source = source[: token.start] + source[token.end + 1 :]
    return source


def without_delete_target_stars(source: str) -> str:
    """A multi-table DELETE's targets without the optional `.*` the servers allow after
    each (`DELETE t2.* FROM t2, t5 ...`, `DELETE FROM t2.* USING ...`): the same tables,
    in a form sqlglot reads. The statement is logged as sent."""
    if source.lstrip()[:6].upper() != "DELETE" or ".*" not in source.replace(" ", ""):
        return source
    try:
        tokens = _MYSQL.tokenize(source)
    except TokenError:
        return source  # the parser reports it
    kinds = [token.token_type for token in tokens]
    if TokenType.FROM not in kinds:
        return source
    first_from = kinds.index(TokenType.FROM)
    # DELETE targets FROM ..., or DELETE FROM targets USING ...
    start, end = (first_from, kinds.index(TokenType.USING)) if TokenType.USING in kinds else (0, first_from)
    cuts = [
        (tokens[index].start, tokens[index + 1].end + 1)
        for index in range(start, end - 1)
        if kinds[index] is TokenType.DOT and kinds[index + 1] is TokenType.STAR
    ]
    for start, end in reversed(cuts):
        source = source[:start] + source[end:]
    return source


def without_optimizer_hints(tree: exp.Expression) -> None:
    """Drop `/*+ ... */` optimizer hints, which choose plans, not results; SET_VAR, which
    sets a variable for the statement, is not modelled."""
    for hint in list(tree.find_all(exp.Hint)):
        for call in hint.expressions:
            if isinstance(call, exp.Func) and (call.name if isinstance(call, exp.Anonymous) else call.sql_name()).upper() == "SET_VAR":
                raise not_supported("the SET_VAR optimizer hint (a variable set for one statement)")
        hint.pop()


def refuse_partition_selection(tree: exp.Expression) -> None:
    """`t PARTITION (p0)`: the simulator has no partitioned tables, so a partition list is
    refused rather than read as the whole table."""
    partition = tree.find(exp.Partition)
    if partition is not None:
        raise not_supported(f"partition selection {partition.sql(dialect='mysql')!r}")


def without_dual(tree: exp.Expression, text: str) -> None:
    """`SELECT ... FROM DUAL`: DUAL (unquoted, the only table) is MySQL's name for no table
    at all, as in `INSERT INTO t SELECT ... FROM DUAL WHERE NOT EXISTS (...)`. DUAL beside
    another table is a syntax error (a reserved word): near what follows it where it comes
    first (`FROM dual, t`), near it elsewhere (`FROM t, dual`)."""
    for select in tree.find_all(exp.Select):
        source = select.args.get("from_")
        table = source.this if source is not None else None
        if _is_dual(table) and not select.args.get("joins") and not table.args.get("alias"):
            select.set("from_", None)
    for table in tree.find_all(exp.Table):
        if _is_dual(table):
            match = re.search(r"\bdual\b", text, re.IGNORECASE)
            first = isinstance(table.parent, exp.From)
            if match is None:
                raise syntax_error(text, len(text))
            following = match.end() + len(text[match.end():]) - len(text[match.end():].lstrip())
            raise syntax_error(text, following if first else match.start())


def _is_dual(table: exp.Expression | None) -> bool:
    return isinstance(table, exp.Table) and not table.db and isinstance(table.this, exp.Identifier) and not table.this.quoted and table.name.upper() == "DUAL"