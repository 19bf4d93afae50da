"""Applying one row event to a server's tables, as Rows_log_event::do_apply_event does.

The replica's applier runs it for every row event it reads; a master runs it for the row
events of a `BINLOG '...'` statement, which the server applies through the same code with a
stand-in relay log. Images are decoded onto the local table (columns by position, values
converted), written rows are laid over the local defaults, and the rows to update or delete
are found through the local keys (find_row). The first row that cannot be applied raises
its SqlError (1032, 1062, 1677, ...); the caller decides what stops.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from server_sim.binlog.events import (
    Delete_rows_log_event,
    Partial_update_rows_log_event,
    Rows_log_event,
    Table_map_log_event,
    Write_rows_log_event,
)
from server_sim.table import Table
from server_sim.errors import Condition, ErrorCode, SqlError
from server_sim.execute.executor import Executor
from server_sim.execute.handler import RowHandler, coerce_row
from server_sim.execute.outcome import Outcome
from server_sim.session import Session

from .conversions import check_columns, conversion_modes
from .find_row import FoundRow, LookupPath, RowFinder, SearchAlgorithm, search_algorithms
from .images import decode_image, master_types, missing_row_error, row_for_update, row_for_write


@dataclass
class RowLookup:
    """How the applier found the rows of one row event: pk, unique, key, hash or scan per row."""

    position: int
    table: str
    paths: list[str]
    key: str | None = None  # the local key the lookup went through, if any


class RowApplier:
    """Applies row events to one server, with that server's settings (slave_exec_mode,
    slave_rows_search_algorithms, slave_type_conversions). What it noticed on the way
    collects in `lookups` (how each event's rows were found) and `warnings` (rows skipped
    or filled with implicit defaults), for the caller to take."""

    def __init__(self, executor: Executor) -> None:
        self.server = executor.server
        self.lookups: list[RowLookup] = []
        self.warnings: list[Condition] = []

    def apply(self, session: Session, event: Rows_log_event, table_map: Table_map_log_event, position: int, outcome: Outcome) -> None:
        """Apply the rows of `event`, at binlog `position`, to the table `table_map` names,
        in `session`'s transaction; the changes go into `outcome`."""
        table = self.server.catalog.find(table_map.table)
        if table is None or table_map.database.lower() != self.server.catalog.database.lower():
            raise SqlError(ErrorCode.ER_NO_SUCH_TABLE, table_map.database, table_map.table)
        if isinstance(event, Partial_update_rows_log_event) and any(any(flags) for flags in event.partial_columns):
            raise SqlError(ErrorCode.ER_NOT_SUPPORTED_YET, "partial JSON updates (Update_rows_partial events, binlog_row_value_options=PARTIAL_JSON)")
        session.ensure_transaction()
        lookup = RowLookup(position, table.name, [])
        try:
            self._apply(RowHandler(self.server, session, outcome), table, event, table_map, lookup)
        finally:
            if lookup.paths:
                self.lookups.append(lookup)

    def _apply(self, rows: RowHandler, table: Table, event: Rows_log_event, table_map: Table_map_log_event, lookup: RowLookup) -> None:
        types = master_types(table_map.columns, table, table_map.database, table_map.table)
        check_columns(
            types,
            [column.type for column in table.columns],
            conversion_modes(self.server.global_variables["slave_type_conversions"]),
            table_map.database,
            table_map.table,
        )
        images = [
            (
                decode_image(row.before, event.columns_before, types, table, self.server.flavor.temporal),
                decode_image(row.after, event.columns_after, types, table, self.server.flavor.temporal),
            )
            for row in event.rows
        ]
        if isinstance(event, Write_rows_log_event):
            for _, after in images:
                self._write(rows, table, after, len(table_map.columns))
        else:
            for found, after in self._found_rows(table, images, lookup):
                self._change(rows, table, event, found, after)

    def _found_rows(self, table: Table, images: list[tuple[dict[int, object], dict[int, object]]], lookup: RowLookup) -> Iterator[tuple[FoundRow, dict[int, object]]]:
        """The local row of each before image, with its after image, in the order they are
        applied. Searched row by row, each search comes after the changes before it, as the
        applier finds and changes one row at a time; a hash scan reads the table once for
        all. A missing row is 1032, or skipped with a warning in IDEMPOTENT mode."""
        finder = RowFinder(self.server.storage, table, self.server.flavor, self._search_algorithms)
        present = sorted(images[0][0]) if images else []
        search = finder.decide(present)
        lookup.key = search.key.name if search.key else None
        found_rows: Iterable[tuple[int, FoundRow | None]]
        if not present:
            # Nothing of the before image exists here (seed 003 R2): no search.
            found_rows = [(index, None) for index in range(len(images))]
        elif search.path is LookupPath.HASH:
            matched, missing_images = finder.find_by_hash(search, [before for before, _ in images])
            found_rows = [*matched, *((index, None) for index in missing_images)]
        else:
            found_rows = ((index, finder.find(search, before)) for index, (before, _) in enumerate(images))
        for index, found in found_rows:
            if found is None:
                missing = missing_row_error(table)
                if not self._idempotent:
                    raise missing
                self.warnings.append(Condition("Warning", missing.code, missing.name, f"{missing.message} at position {lookup.position}; skipped (IDEMPOTENT)"))
                continue
            lookup.paths.append(found.path.value)
            yield found, images[index][1]

    def _change(self, rows: RowHandler, table: Table, event: Rows_log_event, found: FoundRow, after: dict[int, object]) -> None:
        if isinstance(event, Delete_rows_log_event):
            rows.delete_row(table, found.row_id, found.values)
            return
        values = tuple(row_for_update(found, after))
        conflict = rows.find_conflict(table, values, exclude=found.row_id)
        if conflict is not None:
            raise rows.duplicate_error(table, conflict[0], values)
        if values != found.values:
            rows.update_row(table, found.row_id, found.values, values, self._assigned(table, after))

    def _write(self, rows: RowHandler, table: Table, after: dict[int, object], master_width: int) -> None:
        values = row_for_write(table, after, master_width, self.server.now(), self.server.flavor, self.warnings)
        auto = table.auto_increment_column
        if auto is not None:
            index = table.columns.index(auto)
            if values[index] is None:
                values[index] = table.auto_increment
            table.auto_increment = max(table.auto_increment, int(values[index]) + 1)
        # An ENUM/SET value is the slave member at the master's number already (images.py).
        row = coerce_row(table, values, 1, self.server.flavor.temporal, keep={column.name for column in table.columns if column.type.is_enum_or_set})
        assigned = self._assigned(table, after)
        if rows.write_row(table, row, assigned, unless_duplicate=table.unique_keys()) is not None:
            return
        conflict = rows.find_conflict(table, row, exclude=None)
        assert conflict is not None  # the one the write ran into
        if not self._idempotent:
            raise rows.duplicate_error(table, conflict[0], row)
        row_id, *existing = conflict[1]
        rows.update_row(table, row_id, tuple(existing), row, assigned)

    @staticmethod
    def _assigned(table: Table, image: dict[int, object]) -> frozenset[str]:
        """The write set of an applied row: the columns its image gives values to."""
        return frozenset(table.columns[index].name for index in image)

    @property
    def _idempotent(self) -> bool:
        return self.server.global_variables["slave_exec_mode"] == "IDEMPOTENT"

    @property
    def _search_algorithms(self) -> frozenset[SearchAlgorithm]:
        return search_algorithms(self.server.global_variables.get("slave_rows_search_algorithms"))
