"""Focus stays where the user is, state changes are announced, the page works by keyboard alone."""
import re

from playwright.sync_api import expect

from journey import PERCENT_OF, announcer, focused_name, row, search


def test_focus_moves_to_the_pressed_buttons_successor(demo, browser):
    page = browser.new_page()
    page.goto(demo.url)
    search(page, "tidewater")
    tide = row(page, "Tidewater")
    tide.get_by_role("button", name="Download Tidewater").focus()
    page.keyboard.press("Enter")
    pause = tide.get_by_role("button", name="Pause Tidewater")
    expect(pause).to_be_focused()
    expect(announcer(page)).to_have_text("Downloading Tidewater", timeout=10_000)
    # Progress events change the row many times a second; focus stays on the same button.
    expect(tide.locator(".progress-label")).to_have_text(PERCENT_OF, timeout=10_000)
    handle = pause.element_handle()
    page.wait_for_function(
        "bar => parseFloat(bar.value) > 10", arg=tide.get_by_role("progressbar").element_handle(), timeout=10_000)
    assert page.evaluate("button => document.activeElement === button && button.isConnected", handle)

    page.keyboard.press("Enter")
    expect(tide.get_by_role("button", name="Resume Tidewater")).to_be_focused()
    expect(announcer(page)).to_have_text("Paused Tidewater")
    page.keyboard.press("Enter")
    expect(tide.get_by_role("button", name="Pause Tidewater")).to_be_focused()
    expect(announcer(page)).to_have_text("Downloading Tidewater")
    page.keyboard.press("Tab")
    expect(tide.get_by_role("button", name="Cancel Tidewater")).to_be_focused()
    page.keyboard.press("Enter")
    expect(tide.get_by_role("button", name="Download Tidewater")).to_be_focused()
    expect(announcer(page)).to_have_text("Cancelled Tidewater")
    assert focused_name(page) == "Download Tidewater"
    assert demo.library_files() == []


def test_completion_and_failure_are_announced(demo, failing_demo, browser):
    page = browser.new_page()
    page.goto(demo.url)
    search(page, "fog horn")
    row(page, "Fog Horn").get_by_role("button", name="Download Fog Horn").click()
    expect(announcer(page)).to_have_text("Fog Horn downloaded", timeout=15_000)
    progress = row(page, "Fog Horn").get_by_role("progressbar", name="Progress of Fog Horn")
    expect(progress).to_be_hidden()

    failing = browser.new_page()
    failing.goto(failing_demo.url)
    search(failing, "fog horn")
    failing_row = row(failing, "Fog Horn")
    failing_row.get_by_role("button", name="Download Fog Horn").click()
    expect(announcer(failing)).to_have_text(
        re.compile(r"^Fog Horn failed: .*404"), timeout=15_000)
    expect(failing_row.get_by_role("button", name="Retry Fog Horn")).to_be_visible()


def test_keyboard_only_journey(demo, browser):
    """Tab, Enter and Space only: search, download, pause, resume and play."""
    page = browser.new_page()
    page.goto(demo.url)
    page.keyboard.press("Tab")
    expect(page.get_by_role("searchbox", name="Search songs")).to_be_focused()
    page.keyboard.type("first snow")
    page.keyboard.press("Enter")
    download = row(page, "First Snow").get_by_role("button", name="Download First Snow")
    expect(download).to_be_visible()
    for _ in range(20):
        if focused_name(page) == "Download First Snow":
            break
        page.keyboard.press("Tab")
    expect(download).to_be_focused()
    page.keyboard.press("Space")
    expect(row(page, "First Snow").get_by_role("button", name="Pause First Snow")).to_be_focused()
    page.keyboard.press("Enter")
    expect(row(page, "First Snow").get_by_role("button", name="Resume First Snow")).to_be_focused()
    page.keyboard.press("Space")
    expect(announcer(page)).to_have_text("First Snow downloaded", timeout=15_000)
    # Downloaded: the row's Pause became Play, and focus went with it.
    play = row(page, "First Snow").get_by_role("button", name="Play First Snow")
    expect(play).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#now-playing")).to_have_text("Playing: First Snow — Greta Sundqvist")
    page.wait_for_function("() => document.getElementById('player').currentTime > 0.3", timeout=10_000)


def test_shortcuts_and_their_help(demo, browser):
    page = browser.new_page()
    page.goto(demo.url)
    page.keyboard.press("/")
    expect(page.get_by_role("searchbox", name="Search songs")).to_be_focused()
    page.keyboard.type("kindling?")  # typed into the field, not taken as shortcuts
    expect(page.get_by_role("searchbox", name="Search songs")).to_have_value("kindling?")
    expect(page.get_by_role("dialog")).to_be_hidden()
    page.get_by_role("searchbox", name="Search songs").fill("kindling")
    page.keyboard.press("Enter")
    kindling = row(page, "Kindling")
    kindling.get_by_role("button", name="Download Kindling").click()
    kindling.get_by_role("button", name="Play Kindling").click(timeout=15_000)
    page.wait_for_function("() => document.getElementById('player').currentTime > 0.2", timeout=10_000)

    page.locator("#results-heading").click()  # focus on no control
    page.keyboard.press("Space")
    page.wait_for_function("() => document.getElementById('player').paused", timeout=5_000)
    page.keyboard.press("Space")
    page.wait_for_function("() => !document.getElementById('player').paused", timeout=5_000)

    page.keyboard.press("Shift+?")
    dialog = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_text("Search songs")).to_be_visible()
    expect(dialog.get_by_text("Play or pause (when not typing)")).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    page.get_by_role("button", name="Keyboard shortcuts").click()
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()
    expect(page.get_by_role("button", name="Keyboard shortcuts")).to_be_focused()
