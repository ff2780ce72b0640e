"""What the write policy adds to the core bulk write path (bench_core's data), measured in one run.

    python tests/benchmarks/bench_policy.py                # 200,000 claims
    python tests/benchmarks/bench_policy.py --claims 50000

Two ledgers load the same claims through ``Ledger.assert_claims`` batch by batch in turns: one
with the default policy (secrets, PII and instruction scans on every value and new entity name),
one with every rule set to "allow" (the hook still runs, no scanner does). Target (issue 24): the
policy adds at most 15%. Prints ratios, never pass/fail timings: these machines are shared.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import BATCH, ApiLoad, plan  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--claims", type=int, default=200_000)
    args = parser.parse_args()
    rows = plan(args.claims, random.Random(7))
    with tempfile.TemporaryDirectory() as folder:
        guarded = ApiLoad(Path(folder) / "policy.db", rows)
        open_door = ApiLoad(Path(folder) / "allow.db", rows)
        open_door.ledger.set_policy(secrets="allow", pii="allow", instructions="allow", actor="bench")
        with_policy = without = 0.0
        for n, first in enumerate(range(0, len(rows), BATCH)):
            if n % 2:
                without += open_door.batch(first)
                with_policy += guarded.batch(first)
            else:
                with_policy += guarded.batch(first)
                without += open_door.batch(first)
        guarded.ledger.close()
        open_door.ledger.close()
    print(f"bulk write of {args.claims:,} claims, batches of {BATCH:,}, in turns")
    print(f"  every rule 'allow' : {args.claims / without:10,.0f} claims/s ({without:.1f} s)")
    print(f"  default policy     : {args.claims / with_policy:10,.0f} claims/s ({with_policy:.1f} s)")
    print(f"  policy adds        : {with_policy / without - 1:+.1%}   (target <= +15%)")


if __name__ == "__main__":
    main()
