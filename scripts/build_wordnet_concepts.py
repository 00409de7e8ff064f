"""Build ``graders/specifics/lexicons/wordnet_concepts.tsv.gz`` from Princeton WordNet 3.0.

The slot reader aligns a claim with its span word by word, tolerating synonyms ("title" /
"championship", "established" / "founded") and derived forms ("distributed" /
"distribution", "elected" / "election"). It reads them from WordNet rather than from a list
of its own: two words *share a concept* when one of the first four senses of each (WordNet
orders senses by frequency) is the same synset, or when a derivational link of WordNet joins
such senses, or, for verbs, when one of the first senses of one is a troponym, one step
narrower, of a first sense of the other ("climb" under "rise", "drop" under "fall";
``_narrower`` says what it never joins). Irregular forms ("won", "fell",
"held") carry their base form's concepts (WordNet's exception lists).

Each output line is ``word<TAB>id id ...<TAB>pos``: a word (lower case, one token, or a verb
and its particle joined by ``_``: "set_up", "took_over"), the
concepts it takes part in, as small integers, and the parts of speech WordNet knows it as
(``n``, ``v`` or ``nv``; an irregular form carries its base's, so "began" is ``v``, and ``x``
marks an irregular verb form, so "won", also a noun, is ``nvx``). A concept
only one word holds is dropped (it can join nothing), and so is a word left with none.
Deterministic: the same WordNet gives the same bytes.

    apt-get install wordnet-base            # Debian's copy of the WordNet 3.0 database
    python scripts/build_wordnet_concepts.py [--wordnet /usr/share/wordnet]

WordNet 3.0 is (c) 2006 Princeton University, under the WordNet licence (kept beside the
output as ``wordnet_LICENSE.txt``): free to use, copy and distribute with the notice.
"""

from __future__ import annotations

import argparse
import gzip
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "graders" / "specifics" / "lexicons" / "wordnet_concepts.tsv.gz"
POS = {"n": "noun", "v": "verb"}
SENSES = 4  # the first senses of a word: WordNet orders them by how often they are used
_WORD = re.compile(r"[a-z]+")
# a verb and its adverbial particle, one verb in WordNet ("set_up": found, "turn_down": reject,
# "take_over"): the reader joins the two words of a text into it. Only the particles that
# complete a verb (up, down, ...), not prepositions, which take an object of their own
# ("stand_for election" is no verb phrase of the text's)
PARTICLES = ("up", "down", "out", "off", "over", "away", "back")
_PHRASE = re.compile(r"[a-z]+_(?:" + "|".join(PARTICLES) + ")")


def _index(root: Path, pos: str) -> dict[str, list[str]]:
    out = {}
    for line in (root / f"index.{POS[pos]}").read_text(encoding="latin-1").splitlines():
        if line.startswith(" "):
            continue
        f = line.split()
        pointers = int(f[3])
        out[f[0]] = f[4 + pointers + 2 :]
    return out


def _data(root: Path, pos: str) -> dict[str, tuple[list[str], list[tuple[str, str, str, str]]]]:
    out = {}
    for line in (root / f"data.{POS[pos]}").read_text(encoding="latin-1").splitlines():
        if line.startswith(" "):
            continue
        f = line.split("|")[0].split()
        n_words = int(f[3], 16)
        words = [f[4 + 2 * i].lower() for i in range(n_words)]
        i = 4 + 2 * n_words
        ptrs = []
        for _ in range(int(f[i])):
            ptrs.append((f[i + 1], f[i + 2], f[i + 3], f[i + 4]))
            i += 4
        out[f[0]] = (words, ptrs)
    return out


