"""Triggers: `CREATE TRIGGER` / `DROP TRIGGER`, and what a trigger's body refers to.

sqlglot reads CREATE TRIGGER only as an opaque command, so the header (name, timing,
event, table, FOLLOWS/PRECEDES) is read here and the one-statement body is parsed with
sqlglot: an INSERT, REPLACE, UPDATE or DELETE, or `SET NEW.col = expr, ...`. `NEW.col` and
`OLD.col` stay in the body's tree as columns of the tables `NEW` and `OLD`; the executor
puts the row's values in their places each time the trigger fires.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from .errors import ErrorCode, SqlError, not_supported

if TYPE_CHECKING:
    from .parser import Statement


class TriggerTiming(Enum):
    BEFORE = "BEFORE"
    AFTER = "AFTER"


class TriggerEvent(Enum):
    """trg_event_type: the row operation that fires a trigger."""

    INSERT = "INSERT"
    UPDATE = "UPDATE"
    DELETE = "DELETE"


class RowVersion(str, Enum):
    """The two pseudo-tables of a trigger body."""

    NEW = "NEW"
    OLD = "OLD"


# The row versions each event has (ER_TRG_NO_SUCH_ROW_IN_TRG for the other).
_ROWS_OF_EVENT = {
    TriggerEvent.INSERT: {RowVersion.NEW},
    TriggerEvent.UPDATE: {RowVersion.NEW, RowVersion.OLD},
    TriggerEvent.DELETE: {RowVersion.OLD},
}

_NAME = r"(?:`(?:[^`]|``)+`|\w+)"
_DEFINER = r"DEFINER\s*=\s*(?:CURRENT_USER(?:\s*\(\s*\))?|(?:`[^`]*`|'[^']*'|\"[^\"]*\"|[\w.%-]+)(?:\s*@\s*(?:`[^`]*`|'[^']*'|\"[^\"]*\"|[\w.%-]+))?)"
_CREATE_TRIGGER = re.compile(
    rf"^\s*CREATE\s+(?:{_DEFINER}\s+)?(?P<keyword>TRIGGER)\s+(?:(?P<db>{_NAME})\s*\.\s*)?(?P<name>{_NAME})\s+"
    rf"(?P<timing>BEFORE|AFTER)\s+(?P<event>INSERT|UPDATE|DELETE)\s+ON\s+(?:{_NAME}\s*\.\s*)?(?P<table>{_NAME})\s+"
    rf"FOR\s+EACH\s+ROW\s+(?:(?P<order>FOLLOWS|PRECEDES)\s+(?P<other>{_NAME})\s+)?(?P<body>.+)$",
    re.IGNORECASE | re.DOTALL,
)
CREATE_TRIGGER_START = re.compile(rf"^\s*CREATE\s+(?:{_DEFINER}\s+)?TRIGGER\b", re.IGNORECASE)
_SET_BODY = re.compile(r"^\s*SET\s+", re.IGNORECASE)


def _unquoted(name: str) -> str:
    return name[1:-1].replace("``", "`") if name.startswith("`") else name


class TriggerOrder(Enum):
    FOLLOWS = "FOLLOWS"
    PRECEDES = "PRECEDES"


@dataclass(frozen=True)
class TriggerDefinition:
    """A parsed CREATE TRIGGER: the header, and the body as a statement or as assignments to NEW."""

    name: str
    timing: TriggerTiming
    event: TriggerEvent
    table: str
    sql: str  # the statement as written
    body_start: int  # where the TRIGGER keyword starts in `sql` (the server logs from there)
    body: Statement | None = None  # an INSERT, REPLACE, UPDATE or DELETE
    assignments: tuple[tuple[str, exp.Expression], ...] = ()  # SET NEW.col = expr, in order
    order: TriggerOrder | None = None
    other: str | None = None  # the trigger FOLLOWS/PRECEDES names

    def row_references(self) -> list[tuple[RowVersion, str]]:
        """Every NEW.col / OLD.col the body reads or assigns."""
        trees = [self.body.ast] if self.body is not None else [expression for _, expression in self.assignments]
        found = [(RowVersion.NEW, column) for column, _ in self.assignments]
        for tree in trees:
            for node in tree.find_all(exp.Column):
                version = row_version(node)
                if version is not None:
                    found.append((version, node.name))
        return found

    def check(self) -> None:
        """The body's row references against the event and timing (1363, 1362)."""
        allowed = _ROWS_OF_EVENT[self.event]
        for version, _ in self.row_references():
            if version not in allowed:
                raise SqlError(ErrorCode.ER_TRG_NO_SUCH_ROW_IN_TRG, version.value, self.event.value)
        if self.assignments and self.timing is TriggerTiming.AFTER:
            raise SqlError(ErrorCode.ER_TRG_CANT_CHANGE_ROW, "NEW", "after ")


