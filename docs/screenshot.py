"""Screenshots of the built site with headless Chromium (Debian package ``chromium``).

Usage (after ``sphinx-build -W --keep-going -b html docs docs/_build/html``)::

    python docs/screenshot.py                      # -> docs/screenshots/*.png
    python docs/screenshot.py --out /tmp/shots --pages index.html api/_generated/numpy.html

Exits with status 1 if Chromium is missing, a page is not built, or a screenshot is not
written (a PNG of a blank page is still written: look at the images).
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
PAGES = ["index.html", "api/_generated/ftrans.html", "api/_generated/numpy.html",
         "notebooks/02_nist_curve_fitting.html"]


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("no Chromium found: install the Debian package (apt-get install chromium)")


def shoot(browser, html: Path, png: Path, size=(1400, 1000)) -> None:
    with tempfile.TemporaryDirectory() as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}",
               "--virtual-time-budget=3000", f"--screenshot={png}", html.as_uri()]
        subprocess.run(cmd, check=True, capture_output=True, timeout=120)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--html", type=Path, default=DOCS / "_build" / "html")
    ap.add_argument("--out", type=Path, default=DOCS / "screenshots")
    ap.add_argument("--pages", nargs="*", default=PAGES)
    args = ap.parse_args(argv)
    browser = chromium()
    args.out.mkdir(parents=True, exist_ok=True)
    failed = 0
    for page in args.pages:
        html = args.html / page
        png = args.out / (page.replace("/", "_").removesuffix(".html") + ".png")
        if not html.exists():
            print(f"missing: {html} (build the docs first)")
            failed += 1
            continue
        png.unlink(missing_ok=True)
        shoot(browser, html, png)
        ok = png.exists() and png.stat().st_size > 0
        print(f"{'wrote' if ok else 'FAILED'}: {png}")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
