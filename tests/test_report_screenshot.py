"""The HTML report in a real headless Chromium: what is drawn where, read back from a screenshot.

A timeline with two adjacent values (north over [2020, 2023), south from 2023 on, open) and a
retracted value of another fact: the bars must come out in their values' colours, in order, side
by side, the open one reaching the plot's edge; the system-time lanes must show a recorded mark
per claim in recording order, the superseded version's colour after the reported one, and a
cross where the retracted claim was withdrawn.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ledger import Ledger
from ledger.report.svg import INVALIDATED_COLOUR, RECORDED_COLOUR, STATUS_COLOURS, VALUE_COLOURS

from .conftest import TestClock

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None and os.environ.get("CI"):
    pytest.fail("CI is set but chromium is not on PATH: .ci/run installs the Debian package", pytrace=False)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH: .ci/run installs the Debian package")
Image = pytest.importorskip("PIL.Image", reason="pillow (the test extra) reads the screenshot")

WIDTH, HEIGHT = 1280, 1500


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def screenshot(page: Path, png: Path) -> None:
    """Render ``page`` in headless Chromium at a fixed size and device scale 1."""
    assert CHROMIUM is not None
    subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
         "--force-color-profile=srgb", f"--user-data-dir={png.parent / 'profile'}", f"--window-size={WIDTH},{HEIGHT}",
         f"--screenshot={png}", page.as_uri()],
        check=True, capture_output=True, timeout=120)
    assert png.is_file(), "chromium wrote no screenshot"


class Pixels:
    """Where each exact colour occurs in a screenshot."""

    def __init__(self, png: Path) -> None:
        image = Image.open(png).convert("RGB")
        self.width, self.height = image.size
        self.data = image.load()

    def where(self, colour: str, *, top: int = 0, bottom: int | None = None) -> Iterator[tuple[int, int]]:
        wanted = _rgb(colour)
        for y in range(top, self.height if bottom is None else bottom):
            for x in range(self.width):
                if self.data[x, y] == wanted:
                    yield x, y

    def runs(self, colour: str, *, longer_than: int) -> dict[int, tuple[int, int]]:
        """Row → (first x, last x) of the rows where ``colour`` covers more than ``longer_than`` pixels."""
        rows: dict[int, list[int]] = {}
        for x, y in self.where(colour):
            rows.setdefault(y, []).append(x)
        return {y: (min(xs), max(xs)) for y, xs in rows.items() if len(xs) > longer_than}


@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory) -> Pixels:
    tmp_path = tmp_path_factory.mktemp("screenshot")
    clock = TestClock()
    with Ledger.open(str(tmp_path / "ledger.db"), clock=clock) as ledger:
        clock.set("2023-02-01")
        source = ledger.add_source(text="The wind blew north from 2020 and south from 2023. The sky was red.",
                                   uri="https://weather.example/log")
        ledger.assert_claim("wind", "direction", value="north", valid_from="2020-01-01",
                            evidence=ledger.cite(source, "blew north from 2020"))
        clock.set("2023-06-01")
        ledger.assert_claim("wind", "direction", value="south", valid_from="2023-01-01",
                            evidence=ledger.cite(source, "south from 2023"))
        clock.set("2023-07-01")
        red = ledger.assert_claim("wind", "sky", value="red", evidence=ledger.cite(source, "The sky was red"))
        clock.set("2023-09-01")
        ledger.retract(red, reason="a camera filter")
        clock.set("2024-01-01")
        page = tmp_path / "timeline.html"
        page.write_text(ledger.report("timeline", "wind", format="html"), encoding="utf-8")
    png = tmp_path / "timeline.png"
    screenshot(page, png)
    return Pixels(png)


def test_the_value_bars_are_drawn_in_order_side_by_side(drawn: Pixels) -> None:
    north = drawn.runs(VALUE_COLOURS[0], longer_than=60)
    south = drawn.runs(VALUE_COLOURS[1], longer_than=20)
    assert north and south, "the two value bars are not drawn"
    north_top, south_top = min(north), min(south)
    assert south_top > north_top  # south is the second claim: the row below
    (n0, n1), (s0, s1) = north[north_top + 3], south[south_top + 3]
    assert n0 < n1 <= s0 + 1 < s1  # north ends where south begins: adjacent, not overlapping
    assert s0 - n1 <= 2
    # north holds three years (2020-2023), south one year up to the reading time and on: open to the edge
    assert 2.2 < (n1 - n0) / (s1 - s0) < 4.0
    assert max(x for _, (_, x) in south.items()) >= s1  # and its arrow, the open bound, is at the edge


def test_the_system_time_lanes_mark_recording_and_invalidation(drawn: Pixels) -> None:
    north = drawn.runs(VALUE_COLOURS[0], longer_than=60)
    below = max(north) + 40  # the system-time panel is below the world-time bars
    marks = list(drawn.where(RECORDED_COLOUR, top=below, bottom=below + 120))  # the first fact's lanes
    assert marks, "no recorded marks in the system-time lanes"
    north_x, north_y = min(marks)  # north's dot: the first recording (February)
    # south's dot: recorded later (June), on the lane below
    assert any(x > north_x + 50 and y > north_y + 8 for x, y in marks)
    # north's first version was reported, then superseded (closed by south): grey, then brown, on its lane
    grey = [x for x, _ in drawn.where(STATUS_COLOURS["reported"], top=below, bottom=below + 120)]
    brown = [x for x, _ in drawn.where(STATUS_COLOURS["superseded"], top=below, bottom=below + 120)]
    assert grey and brown and min(grey) < min(brown)
    crosses = list(drawn.where(INVALIDATED_COLOUR, top=below))
    assert crosses, "the retraction is not marked"
    retracted = list(drawn.where(STATUS_COLOURS["retracted"], top=below))
    assert retracted and min(x for x, _ in crosses) < max(x for x, _ in retracted)
