"""The viewer as an ASGI app: server-rendered pages over `ViewData`, no scripts at all."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, select_autoescape
from pydantic import ValidationError
from spanproof.agent.record import RunRecord
from spanproof.graders.review_queue import review_order
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from spanproof.view import gates as gate_views
from spanproof.view.data import (
    KIND_LABELS,
    MIX_LABELS,
    POLICIES,
    RUN_STATUSES,
    RunQuery,
    SnapshotMissing,
    ViewData,
)
from spanproof.view.decide import DecisionRefused, claim_of, decide
from spanproof.view.reviews import CUT_CHOICES, DECISIONS, in_force, latest_by_claim
from spanproof.view.security import CSRF_FIELD, CsrfRefused, Guard, check_csrf, new_csrf_token
from spanproof.view.settings import ViewSettings
from spanproof.view.spans import DEFAULT_CONTEXT, span_context

if TYPE_CHECKING:
    from spanproof.agent.record import LedgerRow
    from spanproof.agent.services import Services
    from spanproof.graders.cache import VerdictCache
    from spanproof.graders.verify import Verifier
    from starlette.datastructures import FormData

    from spanproof.core.verdict import Verdict
    from spanproof.gate.result import GateResult
    from spanproof.view.judges import Show, SideBySide

REVIEWER_COOKIE = "spanproof_reviewer"


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.0%}"


def _num(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.3f}"
    return str(x)


def _signed(x: float | None) -> str:
    return "" if x is None else f"{x:+.3f}"


def _when(x: object) -> str:
    """A stored time as ISO 8601 UTC (the store keeps naive UTC datetimes)."""
    if x is None:
        return "-"
    if isinstance(x, datetime):
        text = x.isoformat(timespec="seconds")
        return text + "Z" if x.tzinfo is None else text
    return str(x)


async def _posted_form(request: Request, ctx: ViewContext) -> FormData | Response:
    """The posted form, or the 403 to answer when its CSRF token is not this server's."""
    form = await request.form()
    try:
        check_csrf(_form_text(form, CSRF_FIELD), ctx.csrf_token)
    except CsrfRefused as exc:
        return PlainTextResponse(str(exc), status_code=403)
    return form


def _form_text(form: FormData, name: str) -> str | None:
    """A text field of a posted form (a file posted under its name is no text: None)."""
    value = form.get(name)
    return value if isinstance(value, str) else None


