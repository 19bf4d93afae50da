"""MySQL error codes, names and message texts, as the server reports them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import partial


class ErrorCode(Enum):
    """A server error: its number, its `ER_` name and its message format."""

    def __init__(self, code: int, template: str, server_name: str | None = None) -> None:
        self.code = code
        self.template = template
        # A second message under one code (the server formats it in place) names the
        # server's error it is raised as.
        self.server_name = server_name

    ER_CANT_CREATE_TABLE = (1005, "Can't create table `%s`.`%s` (errno: 150 \"Foreign key constraint is incorrectly formed\")")
    ER_ROW_IS_REFERENCED_2 = (1451, "Cannot delete or update a parent row: a foreign key constraint fails (`%s`.`%s`, %s)")
    ER_NO_REFERENCED_ROW_2 = (1452, "Cannot add or update a child row: a foreign key constraint fails (`%s`.`%s`, %s)")
    ER_TRUNCATE_ILLEGAL_FK = (1701, "Cannot truncate a table referenced in a foreign key constraint (`%s`.`%s`, %s)")
    ER_DB_CREATE_EXISTS = (1007, "Can't create database '%s'; database exists")
    ER_DB_DROP_EXISTS = (1008, "Can't drop database '%s'; database doesn't exist")
    ER_BAD_DB_ERROR = (1049, "Unknown database '%s'")
    ER_DUP_FIELDNAME = (1060, "Duplicate column name '%s'")
    ER_DUP_KEYNAME = (1061, "Duplicate key name '%s'")
    ER_NONUNIQ_TABLE = (1066, "Not unique table/alias: '%s'")
    ER_DUP_ENTRY = (1062, "Duplicate entry '%s' for key '%s'")
    ER_PARSE_ERROR = (1064, "You have an error in your SQL syntax; %s")
    ER_TABLE_NOT_LOCKED_FOR_WRITE = (1099, "Table '%s' was locked with a READ lock and can't be updated")
    ER_TABLE_NOT_LOCKED = (1100, "Table '%s' was not locked with LOCK TABLES")
    ER_MULTIPLE_PRI_KEY = (1068, "Multiple primary key defined")
    ER_WRONG_NAME_FOR_INDEX = (1280, "Incorrect index name '%s'")
    ER_TABLE_EXISTS_ERROR = (1050, "Table '%s' already exists")
    ER_BAD_TABLE_ERROR = (1051, "Unknown table '%s'")
    ER_BAD_FIELD_ERROR = (1054, "Unknown column '%s' in '%s'")
    ER_BAD_NULL_ERROR = (1048, "Column '%s' cannot be null")
    ER_NON_UNIQ_ERROR = (1052, "Column '%s' in %s is ambiguous")
    ER_KEY_COLUMN_DOES_NOT_EXITS = (1072, "Key column '%s' doesn't exist in table")
    ER_CANT_AGGREGATE_2COLLATIONS = (1267, "Illegal mix of collations (%s,%s) and (%s,%s) for operation '%s'")
    ER_WRONG_SUB_KEY = (1089, "Incorrect prefix key; the used key part isn't a string, the used length is longer than the key part, or the storage engine doesn't support unique prefix keys")
    ER_BLOB_KEY_WITHOUT_LENGTH = (1170, "BLOB/TEXT column '%s' used in key specification without a key length")
    ER_WRONG_AUTO_KEY = (1075, "Incorrect table definition; there can be only one auto column and it must be defined as a key")
    ER_CANT_DROP_FIELD_OR_KEY = (1091, "Can't DROP '%s'; check that column/key exists")
    ER_CANT_REMOVE_ALL_FIELDS = (1090, "You can't delete all columns with ALTER TABLE; use DROP TABLE instead")
    ER_UPDATE_TABLE_USED = (1093, "You can't specify target table '%s' for update in FROM clause")
    # A column outside the groups under ONLY_FULL_GROUP_BY: MariaDB's words, then MySQL 8.0's.
    ER_WRONG_FIELD_WITH_GROUP = (1055, "'%s' isn't in GROUP BY")
    ER_MIX_OF_GROUP_FUNC_AND_FIELDS = (1140, "Mixing of GROUP columns (MIN(),MAX(),COUNT(),...) with no GROUP columns is illegal if there is no GROUP BY clause")
    ER_WRONG_FIELD_WITH_GROUP_V2 = (
        1055,
        "Expression #%d of %s is not in GROUP BY clause and contains nonaggregated column '%s' which is not functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by",
        "ER_WRONG_FIELD_WITH_GROUP",
    )
    ER_MIX_OF_GROUP_FUNC_AND_FIELDS_V2 = (
        1140,
        "In aggregated query without GROUP BY, expression #%d of %s contains nonaggregated column '%s'; this is incompatible with sql_mode=only_full_group_by",
        "ER_MIX_OF_GROUP_FUNC_AND_FIELDS",
    )
    ER_WRONG_VALUE_COUNT_ON_ROW = (1136, "Column count doesn't match value count at row %d")
    ER_UNKNOWN_TABLE = (1109, "Unknown table '%s' in %s")
    ER_UDF_EXISTS = (1125, "Function '%s' already exists")
    # Prepared statements and views.
    ER_UNKNOWN_STMT_HANDLER = (1243, "Unknown prepared statement handler (%s) given to %s")
    ER_WRONG_ARGUMENTS = (1210, "Incorrect arguments to %s")
    ER_UNSUPPORTED_PS = (1295, "This command is not supported in the prepared statement protocol yet")
    ER_VIEW_INVALID = (1356, "View '%s.%s' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them")
    ER_VIEW_CHECK_FAILED = (1369, "CHECK OPTION failed '%s.%s'")
    ER_VIEW_CHECK_FAILED_MARIADB = (1369, "CHECK OPTION failed `%s`.`%s`", "ER_VIEW_CHECK_FAILED")
    ER_NON_UPDATABLE_TABLE = (1288, "The target table %s of the %s is not updatable")
    ER_NON_INSERTABLE_TABLE = (1471, "The target table %s of the %s is not insertable-into")
    ER_NONUPDATEABLE_COLUMN = (1348, "Column '%s' is not updatable")
    ER_UNKNOWN_VIEW = (4092, "Unknown VIEW: '%s'")
    ER_IT_IS_A_VIEW = (1965, "'%s' is a view")
    ER_WRONG_OBJECT = (1347, "'%s.%s' is not of type '%s'")
    ER_VIEW_SELECT_VARIABLE = (1351, "View's SELECT contains a variable or parameter")
    ER_VIEW_WRONG_LIST = (1353, "In definition of view, derived table or common table expression, SELECT list and column names list have different column counts")
    ER_VIEW_NO_INSERT_FIELD_LIST = (1394, "Can not insert into join view '%s.%s' without fields list")
    ER_VIEW_DELETE_MERGE_VIEW = (1395, "Can not delete from join view '%s.%s'")
    ER_VIEW_MULTIUPDATE = (1393, "Can not modify more than one base table through a join view '%s.%s'")
    ER_CANT_OPEN_LIBRARY = (1126, "Can't open shared library '%s' (errno: %d %s)")
    ER_CANT_FIND_DL_ENTRY = (1127, "Can't find symbol '%s' in library")
    ER_WRONG_USAGE = (1221, "Incorrect usage of %s and %s")
    ER_NO_SUCH_TABLE = (1146, "Table '%s.%s' doesn't exist")
    ER_DBACCESS_DENIED_ERROR = (1044, "Access denied for user '%s'@'%s' to database '%s'")
    ER_TABLEACCESS_DENIED_ERROR = (1142, "%s command denied to user '%s'@'%s' for table '%s'")
    ER_CANT_LOCK_LOG_TABLE = (1556, "You can't use locks with log tables.")
    ER_SYNTAX_ERROR = (1149, "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use")
    ER_UNKNOWN_SYSTEM_VARIABLE = (1193, "Unknown system variable '%s'")
    ER_LOCK_WAIT_TIMEOUT = (1205, "Lock wait timeout exceeded; try restarting transaction")
    ER_LOCK_DEADLOCK = (1213, "Deadlock found when trying to get lock; try restarting transaction")
    ER_WRONG_VALUE_FOR_VAR = (1231, "Variable '%s' can't be set to the value of '%s'")
    ER_WRONG_TYPE_FOR_VAR = (1232, "Incorrect argument type to variable '%s'")
    ER_TRUNCATED_WRONG_VALUE = (1292, "Truncated incorrect %s value: '%s'")
    ER_WRONG_TEMPORAL_VALUE_FOR_FIELD = (1292, "Incorrect %s value: '%s' for column '%s' at row %d", "ER_TRUNCATED_WRONG_VALUE")
    ER_TOO_LONG_IDENT = (1059, "Identifier name '%s' is too long")
    ER_STACK_OVERRUN_NEED_MORE = (1436, "Thread stack overrun:  %s")


    ER_SP_STACK_TRACE = (4094, "At line %d in %s")
    ER_GLOBAL_VARIABLE = (1229, "Variable '%s' is a GLOBAL variable and should be set with SET GLOBAL")
    ER_INCORRECT_GLOBAL_LOCAL_VAR = (1238, "Variable '%s' is a %s variable")
    # The handler's error for an auto-increment value beyond its column's type, which the
    # server reports with its own number (handler::print_error).
    HA_ERR_AUTOINC_ERANGE = (167, "Out of range value for column '%s' at row %d")
    ER_WARN_LEGACY_SYNTAX_CONVERTED = (3005, "%s is no longer supported. The statement was converted to %s.")
    ER_UNKNOWN_CHARACTER_SET = (1115, "Unknown character set: '%s'")
    ER_UNKNOWN_COLLATION = (1273, "Unknown collation: '%s'")
    ER_COLLATION_CHARSET_MISMATCH = (1253, "COLLATION '%s' is not valid for CHARACTER SET '%s'")
    ER_NOT_SUPPORTED_YET = (1235, "This version of MySQL doesn't yet support '%s'")
    ER_UNKNOWN_TIME_ZONE = (1298, "Unknown or incorrect time zone: '%s'")
    ER_WINDOW_INVALID_WINDOW_FUNC_USE = (3593, "You cannot use the window function '%s' in this context.'")
    ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION = (4015, "Window function is allowed only in SELECT list and ORDER BY clause")
    ER_INVALID_GROUP_FUNC_USE = (1111, "Invalid use of group function")
    ER_USER_LOCK_WRONG_NAME = (3057, "Incorrect user-level lock name '%s'.")
    ER_SQL_MODE_MERGED = (3135, "'NO_ZERO_DATE', 'NO_ZERO_IN_DATE' and 'ERROR_FOR_DIVISION_BY_ZERO' sql modes should be used with strict mode. They will be merged with strict mode in a future release.")
    ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT = (1582, "Incorrect parameter count in the call to native function '%s'")
    ER_WARN_DEPRECATED_INTEGER_DISPLAY_WIDTH = (1681, "Integer display width is deprecated and will be removed in a future release.", "ER_WARN_DEPRECATED_SYNTAX_NO_REPLACEMENT")
    ER_WARN_DEPRECATED_FLOAT_DIGITS = (
        1681, "Specifying number of digits for floating point data types is deprecated and will be removed in a future release.", "ER_WARN_DEPRECATED_SYNTAX_NO_REPLACEMENT"
    )
    ER_WARN_DEPRECATED_FLOAT_UNSIGNED = (
        1681,
        "UNSIGNED for decimal and floating point data types is deprecated and support for it will be removed in a future release.",
        "ER_WARN_DEPRECATED_SYNTAX_NO_REPLACEMENT",
    )
    ER_WARN_DEPRECATED_SYNTAX = (1287, "'%s' is deprecated and will be removed in a future release. Please use %s instead")
    # MySQL 8.0.17+/8.0.20+ raise these texts under ER_WARN_DEPRECATED_SYNTAX's code.
    ER_WARN_DEPRECATED_FOUND_ROWS = (
        1287, "FOUND_ROWS() is deprecated and will be removed in a future release. Consider using COUNT(*) instead.", "ER_WARN_DEPRECATED_SYNTAX"
    )
    ER_WARN_DEPRECATED_SQL_CALC_FOUND_ROWS = (
        1287,
        "SQL_CALC_FOUND_ROWS is deprecated and will be removed in a future release. Consider using two separate queries instead.",
        "ER_WARN_DEPRECATED_SYNTAX",
    )
    ER_WARN_DEPRECATED_USER_SET_EXPR = (
        1287,
        "Setting user variables within expressions is deprecated and will be removed in a future release. Consider alternatives:"
        " 'SET variable=expression, ...', or 'SELECT expression(s) INTO variables(s)'.",
        "ER_WARN_DEPRECATED_SYNTAX",
    )
    ER_WARN_DEPRECATED_VALUES_FUNCTION = (
        1287,
        "'VALUES function' is deprecated and will be removed in a future release. Please use an alias (INSERT INTO ... VALUES (...) AS alias)"
        " and replace VALUES(col) in the ON DUPLICATE KEY UPDATE clause with alias.col instead",
        "ER_WARN_DEPRECATED_SYNTAX",
    )
    ER_ILLEGAL_PARAMETER_DATA_TYPES2_FOR_OPERATION = (4078, "Illegal parameter data types %s and %s for operation '%s'")
    ER_INVALID_DEFAULT = (1067, "Invalid default value for '%s'")
    ER_WARN_DATA_TRUNCATED = (1265, "Data truncated for column '%s' at row %d")
    ER_DUPLICATED_VALUE_IN_TYPE = (1291, "Column '%s' has duplicated value '%s' in %s")
    ER_TOO_BIG_SET = (1097, "Too many strings for column %s and SET")
    ER_ILLEGAL_VALUE_FOR_TYPE = (1367, "Illegal %s '%s' value found during parsing")
    ER_WARN_DATA_OUT_OF_RANGE = (1264, "Out of range value for column '%s' at row %d")
    ER_INVALID_ON_UPDATE = (1294, "Invalid ON UPDATE clause for '%s' column")
    ER_TOO_BIG_PRECISION = (1426, "Too-big precision %d specified for '%s'. Maximum is %d.")
    ER_TRUNCATED_WRONG_VALUE_FOR_FIELD = (1366, "Incorrect %s value: '%s' for column '%s' at row %d")
    # Raised as ER_UNKNOWN_ERROR with this text (sql_class.cc, decide_logging_format).
    ER_BLACKHOLE_ROWS_NOT_LOGGED = (
        1105,
        "Row events are not logged for %s statements that modify BLACKHOLE tables in row format. Table(s): '%s'",
        "ER_UNKNOWN_ERROR",
    )
    ER_WARNING_NOT_COMPLETE_ROLLBACK = (1196, "Some non-transactional changed tables couldn't be rolled back")
    ER_WARNING_NOT_COMPLETE_ROLLBACK_WITH_CREATED_TEMP_TABLE = (1751, "The creation of some temporary tables could not be rolled back.")
    ER_WARNING_NOT_COMPLETE_ROLLBACK_WITH_DROPPED_TEMP_TABLE = (1752, "Some temporary tables were dropped, but these operations could not be rolled back.")
    ER_SP_DOES_NOT_EXIST = (1305, "FUNCTION %s does not exist")
    ER_WRONG_VALUE_FOR_TYPE = (1411, "Incorrect %s value: '%s' for function %s")
    ER_SP_DOES_NOT_EXIST_SAVEPOINT = (1305, "SAVEPOINT %s does not exist", "ER_SP_DOES_NOT_EXIST")
    ER_SP_DOES_NOT_EXIST_PROCEDURE = (1305, "PROCEDURE %s does not exist", "ER_SP_DOES_NOT_EXIST")
    ER_SP_ALREADY_EXISTS = (1304, "%s %s already exists")
    ER_TOO_MANY_ROWS = (1172, "Result consisted of more than one row")
    ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT = (1222, "The used SELECT statements have a different number of columns")
    ER_SP_LILABEL_MISMATCH = (1308, "%s with no matching label: %s")
    ER_SP_BADRETURN = (1313, "RETURN is only allowed in a FUNCTION")
    ER_SP_WRONG_NO_OF_ARGS = (1318, "Incorrect number of arguments for %s %s; expected %d, got %d")
    ER_SP_NORETURN = (1320, "No RETURN found in FUNCTION %s")
    ER_SP_NORETURNEND = (1321, "FUNCTION %s ended without RETURN")
    ER_SP_CURSOR_ALREADY_OPEN = (1325, "Cursor is already open")
    ER_SP_CURSOR_NOT_OPEN = (1326, "Cursor is not open")
    ER_SP_UNDECLARED_VAR = (1327, "Undeclared variable: %s")
    ER_SP_WRONG_NO_OF_FETCH_ARGS = (1328, "Incorrect number of FETCH variables")
    ER_SP_FETCH_NO_DATA = (1329, "No data - zero rows fetched, selected, or processed")
    ER_SP_DUP_VAR = (1331, "Duplicate variable: %s")
    ER_SP_CURSOR_MISMATCH = (1324, "Undefined CURSOR: %s")
    ER_SP_CASE_NOT_FOUND = (1339, "Case not found for CASE statement")
    ER_SP_NO_RETSET = (1415, "Not allowed to return a result set from a %s")
    ER_SP_NOT_VAR_ARG = (1414, "OUT or INOUT argument %d for routine %s is not a variable or NEW pseudo-variable in BEFORE trigger")
    ER_BINLOG_UNSAFE_ROUTINE = (
        1418,
        "This function has none of DETERMINISTIC, NO SQL, or READS SQL DATA in its declaration and binary logging is enabled "
        "(you *might* want to use the less safe log_bin_trust_function_creators variable)",
    )
    ER_SP_NO_RECURSION = (1424, "Recursive stored functions and triggers are not allowed")
    ER_COMMIT_NOT_ALLOWED_IN_SF_OR_TRG = (1422, "Explicit or implicit commit is not allowed in stored function or trigger")
    ER_TRG_ALREADY_EXISTS = (1359, "Trigger '%s' already exists")
    ER_TRG_DOES_NOT_EXIST = (1360, "Trigger does not exist")
    ER_TRG_ON_VIEW_OR_TEMP_TABLE = (1361, "Trigger's '%s' is a view, temporary table or sequence")
    ER_TRG_CANT_CHANGE_ROW = (1362, "Updating of %s row is not allowed in %strigger")
    ER_TRG_NO_SUCH_ROW_IN_TRG = (1363, "There is no %s row in on %s trigger")
    ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG = (
        1442,
        "Can't update table '%s' in stored function/trigger because it is already used by statement which invoked this stored function/trigger",
    )
    ER_REFERENCED_TRG_DOES_NOT_EXIST = (3011, "Referenced trigger '%s' for the given action time and event type does not exist.")
    # MariaDB's number for the same error.
    ER_REFERENCED_TRG_DOES_NOT_EXIST_MARIADB = (
        4031,
        "Referenced trigger '%s' for the given action time and event type does not exist",
        "ER_REFERENCED_TRG_DOES_NOT_EXIST",
    )
    ER_NO_DEFAULT_FOR_FIELD = (1364, "Field '%s' doesn't have a default value")
    ER_DIVISION_BY_ZERO = (1365, "Division by 0")
    ER_DATA_OUT_OF_RANGE = (1690, "%s value is out of range in '%s'")
    ER_DATA_TOO_LONG = (1406, "Data too long for column '%s' at row %d")
    ER_INVALID_JSON_TEXT = (3140, "Invalid JSON text: \"%s\" at position %d in value for column '%s'.")
    ER_CONSTRAINT_FAILED = (4025, "CONSTRAINT `%s` failed for `%s`")
    ER_JSON_SYNTAX = (4038, "Syntax error in JSON text in argument %d to function '%s' at position %d")
    ER_KEY_NOT_FOUND = (1032, "Can't find record in '%s'")
    ER_UNKNOWN_ERROR = (1105, "%s")
    ER_UNKNOWN_STORAGE_ENGINE = (1286, "Unknown storage engine '%s'")
    ER_BINLOG_UNSAFE_STATEMENT = (
        1592,
        "Unsafe statement written to the binary log using statement format since "
        "BINLOG_FORMAT = STATEMENT. %s",
    )
    ER_BASE64_DECODE_ERROR = (1575, "Decoding of base64 string failed")
    ER_SLAVE_RELAY_LOG_READ_FAILURE = (1594, "Relay log read failure: %s")
    ER_NO_FORMAT_DESCRIPTION_EVENT_BEFORE_BINLOG_STATEMENT = (
        1609,
        "The BINLOG statement of type `%s` was not preceded by a format description BINLOG statement.",
    )
    ER_BINLOG_ROW_ENGINE_AND_STMT_ENGINE = (
        1661,
        "Cannot execute statement: impossible to write to binary log since both row-incapable "
        "engines and statement-incapable engines are involved.",
    )
    ER_BINLOG_ROW_MODE_AND_STMT_ENGINE = (
        1662,
        "Cannot execute statement: impossible to write to binary log since BINLOG_FORMAT = ROW "
        "and at least one table uses a storage engine limited to statement-based logging.",
    )
    ER_BINLOG_UNSAFE_AND_STMT_ENGINE = (
        1663,
        "Cannot execute statement: impossible to write to binary log since statement is unsafe, "
        "storage engine is limited to statement-based logging, and BINLOG_FORMAT = MIXED. %s",
    )
    ER_BINLOG_ROW_INJECTION_AND_STMT_ENGINE = (
        1664,
        "Cannot execute statement: impossible to write to binary log since statement is in row "
        "format and at least one table uses a storage engine limited to statement-based logging.",
    )
    ER_BINLOG_STMT_MODE_AND_ROW_ENGINE = (
        1665,
        "Cannot execute statement: impossible to write to binary log since BINLOG_FORMAT = "
        "STATEMENT and at least one table uses a storage engine limited to row-based logging.%s",
    )
    ER_BINLOG_ROW_INJECTION_AND_STMT_MODE = (
        1666,
        "Cannot execute statement: impossible to write to binary log since statement is in row "
        "format and BINLOG_FORMAT = STATEMENT.",
    )
    ER_BINLOG_STMT_MODE_AND_NO_REPL_TABLES = (
        1844,
        "Cannot execute statement: impossible to write to binary log since BINLOG_FORMAT = STATEMENT, "
        "and both replicated and non replicated tables are written to.",
    )
    ER_BINLOG_MULTIPLE_ENGINES_AND_SELF_LOGGING_ENGINE = (
        1667,
        "Cannot execute statement: impossible to write to binary log since more than one engine "
        "is involved and at least one engine is self-logging.",
    )
    ER_SLAVE_CONVERSION_FAILED = (1677, "Column %d of table '%s.%s' cannot be converted from type '%s' to type '%s'")
    ER_INSIDE_TRANSACTION_PREVENTS_SWITCH_BINLOG_FORMAT = (
        1679,
        "Cannot modify @@session.binlog_format inside a transaction",
    )
    ER_ONLY_FD_AND_RBR_EVENTS_ALLOWED_IN_BINLOG_STATEMENT = (
        1730,
        "Only Format_description_log_event and row events are allowed in BINLOG statements (but %s was provided)",
    )
    ER_INCONSISTENT_ERROR = (
        3002,
        "Query caused different errors on master and slave. Error on master: message (format)='%s' "
        "error code=%d; Error on slave: actual message='%s', error code=%d. Default database: '%s'. "
        "Query: '%s'",
    )

    @property
    def error_name(self) -> str:
        return self.server_name or self.name

    @classmethod
    def code_of(cls, name: str) -> int | None:
        """The code of an `ER_` name the model knows (the server's name, e.g. ER_UNKNOWN_ERROR
        for 1105), None for any other name."""
        for error in cls:
            if error.error_name == name or error.name == name:
                return error.code
        return None

    @classmethod
    def name_of(cls, code: int) -> str:
        """The `ER_` name of a code the model knows; a real server's other codes keep a numeric name."""
        for error in cls:
            if error.code == code:
                return error.error_name
        return f"ER_{code}"


