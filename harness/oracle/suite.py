"""Oracle mode: the same scenario variants on the simulator and on a real MariaDB, side by side.

`run_with_oracle` runs both live; `record_oracle` stores the real server's observations
in each suite's `expected/` directory; `check_fidelity` compares the simulator with
those recordings, with no server at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from harness.fidelity import KNOWN_DIFFERENCES_FILE, FidelityResult, KnownDifference, compare_observations, explain, load_known_differences
from harness.observation import Observation, load_observation, observe_run, save_observation, simulator_events
from harness.progress import Console
from harness.runner import run_id_for
from harness.suite import BINLOG_DIR, RunOutcome, SuiteResult, judge_records, load_runnable, simulate
from scenarios.loader import EXPECTED_DIR
from scenarios.model import Scenario, ScenarioError
from server_sim.flavor import MARIADB_1011, Flavor

from .client import ORACLE_SUFFIX, OracleClient, OracleRun
from .replication import ReplicationPair
from .workdir import sigterm_as_exit

ORACLES: dict[str, Flavor] = {"mariadb": MARIADB_1011}
SIMULATOR = "simulator"


@dataclass
class OracleResult:
    """The simulator's runs (judged, with their expectations) and the fidelity comparison."""

    simulator: SuiteResult
    server: list[RunOutcome] = field(default_factory=list)
    fidelity: FidelityResult = field(default_factory=lambda: FidelityResult(""))
    recorded: list[Path] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """2 on input errors or nothing to run, 1 when a check fails (an `expect` entry or a
        statement's error) or a disagreement is not a known one. The verdicts themselves are
        what the fidelity comparison judges, against the server's."""
        if self.simulator.input_errors or not self.simulator.runs:
            return 2
        checks_failed = not all(run.checks_held for run in self.simulator.runs)
        return 1 if checks_failed or self.fidelity.unexplained or self.fidelity.missing else 0


def expected_path(scenario: Scenario, variant: dict[str, str]) -> Path:
    """Where a run's recorded server observation lives: next to the scenario, in expected/."""
    directory = scenario.source.parent if scenario.source else Path(".")
    return directory / EXPECTED_DIR / f"{run_id_for(scenario, scenario.variant_label(variant))}.json"


def _known_differences(scenarios: list[Scenario], errors: list[ScenarioError]) -> list[KnownDifference]:
    files = {(s.source.parent if s.source else Path(".")) / EXPECTED_DIR / KNOWN_DIFFERENCES_FILE for s in scenarios}
    known: list[KnownDifference] = []
    for path in sorted(files):
        if path.is_file():
            try:
                known.extend(load_known_differences(path))
            except ValueError as error:
                errors.append(ScenarioError(path, "", str(error).removeprefix(f"{path}: ")))
    return known


def _run_on_server(
    scenarios: list[Scenario],
    flavor: Flavor,
    pair_factory: Callable[[Flavor], ReplicationPair],
    step_timeout: float,
    console: Console | None = None,
    binlog_dir: Path | None = None,
) -> list[OracleRun]:
    """Every variant on one master/replica pair, started for this and always stopped (on
    SIGTERM too); the console, if any, is told when the servers start, when they are up,
    and of each run. Each run's master binlog files are kept in `binlog_dir`, when given."""
    variants = [(scenario, variant) for scenario in scenarios for variant in scenario.variants()]
    console = console or Console.silent()
    name = _server_name(flavor)
    console.note(f"starting {name} master and replica ...")
    with sigterm_as_exit(), pair_factory(flavor) as pair:
        client = OracleClient(pair, step_timeout, binlog_dir=binlog_dir)
        console.note(f"{name} master and replica are up ({client.server_version})")
        progress = console.runs("server")
        runs: list[OracleRun] = []
        progress(0, len(variants))
        for scenario, variant in variants:
            runs.append(client.run_variant(scenario, variant))
            progress(len(runs), len(variants))
        return runs


def _server_name(flavor: Flavor) -> str:
    """`MariaDB` for mariadb-10.11, as people name the server."""
    product = flavor.name.partition("-")[0]
    return {"mariadb": "MariaDB", "mysql": "MySQL"}.get(product, product)


def _fidelity(system: str, scenarios: list[Scenario], simulated: list[RunOutcome], server: Callable[[Scenario, dict[str, str]], Observation | None], known: list[KnownDifference]) -> FidelityResult:
    result = FidelityResult(system)
    by_run = {outcome.record.run_id: outcome for outcome in simulated}
    for scenario in scenarios:
        for variant in scenario.variants():
            run_id = run_id_for(scenario, scenario.variant_label(variant))
            outcome = by_run[run_id]
            theirs = server(scenario, variant)
            if theirs is None:
                result.missing.append(f"{run_id}: no server observation ({expected_path(scenario, variant)})")
                continue
            ours = observe_run(outcome.record, outcome.judgement, simulator_events(outcome.record.binlog), SIMULATOR)
            result.runs.append(compare_observations(ours, theirs, scenario.volatile))
    explain(result.runs, known)
    return result


