"""Load scenario YAML files into `Scenario` objects, reporting every bad file precisely.

One bad file must not hide the rest of a suite, so `load_paths` turns each failure
into a `ScenarioError` naming the file and the offending key, and moves on.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Any

import yaml

from scenarios.fields import (
    FieldError,
    IDENTIFIER,
    describe,
    error_code,
    flag,
    nonblank_string,
    optional_string,
    reject_unknown_keys,
    scalar,
    scalar_tuple,
    sequence,
    sql_list,
    variables,
)
from scenarios.model import EngineDeclaration, EventPattern, Expectation, Scenario, ScenarioError, Step, Verdict

TOP_LEVEL_KEYS: tuple[str, ...] = (
    "name",
    "description",
    "settings",
    "slave_settings",
    "matrix",
    "engines",
    "master_schema",
    "slave_schema",
    "steps",
    "expect",
    "volatile",
    "flavor",
    "seed",
    "tolerate_errors",
)
STEP_KEYS: tuple[str, ...] = ("session", "sql", "error", "disconnect", "reap")
EXPECT_KEYS: tuple[str, ...] = ("when", "verdict", "slave_error", "step", "notes", "error", "events")
STEP_CHECK_KEYS: tuple[str, ...] = ("notes", "error", "events")
ENGINE_KEYS: tuple[str, ...] = tuple(f.name for f in fields(EngineDeclaration))
REQUIRED_ENGINE_KEYS: tuple[str, ...] = tuple(f.name for f in fields(EngineDeclaration) if f.default is MISSING)
_ERROR_NAME = re.compile(r"ER_[A-Z0-9_]+")
SCENARIO_SUFFIXES: frozenset[str] = frozenset({".yaml", ".yml"})
EXPECTED_DIR = "expected"
MAX_SCENARIO_BYTES = 16 * 1024 * 1024  # far above any scenario written or generated
FLAVOR_KEY = "flavor"  # `when` matches the server modelled by this key, beside variables  # recorded oracle results live here, not scenarios


class ScenarioLoadError(Exception):
    """Raised by `load_scenario`; `.error` says which file and key are wrong."""

    def __init__(self, error: ScenarioError) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass
class LoadResult:
    """Everything a suite load produced: the good scenarios and one error per bad file."""

    scenarios: list[Scenario]
    errors: list[ScenarioError]


class _StrictLoader(yaml.SafeLoader):
    """A safe loader that rejects repeated mapping keys instead of keeping the last one.

    Plain PyYAML would silently drop the first `steps:` of a file that has two.
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, (str, int, float, bool)) or key is None:
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key!r}", key_node.start_mark
                    )
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load_scenario(path: Path) -> Scenario:
    """Read and validate one scenario file, whatever its extension."""
    path = Path(path)
    try:
        text = read_scenario_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioLoadError(ScenarioError(path, "", f"cannot read file: {_reason(exc)}"))
    try:
        document = yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as exc:
        raise ScenarioLoadError(ScenarioError(path, "", _yaml_message(exc)))
    try:
        return _parse_scenario(document, path)
    except FieldError as exc:
        raise ScenarioLoadError(ScenarioError(path, exc.key, exc.message))


def load_paths(paths: Iterable[Path | str]) -> LoadResult:
    """Load every scenario under `paths`, collecting errors instead of stopping at the first.

    Directories are searched recursively (sorted, `expected/` skipped); a file named
    explicitly is loaded whatever its extension. Scenario names must be unique across
    the whole call: the first file to use a name keeps it.
    """
    result = LoadResult(scenarios=[], errors=[])
    first_source: dict[str, Path] = {}
    for file in _scenario_files(paths, result.errors):
        try:
            scenario = load_scenario(file)
        except ScenarioLoadError as exc:
            result.errors.append(exc.error)
            continue
        first = first_source.get(scenario.name)
        if first is not None:
            message = f"scenario name {scenario.name!r} is already used by {first}"
            result.errors.append(ScenarioError(file, "name", message))
            continue
        first_source[scenario.name] = file
        result.scenarios.append(scenario)
    return result


def _scenario_files(paths: Iterable[Path | str], errors: list[ScenarioError]) -> Iterator[Path]:
    """The files to load, in order, each once; missing paths are recorded in `errors`."""
    seen: set[Path] = set()
    for given in paths:
        path = Path(given)
        if path.is_dir():
            candidates = _suite_files(path)
        elif path.exists():
            candidates = [path]
        else:
            errors.append(ScenarioError(path, "", "no such file or directory"))
            continue
        for file in candidates:
            identity = file.resolve()
            if identity not in seen:
                seen.add(identity)
                yield file


