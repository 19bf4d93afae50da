"""System variables the simulators model: names, allowed values, defaults and scope."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ErrorCode, SqlError
from .flavor import Flavor

ON_OFF = ("ON", "OFF")


@dataclass(frozen=True)
class SystemVariable:
    """One server variable; `values` lists an enumeration's members, None means free text."""

    name: str
    values: tuple[str, ...] | None
    default: str
    read_only: bool = False
    integer: bool = False
    is_set: bool = False  # a SET: any comma-separated subset of `values`, empty included

    def normalise(self, value: object) -> str:
        """The canonical text of `value`, or ER_WRONG_VALUE_FOR_VAR."""
        if isinstance(value, bool):
            text = "ON" if value else "OFF"
        else:
            text = str(value).strip()
        if self.integer:
            try:
                return str(int(text))
            except ValueError:
                raise SqlError(ErrorCode.ER_WRONG_VALUE_FOR_VAR, self.name, text) from None
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


# Members of the applier's SET variables, in the server's order.
TYPE_CONVERSIONS = ("ALL_LOSSY", "ALL_NON_LOSSY")
ROWS_SEARCH_ALGORITHMS = ("TABLE_SCAN", "INDEX_SCAN", "HASH_SCAN")

_ISOLATION_LEVELS = ("READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE")


def _variables(flavor: Flavor) -> list[SystemVariable]:
    return [
        SystemVariable("binlog_format", ("STATEMENT", "MIXED", "ROW"), flavor.default_binlog_format),
        SystemVariable("binlog_row_image", ("FULL", "MINIMAL", "NOBLOB"), "FULL"),
        SystemVariable("binlog_direct_non_transactional_updates", ON_OFF, "OFF"),
        SystemVariable("binlog_rows_query_log_events", ON_OFF, "OFF"),
        SystemVariable("binlog_annotate_row_events", ON_OFF, "ON"),
        SystemVariable("transaction_isolation", _ISOLATION_LEVELS, "REPEATABLE-READ"),
        SystemVariable("autocommit", ON_OFF, "ON"),
        SystemVariable("sql_log_bin", ON_OFF, "ON"),
        SystemVariable("auto_increment_increment", None, "1", integer=True),
        SystemVariable("auto_increment_offset", None, "1", integer=True),
        SystemVariable("time_zone", None, "SYSTEM"),
        SystemVariable("sql_mode", None, "STRICT_TRANS_TABLES"),
        SystemVariable("server_id", None, "1", read_only=True, integer=True),
        SystemVariable("hostname", None, "localhost", read_only=True),
        SystemVariable("port", None, "3306", read_only=True, integer=True),
        SystemVariable("version", None, flavor.server_version, read_only=True),
        SystemVariable("slave_exec_mode", ("STRICT", "IDEMPOTENT"), "STRICT"),
        SystemVariable("slave_type_conversions", TYPE_CONVERSIONS, "", is_set=True),
        SystemVariable("slave_transaction_retries", None, "10", integer=True),
    ] + (
        [SystemVariable("server_uuid", None, "", read_only=True)] if flavor.server_uuid else []
    ) + (
        [SystemVariable("slave_rows_search_algorithms", ROWS_SEARCH_ALGORITHMS, flavor.rows_search_algorithms_default, is_set=True)]
        if flavor.rows_search_algorithms_default is not None
        else []
    )


_ALIASES = {"tx_isolation": "transaction_isolation"}

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
        try:
            return self._by_name[key]
        except KeyError:
            raise SqlError(ErrorCode.ER_UNKNOWN_SYSTEM_VARIABLE, name) from None

    def defaults(self) -> dict[str, str]:
        return {name: variable.default for name, variable in self._by_name.items()}

    def validate(self, settings: dict[str, object]) -> dict[str, str]:
        """Canonical values for `settings`; raises SqlError naming the first bad one."""
        return {self.lookup(name).name: self.lookup(name).normalise(value) for name, value in settings.items()}
