"""The CI gate: run every check, compare with thresholds, record the run.

Each check family produces one or more rows (one per thresholded metric) with
a value, the threshold it was held to, pass/fail and a one-line detail. A check
that cannot run (a missing input, an unreachable judge) is an ``error`` row,
never a made-up value: the gate then exits 2 when the check is required.

Checks over agent behaviour read run records (never live objects): the gate
first answers the golden questions with the configured policy and judge, then
every deterministic check walks the saved records and the snapshot store.
"""

from __future__ import annotations

import asyncio
import json
import time
import traceback
import uuid
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from spanproof.bench.run_view import view_from_record
from spanproof.core.evidence import utc_now_iso
from spanproof.core.specs import EndpointSettings
from spanproof.gate.artifacts import ModelTraffic, ReplayNote, StopNote
from spanproof.gate.checks import declared_checks
from spanproof.gate.checks.judged import sensitivity_sets
from spanproof.gate.checks.runs import (
    GoldenQuestion,
    cost_artifact,
    groundedness_artifact,
    groundedness_set,
    load_questions,
)
from spanproof.gate.config import AGENT_CHECKS, GateConfig
from spanproof.gate.gaterun import GateRun, GateSetup
from spanproof.gate.memo import REPLAYED_CHECKS, apply_patch, artifacts_patch
from spanproof.gate.offloop import in_daemon_thread, warm_up
from spanproof.gate.paths import resolve
from spanproof.gate.result import GateResult
from spanproof.gate.rows import STOP_REASONS, CheckRow, error_row, exit_code_for
from spanproof.gate.store import (
    GateStore,
    keep_unrecorded,
)
from spanproof.gate.subset import SUBSET_EXIT, Subset

if TYPE_CHECKING:
    from spanproof.agent.record import RunRecord
    from spanproof.graders.verify import Verifier

    from spanproof.core.verdict import Judge
    from spanproof.gate.baseline import Baseline
    from spanproof.gate.estimate import SpendEstimate
    from spanproof.gate.memo import GateMemo
    from spanproof.web.env import WebEnv


# ---------------------------------------------------------------------------
# The runner


