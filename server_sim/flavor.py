"""Server flavors as data: what differs between MySQL 8.0 and MariaDB 10.11.

Code asks a flavor for a rule; it never tests a flavor's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from . import system_tables as st
from .temporal_types import MARIADB_TEMPORAL, MYSQL_TEMPORAL, TemporalRules

# Functions whose result may differ on the slave when the statement is re-executed there
# (server-internals.md §1.2). Time functions, LAST_INSERT_ID and CONNECTION_ID are safe:
# their inputs travel in the events.
_COMMON_UNSAFE_FUNCTIONS = frozenset(
    {
        "CURRENT_USER", "FOUND_ROWS", "GET_LOCK", "IS_FREE_LOCK", "IS_USED_LOCK", "LOAD_FILE",
        "MASTER_POS_WAIT", "RAND", "RANDOM_BYTES", "RELEASE_ALL_LOCKS", "RELEASE_LOCK",
        "ROW_COUNT", "SESSION_USER", "SLEEP", "SYSDATE", "SYSTEM_USER", "USER", "UUID",
        "UUID_SHORT", "VERSION",
    }
)


@dataclass(frozen=True)
class CommentRules:
    """How the server's lexer reads `/*!NNNNN ... */` executable comments (sql_lex.cc)."""

    version_id: int  # MYSQL_VERSION_ID: 80039 for 8.0.39, 101118 for 10.11.18
    # MariaDB reads six digits when there are six (`/*!100100`); MySQL 8.0 reads five.
    six_digit_versions: bool = False
    # `/*M! ... */` is executable on MariaDB, a plain comment on MySQL.
    mariadb_marker: bool = False
    # Versions MariaDB skips in `/*!` (not `/*M!`): MySQL 5.7's syntax it may not have.
    skipped_versions: tuple[int, int] | None = None


def version_id(server_version: str) -> int:
    """`8.0.39-rplharness` -> 80039, `10.11.18-MariaDB` -> 101118 (MYSQL_VERSION_ID)."""
    major, minor, patch = server_version.split("-", 1)[0].split(".")[:3]
    return int(major) * 10000 + int(minor) * 100 + int(patch)


