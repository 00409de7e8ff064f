"""The gate's slow phases replayed when nothing they read has changed.

An offline gate is deterministic: the extractive agent, a local judge (rules, blind,
scripted) and the shipped inputs give the same runs, verdicts and figures every time. So a
rerun with nothing changed replays the phases that take the time — the agent runs, and the
calibration, sensitivity and injection checks — from the last complete gate run in this home,
and still runs every check over the replayed runs.

What "nothing changed" means is one key, the sha256 of everything a figure can depend on:

- the code and data of every spanproof package as installed (every file: modules, prompts,
  lexicons, the judge's parameters, goldens, corpus, injection fixtures);
- the Python version, the platform, and the name and version of every installed
  distribution (a new pysbd or numpy is a new key);
- the installed files of every distribution the packages that compute a figure import, and
  of those distributions' requirements (``spanproof.core.digest.dependency_digest``): a
  dependency patched in place, its version unchanged, is a new key;
- the gate config (``GateConfig.sha256``: judge, policy, model, thresholds, limits, paths);
- the bytes of every file and folder the config points at (questions, calibration and
  sensitivity sets, a corpus or fixture folder elsewhere, a scripted judge's file), and of
  the WiCE pages file ``$SPANPROOF_WICE_DEV`` names;
- the judge as the verdict cache knows it (id, model, prompt and code version);
- the store the runs are recorded in (``--db``).

A memo is a file in the home anyone can edit, so it is trusted only when it agrees with the
store: every phase it holds must have the sha256 that the gate run it names recorded for it
(``artifacts.memo`` of that run's stored result). A phase edited by hand, a run no longer in the
store, a result recorded before phases were digested: nothing is replayed, every phase is
recomputed, and the gate says why (``artifacts.memo_refused``).

Replay is for deterministic gates only: a model judge, the llm policy or a rubric model is
never replayed (a model behind the same name can change). Anything else fails closed, to a
recomputation: a memo of another key, a damaged file, a run record or a page snapshot that is
no longer in the store, a phase that failed or was interrupted (never written), a module
loaded from outside the hashed folders (never written). ``spanproof gate --fresh`` recomputes
everything. The gate result names what it replayed and the gate run that computed it
(``artifacts.replayed``), and the progress lines say so.
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spanproof.core.digest import dependency_digest
from spanproof.core.verdict import Judge
from spanproof.gate.rows import CheckRow

if TYPE_CHECKING:
    from spanproof.gate.artifacts import GateArtifacts
    from spanproof.gate.config import GateConfig

FORMAT = 3
FOLDER = "gate-memo"
KEEP = 4  # memo files kept per home (the newest)
# The checks whose work is replayed (the agent checks are recomputed from replayed runs).
REPLAYED_CHECKS = ("calibration", "reviewed", "sensitivity", "injection")
# Every package of the spanproof namespace (its top-level subpackages; nested ones lie inside
# them). Named one by one: the namespace's own search path depends on the working directory in
# an editable install, so hashing "spanproof" would cover different folders from different
# directories (tests/gate/test_gate_memo.py holds this list to pyproject's packages).
PACKAGES = (
    "spanproof.core",
    "spanproof.web",
    "spanproof.wire",
    "spanproof.store",
    "spanproof.cli",
    "spanproof.view",
    "spanproof.judge_training",
    "spanproof.gate",
    "spanproof.bench",
    "spanproof.agent",
    "spanproof.graders",
    "spanproof.planted_failures",
    "spanproof.reports",
    "spanproof.goldens",
    "spanproof.adversarial_fixtures",
)
# The packages whose code computes a replayed figure (the agent runs and the judged checks):
# the dependencies they import are hashed file by file. The command line, the viewer, the
# reports and the judge's training only show or make what these compute.
FIGURE_PACKAGES = tuple(
    p
    for p in PACKAGES
    if p not in ("spanproof.cli", "spanproof.view", "spanproof.reports", "spanproof.judge_training")
)


# ---------------------------------------------------------------- the key


def package_folders() -> list[Path]:
    """The folders of the installed spanproof packages (nested packages lie inside them)."""
    out: list[Path] = []
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            path = Path(location).resolve()
            if path not in out:
                out.append(path)
    return out


def tree_sha256(path: Path) -> str:
    """sha256 of a file, or of every file under a folder (relative path and bytes)."""
    h = hashlib.sha256()
    if path.is_file():
        h.update(path.read_bytes())
        return h.hexdigest()
    if not path.is_dir():
        return "absent"
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        rel = file.relative_to(path)
        if "__pycache__" in rel.parts or file.suffix in (".pyc", ".pyo"):
            continue
        h.update(str(rel).encode() + b"\0")
        h.update(file.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


@cache
def code_sha256() -> str:
    """Every file of the installed spanproof packages, hashed once per process."""
    h = hashlib.sha256()
    for folder in package_folders():
        h.update(folder.name.encode() + b"\0" + tree_sha256(folder).encode())
    return h.hexdigest()


@cache
def dependencies_sha256() -> str:
    """Every installed file of the distributions the figures' code imports, once per process."""
    return dependency_digest(*FIGURE_PACKAGES)