def _why(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _Phase:
    """Times a phase and turns an exception into 'could not run' rows for its checks."""

    def __init__(self, run: GateRun, name: str, checks: Sequence[str]) -> None:
        self.run, self.name, self.checks = run, name, checks

    def __enter__(self) -> _Phase:
        self.t0 = time.perf_counter()
        self.calls0 = self.run.calls_now()
        self.hits0 = self.run.hits_now()
        self.responses0 = _server_responses()
        self.errors0 = self.run.verifier_errors()
        self.spent0 = _cap_spent()
        self.run.say(f"[gate] {self.name} …")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        self.run.note_dead_models(self.name)
        spent = _cap_spent()
        dt = time.perf_counter() - self.t0
        self.run.phase_seconds[self.name] = self.run.phase_seconds.get(self.name, 0.0) + dt
        calls = self.run.calls_now() - self.calls0
        if calls:
            self.run.phase_calls[self.name] = self.run.phase_calls.get(self.name, 0) + calls
        errors = self.run.verifier_errors() - self.errors0
        hits = self.run.hits_now() - self.hits0
        reached = _server_responses() - self.responses0
        for check in self.checks:
            self.run.phase_errors[check] = self.run.phase_errors.get(check, 0) + errors
        crossed = spent and not self.spent0
        if crossed and not isinstance(exc, KeyboardInterrupt | SystemExit | asyncio.CancelledError):
            # What this phase measured after the cap refused its calls is not a measurement.
            self.run.cost_spent = self.run.cost_spent or f"{self.name}: {spent}"
            self.run.say(f"[gate] {self.name} stopped: {spent}")
            for check in self.checks:
                self.run.failed_phase[check] = f"{self.name}: {spent}"
            return True
        if exc is None and calls and errors >= calls and not hits and not reached:
            # No judge call reached anything: an unreachable or misconfigured judge, not a
            # measurement. Cache hits and answers from the server count as reached, so a warm
            # and a cold run of the same gate give the same verdict.
            reason = (
                f"{self.name}: none of the {calls} judge calls reached the judge (unreachable or "
                "misconfigured?) - check --base-url / OPENAI_BASE_URL, OPENAI_API_KEY and the "
                "model name"
            )
            self.run.say(f"[gate] {self.name} could not run: {reason}")
            for check in self.checks:
                self.run.failed_phase[check] = reason
            return False
        if exc is None:
            self.run.say(
                f"[gate] {self.name} done in {dt:.1f}s, {calls} model calls, {hits} cache hits, "
                f"{errors} judge errors",
            )
            return False
        if isinstance(exc, KeyboardInterrupt | SystemExit | asyncio.CancelledError):
            return False  # an interrupt stops the gate; run_gate records what ran
        self.run.debug.append("".join(traceback.format_exception(exc_type, exc, tb)))
        self.run.say(f"[gate] {self.name} could not run: {_why(exc)}")
        for check in self.checks:
            self.run.failed_phase[check] = f"{self.name}: {_why(exc)}"
        if _proves_endpoint_dead(exc):
            self.run.dead_endpoint = f"{self.name}: {_why(exc)}"
        if _caused_by_store(exc):
            self.run.store_lost = f"the store could not be reached in {self.name} ({_why(exc)})"
        return True


def _cap_spent() -> str | None:
    from spanproof.wire.spend import cap_spent

    return cap_spent()


def _server_responses() -> int:
    from spanproof.wire import totals

    return totals().responses


def _proves_endpoint_dead(exc: BaseException) -> bool:
    """A failure every later call to the endpoint would repeat (see wire.endpoint_dead)."""
    from spanproof.wire import endpoint_dead

    return endpoint_dead(exc)


def _caused_by_store(exc: BaseException) -> bool:
    from spanproof.store.errors import StoreError

    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, StoreError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


async def run_gate(
    cfg: GateConfig,
    *,
    home: Path,
    config_source: str = "defaults",
    progress: Callable[[str], None] | None = None,
    endpoint: EndpointSettings | None = None,
    record: bool = True,
    db: str | None = None,
    baseline: Baseline | None = None,
    stop: Callable[[], str | None] | None = None,
    fresh: bool = False,
    subset: Subset | None = None,
) -> GateResult:
    """Run every enabled check; never raises for a check that cannot run (it becomes an error row).

    ``db``: the store for runs, verdicts and the gate run (default $SPANPROOF_DB, else SQLite
    under ``home``).

    ``baseline``: compare every row with this run (spanproof/gate/baseline.py); without it,
    ``cfg.baseline`` names one, resolved before any work (BaselineError when it names nothing).

    Every way the gate ends is recorded. A phase that fails gives its checks error rows; a
    phase that proves a model endpoint dead (or the store lost) stops the phases after it,
    whose rows say so. A stop (cancellation, Ctrl-C) keeps the rows that finished, marks the
    others, and records the run with the exit code of its reason: ``stop()`` says it
    ("interrupt" 130, "terminate" 143, "deadline" 2; without one, an interrupt). When ``stop``
    asked for the stop, the result is returned; any other cancellation propagates after the
    recording. A store that cannot take the result leaves it as JSON under the home (see
    ``spanproof.gate.store.keep_unrecorded``) and the gate exits 2.

    A deterministic gate (local judge, extractive policy) whose inputs all match a complete
    earlier run in this home replays that run's agent runs and its calibration, reviewed,
    sensitivity and injection measurements (graders.memo.py); ``fresh`` recomputes them.

    ``subset``: the checks ``cfg`` no longer lists because --only / --skip left them out
    (``spanproof.gate.subset.choose``); the result says so and is never a pass.
    """
    if baseline is None and cfg.baseline:
        baseline = resolve_baseline(cfg.baseline, home, db)
    t0 = time.perf_counter()
    started = utc_now_iso()
    setup = GateSetup(cfg=cfg, home=home, endpoint=endpoint or EndpointSettings(), db=db,
                      fresh=fresh, **({"progress": progress} if progress else {}))  # fmt: skip
    run = GateRun(setup)
    try:
        with _spend_cap(cfg):
            await _run_phases(run)
    except (asyncio.CancelledError, KeyboardInterrupt):
        reason = (stop() if stop is not None else None) or "interrupt"
        result = _result(run, t0, started, config_source, stopped=reason)
        _mark_subset(result, subset)
        if record:
            _save(result, run)
        if result.artifacts.not_recorded is None:
            run.say(f"[gate] {STOP_REASONS[reason][1]}; recorded {result.gate_id} with what ran")
        if stop is not None and stop() is not None:
            return result
        raise
    result = _result(run, t0, started, config_source)
    _keep_memo(run, result)
    _finish(result, cfg, baseline)
    _mark_subset(result, subset)
    if record:
        _save(result, run)
    return result


def _spend_cap(cfg: GateConfig) -> AbstractContextManager[None]:
    """``max_cost_usd``: every model call of the gate together, priced by its price table."""
    from spanproof.gate.estimate import spent_usd
    from spanproof.wire.spend import spend_cap

    if cfg.max_cost_usd is None:
        return nullcontext()
    before = spent_usd(cfg.prices)  # the process may have spent before this gate began
    return spend_cap(
        cfg.max_cost_usd,
        lambda: spent_usd(cfg.prices) - before,
        lambda model, prompt, completion: cfg.prices.price_for(model).usd(prompt, completion),
    )


def _mark_subset(result: GateResult, subset: Subset | None) -> None:
    """A subset's result: its left-out checks as NOT TESTED rows, and never a pass."""
    if subset is None:
        return
    result.subset = subset
    result.checks.extend(subset.rows())
    if result.exit_code == 0:
        result.exit_code = SUBSET_EXIT
    result.passed = False


def resolve_baseline(ref: str, home: Path, db: str | None = None) -> Baseline:
    """The baseline a REF names, in the store the gate records to (BaselineError otherwise)."""
    from spanproof.gate.baseline import resolve
    from spanproof.store import open_store
    from spanproof.store.provenance import git_branch

    return resolve(ref, store=open_store(home=home, db=db), branch=git_branch())


def _finish(result: GateResult, cfg: GateConfig, baseline: Baseline | None) -> None:
    """The branch gated; repeats' spreads, the comparison with the baseline and each row's
    power, on the rows."""
    from spanproof.bench import repeats
    from spanproof.gate import baseline as baselines
    from spanproof.store.provenance import git_branch

    result.git_branch = git_branch()
    repeats.annotate_rows(result.checks, result.artifacts.repeats)
    baselines.apply(result, cfg, baseline, _required(cfg))


def _save(result: GateResult, run: GateRun) -> None:
    """Record the result; a store that cannot take it (the database lost mid-run, a damaged
    file) leaves the result as JSON under the home, and the gate could not run: exit 2."""
    from spanproof.store.errors import StoreError

    try:
        GateStore.default(run.home, run.db).save(result, verdict_keys=_used_verdict_keys(run))
    except StoreError as exc:
        kept = keep_unrecorded(result, run.home, f"{type(exc).__name__}: {exc}")
        run.say(f"[gate] not recorded in the store ({type(exc).__name__})"
                + (f"; result kept in {kept}" if kept else ""))  # fmt: skip


def _used_verdict_keys(run: GateRun) -> set[str]:
    from spanproof.graders.cache import VerdictCache

    cache = run.verifier.cache if run.verifier else None
    used = set(cache.used_keys) if isinstance(cache, VerdictCache) else set()
    if run.memo is not None and run.memo.replayed:
        used |= set(run.memo.verdict_keys())  # a replayed figure rests on these too
    return used


def _keep_memo(run: GateRun, result: GateResult) -> None:
    """Keep this run's slow phases for a rerun with nothing changed: only a complete run,
    every phase measured (a phase that failed or a check that could not run is never kept)."""
    memo = run.memo
    if memo is None or run.failed_phase or run.debug:
        return
    if any(r.status == "error" for r in result.checks):
        return
    try:
        memo.save(result.gate_id, sorted(_used_verdict_keys(run)))
    except OSError as exc:  # a memo not written only costs a recomputation next time
        run.say(f"[gate] note: could not keep this run for replay: {exc}")
    # what the memo holds now, so the next run can tell it was not edited since
    result.artifacts.memo = memo.digests() or None
    if memo.note:
        run.say(f"[gate] note: {memo.note}")


async def _run_phases(run: GateRun) -> None:
    cfg, home, endpoint = run.cfg, run.home, run.endpoint
    enabled = set(cfg.checks)
    verifier = None
    judge = None

    with _Phase(
        run, "judge setup", ["calibration", "reviewed", "sensitivity", *AGENT_CHECKS, "injection"]
    ):
        from spanproof.agent.services import Services

        await warm_up(cfg)  # the slow start, off the loop: a signal still stops the gate
        parts = Services(home, run.db, endpoint, read_cached_verdicts=not _fresh_verdicts(run))
        judge = parts.judges([cfg.judge])[0]
        run.judge_ids = [judge.id]
        verifier = parts.verifier([judge], concurrency=cfg.concurrency)
        run.verifier = verifier
        run.judge = judge
        run.memo = _open_memo(run, judge)

    if verifier is not None:
        _say_cost_estimate(run)

    if enabled & {*AGENT_CHECKS, "usefulness"} and verifier is not None:
        scored = ["usefulness"] if (cfg.usefulness_model or cfg.model) else []
        with _Phase(run, "agent runs", [*AGENT_CHECKS, *scored]):
            if not _replay_agent_runs(run):
                await _agent_runs(run)
                if run.memo is not None:
                    run.memo.keep_agent_runs(run.records, [v.question_id for v in run.views],
                                             _allow_hosts(run.env))  # fmt: skip

    views, records = run.views, run.records
    if views:
        run.snapshot_text = _snapshot_reader(run.env, home)
        run.artifacts.groundedness = groundedness_artifact(views)
        run.artifacts.record_set(
            "groundedness", groundedness_set(Path(cfg.questions).name, views, run.questions)
        )
        for r in records:
            run.prompt_hashes.update({f"agent.{k}": v for k, v in r.prompt_hashes.items()})
        run.artifacts.cost = cost_artifact(records, views, cfg.prices)

    batched = [c for c in ("calibration", "reviewed", "sensitivity") if c in enabled]
    batch_jobs: list[Any] = []
    if cfg.judge_batch and batched and verifier is not None:
        with _Phase(run, "judge batch", batched):
            batch_jobs = await _judge_batch(run, batched)

    # Every declared check the same way, in the declared order: gather its input, measure,
    # hold each metric to its threshold. A check whose input cannot be gathered (or whose
    # input is empty) is an error row with the reason, never a pass.
    for check in declared_checks():
        if check.name not in enabled:
            continue
        if check.name != "usefulness" and verifier is None:
            continue  # the judge setup failed; its reason is each check's row
        if run.failed_phase.get(check.name, "").startswith("judge batch"):
            continue  # no verdicts to read; judging online instead would spend unasked
        dead = _dead_for(run, check.name)
        if dead:
            # Each call would fail the same way (or the results could not be kept): say why
            # instead of calling a dead endpoint phase after phase.
            run.failed_phase.setdefault(check.name, dead)
            continue
        with _Phase(run, check.name, [check.name]):
            if not _replay_check(run, check.name):
                memo = run.memo if check.name in REPLAYED_CHECKS else None
                before = run.artifacts.model_dump(mode="json") if memo else {}
                run.rows[check.name] = check.rows(await check.gather(run), cfg)
                if memo is not None:
                    memo.keep_check(check.name, run.rows[check.name],
                                        artifacts_patch(before, run.artifacts.model_dump(mode="json")))  # fmt: skip
    for job in batch_jobs:
        job.forget()  # its verdicts are in the cache now


def _fresh_verdicts(run: GateRun) -> bool:
    """``--fresh`` with a local judge recomputes every verdict too (a cached one would carry a
    figure nobody measured in this run); a model judge's cached verdicts are kept, each one
    was paid for and its key names the model and prompt."""
    from spanproof.graders.judges import check_judge_spec

    return run.setup.fresh and check_judge_spec(run.cfg.judge)[1].local


def _open_memo(run: GateRun, judge: Judge) -> GateMemo | None:
    """This gate's memo (spanproof/gate/memo.py), or None: never replayed, or not readable."""
    from spanproof.gate.memo import GateMemo

    try:
        memo = GateMemo.for_gate(run.cfg, judge, home=run.home, db=run.db, resolve=resolve,
                                 fresh=run.setup.fresh)  # fmt: skip
    except (OSError, ValueError) as exc:  # replay is an optimisation: without it, recompute
        run.say(f"[gate] note: replay unavailable ({_why(exc)}); recomputing")
        return None
    if memo is not None:
        from spanproof.store import open_store

        memo.check_origin(open_store(home=run.home, db=run.db))
        run.artifacts.memo_refused = memo.refused
    if memo is not None and memo.note:
        run.say(f"[gate] note: {memo.note}")
    return memo


def _replay_agent_runs(run: GateRun) -> bool:
    if run.memo is None:
        return False
    from spanproof.store import open_store

    replay = run.memo.agent_runs(open_store(home=run.home, db=run.db))
    if replay is None:
        if run.memo.note:
            run.say(f"[gate] note: {run.memo.note}")
        return False
    replayed, question_ids, allow = replay
    golden = load_questions(resolve(run.cfg.questions), run.cfg.max_questions)
    run.questions.update({q.id: q for q in golden})
    for record, qid in zip(replayed, question_ids, strict=True):
        run.records.append(record)
        run.views.append(view_from_record(record, question_id=qid, allow_hosts=allow))
    run.say(f"[gate]   replayed {len(run.records)} agent runs of gate "
         f"{run.memo.replayed['agent runs']} (nothing they read changed; --fresh reruns)")  # fmt: skip
    return True


def _replay_check(run: GateRun, name: str) -> bool:
    if run.memo is None or name not in REPLAYED_CHECKS:
        return False
    saved = run.memo.check(name)
    if saved is None:
        return False
    run.rows[name], patch = saved
    run.artifacts = apply_patch(run.artifacts, patch)
    run.say(f"[gate]   replayed {name} of gate {run.memo.replayed[name]} "
         "(nothing it reads changed; --fresh reruns)")  # fmt: skip
    return True


def _allow_hosts(env: WebEnv | None) -> list[str]:
    return env.allow_hosts if env is not None else []


def _models_of(cfg: GateConfig, check: str) -> set[str]:
    """The openai: model names a check calls (the deterministic agent checks call none)."""
    from spanproof.core.specs import SpecError, parse_named_spec

    if check in AGENT_CHECKS:
        return set()
    if check == "usefulness":
        specs = [cfg.usefulness_model or cfg.model]
    elif check == "injection":
        specs = [cfg.judge, cfg.model if cfg.policy == "llm" else None]
    else:
        specs = [cfg.judge]
    names = set()
    for spec in specs:
        try:
            parsed = parse_named_spec(spec).spec if spec else None
        except SpecError:
            continue
        if parsed is not None and parsed.kind == "openai" and parsed.name:
            names.add(parsed.name)
    return names


def _dead_for(run: GateRun, check: str) -> str | None:
    """Why ``check`` would fail before it starts: the store was lost, or a model it calls is
    behind an endpoint a finished phase proved dead."""
    if run.store_lost:
        return run.store_lost
    if check in AGENT_CHECKS:
        return None
    needed = _models_of(run.cfg, check)
    if run.cost_spent and needed:
        return f"the gate's model calls stopped in {run.cost_spent}"
    for model in sorted(needed & set(run.dead_models)):
        return f"the model endpoint was proved dead in {run.dead_models[model]}"
    if run.dead_endpoint and needed:
        return f"the model endpoint was proved dead in {run.dead_endpoint}"
    return None


def _result(
    run: GateRun, t0: float, started: str, config_source: str, *, stopped: str | None = None
) -> GateResult:
    cfg, views, records = run.cfg, run.views, run.records
    verifier = run.verifier
    if verifier is not None:
        run.model_calls += verifier.model_calls
        run.cache_hits += verifier.cache_hits
        for v in (verifier_prompt_hashes(verifier) or {}).items():
            run.prompt_hashes[v[0]] = v[1]

    rows: list[CheckRow] = []
    for name in cfg.checks:
        if name in run.failed_phase:
            rows.append(error_row(name, run.failed_phase[name]))
        elif stopped and name not in run.rows:
            rows.append(error_row(name, f"{STOP_REASONS[stopped][1]} before this check finished"))
        else:
            rows.extend(run.rows.get(name) or [error_row(name, "the check produced no result")])
    for r in rows:
        r.seconds = round(run.phase_seconds.get(r.check, 0.0), 3)
        errors = run.phase_errors.get(r.check)
        if errors and r.status != "error" and "judge errors" not in r.detail:
            r.detail += f"; {errors} judge error(s) included (counted as not SUPPORTED)"
    code = STOP_REASONS[stopped][0] if stopped else exit_code_for(rows, _required(cfg))
    result = GateResult(
        passed=code == 0,
        exit_code=code,
        checks=rows,
        wall_s=time.perf_counter() - t0,
        model_calls=run.model_calls,
        cache_hits=run.cache_hits,
        started_at=started,
        gate_id=str(uuid.uuid4()),
        config_source=config_source,
        config_sha256=cfg.sha256(),
        judge=cfg.judge,
        policy=cfg.policy,
        model=cfg.model,
        judge_ids=run.judge_ids,
        prompt_hashes=run.prompt_hashes,
        phase_seconds={k: round(v, 3) for k, v in run.phase_seconds.items()},
        phase_model_calls=run.phase_calls,
        run_ids=[v.run_id for v in views],
        ledgers=_ledgers(records, run.home),
        artifacts=run.artifacts,
    )
    from spanproof.wire import clients, totals

    if clients():
        wire = totals()
        result.artifacts.model_traffic = ModelTraffic(
            **wire.model_dump(),
            endpoints=[c.describe() for c in clients()],
            notices=[n for c in clients() for n in c.notices],
        )
    if stopped:
        result.artifacts.stopped = StopNote(reason=stopped, message=STOP_REASONS[stopped][1])
    if run.memo is not None and run.memo.replayed:
        result.artifacts.replayed = ReplayNote(
            phases=dict(run.memo.replayed),
            why="every input unchanged (code, versions, config, goldens, corpus, judge, "
            "store); spanproof gate --fresh recomputes",
        )
    if run.debug:
        result.artifacts.errors = [d[-2000:] for d in run.debug]
    return result


def _required(cfg: GateConfig) -> list[str]:
    req = list(cfg.required)
    # A configured rubric model that cannot be reached is a gate that could not run.
    if cfg.usefulness_model or cfg.model:
        req.append("usefulness")
    return req


def verifier_prompt_hashes(verifier: Verifier) -> dict[str, str]:
    out = {}
    for j in verifier.judges:
        # Only model judges have a prompt (the others' digest is of their code, or None).
        sha = j.prompt_sha256
        if sha:
            out[f"judge.{j.id}"] = sha
    return out


def _snapshot_reader(env: WebEnv | None, home: Path) -> Callable[[str], str]:
    store = env.store if env is not None else None
    if store is None:
        from spanproof.web.snapshots import SnapshotStore

        store = SnapshotStore(home / "snapshots")
    return store.text


def _ledgers(records: list[Any], home: Path) -> dict[str, str]:
    """Write each run's ledger as JSON under the home so reports can link to it."""
    from spanproof.core.files import write_atomic

    out: dict[str, str] = {}
    if not records:
        return out
    folder = home / "ledgers"
    folder.mkdir(parents=True, exist_ok=True)
    for r in records:
        path = folder / f"{r.run_id}.json"
        write_atomic(path, json.dumps([row.model_dump(mode="json") for row in r.ledger], indent=2))
        out[r.run_id] = str(path)
    return out


# ---------------------------------------------------------------------------
# Phases that call other parts of the product


async def _agent_runs(run: GateRun) -> None:
    """Answer the golden questions, ``runs_in_flight`` side by side (spanproof.core.side_by_side);
    fills the run's views, records and progress lines in question order as runs finish (so an
    interrupted gate still records every run that completed, and a dead endpoint stops them all
    with one cause)."""
    from spanproof.agent.run import run_question
    from spanproof.agent.services import Services

    from spanproof.bench.injection import stop_if_a_circuit_opened
    from spanproof.core.side_by_side import run_side_by_side

    cfg, home, verifier, endpoint = run.cfg, run.home, run.built_verifier(), run.endpoint
    qpath = resolve(cfg.questions)
    if not qpath.is_file():
        raise FileNotFoundError(
            f"golden questions {qpath} not found; set `questions` in the gate config"
        )
    golden = load_questions(qpath, cfg.max_questions)
    parts = Services(home, run.db, endpoint)
    # reading the corpus and its index takes seconds: off the loop, so a signal stops the gate
    env = await in_daemon_thread(
        lambda: parts.offline_web(Path(cfg.corpus_dir) if cfg.corpus_dir else None),
        name="spanproof-corpus",
    )
    store = parts.runs("gate")
    allow = env.allow_hosts
    run.env = env
    run.questions.update({q.id: q for q in golden})

    async def answer(_: int, q: GoldenQuestion) -> RunRecord:
        return await run_question(
            q.question, env=env, policy=cfg.policy, model=cfg.model, verifier=verifier, store=store,
            endpoint=endpoint,
        )  # fmt: skip

    def keep(i: int, record: RunRecord) -> None:
        q = golden[i]
        run.records.append(record)
        run.views.append(view_from_record(record, question_id=q.id, allow_hosts=allow))
        run.say(f"[gate]   {i + 1}/{len(golden)} {q.id}: {record.status}, "
             f"{record.metrics.claims_published} published, {record.metrics.claims_dropped} dropped")  # fmt: skip

    await run_side_by_side(golden, answer, in_flight=cfg.runs_at_once, on_done=keep,
                           check=stop_if_a_circuit_opened)  # fmt: skip


async def _judge_batch(run: GateRun, checks: Sequence[str]) -> list[Any]:
    """With ``judge_batch = true``: the pairs of the calibration, reviewed and sensitivity checks
    (every repeat) as one Batch API job per openai: judge (graders.batch_judge); the checks then
    read its verdicts through the verifier as usual (audited, cached). Returns the jobs to
    forget once done."""
    from spanproof.graders.batch_judge import judge_in_batch
    from spanproof.graders.judges import unwrap
    from spanproof.graders.openai_judge import OpenAIJudge

    from spanproof.bench.calibration import span_ref

    cfg, verifier = run.cfg, run.built_verifier()
    if not any(isinstance(unwrap(j), OpenAIJudge) for j in verifier.judges):
        raise ValueError(
            f"judge_batch = true sends an openai: judge's requests as a batch, and the judge is "
            f'{verifier.id}; set judge = "openai:MODEL" or judge_batch = false'
        )
    pairs = _judged_pairs(cfg, checks)
    summaries, jobs = await judge_in_batch(
        verifier, [(p.claim, span_ref(p), p.id) for p in pairs], state_dir=run.home,
        poll_s=cfg.batch_poll_s, say=lambda m: run.say(f"[gate] {m}"),
        repeats=cfg.repeat, max_output_mb=cfg.batch_max_output_mb,
    )  # fmt: skip
    run.artifacts.judge_batch = summaries
    return jobs


def _judged_pairs(cfg: GateConfig, checks: Sequence[str]) -> list[Any]:
    """The pairs the calibration, reviewed and sensitivity checks of ``checks`` judge (once)."""
    from spanproof.bench.pairs import load_pairs
    from spanproof.gate.checks.reviewed import reviewed_set_state

    pairs: list[Any] = []
    if "calibration" in checks:
        pairs += [p for p in load_pairs(resolve(cfg.calibration_set)) if p.label is not None]
    if "reviewed" in checks:
        path = resolve(cfg.reviewed_set)
        configured = "reviewed_set" in cfg.model_fields_set
        if reviewed_set_state(path, configured=configured) is None:
            pairs += load_pairs(path)
    if "sensitivity" in checks:
        sets = sensitivity_sets(cfg)
        pairs += sets.originals + [p.as_pair() for p in sets.planted]
    return pairs


def _say_cost_estimate(run: GateRun) -> None:
    """With a model that costs money, the most the gate may spend, before it spends any."""
    from spanproof.agent.prices import is_offline_model

    cfg = run.cfg
    if all(is_offline_model(m) for m in (cfg.model, cfg.judge, cfg.usefulness_model)):
        return  # offline: nothing costs money
    try:
        found = _estimate(cfg)
    except (OSError, ValueError) as exc:  # an input that cannot be read: its phase says so
        run.say(f"[gate] note: no cost estimate ({_why(exc)})")
        return
    run.artifacts.cost_estimate = found
    run.say(f"[gate] {found.line(cfg.max_cost_usd)}")


def _estimate(cfg: GateConfig) -> SpendEstimate:
    from spanproof.agent.prices import is_offline_model

    from spanproof.gate.estimate import estimate

    questions = len(load_questions(resolve(cfg.questions), cfg.max_questions))
    pages = 0
    if "injection" in cfg.checks:
        from spanproof.adversarial_fixtures.manifest import load_fixtures

        pages = len(load_fixtures(cfg.injection_fixtures))
    pairs = []
    if not is_offline_model(cfg.judge):
        pairs = [(p.claim, p.span) for p in _judged_pairs(cfg, cfg.checks)]
    return estimate(cfg, questions=questions, pages=pages, pairs=pairs)