@dataclass(frozen=True)
class Flavor:
    """Everything the simulators need to know about one server product and version."""

    name: str
    server_version: str
    default_binlog_format: str
    unsafe_functions: frozenset[str]
    # MariaDB carries RAND()'s seed in a Rand event and does not flag RAND() in a plain
    # INSERT ... VALUES; MySQL flags it everywhere.
    rand_safe_in_insert_values: bool
    # WL#3303 cell "unsafe, statement-only engine": MySQL raises 1663 only under MIXED,
    # MariaDB also under STATEMENT.
    unsafe_stmt_engine_error_formats: frozenset[str]
    # MySQL stops a row injection under STATEMENT with 1666; MariaDB logs it in ROW.
    row_injection_in_statement_error: bool
    # Version of Write/Update/Delete_rows events: 2 (types 30-32) or 1 (types 23-25).
    rows_event_version: int
    # The informational event logged before a row-logged statement's table maps,
    # and the variable that switches it on.
    rows_query_event: str
    rows_query_variable: str
    rows_query_default: str
    # What USER() returns in the slave's applier thread.
    applier_user: str
    # binlog_format values under which CREATE/DROP TEMPORARY TABLE is written to the binlog
    # (MySQL 8.0 keeps temporary tables out of the binlog unless STATEMENT).
    temporary_tables_logged_formats: frozenset[str] = frozenset({"STATEMENT"})
    # At a session's disconnect, MySQL logs the DROP of its logged temporary tables as two
    # statements, the transactional tables' and then the others' (binlog_drop_temp_table_on_
    # disconnect_stmt_myisam.result); MariaDB one for all.
    disconnect_drops_by_engine: bool = True
    # Last_SQL_Errno when the applier stops on "Query caused different errors on master and
    # slave": MySQL reports ER_INCONSISTENT_ERROR (3002), MariaDB reports 0 with the text.
    inconsistent_error_code: int = 3002
    # MariaDB marks the Table_map of a table that has triggers (TM_BIT_HAS_TRIGGERS_F).
    table_map_marks_triggers: bool = False
    # MariaDB's applier runs each event with the event's server_id as its session
    # @@server_id (so re-logged events keep it); MySQL's @@server_id is global only.
    applier_server_id_from_event: bool = False
    # MySQL's unsafe-reason sentences in Note 1592 end with a full stop; MariaDB's do not.
    unsafe_reason_final_period: bool = True
    # A table without a primary key has every column in its before image under any
    # binlog_row_image; MariaDB logs every column in its after image too
    # (TABLE::mark_columns_per_binlog_row_image), MySQL only what the image selects.
    full_row_images_without_primary_key: bool = False
    # The real server's name for a variable the model calls by another name.
    server_variable_names: Mapping[str, str] = field(default_factory=dict, hash=False)
    # How the applier finds the row of an UPDATE/DELETE row event (server-internals §3.2).
    # MySQL uses a key only when the before image holds all its columns and compares only
    # the before image's columns; MariaDB 10.11 takes a key regardless and compares every
    # slave column, so slave-only columns and MINIMAL images can miss the row.
    row_lookup_key_in_before_image: bool = True
    row_compare_all_columns: bool = False
    # After the unique NOT NULL keys, MariaDB takes the key with the fewest rows per value;
    # MySQL the first key the before image covers.
    row_lookup_key_by_selectivity: bool = False
    # Default of slave_rows_search_algorithms; None: the server has no such variable and
    # looks every row up on its own, by key or table scan (no hash scan).
    rows_search_algorithms_default: str | None = "INDEX_SCAN,HASH_SCAN"
    # Which columns absent from a written row get the type's implicit default with Warning
    # 1364 when they have no default: MySQL every absent column, MariaDB only those beyond
    # the master's width.
    missing_column_warning_beyond_master_only: bool = False
    # After a duplicate key, REPLACE and INSERT ... ON DUPLICATE KEY UPDATE read and write the
    # conflicting row with every column (write_record: TABLE::use_all_columns). MySQL logs
    # the table's write_set, so that row and the statement's later rows carry every column;
    # MariaDB logs rpl_write_set, fixed when the statement started, so a MINIMAL image of
    # REPLACE's update in place lacks the columns the statement set to their defaults.
    duplicate_key_logs_all_columns: bool = False
    # The tables of the server's own a statement can name (mysql.*, performance_schema.*,
    # information_schema.*), and whether performance_schema fills its tables (MariaDB
    # starts with performance_schema=OFF: its tables exist and are empty).
    system_tables: tuple[st.SystemTable, ...] = ()
    performance_schema: bool = True
    # MySQL identifies a server by @@server_uuid as well as @@server_id; MariaDB has no such variable.
    server_uuid: bool = True
    # MySQL's @@log_error_verbosity (what its error log records); MariaDB has log_warnings.
    log_error_verbosity: bool = True
    # The error (ErrorCode member) for CREATE TRIGGER ... FOLLOWS/PRECEDES naming no trigger
    # of the same table, timing and event: MySQL 3011, MariaDB 4031.
    referenced_trigger_error: str = "ER_REFERENCED_TRG_DOES_NOT_EXIST"
    # DROP VIEW of a name that is no view, and DROP TABLE of a view (ErrorCode members):
    # MySQL says both are unknown tables (1051); MariaDB 4092 and 1965.
    unknown_view_error: str = "ER_BAD_TABLE_ERROR"
    drop_table_of_view_error: str = "ER_BAD_TABLE_ERROR"
    # MySQL 8.0's DROP VIEW is atomic: a missing view (without IF EXISTS) drops none of
    # them. MariaDB drops the others, and logs the statement with its error.
    drop_view_atomic: bool = True
    # WITH CHECK OPTION through nested views: MySQL checks the underlying views' options
    # too (LOCAL recurses, CASCADED checks every WHERE); MariaDB checks only the named
    # view's option (LOCAL its WHERE, CASCADED every WHERE down the chain).
    view_check_option_recurses: bool = True
    view_check_failed_error: str = "ER_VIEW_CHECK_FAILED"
    # A multi-table UPDATE with ORDER BY or LIMIT: MySQL refuses it with ER_WRONG_USAGE
    # (1221, PT_update::make_cmd); MariaDB runs it, which the simulator does not model.
    multi_table_update_order_limit_error: bool = True
    # The statements that may read the table they change in a subquery of their own
    # (`UPDATE t ... WHERE a IN (SELECT a FROM t)`): MariaDB 10.3+ computes the subqueries
    # before it changes any row (recorded, scenarios/oracle/update-self-subquery) and
    # keeps 1093 for a multi-table DELETE; MySQL refuses all of them with 1093.
    target_in_subquery: frozenset[str] = frozenset()
    # CREATE TABLE IF NOT EXISTS over an existing table (no SELECT): MySQL writes it to the
    # binlog anyway (BUG#45574), MariaDB 10.11 writes nothing (recorded,
    # scenarios/oracle/create-select-if-not-exists). With a SELECT neither logs it.
    logs_create_if_not_exists_over_existing: bool = True
    # Functions (and SELECT modifiers) the server answers with a deprecation warning (an
    # ErrorCode member's name), once per use: MySQL 8.0.17+ FOUND_ROWS() and
    # SQL_CALC_FOUND_ROWS, 8.0.20+ VALUES(col).
    deprecated_syntax: Mapping[str, str] = field(default_factory=dict)
    # MariaDB adds a Note 4094 "At line N in db.routine" to an error a stored routine's
    # statement raised and no handler caught (ER_SP_STACK_TRACE); MySQL adds nothing.
    routine_error_line_note: bool = False
    # Whether a stored function's parameter or result that does not fit its type is an
    # error under IGNORE too, as in any strict-mode statement (MariaDB: sp_eval_expr sets
    # abort_on_warning from the sql_mode alone), or the value cut to fit with a warning
    # (MySQL: sp_eval_expr installs the strict handler only when the statement is not IGNORE).
    routine_values_strict_under_ignore: bool = False
    # A BIT value with more bits than the column, stored with all bits set as a warning
    # (IGNORE, a later row of a non-transactional table): MySQL's Field_bit::store warns
    # 1406 while the sql_mode is strict (even under IGNORE; mysql-test type_bit_myisam),
    # 1264 outside it; MariaDB warns 1264 (recorded: non-strict-sql-mode).
    bit_overflow_warns_too_long_in_strict_sql_mode: bool = True
    # MariaDB keeps a procedure's statements parsed in the session's routine cache, and the
    # unsafe flags decide_logging_format sets on one from the transaction's state
    # (NONTRANS_AFTER_TRANS, MIXED_STATEMENT) stay on it for the session's later CALLs
    # (recorded on 10.11: a CALL in autocommit after one inside BEGIN ... COMMIT).
    routine_unsafe_flags_stick: bool = False
    # sp_head::subst_spvars: MySQL keeps the blanks before a procedure variable it replaces
    # with " NAME_CONST(...)" (`a =  NAME_CONST('n',2)`); MariaDB's replacement takes their
    # place (`a = NAME_CONST('n',2)`, recorded on 10.11).
    name_const_keeps_blanks: bool = True
    # MariaDB 10.10+: UUID() returns the UUID data type, which mixes with no number
    # (COALESCE(1, UUID()) is 4078); MySQL's UUID() is a string.
    uuid_data_type: bool = False
    # Whether GET_LOCK and the other user-level lock functions tell names apart by case
    # (MySQL compares them case-insensitively, MariaDB byte for byte).
    user_lock_names_case_sensitive: bool = False
    # A lock named NULL or '': MySQL's error 3057 (mysql-test user_lock.result FT-14.1),
    # MariaDB's NULL.
    user_lock_empty_name_error: bool = True
    # MySQL 8.0.17+ warns (1681) where a column definition gives an integer a display width,
    # a FLOAT or DOUBLE its digits, or a DECIMAL, FLOAT or DOUBLE the UNSIGNED attribute
    # (sql/parse_tree_column_attrs.h, PT_numeric_type), and (1287) for a text type's BINARY
    # attribute (sql_yacc.yy); MariaDB reads them quietly.
    deprecated_type_syntax_warns: bool = True
    # `LIKE ... ESCAPE ''`: MySQL matches with no escape character (Item_func_like::
    # eval_escape_clause); MariaDB's fix_escape_item falls back to backslash (recorded).
    empty_like_escape_is_backslash: bool = False
    # AES_ENCRYPT / AES_DECRYPT take an initialization vector (MySQL 8.0, then a key
    # derivation function from 8.0.30); MariaDB 10.11's take two arguments only.
    aes_init_vector: bool = True
    # MySQL 8.0 warns (3135) where an sql_mode sets strict mode without NO_ZERO_DATE,
    # NO_ZERO_IN_DATE and ERROR_FOR_DIVISION_BY_ZERO, or some of those without it.
    sql_mode_merged_warning: bool = True
    # A non-unique key naming a BLOB/TEXT column without a length: MySQL's 1170; MariaDB
    # keys the column's first bytes, with Note 1071 (recorded), which the simulator refuses.
    blob_keys_by_prefix: bool = False
    # LOAD_FILE() reads only below this directory (MySQL's default secure_file_priv of its
    # packages); None: anywhere (MariaDB's default), which the simulator refuses.
    secure_file_priv: str | None = "/var/lib/mysql-files/"
    # JSON_EXTRACT returns the document's own text of a value (MariaDB) rather than the
    # value printed normalized (MySQL: `[1, 2]`, object keys sorted); MariaDB's JSON
    # functions also note invalid text (4038) where MySQL's JSON_VALID answers 0 quietly.
    json_prints_as_written: bool = False
    # How temporal values are read: fractional seconds a column has no room for (MySQL
    # rounds them, MariaDB truncates them), TIME's range and its error.
    temporal: TemporalRules = MYSQL_TEMPORAL
    # A JSON column is MariaDB's alias, LONGTEXT with CHECK (json_valid(c)) stored as
    # written and logged as a LONGTEXT, rather than MySQL's binary JSON type (server_sim/json_type.py).
    json_column_is_text: bool = False
    # MySQL's `doc->'$.a'` and `doc->>'$.a'`; MariaDB has no such operators.
    json_arrow_operators: bool = True
    # MySQL's REGEXP_LIKE and the position, occurrence and match_type arguments of its
    # REGEXP_INSTR / _SUBSTR / _REPLACE (MariaDB has the short forms only; functions/regexp.py).
    regexp_match_options: bool = True
    # MySQL 8.0.19's row alias, INSERT ... VALUES (...) AS new ON DUPLICATE KEY UPDATE c = new.c.
    insert_row_alias: bool = True
    # The error of a window function outside a SELECT's list and ORDER BY (an ErrorCode name).
    window_placement_error: str = "ER_WINDOW_INVALID_WINDOW_FUNC_USE"
    # LAG(expr, n, default) / LEAD(...): MySQL takes the default; MariaDB's parser does not.
    lag_lead_default: bool = True
    # ONLY_FULL_GROUP_BY follows functional dependencies (MySQL 5.7+: a GROUP BY of a key
    # determines its table's columns); MariaDB checks the SELECT list's columns only
    # (functions/grouping.py). How a 1054 names a HAVING ('having clause', MariaDB 'HAVING').
    group_by_functional_dependencies: bool = True
    # A comparison (=, <>, <, >, <=, >=, <=>) of an exact quotient reads it rounded to its
    # declared scale, and a window's AVG is that value (MariaDB, recorded: 1 / 3 = 0.3333 is
    # true); MySQL 8.0's are not recorded here: refused (functions/exact_division.py).
    quotient_at_declared_scale: bool = False
    # A DATE / DATETIME compared with the zero date under NO_ZERO_DATE: MariaDB compares it
    # quietly (recorded); MySQL 8.0 may warn or fail (1292), not recorded here: refused.
    zero_date_compared_under_no_zero_date: bool = False
    having_clause_name: str = "having clause"
    # UNIX_TIMESTAMP(t) of a t before the epoch or after `unix_time_max`: MySQL 0, MariaDB
    # NULL. The last second FROM_UNIXTIME and UNIX_TIMESTAMP take: MySQL 8.0.28+ on 64-bit
    # platforms 3001-01-18 23:59:59 UTC (its func_time results), MariaDB 10.11 2038-01-19 03:14:07.
    unix_timestamp_out_of_range: int | None = 0
    unix_time_max: int = 32536771199
    # Server functions this product does not have: a call is an unknown (loadable) function.
    missing_functions: frozenset[str] = frozenset()
    # What a server started without configuration has: its character set and collation,
    # utf8mb4's default collation, its sql_mode and sync_binlog.
    character_set_server: str = "utf8mb4"
    collation_server: str = "utf8mb4_0900_ai_ci"
    utf8mb4_collation: str = "utf8mb4_0900_ai_ci"
    default_sql_mode: str = "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"
    sync_binlog_default: str = "1"
    # The engine of CREATE TEMPORARY TABLE without ENGINE: MariaDB's NULL means
    # default_storage_engine's.
    default_tmp_storage_engine: str = "InnoDB"
    # INSERT DELAYED runs as a plain INSERT: MySQL says so in Warning 3005 and logs the
    # statement as sent; MariaDB (its binlog on) says nothing and logs it without DELAYED.
    insert_delayed_warning: bool = True
    insert_delayed_logged_without_keyword: bool = False
    # MariaDB runs INSERT DELAYED as a plain INSERT only when the global binlog_format is
    # STATEMENT; otherwise in its delayed-insert thread (not modelled), or 1616 for an engine
    # without delayed inserts.
    insert_delayed_needs_statement_format: bool = False
    # UPDATE IGNORE skipping a row on a duplicate key: MySQL warns (1062), MariaDB does not.
    update_ignore_warns_duplicate: bool = True
    # MIXED: once a statement of a session is logged in row format, the session's statements
    # stay in row format while it has temporary tables (reset_current_stmt_binlog_format_row:
    # a temporary table's rows written in row format are not on the slave); CREATE
    # TEMPORARY TABLE is then not logged, and DROP TEMPORARY TABLE is logged as
    # `DROP TEMPORARY TABLE IF EXISTS `db`.`t``. MariaDB, recorded; MySQL 8.0 logs no
    # temporary table under MIXED at all.
    mixed_row_sticks_with_temporary_tables: bool = False
    # ROLLBACK TO SAVEPOINT after CREATE/DROP TEMPORARY TABLE in the transaction: MariaDB
    # (OPTION_KEEP_LOG) warns 1196 and logs the ROLLBACK TO as after a non-transactional change.
    temporary_ddl_keeps_log: bool = False
    # What makes a ROLLBACK log the transaction cache: MySQL 8.0 looks at the cache (a
    # non-transactional change in it, a temporary table created or dropped); MariaDB's
    # trans_cannot_safely_rollback also at the format: under STATEMENT any non-transactional
    # change of the transaction (even one the statement cache logged at once), under MIXED
    # one to a non-transactional temporary table. Recorded: default-storage-engine.
    rollback_logged_by_format: bool = False
    # The end of an autocommit statement that left events in both caches: MySQL 8.0 writes
    # each cache as its own group, the statement cache's first (binlog_cache_mngr::flush);
    # MariaDB writes them as one group, the statement cache's events then the transaction
    # cache's, closed as the transaction is (binlog_flush_cache with both caches,
    # write_transaction_or_stmt). Recorded: function-changes-data-per-row.
    autocommit_caches_in_one_group: bool = False
    # MySQL's ROLLBACK also warns of the temporary tables the transaction created (1751) or
    # dropped (1752), which it cannot undo (push_unsafe_rollback_warnings); MariaDB does not.
    rollback_warns_temporary_tables: bool = True
    # Where ROLLBACK TO SAVEPOINT cuts the transaction cache: MySQL after the SAVEPOINT event
    # (binlog_savepoint_set records the position once it is written), MariaDB before it.
    savepoint_event_survives_rollback_to: bool = True
    # MySQL 8.0.26+ says "replica" and "source" where older servers (and MariaDB) say
    # "slave" and "master" in the unsafe-statement reasons.
    replica_terminology: bool = True
    # `CONSTRAINT name PRIMARY KEY`: the key is PRIMARY whatever it is called; MariaDB says
    # so in Warning 1280 ("Name 'name' ignored for PRIMARY key."), MySQL says nothing.
    primary_key_name_warning: bool = False
    # Executable comments: MariaDB's `/*M!`, six-digit versions and skipped 5.7 versions.
    mariadb_comment_syntax: bool = False

    @cached_property
    def comment_rules(self) -> CommentRules:
        if not self.mariadb_comment_syntax:
            return CommentRules(version_id(self.server_version))
        return CommentRules(version_id(self.server_version), six_digit_versions=True, mariadb_marker=True, skipped_versions=(50700, 99999))


