"""The catalog: the tables of one server, built from DDL (the model is server_sim/table.py).

Everything replication depends on comes from here, not from DuckDB: key checks, the
primary-key equivalent, auto-increment, defaults and physical row order.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp

from .table import Column, DefaultKind, Key, KeyKind, Table
from .engines import BUILTIN_ENGINES, DEFAULT_ENGINE, SYSTEM_ENGINES, EngineRegistry
from .compound.routine import Routine
from .errors import ErrorCode, SqlError, not_supported
from .expressions import constant_value, is_constant
from .foreign_keys import ForeignKey, is_foreign_key_clause
from .key_parts import checked_parts, key_parts, without_outgrown_prefixes
from .system_tables import SystemTable
from .statement import TriggerDefinition, TriggerEvent, TriggerTiming
from .udf import Udf
from .views import ViewDefinition
from .charsets import charset_of_collation, resolve_collation
from .collation import compared_by_the_rule, compares_exactly
from .temporal_types import TemporalRules
from .type_declarations import column_type_from_sqlglot
from .types import MARIADB_JSON, ColumnType, TypeFamily


def _literal_value(node: exp.Expression) -> object:
    """The value of a constant DEFAULT expression."""
    while isinstance(node, exp.Paren):
        node = node.this
    if not is_constant(node):
        raise not_supported(f"DEFAULT expression {node.sql(dialect='mysql')}")
    return constant_value(node)


def is_json_valid_check(item: exp.Expression, column: str) -> bool:
    """`CHECK (json_valid(column))`: the constraint of MariaDB's JSON alias."""
    check = item.this if isinstance(item, exp.CheckColumnConstraint) else None
    return (
        isinstance(check, exp.Anonymous)
        and check.name.lower() == "json_valid"
        and len(check.expressions) == 1
        and isinstance(check.expressions[0], exp.Column)
        and check.expressions[0].name.lower() == column.lower()
    )


@dataclass(frozen=True)
class ColumnDefaults:
    """What a column definition takes from outside itself. Where a text column without its
    own CHARACTER SET / COLLATE takes its collation: its table's default, else its
    database's; and the flavor's utf8mb4 default collation. `temporal`: the rules a
    DEFAULT's date is read by under a strict sql_mode (its NO_ZERO_DATE makes a zero date
    1067); None: outside strict mode, where the server keeps a zero date (1235)."""

    table: str | None = None
    utf8mb4_collation: str = "utf8mb4_general_ci"
    temporal: TemporalRules | None = None


# Text types and the binary type each becomes with CHARACTER SET binary.
_BINARY_OF = {"CHAR": "BINARY", "VARCHAR": "VARBINARY", "TINYTEXT": "TINYBLOB", "TEXT": "BLOB", "MEDIUMTEXT": "MEDIUMBLOB", "LONGTEXT": "LONGBLOB"}


def _column_collation(node: exp.ColumnDef, column_type: ColumnType, defaults: ColumnDefaults) -> ColumnType:
    """A text column's type with its collation: its own clause, else the table's default."""
    charset = collation = None
    binary = False
    for constraint in node.args.get("constraints") or []:
        item = constraint.args.get("kind")
        binary = binary or isinstance(item, exp.BinaryColumnConstraint)
        if isinstance(item, (exp.CharacterSetColumnConstraint, exp.CollateColumnConstraint)):
            word = item.this.name or item.this.sql(dialect="mysql")
            if (charset if isinstance(item, exp.CharacterSetColumnConstraint) else collation) is not None:
                raise not_supported(f"a second {constraint.sql(dialect='mysql')} on column {node.name}")
            if isinstance(item, exp.CharacterSetColumnConstraint):
                charset = word
            else:
                collation = word
    if column_type.family is not TypeFamily.STRING:
        if charset is not None or collation is not None or binary:
            raise not_supported(f"CHARACTER SET, COLLATE or BINARY on a {column_type.name} column ({node.sql(dialect='mysql')!r})")
        return column_type
    resolved = resolve_collation(charset, collation, defaults.table, defaults.utf8mb4_collation)
    if binary:
        # The BINARY attribute: its character set's _bin collation (get_bin_collation).
        if collation is not None:
            raise not_supported(f"BINARY with COLLATE on column {node.name}")
        resolved = resolve_collation(None, f"{charset_of_collation(resolved)}_bin", None, defaults.utf8mb4_collation)
    if resolved == "binary":
        return dataclasses.replace(column_type, name=_BINARY_OF[column_type.name])
    return dataclasses.replace(column_type, collation=_compared_collation(node.name, resolved))