@cache
def _environment() -> dict[str, Any]:
    dists = sorted(
        f"{d.metadata['Name']}=={d.version}"
        for d in importlib.metadata.distributions()
        if d.metadata["Name"]
    )
    return {"python": sys.version, "platform": platform.platform(), "distributions": dists}


def warm() -> None:
    """Compute the key's slow parts now (each is cached for the process)."""
    code_sha256()
    dependencies_sha256()
    _environment()


def replayable(cfg: Any) -> str | None:
    """Why this gate is never replayed, or None when it may be."""
    from spanproof.graders.judges import check_judge_spec

    if not check_judge_spec(cfg.judge)[1].deterministic:
        return f"the judge {cfg.judge} is not deterministic"
    if cfg.policy != "extractive" or cfg.model or cfg.usefulness_model:
        return "a model is configured"
    return None


def inputs(
    cfg: GateConfig, judge: Judge, *, db: str | None, resolve: Callable[[str], Path]
) -> dict[str, Any]:
    """Everything the key covers, as readable values (``resolve``: the gate's path rule)."""
    from spanproof.core.specs import parse_named_spec

    # every setting that names a file or folder (questions, the sets, fixtures, a corpus ...):
    # its bytes, whichever setting a later version adds
    files: dict[str, str] = {}
    for name, value in cfg:
        if isinstance(value, str) and value and resolve(value).exists():
            files[name] = tree_sha256(resolve(value))
    spec = parse_named_spec(cfg.judge).spec
    if spec.kind == "scripted":
        files["scripted_judge"] = tree_sha256(Path(spec.name))
    wice = os.environ.get("SPANPROOF_WICE_DEV")
    if wice:
        files["SPANPROOF_WICE_DEV"] = f"{wice} {tree_sha256(Path(wice))}"
    return {
        "format": FORMAT,
        "code": code_sha256(),
        "dependencies": dependencies_sha256(),
        **_environment(),
        "config": cfg.sha256(),
        "config_set": sorted(cfg.model_fields_set),  # a setting given, even at its default
        "files": files,
        "judge": [
            judge.id,
            judge.model_id,
            judge.prompt_sha256,
            judge.endpoint,
            judge.code_version,
        ],
        "store": db or os.environ.get("SPANPROOF_DB") or "",
    }


