"""Replication scenarios: the model, the YAML loader that builds it and the writer that saves
it, and generated workloads with the interleavings of their sessions worth running."""

from scenarios.generator import GeneratorConfig, generate_workload
from scenarios.interleavings import count_interleavings, explore, normal_form, representatives, sample_interleavings
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
from scenarios.workload import GeneratedStatement, Interleaving, Workload
from scenarios.writer import scenario_to_yaml, write_scenario

__all__ = [
    "BINLOG_FORMATS",
    "EngineDeclaration",
    "EventPattern",
    "Expectation",
    "GeneratedStatement",
    "GeneratorConfig",
    "Interleaving",
    "LoadResult",
    "Scenario",
    "ScenarioError",
    "ScenarioLoadError",
    "Step",
    "Verdict",
    "Workload",
    "count_interleavings",
    "explore",
    "generate_workload",
    "load_paths",
    "load_scenario",
    "normal_form",
    "representatives",
    "sample_interleavings",
    "scenario_to_yaml",
    "write_scenario",
]
