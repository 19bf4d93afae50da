"""A cursor over a body's tokens: the reader's reading primitives. Tokens come from
sqlglot's MySQL tokenizer, so strings, comments and quoted names read as the server reads
them; a position past what reads is 1064 near that token, as the server reports it."""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from ..errors import SqlError, not_supported
from ..syntax import syntax_error
from ..type_declarations import column_type_from_sqlglot
from ..types import ColumnType
from .program import Expression

_CHARSET_CLAUSE = re.compile(r"\b(?:CHARACTER|CHARSET|COLLATE)\b", re.IGNORECASE)
# The character set and collation the server writes after a string type (SHOW CREATE
# FUNCTION's RETURNS): a case-insensitive collation compares as the simulator's strings do.
_SHOWN_CHARSET = re.compile(r"\s+(?:CHARACTER\s+SET|CHARSET)\s+\w+(?:\s+COLLATE\s+\w+_ci)?\s*$", re.IGNORECASE)
MYSQL = sqlglot.Dialect.get_or_raise("mysql")
NAMES = (TokenType.VAR, TokenType.IDENTIFIER)
# Words after which a SELECT's INTO list ends.
_INTO_ENDS = {"FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "FOR", "LOCK", "UNION", "WINDOW"}


class _BodyTokenizer(MYSQL.tokenizer_class):  # type: ignore[name-defined,misc]
    """MySQL's tokens, without sqlglot's opaque commands (it reads all after FETCH or
    REPLACE at a statement's start as one string)."""

    COMMANDS: set = set()


def tokenize(text: str) -> list[Token]:
    try:
        return _BodyTokenizer().tokenize(text)
    except TokenError:
        raise syntax_error(text, max(text.rfind("'"), text.rfind('"'), 0)) from None


class TokenCursor:
    """A position in a body's tokens."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0

    def word(self, offset: int = 0) -> str:
        """The upper-case text of the token `offset` from here ('' past the end)."""
        index = self.pos + offset
        return self.tokens[index].text.upper() if index < len(self.tokens) else ""

    def token(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def error(self) -> SqlError:
        token = self.token()
        return syntax_error(self.text, token.start if token is not None else len(self.text))

    def expect(self, *words: str) -> None:
        for word in words:
            if self.word() != word:
                raise self.error()
            self.pos += 1

    def accept(self, word: str) -> bool:
        if self.word() == word:
            self.pos += 1
            return True
        return False

    def name(self) -> str:
        token = self.token()
        if token is None or (token.token_type not in NAMES and not token.text.isidentifier()):
            raise self.error()
        self.pos += 1
        return token.text

    def span(self, *ends: str) -> tuple[int, int]:
        """Text positions of the tokens from here up to one of the words `ends` (or `;`),
        outside parentheses and CASE ... END."""
        first = self.pos
        depth = 0
        while self.pos < len(self.tokens):
            token = self.tokens[self.pos]
            word = token.text.upper() if token.token_type is not TokenType.STRING else ""
            if depth == 0 and (word in ends or token.token_type is TokenType.SEMICOLON):
                break
            if token.token_type is TokenType.L_PAREN or word == "CASE":
                depth += 1
            elif token.token_type is TokenType.R_PAREN or (word == "END" and depth > 0):
                depth -= 1
            self.pos += 1
        if self.pos == first:
            raise self.error()
        return self.tokens[first].start, self.tokens[self.pos - 1].end + 1

    def expression(self, *ends: str) -> Expression:
        """An expression up to one of `ends`, parsed as a SELECT's one item."""
        start, end = self.span(*ends)
        text = self.text[start:end]
        try:
            tree = sqlglot.parse_one(f"SELECT {text}", read="mysql")
        except (ParseError, TokenError):
            raise syntax_error(self.text, start) from None
        if not isinstance(tree, exp.Select) or len(tree.expressions) != 1 or any(v for k, v in tree.args.items() if k != "expressions"):
            raise syntax_error(self.text, start)
        item = tree.expressions[0]
        return Expression(text, item)


def without_into(text: str) -> tuple[tuple[str, ...], str]:
    """A SELECT's `INTO a, @b` clause taken out of its text: its targets (a user variable
    with its `@`) and the text without it; no INTO: `()` and the text."""
    tokens = tokenize(text)
    if not tokens or tokens[0].token_type is not TokenType.SELECT:
        return (), text
    depth = 0
    for index, token in enumerate(tokens):
        if token.token_type is TokenType.L_PAREN:
            depth += 1
        elif token.token_type is TokenType.R_PAREN:
            depth -= 1
        elif depth == 0 and token.token_type is TokenType.INTO:
            end = index + 1
            targets: list[str] = []
            while end < len(tokens) and tokens[end].text.upper() not in _INTO_ENDS and tokens[end].token_type is not TokenType.SEMICOLON:
                if tokens[end].token_type is TokenType.PARAMETER and end + 1 < len(tokens):
                    targets.append("@" + tokens[end + 1].text)
                    end += 1
                elif tokens[end].token_type is not TokenType.COMMA:
                    targets.append(tokens[end].text)
                end += 1
            stop = tokens[end].start if end < len(tokens) else len(text)
            return tuple(targets), (text[: token.start].rstrip() + " " + text[stop:]).strip()
    return (), text


def variable_type(text: str, returns: bool = False) -> ColumnType:
    """The type of a parameter, local variable or function result (`returns`), as written.
    A result's character set clause, as SHOW CREATE FUNCTION prints it, is read; elsewhere
    a character set is refused (a string variable's is the database's, which NAME_CONST logs)."""
    if returns:
        text = _SHOWN_CHARSET.sub("", text)
    if _CHARSET_CLAUSE.search(text):
        raise not_supported(f"a character set or collation on a stored program variable ({text.strip()!r})")
    try:
        data_type = exp.DataType.build(text.strip(), dialect="mysql")
    except Exception:  # noqa: BLE001 - sqlglot raises several kinds for a type it cannot read
        raise not_supported(f"stored program variable type {text.strip()!r}") from None
    if data_type.args.get("kind") or any(not isinstance(p, exp.DataTypeParam) for p in data_type.expressions):
        raise not_supported(f"stored program variable type {text.strip()!r}")
    return column_type_from_sqlglot(data_type)
