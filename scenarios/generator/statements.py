"""The DML statements a workload's sessions send, by kind: INSERT and REPLACE with values,
INSERT ... SELECT, UPDATE, DELETE, multi-table UPDATE and DELETE; and the unsafe
constructs (functions and variables the slave evaluates again, LIMIT without a unique
order) drawn into them at their rates."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from scenarios.workload import GeneratedStatement

from .tables import ColumnType, Column, Drawing, Table


class Unsafe(Enum):
    """What makes a statement's values differ on the slave when it re-executes the statement."""

    FUNCTION = "function"  # RAND(), UUID(), SYSDATE(), USER(): evaluated again on the slave
    VARIABLE = "variable"  # @@server_id, @@hostname: the slave has its own


# The unsafe expressions a column of each type can hold.
UNSAFE_EXPRESSIONS: dict[Unsafe, dict[ColumnType, tuple[str, ...]]] = {
    Unsafe.FUNCTION: {
        ColumnType.INT: ("FLOOR(RAND() * 4)",),
        ColumnType.VARCHAR: ("UUID()", "USER()"),
        ColumnType.TEXT: ("UUID()", "USER()"),
        ColumnType.BLOB: ("UUID()",),
        ColumnType.DATETIME: ("SYSDATE()",),
    },
    Unsafe.VARIABLE: {ColumnType.INT: ("@@server_id",), ColumnType.VARCHAR: ("@@hostname",), ColumnType.TEXT: ("@@hostname",)},
}


