"""What a new user met in the first hour, pinned: an empty library shows no tools, a filtered
library's size is the shown tracks', the page asks for nothing that is not there (its icon)."""
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from playwright.sync_api import expect

from conftest import BINARY

from journey import download_all, row, search


def test_empty_library_shows_no_sort_or_filter(browser, fast_demo):
    page = browser.new_page()
    page.goto(fast_demo.url)
    expect(page.get_by_text("Nothing downloaded yet.")).to_be_visible()
    expect(page.get_by_role("combobox", name="Sort by")).to_be_hidden()
    expect(page.get_by_role("searchbox", name="Filter")).to_be_hidden()
    search(page, "love")
    download_all(page, ["Love in the Harbour"])
    expect(page.get_by_role("combobox", name="Sort by")).to_be_visible()
    expect(page.get_by_role("searchbox", name="Filter")).to_be_visible()


def sizes(page):
    """The library's sizes as the API gives them, by title."""
    listing = page.request.get(page.url.rstrip("/") + "/api/downloads").json()
    return {item["name"]: item["receivedBytes"] for item in listing["library"]}


def shown_size(count):
    """A size as the page writes it (format.js)."""
    for limit, unit in ((1e3, "KB"), (1e6, "MB"), (1e9, "GB")):
        if count < limit * 1000:
            return f"{round(count / limit * 10) / 10:.1f} {unit}"


def test_a_filtered_library_gives_the_size_of_what_it_shows(browser, fast_demo):
    page = browser.new_page()
    page.goto(fast_demo.url)
    search(page, "love")
    download_all(page, ["Love in the Harbour", "Love Letters (Unsent)"])
    summary = page.locator("#library-summary")
    expect(summary).to_have_text(re.compile(r"^2 tracks, "))
    size = sizes(page)["Love Letters (Unsent)"]
    page.get_by_role("searchbox", name="Filter").fill("letters")
    expect(summary).to_have_text(f"1 of 2 tracks, {shown_size(size)}")


def test_the_page_asks_for_nothing_missing_and_has_an_icon(browser, fast_demo):
    page = browser.new_page()
    failed = []
    page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
    page.on("console", lambda message: failed.append(message.text) if message.type == "error" else None)
    page.goto(fast_demo.url)
    expect(page.get_by_role("searchbox", name="Search songs")).to_be_visible()
    icon = page.locator("link[rel=icon]").get_attribute("href")
    assert page.request.get(page.url.rstrip("/") + icon).status == 200
    page.wait_for_load_state("networkidle")
    assert failed == []


def boxes(page, titles, locate):
    """The bounding box of what `locate(row)` finds in each title's result row."""
    return {title: locate(row(page, title)).bounding_box() for title in titles}


LOVE = ["Love in the Harbour", "Love Letters (Unsent)", "Love Potion 💖"]


def test_results_columns_stay_put_and_a_long_reason_takes_one_line(browser, failing_demo):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(failing_demo.url)
    search(page, "love")
    expect(page.get_by_role("columnheader", name="Actions")).to_be_visible()
    expect(page.get_by_role("columnheader", name="Status")).to_be_visible()
    title_cell = lambda r: r.get_by_role("cell").nth(1)
    before = boxes(page, LOVE, title_cell)
    first_button = lambda r: r.get_by_role("button").first
    row(page, LOVE[0]).get_by_role("button", name=f"Download {LOVE[0]}").click()
    label = row(page, LOVE[0]).locator(".progress-label")
    expect(label).to_have_text(re.compile(r"^Failed: .*HTTP 404"), timeout=15_000)
    after = boxes(page, LOVE, title_cell)
    for title in LOVE:
        assert after[title]["x"] == before[title]["x"] and after[title]["width"] == before[title]["width"], title
        assert after[title]["height"] <= before[title]["height"], f"{title} wraps now"
    # The reason in one line, all of it in the tooltip (and in the text a screen reader reads).
    line = page.evaluate("(e) => parseFloat(getComputedStyle(e).lineHeight) || 1.2 * parseFloat(getComputedStyle(e).fontSize)",
                         label.element_handle())
    assert label.bounding_box()["height"] < 1.5 * line
    assert label.get_attribute("title") == label.text_content()
    # Retry in the failed row starts where Download does in the others.
    xs = {round(box["x"]) for box in boxes(page, LOVE, first_button).values()}
    assert len(xs) == 1, xs


