"""System variables the simulators model: names, allowed values, defaults and scope.

A variable the server has and the simulator does not model is refused with 1235 naming
it; a name the server does not know is 1193, as the server says.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from . import charsets
from .binlog.events import (
    NO_FOREIGN_KEY_CHECKS_F,
    RELAXED_UNIQUE_CHECKS_F,
    OPTION_AUTO_IS_NULL,
    OPTION_NO_FOREIGN_KEY_CHECKS,
    OPTION_NOT_AUTOCOMMIT,
    OPTION_RELAXED_UNIQUE_CHECKS,
)
from .engines import DEFAULT_ENGINE, EngineRegistry
from .errors import Condition, ErrorCode, SqlError, not_supported, note
from .flavor import Flavor

ON_OFF = ("ON", "OFF")
# auto_increment_increment and auto_increment_offset: 1 to 65535 (two bytes in a Query event).
AUTO_INCREMENT_BOUNDS = (1, 65535)


@dataclass(frozen=True)
class SystemVariable:
    """One server variable; `values` lists an enumeration's members, None means free text.
    `check` gives a free-text value its canonical form, or raises the server's error."""

    name: str
    values: tuple[str, ...] | None
    default: str
    read_only: bool = False
    integer: bool = False
    is_set: bool = False  # a SET: any comma-separated subset of `values`, empty included
    check: Callable[[str], str] | None = None
    nullable: bool = False  # NULL is a value (character_set_results)
    bounds: tuple[int, int] | None = None  # an integer's range: beyond it, clamped with Warning 1292

    def within_bounds(self, value: str) -> tuple[str, Condition | None]:
        """An integer `value` (normalised) held within the variable's range, and the
        server's Warning 1292 when it was not (SET auto_increment_increment = 0 sets 1)."""
        if self.bounds is None:
            return value, None
        low, high = self.bounds
        number = int(value)
        if low <= number <= high:
            return value, None
        return str(min(max(number, low), high)), note(ErrorCode.ER_TRUNCATED_WRONG_VALUE, self.name, value, level="Warning")

    global_only: bool = False  # SET SESSION of it is 1229

    def normalise(self, value: object) -> str:
        """The canonical text of `value`, or ER_WRONG_VALUE_FOR_VAR."""
        if value is None:
            if self.nullable:
                return "NULL"
            if self.integer:
                raise SqlError(ErrorCode.ER_WRONG_TYPE_FOR_VAR, self.name)
            raise SqlError(ErrorCode.ER_WRONG_VALUE_FOR_VAR, self.name, "NULL")
        text = ("ON" if value else "OFF") if isinstance(value, bool) else str(value).strip()
        if self.integer:
            try:
                return str(int(text))
            except ValueError:
                raise SqlError(ErrorCode.ER_WRONG_TYPE_FOR_VAR, self.name) from None
        if self.check is not None:
            return self.check(text)
        if self.values is None:
            return text
        text = text.upper()
        if self.is_set:
            members = {member.strip() for member in text.split(",") if member.strip()}
            unknown = sorted(members - set(self.values))
            if unknown:
                raise SqlError(ErrorCode.ER_WRONG_VALUE_FOR_VAR, self.name, unknown[0])
            return ",".join(value for value in self.values if value in members)
        if self.values == ON_OFF:
            text = {"1": "ON", "0": "OFF", "TRUE": "ON", "FALSE": "OFF"}.get(text, text)
        if text not in self.values:
            raise SqlError(ErrorCode.ER_WRONG_VALUE_FOR_VAR, self.name, text)
        return text

    def read(self, value: str) -> object:
        """The value `@@name` gives: integers and switches (1/0) as numbers."""
        if self.integer:
            return int(value)
        if self.values == ON_OFF:
            return 1 if value == "ON" else 0
        if self.nullable and value == "NULL":
            return None
        return value


# Members of the applier's SET variables, in the server's order.
TYPE_CONVERSIONS = ("ALL_LOSSY", "ALL_NON_LOSSY")
ROWS_SEARCH_ALGORITHMS = ("TABLE_SCAN", "INDEX_SCAN", "HASH_SCAN")