def _exceptions(root: Path, pos: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in (root / f"{POS[pos]}.exc").read_text(encoding="latin-1").splitlines():
        f = line.split()
        if len(f) >= 2:
            out.setdefault(f[0], f[1])
    return out


def concepts(root: Path) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(word -> its concepts, word -> the parts of speech WordNet knows it as)."""
    held: dict[str, set[str]] = defaultdict(set)
    parts: dict[str, set[str]] = defaultdict(set)
    for pos in POS:
        index, data = _index(root, pos), _data(root, pos)
        for word, offsets in index.items():
            if not _WORD.fullmatch(word) and not (pos == "v" and _PHRASE.fullmatch(word)):
                continue  # other phrases and numerals are read as words elsewhere
            parts[word].add(pos)
            for off in offsets[:SENSES]:
                held[word].add(pos + off)
                words, ptrs = data[off]
                for sym, target, tpos, src_tgt in ptrs:
                    src = int(src_tgt[:2], 16)
                    # a derivational link from this very word ("distribute" -> "distribution")
                    if sym == "+" and tpos in POS and src and words[src - 1] == word:
                        held[word].add(tpos + target)
        # verbs only: a noun one step under another names a narrower thing, which the reader
        # then reads as the same subject ("investment" under "finance", "top" under "place"
        # aligned a claim's date or sum with another statement's)
        if pos == "v":
            _narrower(index, data, pos, held)
        exceptions = _exceptions(root, pos)
        for form, base in exceptions.items():
            if _WORD.fullmatch(form) and base in held:
                held[form] |= {c for c in held[base] if c.lstrip("^")[0] == pos}
                parts[form].add(pos)
                if pos == "v":
                    parts[form].add("x")  # an irregular form of a verb ("won", "led")
        if pos == "v":  # the irregular forms of a phrase's verb ("took_over", "taken_over")
            phrases = [w for w in held if _PHRASE.fullmatch(w)]
            for form, base in exceptions.items():
                if not _WORD.fullmatch(form):
                    continue
                for phrase in phrases:
                    verb, particle = phrase.split("_")
                    if verb == base and f"{form}_{particle}" not in held:
                        held[f"{form}_{particle}"] = set(held[phrase])
                        parts[f"{form}_{particle}"].add(pos)
    return held, parts


def _antonyms(
    data: dict[str, tuple[list[str], list[tuple[str, str, str, str]]]],
    pos: str,
) -> set[tuple[str, str]]:
    """The word pairs WordNet marks as antonyms ("rise" / "fall", "win" / "lose"), both ways."""
    out: set[tuple[str, str]] = set()
    for words, ptrs in data.values():
        for sym, target, tpos, src_tgt in ptrs:
            if sym == "!" and tpos == pos and target in data:
                src, tgt = int(src_tgt[:2], 16), int(src_tgt[2:], 16)
                a = words[src - 1] if src else None
                b = data[target][0][tgt - 1] if tgt else None
                for x in words if a is None else [a]:
                    for y in data[target][0] if b is None else [b]:
                        out |= {(x, y), (y, x)}
    return out


def _narrower(
    index: dict[str, list[str]],
    data: dict[str, tuple[list[str], list[tuple[str, str, str, str]]]],
    pos: str,
    held: dict[str, set[str]],
) -> None:
    """Join each word to the words one step narrower than its first senses (a verb's
    troponyms, a noun's hyponyms): "rise" to "climb", "fall" to "drop". The join is a concept of its own, ``^`` and the narrower sense, held by the
    broader word and by the words that have that sense among their own first senses, so it
    is one step and one way only: two narrower words under one broader sense ("rise" and
    "fall" under "move", "profit" and "sales" under "income") get nothing in common, and a
    word linked to the narrower sense only by derivation is not joined through it. Never a
    narrower sense one of whose words is the word's antonym; and a sense at the root of
    WordNet's hierarchy (a verb's "unique beginner": "make", "change", "move", "have") is
    broader than any statement it could align: it takes none."""
    own: dict[str, list[str]] = defaultdict(list)  # a sense -> the words it is a first sense of
    for word in held:
        for off in index.get(word, [])[:SENSES]:
            own[off].append(word)
    opposite = _antonyms(data, pos)
    joined: set[str] = set()
    for word in [w for w in held if w in index]:
        for off in index[word][:SENSES]:
            if not any(sym in ("@", "@i") for sym, *_ in data[off][1]):
                continue  # a root sense
            for sym, target, tpos, _ in data[off][1]:
                if sym != "~" or tpos != pos or target not in own:
                    continue
                if not any((word, w) in opposite for w in data[target][0]):
                    held[word].add("^" + pos + target)
                    joined.add(target)
    for target in joined:
        for word in own[target]:
            held[word].add("^" + pos + target)


def build(root: Path) -> bytes:
    held, parts = concepts(root)
    counts: dict[str, int] = defaultdict(int)
    for ids in held.values():
        for c in ids:
            counts[c] += 1
    shared = sorted(c for c, n in counts.items() if n >= 2)
    number = {c: i for i, c in enumerate(shared)}
    lines = []
    for word in sorted(held):
        ids = sorted(number[c] for c in held[word] if c in number)
        if ids:
            lines.append(
                word + "\t" + " ".join(map(str, ids)) + "\t" + "".join(sorted(parts[word]))
            )
    return gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    if not (args.wordnet / "index.verb").is_file():
        raise SystemExit(
            f"error: no WordNet database in {args.wordnet}: install Debian's wordnet-base "
            "(apt-get install wordnet-base) or pass --wordnet DIR holding index.verb"
        )
    args.out.write_bytes(build(args.wordnet))
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
