"""The long fuzz run: mutated real fixtures through every reader and through the CLI on archives.

The inputs are those of the fast profile in the test suite (tests/fuzzing.py; tests/test_fuzz_parsers.py
runs ~2,500 of them), in larger number: every fixture in turn, each time with a fresh plan of
one to four stacked mutations, through ``normalise``, every reader's ``detect`` and the parse of
every reader that accepts it or owned the fixture; one input in ``--archive-every`` is instead
a fixture bundle with 1 to 3 files mutated, written as .tar.gz/.tar/.zip, through ``steth
diagnose --from-logs`` (the plain functions; one in ``--cli-every`` of those through typer's
CliRunner, the whole CLI). One in ``--lines-every`` is a splice of real lines and random text
parsed by every reader, whatever its detect says.

    nice -n 19 .venv/bin/python bench/fuzz.py                      # 100,000 inputs, seed 0
    .venv/bin/python bench/fuzz.py --inputs 5000 --seed 7 --crashes /tmp/crashes
    .venv/bin/python bench/fuzz.py --replay /tmp/crashes/0001-pidstat.bin   # one saved input again

It prints its progress every ``--every`` inputs (count, inputs/s, crashes so far), then the
count, the rate and every distinct crash (reader, fixture, mutation plan, traceback head). Each
crashing input is saved under ``--crashes`` (default ``$TMPDIR/steth-fuzz-crashes``) with a
``.txt`` beside it, plus ``.min``: a minimised text input for a reader crash, the start of a
fixture under fixtures/fuzz/. Exit 1 when anything crashed.
"""
from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import fuzzing  # noqa: E402


def _text_input(rng: random.Random) -> list[str]:
    lines = fuzzing.corpus_lines()
    out = []
    for _ in range(rng.randint(1, 40)):
        if rng.random() < 0.7:
            ln = rng.choice(lines).decode("utf-8", "replace")
            cut = rng.randint(0, len(ln))
            out.append(ln[:cut] + rng.choice(fuzzing.TOKENS).decode("utf-8", "replace") + ln[cut:])
        else:
            out.append("".join(chr(rng.choice((rng.randint(32, 126), rng.randint(0, 0x2FFF)))) for _ in range(rng.randint(0, 80))))
    return out


def _args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes, each its own share of the inputs and its own seed")
    ap.add_argument("--archive-every", type=int, default=40, help="one input in N is a mutated bundle archive")
    ap.add_argument("--cli-every", type=int, default=5, help="one archive in N goes through the whole CLI (CliRunner)")
    ap.add_argument("--lines-every", type=int, default=20, help="one input in N is spliced lines parsed by every reader")
    ap.add_argument("--every", type=int, default=5000, help="progress line every N inputs")
    ap.add_argument("--crashes", type=Path, default=Path(tempfile.gettempdir()) / "steth-fuzz-crashes")
    ap.add_argument("--max-saved", type=int, default=5, help="inputs saved per distinct crash (per worker)")
    ap.add_argument("--replay", type=Path, help="run one saved reader input again and print what it does")
    return ap.parse_args(argv)


#: inputs done by all workers (a shared counter, inherited by the forked workers)
_DONE = None


