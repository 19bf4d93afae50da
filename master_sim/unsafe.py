"""Why a statement is unsafe for statement-based logging, by the server's own reason names."""

from __future__ import annotations

from enum import Enum

from sqlglot import exp

from server_sim.errors import Condition, ErrorCode
from server_sim.flavor import Flavor
from server_sim.functions import function_name, is_udf_call
from server_sim.functions.context import system_variable_reference
from server_sim.server import is_replicated_variable
from server_sim.statement import Statement, StatementKind, WriteMode, is_multi_table


# MySQL 8.0.26's terminology in the reasons' texts (errmsg-utf8.txt).
_REPLICA_WORDING = (("on master and the slave", "on source and the replica"), ("differ on slaves", "differ on replicas"), ("on the slave", "on the replica"))


def _replica_wording(text: str) -> str:
    for old, new in _REPLICA_WORDING:
        text = text.replace(old, new)
    return text


class UnsafeReason(Enum):
    """BINLOG_STMT_UNSAFE_*: the reason's message code and the text Note 1592 embeds."""

    def __init__(self, code: int, text: str) -> None:
        self.code = code
        self.text = text

    LIMIT = (1668, "The statement is unsafe because it uses a LIMIT clause. This is unsafe because the set of rows included cannot be predicted.")
    SYSTEM_TABLE = (1670, "The statement is unsafe because it uses the general log, slow query log, or performance_schema table(s). This is unsafe because system tables may differ on slaves.")
    AUTOINC_COLUMNS = (1671, "Statement is unsafe because it invokes a trigger or a stored function that inserts into an AUTO_INCREMENT column. Inserted values cannot be logged correctly.")
    UDF = (1672, "Statement is unsafe because it uses a UDF which may not return the same value on the slave.")
    SYSTEM_VARIABLE = (1673, "Statement is unsafe because it uses a system variable that may have a different value on the slave.")
    SYSTEM_FUNCTION = (1674, "Statement is unsafe because it uses a system function that may return a different value on the slave.")
    NONTRANS_AFTER_TRANS = (1675, "Statement is unsafe because it accesses a non-transactional table after accessing a transactional table within the same transaction.")
    MULTIPLE_ENGINES_AND_SELF_LOGGING_ENGINE = (1692, "Mixing self-logging and non-self-logging engines in a statement is unsafe.")
    MIXED_STATEMENT = (1693, "Statement accesses nontransactional table as well as transactional or temporary table, and writes to any of them.")
    INSERT_IGNORE_SELECT = (1714, "INSERT IGNORE... SELECT is unsafe because the order in which rows are retrieved by the SELECT determines which (if any) rows are ignored. This order cannot be predicted and may differ on master and the slave.")
    INSERT_SELECT_UPDATE = (1715, "INSERT... SELECT... ON DUPLICATE KEY UPDATE is unsafe because the order in which rows are retrieved by the SELECT determines which (if any) rows are updated. This order cannot be predicted and may differ on master and the slave.")
    WRITE_AUTOINC_SELECT = (1722, "Statements writing to a table with an auto-increment column after selecting from another table are unsafe because the order in which rows are retrieved determines what (if any) rows will be written. This order cannot be predicted and may differ on master and the slave.")
    REPLACE_SELECT = (1716, "REPLACE... SELECT is unsafe because the order in which rows are retrieved by the SELECT determines which (if any) rows are replaced. This order cannot be predicted and may differ on master and the slave.")
    CREATE_IGNORE_SELECT = (1717, "CREATE... IGNORE SELECT is unsafe because the order in which rows are retrieved by the SELECT determines which (if any) rows are ignored. This order cannot be predicted and may differ on master and the slave.")
    CREATE_REPLACE_SELECT = (1718, "CREATE... REPLACE SELECT is unsafe because the order in which rows are retrieved by the SELECT determines which (if any) rows are replaced. This order cannot be predicted and may differ on master and the slave.")
    CREATE_SELECT_AUTOINC = (1723, "CREATE TABLE... SELECT... on a table with an auto-increment column is unsafe because the order in which rows are retrieved by the SELECT determines which (if any) rows are inserted. This order cannot be predicted and may differ on master and the slave.")
    UPDATE_IGNORE = (1719, "UPDATE IGNORE is unsafe because the order in which rows are updated determines which (if any) rows are ignored. This order cannot be predicted and may differ on master and the slave.")
    INSERT_TWO_KEYS = (1724, "INSERT... ON DUPLICATE KEY UPDATE  on a table with more than one UNIQUE KEY is unsafe")
    AUTOINC_NOT_FIRST = (1727, "INSERT into autoincrement field which is not the first part in the composed primary key is unsafe.")
    SKIP_LOCKED = (3570, "Statement is unsafe because it uses SKIP LOCKED. The set of inserted values is non-deterministic.")
    NOWAIT = (3571, "Statement is unsafe because it uses NOWAIT. Whether the command will succeed or fail is not deterministic.")

    @classmethod
    def of_note(cls, message: str) -> UnsafeReason | None:
        """The reason a Note 1592 embeds, whichever flavor wrote it (with or without the
        final period, with the older or the newer terminology)."""
        text = message.rstrip(".")
        return next((reason for reason in cls if text.endswith((reason.text.rstrip("."), _replica_wording(reason.text).rstrip(".")))), None)

    def message(self, flavor: Flavor) -> str:
        """The reason's sentence as `flavor` prints it."""
        text = _replica_wording(self.text) if flavor.replica_terminology else self.text
        return text if flavor.unsafe_reason_final_period else text.removesuffix(".")

    def note(self, flavor: Flavor) -> Condition:
        """The Note 1592 the server attaches when it logs the statement anyway."""
        error = ErrorCode.ER_BINLOG_UNSAFE_STATEMENT
        return Condition("Note", error.code, error.error_name, error.template % self.message(flavor))


