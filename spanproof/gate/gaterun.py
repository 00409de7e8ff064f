"""What one gate run holds: its config and where it runs, the parts it built (the verifier, the
web environment, the memo), the agent runs it made, and what each phase and check left behind.

The runner (``spanproof/gate/run.py``) fills one ``GateRun`` as it goes and hands it to every
declared check's gather function (``spanproof/gate/spec.py``), which reads what it needs from it
and returns the check's input. The lists are the run's own, filled as the agent's runs finish,
so an interrupted gate still records the runs that completed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spanproof.core.specs import EndpointSettings
from spanproof.core.verdict import Judge
from spanproof.gate.artifacts import GateArtifacts
from spanproof.gate.config import GateConfig
from spanproof.gate.rows import CheckRow

if TYPE_CHECKING:
    from spanproof.graders.verify import Verifier

    from spanproof.bench.run_view import RunView
    from spanproof.gate.memo import GateMemo
    from spanproof.web.env import WebEnv


def _quiet(message: str) -> None:
    """Progress nobody reads."""


@dataclass(frozen=True)
class GateSetup:
    """What is fixed before the gate starts, from the command line and the config."""

    cfg: GateConfig
    home: Path
    # the model endpoint settings the judges, the agent and the rubric judge are built with
    endpoint: EndpointSettings = field(default_factory=EndpointSettings)
    # the store: --db / $SPANPROOF_DB; None is SQLite under the home
    db: str | None = None
    fresh: bool = False  # --fresh: recompute every phase
    progress: Callable[[str], None] = _quiet


@dataclass
class GateRun:
    setup: GateSetup

    # The parts the gate built (None until built: a failed judge setup leaves them unset).
    judge: Judge | None = None
    verifier: Verifier | None = None
    # The agent's web environment (index, fetcher, snapshot store): a live object the
    # deterministic checks read, never part of the result.
    env: WebEnv | None = None
    memo: GateMemo | None = None  # phases replayed when nothing changed (spanproof/gate/memo.py)

    # The agent's runs over the golden questions, as records and as the views checks read
    # (the golden questions by id are checks.runs.GoldenQuestion: the checks import this
    # module, so naming that type here would close an import circle).
    records: list[Any] = field(default_factory=list)
    views: list[RunView] = field(default_factory=list)
    questions: dict[str, Any] = field(default_factory=dict)
    snapshot_text: Callable[[str], str] | None = None  # stored text by doc id

    # What the phases and checks left behind.
    rows: dict[str, list[CheckRow]] = field(default_factory=dict)
    artifacts: GateArtifacts = field(default_factory=GateArtifacts)
    prompt_hashes: dict[str, str] = field(default_factory=dict)
    judge_ids: list[str] = field(default_factory=list)
    model_calls: int = 0  # calls made outside the verifier (the rubric judge)
    cache_hits: int = 0
    phase_seconds: dict[str, float] = field(default_factory=dict)
    phase_calls: dict[str, int] = field(default_factory=dict)
    phase_errors: dict[str, int] = field(default_factory=dict)
    failed_phase: dict[str, str] = field(default_factory=dict)  # check -> why it could not run
    debug: list[str] = field(default_factory=list)  # tracebacks of the phases that failed
    # Set when a phase proves a model endpoint dead (a refused key, an unknown model, a
    # circuit opened by calls failing in a row): the later phases are not run.
    dead_endpoint: str | None = None
    dead_models: dict[str, str] = field(default_factory=dict)  # model -> "phase: cause"
    store_lost: str | None = None  # a phase could not reach the store: the later ones stop too
    cost_spent: str | None = None  # "phase: why" the gate's --max-cost stopped its model calls

    # the setup, read as the run's own (every check reads the config)
    @property
    def cfg(self) -> GateConfig:
        return self.setup.cfg

    @property
    def home(self) -> Path:
        return self.setup.home

    @property
    def endpoint(self) -> EndpointSettings:
        return self.setup.endpoint

    @property
    def db(self) -> str | None:
        return self.setup.db

    def say(self, msg: str) -> None:
        self.setup.progress(msg)

    def built_verifier(self) -> Verifier:
        """The verifier, for a phase that judges (built before any such phase runs)."""
        if self.verifier is None:
            raise RuntimeError("the gate's verifier was not built: its judge setup failed")
        return self.verifier

    def calls_now(self) -> int:
        return self.model_calls + (self.verifier.model_calls if self.verifier else 0)

    def hits_now(self) -> int:
        return self.cache_hits + (self.verifier.cache_hits if self.verifier else 0)

    def verifier_errors(self) -> int:
        return self.verifier.errors if self.verifier else 0

    def note_dead_models(self, phase: str) -> None:
        """Remember, with the phase that proved it, each model whose circuit is open."""
        from spanproof.wire import clients

        for client in clients():
            if client.open_cause and client.model not in self.dead_models:
                self.dead_models[client.model] = f"{phase}: {client.open_cause}"