def _compared_collation(column: str, collation: str | None) -> str | None:
    """A text column's collation, refused (1235) when it tells case apart (collation.py)."""
    if collation is not None and not compared_by_the_rule(collation) and not compares_exactly(collation):
        raise not_supported(f"collation {collation} of column {column} (the simulator compares text ignoring case, as the _ci collations do, or by code point, as the _bin ones of utf8mb4, utf8mb3 and ascii do)")
    return collation


def column_from_definition(node: exp.ColumnDef, defaults: ColumnDefaults = ColumnDefaults()) -> tuple[Column, list[KeyKind]]:
    """A column and the keys its own constraints declare (`a INT PRIMARY KEY`)."""
    name = node.name
    kind = node.args.get("kind")
    if kind is None:
        raise SqlError(ErrorCode.ER_PARSE_ERROR, f"column '{name}' has no type")
    column_type = _column_collation(node, column_type_from_sqlglot(kind, name), defaults)
    nullable = True
    default_kind, default = DefaultKind.VALUE, None
    explicit_default = False
    auto_increment = on_update = False
    keys: list[KeyKind] = []
    for constraint in node.args.get("constraints") or []:
        item = constraint.args.get("kind")
        if isinstance(item, exp.NotNullColumnConstraint):
            nullable = bool(item.args.get("allow_null"))
        elif isinstance(item, exp.DefaultColumnConstraint):
            explicit_default = True
            if _now_precision(item.this) is not None:
                if _now_precision(item.this) != _fsp_of_datetime(column_type):
                    raise SqlError(ErrorCode.ER_INVALID_DEFAULT, name)
                default_kind = DefaultKind.CURRENT_TIMESTAMP
            else:
                default = _literal_value(item.this)
        elif isinstance(item, exp.AutoIncrementColumnConstraint):
            auto_increment = True
        elif isinstance(item, exp.PrimaryKeyColumnConstraint):
            keys.append(KeyKind.PRIMARY)
            nullable = False
        elif isinstance(item, exp.UniqueColumnConstraint):
            if any(item.args.values()):  # a column's UNIQUE has no name: sqlglot read a word after it as one
                raise not_supported(f"column attribute {constraint.sql(dialect='mysql')} (write the key as its own clause)")
            keys.append(KeyKind.UNIQUE)
        elif isinstance(item, exp.OnUpdateColumnConstraint):
            if _now_precision(item.this) != _fsp_of_datetime(column_type):
                raise SqlError(ErrorCode.ER_INVALID_ON_UPDATE, name)
            on_update = True
        elif isinstance(item, (exp.CommentColumnConstraint, exp.CharacterSetColumnConstraint, exp.CollateColumnConstraint, exp.BinaryColumnConstraint)):
            continue  # the collation's (_column_collation)
        elif is_json_valid_check(item, name) and column_type.name == "LONGTEXT" and column_type.charset == "utf8mb4":
            column_type = MARIADB_JSON  # MariaDB's JSON as SHOW CREATE TABLE prints it (utf8mb4_bin)
        else:
            raise not_supported(f"column attribute {constraint.sql(dialect='mysql')}")
    if KeyKind.PRIMARY in keys:
        nullable = False
    if not nullable and not explicit_default and default_kind is DefaultKind.VALUE:
        default_kind = DefaultKind.NONE
    if auto_increment:
        if not column_type.is_integer and column_type.family is not TypeFamily.FLOAT:
            raise SqlError(ErrorCode.ER_WRONG_AUTO_KEY)
        default_kind, default = DefaultKind.VALUE, None
    if default_kind is DefaultKind.VALUE and default is not None:
        default = _default_value(column_type, default, name, defaults)
    if default is None and explicit_default and not nullable and default_kind is DefaultKind.VALUE:
        raise SqlError(ErrorCode.ER_INVALID_DEFAULT, name)
    column = Column(name, column_type, nullable, default_kind, default, auto_increment, on_update)
    return column, keys


