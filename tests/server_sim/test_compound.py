"""Compound statements: what the reader makes of a body, what it refuses (1235 naming the
construct) or cannot read (1064), and the text a body's statement is logged with."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from server_sim.compound.binding import NameConstStyle, Variable, logged_text, logged_value
from server_sim.compound.program import Block, Case, CursorStatement, Declare, DeclareCursor, DeclareHandler, If, Leave, Loop, LoopKind, Return, Run, SetVariables, plain_statements
from server_sim.compound.reader import read_body
from server_sim.compound.routine import DataAccess, ParameterMode, RoutineKind, logged_create_routine, parse_create_routine
from server_sim.errors import SqlError
from server_sim.parser import parse_statement
from server_sim.statement import StatementKind


@pytest.mark.parametrize(
    ("body", "kinds"),
    [
        ("BEGIN DECLARE a, b INT DEFAULT 1; SET a = b + 1; END", [Declare, SetVariables]),
        ("BEGIN IF x > 1 THEN SET @y = 1; ELSEIF x = 1 THEN SET @y = 2; ELSE SET @y = 3; END IF; END", [If]),
        ("BEGIN CASE x WHEN 1 THEN SET @y = 1; ELSE BEGIN END; END CASE; END", [Case]),
        ("BEGIN l: LOOP LEAVE l; END LOOP l; END", [Loop]),
        ("BEGIN WHILE x > 0 DO SET x = x - 1; END WHILE; END", [Loop]),
        ("BEGIN REPEAT SET x = x - 1; UNTIL x < 0 END REPEAT; END", [Loop]),
        ("BEGIN DECLARE c CURSOR FOR SELECT a FROM t; OPEN c; CLOSE c; END", [DeclareCursor, CursorStatement, CursorStatement]),
        ("BEGIN DECLARE CONTINUE HANDLER FOR NOT FOUND, SQLSTATE '23000' SET x = 1; END", [DeclareHandler]),
        ("BEGIN INSERT INTO t VALUES (CASE WHEN x THEN 1 ELSE 2 END); END", [Run]),
        ("BEGIN BEGIN END; END", [Block]),
    ],
)
def test_the_reader_recognises_each_compound_statement(body: str, kinds: list[type]) -> None:
    (block,) = read_body(body, ("x",))
    assert isinstance(block, Block) and [type(node) for node in block.body] == kinds


@pytest.mark.parametrize(
    ("body", "code", "text"),
    [
        ("BEGIN SIGNAL SQLSTATE '45000'; END", 1235, "SIGNAL"),
        ("BEGIN GET DIAGNOSTICS @n = NUMBER; END", 1235, "GET DIAGNOSTICS"),
        ("BEGIN DECLARE EXIT HANDLER FOR nothing SET x = 1; END", 1064, "near 'nothing"),
        ("BEGIN FOR i IN 1..3 DO SET x = i; END FOR; END", 1235, "FOR loops"),
        ("BEGIN DECLARE UNDO HANDLER FOR SQLEXCEPTION BEGIN END; END", 1235, "UNDO handlers"),
        ("BEGIN CALL other(); END", 1235, "CALL inside a stored program"),
        ("BEGIN DECLARE v VARCHAR(5) CHARACTER SET utf8mb4; END", 1235, "character set"),
        ("BEGIN IF x THEN SET @a = 1; END; END", 1064, "near"),
        ("BEGIN LEAVE nowhere; END", 1308, "LEAVE with no matching label: nowhere"),
        ("BEGIN SET x = 1; RETURN 1; END", 1313, "RETURN is only allowed"),
        ("BEGIN FETCH c INTO x; END", 1324, "Undefined CURSOR: c"),
        ("BEGIN SELECT 1 INTO nothing; END", 1327, "Undeclared variable: nothing"),
        ("BEGIN DECLARE a INT; DECLARE a INT; END", 1331, "Duplicate variable: a"),
        ("BEGIN INSERT INTO t VALUES (1) END", 1064, "near"),
    ],
)
def test_the_reader_refuses_or_rejects(body: str, code: int, text: str) -> None:
    with pytest.raises(SqlError) as raised:
        read_body(body, ("x",))
    assert raised.value.code == code and text in raised.value.message


def test_a_select_into_is_read_without_its_into_clause_and_keeps_its_targets() -> None:
    (block,) = read_body("BEGIN DECLARE n INT; SELECT COUNT(*) INTO n FROM t WHERE a = x; SELECT 1 INTO @u; END", ("x",))
    first, second = plain_statements(block.body)
    assert (first.text, first.into, [r.name for r in first.references]) == ("SELECT COUNT(*) FROM t WHERE a = x", ("n",), ["x"])
    assert second.into == ("@u",) and second.statement.kind is StatementKind.SELECT


@pytest.mark.parametrize(
    ("statement", "values", "logged"),
    [
        ("INSERT INTO t VALUES (i, s, d)", {"i": 0, "s": "it's", "d": 1.5}, "INSERT INTO t VALUES ( NAME_CONST('i',0), NAME_CONST('s',_latin1'it\\'s' COLLATE 'latin1_swedish_ci'), NAME_CONST('d',1.5))"),
        ("UPDATE t SET b = b + 1 WHERE a = n", {"n": None, "b": 3}, "UPDATE t SET b = NAME_CONST('b',3) + 1 WHERE a = NAME_CONST('n',NULL)"),
        ("DELETE FROM t WHERE a > p LIMIT p", {"p": Decimal("-1.25")}, "DELETE FROM t WHERE a > NAME_CONST('p',-1.25) LIMIT -1.25"),
        ("UPDATE t SET a = 1", {"a": 5}, "UPDATE t SET a = 1"),
    ],
)
def test_a_statement_is_logged_with_its_variables_as_name_const(statement: str, values: dict[str, object], logged: str) -> None:
    names = tuple(values)
    declared = "".join(f"DECLARE {name} INT; " for name in names)
    (block,) = read_body(f"BEGIN {declared}{statement}; END", ())
    (sql,) = plain_statements(block.body)
    variables = {name: Variable(name, None, value) for name, value in values.items()}
    assert logged_text(sql, variables.get, NameConstStyle("latin1", "latin1_swedish_ci")) == logged


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1e20, "1e20"),
        (2.0, "2"),
        (True, "1"),
        ("a\nb\\", "_utf8mb4'a\\nb\\\\' COLLATE 'utf8mb4_general_ci'"),
        (dt.date(2024, 2, 3), "DATE'2024-02-03'"),
        (dt.datetime(2024, 2, 3, 4, 5, 6), "TIMESTAMP'2024-02-03 04:05:06'"),
        (b"a'b", "_binary'a\\'b' COLLATE 'binary'"),
    ],
)
def test_name_const_values_print_as_the_server_prints_them(value: object, text: str) -> None:
    assert logged_value(value, "utf8mb4", "utf8mb4_general_ci") == text


@pytest.mark.parametrize(
    ("sql", "logged"),
    [
        (
            "CREATE DEFINER=`u`@`h` PROCEDURE p(IN a INT, OUT b VARCHAR(5)) MODIFIES SQL DATA SET b = a",
            "CREATE DEFINER=`root`@`localhost` PROCEDURE `p`(IN a INT, OUT b VARCHAR(5))\n    MODIFIES SQL DATA\nSET b = a",
        ),
        (
            "CREATE FUNCTION f(a INT) RETURNS VARCHAR(40) NOT DETERMINISTIC RETURN CONCAT(a, UUID())",
            "CREATE DEFINER=`root`@`localhost` FUNCTION `f`(a INT) RETURNS varchar(40) CHARSET latin1 COLLATE latin1_swedish_ci\nRETURN CONCAT(a, UUID())",
        ),
        (
            "CREATE FUNCTION g(a BIGINT UNSIGNED) RETURNS INT DETERMINISTIC COMMENT 'x' BEGIN RETURN a; END",
            "CREATE DEFINER=`root`@`localhost` FUNCTION `g`(a BIGINT UNSIGNED) RETURNS int(11)\n    DETERMINISTIC\n    COMMENT 'x'\nBEGIN RETURN a; END",
        ),
    ],
)
def test_create_routine_is_logged_as_the_server_rebuilds_it(sql: str, logged: str) -> None:
    assert logged_create_routine(parse_create_routine(sql), "root@localhost", "latin1", "latin1_swedish_ci") == logged


def test_a_routine_header_gives_modes_types_and_characteristics() -> None:
    routine = parse_create_routine("CREATE PROCEDURE p(a INT, INOUT b DECIMAL(5,2)) READS SQL DATA DETERMINISTIC SELECT b INTO b")
    assert routine.kind is RoutineKind.PROCEDURE and routine.access is DataAccess.READS_SQL_DATA and routine.deterministic
    assert [(p.name, p.mode, p.type.sql) for p in routine.parameters] == [("a", ParameterMode.IN, "INT"), ("b", ParameterMode.INOUT, "DECIMAL(5,2)")]


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        ("CREATE FUNCTION f() RETURNS INT BEGIN END", 1320),
        ("CREATE OR REPLACE PROCEDURE p() BEGIN END", 1235),
        ("CREATE PROCEDURE p() BEGIN RETURN 1; END", 1313),
        ("CREATE FUNCTION f() RETURNS INT BEGIN SELECT 1; RETURN 1; END", 1415),
        ("CREATE FUNCTION f() RETURNS INT BEGIN COMMIT; RETURN 1; END", 1422),
        ("CREATE PROCEDURE p(IN a INT, IN A INT) BEGIN END", 1331),
    ],
)
def test_create_routine_errors(sql: str, code: int) -> None:
    with pytest.raises(SqlError) as raised:
        parse_create_routine(sql)
    assert raised.value.code == code


def test_a_function_body_is_its_return() -> None:
    routine = parse_create_routine("CREATE FUNCTION f(a INT) RETURNS INT DETERMINISTIC RETURN a * 2")
    assert isinstance(routine.body[0], Return) and routine.body[0].value.text == "a * 2"


def test_loops_keep_their_kind_label_and_condition() -> None:
    (block,) = read_body("BEGIN lbl: WHILE x > 0 DO SET x = x - 1; END WHILE lbl; END", ("x",))
    (loop,) = block.body
    assert (loop.kind, loop.label, loop.condition.text) == (LoopKind.WHILE, "lbl", "x > 0")
    assert isinstance(loop.body[0], SetVariables)
    assert not isinstance(loop.body[0], Leave)


@pytest.mark.parametrize(
    ("logged", "values"),
    [
        ("INSERT INTO t VALUES (NAME_CONST('a',-1), NAME_CONST('s',_latin1'x' COLLATE 'latin1_swedish_ci'))", "INSERT INTO t VALUES (-1, 'x')"),
        ("INSERT INTO t VALUES (NAME_CONST('d',DATE'2024-02-03'), NAME_CONST('n',NULL))", "INSERT INTO t VALUES (CAST('2024-02-03' AS DATE), NULL)"),
        ("INSERT INTO t VALUES (NAME_CONST('b',_binary'ab' COLLATE 'binary'))", "INSERT INTO t VALUES (UNHEX('6162'))"),
    ],
)
def test_a_replica_reads_name_const_as_the_value_it_carries(logged: str, values: str) -> None:
    statement = parse_statement(logged)
    assert statement.sql == logged and statement.ast.sql(dialect="mysql") == values


def test_name_const_of_anything_but_a_constant_is_refused() -> None:
    with pytest.raises(SqlError) as raised:
        parse_statement("INSERT INTO t VALUES (NAME_CONST('a', 1 + 1))")
    assert raised.value.code == 1235


def test_a_named_condition_stands_for_its_sqlstate_or_code_in_handlers() -> None:
    (block,) = read_body("BEGIN DECLARE dup CONDITION FOR SQLSTATE '23000'; DECLARE gone CONDITION FOR 1146; DECLARE EXIT HANDLER FOR dup, gone SET x = 1; END", ("x",))
    assert block.body[2].conditions == ("SQLSTATE 23000", "1146")


@pytest.mark.parametrize(
    ("keeps_blanks", "logged"),
    [
        (False, "UPDATE t SET a = 1 WHERE b = NAME_CONST('n',2) AND c IN ( NAME_CONST('n',2))"),
        (True, "UPDATE t SET a = 1 WHERE b =  NAME_CONST('n',2) AND c IN ( NAME_CONST('n',2))"),
    ],
)
def test_the_blanks_before_a_variable_stay_on_mysql_and_go_on_mariadb(keeps_blanks: bool, logged: str) -> None:
    (block,) = read_body("BEGIN DECLARE n INT; UPDATE t SET a = 1 WHERE b = n AND c IN (n); END", ())
    (sql,) = plain_statements(block.body)
    variables = {"n": Variable("n", None, 2)}
    assert logged_text(sql, variables.get, NameConstStyle("latin1", "latin1_swedish_ci", keeps_blanks)) == logged
