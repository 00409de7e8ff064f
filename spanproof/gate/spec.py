"""What a gate check is: a declared unit that the gate runs and thresholds uniformly.

A check declares its name, what it measures, what it reads, how the gate gathers its input
from the gate run (``gather``: an async function of the ``GateRun``), and its metrics; each metric
declares its direction and where its threshold comes from (a key of the gate config's
``[thresholds]`` table, a figure the product fixes, or nothing: reported, never gated). The
check's ``measure`` turns its input into one Measurement per declared metric and never
compares anything with a threshold: ``GateCheck.rows`` does that, the same way for every
check, so every check fails the same ways:

- input missing or empty (no runs, no pairs, no hostile pages, an answer set nobody could
  score): ``measure`` raises CannotMeasure, the check's row is ``error`` ("could not run:
  <why>") and the gate exits 2 when the check is required — never a pass;
- a metric with nothing to count (no spans, no fetches, no near-miss pairs): its value is
  None and its row FAILS ("nothing to measure: ...") whatever the threshold;
- a check that needs a model nobody configured (usefulness offline): ``Unscored``, a row that
  is neither pass nor fail, so a gate of only such rows has checked nothing (exit 2).

A check that keeps data for the report and the viewer declares its model (``artifact=``):
the result holds it as ``artifacts.<check name>`` (``spanproof/gate/artifacts.py``), and
``check_declarations`` holds the two to each other.

``declare`` registers a measure function with its declaration (in the spirit of Inspect AI's
``@scorer(metrics=[...])``); ``declared_checks`` lists them in the order the gate runs them.

The gate config validates check names and thresholds before any check is imported, so
``CHECK_NAMES`` and ``Thresholds`` (spanproof/gate/config.py) stay beside it; ``check_declarations``
holds them to the declarations (every name declared, every threshold some metric's), and the
checks package runs it when it is imported, so the two cannot drift apart unnoticed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from spanproof.gate.artifacts import GateArtifacts
from spanproof.gate.config import CHECK_NAMES, GateConfig, Thresholds
from spanproof.gate.rows import CheckRow, Role, error_row, gated_row

if TYPE_CHECKING:
    from spanproof.gate.gaterun import GateRun

Direction = Literal[">=", "<="]
In = TypeVar("In")


class CannotMeasure(Exception):  # noqa: N818 - a verdict about the input, not a crash
    """The check's input is missing or empty; the message says what is missing and how to fix it."""


@dataclass(frozen=True)
class Unscored:
    """The check was not scored (no model configured for it): reported as ``unscored``."""

    detail: str


@dataclass(frozen=True)
class Measurement:
    """One metric's value (None: nothing to measure, which fails a floor) and its one-line
    detail; ``items``: what broke it, one line each (a span id, a hostile page, a claim), which
    a failing row lists."""

    value: float | int | None
    detail: str
    items: tuple[str, ...] = ()


@dataclass(frozen=True)
class Metric:
    """One figure of a check, with its role (``spanproof.gate.rows``: floor, trend or info).

    ``threshold``: a field name of ``Thresholds`` (the gate config's ``[thresholds]`` table; a
    None there means "report, do not gate"), a number the product fixes, or None for a figure
    with no threshold. For a floor it is the floor; for a trend, the design target (enforced
    only when the config lists its key in ``floors``).
    """

    name: str
    measures: str
    direction: Direction
    threshold: str | float | int | None
    role: Role = "trend"

    def threshold_for(self, cfg: GateConfig) -> float | int | None:
        if isinstance(self.threshold, str):
            # a Thresholds field: check_declarations refuses a name that is not one
            value: float | int | None = getattr(cfg.thresholds, self.threshold)
            return value
        return self.threshold

    def enforced(self, cfg: GateConfig) -> bool:
        """A trend's target the config made a floor."""
        return isinstance(self.threshold, str) and self.threshold in cfg.floors

    @property
    def gated(self) -> bool:
        """Whether any config can make this metric fail (reported-only figures cannot)."""
        return self.threshold is not None


Outcome = Mapping[str, Measurement] | Unscored
# How the gate makes a check's input from what it has run so far (judging a set through its
# verifier, serving the hostile pages, reading the agent's runs).
Gather = Callable[["GateRun"], Awaitable[In]]