_ISOLATION_LEVELS = ("READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE")

# sql_mode's members, in the server's order.
SQL_MODES = (
    "REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", "IGNORE_BAD_TABLE_OPTIONS",
    "ONLY_FULL_GROUP_BY", "NO_UNSIGNED_SUBTRACTION", "NO_DIR_IN_CREATE", "POSTGRESQL", "ORACLE",
    "MSSQL", "DB2", "MAXDB", "NO_KEY_OPTIONS", "NO_TABLE_OPTIONS", "NO_FIELD_OPTIONS", "MYSQL323",
    "MYSQL40", "ANSI", "NO_AUTO_VALUE_ON_ZERO", "NO_BACKSLASH_ESCAPES", "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES", "NO_ZERO_IN_DATE", "NO_ZERO_DATE", "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO", "TRADITIONAL", "NO_AUTO_CREATE_USER", "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION", "PAD_CHAR_TO_FULL_LENGTH", "EMPTY_STRING_IS_NULL",
    "SIMULTANEOUS_ASSIGNMENT", "TIME_ROUND_FRACTIONAL", "TIME_TRUNCATE_FRACTIONAL",
)
# Members whose presence or absence the simulator models; any other difference from the
# flavor's default sql_mode (ANSI_QUOTES, NO_ZERO_DATE, ...) is refused. Strict or not:
# row writes (server_sim/lenient_values.py); what else depends on it refuses the
# non-strict case (ALTER TABLE's copy). NO_ENGINE_SUBSTITUTION: an unknown engine is
# refused without it (the executor). ERROR_FOR_DIVISION_BY_ZERO: a division by zero raises
# 1365, settled as an error or warnings by the statement (server_sim/functions/division.py).
# ONLY_FULL_GROUP_BY: a column outside a grouped SELECT's groups is 1055 / 1140 with it,
# refused without it (server_sim/functions/grouping.py).
# NO_ZERO_DATE, NO_ZERO_IN_DATE: a date with a zero part is 1292 with them, stored without
# them, which the simulator refuses (server_sim/temporal_types.py).
MODELLED_SQL_MODES = frozenset(
    {
        "NO_AUTO_VALUE_ON_ZERO", "NO_AUTO_CREATE_USER", "NO_DIR_IN_CREATE", "STRICT_TRANS_TABLES", "STRICT_ALL_TABLES",
        "NO_ENGINE_SUBSTITUTION", "ERROR_FOR_DIVISION_BY_ZERO", "ONLY_FULL_GROUP_BY", "NO_ZERO_DATE", "NO_ZERO_IN_DATE",
    }
)

# Variables the servers have that the simulator does not model: refused with 1235 (set or read).
UNMODELLED_VARIABLES = frozenset(
    {
        "big_tables", "binlog_error_action", "binlog_order_commits", "block_encryption_mode",
        "binlog_transaction_dependency_tracking", "character_set_filesystem", "check_constraint_checks",
        "default_week_format", "div_precision_increment",
        "end_markers_in_json", "enforce_gtid_consistency", "explicit_defaults_for_timestamp",
        "group_concat_max_len", "gtid_domain_id", "gtid_mode", "gtid_next", "gtid_seq_no", "identity",
        "innodb_strict_mode", "interactive_timeout", "last_insert_id",
        "lc_messages", "low_priority_updates",
        "max_allowed_packet", "max_error_count", "max_execution_time", "max_heap_table_size",
        "max_join_size", "max_sort_length", "max_statement_time", "net_read_timeout", "net_write_timeout",
        "old_alter_table", "optimizer_switch", "pseudo_slave_mode", "pseudo_thread_id", "rand_seed1",
        "rand_seed2", "session_track_gtids", "session_track_schema", "session_track_state_change",
        "session_track_system_variables", "session_track_transaction_info", "skip_replication",
        "sql_big_selects", "sql_buffer_result", "sql_log_off", "sql_notes", "sql_quote_show_create",
        "sql_require_primary_key", "sql_safe_updates", "sql_select_limit", "sql_slave_skip_counter",
        "sql_warnings", "storage_engine", "tmp_table_size", "transaction_read_only", "tx_read_only",
        "updatable_views_with_limit", "wait_timeout",
        # Replication, logging and server settings scripts and dumps set or read.
        "binlog_expire_logs_seconds", "binlog_row_value_options", "bulk_insert_buffer_size", "completion_type",
        "event_scheduler", "expire_logs_days", "general_log", "general_log_file", "slow_query_log_file", "gtid_binlog_pos", "gtid_current_pos",
        "gtid_executed", "gtid_purged", "gtid_slave_pos", "gtid_strict_mode", "innodb_autoinc_lock_mode",
        "innodb_flush_log_at_trx_commit", "join_buffer_size", "local_infile", "long_query_time",
        "max_binlog_size", "max_connections", "net_buffer_length", "read_buffer_size", "read_only",
        "read_rnd_buffer_size", "secure_file_priv", "slow_query_log", "sort_buffer_size",
        "super_read_only", "table_open_cache", "thread_cache_size",
    }
)


