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
from collections.abc import Callable

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
    checks = _NODE_CHECKS
    for node in tree.walk():
        check = checks.get(type(node))
        error = check(text, node) if check is not None else None
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


def _near(pattern: str) -> Callable[[str], SqlError | None]:
    """1064 near the first group of `pattern`'s first match in the text; no error (the
    construct is not the foreign one) when the text has no match."""
    compiled = re.compile(pattern, re.IGNORECASE | re.DOTALL)

    def error(text: str) -> SqlError | None:
        match = compiled.search(text)
        return syntax_error(text, match.start(match.lastindex or 0)) if match else None

    return error


_GROUP_BY_ALL = _near(r"\bGROUP\s+BY\s+(ALL)\b")
_STAR_MODIFIER = _near(r"\*\s*(\w+)")
_BY_NAME = _near(r"\b(?:UNION|EXCEPT|INTERSECT)(?:\s+(?:ALL|DISTINCT))?\s+(BY)\s+NAME\b")
_SYMMETRIC = _near(r"\bSYMMETRIC\s+(\S)")
_TRY_CAST = _near(r"\bTRY_CAST\s*\(.*?\bAS\s+(\S)")
_ILIKE = _near(r"\bILIKE\s+(\S)")  # the servers read ILIKE as an alias
_ALL = _near(r"\b(ALL)\b")
_QUALIFY = _near(r"\bQUALIFY\s+(\S)")
_SAMPLE = _near(r"\b(USING)\s+SAMPLE\b|\b(TABLESAMPLE)\b")
_SIMILAR_TO = _near(r"\b(SIMILAR)\s+TO\b")
_GLOB = _near(r"\bGLOB\s+(\S)")
_DISTINCT_FROM = _near(r"\bIS\s+(?:NOT\s+)?(DISTINCT)\s+FROM\b")


def _select(text: str, node: exp.Expression) -> SqlError | None:
    if not node.expressions:
        return syntax_error(text, len(text))  # SELECT with nothing to select
    if node.args.get("qualify") is not None:
        return _QUALIFY(text)
    return _SAMPLE(text) if node.args.get("sample") is not None else None


def _table(text: str, node: exp.Expression) -> SqlError | None:
    alias = node.args.get("alias")
    if isinstance(alias, exp.TableAlias) and alias.columns:
        match = re.search(rf"\b{re.escape(alias.name)}\s*(\()", text, re.IGNORECASE)
        return syntax_error(text, match.start(1) if match else len(text))  # FROM t x(a): a derived table's column list
    return _SAMPLE(text) if node.args.get("sample") is not None else None


def _join(text: str, node: exp.Expression) -> SqlError | None:
    word = (node.args.get("method") or "").upper()
    word = word if word in ("ASOF", "POSITIONAL") else (node.args.get("kind") or "").upper()
    if word not in ("ASOF", "POSITIONAL", "ANTI", "SEMI"):
        return None
    return not_supported(f"{word} JOIN (the servers read {word} as the table's alias)")


def _column(text: str, node: exp.Expression) -> SqlError | None:
    name = node.this
    if isinstance(name, exp.Identifier) and not name.quoted and name.name.upper() == "ALL":
        return _ALL(text)  # ORDER BY ALL, LIMIT ALL
    return None


def _star(text: str, node: exp.Expression) -> SqlError | None:
    return _STAR_MODIFIER(text) if any(node.args.get(name) for name in ("except_", "except", "replace", "rename")) else None


def _set_operation(text: str, node: exp.Expression) -> SqlError | None:
    return _BY_NAME(text) if node.args.get("by_name") else None


# What each node type sqlglot makes of foreign syntax is checked for, by exact type (one
# dictionary look-up per node of the tree).
_NODE_CHECKS: dict[type[exp.Expression], Callable[[str, exp.Expression], SqlError | None]] = {
    exp.Select: _select,
    exp.Table: _table,
    exp.Join: _join,
    exp.Column: _column,
    exp.Star: _star,
    exp.Union: _set_operation,
    exp.Except: _set_operation,
    exp.Intersect: _set_operation,
    exp.Group: lambda text, node: _GROUP_BY_ALL(text) if node.args.get("all") else None,
    exp.Between: lambda text, node: _SYMMETRIC(text) if node.args.get("symmetric") else None,
    exp.TryCast: lambda text, node: _TRY_CAST(text),
    exp.ILike: lambda text, node: _ILIKE(text),
    exp.SimilarTo: lambda text, node: _SIMILAR_TO(text),
    exp.Glob: lambda text, node: _GLOB(text),
    exp.NullSafeNEQ: lambda text, node: _DISTINCT_FROM(text),
    exp.NullSafeEQ: lambda text, node: _DISTINCT_FROM(text),
}


