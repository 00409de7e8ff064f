"""The one pass over a pair file: every line checked, the good pairs kept aside for judging.

A bad line stops `verify` before any judge is asked (unless --skip-invalid), so the whole
file is checked before the first pair is judged. The file is read once, a line at a time
(``spanproof.bench.pairs``, the one pair-file reader): each good pair goes to a spool, a
temporary file of compact records, from which the judging reads it back; what the run needs
to know before judging is counted on the way (pairs, labelled pairs, pairs the rules judge
was fitted on). Memory holds one line and a chunk of records, whatever the file's size, and
the pairs judged are exactly the pairs checked even if the file changes meanwhile.
"""

from __future__ import annotations

import contextlib
import pickle
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from spanproof.graders.rules.fitted import OverlapCount, TrainingOverlap
from spanproof.graders.verify_stream import StreamPair

from spanproof.bench.pairs import PairSetError, iter_pair_lines

# Records pickled together: a few hundred pairs in memory while the spool is written or read.
SPOOL_CHUNK = 256

_Record = tuple[str, str, str, str | None, str | None, str | None]


@dataclass(frozen=True, slots=True)
class LabelledPair:
    """A good pair: what the judges see of it, and its label (for the figures only)."""

    pair: StreamPair
    label: str | None

    @property
    def id(self) -> str:
        return self.pair.id

    @property
    def claim(self) -> str:
        return self.pair.claim


class PairSpool:
    """The good pairs, in file order, on an anonymous temporary file (gone when closed)."""

    def __init__(self) -> None:
        self.count = 0
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        self._chunk: list[_Record] = []

    def add(self, pair: StreamPair, label: str | None) -> None:
        self._chunk.append((pair.id, pair.claim, pair.span, pair.url, pair.retrieved_at, label))
        self.count += 1
        if len(self._chunk) >= SPOOL_CHUNK:
            self._flush()

    def _flush(self) -> None:
        if self._chunk:
            pickle.dump(self._chunk, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            self._chunk = []

    def __iter__(self) -> Iterator[LabelledPair]:
        """The pairs from the first (one reader at a time)."""
        self._flush()
        self._file.seek(0)
        while True:
            try:
                # our own file, written above and unlinked since it was made
                chunk: list[_Record] = pickle.load(self._file)  # noqa: S301
            except EOFError:
                return
            for pair_id, claim, span, url, retrieved_at, label in chunk:
                yield LabelledPair(StreamPair(pair_id, claim, span, url, retrieved_at), label)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._file.close()


@dataclass
class Scan:
    """What the pass found: the good pairs, one message per bad line, the labelled count and
    the pairs the rules judge was fitted on (None when it was fitted on none or is not used)."""

    pairs: PairSpool
    problems: list[str] = field(default_factory=list)
    labelled: int = 0
    overlap: TrainingOverlap | None = None

    @property
    def count(self) -> int:
        return self.pairs.count

    @property
    def all_labelled(self) -> bool:
        return self.count > 0 and self.labelled == self.count

    def close(self) -> None:
        self.pairs.close()


def scan_pairs(path: Path, judges: Sequence[str]) -> Scan:
    """Read ``path`` once. A file that cannot be read at all (missing, binary) is one problem."""
    scan = Scan(pairs=PairSpool())
    overlap = OverlapCount(judges)
    try:
        for _, pair, problem in iter_pair_lines(path):
            if problem is not None:
                scan.problems.append(problem)
            elif pair is not None:
                source = pair.source or {}
                scan.pairs.add(
                    StreamPair(pair.id, pair.claim, pair.span, source.get("url"),
                               source.get("retrieved_at")),
                    pair.label,
                )  # fmt: skip
                scan.labelled += pair.label is not None
                overlap.add(pair.claim, pair.span)
    except PairSetError as exc:
        scan.problems = [str(exc)]
    except BaseException:
        scan.close()
        raise
    scan.overlap = overlap.overlap()
    return scan
