"""Profile the offline gate with cProfile: where a cold run spends its time.

    python benchmarks/profile_gate.py                    # cold, fresh home, top 40 functions
    python benchmarks/profile_gate.py --top 80 --out gate.prof
    python -m pstats gate.prof                           # browse the saved profile
    # or, with py-spy installed: py-spy record -o gate.svg -- spanproof gate --fresh --home H

Runs ``run_gate`` in this process on a fresh home (nothing cached, nothing replayed) under
cProfile, prints the gate's own seconds per phase, then the functions with the most
cumulative and the most own time. cProfile roughly doubles the run time; read the shares,
not the seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--top", type=int, default=40, help="functions listed per ordering")
    ap.add_argument("--out", type=Path, default=None, help="also save the profile here")
    ap.add_argument("--max-questions", type=int, default=0, help="0: all golden questions")
    args = ap.parse_args(argv)

    from spanproof.gate.config import load_config
    from spanproof.gate.run import run_gate

    cfg, source = load_config(overrides={"max_questions": args.max_questions or None})
    with tempfile.TemporaryDirectory(prefix="profile-gate-") as home:
        profile = cProfile.Profile()
        t0 = time.perf_counter()
        profile.enable()
        result = asyncio.run(
            run_gate(cfg, home=Path(home), config_source=source, record=False, fresh=True)
        )
        profile.disable()
        wall = time.perf_counter() - t0
    print(f"gate exit {result.exit_code}; {wall:.1f} s under cProfile; seconds per phase:")
    for phase, seconds in sorted(result.phase_seconds.items(), key=lambda kv: -kv[1]):
        print(f"  {phase:20s} {seconds:7.2f}")
    stats = pstats.Stats(profile)
    if args.out:
        stats.dump_stats(args.out)
    stats.sort_stats("cumulative").print_stats(args.top)
    stats.sort_stats("tottime").print_stats(args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