def row_version(node: exp.Column) -> RowVersion | None:
    """NEW or OLD when `node` is `NEW.col` / `OLD.col`."""
    qualifier = node.table.upper()
    return RowVersion(qualifier) if qualifier in ("NEW", "OLD") and not node.args.get("db") else None


def parse_create_trigger(text: str) -> TriggerDefinition:
    """Read a CREATE TRIGGER statement; raises 1064 on a malformed one, 1235 on a body not modelled."""
    match = _CREATE_TRIGGER.match(text)
    if match is None:
        raise SqlError(ErrorCode.ER_PARSE_ERROR, f"CREATE TRIGGER needs `name {{BEFORE|AFTER}} {{INSERT|UPDATE|DELETE}} ON table FOR EACH ROW statement` (statement: {text!r})")
    body_text = match.group("body").strip()
    if re.match(r"^BEGIN\b", body_text, re.IGNORECASE):
        raise not_supported(f"trigger body {body_text!r} (BEGIN ... END compound statements)")
    header = {
        "name": _unquoted(match.group("name")),
        "timing": TriggerTiming(match.group("timing").upper()),
        "event": TriggerEvent(match.group("event").upper()),
        "table": _unquoted(match.group("table")),
        "sql": text,
        "body_start": match.start("keyword"),
        "order": TriggerOrder(match.group("order").upper()) if match.group("order") else None,
        "other": _unquoted(match.group("other")) if match.group("other") else None,
    }
    if _SET_BODY.match(body_text):
        tree = _parse_body("UPDATE _trigger_row " + body_text, body_text)
        assignments = []
        for item in tree.expressions:
            target = item.this if isinstance(item, exp.EQ) else None
            if not isinstance(target, exp.Column) or row_version(target) is None:
                raise not_supported(f"trigger body {body_text!r} (a SET body assigns NEW.column only)")
            if row_version(target) is RowVersion.OLD:
                raise SqlError(ErrorCode.ER_TRG_CANT_CHANGE_ROW, "OLD", "")
            assignments.append((target.name, item.expression))
        definition = TriggerDefinition(**header, assignments=tuple(assignments))
    else:
        # Both import this module: the parser reads CREATE TRIGGER through it.
        from .executor import ROW_STATEMENTS
        from .parser import parse_statement

        body = parse_statement(body_text)
        if body.kind not in ROW_STATEMENTS:
            raise not_supported(f"trigger body {body_text!r} (the simulator models one INSERT, REPLACE, UPDATE, DELETE or SET NEW.col = ...)")
        definition = TriggerDefinition(**header, body=body)
    definition.check()
    return definition


def _parse_body(source: str, body_text: str) -> exp.Expression:
    try:
        trees = [tree for tree in sqlglot.parse(source, read="mysql") if tree is not None]
    except (ParseError, TokenError) as error:
        raise SqlError(ErrorCode.ER_PARSE_ERROR, f"{str(error).splitlines()[0]} (trigger body: {body_text!r})") from None
    if len(trees) != 1:
        raise not_supported(f"trigger body {body_text!r} (BEGIN ... END and compound bodies)")
    return trees[0]


def logged_create_trigger(definition: TriggerDefinition, user: str) -> str:
    """The text the server writes to the binlog: `CREATE DEFINER=`user`@`host` ` followed by
    the statement from its TRIGGER keyword on (the definer clause as written is replaced)."""
    name, _, host = user.partition("@")
    return f"CREATE DEFINER=`{name}`@`{host}` {definition.sql[definition.body_start:]}"
