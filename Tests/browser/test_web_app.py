"""The web app in a real headless Chromium, found by role and name as a user would find things."""
import io
import json
import pathlib
import re
import time
import urllib.request
import wave

from playwright.sync_api import expect

from conftest import ARTIFACTS
from journey import PERCENT_OF, row, search

def api_downloads(demo):
    with urllib.request.urlopen(demo.url + "/api/downloads") as response:
        return json.load(response)


def received(demo, track_id):
    for item in api_downloads(demo)["downloads"]:
        if item["id"] == track_id:
            return item["receivedBytes"]
    return None


def audio_frames(source):
    """The PCM frames of a WAV file or URL, read by Python's own wave module (not by HalfTunes)."""
    if source.startswith("http"):
        with urllib.request.urlopen(source) as response:
            data = io.BytesIO(response.read())
    else:
        data = io.BytesIO(pathlib.Path(source).read_bytes())
    with wave.open(data, "rb") as audio:
        return audio.readframes(audio.getnframes())


def preview_url(demo, track_id):
    listing = api_downloads(demo)
    return next(item["previewURL"] for item in listing["library"] + listing["downloads"] if item["id"] == track_id)


def test_search_shows_rows(demo, browser):
    page = browser.new_page()
    page.goto(demo.url)
    search(page, "love")
    expect(page.get_by_role("status")).to_have_text("5 songs found for “love”.")
    expect(page.locator("#results tbody tr")).to_have_count(5)
    harbour = row(page, "Love in the Harbour")
    expect(harbour.get_by_role("cell", name="The Paper Lanterns")).to_be_visible()
    expect(harbour.get_by_role("button", name="Download Love in the Harbour")).to_be_visible()
    expect(harbour.get_by_role("img")).to_have_attribute("alt", "Cover of Harbour Lights")


def test_download_pause_resume_and_screenshot(demo, browser):
    page = browser.new_page()
    page.goto(demo.url)
    search(page, "paper boats")
    boats = row(page, "Paper Boats")
    boats.get_by_role("button", name="Download").click()

    label = boats.locator(".progress-label")
    expect(label).to_have_text(PERCENT_OF, timeout=10_000)
    progress = boats.get_by_role("progressbar")
    first = float(progress.get_attribute("value") or 0)
    page.wait_for_function(
        "([selector, first]) => parseFloat(document.querySelector(selector).value) > first + 5",
        arg=["#results tbody tr progress", first], timeout=10_000)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "web-mid-download.png"), full_page=True)

    boats.get_by_role("button", name="Pause").click()
    expect(label).to_have_text("Paused")
    expect(boats.get_by_role("button", name="Resume")).to_be_visible()
    paused_at = received(demo, 1002)
    part = [p for p in demo.library.glob("*.part")]
    assert len(part) == 1
    size = part[0].stat().st_size
    time.sleep(1.0)  # long enough for several chunks at 300 KB/s, had it not stopped
    assert received(demo, 1002) == paused_at
    assert part[0].stat().st_size == size
    assert 0 < size < 1_323_044

    boats.get_by_role("button", name="Resume").click()
    expect(boats.get_by_text("In library")).to_be_visible(timeout=15_000)
    expect(boats.get_by_role("button", name="Play Paper Boats")).to_be_visible()
    assert demo.library_files() == ["The Paper Lanterns - Paper Boats [1002].wav"]
    library = page.locator("#library tbody tr")
    expect(library).to_have_count(1)


def test_cancel_leaves_nothing(demo, browser):
    page = browser.new_page()
    page.goto(demo.url)
    search(page, "tidewater")
    tide = row(page, "Tidewater")
    tide.get_by_role("button", name="Download").click()
    expect(tide.locator(".progress-label")).to_have_text(PERCENT_OF, timeout=10_000)
    tide.get_by_role("button", name="Cancel").click()
    expect(tide.get_by_role("button", name="Download Tidewater")).to_be_visible()
    assert demo.library_files() == []
    assert api_downloads(demo)["downloads"] == []


def test_play_a_downloaded_track(demo, browser):
    page = browser.new_page()
    page.goto(demo.url)
    search(page, "fog horn")
    fog = row(page, "Fog Horn")
    fog.get_by_role("button", name="Download").click()
    expect(fog.get_by_text("In library")).to_be_visible(timeout=15_000)
    fog.get_by_role("button", name="Play Fog Horn").click()
    expect(page.locator("#now-playing")).to_have_text("Playing: Fog Horn — The Paper Lanterns")
    page.wait_for_function("() => document.getElementById('player').currentTime > 0.5", timeout=10_000)
    assert page.evaluate("document.getElementById('player').paused") is False


def test_second_tab_sees_the_first_tabs_download(demo, browser):
    context = browser.new_context()
    first, second = context.new_page(), context.new_page()
    for page in (first, second):
        page.goto(demo.url)
        search(page, "slow burn")
    row(first, "Slow Burn").get_by_role("button", name="Download").click()
    expect(row(second, "Slow Burn").locator(".progress-label")).to_have_text(PERCENT_OF, timeout=10_000)
    expect(row(second, "Slow Burn").get_by_text("In library")).to_be_visible(timeout=15_000)
    context.close()


def test_closing_every_tab_does_not_stop_the_download(demo, browser):
    context = browser.new_context()
    page = context.new_page()
    page.goto(demo.url)
    search(page, "kindling")
    row(page, "Kindling").get_by_role("button", name="Download").click()
    expect(row(page, "Kindling").locator(".progress-label")).to_have_text(PERCENT_OF, timeout=10_000)
    context.close()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and demo.library_files() != ["Greta Sundqvist - Kindling [1040].wav"]:
        time.sleep(0.1)
    assert demo.library_files() == ["Greta Sundqvist - Kindling [1040].wav"]
    kindling = demo.library / "Greta Sundqvist - Kindling [1040].wav"
    assert audio_frames(str(kindling)) == audio_frames(preview_url(demo, 1040))


