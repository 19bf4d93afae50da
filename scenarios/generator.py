"""A seeded random workload generator: `(seed, index)` always gives the same workload.

Workloads are small on purpose. Few rows, few key values and few tables make statements
of different sessions collide on keys and tables, which is where statement and row
logging part ways. The unsafe constructs (functions and variables whose value differs on
the slave, LIMIT without a deterministic order, non-transactional writes inside a
transaction) come at tunable rates, so that most statements stay safe and a divergence
points at the few that are not.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum

from scenarios.workload import GeneratedStatement, Workload

ENGINES: tuple[str, ...] = ("InnoDB", "MyISAM", "MEMORY")
TRANSACTIONAL_ENGINES = frozenset({"InnoDB"})
# MEMORY tables cannot hold BLOB or TEXT columns.
BLOBLESS_ENGINES = frozenset({"MEMORY"})


def _check_range(name: str, bounds: tuple[int, int], low: int, high: int) -> None:
    first, last = bounds
    if not low <= first <= last <= high:
        raise ValueError(f"{name} must be a range (min, max) within {low}..{high}, got {bounds}")


@dataclass(frozen=True)
class GeneratorConfig:
    """The generator's tunables. Rates are per-statement probabilities unless noted."""

    tables: tuple[int, int] = (2, 3)  # how many tables, min and max
    sessions: tuple[int, int] = (2, 2)
    statements: int = 20  # over all sessions, before each session's closing COMMIT/ROLLBACK
    engine_weights: Mapping[str, float] = field(default_factory=lambda: {"InnoDB": 3.0, "MyISAM": 2.0, "MEMORY": 1.0})
    nondeterministic_function_rate: float = 0.06  # RAND(), UUID(), SYSDATE(), USER()
    unsafe_variable_rate: float = 0.04  # @@server_id, @@hostname
    unsafe_limit_rate: float = 0.06  # UPDATE/DELETE/INSERT ... SELECT with LIMIT but no unique ORDER BY
    # A DML statement inside a transaction writes a non-transactional table (when the
    # schema has one; otherwise statements in a transaction write transactional tables).
    nontransactional_in_transaction_rate: float = 0.25
    begin_rate: float = 0.15  # a session outside a transaction starts one
    end_rate: float = 0.2  # a session inside a transaction ends it
    rollback_rate: float = 0.25  # an ending is ROLLBACK rather than COMMIT
    savepoint_rate: float = 0.12  # SAVEPOINT, ROLLBACK TO or RELEASE, inside a transaction
    direct_updates_rate: float = 0.2  # per workload: binlog_direct_non_transactional_updates=ON
    slave_schema_rate: float = 0.1  # per workload: the slave's copy of one table differs
    multi_table_rate: float = 0.08  # a DML statement is a multi-table UPDATE or DELETE over two tables
    trigger_rate: float = 0.1  # per workload: one table has a row trigger (on itself, or writing another table)

    def __post_init__(self) -> None:
        _check_range("tables", self.tables, 1, 4)
        _check_range("sessions", self.sessions, 1, 4)
        if self.statements < self.sessions[1]:
            raise ValueError(f"statements ({self.statements}) must give every session at least one")
        unknown = set(self.engine_weights) - set(ENGINES)
        if unknown or not any(weight > 0 for weight in self.engine_weights.values()):
            raise ValueError(f"engine_weights needs a positive weight for one of {', '.join(ENGINES)}; unknown: {sorted(unknown)}")
        for name, value in vars(self).items():
            if name.endswith("_rate") and not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be a probability, got {value}")


