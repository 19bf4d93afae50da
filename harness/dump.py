"""A replica's schema as `mysqldump` / `mariadb-dump` writes it, read into what the
simulated slave runs.

A dump is a script for the `mysql` client: statements split by a delimiter the script may
change (DELIMITER), comments, and executable comments (`/*!40101 ... */`, MariaDB's
`/*M!100100 ... */`) whose text the server runs when its version is at least the one
given. Around the tables and rows it saves and sets session variables, locks tables and
names its database; with `--master-data=2` (`--source-data=2`) a comment records the
master's binlog position the data corresponds to.

Each statement is either run by the slave (CREATE TABLE, INSERT ...), understood here
(the session settings a dump uses, its one database, LOCK TABLES, DISABLE KEYS, CHANGE
MASTER TO the dump's position), or refused with 1235 naming it and its line: nothing is
skipped unseen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlglot import exp

from server_sim.catalog import table_from_create
from server_sim.table import Table
from server_sim.engines import EngineRegistry
from server_sim.errors import ErrorCode, SqlError, not_supported
from server_sim.executable_comments import executable_marker
from server_sim.flavor import CommentRules, Flavor
from server_sim.parser import parse_statement, split_statements
from server_sim.statement import StatementKind
from server_sim.syntax import unquoted_name

_SPECIAL = re.compile(r"['\"`#\-/*\n]")
_DELIMITER = re.compile(r"DELIMITER[ \t]+(\S+)[^\n]*", re.IGNORECASE)
_POSITION = re.compile(
    r"CHANGE\s+(?:MASTER|REPLICATION\s+SOURCE)\s+TO\s+(?:MASTER|SOURCE)_LOG_FILE\s*=\s*'([^']*)'\s*,\s*(?:MASTER|SOURCE)_LOG_POS\s*=\s*(\d+)\s*;?\s*$",
    re.IGNORECASE,
)
_NAME = r"`(?:[^`]|``)+`|\w+"
_DATABASE = re.compile(rf"(?:CREATE\s+(?:DATABASE|SCHEMA)(?:\s+IF\s+NOT\s+EXISTS)?|USE)\s+({_NAME})(\s.*)?$", re.IGNORECASE | re.DOTALL)
_DATABASE_OPTIONS = re.compile(r"(\s*(DEFAULT\s+)?(CHARACTER\s+SET|CHARSET|COLLATE)\s*=?\s*\w+)*\s*$", re.IGNORECASE)
_FRAMING = re.compile(rf"(LOCK\s+TABLES\s+({_NAME})(\s+(AS\s+)?\w+)?\s+(READ(\s+LOCAL)?|WRITE)(\s*,\s*({_NAME})(\s+(AS\s+)?\w+)?\s+(READ(\s+LOCAL)?|WRITE))*|UNLOCK\s+TABLES|ALTER\s+TABLE\s+({_NAME})\s+(DISABLE|ENABLE)\s+KEYS)$", re.IGNORECASE)
_ASSIGNMENT = re.compile(r"(?:(@@)?(?:(SESSION|LOCAL|GLOBAL)[ .])?)?(@?\w+)\s*(?::?=\s*(.*)|\s+(.*))$", re.IGNORECASE | re.DOTALL)

UTF8_CHARSETS = frozenset({"utf8", "utf8mb3", "utf8mb4", "binary"})
# Modes that change no value a dump loads (or turn an invalid one into an error, which is
# loud); NO_AUTO_VALUE_ON_ZERO is checked row by row. Others (ANSI_QUOTES,
# NO_BACKSLASH_ESCAPES, PIPES_AS_CONCAT ...) change what the text means: refused.
SQL_MODES = frozenset({
    "NO_AUTO_VALUE_ON_ZERO", "STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "ERROR_FOR_DIVISION_BY_ZERO", "NO_ZERO_DATE",
    "NO_ZERO_IN_DATE", "NO_ENGINE_SUBSTITUTION", "NO_AUTO_CREATE_USER", "ONLY_FULL_GROUP_BY", "NO_DIR_IN_CREATE",
})
# Session variables whose value does not change what the dump loads into the simulated
# slave: it has no binlog of its own, runs no foreign keys (CREATE TABLE refuses them),
# prints no notes; a consistent dump's rows pass unique checks whether they run or not.
NEUTRAL_VARIABLES = frozenset({"sql_log_bin", "foreign_key_checks", "unique_checks", "sql_notes", "sql_warnings"})
UTC_ZONES = frozenset({"+00:00", "UTC"})


class DumpError(Exception):
    """A dump the simulator cannot load as the server would: the error and its line."""

    def __init__(self, line: int, error: SqlError) -> None:
        super().__init__(f"line {line}: error {error.code} ({error.name}): {error.message}")
        self.line = line
        self.error = error


@dataclass(frozen=True)
class DumpStatement:
    line: int  # where the statement starts in the dump, from 1
    sql: str


@dataclass(frozen=True)
class DumpPosition:
    """The master's binlog position the dump's data corresponds to (CHANGE MASTER TO)."""

    log_file: str
    position: int
    line: int


@dataclass
class Dump:
    """What the slave runs, in order, and what the dump says about itself."""

    statements: list[DumpStatement] = field(default_factory=list)
    position: DumpPosition | None = None
    database: str | None = None


def read_dump(text: str, flavor: Flavor) -> Dump:
    """The statements of a dump for the simulated slave, its position and database; a
    DumpError at the first thing the simulator cannot load as the server would."""
    scanner = _Scanner(text, flavor.comment_rules)
    statements, comments = scanner.scan()
    dump = Dump()
    for line, comment in comments:
        _position(dump, line, comment)
    reader = _Reader(dump)
    for statement in statements:
        try:
            reader.read(statement)
        except SqlError as error:
            raise DumpError(statement.line, error) from None
    return dump


def _position(dump: Dump, line: int, text: str) -> bool:
    """Record the position of a CHANGE MASTER TO (statement or `--master-data=2` comment)."""
    match = _POSITION.match(text.strip())
    if match is None:
        return False
    if dump.position is not None:
        raise DumpError(line, not_supported(f"a second CHANGE MASTER TO (the first is at line {dump.position.line})"))
    dump.position = DumpPosition(match.group(1), int(match.group(2)), line)
    return True


class _Scanner:
    """The `mysql` client's and the server lexer's reading of a script: statements split by
    the delimiter outside quotes and comments, executable comments opened when the version
    allows, other comments dropped (`--` and `#` ones kept aside with their line)."""

    def __init__(self, text: str, rules: CommentRules) -> None:
        self.text, self.rules = text, rules
        self.i, self.line, self.delimiter = 0, 1, ";"
        self.parts: list[str] = []
        self.start: int | None = None
        self.executable_from: int | None = None  # line of the open executable comment
        self.statements: list[DumpStatement] = []
        self.comments: list[tuple[int, str]] = []

    def scan(self) -> tuple[list[DumpStatement], list[tuple[int, str]]]:
        text = self.text
        while self.i < len(text):
            if self.start is None and self._delimiter_command():
                continue
            if text.startswith(self.delimiter, self.i):
                self._finish()
                self.i += len(self.delimiter)
                continue
            char = text[self.i]
            if char in "'\"`":
                self._quoted(char)
            elif (char == "-" and text.startswith("--", self.i) and text[self.i + 2 : self.i + 3] in ("", " ", "\t", "\r", "\n")) or char == "#":
                end = text.find("\n", self.i)
                end = len(text) if end < 0 else end
                self.comments.append((self.line, text[self.i : end].lstrip("-#")))
                self.i = end
            elif text.startswith("/*", self.i):
                self._comment()
            elif self.executable_from is not None and text.startswith("*/", self.i):
                self.executable_from = None
                self._take(" ", 2)
            else:
                match = _SPECIAL.search(text, self.i + 1)
                end = match.start() if match else len(text)
                found = text.find(self.delimiter, self.i + 1, end)
                self._take(text[self.i : found if found >= 0 else end])
        if self.executable_from is not None:
            raise DumpError(self.executable_from, SqlError(ErrorCode.ER_PARSE_ERROR, "an executable comment /*! is not closed"))
        self._finish()
        return self.statements, self.comments

    def _take(self, chunk: str, advance: int | None = None) -> None:
        if self.start is None and chunk.strip():
            self.start = self.line + chunk[: len(chunk) - len(chunk.lstrip())].count("\n")
        self.parts.append(chunk)
        self.line += chunk.count("\n") if advance is None else 0
        self.i += len(chunk) if advance is None else advance

    def _finish(self) -> None:
        sql = "".join(self.parts).strip()
        if sql and self.start is not None:
            self.statements.append(DumpStatement(self.start, sql))
        self.parts, self.start = [], None

    def _delimiter_command(self) -> bool:
        """The client's DELIMITER command, at the start of a statement; whitespace before a
        statement is consumed here."""
        blank = len(self.text) - len(self.text[self.i :].lstrip())
        if blank > self.i:
            self.line += self.text.count("\n", self.i, blank)
            self.i = blank
            return True
        match = _DELIMITER.match(self.text, self.i)
        if match is None:
            return False
        self.delimiter = match.group(1)
        self.i = match.end()
        return True

    def _quoted(self, quote: str) -> None:
        text, i = self.text, self.i + 1
        while True:
            end = text.find(quote, i)
            escape = text.find("\\", i, end if end >= 0 else len(text)) if quote != "`" else -1
            if escape >= 0:
                i = escape + 2
            elif end < 0:
                raise DumpError(self.line, SqlError(ErrorCode.ER_PARSE_ERROR, f"a string or name opened with {quote} is not closed"))
            elif text.startswith(quote * 2, end):
                i = end + 2
            else:
                self._take(text[self.i : end + 1])
                return

    def _comment(self) -> None:
        executable = executable_marker(self.text, self.i, self.rules) if self.executable_from is None else None
        if executable is not None and executable.runs:
            self.executable_from = self.line
            self._take(" ", executable.end - self.i)
            return
        end = self.text.find("*/", self.i + 2)
        if end < 0:
            raise DumpError(self.line, SqlError(ErrorCode.ER_PARSE_ERROR, "a comment /* is not closed"))
        self.line += self.text.count("\n", self.i, end)
        self.parts.append(" ")
        self.i = end + 2


class _Reader:
    """Sorts the statements: the slave's, the session settings, the framing, the position."""

    def __init__(self, dump: Dump) -> None:
        self.dump = dump
        self.engines = EngineRegistry()
        self.saved: dict[str, str] = {}  # user variable -> the system variable saved in it
        self.sql_mode: set[str] = set()
        self.tables: dict[str, Table] = {}

    def read(self, statement: DumpStatement) -> None:
        sql = statement.sql
        if _position(self.dump, statement.line, sql) or _FRAMING.match(sql):
            return
        database = _DATABASE.match(sql)
        if database is not None:
            self._database(unquoted_name(database.group(1)), sql.split(None, 1)[0].upper() == "USE", database.group(2) or "")
        elif re.match(r"SET\s", sql, re.IGNORECASE):
            for assignment in _assignments(sql[3:]):
                self._assign(assignment.strip())
        else:
            if len(split_statements(sql)) > 1:
                raise not_supported("a statement with ';' inside it (a BEGIN ... END body under DELIMITER)")
            self._slave_statement(statement)

    def _database(self, name: str, use: bool, options: str) -> None:
        if not use and not _DATABASE_OPTIONS.fullmatch(options):
            raise not_supported(f"CREATE DATABASE option {options.strip()!r}")
        if self.dump.database is not None and self.dump.database.lower() != name.lower():
            raise not_supported(f"a second database `{name}` (the simulated slave holds one, `{self.dump.database}`)")
        self.dump.database = name

    def _assign(self, assignment: str) -> None:
        match = _ASSIGNMENT.match(assignment)
        if match is None:
            raise not_supported(f"SET {assignment}")
        system, scope, name, value = match.group(1), (match.group(2) or "").upper(), match.group(3).lower(), (match.group(4) or match.group(5) or "").strip()
        if name.startswith("@") and not system:
            saved = re.fullmatch(r"@@(?:SESSION\.)?(\w+)", value, re.IGNORECASE)
            if saved is None:
                raise not_supported(f"SET {assignment} (a user variable the dump sets to something else than a variable's value)")
            self.saved[name[1:].lower()] = saved.group(1).lower()
            return
        if scope == "GLOBAL":
            raise not_supported(f"SET GLOBAL {name}")
        restored = re.fullmatch(r"@(\w+)", value)
        if restored is not None:
            self._restore(name, restored.group(1).lower(), assignment)
            return
        self._set(name, _unquote_value(value), assignment)

    def _restore(self, name: str, variable: str, assignment: str) -> None:
        """`sql_mode = @OLD_SQL_MODE`: back to the value the dump saved, the slave's own."""
        if self.saved.get(variable) != name:
            raise not_supported(f"SET {assignment} (a user variable the dump did not save {name} in)")
        if name == "sql_mode":
            self.sql_mode = set()

    def _set(self, name: str, value: str, assignment: str) -> None:
        if name in NEUTRAL_VARIABLES:
            return
        if name in ("names", "character_set_client", "character_set_results", "character_set_connection", "collation_connection"):
            charset = value.split()[0].split("_")[0].lower() if value else ""
            if charset not in UTF8_CHARSETS:
                raise not_supported(f"SET {assignment} (the dump is read as UTF-8)")
        elif name == "time_zone":
            if value.upper() not in UTC_ZONES:
                raise not_supported(f"SET {assignment} (the simulated servers' TIMESTAMPs are in UTC)")
        elif name == "sql_mode":
            modes = {mode.strip().upper() for mode in value.split(",") if mode.strip()}
            unknown = sorted(modes - SQL_MODES)
            if unknown:
                raise not_supported(f"sql_mode {unknown[0]}")
            self.sql_mode = modes
        else:
            raise not_supported(f"SET {assignment}")

    def _slave_statement(self, statement: DumpStatement) -> None:
        """A statement the slave runs; an auto-increment 0 is checked under NO_AUTO_VALUE_ON_ZERO."""
        parsed = parse_statement(statement.sql)
        if parsed.kind is StatementKind.CREATE_TABLE and parsed.ast is not None:
            try:
                table = table_from_create(parsed.ast, self.engines)
            except SqlError:
                table = None  # the slave refuses it when it runs, with its own error
            if table is not None:
                self.tables[table.name.lower()] = table
        elif parsed.kind in (StatementKind.INSERT, StatementKind.REPLACE) and "NO_AUTO_VALUE_ON_ZERO" in self.sql_mode:
            _check_zero_auto_value(parsed.ast, self.tables)
        self.dump.statements.append(statement)