class ViewContext:
    """What every handler shares: settings, data, templates, the CSRF token, verifiers."""

    def __init__(self, settings: ViewSettings, data: ViewData | None = None):
        from spanproof.core.specs import EndpointSettings
        from spanproof.view.judges import shipped_calibration_set

        self.settings = settings
        self.data = data or ViewData(settings.home, settings.db)
        self.csrf_token = new_csrf_token()
        self.endpoint = EndpointSettings(base_url=settings.base_url, api_key=settings.api_key)
        sets = settings.sets or [shipped_calibration_set()]
        self.sets: dict[str, Path] = {Path(p).stem: Path(p) for p in sets}
        self._verifiers: dict[tuple[str, ...], Verifier] = {}
        self._services: Services | None = None
        self._side_by_side: dict[tuple[str, tuple[str, ...]], SideBySide] = {}
        self._side_by_side_errors: dict[tuple[str, tuple[str, ...]], str] = {}
        self.env = Environment(
            loader=PackageLoader("spanproof.view", "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters.update(pct=_pct, num=_num, signed=_signed, when=_when)
        self.env.globals.update(csrf_field=CSRF_FIELD)

    @property
    def services(self) -> Services:
        """The viewer's parts over its store (the store's shared verdict cache)."""
        if self._services is None:
            from spanproof.agent.services import Services

            self._services = Services(self.data.home, endpoint=self.endpoint,
                                      opened=self.data.store)  # fmt: skip
        return self._services

    @property
    def cache(self) -> VerdictCache | None:
        return self.services.cache

    def verifier_for(self, record: RunRecord) -> Verifier:
        """The run's own judges (its config), through the home's verdict cache."""
        specs = tuple(record.config.judges or ["rules"])
        if specs not in self._verifiers:
            self._verifiers[specs] = self.services.verifier(specs)
        return self._verifiers[specs]

    def render(
        self, request: Request, name: str, status_code: int = 200, **values: Any
    ) -> HTMLResponse:
        values.setdefault(
            "reviewer", request.cookies.get(REVIEWER_COOKIE) or self.settings.reviewer
        )
        body = self.env.get_template(name).render(
            request=request, csrf_token=self.csrf_token, nav=name.split(".")[0], **values
        )
        return HTMLResponse(body, status_code=status_code)


def _not_found(ctx: ViewContext, request: Request, what: str) -> HTMLResponse:
    return ctx.render(request, "error.html", status_code=404, title="Not found", message=what)


# --- runs -----------------------------------------------------------------------------------


# Beyond any real store (an offset past 2**63 overflows the database's integer); a page past
# the last one shows the last one.
MAX_PAGE = 1_000_000


def _page_number(request: Request) -> int:
    try:
        return min(MAX_PAGE, max(1, int(request.query_params.get("page", "1"))))
    except ValueError:
        return 1


class Paging:
    def __init__(self, total: int, page: int, per_page: int):
        self.total, self.page, self.per_page = total, page, per_page
        self.pages = max(1, -(-total // per_page))


def runs_list(request: Request) -> Response:
    ctx: ViewContext = request.app.state.ctx
    raw = {k: request.query_params.get(k, "") for k in RunQuery.model_fields}
    try:
        f = RunQuery(**raw)
        error = None
    except ValidationError as exc:
        f, error = (
            RunQuery(),
            "; ".join(f"{e['loc'][0]}: {e['msg']}" for e in exc.errors(include_url=False)),
        )
    number = _page_number(request)
    result = ctx.data.list_runs(f, number, ctx.settings.per_page)
    last = Paging(result.total, number, ctx.settings.per_page).pages
    if number > last:
        number = last
        result = ctx.data.list_runs(f, number, ctx.settings.per_page)
    query = {k: v for k, v in f.model_dump().items() if v}

    def page_link(n: int) -> str:
        return "/runs?" + urlencode({**query, "page": n})

    recent = ctx.data.list_runs(RunQuery(), 1, 200).items
    return ctx.render(
        request,
        "runs.html",
        title="Runs",
        filter=f,
        error=error,
        rows=result.items,
        page=Paging(result.total, number, ctx.settings.per_page),
        page_link=page_link,
        kinds=KIND_LABELS,
        statuses=RUN_STATUSES,
        policies=POLICIES,
        mixes=MIX_LABELS,
        models=sorted({r.model for r in recent if r.model}),
    )


def _load_run(ctx: ViewContext, run_id: str) -> RunRecord | None:
    try:
        return ctx.data.run(run_id)
    except KeyError:  # RunNotFound is one
        return None


def run_page(request: Request) -> Response:
    ctx: ViewContext = request.app.state.ctx
    record = _load_run(ctx, request.path_params["run_id"])
    if record is None:
        return _not_found(ctx, request, f"No run {request.path_params['run_id']!r} in this store.")
    return _run_response(ctx, request, record, signed=request.query_params.get("signed"))


def _run_response(
    ctx: ViewContext, request: Request, record: RunRecord, status_code: int = 200, **extra: Any
) -> Response:
    from spanproof.agent.ledger import citation_numbers, reviewed_answer
    from spanproof.agent.signoff import sign_off

    reviews = ctx.data.reviews_for(record.run_id)
    m = record.metrics
    b = record.config.budgets
    used = {
        "searches": (m.searches, b.searches),
        "fetches": (m.fetches, b.fetches),
        "tool calls": (m.tool_calls, b.tool_calls),
        "spans": (m.spans, b.spans),
        "tokens": (
            sum(u.prompt_tokens + u.completion_tokens for u in m.tokens_by_model.values()),
            b.tokens,
        ),
    }
    refusals = [e for e in record.egress if e.decision == "refused"]
    shown = reviewed_answer(record, reviews)
    claims = shown.answer.claims
    return ctx.render(
        request,
        "run.html",
        status_code=status_code,
        title=record.question,
        # the answer and ledger as a reader now sees them: accepted edits and cuts applied
        record=shown,
        number=citation_numbers(record),
        # the ledger in review order: code's proofs, then flags, then the judge's confidence
        queue=[claims[i] for i in review_order([c.verdict for c in claims])],
        latest=latest_by_claim(reviews),
        reviews=reviews,
        standing=sign_off(record, reviews, ctx.data.signatures_for(record.run_id)),
        budget=used,
        refusals=refusals,
        **extra,
    )


async def sign_run(request: Request) -> Response:
    """A reviewer signs the run's brief, when the ledger's acceptance rule allows it."""
    from spanproof.agent.signoff import SignRefused

    ctx: ViewContext = request.app.state.ctx
    form = await _posted_form(request, ctx)
    if isinstance(form, Response):
        return form
    record = await run_in_threadpool(_load_run, ctx, request.path_params["run_id"])
    if record is None:
        return _not_found(ctx, request, "No such run.")
    reviewer = str(form.get("reviewer", "")).strip()
    try:
        await run_in_threadpool(ctx.data.sign, record, reviewer)
    except (SignRefused, ValidationError) as exc:
        return _run_response(ctx, request, record, status_code=422, sign_refused=str(exc))
    response = RedirectResponse(f"/runs/{record.run_id}?signed=1#signoff", status_code=303)
    response.set_cookie(REVIEWER_COOKIE, reviewer, httponly=True, samesite="strict", path="/")
    return response


def _judges_of(verdict: Verdict) -> list[str]:
    if verdict.panel:
        return [f"{v.judge}: {v.verdict}" for v in verdict.panel]
    return [verdict.judge or "-"]


def _claim_view(
    ctx: ViewContext, record: RunRecord, claim_index: int, context: int
) -> dict[str, Any]:
    claim = claim_of(record, claim_index)
    verdict_by_span = {
        pv.span_id: pv.verdict for pv in record.verdicts if pv.claim_index == claim_index
    }
    ordered = [claim.supporting_span_id] if claim.supporting_span_id else []
    ordered += [s for s in claim.span_ids if s not in ordered]
    rechecks: dict[str, Any] = {}
    for r in ctx.data.rechecks_for(record.run_id):
        rechecks[r.span_id] = r  # oldest first: the latest recheck of each span wins
    spans = []
    for sid in ordered:
        span = record.span(sid)
        if span is None:
            spans.append({"span_id": sid, "missing": "this span id is not in the run record"})
            continue
        verdict = verdict_by_span.get(sid) or (
            claim.verdict if sid == claim.supporting_span_id else None
        )
        doc = record.document(span.doc_id)
        item: dict[str, Any] = {
            "span_id": sid,
            "span": span,
            "doc": doc,
            "verdict": verdict,
            "supporting": sid == claim.supporting_span_id,
            "recheck": rechecks.get(sid),
        }
        try:
            item["ctx"] = span_context(
                ctx.data.snapshot_text(span.doc_id),
                span,
                verdict.quote_used if verdict else None,
                context,
            )
        except SnapshotMissing as exc:
            item["missing"] = exc.args[0]
        except ValueError as exc:
            item["missing"] = str(exc)
        spans.append(item)
    return {"claim": claim, "spans": spans, "judges": _judges_of(claim.verdict)}


def _context_param(request: Request) -> int:
    try:
        return int(request.query_params.get("context", DEFAULT_CONTEXT))
    except ValueError:
        return DEFAULT_CONTEXT


def _claim_response(
    ctx: ViewContext,
    request: Request,
    record: RunRecord,
    claim_index: int,
    status_code: int = 200,
    **extra: Any,
) -> Response:
    from spanproof.agent.ledger import citation_numbers, reviewed_answer

    all_reviews = ctx.data.reviews_for(record.run_id)
    # the claim as a reader now sees it: an accepted edit's wording is the claim's
    record = reviewed_answer(record, all_reviews)
    try:
        view = _claim_view(ctx, record, claim_index, _context_param(request))
    except KeyError:
        return _not_found(ctx, request, f"Run {record.run_id} has no claim {claim_index}.")
    number = citation_numbers(record).get(claim_index)
    reviews = [r for r in all_reviews if r.claim_index == claim_index]
    in_force_now = [r for r in reviews if in_force(r)]
    return ctx.render(
        request,
        "claim.html",
        status_code=status_code,
        # named as the answer cites it; a dropped claim has no number in the answer
        title=f"Claim [{number}] of {record.run_id}"
        if number
        else f"Dropped claim of {record.run_id}",
        number=number,
        record=record,
        reviews=reviews,
        latest=in_force_now[-1] if in_force_now else None,
        decisions=DECISIONS,
        cut_choices=CUT_CHOICES,
        done=request.query_params.get("done"),
        context=_context_param(request),
        **view,
        **extra,
    )


def _claim_index(request: Request) -> int | None:
    try:
        return int(request.path_params["claim_index"])
    except ValueError:
        return None


def claim_page(request: Request) -> Response:
    ctx: ViewContext = request.app.state.ctx
    record = _load_run(ctx, request.path_params["run_id"])
    idx = _claim_index(request)
    if record is None or idx is None:
        return _not_found(ctx, request, "No such run or claim.")
    return _claim_response(ctx, request, record, idx)


async def review_claim(request: Request) -> Response:
    ctx: ViewContext = request.app.state.ctx
    form = await _posted_form(request, ctx)
    if isinstance(form, Response):
        return form
    record = await run_in_threadpool(_load_run, ctx, request.path_params["run_id"])
    idx = _claim_index(request)
    if record is None or idx is None:
        return _not_found(ctx, request, "No such run or claim.")
    decision = str(form.get("decision", ""))
    reviewer = str(form.get("reviewer", "")).strip()
    note = str(form.get("note", ""))
    edited = str(form.get("edited_text", "")) if decision in ("edit", "refused") else None
    cut_reason = str(form.get("cut_reason", "")) or None
    try:
        review = await decide(
            record, idx, decision,
            reviewer=reviewer, note=note, edited_text=edited, cut_reason=cut_reason,
            verifier_for=ctx.verifier_for, snapshots=ctx.data,
        )  # fmt: skip
        stored = await run_in_threadpool(ctx.data.add_review, review)
    except (DecisionRefused, ValidationError) as exc:
        message = (
            str(exc)
            if isinstance(exc, DecisionRefused)
            else "; ".join(e["msg"] for e in exc.errors(include_url=False))
        )
        return _claim_response(
            ctx, request, record, idx, status_code=422,
            refused=message,
            refused_verdict=exc.verdict if isinstance(exc, DecisionRefused) else None,
            refused_keepable=isinstance(exc, DecisionRefused) and exc.keepable,
            refused_decision=decision,
            edited_text=edited or "", note_text=note, reviewer=reviewer or None,
        )  # fmt: skip
    target = f"/runs/{record.run_id}/claims/{idx}?done={stored.decision}#review"
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(REVIEWER_COOKIE, reviewer, httponly=True, samesite="strict", path="/")
    return response


def _ledger_rows(ctx: ViewContext, record: RunRecord) -> list[LedgerRow]:
    """The ledger as exported: reviewer decisions and the signature in force on each row."""
    from spanproof.agent.signoff import signed_ledger

    rows, _ = signed_ledger(
        record, ctx.data.reviews_for(record.run_id), ctx.data.signatures_for(record.run_id)
    )
    return rows


def ledger_json(request: Request) -> Response:
    ctx: ViewContext = request.app.state.ctx
    record = _load_run(ctx, request.path_params["run_id"])
    if record is None:
        return _not_found(ctx, request, "No such run.")
    rows = [r.model_dump(mode="json") for r in _ledger_rows(ctx, record)]
    return JSONResponse(
        rows,
        headers={"content-disposition": f'attachment; filename="{record.run_id}.ledger.json"'},
    )


def ledger_markdown(request: Request) -> Response:
    from spanproof.agent.ledger import ledger_markdown as render
    from spanproof.agent.ledger import signature_line

    ctx: ViewContext = request.app.state.ctx
    record = _load_run(ctx, request.path_params["run_id"])
    if record is None:
        return _not_found(ctx, request, "No such run.")
    rows = _ledger_rows(ctx, record)
    signed = signature_line(rows) or "_Not signed._"
    return PlainTextResponse(
        f"{signed}\n\n{render(record, rows=rows)}\n",
        media_type="text/markdown; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{record.run_id}.ledger.md"'},
    )


# --- gate results -----------------------------------------------------------------------------


def gates_list(request: Request) -> Response:
    ctx: ViewContext = request.app.state.ctx
    return ctx.render(request, "gates.html", title="Gate results", gates=ctx.data.gate_results(),
                      runners=ctx.data.gate_runners())  # fmt: skip


def _load_gate(ctx: ViewContext, gate_id: str) -> GateResult | None:
    try:
        return ctx.data.gate(gate_id)
    except KeyError:
        return None


def gate_page(request: Request) -> Response:
    ctx: ViewContext = request.app.state.ctx
    result = _load_gate(ctx, request.path_params["gate_id"])
    if result is None:
        return _not_found(ctx, request, f"No gate result {request.path_params['gate_id']!r}.")
    from spanproof.reports.markdown import verdict_line

    return ctx.render(
        request,
        "gate.html",
        title=f"Gate {result.gate_id}",
        result=result,
        verdict=verdict_line(result),
        figures=gate_views.figures(result),
        sensitivity=gate_views.sensitivity_kinds(result),
        confusions=gate_views.confusions(result),
        injection=gate_views.injection_rows(result),
        injection_failing=(
            result.artifacts.injection.failing_pages if result.artifacts.injection else {}
        ),
        sens=result.artifacts.sensitivity,
        moved_by_row={c.row: c.moved for c in result.artifacts.baseline.rows}
        if result.artifacts.baseline
        else {},
    )


def gate_calibration(request: Request) -> Response:
    ctx: ViewContext = request.app.state.ctx
    result = _load_gate(ctx, request.path_params["gate_id"])
    if result is None:
        return _not_found(ctx, request, "No such gate result.")
    q = request.query_params
    judge = q.get("judge") or (result.judge_ids[0] if result.judge_ids else "")
    items = gate_views.calibration_items(
        result, judge, q.get("gold") or None, q.get("verdict") or None
    )
    return ctx.render(
        request,
        "gate_calibration.html",
        title=f"Calibration pairs of {result.gate_id}",
        result=result,
        judge=judge,
        gold=q.get("gold"),
        verdict=q.get("verdict"),
        items=items,
        recorded=gate_views.has_calibration_items(result, judge),
    )


def gates_compare(request: Request) -> Response:
    ctx: ViewContext = request.app.state.ctx
    a_id, b_id = request.query_params.get("a", ""), request.query_params.get("b", "")
    a, b = _load_gate(ctx, a_id), _load_gate(ctx, b_id)
    if a is None or b is None:
        return _not_found(ctx, request, "Pick two stored gate results to compare (a= and b=).")
    moves = gate_views.compare_checks(a, b)
    return ctx.render(
        request,
        "compare.html",
        title="Two gate results side by side",
        a=a,
        b=b,
        moves=moves,
        moved=sum(m.moved for m in moves),
        kinds=gate_views.compare_sensitivity(a, b),
        show_all=request.query_params.get("all") == "1",
    )


# --- judges ------------------------------------------------------------------------------------


def _judges_choice(ctx: ViewContext, params: Any) -> tuple[str, list[str], Show] | None:
    """(set, judges, show) from a query or a form, or None when it names anything the viewer
    was not started with (a URL never names a file to read or a model to call)."""
    from spanproof.view.judges import SHOW_LABELS

    set_name = str(params.get("set") or next(iter(ctx.sets)))
    chosen = [str(j) for j in params.getlist("judge")] or list(ctx.settings.judges)
    asked = str(params.get("show") or "all")
    show = next((s for s in SHOW_LABELS if s == asked), None)
    if (
        set_name not in ctx.sets
        or any(j not in ctx.settings.judges for j in chosen)
        or show is None
    ):
        return None
    return set_name, chosen, show


def _not_offered(ctx: ViewContext, request: Request) -> Response:
    return ctx.render(
        request, "error.html", status_code=400, title="Not offered",
        message="Only the sets and judges `spanproof view` was started with can be run here "
        f"(sets: {', '.join(ctx.sets)}; judges: {', '.join(ctx.settings.judges)}). "
        "Start it with --set FILE and --judge SPEC to add more.",
    )  # fmt: skip


async def judges_page(request: Request) -> Response:
    """What the judges said on a set. A GET never runs a judge (any web page can make a browser
    send one: an <img> pointing here must not spend model calls); it shows the verdicts this
    viewer already has or the verdict cache holds for every pair, else the button that runs
    them (a POST with the CSRF token)."""
    from spanproof.view.judges import SHOW_LABELS, all_cached, side_by_side

    ctx: ViewContext = request.app.state.ctx
    choice = _judges_choice(ctx, request.query_params)
    if choice is None:
        return _not_offered(ctx, request)
    set_name, chosen, show = choice
    key = (set_name, tuple(chosen))
    path = ctx.sets[set_name]
    if key not in ctx._side_by_side and await run_in_threadpool(
        all_cached, path, chosen, services=ctx.services
    ):
        # every verdict is cached: reading them calls no judge
        ctx._side_by_side[key] = await side_by_side(path, chosen, services=ctx.services)
    table = ctx._side_by_side.get(key)
    rows = [r for r in table.rows if r.shown(show)] if table else []
    from spanproof.view.judge_pairs import describe, paired

    return ctx.render(
        request,
        "judges.html",
        title="Judges side by side",
        sets=list(ctx.sets),
        set_name=set_name,
        offered=ctx.settings.judges,
        chosen=chosen,
        show=show,
        shows=SHOW_LABELS,
        table=table,
        rows=rows,
        error=ctx._side_by_side_errors.get((set_name, tuple(chosen))),
        comparisons=paired(table) if table else [],
        describe=describe,
    )


async def run_judges(request: Request) -> Response:
    """Judge the chosen set with the chosen judges (model calls happen here only), then show it."""
    from urllib.parse import urlencode

    from spanproof.graders.errors import JudgeConfigError

    from spanproof.core.specs import SpecError
    from spanproof.view.judges import side_by_side

    ctx: ViewContext = request.app.state.ctx
    form = await _posted_form(request, ctx)
    if isinstance(form, Response):
        return form
    choice = _judges_choice(ctx, form)
    if choice is None:
        return _not_offered(ctx, request)
    set_name, chosen, show = choice
    key = (set_name, tuple(chosen))
    if key not in ctx._side_by_side:
        try:
            ctx._side_by_side[key] = await side_by_side(
                ctx.sets[set_name], chosen, services=ctx.services
            )
            ctx._side_by_side_errors.pop(key, None)
        except (SpecError, JudgeConfigError, ValueError, OSError) as exc:
            ctx._side_by_side_errors[key] = f"could not judge {set_name}: {exc}"
    query = urlencode([("set", set_name), *(("judge", j) for j in chosen), ("show", show)])
    return RedirectResponse(f"/judges?{query}", status_code=303)


def index(request: Request) -> Response:
    return RedirectResponse("/runs", status_code=303)


def create_app(settings: ViewSettings, data: ViewData | None = None) -> Starlette:
    ctx = ViewContext(settings, data)
    static = Path(__file__).parent / "static"
    app = Starlette(
        routes=[
            Route("/", index),
            Route("/runs", runs_list),
            Route("/runs/{run_id}", run_page),
            Route("/runs/{run_id}/ledger.json", ledger_json),
            Route("/runs/{run_id}/ledger.md", ledger_markdown),
            Route("/runs/{run_id}/sign", sign_run, methods=["POST"]),
            Route("/runs/{run_id}/claims/{claim_index}", claim_page),
            Route("/runs/{run_id}/claims/{claim_index}/review", review_claim, methods=["POST"]),
            Route("/gates", gates_list),
            Route("/gates/compare", gates_compare),
            Route("/gates/{gate_id}", gate_page),
            Route("/gates/{gate_id}/calibration", gate_calibration),
            Route("/judges", judges_page),
            Route("/judges/run", run_judges, methods=["POST"]),
            Mount("/static", StaticFiles(directory=static), name="static"),
        ]
    )
    app.state.ctx = ctx
    app.add_middleware(Guard, allowed_hosts=settings.allowed_hosts(), token=settings.token)
    return app


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)
