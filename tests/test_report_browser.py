"""The HTML report in a real browser: headless Chromium (the distribution's
package, installed by .ci/run) loads DIR/index.html of a two-paper
reproduction and each paper's page; every image must have loaded (the page's
own script reports it on <body data-images>), every claim of claims.json must
be a row, and a phone-sized screenshot is saved (ATMSIM_SCREENSHOT_DIR, if
set, keeps a copy). Skips only where Chromium is missing outside CI.
"""
import json
import os
import re
import shutil
import struct
import subprocess

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"),
                                reason="chromium not installed (.ci/run installs it)")


def chromium(tmp_path, url, *args):
    """Runs headless Chromium on `url` (network off: nothing may come from outside); returns stdout."""
    assert CHROMIUM, "chromium is missing: .ci/run installs it (apt-get install chromium)"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
           f"--user-data-dir={tmp_path / 'profile'}", "--proxy-server=127.0.0.1:9", "--virtual-time-budget=5000",
           *args, url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=True).stdout


def body_images(dom):
    m = re.search(r"<body[^>]*data-images=\"([^\"]*)\"", dom)
    return m.group(1) if m else None


@pytest.fixture(scope="module")
def reproduction(tmp_path_factory):
    from conftest import run_cli

    root = tmp_path_factory.mktemp("report")
    run_cli("reproduce", "morris-kung95", "--figure", "fig6", "--out", str(root / "morris-kung95"), check=True)
    run_cli("reproduce", "aron97", "--figure", "fig3", "--ks", "9,30", "--seeds", "1", "--duration", "2s",
            "--out", str(root / "aron97"), check=True)
    run_cli("report", str(root), check=True)
    return root


def test_index_links_every_paper_and_each_page_shows_every_figure_and_claim(reproduction, tmp_path):
    index = chromium(tmp_path, (reproduction / "index.html").as_uri(), "--dump-dom")
    assert body_images(index) == "loaded 0"
    links = re.findall(r"href=\"([^\"]+)/index.html\"", index)
    assert links == ["aron97", "morris-kung95"]
    for paper in links:
        d = reproduction / paper
        dom = chromium(tmp_path, (d / "index.html").as_uri(), "--dump-dom")
        pngs = list(d.glob("*.png"))
        assert pngs and body_images(dom) == f"loaded {len(pngs)}", paper
        rows = json.loads((d / "claims.json").read_text(encoding="utf-8"))
        shown = re.findall(r"<tr class=\"claim\" id=\"claim-([^\"]+)\" data-holds=\"(true|false)\"", dom)
        assert sorted(shown) == sorted((r["id"], str(r["holds"]).lower()) for r in rows), paper
        meta = json.loads((d / "reproduction.json").read_text(encoding="utf-8"))
        assert meta["commit"] in dom and meta["atmsim_version"] in dom and "name = " in dom  # scenario text
        assert "name=\"viewport\"" in dom and not re.search(r"(src|href)=\"(https?:)?//", dom), "offline"


def test_a_missing_figure_is_reported_and_a_phone_screenshot_is_saved(reproduction, tmp_path):
    page = reproduction / "morris-kung95" / "index.html"
    shot = tmp_path / "morris-kung95-phone.png"
    chromium(tmp_path, page.as_uri(), "--window-size=412,1600", f"--screenshot={shot}")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24]) == (412, 1600) and len(data) > 20_000
    if os.environ.get("ATMSIM_SCREENSHOT_DIR"):
        shutil.copy(shot, os.environ["ATMSIM_SCREENSHOT_DIR"])
    # The same check fails when a figure is gone.
    broken = tmp_path / "broken"
    shutil.copytree(page.parent, broken)
    (broken / "fig6.png").unlink()
    dom = chromium(tmp_path, (broken / "index.html").as_uri(), "--dump-dom")
    assert body_images(dom) == "broken 1 of 1" and "figure missing: fig6.png" in dom
