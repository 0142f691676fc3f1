"""The library as a player: sorted, filtered, counted; Play goes on with the next track; Remove
can be undone for a few seconds."""
import re

from playwright.sync_api import expect

from journey import announcer, focused_name, library_row, row, search

# Downloaded one after another, so the library's "date added" order is known: newest first.
ADDED = ["Modem Love", "Love in the Harbour", "Love Is a Long Winter"]
ARTISTS = {"Modem Love": "Static Orchard", "Love in the Harbour": "The Paper Lanterns",
           "Love Is a Long Winter": "Greta Sundqvist"}


def build_library(page, demo):
    page.goto(demo.url)
    search(page, "love")
    for title in ADDED:
        row(page, title).get_by_role("button", name=f"Download {title}").click()
        expect(row(page, title).get_by_text("In library")).to_be_visible(timeout=15_000)
    expect(page.locator("#library tbody tr")).to_have_count(3)


def titles(page):
    return page.locator("#library tbody tr td.title").all_inner_texts()


def size_text(count):
    """The page's size format, from the bytes on disk (counted here, not by the page)."""
    return f"{round(count / 1e6, 1):.1f} MB"


def now_playing(page):
    return page.locator("#now-playing")


def test_sort_filter_and_totals(fast_demo, browser):
    page = browser.new_page()
    build_library(page, fast_demo)
    assert titles(page) == list(reversed(ADDED))
    on_disk = sum(path.stat().st_size for path in fast_demo.library.glob("*.wav"))
    summary = page.locator("#library-summary")
    expect(summary).to_have_text(f"3 tracks, {size_text(on_disk)}")

    sort = page.get_by_role("combobox", name="Sort by")
    sort.select_option(label="Title")
    assert titles(page) == ["Love in the Harbour", "Love Is a Long Winter", "Modem Love"]
    sort.select_option(label="Artist")
    assert titles(page) == ["Love Is a Long Winter", "Modem Love", "Love in the Harbour"]
    sort.select_option(label="Date added")
    assert titles(page) == list(reversed(ADDED))

    box = page.get_by_role("searchbox", name="Filter")
    box.fill("orchard")  # the artist
    expect(page.locator("#library tbody tr")).to_have_count(1)
    assert titles(page) == ["Modem Love"]
    # Filtered, the size is the shown track's own.
    modem = sum(path.stat().st_size for path in fast_demo.library.glob("*Modem Love*.wav"))
    expect(summary).to_have_text(f"1 of 3 tracks, {size_text(modem)}")
    expect(announcer(page)).to_have_text("1 track shown")
    box.fill("harbour lights")  # the album, two words
    assert titles(page) == ["Love in the Harbour"]
    box.fill("no such song")
    expect(page.locator("#library")).to_be_hidden()
    expect(page.get_by_text("No tracks match the filter.")).to_be_visible()
    box.fill("")
    expect(page.locator("#library tbody tr")).to_have_count(3)


def test_play_goes_on_with_the_next_track(fast_demo, browser):
    page = browser.new_page()
    build_library(page, fast_demo)
    page.get_by_role("combobox", name="Sort by").select_option(label="Title")
    previous, next_ = page.get_by_role("button", name="Previous"), page.get_by_role("button", name="Next")
    library_row(page, "Love in the Harbour").get_by_role("button", name="Play Love in the Harbour").click()
    expect(now_playing(page)).to_have_text("Playing: Love in the Harbour — The Paper Lanterns")
    expect(previous).to_be_disabled()
    expect(next_).to_be_enabled()
    metadata = "() => [navigator.mediaSession.metadata.title, navigator.mediaSession.metadata.artist]"
    assert page.evaluate(metadata) == ["Love in the Harbour", "The Paper Lanterns"]

    next_.click()
    expect(now_playing(page)).to_have_text("Playing: Love Is a Long Winter — Greta Sundqvist")
    page.wait_for_function("() => document.getElementById('player').currentTime > 0.2", timeout=10_000)
    assert page.evaluate(metadata) == ["Love Is a Long Winter", "Greta Sundqvist"]
    # When a track ends, the next one starts by itself.
    page.evaluate("() => { const p = document.getElementById('player'); p.currentTime = p.duration - 0.3; }")
    expect(now_playing(page)).to_have_text("Playing: Modem Love — Static Orchard", timeout=10_000)
    page.wait_for_function("() => document.getElementById('player').currentTime > 0.2", timeout=10_000)
    assert page.evaluate("() => new URL(document.getElementById('player').src).pathname") == "/library/1033"
    expect(next_).to_be_disabled()
    previous.click()
    expect(now_playing(page)).to_have_text("Playing: Love Is a Long Winter — Greta Sundqvist")


def test_remove_can_be_undone(fast_demo, browser):
    page = browser.new_page()
    build_library(page, fast_demo)
    files = fast_demo.library_files()
    assert len(files) == 3
    winter = "Greta Sundqvist - Love Is a Long Winter [1039].wav"

    library_row(page, "Love Is a Long Winter").get_by_role("button", name="Remove Love Is a Long Winter").click()
    undo = page.get_by_role("button", name="Undo removing Love Is a Long Winter")
    expect(undo).to_be_focused()
    expect(announcer(page)).to_have_text("Removed Love Is a Long Winter. Undo for 5 seconds.")
    expect(page.locator("#library tbody tr")).to_have_count(2)
    expect(page.locator("#library-summary")).to_have_text(re.compile(r"^2 tracks, "))
    undo.click()
    expect(announcer(page)).to_have_text("Restored Love Is a Long Winter")
    assert titles(page) == list(reversed(ADDED))
    expect(library_row(page, "Love Is a Long Winter").get_by_role("button").first).to_be_focused()
    assert winter in fast_demo.library_files()

    library_row(page, "Love Is a Long Winter").get_by_role("button", name="Remove Love Is a Long Winter").click()
    expect(undo).to_be_focused()
    expect(undo).to_be_hidden(timeout=10_000)
    # The offer ended: the file is gone and focus is on the next row, not lost.
    expect(page.locator("#library tbody tr")).to_have_count(2)
    assert focused_name(page) == "Play Love in the Harbour"
    expect(row(page, "Love Is a Long Winter").get_by_role("button", name="Download Love Is a Long Winter")) \
        .to_be_visible()
    assert sorted(fast_demo.library_files()) == sorted(name for name in files if name != winter)
