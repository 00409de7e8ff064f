"""``scripted:<path>``: replays verdicts from a file; for tests, demos and published judges'
outputs (a file per judge).

Script format for ``scripted:<path>``
-------------------------------------
A ``.jsonl`` file with one entry per line, or a ``.json`` file holding either a list of
entries or an object mapping a key to an entry. An entry holds the verdict fields
(``verdict`` required; ``unsupported_element``, ``quote_used``, ``contains_instructions``,
``model_id``, ``error``, ``confidence`` optional) and says which pair it answers with one of:

- ``"id"``: the pair id (the ``id`` of a pair-set line; the Verifier passes it through);
- ``"key"``: ``sha256(claim + "\\n" + span_text)`` as lowercase hex (see ``content_key``);
- ``"claim"`` and ``"span"``: the texts themselves (the key is computed from them).

In the object form the object's key is a pair id or a content key, and the value may be an
entry or just a label string (``{"p1": "PARTIAL"}``). A content key is tried before the pair
id. A pair with no entry raises ``ScriptMissing`` naming the pair — a script that runs out
fails loudly rather than inventing a verdict.

A published judge that states its probability that the pair is SUPPORTED (an NLI model's
entailment probability, as the WiCE anchor judges publish it) gives it as ``"score"``; with no
``confidence`` of its own, the verdict's confidence (the judge's probability for its own label)
is then ``score`` for SUPPORTED and ``1 - score`` for NOT_SUPPORTED (PARTIAL reads none).

A judge that is not deterministic (an LLM on a server that batches requests) is scripted
with one of two optional fields, read when a pair is judged several times (``--repeat``):

- ``"by_repeat": ["SUPPORTED", "PARTIAL"]``: the label of each sample in turn (sample i
  gets entry i modulo the list's length);
- ``"flip_rate": 0.3`` (and optionally ``"flip_to": "PARTIAL"``, default the next label in
  SUPPORTED -> PARTIAL -> NOT_SUPPORTED -> SUPPORTED): each sample flips with that
  probability, decided by a hash of the pair and the sample's index, so the same script gives
  the same samples on every machine.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from spanproof.graders.errors import JudgeConfigError
from spanproof.graders.judges.context import current_pair_id, current_repeat
from spanproof.graders.judges.registry import judge

from spanproof.core.specs import EndpointSettings, SpecError
from spanproof.core.verdict import Judge, JudgeBase, SpanRef, Verdict


class ScriptMissing(JudgeConfigError, KeyError):
    """A scripted judge was asked about a pair its script does not cover."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else "no script entry"


def content_key(claim: str, span_text: str) -> str:
    return hashlib.sha256(f"{claim}\n{span_text}".encode()).hexdigest()


_VERDICT_FIELDS = (
    "verdict", "unsupported_element", "quote_used", "contains_instructions", "model_id", "error",
    "confidence",
)  # fmt: skip
_NEXT_LABEL = {"SUPPORTED": "PARTIAL", "PARTIAL": "NOT_SUPPORTED", "NOT_SUPPORTED": "SUPPORTED"}


def _sampled_label(entry: dict[str, Any], key: str, repeat: int) -> str:
    """The label of sample ``repeat`` for a scripted entry (module doc: by_repeat, flip_rate)."""
    by_repeat = entry.get("by_repeat")
    if by_repeat:
        return by_repeat[repeat % len(by_repeat)]
    rate = float(entry.get("flip_rate") or 0.0)
    if rate:
        digest = hashlib.sha256(f"{key}:{repeat}".encode()).digest()
        if int.from_bytes(digest[:8], "big") / 2**64 < rate:
            return entry.get("flip_to") or _NEXT_LABEL[entry["verdict"]]
    return entry["verdict"]


def _confidence_from_score(label: str, score: float | None) -> float | None:
    """The confidence in ``label`` of a judge whose ``score`` is P(SUPPORTED) (module doc)."""
    if score is None or label == "PARTIAL":
        return None
    return score if label == "SUPPORTED" else 1.0 - score


def _check_sampling(entry: dict[str, Any], where: str) -> None:
    by_repeat = entry.get("by_repeat")
    if by_repeat is not None and (
        not isinstance(by_repeat, list) or not by_repeat
        or any(label not in _NEXT_LABEL for label in by_repeat)
    ):  # fmt: skip
        raise SpecError(f"{where}: by_repeat must be a non-empty list of verdict labels")
    rate = entry.get("flip_rate")
    if rate is not None and (not isinstance(rate, int | float) or not 0 <= rate <= 1):
        raise SpecError(f"{where}: flip_rate must be a number between 0 and 1")
    if entry.get("flip_to") is not None and entry["flip_to"] not in _NEXT_LABEL:
        raise SpecError(f"{where}: flip_to must be a verdict label")


