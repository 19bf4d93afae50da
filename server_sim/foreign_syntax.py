"""Syntax of other dialects that sqlglot's MySQL dialect reads and neither server does
(DuckDB's and PostgreSQL's mostly): refused with the server's 1064 "near '...'" rather
than run. `1::TEXT`, `[1, 2]`, `{'a': 1}`, `'a' ~~ 'b'`, `IN (1, 2,)` and `NULLS FIRST`
are found by token, only in a statement whose text holds their characters; `GROUP BY ALL`,
`SELECT * EXCLUDE (...)`, `UNION BY NAME`, `BETWEEN SYMMETRIC`, `TRY_CAST`, `ILIKE`,
`CAST(x AS TEXT)` and the like by the tree sqlglot made of them. The near text is the
one MariaDB 10.11 gives (checked on the server): where the servers read a foreign keyword
as an alias, it starts after that word.
"""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

from .errors import SqlError, not_supported
from .syntax import syntax_error

_MYSQL = sqlglot.Dialect.get_or_raise("mysql")

# Characters whose presence makes a statement worth tokenizing for foreign tokens.
_TOKEN_HINTS = ("::", "[", "{", "~", "NULLS", "nulls", "Nulls")
_TRAILING_COMMA = re.compile(r",\s*\)")
_FROM_FIRST = re.compile(r"[\s(]*(FROM)\b", re.IGNORECASE)  # DuckDB's FROM t SELECT ...

# Types neither server takes in CAST(x AS type) or CONVERT(x, type) (both parse
# BINARY, CHAR, DATE, DATETIME, DECIMAL, DOUBLE, FLOAT, SIGNED, TIME, UNSIGNED).
_CAST_TYPES_REFUSED = frozenset(
    {
        "TEXT", "TINYTEXT", "MEDIUMTEXT", "LONGTEXT", "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB",
        "BIGINT", "SMALLINT", "TINYINT", "MEDIUMINT", "HUGEINT", "UBIGINT", "BOOLEAN", "BOOL",
        "TIMESTAMP", "TIMESTAMPTZ", "NUMERIC", "FIXED", "VARBINARY", "NVARCHAR", "VARCHAR2",
        "STRING", "BIT", "ENUM", "SET", "BYTEA", "BLOB", "INTERVAL", "LIST", "STRUCT", "MAP",
    }
)


def refuse_foreign_syntax(text: str, tree: exp.Expression) -> None:
    """1064 at the first construct of `tree` (parsed from `text`) that neither server parses."""
    from_first = _FROM_FIRST.match(text)
    if from_first:
        raise syntax_error(text, from_first.start(1))
    if any(hint in text for hint in _TOKEN_HINTS) or _TRAILING_COMMA.search(text):
        _refuse_foreign_tokens(text)
    upper = text.upper()
    if "CAST" in upper or "CONVERT" in upper:
        _refuse_foreign_cast_types(text)
    for node in tree.find_all(*_FOREIGN_NODES):
        error = _foreign_node(text, node) or _foreign_operator(text, node)
        if error is not None:
            raise error
    if "$" in text:
        _quote_dollar_names(tree)


def _quote_dollar_names(tree: exp.Expression) -> None:
    """`$$x$$`, `$1`, `$x` are names to the servers (a `$` is a name's character), and
    strings or parameters to DuckDB: quoted, they stay names wherever they are sent."""
    for identifier in tree.find_all(exp.Identifier):
        if not identifier.quoted and "$" in identifier.name:
            identifier.set("quoted", True)


def _tokens(text: str) -> list[Token]:
    try:
        return _MYSQL.tokenize(text)
    except TokenError:
        return []  # the parser reports it


def _refuse_foreign_tokens(text: str) -> None:
    tokens = _tokens(text)
    for index, token in enumerate(tokens):
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if token.token_type in (TokenType.DCOLON, TokenType.L_BRACKET):
            raise syntax_error(text, token.start)
        if token.token_type is TokenType.L_BRACE:
            if following is not None and following.token_type is TokenType.VAR:
                raise not_supported(f"ODBC escape syntax {{{following.text} ...}}")
            raise syntax_error(text, following.start if following is not None else len(text))
        if token.token_type in (TokenType.LIKE, TokenType.ILIKE) and token.text.startswith("~"):
            negated = index > 0 and tokens[index - 1].text == "!" and tokens[index - 1].end + 1 == token.start
            raise syntax_error(text, tokens[index - 1].start if negated else token.start)
        if token.token_type is TokenType.COMMA and following is not None and following.token_type is TokenType.R_PAREN:
            raise syntax_error(text, following.start)
        if token.text.upper() == "NULLS" and following is not None and following.text.upper() in ("FIRST", "LAST"):
            raise syntax_error(text, token.start)