def test_play_while_downloading(slow_demo, browser):
    page = browser.new_page()
    page.goto(slow_demo.url)
    search(page, "harbour")
    harbour = row(page, "Love in the Harbour")
    harbour.get_by_role("button", name="Download").click()
    play = harbour.get_by_role("button", name="Play Love in the Harbour")
    expect(play).to_be_visible(timeout=10_000)
    percent = float(harbour.get_by_role("progressbar").get_attribute("value") or 0)
    assert percent < 50, f"the download was already at {percent}%"
    started = time.monotonic()
    play.click()
    page.wait_for_function("() => document.getElementById('player').currentTime > 0.2", timeout=5_000)
    to_sound = time.monotonic() - started
    # Still downloading while it plays.
    expect(harbour.locator(".progress-label")).to_have_text(PERCENT_OF)
    assert page.evaluate("document.getElementById('player').paused") is False
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "play-while-downloading.txt").write_text(
        f"Play pressed at {percent:.1f}% downloaded; currentTime > 0.2 s after {to_sound:.2f} s\n")
    expect(harbour.get_by_text("In library")).to_be_visible(timeout=30_000)
    library = slow_demo.library / "The Paper Lanterns - Love in the Harbour [1001].wav"
    assert audio_frames(str(library)) == audio_frames(preview_url(slow_demo, 1001))
    assert page.evaluate("document.getElementById('player').error") is None


def test_store_links_open_in_a_new_tab(demo, browser):
    page = browser.new_page()
    page.goto(demo.url)
    search(page, "fog horn")
    link = row(page, "Fog Horn").get_by_role("link", name="Fog Horn in the store")
    expect(link).to_have_attribute("target", "_blank")
    expect(link).to_have_attribute("rel", "noopener")
    with page.context.expect_page() as opened:
        link.click()
    store = opened.value
    store.wait_for_load_state()
    expect(store.get_by_role("heading", level=1)).to_have_text("Fog Horn — The Paper Lanterns")


def test_errors_show_in_the_page(demo, browser):
    page = browser.new_page()
    page.goto(demo.url)
    search(page, "deck chairs")
    expect(row(page, "Deck Chairs").get_by_text("No preview")).to_be_visible()
    page.route("**/api/search*", lambda route: route.fulfill(
        status=502, content_type="application/json",
        body=json.dumps({"v": 1, "code": "upstreamFailure",
                         "message": "cannot reach the catalog at itunes.apple.com: connection refused"})))
    search(page, "anything")
    expect(page.get_by_role("alert")).to_have_text("cannot reach the catalog at itunes.apple.com: connection refused")


def test_reload_shows_downloads_in_flight(demo, browser):
    page = browser.new_page()
    page.goto(demo.url)
    search(page, "lighthouse")
    row(page, "Lighthouse Keeper").get_by_role("button", name="Download").click()
    expect(row(page, "Lighthouse Keeper").locator(".progress-label")).to_have_text(PERCENT_OF, timeout=10_000)
    row(page, "Lighthouse Keeper").get_by_role("button", name="Pause").click()
    expect(row(page, "Lighthouse Keeper").locator(".progress-label")).to_have_text("Paused")
    page.reload()
    expect(page.locator("#results-status")).to_have_text("1 download in progress.")
    expect(row(page, "Lighthouse Keeper").locator(".progress-label")).to_have_text("Paused")
    row(page, "Lighthouse Keeper").get_by_role("button", name="Resume").click()
    expect(row(page, "Lighthouse Keeper").get_by_text("In library")).to_be_visible(timeout=15_000)


def test_library_follows_changes_without_refetching_the_listing(demo, browser):
    page = browser.new_page()
    listings = []
    page.on("request", lambda request: listings.append(request.url.split("/api/downloads", 1)[1])
            if re.search(r"/api/downloads(\?|$)", request.url) else None)
    page.goto(demo.url)
    search(page, "paper boats")
    row(page, "Paper Boats").get_by_role("button", name="Download").click()
    library = page.locator("#library tbody tr")
    expect(library).to_have_count(1, timeout=15_000)
    expect(page.locator("#library-summary")).to_have_text("1 track, 1.3 MB")
    page.get_by_role("button", name="Remove Paper Boats").click()
    expect(library).to_have_count(0)
    expect(page.get_by_text("Nothing downloaded yet.")).to_be_visible()
    # The file goes when the Undo offer ends.
    expect(page.get_by_role("button", name="Undo removing Paper Boats")).to_be_hidden(timeout=10_000)
    deadline = time.monotonic() + 10
    while demo.library_files() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert demo.library_files() == []
    # One listing at start; after that, only what changed.
    assert listings[0] == "?limit=200"
    assert all(query.startswith("?since=") for query in listings[1:]), listings
    assert len(listings) >= 3, listings


def test_a_busy_server_shows_when_the_download_tries_again(busy_demo, browser):
    """Every preview answered 503: while the download waits to try again, its row says when and why."""
    page = browser.new_page()
    page.goto(busy_demo.url)
    search(page, "fog horn")
    fog_horn = row(page, "Fog Horn")
    fog_horn.get_by_role("button", name="Download Fog Horn").click()
    expect(fog_horn).to_contain_text(
        re.compile(r"Retrying in \d+(\.\d)? s: the server answered HTTP 503"), timeout=15_000)
    # Still a running download meanwhile: it can be paused.
    expect(fog_horn.get_by_role("button", name="Pause Fog Horn")).to_be_visible()
    # Nothing landed in the library.
    assert busy_demo.library_files() == []