def missing_message(judge_id: str, path: Path, key: str, pair_id: str | None, claim: str) -> str:
    """Why a scripted judge cannot answer, and what to do instead (a published judge's file
    is not the user's to edit: the fix is the pairs it is given, or a script of one's own)."""
    who = f"pair {pair_id!r}" if pair_id else f"the claim {claim[:60]!r}"
    entry = f'"id": "{pair_id}"' if pair_id else f'"key": "{key}"'
    return (
        f"the scripted judge {judge_id} has no verdict for {who} in {path}: it replays only the "
        "verdicts its file holds. Judge the pairs it covers (`calibrate --cover` keeps the pairs "
        f"every judge covers), or give a script of your own with an entry {{{entry}, "
        '"verdict": ...} (the format: `spanproof verify --help`).'
    )


class ScriptedJudge(JudgeBase):
    """Replays verdicts from a script file (format in the module docstring)."""

    # verdicts cached before ``score`` was read carry no confidence: a new version misses them
    code_version = "scripted-score"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.id = f"scripted:{path}"
        if not self.path.is_file():
            raise SpecError(
                f"Script file {str(self.path)!r} for scripted:{path} does not exist - "
                "give the path of a .json or .jsonl file of verdicts (format: `spanproof verify --help`)."
            )
        raw = self.path.read_bytes()
        # The script's hash stands in for a prompt hash: edit the script and the cache misses.
        self.prompt_sha256 = "script-" + hashlib.sha256(raw).hexdigest()
        self._by_key: dict[str, dict[str, Any]] = {}
        self._by_id: dict[str, dict[str, Any]] = {}
        for key, entry in self._entries(raw.decode("utf-8")):
            if isinstance(entry, str):
                entry = {"verdict": entry}
            if not isinstance(entry, dict) or "verdict" not in entry:
                raise SpecError(f"{self.path}: entry {key or entry!r} has no 'verdict' field.")
            Verdict.model_validate({k: entry[k] for k in _VERDICT_FIELDS if k in entry})
            _check_sampling(entry, f"{self.path}: entry {key or entry.get('id')!r}")
            score = entry.get("score")
            if score is not None and (
                isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1
            ):
                raise SpecError(
                    f"{self.path}: entry {key or entry.get('id')!r}: score must be the judge's "
                    "probability that the pair is SUPPORTED, a number between 0 and 1"
                )
            if key is not None:
                if len(key) == 64 and all(c in "0123456789abcdef" for c in key):
                    self._by_key[key] = entry
                else:
                    self._by_id[key] = entry
            if "key" in entry:
                self._by_key[entry["key"]] = entry
            if "claim" in entry and "span" in entry:
                self._by_key[content_key(entry["claim"], entry["span"])] = entry
            if "id" in entry:
                self._by_id[str(entry["id"])] = entry

    def _entries(self, text: str) -> list[tuple[str | None, Any]]:
        stripped = text.strip()
        if not stripped:
            return []
        if self.path.suffix == ".jsonl":
            return [(None, json.loads(line)) for line in stripped.splitlines() if line.strip()]
        data = json.loads(stripped)
        if isinstance(data, dict):
            return [(str(k), v) for k, v in data.items()]
        if isinstance(data, list):
            return [(None, v) for v in data]
        raise SpecError(f"{self.path}: expected a JSON object or list of verdict entries.")

    def _entry(self, key: str, pair_id: str | None) -> dict[str, Any] | None:
        entry = self._by_key.get(key)
        if entry is None and pair_id is not None:
            entry = self._by_id.get(pair_id)
        return entry

    def covers(self, claim: str, span_text: str, pair_id: str | None) -> bool:
        """Whether the script holds a verdict for this pair (asked before judging, so a
        comparison can keep the pairs every judge covers)."""
        return self._entry(content_key(claim, span_text), pair_id) is not None

    async def judge(self, claim: str, span: SpanRef) -> Verdict:
        key = content_key(claim, span.text)
        pair_id = current_pair_id.get()
        entry = self._entry(key, pair_id)
        if entry is None:
            raise ScriptMissing(missing_message(self.id, self.path, key, pair_id, claim))
        fields = {k: entry[k] for k in _VERDICT_FIELDS if k in entry}
        fields["verdict"] = _sampled_label(entry, key, current_repeat.get())
        if "confidence" not in fields:
            fields["confidence"] = _confidence_from_score(fields["verdict"], entry.get("score"))
        return Verdict(**fields, judge=self.id, prompt_sha256=self.prompt_sha256)


@judge(
    "scripted",
    summary="replays verdicts from a .json/.jsonl file (format: `spanproof verify --help`)",
    argument="<path>",
    local=True,
    deterministic=True,
)
def build_scripted(argument: str, endpoint: EndpointSettings) -> Judge:
    return ScriptedJudge(argument)