def _share(args: argparse.Namespace, worker: int) -> tuple[dict[str, int], list[fuzzing.Crash]]:
    """Worker ``worker``'s inputs (every ``jobs``-th), seeded by (seed, worker)."""
    done = _DONE
    seeds = fuzzing.corpus()
    roots = fuzzing.bundle_roots()
    bundles = {r: fuzzing.bundle_files(r) for r in roots}
    by_reader: dict[str, list[fuzzing.Seed]] = {}
    for s in seeds:
        for kind in s.owners:
            by_reader.setdefault(kind, []).append(s)
    owned = sorted(by_reader)
    rng = random.Random(f"{args.seed}/{worker}")
    order = list(range(len(seeds)))
    counts = {"text": 0, "lines": 0, "archive": 0, "cli": 0}
    found: list[fuzzing.Crash] = []
    saved: dict[tuple, int] = {}
    mine = range(worker, args.inputs, args.jobs)
    for k, n in enumerate(mine):
        if k % (2 * len(seeds)) == 0:
            rng.shuffle(order)
        if args.archive_every and n % args.archive_every == args.archive_every - 1:
            root = rng.choice(roots)
            files, plan, broken = fuzzing.mutate_bundle(bundles[root], rng)
            via_cli = bool(args.cli_every) and (counts["archive"] + counts["cli"]) % args.cli_every == 0
            counts["cli" if via_cli else "archive"] += 1
            crashes = fuzzing.check_archive(files, rng.choice(fuzzing.ARCHIVES), root, plan, rng, via_cli, broken)
        elif args.lines_every and n % args.lines_every == args.lines_every - 2:
            counts["lines"] += 1
            crashes = fuzzing.check_lines(_text_input(rng))
        else:
            # every fixture in turn on even inputs; on odd ones a reader first, then one of its
            # fixtures (a reader with one fixture gets as many inputs as one with a hundred)
            seed = seeds[order[(k // 2) % len(seeds)]] if k % 2 == 0 else rng.choice(by_reader[rng.choice(owned)])
            plan = fuzzing.random_plan(rng)
            counts["text"] += 1
            crashes = fuzzing.check_text(fuzzing.apply(seed.data, plan), seed.owners, seed.rel, plan)
        for c in crashes:
            key = c.key()
            saved[key] = saved.get(key, 0) + 1
            if saved[key] <= args.max_saved:
                path = fuzzing.save(c, args.crashes, f"w{worker}-{len(found):04d}")
                if saved[key] == 1:
                    print(f"CRASH (worker {worker}, input {n + 1}): {c.describe()}\n  saved: {path}", flush=True)
                    if not c.archive:
                        path.with_name(path.name + ".min").write_bytes(fuzzing.minimise(c))
            c.data = b""  # saved already: not sent back to the parent
            found.append(c)
        with done.get_lock():
            done.value += 1
    counts["cli_skipped"] = fuzzing.CLI_SKIPPED
    return counts, found


def main() -> int:
    args = _args()
    if args.replay:
        crashes = fuzzing.check_text(args.replay.read_bytes(), every_parse=True)
        for c in crashes:
            print(c.describe())
        print(f"{len(crashes)} crash(es)")
        return 1 if crashes else 0

    t0 = time.perf_counter()
    seeds = fuzzing.corpus()  # loaded before the workers fork: they inherit it
    roots = fuzzing.bundle_roots()
    print(f"corpus: {len(seeds)} fixture files, {sum(len(s.data) for s in seeds):,} bytes; {len(roots)} bundles; "
          f"{len(fuzzing.readers())} readers; loaded in {time.perf_counter() - t0:.1f} s; {args.jobs} worker(s)", flush=True)
    ctx = multiprocessing.get_context("fork")
    global _DONE
    done = _DONE = ctx.Value("q", 0)
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs, mp_context=ctx) as pool:
        futures = [pool.submit(_share, args, w) for w in range(args.jobs)]
        shown = 0
        while not all(f.done() for f in futures):
            time.sleep(0.5)
            n = done.value
            if n // args.every > shown:
                shown = n // args.every
                dt = time.perf_counter() - start
                print(f"{n:>8,} inputs  {n / dt:7.1f}/s  {dt:6.0f} s", flush=True)
        results = [f.result() for f in futures]
    dt = time.perf_counter() - start
    counts = {k: sum(r[0][k] for r in results) for k in results[0][0]}
    counts["cli"] -= counts["cli_skipped"]
    counts["archive"] += counts["cli_skipped"]
    distinct: dict[tuple, list[fuzzing.Crash]] = {}
    for _, found in results:
        for c in found:
            distinct.setdefault(c.key(), []).append(c)
    total = sum(map(len, distinct.values()))
    ran = sum(v for k, v in counts.items() if k != "cli_skipped")
    print(f"\n{ran:,} inputs in {dt:.0f} s ({ran / dt:.1f} inputs/s, {args.jobs} worker(s)): {counts['text']:,} mutated "
          f"fixtures through every reader, {counts['lines']:,} spliced texts through every parse, {counts['archive']:,} "
          f"archives through diagnose_bundle + render, {counts['cli']:,} through the CLI (seed {args.seed})")
    if counts["cli_skipped"]:
        print(f"(the shipped rules did not load: {counts['cli_skipped']} archives meant for the CLI went through "
              f"diagnose_bundle instead)")
    print(f"crashes: {total} ({len(distinct)} distinct)")
    for same in distinct.values():
        print(f"- x{len(same)}: {same[0].describe()}")
    if total:
        print(f"inputs saved under {args.crashes}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
