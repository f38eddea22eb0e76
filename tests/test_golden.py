"""Golden outputs: the CLI gives exactly what it gave when they were recorded.

`run --json` of every built-in scenario for seeds 1-3 must equal the core's
goldens (crates/atmsim-core/tests/golden, wall time aside), and
`reproduce all --quick` of every registered paper must write the same claims.json
files and the same tables, byte for byte. A change of behaviour must re-record them and say why
(ATMSIM_BLESS=1 python -m pytest tests/test_golden.py).
"""
import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from atmsim.reproduce import names

ROOT = Path(__file__).resolve().parent.parent
CORE_GOLDEN = ROOT / "crates/atmsim-core/tests/golden"
REPRO_GOLDEN = ROOT / "tests/golden/reproduce-all-quick"
SCENARIOS = sorted(p.stem for p in (ROOT / "python/atmsim/scenarios").glob("*.toml"))


#: The 1,024-host runs take 5-25 s each: seed 1 here, seeds 1-3 in the core's golden test.
HEAVY = {"eqds-perm-1024", "eqds-perm-1024-1path"}


def shortened_as_golden(got, want):
    """`got` with each list the core's golden keeps shortened (longer than 1,000 entries: its count,
    first 8 entries and a digest, crates/atmsim-core/tests/golden.rs) shortened alike, the digest
    taken from `want`: the core's golden test checks the digest of the same run."""
    if isinstance(want, dict) and set(want) == {"entries", "digest", "first"} and isinstance(got, list):
        return {"entries": len(got), "digest": want["digest"], "first": got[:len(want["first"])]}
    if isinstance(want, dict) and isinstance(got, dict):
        return {k: shortened_as_golden(v, want.get(k)) for k, v in got.items()}
    if isinstance(want, list) and isinstance(got, list):
        return [shortened_as_golden(g, w) for g, w in zip(got, want)] + got[len(want):]
    return got


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_run_json_matches_core_golden(cli, scenario, seed):
    if scenario in HEAVY and seed != 1:
        pytest.skip("a 1,024-host run: seed 1 here, all three in the core's golden test")
    r = cli("run", scenario, "--seed", str(seed), "--json", check=True)
    got = json.loads(r.stdout)
    got.pop("wall_s")
    want = json.loads((CORE_GOLDEN / f"{scenario}.s{seed}.json").read_text(encoding="utf-8"))
    want.pop("wall_s")
    assert shortened_as_golden(got, want) == want


def golden_gaps(papers, golden: Path = REPRO_GOLDEN) -> list[str]:
    """What keeps `papers` (the registry's) from being pinned: a paper without its claims golden, a
    claims golden of no paper. A new paper is pinned by recording its golden, nothing else."""
    have = {p.name.removesuffix(".claims.json") for p in golden.glob("*.claims.json")}
    return ([f"{p}: no {p}.claims.json in {golden} (ATMSIM_BLESS=1 records it)" for p in papers if p not in have]
            + [f"{h}.claims.json: no such paper" for h in sorted(have - set(papers))])


def test_every_registered_paper_is_pinned():
    assert golden_gaps(names()) == []


def test_reproduce_all_quick_matches_golden(cli, tmp_path):
    # Every registered paper as `reproduce all --quick` lays it out: its claims.json and every table.
    papers = names()
    out = tmp_path / "all"
    cli("reproduce", "all", "--quick", "--out", str(out), check=True)
    # The plots tests/test_arb.py checked on a quick run of its own (it reads this run's claims from the golden).
    for png in ("fig6", "fig7", "fig10", "fig12", "fig14", "fig16"):
        assert (out / "arb" / f"{png}.png").stat().st_size > 0, png
    tables = sorted(p for paper in papers for p in (out / paper).glob("*.csv"))
    digests = "".join(f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(out)}\n" for p in tables)
    if os.environ.get("ATMSIM_BLESS"):
        for paper in papers:
            shutil.copy(out / paper / "claims.json", REPRO_GOLDEN / f"{paper}.claims.json")
        (REPRO_GOLDEN / "tables.sha256").write_text(digests, encoding="utf-8")
    assert golden_gaps(papers) == []
    for paper in papers:
        assert (out / paper / "claims.json").read_text(encoding="utf-8") == (REPRO_GOLDEN / f"{paper}.claims.json").read_text(encoding="utf-8"), paper
    assert digests == (REPRO_GOLDEN / "tables.sha256").read_text(encoding="utf-8")
