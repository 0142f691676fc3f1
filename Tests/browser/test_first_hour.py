"""What a new user met in the first hour, pinned: an empty library shows no tools, a filtered
library's size is the shown tracks', the page asks for nothing that is not there (its icon)."""
import re

from playwright.sync_api import expect

from journey import download_all, search


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
