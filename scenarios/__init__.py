"""Replication scenarios: the model, the YAML loader that builds it and the writer that saves it."""

from scenarios.loader import LoadResult, ScenarioLoadError, load_paths, load_scenario
from scenarios.model import (
    BINLOG_FORMATS,
    EngineDeclaration,
    EventPattern,
    Expectation,
    Scenario,
    ScenarioError,
    Step,
    Verdict,
)
from scenarios.writer import scenario_to_yaml, write_scenario

__all__ = [
    "BINLOG_FORMATS",
    "EngineDeclaration",
    "EventPattern",
    "Expectation",
    "LoadResult",
    "Scenario",
    "ScenarioError",
    "ScenarioLoadError",
    "Step",
    "Verdict",
    "load_paths",
    "load_scenario",
    "scenario_to_yaml",
    "write_scenario",
]