def key_of(parts: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


# ---------------------------------------------------------------- one memo


class GateMemo:
    """The replayable phases of one gate key in one home: read at the start, written after a
    complete run."""

    def __init__(self, home: Path, parts: dict[str, Any], *, replay: bool = True) -> None:
        self.home = Path(home)
        self.parts = parts
        self.key = key_of(parts)
        self.path = self.home / FOLDER / f"{self.key}.json.gz"
        self.replayed: dict[str, str] = {}  # phase -> gate id it was replayed from
        self.note: str | None = None  # why an existing memo was not used
        self._old = self._load() if replay else None
        self._new: dict[str, Any] = {"agent": None, "checks": {}}
        self.unsaveable = False
        self.refused: str | None = None  # why a memo that disagrees with the store was not used
        self._written: dict[str, str] = {}

    @classmethod
    def for_gate(cls, cfg: GateConfig, judge: Judge, *, home: Path, db: str | None,
                 resolve: Callable[[str], Path], fresh: bool = False) -> GateMemo | None:  # fmt: skip
        """The memo of this gate, or None when it is never replayed (a model is configured).
        ``fresh``: replay nothing, but keep what this run computes for the next one."""
        if replayable(cfg) is not None:
            return None
        return cls(home, inputs(cfg, judge, db=db, resolve=resolve), replay=not fresh)

    def _load(self) -> dict[str, Any] | None:
        if not self.path.is_file():
            return None
        try:
            data = json.loads(gzip.decompress(self.path.read_bytes()))
        except (OSError, ValueError, EOFError) as exc:
            self.note = f"memo {self.path.name} unreadable ({type(exc).__name__}); recomputed"
            return None
        if (
            not isinstance(data, dict)
            or data.get("format") != FORMAT
            or data.get("key") != self.key
        ):
            self.note = f"memo {self.path.name} is not this key's; recomputed"
            return None
        return data

    # -- what the store says each phase was

    def check_origin(self, store: Any) -> str | None:
        """Why the memo disagrees with the gate runs that computed its phases (then nothing is
        replayed), or None when every phase is what its run recorded."""
        from spanproof.gate.result import GateResult
        from spanproof.store.errors import RunNotFound

        if self._old is None:
            return None
        recorded: dict[str, dict[str, str]] = {}
        for phase, entry in _phases(self._old).items():
            gate_id = str(entry.get("gate_id"))
            if gate_id not in recorded:
                try:
                    result = GateResult.model_validate_json(store.gate_run(gate_id).result)
                except (RunNotFound, ValueError):
                    recorded[gate_id] = {}
                else:
                    recorded[gate_id] = result.artifacts.memo or {}
            if recorded[gate_id].get(phase) != phase_sha256(entry):
                why = (
                    f"memo {self.path.name}: its {phase} is not what gate run {gate_id} "
                    "recorded (edited since, or that run is gone from the store); nothing "
                    "replayed, every phase recomputed"
                )
                self.refused, self.note, self._old = why, why, None
                return why
        return None

    def digests(self) -> dict[str, str]:
        """The sha256 of each phase this run kept or replayed, as written (``save``)."""
        return dict(self._written)

    # -- the agent runs

    def agent_runs(self, store: Any) -> tuple[list[Any], list[str], list[str]] | None:
        """(records, question ids, allowed hosts) of the last complete run, when every run is
        still in ``store`` and every page it read is still in this home's snapshots."""
        from spanproof.agent.record import RunRecord

        from spanproof.web.env import SNAPSHOT_DIR
        from spanproof.web.snapshots import SnapshotStore

        saved = (self._old or {}).get("agent")
        if not saved:
            return None
        try:
            records = [RunRecord.model_validate_json(text) for text in saved["records"]]
        except (ValueError, KeyError, TypeError):
            self.note = "memo's run records unreadable; recomputed"
            return None
        ids = [r.run_id for r in records]
        if set(store.run_records(ids)) != set(ids):
            self.note = "a replayable run is no longer in the store; recomputed"
            return None
        # every page must still be there and read back whole (the checks read them again)
        try:
            snapshots = SnapshotStore(self.home / SNAPSHOT_DIR)
            try:
                for doc_id in {d.doc_id for r in records for d in r.documents}:
                    snapshots.text(doc_id)
            finally:
                snapshots.close()
        except Exception as exc:  # missing, damaged, unreadable: recompute, never replay
            self.note = (f"a page a replayable run read cannot be read back "
                         f"({type(exc).__name__}); recomputed")  # fmt: skip
            return None
        self.replayed["agent runs"] = str(saved.get("gate_id"))
        return records, list(saved["question_ids"]), list(saved["allow_hosts"])

    def keep_agent_runs(
        self, records: list[Any], question_ids: list[str | None], allow: list[str]
    ) -> None:
        self._new["agent"] = {
            "records": [r.model_dump_json() for r in records],
            "question_ids": list(question_ids),
            "allow_hosts": list(allow),
        }

    # -- the replayed checks

    def check(self, name: str) -> tuple[list[CheckRow], list[Any]] | None:
        """(rows, artifacts patch) of a check the last complete run measured."""
        saved = ((self._old or {}).get("checks") or {}).get(name)
        if not saved:
            return None
        try:
            rows = [CheckRow.model_validate(r) for r in saved["rows"]]
        except (ValueError, KeyError, TypeError):
            self.note = f"memo's {name} rows unreadable; recomputed"
            return None
        self.replayed[name] = str(saved.get("gate_id"))
        return rows, list(saved.get("artifacts") or [])

    def keep_check(self, name: str, rows: list[CheckRow], patch: list[Any]) -> None:
        """``patch``: what the check wrote into the result's artifacts (``artifacts_patch``)."""
        try:
            json.dumps(patch)
        except (TypeError, ValueError):
            self.note = f"{name} wrote artifacts that are not JSON; not memoised"
            self.unsaveable = True
            return
        self._new["checks"][name] = {
            "rows": [r.model_dump(mode="json") for r in rows],
            "artifacts": patch,
        }

    # -- written after a complete run

    def save(self, gate_id: str, verdict_keys: list[str]) -> Path | None:
        """Write what this run computed or replayed, unless a module came from outside the
        hashed folders (then the key did not cover it). Returns the file, or None."""
        if self.unsaveable:
            return None
        if _unhashed_modules():
            self.note = "modules from outside the installed packages were loaded; not memoised"
            return None
        old = self._old or {}
        if not self._new["agent"] and not self._new["checks"]:
            self._written = {p: phase_sha256(e) for p, e in _phases(old).items()}
            self.path.touch()  # all replayed: the file stands; it is the newest in use
            return self.path
        # each phase names the gate run that computed it; a replayed one keeps its own
        agent = {**self._new["agent"], "gate_id": gate_id} if self._new["agent"] else None
        if agent is None and "agent runs" in self.replayed:
            agent = old.get("agent")
        checks = {k: v for k, v in (old.get("checks") or {}).items() if k in self.replayed}
        checks.update({k: {**v, "gate_id": gate_id} for k, v in self._new["checks"].items()})
        data = {
            "format": FORMAT,
            "key": self.key,
            "inputs": self.parts,
            "agent": agent,
            "checks": checks,
            "verdict_keys": sorted(set(verdict_keys) | set(old.get("verdict_keys") or [])),
        }
        from spanproof.core.files import write_atomic

        write_atomic(self.path, gzip.compress(json.dumps(data).encode(), mtime=0))
        self._written = {p: phase_sha256(e) for p, e in _phases(data).items()}
        self._prune()
        return self.path

    def verdict_keys(self) -> list[str]:
        return list((self._old or {}).get("verdict_keys") or [])

    def _prune(self) -> None:
        files = sorted((self.home / FOLDER).glob("*.json.gz"), key=lambda p: p.stat().st_mtime)
        for old in files[:-KEEP]:
            with contextlib.suppress(OSError):
                old.unlink()


def _phases(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A memo's phases by name ("agent runs" and each check), as stored."""
    out = {"agent runs": data["agent"]} if data.get("agent") else {}
    out.update({name: entry for name, entry in (data.get("checks") or {}).items() if entry})
    return out


def phase_sha256(entry: dict[str, Any]) -> str:
    """The digest of one memo phase (its figures, artifacts or runs, and the gate run that
    computed it), as JSON would read it back."""
    canonical = json.dumps(json.loads(json.dumps(entry)), sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def artifacts_patch(before: dict[str, Any], after: dict[str, Any]) -> list[list[Any]]:
    """``[path, value]`` for every value a phase added or changed in the result's artifacts:
    dictionaries are walked (a phase adds its set to ``outcomes["sets"]``), anything else is
    one value. ``before`` is a deep copy taken before the phase."""
    out: list[list[Any]] = []

    def walk(b: dict[str, Any], a: dict[str, Any], path: list[str]) -> None:
        for k, v in a.items():
            if k not in b:
                out.append([[*path, k], v])
            elif isinstance(v, dict) and isinstance(b[k], dict):
                walk(b[k], v, [*path, k])
            elif v != b[k]:
                out.append([[*path, k], v])

    walk(before, after, [])
    return out


def apply_patch(artifacts: GateArtifacts, patch: list[Any]) -> GateArtifacts:
    """``artifacts`` with a replayed phase's patch applied (``artifacts_patch`` made it from the
    artifacts' JSON), validated again."""
    data = artifacts.model_dump(mode="json")
    for path, value in patch:
        node = data
        for k in path[:-1]:
            node = node.setdefault(k, {})
        node[path[-1]] = copy.deepcopy(value)
    return type(artifacts).model_validate(data)


def _unhashed_modules() -> list[str]:
    folders = package_folders()
    out = []
    for name, module in list(sys.modules.items()):
        if not name.startswith("spanproof") or module is None:
            continue
        file = module.__file__
        if file and not any(Path(file).resolve().is_relative_to(f) for f in folders):
            out.append(name)
    return out