def sql_modes(variables: Mapping[str, object]) -> frozenset[str]:
    """The members of a session's sql_mode."""
    return frozenset(mode.strip().upper() for mode in str(variables.get("sql_mode", "")).split(",") if mode.strip())


STRICT_MODES = frozenset({"STRICT_TRANS_TABLES", "STRICT_ALL_TABLES"})


def strict_sql_mode(variables: Mapping[str, object]) -> bool:
    """Whether a session's sql_mode is strict (either strict member): a value that does not
    fit is an error, where the statement and the table do not make it a warning."""
    return bool(sql_modes(variables) & STRICT_MODES)


# The members MySQL 8.0 means to merge into strict mode (sys_vars.cc, check_sub_modes_of_strict_mode).
_STRICT_SUBMODES = frozenset({"NO_ZERO_IN_DATE", "NO_ZERO_DATE", "ERROR_FOR_DIVISION_BY_ZERO"})


def sql_mode_merged_warning(value: str) -> Condition | None:
    """MySQL 8.0's Warning 3135 for an sql_mode that sets strict mode without all three of
    its future members, or some of them without strict mode (SET sql_mode =
    'STRICT_ALL_TABLES' warns, '' and the default do not)."""
    modes = frozenset(value.split(",")) if value else frozenset()
    strict, submodes = modes & STRICT_MODES, modes & _STRICT_SUBMODES
    if (strict or submodes) and (submodes != _STRICT_SUBMODES or not strict):
        return note(ErrorCode.ER_SQL_MODE_MERGED, level="Warning")
    return None


def _sql_mode_check(flavor: Flavor) -> Callable[[str], str]:
    default = frozenset(flavor.default_sql_mode.split(","))
    members = SystemVariable("sql_mode", SQL_MODES, "", is_set=True)

    def check(text: str) -> str:
        value = members.normalise(text.strip("'\""))
        unmodelled = sorted((set(value.split(",") if value else ()) ^ default) - MODELLED_SQL_MODES)
        if unmodelled:
            raise not_supported(f"sql_mode '{value}' (the simulator runs {flavor.default_sql_mode}, with or without {', '.join(sorted(MODELLED_SQL_MODES))}; differs in {', '.join(unmodelled)})")
        return value

    return check


_OFFSET = re.compile(r"([+-])(\d{1,2}):(\d{2})")


def _time_zone(text: str) -> str:
    """SYSTEM (the simulated servers' clock is UTC) and UTC offsets of zero are modelled. A
    named zone ('UTC' too) is 1298, as on a server whose mysql.time_zone tables are empty,
    as installed; so is an offset no server takes (beyond -13:59 .. +14:00, 60 minutes)."""
    value = text.strip("'\"")
    if value.upper() == "SYSTEM":
        return "SYSTEM"
    found = _OFFSET.fullmatch(value)
    if found is None:
        raise SqlError(ErrorCode.ER_UNKNOWN_TIME_ZONE, value)
    sign, hours, minutes = found.group(1), int(found.group(2)), int(found.group(3))
    offset = (hours * 60 + minutes) * (-1 if sign == "-" else 1)
    if minutes > 59 or not -(13 * 60 + 59) <= offset <= 14 * 60:
        raise SqlError(ErrorCode.ER_UNKNOWN_TIME_ZONE, value)
    if offset == 0:
        return "+00:00"
    raise not_supported(f"time_zone '{value}' (the simulator models SYSTEM and +00:00)")


