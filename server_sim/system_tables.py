"""The tables every server has outside the user's database, as data.

The server sorts its tables into categories (enum_table_category). The log tables
(`mysql.general_log`, `mysql.slow_log`) and the performance_schema tables are "no_replicate":
their contents belong to the server they are on, so decide_logging_format flags a statement
that uses one as unsafe (SYSTEM_TABLE), logs nothing of what it writes there, and filters a
statement that writes nothing else. information_schema tables are built for each statement
and skipped by the binlog decision altogether.

Which tables a flavor has, and what they hold, is part of the flavor (`Flavor.system_tables`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum



class TableCategory(Enum):
    """enum_table_category, the members the simulators meet."""

    USER = "user"
    LOG = "log"  # TABLE_CATEGORY_LOG
    PERFORMANCE = "performance"  # TABLE_CATEGORY_PERFORMANCE
    INFORMATION = "information"  # TABLE_CATEGORY_INFORMATION

    @property
    def no_replicate(self) -> bool:
        """TABLE_SHARE::no_replicate: never written to the binlog, never read the same on a slave."""
        return self in (TableCategory.LOG, TableCategory.PERFORMANCE)


class Contents(Enum):
    """What a system table's rows are made of, on the server that reads it."""

    EMPTY = "empty"
    GLOBAL_VARIABLES = "global_variables"  # the server's global variables
    SESSION_VARIABLES = "session_variables"  # the reading session's variables
    CONSUMERS = "consumers"  # performance_schema's event consumers and their defaults


@dataclass(frozen=True)
class SystemTable:
    """One system table: where it is, its columns as CREATE TABLE declares them, its engine."""

    database: str
    name: str
    columns: str
    engine: str
    category: TableCategory
    contents: Contents = Contents.EMPTY
    # The statements the server lets a client run on it (StatementKind values); any other
    # write gets the category's error.
    writable_by: frozenset[str] = frozenset()
    # information_schema spells variable names in upper case, performance_schema in lower.
    upper_case_names: bool = False

    @property
    def qualified_name(self) -> str:
        return f"{self.database}.{self.name}"


# Log tables: CSV, empty with log_output=FILE (both servers' default). A client may
# TRUNCATE them, which is logged as DDL; any other write is refused (ER_CANT_LOCK_LOG_TABLE).
# The columns are the servers' own; TIME is not a modelled type, so slow_log keeps its
# durations as text.
GENERAL_LOG = SystemTable(
    "mysql",
    "general_log",
    "event_time TIMESTAMP NOT NULL, user_host MEDIUMTEXT NOT NULL, thread_id BIGINT UNSIGNED NOT NULL, "
    "server_id INT UNSIGNED NOT NULL, command_type VARCHAR(64) NOT NULL, argument MEDIUMTEXT NOT NULL",
    "CSV",
    TableCategory.LOG,
    writable_by=frozenset({"TRUNCATE"}),
)
SLOW_LOG = SystemTable(
    "mysql",
    "slow_log",
    "start_time TIMESTAMP NOT NULL, user_host MEDIUMTEXT NOT NULL, query_time VARCHAR(17) NOT NULL, "
    "lock_time VARCHAR(17) NOT NULL, rows_sent BIGINT UNSIGNED NOT NULL, rows_examined BIGINT UNSIGNED NOT NULL, "
    "db VARCHAR(512) NOT NULL, last_insert_id INT NOT NULL, insert_id INT NOT NULL, server_id INT UNSIGNED NOT NULL, "
    "sql_text MEDIUMTEXT NOT NULL, thread_id BIGINT UNSIGNED NOT NULL",
    "CSV",
    TableCategory.LOG,
    writable_by=frozenset({"TRUNCATE"}),
)

# performance_schema: read-only but for its setup_* tables (ENABLED is an ENUM('YES','NO')
# there; ENUM is not a modelled type). TRUNCATE is allowed and, like every write there,
# not logged.
_VARIABLE_COLUMNS = "VARIABLE_NAME VARCHAR(64) NOT NULL, VARIABLE_VALUE VARCHAR(1024)"
PS_GLOBAL_VARIABLES = SystemTable(
    "performance_schema", "global_variables", _VARIABLE_COLUMNS, "PERFORMANCE_SCHEMA", TableCategory.PERFORMANCE,
    Contents.GLOBAL_VARIABLES, writable_by=frozenset({"TRUNCATE"}),
)
PS_SESSION_VARIABLES = SystemTable(
    "performance_schema", "session_variables", _VARIABLE_COLUMNS, "PERFORMANCE_SCHEMA", TableCategory.PERFORMANCE,
    Contents.SESSION_VARIABLES, writable_by=frozenset({"TRUNCATE"}),
)
PS_SETUP_CONSUMERS = SystemTable(
    "performance_schema", "setup_consumers", "NAME VARCHAR(64) NOT NULL, ENABLED VARCHAR(3) NOT NULL",
    "PERFORMANCE_SCHEMA", TableCategory.PERFORMANCE, Contents.CONSUMERS, writable_by=frozenset({"UPDATE", "TRUNCATE"}),
)

# information_schema (MariaDB still has the variable tables there; MySQL 8.0 moved them to
# performance_schema): MEMORY temporary tables filled for the statement, never writable.
_IS_VARIABLE_COLUMNS = "VARIABLE_NAME VARCHAR(64) NOT NULL, VARIABLE_VALUE VARCHAR(4096) NOT NULL"
IS_GLOBAL_VARIABLES = SystemTable(
    "information_schema", "GLOBAL_VARIABLES", _IS_VARIABLE_COLUMNS, "MEMORY", TableCategory.INFORMATION,
    Contents.GLOBAL_VARIABLES, upper_case_names=True,
)
IS_SESSION_VARIABLES = SystemTable(
    "information_schema", "SESSION_VARIABLES", _IS_VARIABLE_COLUMNS, "MEMORY", TableCategory.INFORMATION,
    Contents.SESSION_VARIABLES, upper_case_names=True,
)

# performance_schema.setup_consumers as MySQL 8.0 starts: (NAME, ENABLED).
DEFAULT_CONSUMERS: tuple[tuple[str, str], ...] = (
    ("events_stages_current", "NO"),
    ("events_stages_history", "NO"),
    ("events_stages_history_long", "NO"),
    ("events_statements_cpu", "NO"),
    ("events_statements_current", "YES"),
    ("events_statements_history", "YES"),
    ("events_statements_history_long", "NO"),
    ("events_transactions_current", "YES"),
    ("events_transactions_history", "YES"),
    ("events_transactions_history_long", "NO"),
    ("events_waits_current", "NO"),
    ("events_waits_history", "NO"),
    ("events_waits_history_long", "NO"),
    ("global_instrumentation", "YES"),
    ("thread_instrumentation", "YES"),
    ("statements_digest", "YES"),
)
