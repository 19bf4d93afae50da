"""Parse one SQL statement with sqlglot (MySQL dialect) and classify it.

A few statements sqlglot mis-reads are recognised first: `SAVEPOINT x` (parsed as an
alias), `RELEASE SAVEPOINT x`, `CREATE TRIGGER` (a Command; read by server_sim.triggers),
and `REPLACE` (a Command): REPLACE is parsed as the INSERT it extends and flagged;
`BINLOG '...'`, by its form, with its events decoded. The duplicate-key keywords sqlglot
rejects, `UPDATE IGNORE` and `CREATE TABLE ... IGNORE|REPLACE SELECT`, are taken out
before parsing and kept as the statement's write mode; `unparse` puts them back into the
text of a changed tree.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from enum import Enum
from functools import cached_property, lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from .binlog.base64_events import decode_events
from .binlog.events import Log_event
from .errors import ErrorCode, SqlError, not_supported
from .triggers import CREATE_TRIGGER_START, TriggerDefinition, parse_create_trigger
from .udf import CREATE_FUNCTION_START, Udf, parse_create_function

logging.getLogger("sqlglot").setLevel(logging.ERROR)


class StatementKind(Enum):
    INSERT = "INSERT"
    REPLACE = "REPLACE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    SELECT = "SELECT"
    CREATE_TABLE = "CREATE TABLE"
    ALTER_TABLE = "ALTER TABLE"
    DROP_TABLE = "DROP TABLE"
    TRUNCATE = "TRUNCATE"
    CREATE_TRIGGER = "CREATE TRIGGER"
    DROP_TRIGGER = "DROP TRIGGER"
    CREATE_FUNCTION = "CREATE FUNCTION"  # a loadable function (SONAME)
    DROP_FUNCTION = "DROP FUNCTION"
    BEGIN = "BEGIN"
    COMMIT = "COMMIT"
    ROLLBACK = "ROLLBACK"
    SAVEPOINT = "SAVEPOINT"
    ROLLBACK_TO_SAVEPOINT = "ROLLBACK TO SAVEPOINT"
    RELEASE_SAVEPOINT = "RELEASE SAVEPOINT"
    SET = "SET"
    BINLOG = "BINLOG"

    @property
    def is_dml(self) -> bool:
        """Statements that change rows; BINLOG '...' changes those its row events carry."""
        return self in (StatementKind.INSERT, StatementKind.REPLACE, StatementKind.UPDATE, StatementKind.DELETE, StatementKind.BINLOG)

    @property
    def is_ddl(self) -> bool:
        return self in (
            StatementKind.CREATE_TABLE,
            StatementKind.ALTER_TABLE,
            StatementKind.DROP_TABLE,
            StatementKind.TRUNCATE,
            StatementKind.CREATE_TRIGGER,
            StatementKind.DROP_TRIGGER,
            StatementKind.CREATE_FUNCTION,
            StatementKind.DROP_FUNCTION,
        )

    @property
    def is_transaction_control(self) -> bool:
        return self in (
            StatementKind.BEGIN,
            StatementKind.COMMIT,
            StatementKind.ROLLBACK,
            StatementKind.SAVEPOINT,
            StatementKind.ROLLBACK_TO_SAVEPOINT,
            StatementKind.RELEASE_SAVEPOINT,
        )


class WriteMode(Enum):
    """What a duplicate key does to a statement that writes rows."""

    ERROR = "error"
    IGNORE = "ignore"
    REPLACE = "replace"
    UPDATE = "on duplicate key update"


@dataclass(frozen=True)
class Statement:
    """A parsed statement: its text, kind and sqlglot tree (shared; copy before changing)."""

    sql: str
    kind: StatementKind
    ast: exp.Expression | None = None
    savepoint: str | None = None
    write_mode: WriteMode = WriteMode.ERROR
    trigger: TriggerDefinition | None = None  # CREATE TRIGGER's definition (sqlglot has no tree for it)
    udf: Udf | None = None  # CREATE FUNCTION ... SONAME's function (sqlglot has no tree for it either)
    events: tuple[Log_event, ...] = ()  # what a BINLOG '...' statement carries

    @cached_property
    def table_nodes(self) -> tuple[exp.Table, ...]:
        """Every table node of the tree, found once: the tree is shared and never changed,
        and the analysis, the locks and the executor each look for them."""
        return tuple(self.ast.find_all(exp.Table)) if self.ast is not None else ()

    @property
    def creates_from_select(self) -> bool:
        """CREATE [TEMPORARY] TABLE ... SELECT: DDL that also writes rows."""
        return self.kind is StatementKind.CREATE_TABLE and self.ast is not None and self.ast.expression is not None

    @property
    def temporary(self) -> bool:
        """CREATE/DROP TEMPORARY TABLE."""
        ast = self.ast
        if isinstance(ast, exp.Drop):
            return bool(ast.args.get("temporary"))
        if isinstance(ast, exp.Create):
            properties = ast.args.get("properties")
            return bool(properties and any(isinstance(p, exp.TemporaryProperty) for p in properties.expressions))
        return False


_SAVEPOINT = re.compile(r"^\s*SAVEPOINT\s+(`?)(\w+)\1\s*$", re.IGNORECASE)
_RELEASE = re.compile(r"^\s*RELEASE\s+SAVEPOINT\s+(`?)(\w+)\1\s*$", re.IGNORECASE)
_ROLLBACK_TO = re.compile(r"^\s*ROLLBACK\s+(?:WORK\s+)?TO\s+(?:SAVEPOINT\s+)?(`?)(\w+)\1\s*$", re.IGNORECASE)
_REPLACE = re.compile(r"^\s*REPLACE\b", re.IGNORECASE)
# BINLOG 'base64', as mysqlbinlog prints it (with its empty /*!*/ comment after the string).
_BINLOG = re.compile(r"^\s*BINLOG\s+(['\"])(.*)\1\s*(?:/\*!\*/)?\s*$", re.IGNORECASE | re.DOTALL)
_MYSQL = sqlglot.Dialect.get_or_raise("mysql")
_SELECT_STARTS = (TokenType.SELECT, TokenType.ALIAS, TokenType.L_PAREN)

_KINDS: list[tuple[type[exp.Expression], StatementKind]] = [
    (exp.Insert, StatementKind.INSERT),
    (exp.Update, StatementKind.UPDATE),
    (exp.Delete, StatementKind.DELETE),
    (exp.Select, StatementKind.SELECT),
    (exp.Union, StatementKind.SELECT),
    (exp.Alter, StatementKind.ALTER_TABLE),
    (exp.TruncateTable, StatementKind.TRUNCATE),
    (exp.Transaction, StatementKind.BEGIN),
    (exp.Commit, StatementKind.COMMIT),
    (exp.Rollback, StatementKind.ROLLBACK),
    (exp.Set, StatementKind.SET),
]


def _syntax_error(sql: str, detail: str) -> SqlError:
    return SqlError(
        ErrorCode.ER_PARSE_ERROR,
        message="You have an error in your SQL syntax; check the manual that corresponds to your MySQL "
        f"server version for the right syntax to use: {detail} (statement: {sql!r})",
    )


# The clauses each DML statement may carry; anything else sqlglot accepts (INSERT OR
# REPLACE, RETURNING, BY NAME, ...) is another dialect's and is refused, not ignored.
_MODELLED_CLAUSES: dict[type[exp.Expression], frozenset[str]] = {
    exp.Insert: frozenset({"this", "expression", "ignore", "conflict"}),
    exp.Update: frozenset({"this", "expressions", "where", "order", "limit"}),
    exp.Delete: frozenset({"this", "where", "order", "limit", "tables", "using"}),
}


def _refuse_foreign_clauses(tree: exp.Expression) -> None:
    allowed = _MODELLED_CLAUSES.get(type(tree))
    if allowed is None:
        return
    for name, value in tree.args.items():
        if value and name not in allowed:
            raise not_supported(f"{type(tree).__name__.upper()} with {name.upper().replace('_', ' ')} ({tree.sql(dialect='mysql')!r})")


def _duplicate_keyword(text: str) -> Token | None:
    """The IGNORE of `UPDATE IGNORE`, or the IGNORE/REPLACE before the SELECT of a CREATE
    TABLE (outside parentheses), found by token so that strings and names never match."""
    lowered = text.lower()
    if "ignore" not in lowered and "replace" not in lowered:
        return None  # neither word anywhere: no need to tokenize
    try:
        tokens = _MYSQL.tokenize(text)
    except TokenError:
        return None  # the parser reports it
    if len(tokens) < 2:
        return None
    if tokens[0].token_type is TokenType.UPDATE:
        return tokens[1] if tokens[1].token_type is TokenType.IGNORE else None
    if tokens[0].token_type is not TokenType.CREATE:
        return None
    depth = 0
    for token, following in zip(tokens, tokens[1:]):
        if token.token_type is TokenType.L_PAREN:
            depth += 1
        elif token.token_type is TokenType.R_PAREN:
            depth -= 1
        elif depth == 0 and token.token_type in (TokenType.IGNORE, TokenType.REPLACE) and following.token_type in _SELECT_STARTS:
            return token
    return None


def _write_mode(tree: exp.Expression, is_replace: bool, keyword: Token | None) -> WriteMode:
    if is_replace or (keyword is not None and keyword.token_type is TokenType.REPLACE):
        return WriteMode.REPLACE
    if isinstance(tree, exp.Insert) and tree.args.get("conflict") is not None:
        return WriteMode.UPDATE  # INSERT IGNORE ... ON DUPLICATE KEY UPDATE still updates
    if keyword is not None or (isinstance(tree, exp.Insert) and tree.args.get("ignore")):
        return WriteMode.IGNORE
    return WriteMode.ERROR


@lru_cache(maxsize=4096)
def parse_statement(sql: str) -> Statement:
    """Parse and classify `sql`; raises SqlError 1064 (cannot parse) or 1235 (not modelled)."""
    text = sql.strip().rstrip(";").strip()
    if not text:
        raise _syntax_error(sql, "empty statement")
    for pattern, kind in (
        (_SAVEPOINT, StatementKind.SAVEPOINT),
        (_RELEASE, StatementKind.RELEASE_SAVEPOINT),
        (_ROLLBACK_TO, StatementKind.ROLLBACK_TO_SAVEPOINT),
    ):
        match = pattern.match(text)
        if match:
            return Statement(text, kind, savepoint=match.group(2))
    if CREATE_TRIGGER_START.match(text):
        return Statement(text, StatementKind.CREATE_TRIGGER, trigger=parse_create_trigger(text))
    if CREATE_FUNCTION_START.match(text):
        return Statement(text, StatementKind.CREATE_FUNCTION, udf=parse_create_function(text))
    binlog = _BINLOG.match(text)
    if binlog:
        return Statement(text, StatementKind.BINLOG, events=tuple(decode_events(binlog.group(2))))
    is_replace = bool(_REPLACE.match(text))
    source = _REPLACE.sub("INSERT", text, count=1) if is_replace else text
    keyword = _duplicate_keyword(source)
    if keyword is not None:
        source = source[: keyword.start] + source[keyword.end + 1 :]
    try:
        trees = [tree for tree in sqlglot.parse(source, read="mysql") if tree is not None]
    except (ParseError, TokenError) as error:
        detail = str(error).splitlines()[0]
        raise _syntax_error(text, detail) from None
    if len(trees) != 1:
        raise _syntax_error(text, "exactly one statement per step is expected")
    tree = trees[0]
    _refuse_foreign_clauses(tree)
    if isinstance(tree, exp.Delete) and (tree.args.get("tables") or tree.args.get("using")):
        # The grammar of a multi-table DELETE has no ORDER BY or LIMIT.
        for clause in ("order", "limit"):
            if tree.args.get(clause) is not None:
                raise _syntax_error(text, f"a multi-table DELETE takes no {clause.upper().replace('ORDER', 'ORDER BY')}")
    mode = _write_mode(tree, is_replace, keyword)
    if is_replace:
        if not isinstance(tree, exp.Insert) or tree.args.get("conflict") is not None:
            raise _syntax_error(text, "REPLACE takes no ON DUPLICATE KEY UPDATE clause")
        return Statement(text, StatementKind.REPLACE, tree, write_mode=mode)
    if isinstance(tree, exp.Create):
        if tree.kind != "TABLE":
            raise not_supported(f"CREATE {tree.kind}")
        return Statement(text, StatementKind.CREATE_TABLE, tree, write_mode=mode)
    if isinstance(tree, exp.Drop):
        if tree.kind == "TRIGGER":
            return Statement(text, StatementKind.DROP_TRIGGER, tree)
        if tree.kind == "FUNCTION":
            return Statement(text, StatementKind.DROP_FUNCTION, tree)
        if tree.kind != "TABLE":
            raise not_supported(f"DROP {tree.kind}")
        return Statement(text, StatementKind.DROP_TABLE, tree)
    for node_type, kind in _KINDS:
        if isinstance(tree, node_type):
            return Statement(text, kind, tree, write_mode=mode)
    first_word = text.split(None, 1)[0].upper()
    raise not_supported(f"{first_word} statements (the simulator models DML, DDL on tables, SET and transaction control)")


def unparse(statement: Statement, tree: exp.Expression) -> str:
    """The MySQL text of `tree`, a changed copy of `statement.ast`, with the keywords
    `parse_statement` took out before sqlglot saw them put back in their places."""
    text = tree.sql(dialect="mysql")
    if statement.kind is StatementKind.REPLACE:
        return "REPLACE" + text.removeprefix("INSERT")
    if statement.kind is StatementKind.UPDATE and statement.write_mode is WriteMode.IGNORE:
        return "UPDATE IGNORE" + text.removeprefix("UPDATE")
    if isinstance(tree, exp.Create) and tree.expression is not None and statement.write_mode in (WriteMode.IGNORE, WriteMode.REPLACE):
        head = tree.copy()
        head.set("expression", None)
        return f"{head.sql(dialect='mysql')} {statement.write_mode.name} {tree.expression.sql(dialect='mysql')}"
    return text


def split_statements(text: str) -> list[str]:
    """The `;`-separated statements of a SQL script, as written (a `;` inside a string or comment does not split)."""
    try:
        tokens = _MYSQL.tokenize(text)
    except TokenError as error:
        raise _syntax_error(text, str(error).splitlines()[0]) from None
    statements: list[str] = []
    start: int | None = None
    end = 0
    for token in tokens:
        if token.token_type is TokenType.SEMICOLON:
            if start is not None:
                statements.append(text[start : end + 1])
            start = None
            continue
        start = token.start if start is None else start
        end = token.end
    if start is not None:
        statements.append(text[start : end + 1])
    return statements