def _timestamp(text: str) -> str:
    """A fixed Unix time for the session's statements; 0 (or DEFAULT: '') is the clock's."""
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise SqlError(ErrorCode.ER_WRONG_TYPE_FOR_VAR, "timestamp") from None
    return "" if value == 0 else str(value)


def fixed_moment(value: str) -> dt.datetime:
    """The moment a SET timestamp value names (the simulated clocks are naive UTC)."""
    return _EPOCH + dt.timedelta(microseconds=int(Decimal(value) * 1_000_000))


_EPOCH = dt.datetime(1970, 1, 1)


def _charset(text: str) -> str:
    charset = charsets.charset_name(text)
    if charset is None:
        raise SqlError(ErrorCode.ER_UNKNOWN_CHARACTER_SET, text.strip("'\""))
    return charset


def _engine(text: str) -> str:
    """An engine's name as the server shows it (InnoDB, MyISAM); 1286 for one it lacks."""
    return EngineRegistry().get(text.strip("'\"")).name


def _collation(text: str) -> str:
    name = text.strip("'\"").lower()
    if name not in charsets.COLLATIONS:
        raise SqlError(ErrorCode.ER_UNKNOWN_COLLATION, name)
    return name


def _lc_time_names(text: str) -> str:
    if text.strip("'\"") != "en_US":
        raise not_supported(f"lc_time_names '{text}' (the simulator models en_US)")
    return "en_US"


def _session_variables(flavor: Flavor) -> list[SystemVariable]:
    """The variables dump files and drivers set, each carried by the binlog (Query event status)."""
    server_charset = flavor.character_set_server
    # A client's connection: utf8mb4, as the mysql and mariadb clients and the drivers ask for.
    client_charset, client_collation = "utf8mb4", flavor.utf8mb4_collation
    return [
        SystemVariable("foreign_key_checks", ON_OFF, "ON"),
        SystemVariable("unique_checks", ON_OFF, "ON"),
        SystemVariable("sql_auto_is_null", ON_OFF, "OFF"),
        SystemVariable("insert_id", None, "0", integer=True),
        SystemVariable("timestamp", None, "", check=_timestamp),
        SystemVariable("lc_time_names", None, "en_US", check=_lc_time_names),
        SystemVariable("character_set_client", None, client_charset, check=_charset),
        SystemVariable("character_set_connection", None, client_charset, check=_charset),
        SystemVariable("character_set_results", None, client_charset, check=_charset, nullable=True),
        SystemVariable("character_set_server", None, server_charset, check=_charset),
        SystemVariable("character_set_database", None, server_charset, check=_charset),
        SystemVariable("collation_connection", None, client_collation, check=_collation),
        SystemVariable("collation_server", None, flavor.collation_server, check=_collation),
        SystemVariable("collation_database", None, flavor.collation_server, check=_collation),
        SystemVariable("sync_binlog", None, flavor.sync_binlog_default, integer=True),
        # Not in the Query event: a replica creates a table without ENGINE with its own.
        SystemVariable("default_storage_engine", None, DEFAULT_ENGINE, check=_engine),
        SystemVariable("default_tmp_storage_engine", None, flavor.default_tmp_storage_engine, check=_engine, nullable=flavor.default_tmp_storage_engine == "NULL"),
        SystemVariable("init_slave", None, ""),
    ]


