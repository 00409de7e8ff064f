"""The judges spanproof knows, found by name; each is declared where it is written.

A judge is declared by decorating the function that builds it::

    from spanproof.graders.judges import judge

    @judge("toy", summary="always PARTIAL", local=True, deterministic=True)
    def toy(argument: str, endpoint: EndpointSettings) -> Judge:
        return ToyJudge()

A spec names a judge as ``NAME`` or ``NAME:ARGUMENT`` (``spanproof.core.specs`` reads the form,
and knows no judge); this registry says whether NAME is a judge and whether it takes an
argument. ``LABEL=SPEC`` gives the judge a name of its own (``t5=scripted:t5.jsonl``): the
judge built is a ``NamedJudge``, whose ``id`` (what verdicts, tables, files and pages say) is
the name, while the verdict cache keys on the spec, so renaming a judge costs no model call.
The built-in judges are the modules of this package (one module a judge); another
distribution adds its own through the entry-point group ``spanproof.judges``, each entry point
naming a module (or an object in one) whose import declares judges.

``local``: the judge computes on this machine with no model server, so large files spread it
over one worker process per core. ``deterministic``: the same pair always gets the same
verdict, so the gate may replay its figures when nothing else changed.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

from spanproof.graders.errors import JudgeConfigError

from spanproof.core.specs import EndpointSettings, ModelSpec, SpecError, parse_named_spec
from spanproof.core.verdict import Judge, JudgeBase, SpanRef, Verdict

ENTRY_POINT_GROUP = "spanproof.judges"

JudgeFactory = Callable[[str, EndpointSettings], Judge]


@dataclass(frozen=True)
class JudgeKind:
    """One declared judge: how to build it and what the runtime may assume of it."""

    name: str
    build: JudgeFactory  # (the spec's argument, "" when none; the endpoint settings)
    summary: str
    argument: str | None  # how help writes the argument ("<model>"); None: takes none
    local: bool
    deterministic: bool

    @property
    def usage(self) -> str:
        return self.name if self.argument is None else f"{self.name}:{self.argument}"


_KINDS: dict[str, JudgeKind] = {}
_PLUGIN_ERRORS: list[str] = []
_builtins_loaded = False
_plugins_loaded = False


def judge(
    name: str,
    *,
    summary: str,
    local: bool,
    deterministic: bool,
    argument: str | None = None,
) -> Callable[[JudgeFactory], JudgeFactory]:
    """Declare the function below as the factory of the judge called ``name``."""
    if not name or ":" in name or "=" in name or name != name.strip():
        raise JudgeConfigError(f"{name!r} cannot name a judge: use letters, digits, - and _.")

    def register(factory: JudgeFactory) -> JudgeFactory:
        known = _KINDS.get(name)
        if known is not None and known.build is not factory:
            raise JudgeConfigError(
                f"two judges are declared as {name!r} ({_where(known.build)} and "
                f"{_where(factory)}): rename one."
            )
        _KINDS[name] = JudgeKind(name, factory, summary, argument, local, deterministic)
        return factory

    return register


def _where(factory: JudgeFactory) -> str:
    # a factory is any callable (a partial or a class instance has no __qualname__)
    return f"{factory.__module__}.{getattr(factory, '__qualname__', factory)}"


def _load_builtins() -> None:
    global _builtins_loaded
    if _builtins_loaded:
        return
    _builtins_loaded = True
    package = importlib.import_module(__package__ or "spanproof.graders.judges")
    for info in pkgutil.iter_modules(package.__path__):
        if info.name != "registry":
            importlib.import_module(f"{package.__name__}.{info.name}")


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            point.load()
        except Exception as exc:  # named wherever judges are listed, never skipped silently
            _PLUGIN_ERRORS.append(
                f"the judge plug-in {point.name!r} ({point.value}) failed to load: "
                f"{type(exc).__name__}: {exc}"
            )


def judge_kinds() -> list[JudgeKind]:
    """Every judge declared here and by the installed plug-ins that load, by name."""
    _load_builtins()
    _load_plugins()
    return sorted(_KINDS.values(), key=lambda k: k.name)


def judge_usage() -> str:
    """The judge specs, for help text: ``blind | openai:<model> | rules | scripted:<path>``."""
    return " | ".join(k.usage for k in judge_kinds())


def _closest(name: str) -> str:
    # a typo ("rule", "scripted" spelt "script") is the commonest cause: name the judge meant
    near = difflib.get_close_matches(name, list(_KINDS), n=1, cutoff=0.6)
    return f" Did you mean {near[0]!r}?" if near else ""


def _what_to_write() -> str:
    """What an unknown-judge error teaches: each judge with what it is, how to name one, and
    how a judge that is not here is added (so the list is not mistaken for the only choices)."""
    kinds = "; ".join(f"{k.usage} — {k.summary}" for k in judge_kinds())
    return (
        f"Judges are: {kinds}. Name one in tables and files with NAME=SPEC "
        f"(t5=scripted:t5.jsonl); a judge of another kind is added by a plug-in "
        f"declaring it in the entry-point group {ENTRY_POINT_GROUP!r}."
    )


def judge_kind(name: str) -> JudgeKind:
    """The judge declared as ``name``; SpecError listing the judges when none is (and any
    plug-in that failed to load: it may be the one meant)."""
    _load_builtins()
    if name not in _KINDS:
        _load_plugins()
    kind = _KINDS.get(name)
    if kind is None:
        broken = "".join(
            f" Also, {e}: reinstall or uninstall the distribution that declares it."
            for e in _PLUGIN_ERRORS
        )
        raise SpecError(f"{name!r} is not a judge.{_closest(name)} {_what_to_write()}{broken}")
    return kind


def check_judge_spec(spec: str | ModelSpec) -> tuple[ModelSpec, JudgeKind]:
    """The spec parsed (without the name ``NAME=`` gives it) and the judge it names, or
    SpecError saying how to write it."""
    ms = spec if isinstance(spec, ModelSpec) else parse_named_spec(spec).spec
    kind = judge_kind(ms.kind)
    if kind.argument is not None and not ms.name:
        raise SpecError(f"the {kind.name} judge needs an argument: write {kind.usage}.")
    if kind.argument is None and ms.name:
        raise SpecError(f"the {kind.name} judge takes no argument: write {kind.name}.")
    return ms, kind


def make_judge(spec: str | ModelSpec, *, endpoint: EndpointSettings | None = None) -> Judge:
    """Build the judge a spec names (a ``NamedJudge`` for ``NAME=SPEC``). Raises SpecError for
    a spec that names no judge."""
    name = None if isinstance(spec, ModelSpec) else parse_named_spec(spec).name
    ms, kind = check_judge_spec(spec)
    built = kind.build(ms.name, endpoint or EndpointSettings())
    return built if name is None else NamedJudge(name, built)


class NamedJudge(JudgeBase):
    """A judge under the name its user gave it: ``id`` is the name (verdicts, tables and pages
    say it), ``spec`` the spec it was built from (the verdict cache and anything that reads
    what kind of judge it is use that, through ``spec_of`` and ``unwrap``)."""

    def __init__(self, name: str, inner: Judge) -> None:
        self.id = name
        self.inner = inner
        self.spec = inner.id
        self.model_id = inner.model_id
        self.prompt_sha256 = inner.prompt_sha256
        self.endpoint = inner.endpoint
        self.code_version = inner.code_version

    async def judge(self, claim: str, span: SpanRef) -> Verdict:
        verdict = await self.inner.judge(claim, span)
        return verdict.model_copy(update={"judge": self.id})


def unwrap(judge: Judge) -> Judge:
    """The judge itself, whatever name it was given (to ask what kind of judge it is)."""
    return judge.inner if isinstance(judge, NamedJudge) else judge


def spec_of(judge: Judge) -> str:
    """The spec a judge was built from, whatever name it was given."""
    return unwrap(judge).id
