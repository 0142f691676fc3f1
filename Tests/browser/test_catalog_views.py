"""The album and artist views, More results and the search filters, as a user meets them."""
import json
import re
import urllib.parse
import urllib.request

from playwright.sync_api import expect

from journey import focused_name, row, search

# The DemoCatalog's album on two discs (a music video among its tracks), in track order.
SIGNAL_PATH = ["Carrier Wave", "Handshake", "Dial Tone", "Packet Loss", "Echo Request"]


def api(demo, path):
    with urllib.request.urlopen(demo.url + path) as response:
        return json.load(response)


def signal_path_ids(demo):
    """The album's and its artist's ids, as the catalog gives them (not written into the test)."""
    song = api(demo, "/api/search?term=" + urllib.parse.quote("handshake static orchard"))["results"][0]
    return song["collectionId"], song["artistId"]


def titles(page):
    return [t.strip() for t in page.locator("#results tbody td.title").all_text_contents()]


def test_album_view_in_track_order_download_all_and_back_to_the_results(fast_demo, browser):
    page = browser.new_page()
    page.goto(fast_demo.url)
    search(page, "handshake")
    expect(page.locator("#results tbody tr")).to_have_count(1)
    album, _ = signal_path_ids(fast_demo)
    row(page, "Handshake").get_by_role("link", name="Signal Path (Deluxe)").click()
    expect(page.get_by_role("heading", name="Signal Path (Deluxe)")).to_be_focused()
    assert page.url.endswith(f"#/album/{album}")
    expect(page.locator("#results-status")).to_have_text("5 songs of its 6 tracks offered.")
    expect(page.get_by_role("link", name="Static Orchard").first).to_be_visible()
    assert titles(page) == SIGNAL_PATH  # in disc and track order; the music video is not offered
    expect(page.locator("#view-header").get_by_role("img", name="Cover of Signal Path (Deluxe)")).to_be_visible()
    page.get_by_role("button", name="Download all").click()
    for title in SIGNAL_PATH:
        expect(row(page, title).get_by_text("In library")).to_be_visible(timeout=30_000)
    assert len([f for f in fast_demo.library_files() if f.endswith(".wav")]) == 5
    page.go_back()
    expect(page.get_by_role("heading", name="Results")).to_be_visible()
    assert "#" not in page.url
    assert titles(page) == ["Handshake"]
    expect(row(page, "Handshake").get_by_text("In library")).to_be_visible()
    # Focus is back on the link that was followed.
    assert focused_name(page) == "Signal Path (Deluxe)"
    assert page.evaluate("document.activeElement.closest('tr').dataset.trackId") == "1042"


def test_a_shared_album_url_opens_it_and_its_artist_view_comes_back_on_back(fast_demo, browser):
    album, artist = signal_path_ids(fast_demo)
    page = browser.new_page()
    page.goto(f"{fast_demo.url}/#/album/{album}")
    expect(page.get_by_role("heading", name="Signal Path (Deluxe)")).to_be_visible()
    assert titles(page) == SIGNAL_PATH
    page.locator("#view-facts").get_by_role("link", name="Static Orchard").click()
    expect(page.get_by_role("heading", name="Static Orchard")).to_be_focused()
    assert page.url.endswith(f"#/artist/{artist}")
    expect(page.locator("#results-status")).to_have_text("12 songs, newest first.")
    expect(page.get_by_role("button", name="Download all")).to_be_hidden()
    shown = titles(page)
    assert shown[:5] == list(reversed(SIGNAL_PATH)) and "Price Tag" in shown
    page.go_back()
    expect(page.get_by_role("heading", name="Signal Path (Deluxe)")).to_be_visible()
    assert titles(page) == SIGNAL_PATH
    assert focused_name(page) == "Static Orchard"
    # An album the catalog does not have: the page says so.
    page.goto(f"{fast_demo.url}/#/album/77")
    expect(page.get_by_role("alert")).to_contain_text("the catalog has no album 77")


def test_more_results_adds_the_next_page_without_duplicates(fast_demo, browser):
    page = browser.new_page()
    page.goto(fast_demo.url)
    search(page, "e")
    expect(page.locator("#results tbody tr")).to_have_count(25)
    more = page.get_by_role("button", name="More results")
    with page.expect_request(re.compile(r"/api/search\?.*offset=25")):
        more.click()
    expect(page.locator("#results tbody tr")).to_have_count(41)
    expect(more).to_be_hidden()
    ids = page.evaluate("[...document.querySelectorAll('#results tbody tr')].map(r => r.dataset.trackId)")
    assert len(set(ids)) == 41
    expect(page.locator("#results-status")).to_have_text("41 songs found for “e”.")
    expect(page.get_by_role("status")).to_have_text("16 more songs: 41 in all.")


def test_filters_narrow_the_search(fast_demo, browser):
    page = browser.new_page()
    page.goto(fast_demo.url)
    search(page, "lanterns")
    expect(page.locator("#results tbody tr")).to_have_count(10)
    page.get_by_role("combobox", name="Match").select_option(label="Song title")
    search(page, "lanterns")
    expect(page.locator("#results-status")).to_have_text("No songs found for “lanterns”.")
    page.get_by_role("combobox", name="Match").select_option(label="Album")
    search(page, "night ferry")
    expect(page.locator("#results tbody tr")).to_have_count(4)
    assert titles(page) == ["Night Ferry", "Love Letters (Unsent)", "Fog Horn", "Deck Chairs"]
    page.get_by_role("combobox", name="Match").select_option(label="Anything")
    search(page, "slow burn")
    expect(page.locator("#results tbody tr")).to_have_count(1)
    page.get_by_role("combobox", name="Explicit songs").select_option(label="Leave out")
    page.get_by_role("combobox", name="Language").select_option(label="Japanese")
    with page.expect_request(re.compile(r"/api/search\?")) as asked:
        search(page, "slow burn")
    query = urllib.parse.parse_qs(urllib.parse.urlparse(asked.value.url).query)
    assert query["explicit"] == ["no"] and query["lang"] == ["ja_jp"]
    expect(page.locator("#results-status")).to_have_text("No songs found for “slow burn”.")