def _variables(flavor: Flavor) -> list[SystemVariable]:
    return [
        SystemVariable("binlog_format", ("STATEMENT", "MIXED", "ROW"), flavor.default_binlog_format),
        SystemVariable("binlog_row_image", ("FULL", "MINIMAL", "NOBLOB"), "FULL"),
        SystemVariable("binlog_checksum", ("CRC32", "NONE"), "CRC32"),
        SystemVariable("binlog_direct_non_transactional_updates", ON_OFF, "OFF"),
        SystemVariable("binlog_rows_query_log_events", ON_OFF, "OFF"),
        SystemVariable("binlog_annotate_row_events", ON_OFF, "ON"),
        SystemVariable("transaction_isolation", _ISOLATION_LEVELS, "REPEATABLE-READ"),
        SystemVariable("autocommit", ON_OFF, "ON"),
        SystemVariable("sql_log_bin", ON_OFF, "ON"),
        SystemVariable("auto_increment_increment", None, "1", integer=True, bounds=AUTO_INCREMENT_BOUNDS),
        SystemVariable("auto_increment_offset", None, "1", integer=True, bounds=AUTO_INCREMENT_BOUNDS),
        SystemVariable("time_zone", None, "SYSTEM", check=_time_zone),
        SystemVariable("sql_mode", None, flavor.default_sql_mode, check=_sql_mode_check(flavor)),
        SystemVariable("server_id", None, "1", read_only=True, integer=True),
        SystemVariable("hostname", None, "localhost", read_only=True),
        SystemVariable("port", None, "3306", read_only=True, integer=True),
        SystemVariable("version", None, flavor.server_version, read_only=True),
        SystemVariable("slave_exec_mode", ("STRICT", "IDEMPOTENT"), "STRICT"),
        SystemVariable("slave_type_conversions", TYPE_CONVERSIONS, "", is_set=True),
        SystemVariable("slave_transaction_retries", None, "10", integer=True),
        # How long a statement waits for a row lock (InnoDB) or a table's lock before 1205.
        # The simulator has no clock: a scenario says when a client stops waiting (a reap
        # step times out what still waits), so the values are what the session reads back.
        # MariaDB's 0 (fail at once, as NOWAIT) is outside the bounds: Warning 1292, and 1.
        SystemVariable("innodb_lock_wait_timeout", None, "50", integer=True, bounds=(1, 1073741824)),
        SystemVariable("lock_wait_timeout", None, "31536000", integer=True, bounds=(1, 31536000)),
        # Whether CREATE FUNCTION may define a function that is not declared safe to log (1418).
        SystemVariable("log_bin_trust_function_creators", ON_OFF, "OFF", global_only=True),
        # Where the general and slow query logs go: no client or replica sees it while
        # both logs are off (turning one on is refused: general_log, slow_query_log).
        SystemVariable("log_output", ("TABLE", "FILE", "NONE"), "FILE", is_set=True, global_only=True),
    ] + _session_variables(flavor) + (
        # What the error log records: no client or replica sees it.
        [SystemVariable("log_error_verbosity", None, "2", integer=True, bounds=(1, 3), global_only=True)] if flavor.log_error_verbosity else []
    ) + (
        [SystemVariable("server_uuid", None, "", read_only=True)] if flavor.server_uuid else []
    ) + (
        [SystemVariable("slave_rows_search_algorithms", ROWS_SEARCH_ALGORITHMS, flavor.rows_search_algorithms_default, is_set=True)]
        if flavor.rows_search_algorithms_default is not None
        else []
    )


_ALIASES = {"tx_isolation": "transaction_isolation"}
# MySQL 8.0.26's names of the applier's variables (Flavor.replica_terminology).
_REPLICA_ALIASES = {
    "init_replica": "init_slave", "replica_exec_mode": "slave_exec_mode", "replica_type_conversions": "slave_type_conversions",
    "replica_transaction_retries": "slave_transaction_retries", "replica_rows_search_algorithms": "slave_rows_search_algorithms",
}  # fmt: skip

# Session variables that are the session's own state: @@identity and @@last_insert_id are
# LAST_INSERT_ID() (and carried to the slave as it is, in an Intvar event), @@pseudo_thread_id
# the thread id the Query event carries. Read only here: SET of them is refused (unmodelled).
SESSION_STATE_VARIABLES = frozenset({"identity", "last_insert_id", "pseudo_thread_id"})

