"""Parse one SQL statement with sqlglot (MySQL dialect) and classify it.

A few statements sqlglot mis-reads are recognised first: `SAVEPOINT x` (parsed as an
alias), `RELEASE SAVEPOINT x`, `CREATE TRIGGER` (a Command; its header read here, its body parsed as a statement),
and `REPLACE` (a Command): REPLACE is parsed as the INSERT it extends and flagged;
`BINLOG '...'`, by its form, with its events decoded. The duplicate-key keywords sqlglot
rejects, `UPDATE IGNORE` and `CREATE TABLE ... IGNORE|REPLACE SELECT`, are taken out
before parsing and kept as the statement's write mode; `unparse` puts them back into the
text of a changed tree.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from .binlog.base64_events import decode_events
from .ddl_clauses import check_alter_table, check_create_table, index_statement_as_alter
from .do_statement import DO_START, parse_do
from .errors import SqlError, not_supported, stack_overrun
from .executable_comments import expand_executable_comments, has_executable_comment
from .flavor import DEFAULT_FLAVOR, CommentRules
from .foreign_syntax import refuse_foreign_syntax
from .modifiers import (
    refuse_partition_selection,
    without_delete_target_stars,
    without_dual,
    without_neutral_modifiers,
    without_optimizer_hints,
)
from .routine_statements import block_change, routine_statement, without_name_const
from .statement import (
    Statement,
    StatementKind,
    WriteMode,
)
from .reset_statements import RESET_START, parse_reset
from .table_lock_statements import LOCK_TABLES_START, UNLOCK_TABLES, parse_lock_tables
from .syntax import parse_error_position, syntax_error, unrecognised
from .trigger_definition import CREATE_TRIGGER_START, parse_create_trigger
from .udf import CREATE_FUNCTION_START, parse_create_function
from .prepared import PreparedAction, parse_prepared_command
from .views import VIEW_START, parse_view

logging.getLogger("sqlglot").setLevel(logging.ERROR)


_SAVEPOINT = re.compile(r"^\s*SAVEPOINT\s+(`?)(\w+)\1\s*$", re.IGNORECASE)
_RELEASE = re.compile(r"^\s*RELEASE\s+SAVEPOINT\s+(`?)(\w+)\1\s*$", re.IGNORECASE)
_ROLLBACK_TO = re.compile(r"^\s*ROLLBACK\s+(?:WORK\s+)?TO\s+(?:SAVEPOINT\s+)?(`?)(\w+)\1\s*$", re.IGNORECASE)
_REPLACE = re.compile(r"^\s*REPLACE\b", re.IGNORECASE)
# BINLOG 'base64', as mysqlbinlog prints it (with its empty /*!*/ comment after the string).
_BINLOG = re.compile(r"^\s*BINLOG\s+(['\"])(.*)\1\s*(?:/\*!\*/)?\s*$", re.IGNORECASE | re.DOTALL)
_RENAME_TABLE = re.compile(r"^\s*RENAME\s+TABLES?\b", re.IGNORECASE)
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


def _syntax_error_at(text: str, pattern: str) -> SqlError:
    """1064 near the first match of `pattern` (a keyword the grammar does not allow there)."""
    match = re.search(pattern, text, re.IGNORECASE)
    return syntax_error(text, match.start() if match else len(text))


# The clauses each DML statement may carry; anything else sqlglot accepts (INSERT OR
# REPLACE, RETURNING, BY NAME, ...) is another dialect's and is refused, not ignored.
DML_CLAUSES: dict[type[exp.Expression], frozenset[str]] = {
    exp.Insert: frozenset({"this", "expression", "ignore", "conflict"}),
    exp.Update: frozenset({"this", "expressions", "where", "order", "limit"}),
    exp.Delete: frozenset({"this", "where", "order", "limit", "tables", "using"}),
}


# The parts of a SELECT (top-level or nested) the simulator reads: WINDOW and INTO are read
# to be refused by name where a query is translated; anything else sqlglot can put on a
# Select (QUALIFY, SAMPLE, SORT BY, SETTINGS, ...) is another dialect's and is refused here.
SELECT_CLAUSES: frozenset[str] = frozenset(
    {"expressions", "distinct", "from_", "joins", "where", "group", "having", "order", "limit", "offset", "locks", "with_", "windows", "into", "operation_modifiers", "hint"}
)


def refuse_unread_select_clauses(tree: exp.Expression) -> None:
    """1235 naming the first clause of any SELECT in `tree` that the simulator does not read."""
    for select in tree.find_all(exp.Select):
        for name, value in select.args.items():
            if value and name not in SELECT_CLAUSES:
                raise not_supported(f"SELECT with {_clause_name(name)}{_rendered(select)}")


def _clause_name(name: str) -> str:
    return name.rstrip("_").upper().replace("_", " ")


def _rendered(tree: exp.Expression) -> str:
    """` ('the SQL')` of a tree, or nothing when the tree cannot be rendered as MySQL."""
    try:
        return f" ({tree.sql(dialect='mysql')!r})"
    except Exception:  # noqa: BLE001 - a clause of another dialect may not render as MySQL
        return ""


def refuse_unread_clauses(tree: exp.Expression) -> None:
    for lock in tree.args.get("locks") or () if isinstance(tree, exp.Select) else ():
        if lock.args.get("wait") is not None or lock.expressions:
            raise not_supported(f"locking read {lock.sql(dialect='mysql')!r} (NOWAIT, SKIP LOCKED, WAIT n and OF tables)")
    refuse_unread_select_clauses(tree)
    allowed = DML_CLAUSES.get(type(tree))
    if allowed is None:
        return
    for name, value in tree.args.items():
        if value and name not in allowed:
            raise not_supported(f"{type(tree).__name__.upper()} with {_clause_name(name)}{_rendered(tree)}")


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


def _delayed_keyword(text: str) -> Token | None:
    """The DELAYED of `INSERT DELAYED` / `REPLACE DELAYED`, which the servers run as a plain
    INSERT (sqlglot rejects the word)."""
    if "DELAYED" not in text[:40].upper():
        return None
    tokens = _MYSQL.tokenize(text)
    if len(tokens) < 2 or tokens[0].token_type is not TokenType.INSERT:
        return None
    return tokens[1] if tokens[1].text.upper() == "DELAYED" else None


def _write_mode(tree: exp.Expression, is_replace: bool, keyword: Token | None) -> WriteMode:
    if is_replace or (keyword is not None and keyword.token_type is TokenType.REPLACE):
        return WriteMode.REPLACE
    if isinstance(tree, exp.Insert) and tree.args.get("conflict") is not None:
        return WriteMode.UPDATE  # INSERT IGNORE ... ON DUPLICATE KEY UPDATE still updates
    if keyword is not None or (isinstance(tree, exp.Insert) and tree.args.get("ignore")):
        return WriteMode.IGNORE
    return WriteMode.ERROR


@lru_cache(maxsize=4096)
def parse_statement(sql: str, comments: CommentRules = DEFAULT_FLAVOR.comment_rules) -> Statement:
    """Parse and classify `sql`, its executable comments read by `comments` (the server's
    rules); raises SqlError 1064 (cannot parse) or 1235 (not modelled)."""
    text = sql.strip().rstrip(";").strip()
    if not text:
        raise syntax_error(text, 0)
    try:
        return _parsed_with_comments(text, comments)
    except RecursionError:
        raise stack_overrun() from None  # nested deeper than sqlglot's recursion goes


def _parsed_with_comments(text: str, comments: CommentRules) -> Statement:
    if not has_executable_comment(text):
        return _parsed_statement(text)
    expanded = expand_executable_comments(text, comments)
    if expanded.only_comments:
        raise not_supported(f"a statement that is only comments the server skips ({text!r}: the server does nothing)")
    try:
        statement = _parsed_statement(expanded.source)
    except SqlError as error:
        if error.position is None:
            raise
        raise syntax_error(expanded.logged, error.position) from None
    return dataclasses.replace(statement, sql=expanded.logged)


def _parsed_statement(text: str) -> Statement:
    if not text.strip():
        raise syntax_error(text, 0)
    special = _special_form(text)
    if special is not None:
        return special
    is_replace = bool(_REPLACE.match(text))
    source = _REPLACE.sub("INSERT", text, count=1) if is_replace else text
    keyword = _duplicate_keyword(source)
    if keyword is not None:
        source = source[: keyword.start] + source[keyword.end + 1 :]
    delayed = _delayed_keyword(source)
    if delayed is not None:
        source = source[: delayed.start] + source[delayed.end + 1 :]
    source = without_delete_target_stars(without_neutral_modifiers(source))
    try:
        trees = _parsed(source)
    except ParseError as error:
        raise unrecognised(text) or syntax_error(text, parse_error_position(source, error)) from None
    except TokenError:
        raise unrecognised(text) or syntax_error(text, max(text.rfind("'"), text.rfind('"'), 0)) from None
    if len(trees) != 1:
        statements = split_statements(text)
        raise syntax_error(text, text.find(statements[1], len(statements[0])) if len(statements) > 1 else len(text))
    tree = trees[0]
    if isinstance(tree, exp.Insert) and tree.args.get("with_"):
        raise _syntax_error_at(text, r"\b(?:INSERT|REPLACE)\b")  # WITH opens a query, not an INSERT
    refuse_foreign_syntax(text, tree)
    if "/*+" in text:
        without_optimizer_hints(tree)
    if "DUAL" in text.upper():
        without_dual(tree, text)
    if "NAME_CONST" in text.upper():
        tree = without_name_const(tree)
    refuse_unread_clauses(tree)
    if "PARTITION" in text.upper():
        refuse_partition_selection(tree)
    if isinstance(tree, exp.Delete) and (tree.args.get("tables") or tree.args.get("using")):
        # The grammar of a multi-table DELETE has no ORDER BY or LIMIT.
        for clause in ("order", "limit"):
            if tree.args.get(clause) is not None:
                raise _syntax_error_at(text, r"\bORDER\s+BY\b" if clause == "order" else r"\bLIMIT\b")
    statement = _classified(text, tree, _write_mode(tree, is_replace, keyword), is_replace)
    return dataclasses.replace(statement, delayed=True) if delayed is not None else statement


def _parsed(source: str) -> list[exp.Expression]:
    """sqlglot's trees for `source`; `@@session.name` with a keyword for a name (timestamp)
    is read as `@@name`, which is the same variable, when sqlglot cannot read it."""
    try:
        trees = [tree for tree in sqlglot.parse(source, read="mysql") if tree is not None]
    except ParseError:
        rewritten = _without_session_scope(source) if "@@" in source else None
        if rewritten is None:
            raise
        trees = [tree for tree in sqlglot.parse(rewritten, read="mysql") if tree is not None]
    if len(trees) == 1 and isinstance(trees[0], exp.Command) and trees[0].name.upper() == "SET":
        wrapped = _set_calls_parenthesized(source)
        if wrapped is not None:
            again = [tree for tree in sqlglot.parse(wrapped, read="mysql") if tree is not None]
            return again if len(again) == 1 and isinstance(again[0], exp.Set) else trees
    return trees


def _set_calls_parenthesized(source: str) -> str | None:
    """A SET whose value is a call of a function named like a statement (`SET @s =
    REPLACE(...)`, INSERT(...), TRUNCATE(...)): sqlglot reads the value as a statement and
    gives up; in parentheses the call is an expression, the same value. None: no such value."""
    tokens = _MYSQL.tokenize(source)
    spans: list[tuple[int, int]] = []
    depth, start = 0, None
    for index, token in enumerate(tokens):
        kind = token.token_type
        if kind is TokenType.L_PAREN:
            depth += 1
        elif kind is TokenType.R_PAREN:
            depth -= 1
        elif depth == 0 and kind in (TokenType.EQ, TokenType.COLON_EQ) and start is None and index + 2 < len(tokens):
            call, paren = tokens[index + 1], tokens[index + 2]
            if paren.token_type is TokenType.L_PAREN and call.end + 1 == paren.start:
                start = call.start
        elif depth == 0 and kind is TokenType.COMMA and start is not None:
            spans.append((start, tokens[index - 1].end + 1))
            start = None
        elif depth == 0 and kind is TokenType.COMMA:
            start = None
    if start is not None:
        spans.append((start, tokens[-1].end + 1))
    for begin, end in reversed(spans):
        source = f"{source[:begin]}({source[begin:end]}){source[end:]}"
    return source if spans else None


def _without_session_scope(source: str) -> str | None:
    """`source` with the `session.` / `local.` of each `@@session.name` cut, or None if it has none."""
    tokens = _MYSQL.tokenize(source)
    cuts = [
        (scope.start, dot.end + 1)
        for at, scope, dot in zip(tokens, tokens[1:], tokens[2:])
        if at.token_type is TokenType.SESSION_PARAMETER and scope.text.lower() in ("session", "local") and dot.token_type is TokenType.DOT
    ]
    for start, end in reversed(cuts):
        source = source[:start] + source[end:]
    return source if cuts else None


def _special_form(text: str) -> Statement | None:
    """The statements sqlglot mis-reads, recognised by their form before it sees them."""
    for pattern, kind in (
        (_SAVEPOINT, StatementKind.SAVEPOINT),
        (_RELEASE, StatementKind.RELEASE_SAVEPOINT),
        (_ROLLBACK_TO, StatementKind.ROLLBACK_TO_SAVEPOINT),
    ):
        match = pattern.match(text)
        if match:
            return Statement(text, kind, savepoint=match.group(2))
    if CREATE_TRIGGER_START.match(text):
        return Statement(text, StatementKind.CREATE_TRIGGER, trigger=parse_create_trigger(text, parse_statement))
    routine = routine_statement(text)
    if routine is not None:
        return routine
    if CREATE_FUNCTION_START.match(text):
        return Statement(text, StatementKind.CREATE_FUNCTION, udf=parse_create_function(text))
    if _RENAME_TABLE.match(text):
        return Statement(text, StatementKind.RENAME_TABLE, renames=_rename_pairs(text))
    if VIEW_START.match(text):
        return Statement(text, StatementKind.CREATE_VIEW, view=parse_view(text))
    prepared = parse_prepared_command(text)
    if prepared is not None:
        return Statement(text, _PREPARED_KINDS[prepared.action], prepared=prepared)
    if LOCK_TABLES_START.match(text):
        return Statement(text, StatementKind.LOCK_TABLES, table_locks=parse_lock_tables(text))
    if UNLOCK_TABLES.match(text):
        return Statement(text, StatementKind.UNLOCK_TABLES)
    if RESET_START.match(text):
        return parse_reset(text)
    if DO_START.match(text):
        return parse_do(text, _parsed_statement)
    binlog = _BINLOG.match(text)
    if binlog:
        return Statement(text, StatementKind.BINLOG, events=tuple(decode_events(binlog.group(2))))
    return None


_PREPARED_KINDS = {
    PreparedAction.PREPARE: StatementKind.PREPARE,
    PreparedAction.EXECUTE: StatementKind.EXECUTE,
    PreparedAction.DEALLOCATE: StatementKind.DEALLOCATE_PREPARE,
}


def _rename_pairs(text: str) -> tuple[tuple[exp.Table, exp.Table], ...]:
    """RENAME TABLE a TO b [, c TO d ...]: each pair's tables (sqlglot reads the statement
    as an opaque command); read by tokens, so quoted names keep their case and dots."""
    offset = _RENAME_TABLE.match(text).end()
    try:
        tokens = _MYSQL.tokenize(text[offset:])
    except TokenError:
        raise syntax_error(text, offset) from None
    pairs = []
    while tokens:
        old, tokens = _table_name(text, offset, tokens)
        if not tokens or tokens[0].text.upper() != "TO":
            raise _near(text, offset, tokens)
        new, tokens = _table_name(text, offset, tokens[1:])
        pairs.append((old, new))
        if tokens:
            if tokens[0].token_type is not TokenType.COMMA or len(tokens) == 1:
                raise _near(text, offset, tokens[1:] if tokens[0].token_type is TokenType.COMMA else tokens)
            tokens = tokens[1:]
    if not pairs:
        raise syntax_error(text, len(text))
    return tuple(pairs)


def _near(text: str, offset: int, tokens: list[Token]) -> SqlError:
    """1064 near the first of `tokens` (tokenized from `text[offset:]`), or at the end."""
    return syntax_error(text, offset + tokens[0].start if tokens else len(text))


def _table_name(text: str, offset: int, tokens: list[Token]) -> tuple[exp.Table, list[Token]]:
    """A table name `name` or `db.name` at the start of `tokens`, and the tokens after it."""
    if not tokens or tokens[0].token_type not in (TokenType.VAR, TokenType.IDENTIFIER):
        raise _near(text, offset, tokens)
    parts = [tokens[0]]
    rest = tokens[1:]
    if len(rest) >= 2 and rest[0].token_type is TokenType.DOT and rest[1].token_type in (TokenType.VAR, TokenType.IDENTIFIER):
        parts.append(rest[1])
        rest = rest[2:]
    identifiers = [exp.to_identifier(part.text, quoted=part.token_type is TokenType.IDENTIFIER) for part in parts]
    table = exp.Table(this=identifiers[-1], db=identifiers[0]) if len(identifiers) == 2 else exp.Table(this=identifiers[0])
    return table, rest


def _classified(text: str, tree: exp.Expression, mode: WriteMode, is_replace: bool) -> Statement:
    """The statement `tree` is, by its node type (CREATE and DROP: only of the objects modelled)."""
    if is_replace:
        if not isinstance(tree, exp.Insert) or tree.args.get("conflict") is not None:
            raise _syntax_error_at(text, r"\bON\s+DUPLICATE\b")
        return Statement(text, StatementKind.REPLACE, tree, write_mode=mode)
    if isinstance(tree, (exp.Create, exp.Drop)) and tree.kind == "INDEX":
        tree = index_statement_as_alter(tree)
    if isinstance(tree, exp.Create) and tree.kind in ("DATABASE", "SCHEMA"):
        return Statement(text, StatementKind.CREATE_DATABASE, tree)
    if isinstance(tree, exp.Drop) and tree.kind in ("DATABASE", "SCHEMA"):
        return Statement(text, StatementKind.DROP_DATABASE, tree)
    if isinstance(tree, exp.Use):
        return Statement(text, StatementKind.USE, tree)
    if isinstance(tree, exp.Create):
        if tree.kind != "TABLE":
            raise not_supported(f"CREATE {tree.kind}")
        check_create_table(tree)
        return Statement(text, StatementKind.CREATE_TABLE, tree, write_mode=mode)
    if isinstance(tree, exp.Drop):
        if tree.kind == "TRIGGER":
            return Statement(text, StatementKind.DROP_TRIGGER, tree)
        if tree.kind == "FUNCTION":
            return Statement(text, StatementKind.DROP_FUNCTION, tree)
        if tree.kind == "VIEW":
            return Statement(text, StatementKind.DROP_VIEW, tree)


        if tree.kind == "PROCEDURE":
            return Statement(text, StatementKind.DROP_PROCEDURE, tree)
        if tree.kind != "TABLE":
            raise not_supported(f"DROP {tree.kind}")
        return Statement(text, StatementKind.DROP_TABLE, tree)
    if isinstance(tree, exp.Alter):
        if (tree.args.get("kind") or "").upper() != "TABLE":
            raise not_supported(f"ALTER {tree.args.get('kind')}")
        check_alter_table(tree)
    if isinstance(tree, exp.Analyze):
        if tree.args.get("kind") != "TABLE" or tree.args.get("expression") is not None:
            raise not_supported(f"ANALYZE other than ANALYZE TABLE ({text!r})")
        return Statement(text, StatementKind.ANALYZE_TABLE, tree)
    if isinstance(tree, exp.Show):
        return Statement(text, StatementKind.SHOW, tree)
    for node_type, kind in _KINDS:
        if isinstance(tree, node_type):
            return Statement(text, kind, tree, write_mode=mode)
    words = text.split(None, 2)
    # CREATE USER, DROP EVENT, ...: the object names the statement; else its first word does.
    named = " ".join(words[:2]) if words[0].upper() in ("CREATE", "DROP", "ALTER") and len(words) > 1 else words[0]
    raise unrecognised(text) or not_supported(f"{named.upper()} statements (the simulator models DML, DDL on tables, SET, SHOW, ANALYZE TABLE and transaction control)")


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
    """The `;`-separated statements of a SQL script, as written (a `;` inside a string or
    comment, or inside the BEGIN ... END of a CREATE PROCEDURE, FUNCTION or TRIGGER, does not split)."""
    try:
        tokens = _MYSQL.tokenize(text)
    except TokenError:
        raise syntax_error(text, max(text.rfind("'"), text.rfind('"'), 0)) from None
    statements: list[str] = []
    start: int | None = None
    end = depth = 0
    for index, token in enumerate(tokens):
        if start is not None and text[start : start + 6].upper() == "CREATE":
            depth += block_change(tokens, index)
        if token.token_type is TokenType.SEMICOLON and depth <= 0:
            if start is not None:
                statements.append(text[start : end + 1])
            start, depth = None, 0
            continue
        start = token.start if start is None else start
        end = token.end
    if start is not None:
        statements.append(text[start : end + 1])
    return statements
