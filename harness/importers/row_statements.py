"""Row events written back as the SQL statements that make the same change.

A binlog in ROW format carries no statement for a change, only the rows (and, when the
server annotated them, the statement's text: the importer prefers that). Without it,
each row event becomes statements a server applies with the same effect: a Write_rows
event one multi-row INSERT, each row of an Update_rows or Delete_rows event an UPDATE or
DELETE that finds the row by its primary key (or, for a table without one, by every
column of the before image with `<=>` and LIMIT 1, the same search a replica makes).

Row events name columns by position; the names come from the event's own full row
metadata when it has them, else from the table's CREATE TABLE, read from the schema the
user gives and followed through the binlog's DDL. A table whose columns the importer
cannot follow (an ALTER it does not model, a table never created) gets no statements:
the caller skips its row events and says why.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from decimal import Decimal

import sqlglot
from sqlglot import exp

from server_sim.binlog.binary import columns as c
from server_sim.binlog.binary.json_binary import JsonDiff, JsonDiffOperation, json_text
from server_sim.binlog.events import (
    Delete_rows_log_event,
    Rows_log_event,
    Table_map_log_event,
    Update_rows_log_event,
)
from server_sim.prepared import literal_text
from server_sim.syntax import unquoted_name

_UNSIGNED = frozenset({
    exp.DataType.Type.UTINYINT, exp.DataType.Type.USMALLINT, exp.DataType.Type.UMEDIUMINT,
    exp.DataType.Type.UINT, exp.DataType.Type.UBIGINT,
})


class RowsNotImported(Exception):
    """Row events the importer cannot write as SQL; the message says why."""


@dataclass
class TableShape:
    """What the importer knows of a table: its columns in order, which are unsigned, and
    its primary key (empty when it has none)."""

    columns: list[str]
    unsigned: set[str] = field(default_factory=set)
    primary_key: tuple[str, ...] = ()
    generated: set[str] = field(default_factory=set)  # computed by the server: never assigned


def _key(database: str, table: str) -> tuple[str, str]:
    return database.lower(), table.lower()


_CREATE_TRIGGER = re.compile(
    r"^\s*CREATE\s+(?:DEFINER\s*=\s*\S+\s+)?TRIGGER\s+(?:IF\s+NOT\s+EXISTS\s+)?(`(?:[^`]|``)+`|[\w$.]+)\s+"
    r"(?:BEFORE|AFTER)\s+(INSERT|UPDATE|DELETE)\s+ON\s+(`(?:[^`]|``)+`|[\w$]+)(?:\.(`(?:[^`]|``)+`|[\w$]+))?",
    re.IGNORECASE,
)
_DROP_TRIGGER = re.compile(r"^\s*DROP\s+TRIGGER\s+(?:IF\s+EXISTS\s+)?(`(?:[^`]|``)+`|[\w$.]+)", re.IGNORECASE)


class TableShapes:
    """The tables' shapes as the schema and the binlog's DDL leave them, and the
    triggers on them (a trigger's own row changes are logged with its statement's)."""

    def __init__(self) -> None:
        self.tables: dict[tuple[str, str], TableShape | str] = {}  # a str: why the shape is unknown
        self.triggers: dict[str, tuple[tuple[str, str], str]] = {}  # name -> (table, INSERT/UPDATE/DELETE)

    def has_trigger(self, database: str, table: str, verb: str) -> bool:
        triggers = self.triggers.values()
        return ((database.lower(), table.lower()), verb) in triggers or (("", table.lower()), verb) in triggers

    def follow(self, sql: str, database: str) -> None:
        """Apply one DDL statement (others are ignored) run with `database` as default."""
        trigger = _CREATE_TRIGGER.match(sql)
        if trigger:
            name, verb, first, second = trigger.groups()
            table = _key(unquoted_name(first), unquoted_name(second)) if second else _key(database, unquoted_name(first))
            self.triggers[unquoted_name(name).lower()] = (table, verb.upper())
            return
        dropped = _DROP_TRIGGER.match(sql)
        if dropped:
            self.triggers.pop(unquoted_name(dropped.group(1)).split(".")[-1].lower(), None)
            return
        try:
            node = sqlglot.parse_one(sql, read="mysql")
        except sqlglot.errors.ParseError:
            return
        if isinstance(node, exp.Create) and str(node.args.get("kind", "")).upper() == "TABLE":
            self._create(node, database)
        elif isinstance(node, exp.Drop) and str(node.args.get("kind", "")).upper() == "TABLE":
            for table in node.expressions or [node.this]:
                if isinstance(table, exp.Table):
                    self.tables.pop(self._name(table, database), None)
        elif isinstance(node, exp.Alter) and isinstance(node.this, exp.Table):
            self._alter(node, self._name(node.this, database), sql)
        elif isinstance(node, exp.Command) and node.name.upper() == "RENAME":
            self._unknown_all_named(sql, database, "renamed by RENAME TABLE")

    def _known(self, table_map: Table_map_log_event) -> TableShape | str | None:
        """A table's entry; a schema file's tables (no database) match any database."""
        known = self.tables.get(_key(table_map.database, table_map.table))
        return known if known is not None else self.tables.get(_key("", table_map.table))

    def shape(self, table_map: Table_map_log_event) -> TableShape:
        """The shape of the table a row event changes; RowsNotImported when unknown."""
        if table_map.columns and all(column.name for column in table_map.columns):
            known = self._known(table_map)
            names = [column.name or "" for column in table_map.columns]
            unsigned = {name for name, column in zip(names, table_map.columns) if column.unsigned}
            same = isinstance(known, TableShape) and known.columns == names
            return TableShape(names, unsigned, known.primary_key, known.generated) if same else TableShape(names, unsigned)
        known = self._known(table_map)
        name = f"`{table_map.database}`.`{table_map.table}`"
        if known is None:
            raise RowsNotImported(f"{name} has no CREATE TABLE in the binlog or --schema, so its columns have no names")
        if isinstance(known, str):
            raise RowsNotImported(f"{name} was {known}; its columns' names after that are not known")
        if len(known.columns) != len(table_map.columns):
            raise RowsNotImported(
                f"{name} has {len(table_map.columns)} columns in the binlog but {len(known.columns)} in its CREATE TABLE"
            )
        return known

    def _name(self, table: exp.Table, database: str) -> tuple[str, str]:
        return _key(table.db or database, table.name)

    def _create(self, node: exp.Create, database: str) -> None:
        target = node.this.this if isinstance(node.this, exp.Schema) else node.this
        if not isinstance(target, exp.Table):
            return
        name = self._name(target, database)
        like = node.find(exp.LikeProperty)
        if like is not None and isinstance(like.this, exp.Table):
            source = self.tables.get(self._name(like.this, database))
            self.tables[name] = source if source is not None else "created LIKE a table the importer does not know"
            return
        if not isinstance(node.this, exp.Schema) or node.expression is not None:
            self.tables[name] = "created by CREATE TABLE ... SELECT"
            return
        self.tables[name] = _shape_of(node.this.expressions)

    def _alter(self, node: exp.Alter, name: tuple[str, str], sql: str) -> None:
        shape = self.tables.get(name)
        if not isinstance(shape, TableShape):
            return
        for action in node.args.get("actions") or []:
            if isinstance(action, exp.ColumnDef) and action.args.get("position") is None:
                shape.columns.append(action.name)
                if action.args.get("kind") is not None and action.args["kind"].this in _UNSIGNED:
                    shape.unsigned.add(action.name)
            elif isinstance(action, exp.Drop) and str(action.args.get("kind", "")).upper() == "COLUMN":
                dropped = {column.name.lower() for column in action.args.get("tables") or []}
                shape.columns = [column for column in shape.columns if column.lower() not in dropped]
            elif isinstance(action, (exp.ColumnDef, exp.Drop, exp.RenameColumn, exp.Command)) or _reshapes(sql):
                self.tables[name] = "changed by an ALTER TABLE the importer does not follow"
                return

    def _unknown_all_named(self, sql: str, database: str, why: str) -> None:
        lowered = sql.lower()
        for key in list(self.tables):
            if key[1] in lowered:
                self.tables[key] = why


def _reshapes(sql: str) -> bool:
    """ALTER clauses that move, rename or retype columns."""
    words = sql.upper().split()
    return any(word in ("CHANGE", "MODIFY", "RENAME") for word in words)


def _shape_of(definitions: list[exp.Expression]) -> TableShape:
    columns = [node for node in definitions if isinstance(node, exp.ColumnDef)]
    shape = TableShape([column.name for column in columns])
    shape.unsigned = {column.name for column in columns if column.args.get("kind") is not None and column.args["kind"].this in _UNSIGNED}
    shape.generated = {column.name for column in columns if column.find(exp.ComputedColumnConstraint)}
    inline = [column.name for column in columns if column.find(exp.PrimaryKeyColumnConstraint)]
    keys = [node for node in definitions if isinstance(node, exp.PrimaryKey)]
    if inline:
        shape.primary_key = tuple(inline)
    elif keys:
        shape.primary_key = tuple(part.name for part in keys[0].expressions)
    return shape


def sql_literal(value: object, type_code: int | None = None, unsigned: bool = False) -> str:
    """`value`, as the row event's reader gives it, as a MySQL literal for its column:
    written as the server writes a value into a query (prepared.literal_text), with what a
    row image holds besides (unsigned integers read signed, zero dates, TIME, JSON)."""
    if type_code == c.MYSQL_TYPE_JSON and value is not None:
        return literal_text(json_text(value))  # a document, whichever Python type its top is
    if isinstance(value, int) and not isinstance(value, bool):
        bits = c.INTEGER_CODES.get(type_code or -1)
        return str(value + (1 << bits) if unsigned and bits and value < 0 else value)
    if isinstance(value, dt.datetime) and value == dt.datetime(1, 1, 1):
        return "'0000-00-00 00:00:00'"
    if isinstance(value, dt.date) and value == dt.date(1, 1, 1):
        return "'0000-00-00'"
    if isinstance(value, dt.timedelta):
        return _time_literal(value)
    if isinstance(value, bytes):  # a binary string, or text whose charset the event does not say
        try:
            return literal_text(value.decode("utf-8"))
        except UnicodeDecodeError:
            return f"X'{value.hex()}'"
    if isinstance(value, (dict, list)):
        return literal_text(json_text(value))
    if value is None or isinstance(value, (bool, Decimal, float, str, dt.date)):
        return literal_text(value)
    raise RowsNotImported(f"a value of Python type {type(value).__name__} has no SQL literal here")


_DIFF_FUNCTIONS = {JsonDiffOperation.REPLACE: "JSON_REPLACE", JsonDiffOperation.INSERT: "JSON_INSERT", JsonDiffOperation.REMOVE: "JSON_REMOVE"}


def _json_diffs(column: str, diffs: list[JsonDiff]) -> str:
    """A partial JSON update (Update_rows_partial) as the functions that make it."""
    expression = column
    for diff in diffs:
        path = literal_text(diff.path)
        if diff.operation is JsonDiffOperation.REMOVE:
            expression = f"JSON_REMOVE({expression}, {path})"
        else:
            expression = f"{_DIFF_FUNCTIONS[diff.operation]}({expression}, {path}, CAST({literal_text(json_text(diff.value))} AS JSON))"
    return expression


def _time_literal(value: dt.timedelta) -> str:
    sign = "-" if value < dt.timedelta(0) else ""
    total = abs(value)
    seconds = total.days * 86400 + total.seconds
    fraction = f".{total.microseconds:06d}" if total.microseconds else ""
    return f"'{sign}{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}{fraction}'"


def _quoted_name(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _present(values: list[object], bitmap: list[bool], shape: TableShape, table_map: Table_map_log_event) -> list[tuple[str, str]]:
    """(quoted column name, literal) for each column in the image."""
    pairs: list[tuple[str, str]] = []
    remaining = iter(values)
    for index, included in enumerate(bitmap):
        if not included:
            continue
        if index >= len(shape.columns):
            raise RowsNotImported(f"the row image has column {index + 1}, beyond the table's {len(shape.columns)}")
        name = shape.columns[index]
        info = table_map.columns[index] if index < len(table_map.columns) else None
        value = next(remaining, None)
        if isinstance(value, list) and value and all(isinstance(item, JsonDiff) for item in value):
            pairs.append((_quoted_name(name), _json_diffs(_quoted_name(name), value)))
            continue
        literal = sql_literal(value, info.type_code if info else None, name in shape.unsigned)
        pairs.append((_quoted_name(name), literal))
    return pairs


def _where(pairs: list[tuple[str, str]], shape: TableShape) -> str:
    """Find the row by its primary key when the image has it, else by the whole image."""
    by_name = dict(pairs)
    key = [_quoted_name(column) for column in shape.primary_key]
    if key and all(column in by_name for column in key):
        return " AND ".join(f"{column} = {by_name[column]}" for column in key)
    return " AND ".join(f"{column} <=> {literal}" for column, literal in pairs) + " LIMIT 1"


def row_statements(event: Rows_log_event, table_map: Table_map_log_event, shapes: TableShapes) -> list[str]:
    """The statements that make `event`'s change; RowsNotImported when they cannot be written."""
    shape = shapes.shape(table_map)
    table = _quoted_name(table_map.table)  # in the step's database, the table map's
    generated = {_quoted_name(name) for name in shape.generated}
    if isinstance(event, Update_rows_log_event):
        statements = []
        for row in event.rows:
            before = _present(row.before or [], event.columns_before, shape, table_map)
            after = [pair for pair in _present(row.after or [], event.columns_after, shape, table_map) if pair[0] not in generated]
            assignments = ", ".join(f"{column} = {literal}" for column, literal in after)
            statements.append(f"UPDATE {table} SET {assignments} WHERE {_where(before, shape)}")
        return statements
    if isinstance(event, Delete_rows_log_event):
        return [f"DELETE FROM {table} WHERE {_where(_present(row.before or [], event.columns_before, shape, table_map), shape)}" for row in event.rows]
    images = [[pair for pair in _present(row.after or [], event.columns_after, shape, table_map) if pair[0] not in generated] for row in event.rows]
    if not images:
        return []
    names = ", ".join(column for column, _ in images[0])
    values = ", ".join("(" + ", ".join(literal for _, literal in image) + ")" for image in images)
    return [f"INSERT INTO {table} ({names}) VALUES {values}"]