def _suite_files(directory: Path) -> list[Path]:
    """The `*.yaml`/`*.yml` files below `directory`, sorted, outside any `expected/` dir."""
    found: list[Path] = []
    for root, dirnames, filenames in os.walk(directory):
        dirnames[:] = [name for name in dirnames if name != EXPECTED_DIR]
        found.extend(
            Path(root, name) for name in filenames if Path(name).suffix in SCENARIO_SUFFIXES
        )
    return sorted(found)


def _parse_scenario(document: Any, source: Path) -> Scenario:
    """Turn a parsed YAML document into a `Scenario`, raising `FieldError` on the first problem."""
    if not isinstance(document, dict):
        got = "an empty file" if document is None else describe(document)
        raise FieldError("", f"expected a mapping of scenario keys at the top level, got {got}")
    reject_unknown_keys(document, TOP_LEVEL_KEYS, "", "allowed top-level keys are")
    if document.get("name") is None:
        raise FieldError("name", "missing; every scenario needs a name")
    steps = _steps(document.get("steps"))
    return Scenario(
        name=nonblank_string(document["name"], "name"),
        source=source,
        description=optional_string(document.get("description"), "description"),
        settings=_settings(document.get("settings"), "settings"),
        slave_settings=_settings(document.get("slave_settings"), "slave_settings"),
        matrix=_matrix(document.get("matrix")),
        engines=_engines(document.get("engines")),
        master_schema=sql_list(document.get("master_schema"), "master_schema"),
        slave_schema=sql_list(document.get("slave_schema"), "slave_schema"),
        steps=steps,
        expect=_expectations(document.get("expect"), len(steps)),
        volatile=_volatile(document.get("volatile")),
        flavor=_flavor(document.get("flavor")),
        seed=_seed(document.get("seed")),
        tolerate_errors=flag(document.get("tolerate_errors"), "tolerate_errors"),
    )


def _flavor(value: Any) -> str | None:
    """A flavor name, checked against the known ones where the scenario is run."""
    return None if value is None else nonblank_string(value, "flavor").lower()