def run_with_oracle(
    paths: Iterable[Path | str],
    oracle: str,
    out: Path,
    start_spark: Callable[[], object],
    seed: int = 0,
    pair_factory: Callable[[Flavor], ReplicationPair] = ReplicationPair,
    step_timeout: float = 0.5,
    console: Console | None = None,
    compare: str = "spark",
) -> OracleResult:
    """Every variant on the simulator and on the real servers; one comparison judges both."""
    flavor = ORACLES[oracle]
    scenarios, errors = load_runnable(paths, flavor, only_flavor=True)
    known = _known_differences(scenarios, errors)
    simulated = simulate(scenarios, flavor, out, seed, progress=console.runs("simulator") if console else None)
    real_runs = _run_on_server(scenarios, flavor, pair_factory, step_timeout, console, out / BINLOG_DIR)
    kept = {run.record.run_id.removesuffix(ORACLE_SUFFIX): run.record.server_binlogs for run in real_runs}
    for record in simulated:  # the report's runs are the simulator's: each names the server's binlog of its variant
        record.server_binlogs = kept.get(record.run_id, [])
    outcomes = judge_records(simulated + [run.record for run in real_runs], out, start_spark, compare)
    simulator_outcomes, server_outcomes = outcomes[: len(simulated)], outcomes[len(simulated) :]
    observations = _server_observations(real_runs, server_outcomes)
    system = real_runs[0].server_version if real_runs else oracle
    fidelity = _fidelity(system, scenarios, simulator_outcomes, lambda s, v: observations.get(run_id_for(s, s.variant_label(v))), known)
    return OracleResult(SuiteResult(simulator_outcomes, errors), server_outcomes, fidelity)


def _server_observations(real_runs: list[OracleRun], outcomes: list[RunOutcome]) -> dict[str, Observation]:
    """The real server's observations keyed by the simulator's run id."""
    observations = {}
    for run, outcome in zip(real_runs, outcomes, strict=True):
        observation = observe_run(outcome.record, outcome.judgement, run.events, run.server_version)
        observations[run_id_for(outcome.record.scenario, outcome.record.label)] = observation
    return observations


def record_oracle(
    paths: Iterable[Path | str],
    oracle: str,
    out: Path,
    start_spark: Callable[[], object],
    pair_factory: Callable[[Flavor], ReplicationPair] = ReplicationPair,
    step_timeout: float = 0.5,
    console: Console | None = None,
    compare: str = "spark",
) -> tuple[list[Path], list[ScenarioError], list[RunOutcome]]:
    """Run every variant on the real servers and store each observation in expected/."""
    flavor = ORACLES[oracle]
    scenarios, errors = load_runnable(paths, flavor, only_flavor=True)
    real_runs = _run_on_server(scenarios, flavor, pair_factory, step_timeout, console, out / BINLOG_DIR)
    outcomes = judge_records([run.record for run in real_runs], out, start_spark, compare)
    observations = _server_observations(real_runs, outcomes)
    written = []
    for outcome in outcomes:
        path = expected_path(outcome.record.scenario, outcome.record.variant)
        save_observation(observations[run_id_for(outcome.record.scenario, outcome.record.label)], path)
        written.append(path)
    return written, errors, outcomes


def check_fidelity(
    paths: Iterable[Path | str],
    oracle: str,
    out: Path,
    start_spark: Callable[[], object],
    seed: int = 0,
    console: Console | None = None,
    compare: str = "spark",
) -> OracleResult:
    """The simulator against the recorded server observations: no server needed."""
    flavor = ORACLES[oracle]
    scenarios, errors = load_runnable(paths, flavor, only_flavor=True)
    known = _known_differences(scenarios, errors)
    progress = console.runs("simulator") if console else None
    simulated = judge_records(simulate(scenarios, flavor, out, seed, progress=progress), out, start_spark, compare)
    systems: set[str] = set()

    def recorded(scenario: Scenario, variant: dict[str, str]) -> Observation | None:
        path = expected_path(scenario, variant)
        if not path.is_file():
            return None
        try:
            observation = load_observation(path)
        except ValueError as error:
            errors.append(ScenarioError(path, "", str(error).removeprefix(f"{path}: ")))
            return None
        systems.add(observation.system)
        return observation

    fidelity = _fidelity("", scenarios, simulated, recorded, known)
    fidelity.system = ", ".join(sorted(systems)) or f"{oracle} (no recordings)"
    return OracleResult(SuiteResult(simulated, errors), [], fidelity)
