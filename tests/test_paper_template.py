"""A sixth paper from the template (docs/reproductions.md, "Adding a paper").

The template copied into a folder of $ATMSIM_PAPERS, its ID set and nothing
registered anywhere: the paper is listed (`reproduce --help`, names()),
reproduced (`reproduce toy` writes its claims and figure), reported (the
index links its page) and, until its golden is recorded, unpinned (the golden
test's gap list names it)."""
import json
import shutil
import sys
from pathlib import Path

import pytest
from test_golden import golden_gaps

import atmsim.reproduce as registry
from atmsim.errors import InputError

TEMPLATE = Path(registry.__file__).parent / "_template"


def from_template(folder: Path, paper_id: str) -> Path:
    """The template copied as paper `paper_id` into `folder`, with the one edit docs/reproductions.md asks for."""
    package = folder / paper_id.replace("-", "_")
    shutil.copytree(TEMPLATE, package, ignore=shutil.ignore_patterns("__pycache__"))
    init = package / "__init__.py"
    text = init.read_text(encoding="utf-8")
    assert text.count('ID = "template"') == 1
    init.write_text(text.replace('ID = "template"', f'ID = "{paper_id}"'), encoding="utf-8")
    return package


@pytest.fixture
def papers(tmp_path, monkeypatch):
    """A folder of papers on $ATMSIM_PAPERS (this process and the CLI's); forgotten afterwards."""
    folder = tmp_path / "papers"
    folder.mkdir()
    monkeypatch.setenv(registry.PAPERS_ENV, str(folder))
    yield folder
    for m in [m for m in sys.modules if m.split(".")[:3] in (["atmsim", "reproduce", "toy"], ["atmsim", "reproduce", "toy_two"])]:
        del sys.modules[m]
    if str(folder) in registry.__path__:
        registry.__path__.remove(str(folder))


def test_the_template_is_no_paper():
    assert (TEMPLATE / "__init__.py").exists()
    assert "template" not in registry.names() and "-template" not in registry.names()


def test_a_paper_from_the_template_is_listed_reproduced_reported_and_unpinned(papers, cli, tmp_path):
    from_template(papers, "toy")
    # Listed, without importing it (names() stays as light as the commands that call it).
    assert "toy" in registry.names() and "atmsim.reproduce.toy" not in sys.modules
    assert registry.paper("toy").figure_ids() == ["example"]
    help_text = cli("reproduce", "--help", check=True).stdout
    assert "\n  toy " in help_text[help_text.index("Papers (PAPER)"):]
    # Reproduced: its claims and its figure's files.
    root = tmp_path / "out"
    r = cli("reproduce", "toy", "--quick", "--workers", "1", "--out", str(root / "toy"), check=True)
    assert "1/1 claims hold" in r.stdout
    rows = json.loads((root / "toy" / "claims.json").read_text(encoding="utf-8"))
    assert [(x["paper"], x["figure"], x["id"]) for x in rows] == [("toy", "example", "toy.example.c1")]
    assert rows[0]["holds"] and rows[0]["ours"] > 0
    for name in ("example.csv", "example_runs.csv", "example.png"):
        assert (root / "toy" / name).stat().st_size > 0, name
    # Reported: its page shows the claim, the index links the page.
    assert "toy.example.c1" in (root / "toy" / "index.html").read_text(encoding="utf-8")
    cli("report", str(root), check=True)
    assert "href='toy/index.html'" in (root / "index.html").read_text(encoding="utf-8")
    # Pinned: the golden test's papers come from the registry, so the new paper is a gap until recorded.
    gaps = golden_gaps(registry.names())
    assert len(gaps) == 1 and gaps[0].startswith("toy: no toy.claims.json")


def test_a_paper_whose_id_is_not_its_folder_is_refused(papers):
    package = from_template(papers, "toy")
    package.rename(papers / "toy_two")
    with pytest.raises(ImportError, match="PAPER's ID 'toy'; its folder makes it paper 'toy-two'"):
        registry.paper("toy-two")


def test_a_missing_papers_folder_is_one_line(cli, monkeypatch, tmp_path):
    monkeypatch.setenv(registry.PAPERS_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(InputError, match=f"^{registry.PAPERS_ENV}: '.*nowhere' is not a folder$"):
        registry.names()
    r = cli("reproduce", "toy", "--quick")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "nowhere' is not a folder" in r.stderr
