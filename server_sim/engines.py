"""Storage engines and the binlog capabilities each one declares (WL#3303, server-internals §2.3)."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ErrorCode, SqlError

_ISOLATION_ORDER = ("READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE")


@dataclass(frozen=True)
class Engine:
    """An engine's logging capabilities: HA_BINLOG_ROW_CAPABLE, HA_BINLOG_STMT_CAPABLE and friends."""

    name: str
    transactional: bool
    row_capable: bool
    statement_capable: bool
    self_logging: bool = False  # HA_HAS_OWN_BINLOGGING (NDB)
    # InnoDB can be logged as statements only above READ COMMITTED.
    statement_capable_below_repeatable_read: bool = True
    # BLACKHOLE keeps no rows: its UPDATE and DELETE produce no row events.
    stores_rows: bool = True
    # The engine knows its exact row count (HA_STATS_RECORDS_IS_EXACT): on an empty table the
    # optimizer sees an UPDATE or DELETE with a WHERE as impossible and returns before
    # executing or logging it.
    exact_row_count: bool = False
    # Scans return rows in primary-key order (clustered index) rather than insertion order.
    clustered: bool = False
    # The engine keeps FOREIGN KEY constraints (InnoDB); the others parse and ignore them.
    foreign_keys: bool = False
    # Appended to ER_BINLOG_STMT_MODE_AND_ROW_ENGINE when the engine is row-only.
    row_only_reason: str = ""

    def statement_capable_at(self, isolation: str) -> bool:
        if not self.statement_capable:
            return False
        if self.statement_capable_below_repeatable_read:
            return True
        return _ISOLATION_ORDER.index(isolation) >= _ISOLATION_ORDER.index("REPEATABLE-READ")


BUILTIN_ENGINES: dict[str, Engine] = {
    engine.name.upper(): engine
    for engine in (
        Engine(
            "InnoDB",
            transactional=True,
            row_capable=True,
            statement_capable=True,
            statement_capable_below_repeatable_read=False,
            clustered=True,
            foreign_keys=True,
            row_only_reason=" InnoDB is limited to row-logging when transaction isolation level "
            "is READ COMMITTED or READ UNCOMMITTED.",
        ),
        Engine("MyISAM", transactional=False, row_capable=True, statement_capable=True, exact_row_count=True),
        Engine("MEMORY", transactional=False, row_capable=True, statement_capable=True, exact_row_count=True),
        Engine("ARCHIVE", transactional=False, row_capable=True, statement_capable=True),
        Engine("CSV", transactional=False, row_capable=True, statement_capable=True),
        Engine("BLACKHOLE", transactional=False, row_capable=True, statement_capable=True, stores_rows=False, exact_row_count=True),
        Engine("EXAMPLE", transactional=False, row_capable=False, statement_capable=True),
        Engine("NDB", transactional=True, row_capable=True, statement_capable=True, self_logging=True, clustered=True),
    )
}
# Engines only the server's own tables use: performance_schema declares neither binlog
# capability, which makes its tables no_replicate.
SYSTEM_ENGINES: dict[str, Engine] = {
    "PERFORMANCE_SCHEMA": Engine("PERFORMANCE_SCHEMA", transactional=False, row_capable=False, statement_capable=False),
}
_ALIASES = {"HEAP": "MEMORY", "NDBCLUSTER": "NDB", "ARIA": "MYISAM"}
DEFAULT_ENGINE = "InnoDB"


class EngineRegistry:
    """The engines one server knows: the built-in ones plus any a scenario declares."""

    def __init__(self, extra: dict[str, Engine] | None = None) -> None:
        self._engines = dict(BUILTIN_ENGINES)
        for name, engine in (extra or {}).items():
            self._engines[name.upper()] = engine

    def get(self, name: str) -> Engine:
        key = name.upper()
        key = _ALIASES.get(key, key)
        try:
            return self._engines[key]
        except KeyError:
            # MySQL substitutes the default engine only with NO_ENGINE_SUBSTITUTION off;
            # the default sql_mode has it on, so an unknown engine is an error.
            raise SqlError(ErrorCode.ER_UNKNOWN_STORAGE_ENGINE, name) from None