MYSQL_80 = Flavor(
    name="mysql-8.0",
    server_version="8.0.39-rplharness",
    default_binlog_format="ROW",
    unsafe_functions=_COMMON_UNSAFE_FUNCTIONS
    | {"AES_ENCRYPT", "AES_DECRYPT", "ICU_VERSION", "SOURCE_POS_WAIT", "WAIT_FOR_EXECUTED_GTID_SET"},
    rand_safe_in_insert_values=False,
    unsafe_stmt_engine_error_formats=frozenset({"MIXED"}),
    row_injection_in_statement_error=True,
    rows_event_version=2,
    rows_query_event="Rows_query",
    rows_query_variable="binlog_rows_query_log_events",
    rows_query_default="OFF",
    applier_user="",
    duplicate_key_logs_all_columns=True,
    system_tables=(st.GENERAL_LOG, st.SLOW_LOG, st.PS_GLOBAL_VARIABLES, st.PS_SESSION_VARIABLES, st.PS_SETUP_CONSUMERS),
    deprecated_syntax={
        "FOUND_ROWS": "ER_WARN_DEPRECATED_FOUND_ROWS",
        "VALUES": "ER_WARN_DEPRECATED_VALUES_FUNCTION",
        "SQL_CALC_FOUND_ROWS": "ER_WARN_DEPRECATED_SQL_CALC_FOUND_ROWS",
        ":=": "ER_WARN_DEPRECATED_USER_SET_EXPR",  # a user variable assigned in an expression
    },
)

