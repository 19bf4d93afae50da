"""What a statement did, as the executor reports it to the master, the slave and the applier."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..table import Table
from ..errors import Condition, SqlError
from ..session import RowChange


@dataclass
class Outcome:
    """What a statement did: its changes (also when it failed half-way), counts, diagnostics."""

    changes: list[RowChange] = field(default_factory=list)
    affected_rows: int = 0
    warnings: list[Condition] = field(default_factory=list)
    error: SqlError | None = None
    insert_id: int | None = None  # first auto-increment value generated (Intvar INSERT_ID)
    rows: list[tuple] | None = None  # a SELECT's result
    # False when the server returned before executing: nothing of the statement is logged.
    executed: bool = True
    # Rows a unique-key check ran into, (table, row): InnoDB locks them, so another
    # transaction's uncommitted row makes the statement wait.
    duplicates: list[tuple[Table, tuple]] = field(default_factory=list)
    # Child rows a FOREIGN KEY cascade changed: the engine's changes, locked like the
    # statement's own but not logged as its rows.
    cascaded: list[RowChange] = field(default_factory=list)
    # The trigger statement that made a change, by the change's id: the text MariaDB's
    # Annotate_rows carries when that change is the first of its events.
    trigger_statements: dict[int, str] = field(default_factory=dict)
    # DDL that changed the catalog before it failed (DROP VIEW naming a missing view after
    # existing ones): the server logs it all the same, with its error code.
    logged_despite_error: bool = False

    def statement_of(self, change: RowChange, statement_sql: str) -> str:
        """The text of the statement (the top one, or a trigger's) that made `change`."""
        return self.trigger_statements.get(id(change), statement_sql)