def test_download_and_play_start_at_the_same_x(browser, fast_demo):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(fast_demo.url)
    search(page, "love")
    download_all(page, [LOVE[0]])
    expect(row(page, LOVE[0]).get_by_role("button", name=f"Play {LOVE[0]}")).to_be_visible()
    xs = {round(box["x"]) for box in boxes(page, LOVE, lambda r: r.get_by_role("button").first).values()}
    assert len(xs) == 1, xs


def test_the_speed_limit_is_set_from_the_page_and_read_by_the_command_line(browser, demo):
    page = browser.new_page()
    page.goto(demo.url)
    limit = page.get_by_role("combobox", name="Speed limit")
    expect(limit).to_have_value("0")
    limit.select_option(label="1 MB/s")
    expect(page.get_by_role("status")).to_have_text("Downloads limited to 1 MB/s")
    assert page.request.get(demo.url + "/api/limit-rate").json()["bytesPerSecond"] == 1_000_000
    shown = subprocess.run([str(BINARY), "limit-rate"], capture_output=True, text=True, timeout=30,
                           env=dict(os.environ, HALFTUNES_HOME=str(demo.home)))
    assert shown.stdout == "Downloads capped at 1.0 MB/s in all.\n", shown.stderr
    subprocess.run([str(BINARY), "limit-rate", "500k"], check=True, capture_output=True, timeout=30,
                   env=dict(os.environ, HALFTUNES_HOME=str(demo.home)))
    page.reload()
    expect(page.get_by_role("combobox", name="Speed limit")).to_have_value("512000")
    page.get_by_role("combobox", name="Speed limit").select_option(label="None")
    expect(page.get_by_role("status")).to_have_text("No speed limit")
    assert "bytesPerSecond" not in page.request.get(demo.url + "/api/limit-rate").json()


def test_covers_come_at_the_size_shown_and_twice_that_on_a_2x_screen(browser, fast_demo):
    for scale, size in ((1, 48), (2, 96)):
        page = browser.new_page(device_scale_factor=scale)
        page.goto(fast_demo.url)
        search(page, "love")
        cover = row(page, "Love in the Harbour").get_by_role("img", name="Cover of Harbour Lights")
        expect(cover).to_be_visible()
        page.wait_for_function("(e) => e.complete && e.naturalWidth > 0", arg=cover.element_handle())
        source = cover.evaluate("(e) => e.currentSrc")
        assert source.endswith(f"/{size}x{size}bb.svg")
        assert f'width="{size}"' in page.request.get(source).text(), "the catalog drew it at that size"
        page.close()


def test_export_playlist_gives_an_m3u8_whose_every_entry_plays(browser, fast_demo):
    if not shutil.which("ffprobe"):
        pytest.skip("needs ffprobe (apt-get install ffmpeg)")
    page = browser.new_page()
    page.goto(fast_demo.url)
    search(page, "love")
    download_all(page, ["Love in the Harbour", "Love Letters (Unsent)"])
    with page.expect_download() as download:
        page.get_by_role("link", name="Export playlist").click()
    text = pathlib.Path(download.value.path()).read_text()
    lines = text.splitlines()
    assert lines[0] == "#EXTM3U"
    entries = [line for line in lines if line and not line.startswith("#")]
    assert len(entries) == 2
    for info, entry in zip([l for l in lines if l.startswith("#EXTINF:")], entries):
        probed = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", entry],
                                capture_output=True, text=True, timeout=30)
        assert probed.returncode == 0, probed.stderr
        assert round(float(probed.stdout)) == int(info.split(":")[1].split(",")[0])
