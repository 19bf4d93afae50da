"""FOREIGN KEY clauses of CREATE TABLE and ALTER TABLE, and the DDL a foreign key limits:
InnoDB checks the parent when the constraint is made (1005, errno 150) and the rows
already stored when it is added (1452); a referenced parent cannot be dropped (1451) or
truncated (1701). With foreign_key_checks off none of it is checked."""

from __future__ import annotations

from sqlglot import exp

from ..catalog import TableBuilder
from ..table import Key, KeyKind, Table
from ..errors import ErrorCode, SqlError, not_supported
from ..foreign_keys import ForeignKey, ReferentialAction, foreign_key_from_clause, generated_name
from .foreign_key_checks import checks_on, first_orphan
from .run import StatementRun


def add_foreign_keys(run: StatementRun, table: Table, clauses: list[tuple[str, exp.ForeignKey]], creating: bool) -> None:
    """Each clause's constraint on `table` (a new definition): an index over its columns
    when none leads with them (named after the constraint, else its first column); the
    constraint itself only on an engine that keeps them."""
    if clauses and table.temporary:
        raise not_supported("FOREIGN KEY on a temporary table")
    catalog = run.catalog
    taken = {fk.name.lower() for other in catalog.tables.values() for fk in other.foreign_keys}
    builder = TableBuilder(table)
    for name, clause in clauses:
        fk = foreign_key_from_clause(clause, name or generated_name(table.name, taken))
        for column in fk.columns:
            if table.find_column(column) is None:
                raise SqlError(ErrorCode.ER_KEY_COLUMN_DOES_NOT_EXITS, column)
        if not _has_leading_key(table, fk.columns):
            builder.add_key(Key(name, KeyKind.INDEX, fk.columns))
        if not table.engine.foreign_keys:
            continue  # MyISAM and the others: the clause is parsed and the constraint ignored
        if checks_on(run.session):
            _check_formed(run, table, fk, creating)
        taken.add(fk.name.lower())
        table.foreign_keys.append(fk)
        catalog.foreign_keys_defined = True


def _has_leading_key(table: Table, columns: tuple[str, ...]) -> bool:
    wanted = [c.lower() for c in columns]
    return any([c.lower() for c in key.columns[: len(wanted)]] == wanted for key in table.keys)


def _check_formed(run: StatementRun, table: Table, fk: ForeignKey, creating: bool) -> None:
    """1005 (errno 150) for a constraint InnoDB cannot make: no parent table of an engine
    that keeps foreign keys, no parent index leading with the columns, SET NULL on a NOT
    NULL column."""
    parent = table if fk.parent == table.name else run.catalog.find(fk.parent)
    formed = (
        parent is not None
        and parent.engine.foreign_keys
        and all(parent.find_column(c) is not None for c in fk.parent_columns)
        and _has_leading_key(parent, fk.parent_columns)
        and not (
            ReferentialAction.SET_NULL in (fk.on_delete, fk.on_update) and any(not table.column(c).nullable for c in fk.columns)
        )
    )
    if not formed:
        raise SqlError(ErrorCode.ER_CANT_CREATE_TABLE, run.catalog.database, table.name if creating else f"#sql-alter-{table.name}")


def check_stored_rows(run: StatementRun, table: Table, added: list[ForeignKey], rows: list[tuple]) -> None:
    """ALTER TABLE ADD FOREIGN KEY over stored rows: each must have its parent row (1452)."""
    if not added or not checks_on(run.session):
        return
    for fk in added:
        if first_orphan(run.server, table, fk, rows) is not None:
            raise SqlError(ErrorCode.ER_NO_REFERENCED_ROW_2, run.catalog.database, f"#sql-alter-{table.name}", fk.describe(run.catalog.database))


def drop_foreign_key(table: Table, name: str) -> None:
    """ALTER TABLE DROP FOREIGN KEY name: the constraint goes, its index stays (1091 when none)."""
    fk = next((fk for fk in table.foreign_keys if fk.name.lower() == name.lower()), None)
    if fk is None:
        raise SqlError(ErrorCode.ER_CANT_DROP_FIELD_OR_KEY, name)
    table.foreign_keys.remove(fk)


def check_not_referenced(run: StatementRun, table: Table, dropped_with: set[str], truncating: bool = False) -> None:
    """DROP TABLE (1451) and TRUNCATE (1701) of a parent other tables still reference."""
    if not run.catalog.foreign_keys_defined or not checks_on(run.session):
        return
    for child, fk in run.catalog.referencing(table):
        if child is table or child.name in dropped_with:
            continue
        database = run.catalog.database
        if truncating:
            raise SqlError(ErrorCode.ER_TRUNCATE_ILLEGAL_FK, database, child.name, fk.describe(database, qualified_parent=True))
        raise SqlError(ErrorCode.ER_ROW_IS_REFERENCED_2, database, child.name, fk.describe(database))


def refuse_changes_to_constrained(run: StatementRun, table: Table, what: str) -> None:
    """1235 for DDL whose effect on a foreign key the model does not carry (an engine
    change, a renamed table, a dropped or changed constrained column)."""
    if table.foreign_keys or (run.catalog.foreign_keys_defined and run.catalog.referencing(table)):
        raise not_supported(f"{what} of table {table.name!r}, which takes part in a FOREIGN KEY")