MARIADB_1011 = Flavor(
    name="mariadb-10.11",
    server_version="10.11.18-MariaDB-rplharness",
    default_binlog_format="MIXED",
    unsafe_functions=_COMMON_UNSAFE_FUNCTIONS
    | {"BINLOG_GTID_POS", "CURRENT_ROLE", "MASTER_GTID_WAIT", "SYS_GUID", "NEXTVAL", "LASTVAL"},
    rand_safe_in_insert_values=True,
    unsafe_stmt_engine_error_formats=frozenset({"MIXED", "STATEMENT"}),
    row_injection_in_statement_error=False,
    rows_event_version=1,
    rows_query_event="Annotate_rows",
    rows_query_variable="binlog_annotate_row_events",
    rows_query_default="ON",
    applier_user="<replication_slave>@",
    temporary_tables_logged_formats=frozenset({"STATEMENT", "MIXED"}),
    disconnect_drops_by_engine=False,
    inconsistent_error_code=0,
    applier_server_id_from_event=True,
    table_map_marks_triggers=True,
    unsafe_reason_final_period=False,
    full_row_images_without_primary_key=True,
    server_variable_names={"transaction_isolation": "tx_isolation"},
    row_lookup_key_in_before_image=False,
    row_compare_all_columns=True,
    row_lookup_key_by_selectivity=True,
    rows_search_algorithms_default=None,
    missing_column_warning_beyond_master_only=True,
    system_tables=(st.GENERAL_LOG, st.SLOW_LOG, st.PS_SETUP_CONSUMERS, st.IS_GLOBAL_VARIABLES, st.IS_SESSION_VARIABLES),
    performance_schema=False,
    server_uuid=False,
    log_error_verbosity=False,
    referenced_trigger_error="ER_REFERENCED_TRG_DOES_NOT_EXIST_MARIADB",
    unknown_view_error="ER_UNKNOWN_VIEW",
    drop_table_of_view_error="ER_IT_IS_A_VIEW",
    drop_view_atomic=False,
    view_check_option_recurses=False,
    view_check_failed_error="ER_VIEW_CHECK_FAILED_MARIADB",


    routine_error_line_note=True,
    routine_values_strict_under_ignore=True,
    bit_overflow_warns_too_long_in_strict_sql_mode=False,
    routine_unsafe_flags_stick=True,
    name_const_keeps_blanks=False,
    multi_table_update_order_limit_error=False,
    target_in_subquery=frozenset({"UPDATE", "DELETE", "multi-table UPDATE"}),
    logs_create_if_not_exists_over_existing=False,
    uuid_data_type=True,
    unix_timestamp_out_of_range=None,
    unix_time_max=2147483647,
    json_prints_as_written=True,
    temporal=MARIADB_TEMPORAL,
    json_column_is_text=True,
    json_arrow_operators=False,
    regexp_match_options=False,
    insert_row_alias=False,
    window_placement_error="ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION",
    lag_lead_default=False,
    group_by_functional_dependencies=False,
    quotient_at_declared_scale=True,
    zero_date_compared_under_no_zero_date=True,
    having_clause_name="HAVING",
    user_lock_names_case_sensitive=True,
    user_lock_empty_name_error=False,
    deprecated_type_syntax_warns=False,
    empty_like_escape_is_backslash=True,
    aes_init_vector=False,
    sql_mode_merged_warning=False,
    blob_keys_by_prefix=True,
    secure_file_priv=None,
    missing_functions=frozenset({"SOURCE_POS_WAIT", "WAIT_FOR_EXECUTED_GTID_SET", "UUID_TO_BIN", "BIN_TO_UUID", "IS_UUID"}),
    character_set_server="latin1",
    collation_server="latin1_swedish_ci",
    utf8mb4_collation="utf8mb4_general_ci",
    default_sql_mode="STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION",
    sync_binlog_default="0",
    default_tmp_storage_engine="NULL",
    rollback_logged_by_format=True,
    autocommit_caches_in_one_group=True,
    insert_delayed_warning=False,
    insert_delayed_logged_without_keyword=True,
    insert_delayed_needs_statement_format=True,
    update_ignore_warns_duplicate=False,
    temporary_ddl_keeps_log=True,
    mixed_row_sticks_with_temporary_tables=True,
    rollback_warns_temporary_tables=False,
    savepoint_event_survives_rollback_to=False,
    replica_terminology=False,
    primary_key_name_warning=True,
    mariadb_comment_syntax=True,
)

FLAVORS: dict[str, Flavor] = {flavor.name: flavor for flavor in (MYSQL_80, MARIADB_1011)}
DEFAULT_FLAVOR = MYSQL_80


def get_flavor(name: str) -> Flavor:
    try:
        return FLAVORS[name]
    except KeyError:
        raise ValueError(f"unknown flavor {name!r}; known: {', '.join(FLAVORS)}") from None