def _seed(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise FieldError("seed", f"expected a non-negative integer, got {describe(value)} {value!r}")
    return value


def _settings(value: Any, key: str) -> dict[str, str]:
    """A `variable -> scalar` mapping, normalised; null or absent means no settings."""
    return {name: scalar(raw, f"{key}.{name}") for name, raw in variables(value, key).items()}


def _matrix(value: Any) -> dict[str, tuple[str, ...]]:
    """`variable -> non-empty list of scalars`; each list is one axis of the run matrix."""
    matrix: dict[str, tuple[str, ...]] = {}
    for name, raw in variables(value, "matrix").items():
        key = f"matrix.{name}"
        if not isinstance(raw, list):
            raise FieldError(key, f"expected a list of values, got {describe(raw)}")
        if not raw:
            raise FieldError(key, "expected at least one value, got an empty list")
        matrix[name] = scalar_tuple(raw, key)
    return matrix


def _engines(value: Any) -> dict[str, EngineDeclaration]:
    """`NAME -> {capability: bool}`: every capability but self_logging must be given,
    since a guessed default would silently decide the logging format."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise FieldError("engines", f"expected a mapping of engine name -> capabilities, got {describe(value)}")
    engines: dict[str, EngineDeclaration] = {}
    seen: set[str] = set()
    for name, raw in value.items():
        key = f"engines.{name}"
        if not isinstance(name, str) or not IDENTIFIER.fullmatch(name):
            raise FieldError("engines", f"engine names are identifiers (letters, digits, _), got {describe(name)} {name!r}")
        if name.upper() in seen:
            raise FieldError(key, "engine declared twice (names are case-insensitive)")
        seen.add(name.upper())
        if not isinstance(raw, dict):
            raise FieldError(key, f"expected a mapping of capability -> true/false, got {describe(raw)}")
        reject_unknown_keys(raw, ENGINE_KEYS, key, "an engine declares only")
        for capability in REQUIRED_ENGINE_KEYS:
            if capability not in raw:
                raise FieldError(f"{key}.{capability}", "missing; declare it true or false")
        for capability, value in raw.items():
            if not isinstance(value, bool):
                raise FieldError(f"{key}.{capability}", f"expected true or false, got {describe(value)}")
        engines[name] = EngineDeclaration(**raw)
    return engines


def _steps(value: Any) -> tuple[Step, ...]:
    """The statements to replay, numbered from 1 in file order."""
    steps: list[Step] = []
    for position, raw in enumerate(sequence(value, "steps")):
        key = f"steps[{position}]"
        if not isinstance(raw, dict):
            raise FieldError(key, f"expected a mapping with session and sql, got {describe(raw)}")
        reject_unknown_keys(raw, STEP_KEYS, key, "a step has only")
        if "session" not in raw:
            raise FieldError(f"{key}.session", "missing")
        session = nonblank_string(raw["session"], f"{key}.session")
        if "disconnect" in raw or "reap" in raw:
            steps.append(_client_step(raw, key, position + 1, session))
            continue
        if "sql" not in raw:
            raise FieldError(f"{key}.sql", "missing (or `disconnect: true` for a step that closes the session, `reap: true` for one that waits for its answer)")
        steps.append(
            Step(
                index=position + 1,
                session=session,
                sql=nonblank_string(raw["sql"], f"{key}.sql"),
                errors=_step_errors(raw["error"], f"{key}.error") if "error" in raw else (),
            )
        )
    return tuple(steps)


def _client_step(raw: dict[str, Any], key: str, index: int, session: str) -> Step:
    """`{session: con1, disconnect: true}`: the session closes its connection;
    `{session: con1, reap: true}`: its client waits for its last statement's answer.
    Neither sends a statement, so neither can end with an error of its own."""
    kind = "disconnect" if "disconnect" in raw else "reap"
    if raw[kind] is not True:
        raise FieldError(f"{key}.{kind}", f"expected true (leave the key out for a statement step), got {describe(raw[kind])}")
    for field_name in ("sql", "error", "disconnect", "reap"):
        if field_name != kind and field_name in raw:
            raise FieldError(f"{key}.{field_name}", f"a {kind} step sends no statement: it has only session and {kind}")
    return Step(index=index, session=session, sql="", disconnect=kind == "disconnect", reap=kind == "reap")


def _step_errors(value: Any, key: str) -> tuple[int | str, ...]:
    """What a step may end with, as mysqltest's `--error`: a MySQL code, an `ER_` name, or
    a list of them; 0 allows success. Names are checked against the server's where the
    scenario runs."""
    items = value if isinstance(value, list) else [value]
    if not items:
        raise FieldError(key, "expected an error code, an ER_ name or a list of them, got an empty list")
    errors: list[int | str] = []
    for position, raw in enumerate(items):
        item_key = f"{key}[{position}]" if isinstance(value, list) else key
        if isinstance(raw, str) and _ERROR_NAME.fullmatch(raw.strip().upper()):
            error: int | str = raw.strip().upper()
        elif isinstance(raw, int) and not isinstance(raw, bool):
            error = error_code(raw, item_key, allow_zero=True)
        else:
            got = f"{describe(raw)} {raw!r}" if isinstance(raw, str) else describe(raw)
            raise FieldError(item_key, f"expected a MySQL error code such as 1062, an ER_ name such as ER_DUP_ENTRY, or 0 for success, got {got}")
        if error in errors:
            raise FieldError(item_key, f"{error} is listed twice")
        errors.append(error)
    return tuple(errors)


def _expectations(value: Any, step_count: int) -> tuple[Expectation, ...]:
    """The assertions about runs; each must say something (a verdict, a slave error, or
    what one step did)."""
    expectations: list[Expectation] = []
    for position, raw in enumerate(sequence(value, "expect")):
        key = f"expect[{position}]"
        if not isinstance(raw, dict):
            raise FieldError(key, f"expected a mapping, got {describe(raw)}")
        reject_unknown_keys(raw, EXPECT_KEYS, key, "an expectation has only")
        verdict, slave_error, step = raw.get("verdict"), raw.get("slave_error"), raw.get("step")
        checks = [name for name in STEP_CHECK_KEYS if name in raw]
        if step is None and checks:
            raise FieldError(f"{key}.{checks[0]}", "needs a step: the number of the step it is about")
        if step is not None and not checks:
            raise FieldError(f"{key}.step", f"says nothing about the step; add {', '.join(STEP_CHECK_KEYS)}")
        if verdict is None and slave_error is None and step is None:
            raise FieldError(key, "needs a verdict, a slave_error, or a step with its notes, error or events")
        expectations.append(
            Expectation(
                when=_when(raw.get("when"), f"{key}.when"),
                verdict=None if verdict is None else _verdict(verdict, f"{key}.verdict"),
                slave_error=None
                if slave_error is None
                else error_code(slave_error, f"{key}.slave_error"),
                step=None if step is None else _step_number(step, f"{key}.step", step_count),
                notes=_notes(raw["notes"], f"{key}.notes") if "notes" in raw else None,
                error=error_code(raw["error"], f"{key}.error", allow_zero=True) if "error" in raw else None,
                events=_events(raw["events"], f"{key}.events") if "events" in raw else None,
            )
        )
    return tuple(expectations)


def _step_number(value: Any, key: str, step_count: int) -> int:
    """A 1-based index into `steps`, as the report numbers steps."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise FieldError(key, f"expected a step number (an int), got {describe(value)}")
    if not 1 <= value <= step_count:
        raise FieldError(key, f"no step {value}; steps are numbered 1 to {step_count}")
    return value


def _notes(value: Any, key: str) -> tuple[str | int, ...]:
    """Diagnostics: an unsafe reason name (`LIMIT`) for each Note 1592, a code for the rest."""
    notes: list[str | int] = []
    for position, raw in enumerate(sequence(value, key)):
        item_key = f"{key}[{position}]"
        if isinstance(raw, str) and IDENTIFIER.fullmatch(raw.strip()):
            notes.append(raw.strip().upper())
        elif isinstance(raw, int) and not isinstance(raw, bool):
            notes.append(error_code(raw, item_key))
        else:
            got = f"{describe(raw)} {raw!r}" if isinstance(raw, str) else describe(raw)
            raise FieldError(item_key, f"expected an unsafe reason name such as LIMIT or a MySQL code such as 1062, got {got}")
    return tuple(notes)


def _events(value: Any, key: str) -> tuple[EventPattern, ...]:
    """`Kind` or `Kind info` per event, e.g. `Query BEGIN`, `Table_map test.t`, `Xid`."""
    events: list[EventPattern] = []
    for position, raw in enumerate(sequence(value, key)):
        item_key = f"{key}[{position}]"
        if not isinstance(raw, str):
            hint = " (quote an entry that contains ': ')" if isinstance(raw, dict) else ""
            raise FieldError(item_key, f"expected an event such as 'Query BEGIN' or 'Xid', got {describe(raw)}{hint}")
        kind, _, info = raw.strip().partition(" ")
        if not IDENTIFIER.fullmatch(kind):
            raise FieldError(item_key, f"expected an event kind such as Query or Write_rows first, got {raw!r}")
        events.append(EventPattern(kind, " ".join(info.split())))
    return tuple(events)


def _when(value: Any, key: str) -> dict[str, tuple[str, ...]]:
    """`variable -> scalar or list of scalars`, every value made a tuple for `matches`."""
    when: dict[str, tuple[str, ...]] = {}
    for name, raw in variables(value, key).items():
        item_key = f"{key}.{name}"
        if isinstance(raw, list):
            if not raw:
                raise FieldError(item_key, "expected at least one value, got an empty list")
            when[name] = scalar_tuple(raw, item_key)
        else:
            when[name] = (scalar(raw, item_key),)
        if name == FLAVOR_KEY:  # flavor names are lower-case (mysql-8.0), variable values upper
            when[name] = tuple(value.lower() for value in when[name])
    return when


def _verdict(value: Any, key: str) -> Verdict:
    allowed = ", ".join(v.value for v in Verdict)
    if not isinstance(value, str):
        raise FieldError(key, f"expected one of {allowed}, got {describe(value)}")
    try:
        return Verdict(value.strip().lower())
    except ValueError:
        raise FieldError(key, f"unknown verdict {value!r}; expected one of {allowed}") from None


def _volatile(value: Any) -> tuple[str, ...]:
    """`table.column` names, lower-cased: the form the fidelity check matches them in."""
    names = []
    for position, raw in enumerate(sequence(value, "volatile")):
        key = f"volatile[{position}]"
        name = nonblank_string(raw, key)
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$]*\.[A-Za-z_][A-Za-z0-9_$]*", name):
            raise FieldError(key, f"expected table.column, got {name!r}")
        names.append(name.lower())
    return tuple(names)


def _yaml_message(exc: yaml.YAMLError) -> str:
    """The parser's complaint with a 1-based line and column, without PyYAML's source dump."""
    if not isinstance(exc, yaml.MarkedYAMLError):
        return f"invalid YAML: {exc}"
    mark = exc.problem_mark or exc.context_mark
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    problem = "; ".join(part for part in (exc.context, exc.problem) if part)
    return f"invalid YAML{where}: {problem}"


def read_scenario_text(path: Path, limit: int | None = None) -> str:
    """The file's text, read only from a regular file of at most `limit` bytes (default
    MAX_SCENARIO_BYTES): a FIFO would block the suite, a device never end. Opened without
    blocking, checked on the open file, so what is read is what was checked."""
    limit = MAX_SCENARIO_BYTES if limit is None else limit
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(descriptor, "rb") as file:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(0, f"not a regular file ({_file_kind(mode)}): only regular files are read")
        data = file.read(limit + 1)
    if len(data) > limit:
        raise OSError(0, f"larger than {limit} bytes (the limit for a scenario file)")
    return data.decode("utf-8")


def _file_kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))
    return next((name for test, name in kinds if test(mode)), "not a file")


def _reason(exc: Exception) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
