"""Judges are declared where they are written and found by name: the registry, its flags
(local, deterministic) read by the worker pool and the gate's replay memo, and third-party
judges plugged in through the ``spanproof.judges`` entry points."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from spanproof.graders.errors import JudgeConfigError
from spanproof.graders.judges import check_judge_spec, judge, judge_kinds, make_judge, registry
from spanproof.graders.pool_plan import runs_locally

from spanproof.core.specs import EndpointSettings, SpecError
from spanproof.core.verdict import Judge, JudgeBase, SpanRef, Verdict
from spanproof.gate.config import GateConfig
from spanproof.gate.memo import replayable


class ToyJudge(JudgeBase):
    """Always PARTIAL: enough to see it built, flagged and called."""

    def __init__(self, argument: str = "") -> None:
        self.id = f"toy:{argument}" if argument else "toy"
        self.prompt_sha256 = "toy-v1"

    async def judge(self, claim: str, span: SpanRef) -> Verdict:
        return Verdict(verdict="PARTIAL", judge=self.id, prompt_sha256=self.prompt_sha256)


@pytest.fixture
def declared():
    """Declare judges for one test and take them back out of the registry afterwards."""
    judge_kinds()  # the built-in judges are declared first, whichever test runs first here
    before = dict(registry._KINDS)
    yield judge
    registry._KINDS.clear()
    registry._KINDS.update(before)


def test_the_built_in_judges_are_found_by_name_with_their_flags():
    kinds = {k.name: k for k in judge_kinds()}
    assert {"rules", "blind", "scripted", "openai"} <= set(kinds)
    assert kinds["rules"].local and kinds["rules"].deterministic
    assert kinds["openai"].argument == "<model>" and not kinds["openai"].local
    assert not kinds["openai"].deterministic
    assert isinstance(make_judge("blind"), Judge)


def test_a_judge_declared_in_its_own_module_is_built_and_its_flags_are_obeyed(declared):
    @declared("toy", summary="always PARTIAL", argument="<tag>", local=False, deterministic=False)
    def build(argument: str, endpoint: EndpointSettings) -> Judge:
        return ToyJudge(argument)

    built = make_judge("toy:x")
    assert isinstance(built, ToyJudge) and built.id == "toy:x"
    assert isinstance(built, Judge)
    # not local: the worker pool leaves it to the event loop; not deterministic: never replayed
    assert runs_locally(["rules"]) and not runs_locally(["rules", "toy:x"])
    assert replayable(GateConfig(judge="toy:x")) == "the judge toy:x is not deterministic"
    assert replayable(GateConfig(judge="rules")) is None
    # the spec checks know it, and its argument
    with pytest.raises(SpecError, match="needs an argument: write toy:<tag>"):
        check_judge_spec("toy")


def test_two_judges_under_one_name_and_names_a_spec_cannot_hold_are_refused(declared):
    with pytest.raises(JudgeConfigError, match="two judges are declared as 'rules'"):

        @declared("rules", summary="a second rules", local=True, deterministic=True)
        def build(argument: str, endpoint: EndpointSettings) -> Judge:
            return ToyJudge()

    for bad in ("", "a:b", "a=b", " toy"):
        with pytest.raises(JudgeConfigError, match="cannot name a judge"):
            declared(bad, summary="", local=True, deterministic=True)


def test_a_judge_that_does_not_declare_the_protocol_members_is_not_a_judge():
    class Bare:
        id = "bare"

        async def judge(self, claim: str, span: SpanRef) -> Verdict:
            raise AssertionError

    assert not isinstance(Bare(), Judge)
    assert isinstance(ToyJudge(), Judge)


def _plugin(tmp_path: Path, source: str, target: str = "toyjudge") -> dict[str, str]:
    """A distribution installed on sys.path by hand: a module and a dist-info folder whose
    entry_points.txt puts it in the ``spanproof.judges`` group."""
    (tmp_path / "toyjudge.py").write_text(textwrap.dedent(source))
    info = tmp_path / "toyjudge-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyjudge\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[spanproof.judges]\ntoy = {target}\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    return env


SPANPROOF = str(Path(sys.executable).with_name("spanproof"))

TOY_PLUGIN = """
from spanproof.core.verdict import JudgeBase, Verdict
from spanproof.graders.judges import judge


class Toy(JudgeBase):
    id = "toy"
    prompt_sha256 = "toy-plugin-v1"

    async def judge(self, claim, span):
        return Verdict(verdict="PARTIAL", judge=self.id, prompt_sha256=self.prompt_sha256)


@judge("toy", summary="always PARTIAL (a plug-in)", local=True, deterministic=True)
def build(argument, endpoint):
    return Toy()
"""


def test_a_third_party_judge_plugs_in_through_an_entry_point(tmp_path):
    env = _plugin(tmp_path, TOY_PLUGIN)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "a", "claim": "x rose", "span": "x rose."}) + "\n")
    done = subprocess.run(
        [SPANPROOF, "verify", "--pairs", str(pairs), "--judge", "toy",
         "--json", "--home", str(tmp_path / "home")],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    (row,) = json.loads(done.stdout)["results"]
    assert row["verdict"] == "PARTIAL" and row["judge"] == "toy"
    listed = subprocess.run(
        [SPANPROOF, "gate", "--help"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert "toy" in listed.stdout


def test_a_plug_in_that_fails_to_load_is_named_where_judges_are_listed(tmp_path):
    env = _plugin(tmp_path, "raise ImportError('needs libfoo')\n")
    done = subprocess.run(
        [sys.executable, "-c",
         "from spanproof.graders.judges import make_judge\nmake_judge('toy')"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode != 0
    assert "'toy' is not a judge" in done.stderr
    assert "plug-in 'toy' (toyjudge) failed to load: ImportError: needs libfoo" in done.stderr


def test_an_unknown_judge_error_teaches_what_to_write():
    # the error names the judge probably meant, says what each judge is, how to name one and
    # how another kind is added, not only the bare list of kinds
    from spanproof.graders.judges import make_judge

    from spanproof.core.specs import SpecError

    with pytest.raises(SpecError) as err:
        make_judge("rule")
    text = str(err.value)
    assert "Did you mean 'rules'?" in text
    assert "rules — the offline judge" in text and "blind — the canary" in text
    assert "NAME=SPEC" in text and "'spanproof.judges'" in text
    with pytest.raises(SpecError) as far:
        make_judge("zzzz")
    assert "Did you mean" not in str(far.value)
