"""Which statements may write a system table, and the error the server gives the others.

Kept apart from `system_tables` (data the flavors list) so that the data needs no parser:
the decision is about a statement's kind, the table's category and the user.
"""

from __future__ import annotations

from .errors import ErrorCode, SqlError, not_supported
from .statement import StatementKind
from .system_tables import SystemTable, TableCategory

# The privilege a write needs, as ER_TABLEACCESS_DENIED_ERROR names it.
_PRIVILEGE = {StatementKind.REPLACE: "INSERT", StatementKind.TRUNCATE: "DROP"}


def refuse_write(spec: SystemTable, kind: StatementKind, user: str) -> None:
    """Raise the server's error when a statement of `kind` may not change `spec`."""
    if kind.value in spec.writable_by:
        return
    if not kind.is_dml and kind is not StatementKind.TRUNCATE:
        raise not_supported(f"{kind.value} of {spec.qualified_name}")
    name, _, host = user.partition("@")
    if spec.category is TableCategory.LOG:
        raise SqlError(ErrorCode.ER_CANT_LOCK_LOG_TABLE)
    if spec.category is TableCategory.INFORMATION:
        raise SqlError(ErrorCode.ER_DBACCESS_DENIED_ERROR, name, host, spec.database)
    raise SqlError(ErrorCode.ER_TABLEACCESS_DENIED_ERROR, _PRIVILEGE.get(kind, kind.value), name, host, spec.name)