class StatementDrawing(Drawing):
    """DML statements on the drawn tables; columns given unsafe values become volatile."""

    def _dml_on(self, table: Table) -> GeneratedStatement:
        """A DML statement writing `table`: a multi-table one at its rate, else a kind drawn
        by weight (REPLACE only where a key can clash, INSERT ... SELECT where another table is)."""
        if self._others(table) and self.rng.random() < self.config.multi_table_rate:
            return self._multi_table(table)
        builders: list[tuple[float, Callable[[Table], GeneratedStatement]]] = [
            (6.0, self._insert_values),
            (2.0 if table.keyed else 0.0, self._replace_values),
            (2.0 if self._others(table) else 0.0, self._insert_select),
            (5.0, self._update),
            (3.0, self._delete),
        ]
        weights = [weight for weight, _ in builders]
        builder = self.rng.choices([build for _, build in builders], weights=weights)[0]
        return builder(table)

    def _drawn_unsafe(self) -> list[Unsafe]:
        """The unsafe constructs one statement gets, each at its rate."""
        config = self.config
        rates = {Unsafe.FUNCTION: config.nondeterministic_function_rate, Unsafe.VARIABLE: config.unsafe_variable_rate}
        return [unsafe for unsafe, rate in rates.items() if self.rng.random() < rate]

    def _unsafe_value(self, table: Table, unsafe: Unsafe) -> tuple[Column, str]:
        """A column of `table` and the unsafe expression that gives it its value."""
        candidates = [
            (column, expression)
            for column in table.columns
            if not column.auto_increment
            for expression in UNSAFE_EXPRESSIONS[unsafe].get(column.type, ())
        ]
        column, expression = self.rng.choice(candidates)  # `v` (INT) always takes one
        self.volatile.add(f"{table.name}.{column.name}")
        return column, expression

    def _unsafe_condition(self, unsafe: Unsafe) -> str:
        """A condition on `v` whose rows depend on the server evaluating it."""
        return f"v < {self.rng.choice(UNSAFE_EXPRESSIONS[unsafe][ColumnType.INT])}"

    def _literal(self, column: Column) -> str:
        if column.nullable and self.rng.random() < 0.1:
            return "NULL"
        return self.rng.choice(column.type.literals)

    def _value(self, column: Column) -> str:
        """A literal for an inserted row; an AUTO_INCREMENT column mostly asks for the next value."""
        if column.auto_increment and self.rng.random() < 0.6:
            return "NULL"
        return self._literal(column)

    def _insert_columns(self, table: Table) -> list[Column]:
        """The columns an INSERT names: the required ones and some others."""
        return [column for column in table.columns if column.required or self.rng.random() < 0.6] or [table.column("v")]

    def _insert_values(self, table: Table) -> GeneratedStatement:
        verb, conflict = "INSERT", ""
        if table.keyed:
            verb, conflict = self.rng.choice((("INSERT", ""), ("INSERT", ""), ("INSERT IGNORE", ""), ("INSERT", self._on_duplicate_key_update(table))))
        return self._values_statement(verb, table, conflict)

    def _replace_values(self, table: Table) -> GeneratedStatement:
        return self._values_statement("REPLACE", table, "")

    def _values_statement(self, verb: str, table: Table, conflict: str) -> GeneratedStatement:
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

    def _on_duplicate_key_update(self, table: Table) -> str:
        rng = self.rng
        choices = ["v = v + 1", "v = VALUES(v)", *(f"{c.name} = {rng.choice(c.type.literals)}" for c in table.columns if c.type.is_string)]
        if table.has("k"):
            choices.append("k = k + 1")
        return " ON DUPLICATE KEY UPDATE " + ", ".join(rng.sample(choices, rng.randint(1, 2)))

    def _insert_select(self, table: Table) -> GeneratedStatement:
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

    def _update(self, table: Table) -> GeneratedStatement:
        rng = self.rng
        settable = [column for column in table.columns if not column.auto_increment]
        assignments = {}
        for column in rng.sample(settable, min(len(settable), rng.randint(1, 2))):
            increment = column.type is ColumnType.INT and rng.random() < 0.5
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

    def _delete(self, table: Table) -> GeneratedStatement:
        where, read = self._where(table, [self._unsafe_condition(unsafe) for unsafe in self._drawn_unsafe()])
        return GeneratedStatement(f"DELETE FROM {table.name}{where}{self._order_limit(table)}", frozenset({table.name, *read}))

    def _multi_table(self, table: Table) -> GeneratedStatement:
        """A multi-table UPDATE or DELETE of `table` joined to another table: one of the
        join syntaxes, writing one or both tables; an UPDATE may copy the other's values."""
        rng = self.rng
        other = rng.choice(self._others(table))
        t, o = table.name, other.name
        condition = rng.choice((f"{t}.id = {o}.id", f"{t}.v = {o}.v", f"{t}.id = {o}.v"))
        extra = rng.choice(("", "", f" AND {o}.v > {rng.choice(ColumnType.INT.literals)}", f" AND {t}.id IN ({', '.join(rng.sample(ColumnType.INT.literals, 2))})"))
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

    def _multi_table_assignment(self, table: Table, source: Table) -> str:
        """`table.column = ...`: a literal, an increment, or a value of `source` of the same type."""
        rng = self.rng
        column = rng.choice([c for c in table.columns if not c.auto_increment])
        sources = [c for c in source.columns if c.type is column.type]
        draw = rng.random()
        if sources and draw < 0.4:
            picked = rng.choice(sources)
            self.copies.add((f"{source.name}.{picked.name}", f"{table.name}.{column.name}"))
            return f"{table.name}.{column.name} = {source.name}.{picked.name}"
        if column.type is ColumnType.INT and draw < 0.7:
            return f"{table.name}.{column.name} = {table.name}.{column.name} + 1"
        return f"{table.name}.{column.name} = {self._literal(column)}"

    def _where(self, table: Table, unsafe_conditions: list[str], subquery: bool = True) -> tuple[str, set[str]]:
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
        numbers = ColumnType.INT.literals
        conditions = ["", f"id = {rng.choice(numbers)}", f"id IN ({', '.join(rng.sample(numbers, 2))})", f"v > {rng.choice(numbers)}", f"v = {rng.choice(numbers)}"]
        if table.has("k"):
            conditions.extend((f"k = {rng.choice(numbers)}", "k IS NULL"))
        if table.has("s"):
            conditions.append(f"s = {rng.choice(ColumnType.VARCHAR.literals)}")
        condition = rng.choice(conditions)
        return (f" WHERE {condition}" if condition else ""), set()

    def _order_limit(self, table: Table) -> str:
        """Mostly nothing; sometimes LIMIT with an ORDER BY on a unique NOT NULL key, or, at
        the unsafe rate, LIMIT with no ORDER BY or a non-unique one."""
        rng = self.rng
        if rng.random() < self.config.unsafe_limit_rate:
            return rng.choice(("", " ORDER BY v")) + f" LIMIT {rng.randint(1, 2)}"
        order_key = table.order_key()
        if order_key is not None and rng.random() < 0.15:
            return f" ORDER BY {order_key}{rng.choice(('', ' DESC'))} LIMIT {rng.randint(1, 2)}"
        return ""
