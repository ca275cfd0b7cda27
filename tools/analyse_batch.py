"""Time `engine-analyse` over a batch of game records: with one engine, with `--jobs J`
local engines and with Ray workers (`--ray local`, J CPUs), in positions per second; and
check that the three give the same analyses.

    scripts/analyse_batch RECORDS... [--records N] [--depth 4 | --nodes N] [--top 3]
                          [--jobs 2] [--no-ray]

RECORDS are what `engine-analyse` takes (files, folders, glob patterns); the first
`--records` of them (default: all) are analysed by each way in turn, each run into a
fresh folder of its own, so that nothing is skipped as analysed already. A run's time
is the whole command's wall clock, the start of its engines (and of Ray) included. With
a fixed `--depth` or `--nodes` the analyses must be the same whoever searched each
position: the records whose analyses differ from the one engine's are listed, and the
exit status is then 1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from adapters.analysis.batch import record_paths

ROOT = Path(__file__).resolve().parent.parent


def run(name: str, records: list[Path], arguments: list[str], out: Path) -> float:
    """Analyse `records` into `out` with `arguments`; the seconds it took. Exits when
    `engine-analyse` fails."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "adapters.analysis.main", *map(str, records), *arguments,
                             "--out", str(out), "--quiet"], capture_output=True, text=True, env=environment)
    elapsed = time.monotonic() - started
    if result.returncode != 0:
        sys.exit(f"analyse_batch: {name} failed ({result.returncode}):\n{result.stderr}")
    return elapsed


def analyses(out: Path) -> dict[str, dict]:
    return {path.name: json.loads(path.read_text()) for path in sorted(out.glob("*-analysis.json"))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", help="game records, folders of them or glob patterns")
    parser.add_argument("--records", type=int, default=None, dest="count", metavar="N",
                        help="analyse the first N records (default: all)")
    limits = parser.add_mutually_exclusive_group()
    limits.add_argument("--depth", type=int, default=None)
    limits.add_argument("--nodes", type=int, default=None)
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2, help="local engines, and Ray's CPUs (default 2)")
    parser.add_argument("--no-ray", action="store_true", help="leave out the Ray run")
    args = parser.parse_args()
    records, problems = record_paths(args.records)
    for text, problem in problems:
        print(f"analyse_batch: {text}: {problem}", file=sys.stderr)
    records = records[:args.count]
    if not records:
        sys.exit("analyse_batch: no record to analyse")
    limit = ["--nodes", str(args.nodes)] if args.nodes is not None else ["--depth", str(args.depth or 4)]
    common = [*limit, "--top", str(args.top)]
    ways = [("one engine (--jobs 1)", ["--jobs", "1"]), (f"--jobs {args.jobs}", ["--jobs", str(args.jobs)])]
    if not args.no_ray:
        ways.append((f"--ray local ({args.jobs} CPUs)", ["--jobs", str(args.jobs), "--ray", "local"]))
    same = True
    with tempfile.TemporaryDirectory(prefix="analyse-batch-") as folder:
        reference: dict[str, dict] = {}
        for index, (name, arguments) in enumerate(ways):
            out = Path(folder) / str(index)
            elapsed = run(name, records, [*common, *arguments], out)
            found = analyses(out)
            positions = sum(len(analysis["plies"]) for analysis in found.values())
            if not reference:
                reference = found
                print(f"{len(records)} records, {positions} positions, {' '.join(common)}")
                verdict = "(the reference)"
            else:
                differing = sorted(record for record in reference if found.get(record) != reference[record])
                same = same and not differing
                verdict = "same analyses" if not differing else f"DIFFERENT analyses: {', '.join(differing)}"
            print(f"{name:<26} {elapsed:8.1f} s {positions / elapsed:9.1f} positions/s   {verdict}", flush=True)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