# Variables a statement may read in session scope and still be safe for statement-based
# logging, because their values travel in the Query event (server-internals.md §1.3).
REPLICATED_SESSION_VARIABLES = frozenset(
    {
        "auto_increment_increment", "auto_increment_offset", "character_set_client",
        "character_set_connection", "character_set_database", "character_set_server",
        "collation_connection", "collation_database", "collation_server",
        "foreign_key_checks", "identity", "last_insert_id", "lc_time_names",
        "pseudo_thread_id", "rand_seed1", "rand_seed2", "sql_auto_is_null", "time_zone",
        "timestamp", "unique_checks",
    }
)


class VariableRegistry:
    """The variables of one flavor, with lookup by name or alias."""

    def __init__(self, flavor: Flavor) -> None:
        self.flavor = flavor
        self._by_name = {variable.name: variable for variable in _variables(flavor)}

    def lookup(self, name: str) -> SystemVariable:
        key = name.lower()
        key = _ALIASES.get(key, key)
        if self.flavor.replica_terminology:
            key = _REPLICA_ALIASES.get(key, key)
        try:
            return self._by_name[key]
        except KeyError:
            if key in UNMODELLED_VARIABLES:
                raise not_supported(f"system variable '{key}'") from None
            raise SqlError(ErrorCode.ER_UNKNOWN_SYSTEM_VARIABLE, name) from None

    def defaults(self) -> dict[str, str]:
        return {name: variable.default for name, variable in self._by_name.items()}

    def validate(self, settings: dict[str, object]) -> dict[str, str]:
        """Canonical values for `settings`; raises SqlError naming the first bad one."""
        return {self.lookup(name).name: self.lookup(name).normalise(value) for name, value in settings.items()}


def option_bits(variables: Mapping[str, str]) -> int:
    """The session's OPTION bits a Query event carries in its flags2 (OPTIONS_WRITTEN_TO_BIN_LOG)."""
    bits = 0
    if variables.get("sql_auto_is_null") == "ON":
        bits |= OPTION_AUTO_IS_NULL
    if variables.get("autocommit") == "OFF":
        bits |= OPTION_NOT_AUTOCOMMIT
    if variables.get("foreign_key_checks") == "OFF":
        bits |= OPTION_NO_FOREIGN_KEY_CHECKS
    if variables.get("unique_checks") == "OFF":
        bits |= OPTION_RELAXED_UNIQUE_CHECKS
    return bits


def rows_flags(variables: Mapping[str, str]) -> int:
    """The flags a session's row events carry for the checks it switched off."""
    flags = 0
    if variables.get("foreign_key_checks") == "OFF":
        flags |= NO_FOREIGN_KEY_CHECKS_F
    if variables.get("unique_checks") == "OFF":
        flags |= RELAXED_UNIQUE_CHECKS_F
    return flags


def option_variables(bits: int) -> dict[str, str]:
    """The session variables a Query event's flags2 sets on the applier."""
    return {
        "sql_auto_is_null": "ON" if bits & OPTION_AUTO_IS_NULL else "OFF",
        "autocommit": "OFF" if bits & OPTION_NOT_AUTOCOMMIT else "ON",
        "foreign_key_checks": "OFF" if bits & OPTION_NO_FOREIGN_KEY_CHECKS else "ON",
        "unique_checks": "OFF" if bits & OPTION_RELAXED_UNIQUE_CHECKS else "ON",
    }


def charset_ids(variables: Mapping[str, str], utf8mb4_collation: str) -> tuple[int, int, int]:
    """A Query event's Q_CHARSET_CODE: character_set_client's default collation,
    collation_connection and collation_server, by id."""
    client = charsets.default_collation(variables["character_set_client"], utf8mb4_collation)
    return (
        charsets.collation_id(client),
        charsets.collation_id(variables["collation_connection"]),
        charsets.collation_id(variables["collation_server"]),
    )


def charset_variables(ids: tuple[int, int, int]) -> dict[str, str]:
    """The session variables a Query event's charset sets on the applier."""
    client, connection, server = (charsets.COLLATION_NAMES[i] for i in ids)
    return {
        "character_set_client": charsets.COLLATIONS[client].charset,
        "collation_connection": connection,
        "character_set_connection": charsets.COLLATIONS[connection].charset,
        "collation_server": server,
        "character_set_server": charsets.COLLATIONS[server].charset,
    }