# Duplicate handling that makes a statement's effect depend on the order its SELECT returns rows.
_INSERT_SELECT_REASONS = {
    WriteMode.REPLACE: UnsafeReason.REPLACE_SELECT,
    WriteMode.UPDATE: UnsafeReason.INSERT_SELECT_UPDATE,
    WriteMode.IGNORE: UnsafeReason.INSERT_IGNORE_SELECT,
}
_CREATE_SELECT_REASONS = {
    WriteMode.REPLACE: UnsafeReason.CREATE_REPLACE_SELECT,
    WriteMode.IGNORE: UnsafeReason.CREATE_IGNORE_SELECT,
}


def parse_time_reasons(statement: Statement, flavor: Flavor) -> list[UnsafeReason]:
    """Reasons the parser sets from the statement's text alone, in the server's bit order."""
    ast = statement.ast
    if ast is None or not (statement.kind.is_dml or statement.kind is StatementKind.SELECT or statement.creates_from_select):
        return []
    reasons: set[UnsafeReason] = set()
    if ast.find(exp.Limit) is not None:
        reasons.add(UnsafeReason.LIMIT)
    for node in ast.walk():
        name = function_name(node)
        if name is not None and name in flavor.unsafe_functions:
            if name == "RAND" and flavor.rand_safe_in_insert_values and _in_plain_insert_values(statement):
                continue
            reasons.add(UnsafeReason.SYSTEM_FUNCTION)
        if is_udf_call(node):
            reasons.add(UnsafeReason.UDF)  # the slave may lack it, or it may return something else there
        if isinstance(node, exp.SessionParameter):
            variable, scope = system_variable_reference(node)
            if not is_replicated_variable(variable, scope):
                reasons.add(UnsafeReason.SYSTEM_VARIABLE)
        if isinstance(node, exp.Lock):
            # sqlglot's `wait`: True for NOWAIT, False for SKIP LOCKED, a number for WAIT n.
            wait = node.args.get("wait")
            if wait is False:
                reasons.add(UnsafeReason.SKIP_LOCKED)
            elif wait is True:
                reasons.add(UnsafeReason.NOWAIT)
    mode = statement.write_mode
    if isinstance(ast, exp.Insert) and isinstance(ast.expression, (exp.Select, exp.Union, exp.Subquery)) and mode in _INSERT_SELECT_REASONS:
        reasons.add(_INSERT_SELECT_REASONS[mode])
    if isinstance(ast, exp.Update) and mode is WriteMode.IGNORE and not is_multi_table(ast):
        reasons.add(UnsafeReason.UPDATE_IGNORE)  # SQLCOM_UPDATE only, not SQLCOM_UPDATE_MULTI
    if statement.creates_from_select:
        if mode in _CREATE_SELECT_REASONS:
            reasons.add(_CREATE_SELECT_REASONS[mode])
        # Only the definition can give the new table an AUTO_INCREMENT column: columns
        # taken from the SELECT never keep it.
        if ast.this.find(exp.AutoIncrementColumnConstraint) is not None:
            reasons.add(UnsafeReason.CREATE_SELECT_AUTOINC)
    return sorted(reasons, key=lambda reason: list(UnsafeReason).index(reason))


def _in_plain_insert_values(statement: Statement) -> bool:
    ast = statement.ast
    return statement.kind is StatementKind.INSERT and isinstance(ast, exp.Insert) and isinstance(ast.expression, exp.Values)
