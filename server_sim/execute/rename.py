"""RENAME TABLE a TO b [, c TO d ...] and ALTER TABLE ... RENAME [TO] name: a table takes a
new name in the catalog (its rows stay where they are stored)."""

from __future__ import annotations

from sqlglot import exp

from ..table import Table
from ..errors import ErrorCode, SqlError, not_supported
from .foreign_key_ddl import refuse_changes_to_constrained
from .run import StatementRun


def check_rename(run: StatementRun, table: Table, new: exp.Table) -> None:
    """1050 when the new name is taken; 1235 for what the model does not carry over."""
    catalog = run.catalog
    if new.db and new.db.lower() != catalog.database.lower():
        raise not_supported(f"renaming a table into database {new.db!r} (one database is modelled)")
    taken = catalog.find(new.name, table.owner) if table.temporary else catalog.find(new.name)
    if taken is not None and taken is not table and taken.temporary == table.temporary:
        raise SqlError(ErrorCode.ER_TABLE_EXISTS_ERROR, new.name)
    refuse_changes_to_constrained(run, table, "renaming")
    if not table.temporary and any(trigger.table.lower() == table.name.lower() for trigger in catalog.triggers):
        raise not_supported(f"renaming table {table.name!r}, which has triggers (their definitions name it)")


def rename_table(run: StatementRun, table: Table, name: str) -> None:
    run.catalog.remove(table)
    table.name = name
    run.catalog.add(table)


def rename_tables(run: StatementRun) -> None:
    """RENAME TABLE: every pair checked in order against the names the earlier pairs left
    (1146 for a missing table, 1050 for a taken name), then all renamed, or none."""
    pairs = run.statement.renames
    done: list[tuple[Table, str]] = []
    try:
        for old, new in pairs:
            if old.db and old.db.lower() != run.catalog.database.lower():
                raise not_supported(f"RENAME TABLE of a table in database {old.db!r} (one database is modelled)")
            table = run.catalog.require(None, old.name, run.session.thread_id)
            check_rename(run, table, new)
            done.append((table, table.name))
            rename_table(run, table, new.name)
    except SqlError:
        for table, name in reversed(done):
            rename_table(run, table, name)
        raise