@dataclass(frozen=True)
class Condition:
    """A diagnostic the server attaches to a statement: an error, warning or note."""

    level: str  # "Error", "Warning" or "Note"
    code: int
    name: str
    message: str

    def as_dict(self) -> dict[str, object]:
        return {"level": self.level, "code": self.code, "name": self.name, "message": self.message}


class SqlError(Exception):
    """A statement failed with a MySQL error; carries the code, name and rendered message."""

    position: int | None = None  # where in the statement a syntax error (1064) is
    notes: tuple[Condition, ...] = ()  # diagnostics raised before the error (MariaDB's json_valid note)

    def __init__(self, error: ErrorCode, *args: object, message: str | None = None) -> None:
        self.error = error
        self.message = message if message is not None else (error.template % args if args else error.template)
        super().__init__(f"ERROR {error.code} ({error.error_name}): {self.message}")

    def __reduce__(self) -> tuple[object, ...]:
        """Rebuilt from the code and the rendered message, so a run's record can cross a
        process boundary."""
        return (partial(SqlError, message=self.message), (self.error,))

    @property
    def code(self) -> int:
        return self.error.code

    @property
    def name(self) -> str:
        return self.error.error_name

    def condition(self, level: str = "Error") -> Condition:
        """The error as a diagnostic; IGNORE statements downgrade it to a Warning."""
        return Condition(level, self.code, self.name, self.message)


def note(error: ErrorCode, *args: object, level: str = "Note") -> Condition:
    """A Note (or Warning) with the server's text for `error`."""
    return Condition(level, error.code, error.error_name, error.template % args if args else error.template)


def stack_overrun() -> SqlError:
    """A statement nested deeper than the simulator's stack holds (Python's RecursionError):
    the server's answer to nesting deeper than its thread stack, 1436, for a depth that
    differs from the server's (MariaDB runs 3,000 nested parentheses, not 3,000 nested calls)."""
    return SqlError(ErrorCode.ER_STACK_OVERRUN_NEED_MORE, "the statement nests expressions deeper than the simulator's stack holds")


def not_supported(what: str) -> SqlError:
    """The simulator does not model `what`: say so instead of doing something else."""
    return SqlError(ErrorCode.ER_NOT_SUPPORTED_YET, what)