def _check_zero_auto_value(tree: exp.Expression | None, tables: dict[str, Table]) -> None:
    """1235 when a row gives 0 to an AUTO_INCREMENT column: the server keeps 0 under
    NO_AUTO_VALUE_ON_ZERO, the simulator would generate a value."""
    if not isinstance(tree, exp.Insert) or not isinstance(tree.expression, exp.Values):
        return
    target = tree.this
    table_node = target.this if isinstance(target, exp.Schema) else target
    table = tables.get(table_node.name.lower()) if isinstance(table_node, exp.Table) else None
    auto = table.auto_increment_column if table is not None else None
    if auto is None:
        return
    names = [column.name.lower() for column in target.expressions] if isinstance(target, exp.Schema) else [c.name.lower() for c in table.columns]
    if auto.name.lower() not in names:
        return
    index = names.index(auto.name.lower())
    for row in tree.expression.expressions:
        values = row.expressions
        if index < len(values) and isinstance(values[index], exp.Literal) and not values[index].is_string and values[index].this.strip("0.") == "":
            raise not_supported(f"NO_AUTO_VALUE_ON_ZERO (a 0 in AUTO_INCREMENT column `{auto.name}` of `{table.name}`)")


def _assignments(text: str) -> list[str]:
    """The comma-separated assignments of a SET, commas inside quotes kept."""
    parts, current, quote = [], [], ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"`":
            quote = char
        elif char == ",":
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts


def _unquote_value(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value