@dataclass(frozen=True)
class GateCheck(Generic[In]):
    name: str
    measures: str
    reads: str
    metrics: tuple[Metric, ...]
    gather: Gather[In] = field(repr=False)
    measure: Callable[[In], Outcome] = field(repr=False)
    # The model of what the check keeps for the report and the viewer: the result's
    # ``artifacts.<name>`` (spanproof/gate/artifacts.py); None for a check that keeps nothing.
    artifact: type[BaseModel] | None = None

    def metric(self, name: str) -> Metric:
        return next(m for m in self.metrics if m.name == name)

    def rows(self, data: In, cfg: GateConfig) -> list[CheckRow]:
        """Measure ``data`` and hold each declared metric to its threshold in ``cfg``."""
        try:
            outcome = self.measure(data)
        except CannotMeasure as exc:
            return [error_row(self.name, str(exc))]
        if isinstance(outcome, Unscored):
            first = self.metrics[0]
            return [
                CheckRow(
                    name=f"{self.name}.{first.name}", check=self.name, role=first.role,
                    threshold=f"{first.direction} {first.threshold_for(cfg)}", status="not_tested",
                    why=outcome.detail, detail=outcome.detail,
                )
            ]  # fmt: skip
        declared = [m.name for m in self.metrics]
        if sorted(outcome) != sorted(declared):
            # A programming error, not a measurement: the gate reports it as "could not run".
            raise RuntimeError(
                f"check {self.name} measured {sorted(outcome)} but declares {declared}"
            )
        return [
            gated_row(self.name, m.name, outcome[m.name].value, m.direction, m.threshold_for(cfg),
                      outcome[m.name].detail, role=m.role, enforced=m.enforced(cfg),
                      items=list(outcome[m.name].items))
            for m in self.metrics
        ]  # fmt: skip


_REGISTRY: dict[str, GateCheck[Any]] = {}


def declare(
    name: str,
    *,
    measures: str,
    reads: str,
    gather: Gather[In],
    metrics: list[Metric],
    artifact: type[BaseModel] | None = None,
) -> Callable[[Callable[[In], Outcome]], GateCheck[In]]:
    """Register ``measure`` as the gate check ``name`` with its metrics (see the module doc)."""
    if name not in CHECK_NAMES:
        raise ValueError(f"gate check {name!r} is not in gate_config.CHECK_NAMES")
    for m in metrics:
        if isinstance(m.threshold, str) and m.threshold not in Thresholds.model_fields:
            raise ValueError(f"{name}.{m.name}: no threshold {m.threshold!r} in the gate config")

    def register(measure: Callable[[In], Outcome]) -> GateCheck[In]:
        check = GateCheck(name, measures, reads, tuple(metrics), gather, measure, artifact)
        _REGISTRY[name] = check
        return check

    return register


class DeclarationDrift(RuntimeError):
    """The gate config's check names or thresholds no longer match the declared checks."""


def check_declarations(
    checks: list[GateCheck[Any]],
    *,
    names: tuple[str, ...] = CHECK_NAMES,
    thresholds: type[Thresholds] = Thresholds,
    agent_checks: tuple[str, ...] = (),
    agent_gather: Gather[Any] | None = None,
) -> None:
    """Raise DeclarationDrift unless ``names`` lists exactly the declared checks in their order,
    every ``thresholds`` field is some metric's threshold and every named threshold exists, and
    ``agent_checks`` are exactly the checks gathered by ``agent_gather`` (the agent's runs)."""
    problems: list[str] = []
    declared = [c.name for c in checks]
    if missing := [n for n in names if n not in declared]:
        problems.append(f"in CHECK_NAMES but never declared: {', '.join(missing)}")
    if extra := [n for n in declared if n not in names]:
        problems.append(f"declared but not in CHECK_NAMES: {', '.join(extra)}")
    if not missing and not extra and declared != list(names):
        problems.append(f"declared in the order {declared}, CHECK_NAMES says {list(names)}")
    used = {m.threshold for c in checks for m in c.metrics if isinstance(m.threshold, str)}
    if unused := sorted(set(thresholds.model_fields) - used):
        problems.append(f"thresholds no metric is held to: {', '.join(unused)}")
    if unknown := sorted(used - set(thresholds.model_fields)):
        problems.append(f"metric thresholds missing from Thresholds: {', '.join(unknown)}")
    for c in checks:
        kept = GateArtifacts.model_fields.get(c.name)
        if c.artifact is not None and (kept is None or kept.annotation != c.artifact | None):
            problems.append(f"{c.name} declares the artifact {c.artifact.__name__}, but "
                            f"GateArtifacts has no field {c.name}: {c.artifact.__name__} | None")  # fmt: skip
        if c.artifact is None and kept is not None:
            problems.append(f"GateArtifacts keeps {c.name}, but the check declares no artifact")
    if agent_gather is not None:
        gathered = [c.name for c in checks if c.gather is agent_gather]
        if sorted(gathered) != sorted(agent_checks):
            problems.append(f"AGENT_CHECKS lists {list(agent_checks)} but the checks that read "
                            f"the agent's runs are {gathered}")  # fmt: skip
    if problems:
        raise DeclarationDrift(
            "the gate config and the declared checks disagree: " + "; ".join(problems)
            + ". Declare each check once in spanproof/gate/checks/ and keep CHECK_NAMES, "
            "AGENT_CHECKS and Thresholds in spanproof/gate/config.py to match"
        )  # fmt: skip


def registered() -> list[GateCheck[Any]]:
    """The checks declared so far, in the gate's order (``CHECK_NAMES``); every one of them
    once ``spanproof.gate.checks`` is imported (``checks.declared_checks``)."""
    return [_REGISTRY[n] for n in CHECK_NAMES if n in _REGISTRY]