def generate_workload(seed: int, index: int, config: GeneratorConfig | None = None) -> Workload:
    """Workload `index` of `seed`: the same pair (and config) always gives the same workload."""
    digest = hashlib.sha256(f"rplharness-workload:{seed}:{index}".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    return _Generator(rng, config or GeneratorConfig()).workload(seed, index)


# -- schema -------------------------------------------------------------------------------


class _Type(Enum):
    """Column types, each with the literals a statement puts in it: few, so keys collide."""

    INT = "INT"
    VARCHAR = "VARCHAR(40)"
    TEXT = "TEXT"
    BLOB = "BLOB"
    DATETIME = "DATETIME"

    @property
    def literals(self) -> tuple[str, ...]:
        if self is _Type.INT:
            return ("0", "1", "2", "3", "4")
        if self is _Type.VARCHAR:
            return ("'a'", "'A'", "'b'", "'c'")  # 'a' and 'A' are one key value
        if self is _Type.DATETIME:
            return ("'2026-01-01 00:00:00'", "'2026-06-30 12:00:00'")
        return ("'x'", "'yy'", "'zzz'")

    @property
    def is_string(self) -> bool:
        return self in (_Type.VARCHAR, _Type.TEXT, _Type.BLOB)


@dataclass(frozen=True)
class _Column:
    name: str
    type: _Type
    nullable: bool = True
    default: str | None = None  # the DEFAULT clause's text; None: no DEFAULT clause
    auto_increment: bool = False

    @property
    def required(self) -> bool:
        """An INSERT must name it: NOT NULL, no default, no generated value."""
        return not self.nullable and self.default is None and not self.auto_increment

    def definition(self) -> str:
        text = f"{self.name} {self.type.value}{'' if self.nullable else ' NOT NULL'}"
        if self.auto_increment:
            return text + " AUTO_INCREMENT"
        return text if self.default is None else f"{text} DEFAULT {self.default}"


@dataclass(frozen=True)
class _Table:
    """A generated table: `id` and `v` (INT) always, the other columns when drawn."""

    name: str
    engine: str
    columns: tuple[_Column, ...]
    primary: tuple[str, ...] = ()
    unique: tuple[str, ...] = ()  # one single-column UNIQUE key per name
    plain: tuple[str, ...] = ()  # one single-column plain KEY per name

    @property
    def transactional(self) -> bool:
        return self.engine in TRANSACTIONAL_ENGINES

    def column(self, name: str) -> _Column:
        return next(column for column in self.columns if column.name == name)

    def has(self, name: str) -> bool:
        return any(column.name == name for column in self.columns)

    @property
    def auto_increment(self) -> _Column | None:
        return next((column for column in self.columns if column.auto_increment), None)

    @property
    def keyed(self) -> bool:
        """Whether a duplicate key is possible (IGNORE, ON DUPLICATE KEY UPDATE, REPLACE matter)."""
        return bool(self.primary or self.unique)

    def order_key(self) -> str | None:
        """A NOT NULL unique column: ORDER BY it gives one row order on every server."""
        if self.primary:
            return self.primary[0]
        return next((name for name in self.unique if not self.column(name).nullable), None)

    def create(self) -> str:
        parts = [column.definition() for column in self.columns]
        if self.primary:
            parts.append(f"PRIMARY KEY ({', '.join(self.primary)})")
        parts.extend(f"UNIQUE KEY {name} ({name})" for name in self.unique)
        parts.extend(f"KEY {name} ({name})" for name in self.plain)
        return f"CREATE TABLE {self.name} ({', '.join(parts)}) ENGINE={self.engine}"


# -- statements ---------------------------------------------------------------------------


class _Unsafe(Enum):
    """What makes a statement's values differ on the slave when it re-executes the statement."""

    FUNCTION = "function"  # RAND(), UUID(), SYSDATE(), USER(): evaluated again on the slave
    VARIABLE = "variable"  # @@server_id, @@hostname: the slave has its own


# The unsafe expressions a column of each type can hold.
_UNSAFE_EXPRESSIONS: dict[_Unsafe, dict[_Type, tuple[str, ...]]] = {
    _Unsafe.FUNCTION: {
        _Type.INT: ("FLOOR(RAND() * 4)",),
        _Type.VARCHAR: ("UUID()", "USER()"),
        _Type.TEXT: ("UUID()", "USER()"),
        _Type.BLOB: ("UUID()",),
        _Type.DATETIME: ("SYSDATE()",),
    },
    _Unsafe.VARIABLE: {_Type.INT: ("@@server_id",), _Type.VARCHAR: ("@@hostname",), _Type.TEXT: ("@@hostname",)},
}


@dataclass
class _SessionState:
    """Where a session is while its statements are generated: its transaction and savepoints."""

    in_transaction: bool = False
    statements_in_transaction: int = 0
    savepoints: list[str] = field(default_factory=list)
    savepoints_made: int = 0


class _Generator:
    """Draws one workload; every choice comes from `rng`, in a fixed order."""

    def __init__(self, rng: random.Random, config: GeneratorConfig) -> None:
        self.rng = rng
        self.config = config
        self.tables: list[_Table] = []
        self.volatile: set[str] = set()
        self.copies: set[tuple[str, str]] = set()  # (source, target) `table.column` of INSERT ... SELECT

    def workload(self, seed: int, index: int) -> Workload:
        config, rng = self.config, self.rng
        self.tables = [self._table(f"t{number}") for number in range(1, rng.randint(*config.tables) + 1)]
        master_schema = [table.create() for table in self.tables]
        master_schema.extend(filter(None, (self._first_rows(table) for table in self.tables)))
        if rng.random() < config.trigger_rate:
            master_schema.append(self._trigger())
        slave_schema = self._slave_schema() if rng.random() < config.slave_schema_rate else ()
        settings = {"binlog_direct_non_transactional_updates": "ON"} if rng.random() < config.direct_updates_rate else {}
        names = [f"con{number}" for number in range(1, rng.randint(*config.sessions) + 1)]
        counts = [1] * len(names)
        for _ in range(config.statements - len(names)):
            counts[rng.randrange(len(names))] += 1
        sessions = {name: self._session(count) for name, count in zip(names, counts)}
        return Workload(
            seed=seed,
            index=index,
            master_schema=tuple(master_schema),
            sessions=sessions,
            slave_schema=slave_schema,
            settings=settings,
            volatile=tuple(sorted(self._volatile_closure())),
        )

    # -- schema ---------------------------------------------------------------------------

    def _table(self, name: str) -> _Table:
        rng = self.rng
        weights = self.config.engine_weights
        engine = rng.choices(list(weights), weights=list(weights.values()))[0]
        primary = rng.random() < 0.75
        id_column = _Column("id", _Type.INT, nullable=not primary and rng.random() < 0.5, auto_increment=primary and rng.random() < 0.3)
        columns = [id_column]
        unique: list[str] = []
        plain: list[str] = []
        if rng.random() < 0.6:
            not_null = rng.random() < 0.4
            columns.append(_Column("k", _Type.INT, nullable=not not_null, default="0" if not_null else None))
            unique.append("k")
        columns.append(_Column("v", _Type.INT, default=rng.choice(("0", "1", None))))
        if rng.random() < 0.3:
            plain.append("v")
        if not primary and rng.random() < 0.5:
            plain.append("id")
        if rng.random() < 0.8:
            columns.append(_Column("s", _Type.VARCHAR, nullable=rng.random() < 0.5, default=rng.choice(("'x'", "'a'"))))
        if engine not in BLOBLESS_ENGINES and rng.random() < 0.4:
            columns.append(_Column("doc", rng.choice((_Type.TEXT, _Type.BLOB))))
        if rng.random() < 0.3:
            on_clock = rng.random() < 0.5
            columns.append(_Column("ts", _Type.DATETIME, default="CURRENT_TIMESTAMP" if on_clock else None))
            if on_clock:
                self.volatile.add(f"{name}.ts")
        return _Table(name, engine, tuple(columns), ("id",) if primary else (), tuple(unique), tuple(plain))

    def _first_rows(self, table: _Table) -> str | None:
        """Up to three rows with distinct keys, so that UPDATE and DELETE find something."""
        count = self.rng.randint(0, 3)
        if not count:
            return None
        columns = [column for column in table.columns if not column.auto_increment]
        rows = []
        for number in range(1, count + 1):
            values = [str(number) if column.type is _Type.INT else column.type.literals[number % len(column.type.literals)] for column in columns]
            rows.append(f"({', '.join(values)})")
        return f"INSERT INTO {table.name} ({', '.join(c.name for c in columns)}) VALUES {', '.join(rows)}"

    def _trigger(self) -> str:
        """A row trigger on one table: a BEFORE trigger changing NEW.v, or an AFTER trigger
        that updates or deletes the other table's row with the same id (prelocking, the
        trigger's tables in the statement's logging decision, rows a trigger writes)."""
        rng = self.rng
        table = rng.choice(self.tables)
        others = self._others(table)
        event = rng.choice(("INSERT", "UPDATE", "DELETE"))
        row = "OLD" if event == "DELETE" else "NEW"
        if not others or rng.random() < 0.3:
            event = rng.choice(("INSERT", "UPDATE"))
            body = f"SET NEW.v = NEW.v + {rng.randint(1, 9)}"
            return f"CREATE TRIGGER {table.name}_{event.lower()} BEFORE {event} ON {table.name} FOR EACH ROW {body}"
        other = rng.choice(others)
        if rng.random() < 0.7:
            body = f"UPDATE {other.name} SET v = v + 1 WHERE id = {row}.id"
        else:
            body = f"DELETE FROM {other.name} WHERE id = {row}.id"
        return f"CREATE TRIGGER {table.name}_{event.lower()} AFTER {event} ON {table.name} FOR EACH ROW {body}"

    def _slave_schema(self) -> tuple[str, ...]:
        """One way the slave's copy of one table differs: an extra column, another default,
        fewer keys, or another primary key."""
        rng = self.rng
        table = rng.choice(self.tables)
        changes = [
            f"ADD COLUMN extra INT DEFAULT {rng.randint(0, 9)}",
            "ADD COLUMN extra INT NOT NULL",
            f"ALTER COLUMN v SET DEFAULT {rng.randint(5, 9)}",
        ]
        if table.primary:
            # An AUTO_INCREMENT column must stay in a key.
            changes.append("DROP PRIMARY KEY, ADD KEY (id)" if table.auto_increment else "DROP PRIMARY KEY")
        if table.unique:
            changes.append(f"DROP INDEX {table.unique[0]}")
            if table.primary and not table.auto_increment and not table.column(table.unique[0]).nullable:
                changes.append(f"DROP PRIMARY KEY, ADD PRIMARY KEY ({table.unique[0]})")
        return (f"ALTER TABLE {table.name} {rng.choice(changes)}",)

    def _volatile_closure(self) -> set[str]:
        """Volatile columns, and the columns INSERT ... SELECT copies them into."""
        volatile = set(self.volatile)
        grown = True
        while grown:
            grown = False
            for source, target in self.copies:
                if source in volatile and target not in volatile:
                    volatile.add(target)
                    grown = True
        return volatile

    # -- sessions -------------------------------------------------------------------------

    def _session(self, count: int) -> tuple[GeneratedStatement, ...]:
        """`count` statements, then the COMMIT or ROLLBACK that ends an open transaction."""
        rng, config = self.rng, self.config
        state = _SessionState()
        statements = []
        for remaining in range(count, 0, -1):
            if not state.in_transaction and remaining > 1 and rng.random() < config.begin_rate:
                statements.append(self._begin(state))
                continue
            if state.in_transaction and state.statements_in_transaction and rng.random() < config.end_rate:
                statements.append(self._end(state))
                continue
            if state.in_transaction and rng.random() < config.savepoint_rate:
                statements.append(self._savepoint(state))
            else:
                statements.append(self._dml(state))
            if state.in_transaction:
                state.statements_in_transaction += 1
        if state.in_transaction:
            statements.append(self._end(state))
        return tuple(statements)

    @staticmethod
    def _control(sql: str) -> GeneratedStatement:
        return GeneratedStatement(sql, transaction_control=True)

    def _begin(self, state: _SessionState) -> GeneratedStatement:
        state.in_transaction = True
        state.statements_in_transaction = 0
        state.savepoints.clear()
        return self._control(self.rng.choice(("BEGIN", "START TRANSACTION")))

    def _end(self, state: _SessionState) -> GeneratedStatement:
        state.in_transaction = False
        state.savepoints.clear()
        return self._control("ROLLBACK" if self.rng.random() < self.config.rollback_rate else "COMMIT")

    def _savepoint(self, state: _SessionState) -> GeneratedStatement:
        """A new savepoint, or back to (or releasing) one this transaction set."""
        rng = self.rng
        if not state.savepoints or rng.random() < 0.5:
            state.savepoints_made += 1
            name = f"sp{state.savepoints_made}"
            state.savepoints.append(name)
            return self._control(f"SAVEPOINT {name}")
        position = rng.randrange(len(state.savepoints))
        name = state.savepoints[position]
        if rng.random() < 0.7:
            del state.savepoints[position + 1 :]  # later savepoints go, this one stays
            return self._control(f"ROLLBACK TO SAVEPOINT {name}")
        del state.savepoints[position:]
        return self._control(f"RELEASE SAVEPOINT {name}")

    def _dml(self, state: _SessionState) -> GeneratedStatement:
        table = self._target(state)
        if self._others(table) and self.rng.random() < self.config.multi_table_rate:
            return self._multi_table(table)
        builders: list[tuple[float, Callable[[_Table], GeneratedStatement]]] = [
            (6.0, self._insert_values),
            (2.0 if table.keyed else 0.0, self._replace_values),
            (2.0 if self._others(table) else 0.0, self._insert_select),
            (5.0, self._update),
            (3.0, self._delete),
        ]
        weights = [weight for weight, _ in builders]
        builder = self.rng.choices([build for _, build in builders], weights=weights)[0]
        return builder(table)

    def _others(self, table: _Table) -> list[_Table]:
        """The tables a statement on `table` may read besides it."""
        return [other for other in self.tables if other is not table]

    def _target(self, state: _SessionState) -> _Table:
        """The table a statement writes; inside a transaction, transactional unless drawn otherwise."""
        rng = self.rng
        transactional = [table for table in self.tables if table.transactional]
        nontransactional = [table for table in self.tables if not table.transactional]
        if state.in_transaction and transactional and nontransactional:
            if rng.random() < self.config.nontransactional_in_transaction_rate:
                return rng.choice(nontransactional)
            return rng.choice(transactional)
        return rng.choice(self.tables)

    def _drawn_unsafe(self) -> list[_Unsafe]:
        """The unsafe constructs one statement gets, each at its rate."""
        config = self.config
        rates = {_Unsafe.FUNCTION: config.nondeterministic_function_rate, _Unsafe.VARIABLE: config.unsafe_variable_rate}
        return [unsafe for unsafe, rate in rates.items() if self.rng.random() < rate]

    def _unsafe_value(self, table: _Table, unsafe: _Unsafe) -> tuple[_Column, str]:
        """A column of `table` and the unsafe expression that gives it its value."""
        candidates = [
            (column, expression)
            for column in table.columns
            if not column.auto_increment
            for expression in _UNSAFE_EXPRESSIONS[unsafe].get(column.type, ())
        ]
        column, expression = self.rng.choice(candidates)  # `v` (INT) always takes one
        self.volatile.add(f"{table.name}.{column.name}")
        return column, expression

    def _unsafe_condition(self, unsafe: _Unsafe) -> str:
        """A condition on `v` whose rows depend on the server evaluating it."""
        return f"v < {self.rng.choice(_UNSAFE_EXPRESSIONS[unsafe][_Type.INT])}"

    def _literal(self, column: _Column) -> str:
        if column.nullable and self.rng.random() < 0.1:
            return "NULL"
        return self.rng.choice(column.type.literals)

    def _value(self, column: _Column) -> str:
        """A literal for an inserted row; an AUTO_INCREMENT column mostly asks for the next value."""
        if column.auto_increment and self.rng.random() < 0.6:
            return "NULL"
        return self._literal(column)

    def _insert_columns(self, table: _Table) -> list[_Column]:
        """The columns an INSERT names: the required ones and some others."""
        return [column for column in table.columns if column.required or self.rng.random() < 0.6] or [table.column("v")]

    def _insert_values(self, table: _Table) -> GeneratedStatement:
        verb, conflict = "INSERT", ""
        if table.keyed:
            verb, conflict = self.rng.choice((("INSERT", ""), ("INSERT", ""), ("INSERT IGNORE", ""), ("INSERT", self._on_duplicate_key_update(table))))
        return self._values_statement(verb, table, conflict)

    def _replace_values(self, table: _Table) -> GeneratedStatement:
        return self._values_statement("REPLACE", table, "")

    def _values_statement(self, verb: str, table: _Table, conflict: str) -> GeneratedStatement:
        """`verb INTO table [(columns)] VALUES` one to three rows, then `conflict`; without a
        column list (sometimes) every column gets a value."""
        rng = self.rng
        named = rng.random() >= 0.1
        columns = self._insert_columns(table) if named else list(table.columns)
        rows = [[self._value(column) for column in columns] for _ in range(rng.randint(1, 3))]
        for column, expression in (self._unsafe_value(table, unsafe) for unsafe in self._drawn_unsafe()):
            if column not in columns:
                columns.append(column)
                for row in rows:
                    row.append(self._value(column))
            rng.choice(rows)[columns.index(column)] = expression
        names = f" ({', '.join(column.name for column in columns)})" if named else ""
        values = ", ".join(f"({', '.join(row)})" for row in rows)
        return GeneratedStatement(f"{verb} INTO {table.name}{names} VALUES {values}{conflict}", frozenset({table.name}))

    def _on_duplicate_key_update(self, table: _Table) -> str:
        rng = self.rng
        choices = ["v = v + 1", "v = VALUES(v)", *(f"{c.name} = {rng.choice(c.type.literals)}" for c in table.columns if c.type.is_string)]
        if table.has("k"):
            choices.append("k = k + 1")
        return " ON DUPLICATE KEY UPDATE " + ", ".join(rng.sample(choices, rng.randint(1, 2)))

    def _insert_select(self, table: _Table) -> GeneratedStatement:
        """INSERT [IGNORE] / REPLACE / ON DUPLICATE KEY UPDATE ... SELECT from another table,
        each column from a source column of its type, a literal, or an unsafe expression."""
        rng = self.rng
        source = rng.choice(self._others(table))
        columns = self._insert_columns(table)
        unsafe = dict(self._unsafe_value(table, kind) for kind in self._drawn_unsafe())
        columns.extend(column for column in unsafe if column not in columns)
        items = []
        for column in columns:
            sources = [c for c in source.columns if c.type is column.type or (c.type.is_string and column.type.is_string)]
            if column in unsafe:
                items.append(unsafe[column])
            elif sources and rng.random() < 0.8:
                picked = rng.choice(sources)
                self.copies.add((f"{source.name}.{picked.name}", f"{table.name}.{column.name}"))
                items.append(picked.name)
            else:
                items.append(self._literal(column))
        verb, conflict = "INSERT", ""
        if table.keyed:
            verb, conflict = rng.choice((("INSERT", ""), ("INSERT IGNORE", ""), ("REPLACE", ""), ("INSERT", self._on_duplicate_key_update(table))))
        where, _ = self._where(source, [], subquery=False)
        query = f"SELECT {', '.join(items)} FROM {source.name}{where}{self._order_limit(source)}"
        sql = f"{verb} INTO {table.name} ({', '.join(column.name for column in columns)}) {query}{conflict}"
        return GeneratedStatement(sql, frozenset({table.name, source.name}))

    def _update(self, table: _Table) -> GeneratedStatement:
        rng = self.rng
        settable = [column for column in table.columns if not column.auto_increment]
        assignments = {}
        for column in rng.sample(settable, min(len(settable), rng.randint(1, 2))):
            increment = column.type is _Type.INT and rng.random() < 0.5
            assignments[column.name] = f"{column.name} + 1" if increment else self._literal(column)
        conditions = []
        for unsafe in self._drawn_unsafe():
            if rng.random() < 0.5:
                conditions.append(self._unsafe_condition(unsafe))
            else:
                column, expression = self._unsafe_value(table, unsafe)
                assignments[column.name] = expression
        where, read = self._where(table, conditions)
        verb = "UPDATE IGNORE" if table.keyed and rng.random() < 0.1 else "UPDATE"
        sets = ", ".join(f"{name} = {expression}" for name, expression in assignments.items())
        return GeneratedStatement(f"{verb} {table.name} SET {sets}{where}{self._order_limit(table)}", frozenset({table.name, *read}))

    def _delete(self, table: _Table) -> GeneratedStatement:
        where, read = self._where(table, [self._unsafe_condition(unsafe) for unsafe in self._drawn_unsafe()])
        return GeneratedStatement(f"DELETE FROM {table.name}{where}{self._order_limit(table)}", frozenset({table.name, *read}))

    def _multi_table(self, table: _Table) -> GeneratedStatement:
        """A multi-table UPDATE or DELETE of `table` joined to another table: one of the
        join syntaxes, writing one or both tables; an UPDATE may copy the other's values."""
        rng = self.rng
        other = rng.choice(self._others(table))
        t, o = table.name, other.name
        condition = rng.choice((f"{t}.id = {o}.id", f"{t}.v = {o}.v", f"{t}.id = {o}.v"))
        extra = rng.choice(("", "", f" AND {o}.v > {rng.choice(_Type.INT.literals)}", f" AND {t}.id IN ({', '.join(rng.sample(_Type.INT.literals, 2))})"))
        if rng.random() < 0.6:
            assignments = [self._multi_table_assignment(table, other)]
            if rng.random() < 0.4:
                assignments.append(self._multi_table_assignment(other, table))
            verb = "UPDATE IGNORE" if (table.keyed or other.keyed) and rng.random() < 0.1 else "UPDATE"
            sets = ", ".join(assignments)
            if rng.random() < 0.5:
                sql = f"{verb} {t} JOIN {o} ON {condition} SET {sets}" + (f" WHERE {extra[5:]}" if extra else "")
            else:
                sql = f"{verb} {t}, {o} SET {sets} WHERE {condition}{extra}"
        else:
            targets = rng.choice((t, t, f"{t}, {o}"))
            form = rng.random()
            if form < 0.4:
                sql = f"DELETE {targets} FROM {t} JOIN {o} ON {condition}" + (f" WHERE {extra[5:]}" if extra else "")
            elif form < 0.7:
                sql = f"DELETE {targets} FROM {t}, {o} WHERE {condition}{extra}"
            else:
                sql = f"DELETE FROM {targets} USING {t}, {o} WHERE {condition}{extra}"
        return GeneratedStatement(sql, frozenset({t, o}))

    def _multi_table_assignment(self, table: _Table, source: _Table) -> str:
        """`table.column = ...`: a literal, an increment, or a value of `source` of the same type."""
        rng = self.rng
        column = rng.choice([c for c in table.columns if not c.auto_increment])
        sources = [c for c in source.columns if c.type is column.type]
        draw = rng.random()
        if sources and draw < 0.4:
            picked = rng.choice(sources)
            self.copies.add((f"{source.name}.{picked.name}", f"{table.name}.{column.name}"))
            return f"{table.name}.{column.name} = {source.name}.{picked.name}"
        if column.type is _Type.INT and draw < 0.7:
            return f"{table.name}.{column.name} = {table.name}.{column.name} + 1"
        return f"{table.name}.{column.name} = {self._literal(column)}"

    def _where(self, table: _Table, unsafe_conditions: list[str], subquery: bool = True) -> tuple[str, set[str]]:
        """A WHERE clause (or none) and the other tables it reads: the unsafe conditions
        when there are any, else one on a key or another column, or (with `subquery`) a
        subquery on another table."""
        rng = self.rng
        others = self._others(table)
        if unsafe_conditions:
            return " WHERE " + " OR ".join(unsafe_conditions), set()
        if subquery and others and rng.random() < 0.1:
            other = rng.choice(others)
            return f" WHERE id IN (SELECT v FROM {other.name})", {other.name}
        numbers = _Type.INT.literals
        conditions = ["", f"id = {rng.choice(numbers)}", f"id IN ({', '.join(rng.sample(numbers, 2))})", f"v > {rng.choice(numbers)}", f"v = {rng.choice(numbers)}"]
        if table.has("k"):
            conditions.extend((f"k = {rng.choice(numbers)}", "k IS NULL"))
        if table.has("s"):
            conditions.append(f"s = {rng.choice(_Type.VARCHAR.literals)}")
        condition = rng.choice(conditions)
        return (f" WHERE {condition}" if condition else ""), set()

    def _order_limit(self, table: _Table) -> str:
        """Mostly nothing; sometimes LIMIT with an ORDER BY on a unique NOT NULL key, or, at
        the unsafe rate, LIMIT with no ORDER BY or a non-unique one."""
        rng = self.rng
        if rng.random() < self.config.unsafe_limit_rate:
            return rng.choice(("", " ORDER BY v")) + f" LIMIT {rng.randint(1, 2)}"
        order_key = table.order_key()
        if order_key is not None and rng.random() < 0.15:
            return f" ORDER BY {order_key}{rng.choice(('', ' DESC'))} LIMIT {rng.randint(1, 2)}"
        return ""