def _refuse_foreign_cast_types(text: str) -> None:
    """1064 near a type CAST or CONVERT does not take (the servers' grammar lists them)."""
    tokens = _tokens(text)
    depth_of_call: list[int] = []
    depth = 0
    for index, token in enumerate(tokens):
        if token.token_type is TokenType.L_PAREN:
            depth += 1
            if index > 0 and tokens[index - 1].text.upper() in ("CAST", "CONVERT"):
                depth_of_call.append(depth)
        elif token.token_type is TokenType.R_PAREN:
            if depth_of_call and depth_of_call[-1] == depth:
                depth_of_call.pop()
            depth -= 1
        elif depth_of_call and depth == depth_of_call[-1] and token.token_type in (TokenType.ALIAS, TokenType.COMMA):
            target = tokens[index + 1] if index + 1 < len(tokens) else None
            following = tokens[index + 2] if index + 2 < len(tokens) else None
            if target is None:
                continue
            if target.text.upper() in _CAST_TYPES_REFUSED:
                raise syntax_error(text, target.start)
            if target.text.upper() == "VARCHAR" and (following is None or following.token_type is not TokenType.L_PAREN):
                raise syntax_error(text, following.start if following is not None else len(text))  # a length is required


_FOREIGN_NODES = (
    exp.Group, exp.Star, exp.SetOperation, exp.Between, exp.TryCast, exp.ILike, exp.Join, exp.Column, exp.Select,
    exp.Table, exp.SimilarTo, exp.Glob, exp.NullSafeNEQ, exp.NullSafeEQ,
)


def _foreign_operator(text: str, node: exp.Expression) -> SqlError | None:
    """Operators and clauses sqlglot reads as another dialect's: the servers take their
    first word for an alias, or stop at it."""
    match = None
    if isinstance(node, exp.SimilarTo):
        match = re.search(r"\b(SIMILAR)\s+TO\b", text, re.IGNORECASE)
    elif isinstance(node, exp.Glob):
        match = re.search(r"\bGLOB\s+(\S)", text, re.IGNORECASE)
    elif isinstance(node, (exp.NullSafeNEQ, exp.NullSafeEQ)):
        match = re.search(r"\bIS\s+(?:NOT\s+)?(DISTINCT)\s+FROM\b", text, re.IGNORECASE)
    elif isinstance(node, exp.Select) and node.args.get("qualify") is not None:
        match = re.search(r"\bQUALIFY\s+(\S)", text, re.IGNORECASE)
    elif isinstance(node, (exp.Select, exp.Table)) and node.args.get("sample") is not None:
        match = re.search(r"\b(USING)\s+SAMPLE\b|\b(TABLESAMPLE)\b", text, re.IGNORECASE)
    elif isinstance(node, exp.Table) and isinstance(node.args.get("alias"), exp.TableAlias) and node.args["alias"].columns:
        return _table_alias_columns(text, node)
    if match is None:
        return None
    return syntax_error(text, match.start(match.lastindex or 0))


def _table_alias_columns(text: str, table: exp.Table) -> SqlError:
    """`FROM t x(a, b)`: a column list names a derived table's columns, never a table's."""
    alias = re.escape(table.alias)
    match = re.search(rf"\b{alias}\s*(\()", text, re.IGNORECASE)
    return syntax_error(text, match.start(1) if match else len(text))


def _foreign_node(text: str, node: exp.Expression) -> SqlError | None:
    """The error for one node made of foreign syntax, or None."""
    if isinstance(node, exp.Group) and node.args.get("all"):
        return _near_word(text, r"\bGROUP\s+BY\s+(ALL)\b")
    if isinstance(node, exp.Star) and any(node.args.get(name) for name in ("except_", "except", "replace", "rename")):
        return _near_word(text, r"\*\s*(\w+)")
    if isinstance(node, exp.SetOperation) and node.args.get("by_name"):
        return _near_word(text, r"\b(?:UNION|EXCEPT|INTERSECT)(?:\s+(?:ALL|DISTINCT))?\s+(BY)\s+NAME\b")
    if isinstance(node, exp.Between) and node.args.get("symmetric"):
        return _near_word(text, r"\bSYMMETRIC\s+(\S)")
    if isinstance(node, exp.TryCast):
        return _near_word(text, r"\bTRY_CAST\s*\(.*?\bAS\s+(\S)")
    if isinstance(node, exp.ILike):
        return _near_word(text, r"\bILIKE\s+(\S)")  # ILIKE is read as an alias
    if isinstance(node, exp.Join) and (node.args.get("method") or "").upper() in ("ASOF", "POSITIONAL") or (
        isinstance(node, exp.Join) and (node.args.get("kind") or "").upper() in ("ANTI", "SEMI")
    ):
        word = node.args.get("method") or node.args.get("kind")
        return not_supported(f"{word} JOIN (the servers read {word} as the table's alias)")
    if isinstance(node, exp.Column) and isinstance(node.this, exp.Identifier) and not node.this.quoted and node.name.upper() == "ALL":
        return _near_word(text, r"\b(ALL)\b")  # ORDER BY ALL, LIMIT ALL
    if isinstance(node, exp.Select) and not node.expressions:
        return syntax_error(text, len(text))  # SELECT with nothing to select
    return None


def _near_word(text: str, pattern: str) -> SqlError:
    """1064 near the first group of `pattern`'s first match in `text` (its end if none)."""
    match = re.search(pattern, text, re.IGNORECASE | re.DOTALL)
    return syntax_error(text, match.start(1) if match else len(text))