def _default_value(column_type: ColumnType, default: object, name: str, defaults: ColumnDefaults) -> object:
    """A DEFAULT's value in its column's type; 1067 where the column cannot hold it."""
    try:
        return column_type.coerce(default, name, 1, defaults.temporal)
    except SqlError as error:
        if error.error is ErrorCode.ER_NOT_SUPPORTED_YET:
            raise  # a value the server keeps and the simulator cannot (the zero date)
        raise SqlError(ErrorCode.ER_INVALID_DEFAULT, name) from None


def _now_precision(node: exp.Expression | None) -> int | None:
    """n of CURRENT_TIMESTAMP(n) / NOW(n) (0 without it); None for any other expression."""
    if isinstance(node, exp.CurrentTimestamp):
        argument = node.this
    elif isinstance(node, exp.Anonymous) and node.name.upper() in ("NOW", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP"):
        argument = node.expressions[0] if node.expressions else None
    else:
        return None
    return int(argument.name) if isinstance(argument, exp.Literal) else 0


def _fsp_of_datetime(column_type: ColumnType) -> int | None:
    """The precision a DATETIME/TIMESTAMP column's CURRENT_TIMESTAMP must have (none for
    other types: their CURRENT_TIMESTAMP default is 1067)."""
    return (column_type.scale or 0) if column_type.family is TypeFamily.DATETIME else None


def key_from_constraint(node: exp.Expression) -> Key:
    """A key from a table-level [CONSTRAINT name] PRIMARY KEY / UNIQUE / KEY clause: a
    UNIQUE key is named by its index name, else by the constraint's; the primary key is
    always PRIMARY (see ignored_primary_key_names)."""
    if isinstance(node, exp.Constraint):
        if len(node.expressions) != 1:
            raise not_supported(f"table element {node.sql(dialect='mysql')}")
        key = key_from_constraint(node.expressions[0])
        if key.kind is KeyKind.UNIQUE and not key.name:
            return dataclasses.replace(key, name=node.name)
        return key
    if isinstance(node, exp.PrimaryKey):
        return Key("PRIMARY", KeyKind.PRIMARY, *key_parts(node.expressions))
    if isinstance(node, exp.UniqueColumnConstraint):
        schema = node.this
        name = schema.this.name if schema is not None and schema.this is not None else ""
        return Key(name, KeyKind.UNIQUE, *key_parts(schema.expressions if schema is not None else []))
    if isinstance(node, exp.IndexColumnConstraint):
        name = node.this.name if node.this is not None else ""
        return Key(name, KeyKind.INDEX, *key_parts(node.expressions))
    raise not_supported(f"table element {node.sql(dialect='mysql')}")


class TableBuilder:
    """Assembles a table definition with MySQL's naming and validity rules."""

    def __init__(self, table: Table, blob_keys_by_prefix: bool = False) -> None:
        self.table = table
        self.blob_keys_by_prefix = blob_keys_by_prefix  # Flavor.blob_keys_by_prefix

    def add_column(self, column: Column, position: int | None = None) -> None:
        if self.table.find_column(column.name) is not None:
            raise SqlError(ErrorCode.ER_DUP_FIELDNAME, column.name)
        if position is None:
            self.table.columns.append(column)
        else:
            self.table.columns.insert(position, column)

    def add_key(self, key: Key) -> None:
        table = self.table
        for name in key.columns:
            if table.find_column(name) is None:
                raise SqlError(ErrorCode.ER_KEY_COLUMN_DOES_NOT_EXITS, name)
        key = checked_parts(key, [table.column(name) for name in key.columns], self.blob_keys_by_prefix)
        columns = tuple(table.column(name).name for name in key.columns)
        prefixes = tuple((table.column(name).name, length) for name, length in key.prefixes)
        if key.kind is KeyKind.PRIMARY:
            if any(existing.kind is KeyKind.PRIMARY for existing in table.keys):
                raise SqlError(ErrorCode.ER_MULTIPLE_PRI_KEY)
            # PRIMARY KEY columns are NOT NULL, silently.
            for name in columns:
                column = table.column(name)
                if column.nullable:
                    without_default = column.default is None and column.default_kind is DefaultKind.VALUE
                    table.columns[table.columns.index(column)] = dataclasses.replace(
                        column,
                        nullable=False,
                        default_kind=DefaultKind.NONE if without_default and not column.auto_increment else column.default_kind,
                    )
            table.keys.insert(0, Key("PRIMARY", KeyKind.PRIMARY, columns, prefixes))
            return
        name = key.name or self._generated_key_name(columns[0])
        if any(existing.name.lower() == name.lower() for existing in table.keys):
            raise SqlError(ErrorCode.ER_DUP_KEYNAME, name)
        table.keys.append(Key(name, key.kind, columns, prefixes))

    def _generated_key_name(self, first_column: str) -> str:
        """MySQL names an anonymous key after its first column: b, b_2, b_3 ..."""
        taken = {key.name.lower() for key in self.table.keys}
        candidate, suffix = first_column, 2
        while candidate.lower() in taken:
            candidate, suffix = f"{first_column}_{suffix}", suffix + 1
        return candidate

    def check(self) -> None:
        table = self.table
        if not table.columns:
            raise SqlError(ErrorCode.ER_CANT_REMOVE_ALL_FIELDS)
        outgrown = [without_outgrown_prefixes(key, table.columns) for key in table.keys]
        table.keys = [checked_parts(key, [c for c in map(table.find_column, key.columns) if c is not None], self.blob_keys_by_prefix) for key in outgrown]
        autos = [column for column in table.columns if column.auto_increment]
        if len(autos) > 1:
            raise SqlError(ErrorCode.ER_WRONG_AUTO_KEY)
        if autos:
            # The auto column must be in a key; InnoDB needs it first (MyISAM allows a later part).
            name = autos[0].name.lower()
            positions = [
                [c.lower() for c in key.columns].index(name)
                for key in table.keys
                if name in (c.lower() for c in key.columns)
            ]
            if not positions or (table.engine.clustered and 0 not in positions):
                raise SqlError(ErrorCode.ER_WRONG_AUTO_KEY)


def table_from_create(
    node: exp.Create,
    engines: EngineRegistry,
    selected: Sequence[Column] = (),
    charsets: ColumnDefaults = ColumnDefaults(),
    default_engines: tuple[str, str] = (DEFAULT_ENGINE, DEFAULT_ENGINE),
    blob_keys_by_prefix: bool = False,
) -> Table:
    """The definition a `CREATE TABLE name (...) ENGINE=...` declares; CREATE ... SELECT
    appends the `selected` columns its SELECT adds, after the declared ones. `charsets`
    gives the database's default collation (as its `table`), which the table's DEFAULT
    CHARSET / COLLATE replaces. Without ENGINE the table gets the session's
    `default_engines` (default_storage_engine, default_tmp_storage_engine);
    `blob_keys_by_prefix` is the flavor's (TableBuilder)."""
    schema = node.this
    if not isinstance(schema, exp.Schema) and not selected:
        raise not_supported("CREATE TABLE without a column list (CREATE ... LIKE)")
    elements = schema.expressions if isinstance(schema, exp.Schema) else []
    name = schema.this.name if isinstance(schema, exp.Schema) else schema.name
    properties = node.args.get("properties")
    engine_name = None
    temporary = False
    for prop in properties.expressions if properties else []:
        if isinstance(prop, exp.EngineProperty):
            engine_name = prop.name
        elif isinstance(prop, exp.TemporaryProperty):
            temporary = True
        elif isinstance(
            prop,
            (exp.CharacterSetProperty, exp.CollateProperty, exp.SchemaCommentProperty, exp.AutoIncrementProperty),
        ):
            continue
        else:
            raise not_supported(f"table option {prop.sql(dialect='mysql')}")
    if engine_name is None:
        engine_name = default_engines[1] if temporary and default_engines[1] != "NULL" else default_engines[0]
    table = Table(name, [], [], engines.get(engine_name), temporary=temporary)
    for prop in properties.expressions if properties else []:
        if isinstance(prop, exp.AutoIncrementProperty):
            table.auto_increment = int(prop.this.name)
    table.collation = _table_collation(properties.expressions if properties else [], charsets)
    charsets = dataclasses.replace(charsets, table=table.collation)
    builder = TableBuilder(table, blob_keys_by_prefix)
    pending_keys: list[Key] = []
    for element in elements:
        if is_foreign_key_clause(element):
            continue  # the executor adds them, against the parent tables (foreign_key_ddl)
        if isinstance(element, exp.ColumnDef):
            column, keys = column_from_definition(element, charsets)
            builder.add_column(column)
            pending_keys.extend(Key("" if kind is not KeyKind.PRIMARY else "PRIMARY", kind, (column.name,)) for kind in keys)
        else:
            pending_keys.append(key_from_constraint(element))
    for column in selected:
        builder.add_column(_with_collation(column, table.collation))
    for key in pending_keys:
        builder.add_key(key)
    builder.check()
    return table


def _table_collation(options: list[exp.Expression], charsets: ColumnDefaults) -> str | None:
    """A table's default collation: its DEFAULT CHARSET / COLLATE options, else the database's."""
    charset = next((option.name for option in options if isinstance(option, exp.CharacterSetProperty)), None)
    collation = next((option.name for option in options if isinstance(option, exp.CollateProperty)), None)
    return resolve_collation(charset, collation, charsets.table, charsets.utf8mb4_collation)


def _with_collation(column: Column, collation: str | None) -> Column:
    """A CREATE ... SELECT column computed by an expression (no collation yet) in the table's."""
    if column.type.family is not TypeFamily.STRING or column.type.collation is not None or collation is None:
        return column
    return dataclasses.replace(column, type=dataclasses.replace(column.type, collation=_compared_collation(column.name, collation)))


@dataclass
class Catalog:
    """The tables of one server's `test` database, plus each session's temporary tables and
    the system tables of the server's flavor (defined on first use)."""

    database: str = "test"
    tables: dict[str, Table] = field(default_factory=dict)
    temporary: dict[tuple[int, str], Table] = field(default_factory=dict)
    system_tables: tuple[SystemTable, ...] = ()
    # Databases CREATE DATABASE made besides the modelled one: known, so that a statement on
    # one of their tables is refused (1235) instead of answered as a missing table.
    databases: set[str] = field(default_factory=set)
    # Whether any table ever had a FOREIGN KEY: until then no row change looks for one.
    foreign_keys_defined: bool = False
    _system: dict[tuple[str, str], Table] = field(default_factory=dict, repr=False)

    def resolve(self, database: str | None, name: str, session_id: int | None = None) -> Table | None:
        """The table `database.name` names (no database: the current one), or None."""
        if not database or database == self.database:
            return self.find(name, session_id)
        key = (database.lower(), name.lower())
        table = self._system.get(key)
        if table is None:
            spec = next((s for s in self.system_tables if (s.database, s.name.lower()) == key), None)
            if spec is None:
                return None
            table = self._system[key] = system_table(spec)
        return table

    def require(self, database: str | None, name: str, session_id: int | None = None) -> Table:
        """The table `database.name` names; the server's error when there is none."""
        table = self.resolve(database, name, session_id)
        if table is None:
            raise self.missing(database, name)
        return table

    def missing(self, database: str | None, name: str) -> SqlError:
        """The error for a table that `resolve` did not find."""
        if database and database.lower() == "information_schema":
            return SqlError(ErrorCode.ER_UNKNOWN_TABLE, name, "information_schema")
        if database in self.databases:
            return self.other_database(database)
        return SqlError(ErrorCode.ER_NO_SUCH_TABLE, database or self.database, name)
    triggers: list[TriggerDefinition] = field(default_factory=list)  # in firing order
    udfs: dict[str, Udf] = field(default_factory=dict)  # loadable functions, by lower-case name
    views: dict[str, ViewDefinition] = field(default_factory=dict)  # by name, case-sensitive as tables


    routines: dict[tuple[str, str], Routine] = field(default_factory=dict)  # stored ones, by Routine.key

    def other_database(self, database: str) -> SqlError:
        """1235 for a statement on a database other than the modelled one."""
        return not_supported(f"tables of database '{database}' (the simulator models one database, '{self.database}')")

    def check_database(self, database: str | None) -> None:
        """1235 when a table name is qualified by a database that exists but is not modelled."""
        if database and database != self.database and database in self.databases:
            raise self.other_database(database)

    def find(self, name: str, session_id: int | None = None) -> Table | None:
        """The table of that exact name: with lower_case_table_names=0 (the servers' default
        on Linux) table names are case-sensitive, `T` is not `t`."""
        if session_id is not None and (session_id, name) in self.temporary:
            return self.temporary[(session_id, name)]
        return self.tables.get(name)

    def get(self, name: str, session_id: int | None = None) -> Table:
        table = self.find(name, session_id)
        if table is None:
            raise SqlError(ErrorCode.ER_NO_SUCH_TABLE, self.database, name)
        return table

    def add(self, table: Table) -> None:
        if table.temporary:
            self.temporary[(table.owner or 0, table.name)] = table
        else:
            self.tables[table.name] = table

    def remove(self, table: Table) -> None:
        if table.temporary:
            del self.temporary[(table.owner or 0, table.name)]
        else:
            del self.tables[table.name]

    def free_storage_name(self, base: str) -> str:
        """A storage name no table here uses: a renamed table keeps its own, and DuckDB
        compares names without case."""
        used = {table.storage_name.lower() for table in [*self.tables.values(), *self.temporary.values()]}
        candidate, suffix = base, 2
        while candidate.lower() in used:
            candidate, suffix = f"{base}#{suffix}", suffix + 1
        return candidate

    def replace(self, old: Table, new: Table) -> None:
        self.remove(old)
        self.add(new)

    def referencing(self, parent: Table) -> list[tuple[Table, ForeignKey]]:
        """The foreign keys that reference `parent`, with their child tables."""
        return [(child, fk) for child in self.tables.values() for fk in child.foreign_keys if fk.parent == parent.name]

    def find_trigger(self, name: str) -> TriggerDefinition | None:
        return next((trigger for trigger in self.triggers if trigger.name.lower() == name.lower()), None)

    def triggers_of(self, table: Table, event: TriggerEvent, timing: TriggerTiming | None = None) -> list[TriggerDefinition]:
        """The triggers a row operation on `table` fires (both timings when `timing` is None), in order."""
        if table.temporary:
            return []
        return [
            trigger
            for trigger in self.triggers
            if trigger.table.lower() == table.name.lower() and trigger.event is event and timing in (None, trigger.timing)
        ]

@functools.cache
def _system_definition(spec: SystemTable) -> Table:
    """The table `spec` declares, parsed once per process."""
    ddl = sqlglot.parse_one(f"CREATE TABLE {spec.name} ({spec.columns})", read="mysql")
    assert isinstance(ddl, exp.Create)
    engine = SYSTEM_ENGINES.get(spec.engine) or BUILTIN_ENGINES[spec.engine]
    table = table_from_create(ddl, EngineRegistry())
    return dataclasses.replace(table, engine=engine, system=spec)


def system_table(spec: SystemTable) -> Table:
    """A server's own copy of a system table (its counters and storage are per server)."""
    return _system_definition(spec).copy()
