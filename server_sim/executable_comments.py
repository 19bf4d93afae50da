"""MySQL's executable comments, read as the server's lexer reads them (sql_lex.cc,
MY_LEX_LONG_COMMENT) before sqlglot sees the statement.

`/*! text */` is SQL the server runs; `/*!NNNNN text */` (five digits, or six on MariaDB)
runs when the server's version is at least NNNNN, and is a comment otherwise; MariaDB
also reads `/*M! ... */` and `/*M!NNNNNN ... */` (a plain comment to MySQL) and skips
`/*!50700` to `/*!99999`, MySQL 5.7's versions, unless written `/*M!`. A comment the
server skips is logged with its `!` turned into a space and the comments nested in it
written `(* ... *)`, so a replica skips it too. Optimizer hints `/*+ ... */` and plain
comments are left as they are.

Both texts keep the statement's length, so a position in one is the same place in the
other: the parser reads `source` and reports syntax errors near the text of `logged`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlglot
from sqlglot.errors import TokenError

from .flavor import CommentRules
from .syntax import syntax_error

_MYSQL = sqlglot.Dialect.get_or_raise("mysql")

# What the scan stops at: a quoted string or name (skipped whole), a line comment, or the
# start or end of a C-style comment.
_SIGNIFICANT = re.compile(r"""'(?:[^'\\]|\\.|'')*'?|"(?:[^"\\]|\\.|"")*"?|`(?:[^`]|``)*`?|\#[^\n]*|--[\x00-\x20][^\n]*|/\*|\*/""", re.DOTALL)


@dataclass(frozen=True)
class ExpandedComments:
    """The statement as the parser reads it and as the server logs it."""

    source: str
    logged: str

    @property
    def only_comments(self) -> bool:
        """Nothing but comments is left of the statement (the server does nothing)."""
        try:
            return not _MYSQL.tokenize(self.source)
        except TokenError:
            return False  # the parser reports it


def has_executable_comment(text: str) -> bool:
    """The cheap test that spares most statements the scan."""
    return "/*!" in text or "/*M!" in text


def expand_executable_comments(text: str, rules: CommentRules) -> ExpandedComments:
    """`text` with the executable comments the server runs opened (their markers blanked)
    and those it skips made plain comments; 1064 for a comment left open."""
    source = list(text)
    logged = list(text)
    inside = False  # in the text of an executable comment the server runs
    index = 0
    while True:
        match = _SIGNIFICANT.search(text, index)
        if match is None:
            break
        token, start = match.group(), match.start()
        index = match.end()
        if token == "*/" and inside:
            source[start : start + 2] = "  "
            inside = False
        elif token == "/*":
            marker = executable_marker(text, start, rules)
            if marker is None:
                index = _comment_end(text, start, start + 2, source, logged, nested=False)
            elif marker.runs:
                source[start : marker.end] = " " * (marker.end - start)
                inside, index = True, marker.end
            else:
                logged[marker.bang] = source[marker.bang] = " "
                index = _comment_end(text, start, marker.end, source, logged, nested=True)
    if inside:
        raise syntax_error(text, len(text))
    return ExpandedComments("".join(source), "".join(logged))


@dataclass(frozen=True)
class Marker:
    """The opening of an executable comment: `/*!`, `/*M!`, with its version if any."""

    end: int  # after the marker and its version
    bang: int  # where its `!` is
    runs: bool  # whether the server runs the comment's text


def executable_marker(text: str, start: int, rules: CommentRules) -> Marker | None:
    """The executable-comment marker at `start` (a `/*`), or None for a plain comment
    (`/*M!` on MySQL among them)."""
    mariadb_marker = rules.mariadb_marker and text.startswith("M!", start + 2)
    if not mariadb_marker and not text.startswith("!", start + 2):
        return None
    bang = start + (3 if mariadb_marker else 2)
    digits = 0
    while digits < 5 and bang + 1 + digits < len(text) and text[bang + 1 + digits].isdigit():
        digits += 1
    if digits < 5:
        return Marker(bang + 1, bang, True)  # not a version comment: the server runs it
    if rules.six_digit_versions and bang + 6 < len(text) and text[bang + 6].isdigit():
        digits = 6
    version = int(text[bang + 1 : bang + 1 + digits])
    skipped = rules.skipped_versions is not None and rules.skipped_versions[0] <= version <= rules.skipped_versions[1]
    runs = version <= rules.version_id and (mariadb_marker or not skipped)
    return Marker(bang + 1 + digits, bang, runs)


def _comment_end(text: str, start: int, index: int, source: list[str], logged: list[str], *, nested: bool) -> int:
    """After the `*/` closing the comment opened at `start`, whose text starts at `index`.
    In a skipped executable comment (`nested`), a comment inside is written `(* ... *)` as
    the server patches it; a plain comment ends at its first `*/`. 1064 near the comment
    when it is not closed."""
    while True:
        close = text.find("*/", index)
        if close < 0:
            raise syntax_error(text, start)
        opened = text.find("/*", index, close) if nested else -1
        if opened < 0:
            return close + 2
        inner_close = text.find("*/", opened + 2)
        if inner_close < 0:
            raise syntax_error(text, start)
        logged[opened] = source[opened] = "("
        logged[inner_close + 1] = source[inner_close + 1] = ")"
        index = inner_close + 2

