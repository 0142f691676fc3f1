"""The same journey at 1280 px light, 1280 px dark and 390 px on a phone: axe-core finds no
serious or critical violation in any state, nothing scrolls sideways, touch targets are 44 px."""
import json

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from conftest import ARTIFACTS
from journey import PERCENT_OF, row, search

CONTEXTS = {
    "desktop-light": dict(viewport={"width": 1280, "height": 800}, color_scheme="light"),
    "desktop-dark": dict(viewport={"width": 1280, "height": 800}, color_scheme="dark"),
    "phone": dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2,
                  color_scheme="light"),
}


def serious(page, axe):
    """axe-core's serious and critical violations on the page as it is."""
    results = axe.run(page)
    found = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    return [f'{v["id"]}: {v["help"]} ({len(v["nodes"])} elements: '
            f'{", ".join(n["target"][0] for n in v["nodes"][:3])})' for v in found], len(results.response["violations"])


def no_sideways_scrolling(page):
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page is {width[0]} px wide in a {width[1]} px window"


def small_targets(page):
    """Visible buttons, links and fields smaller than 44 × 44 px."""
    return page.evaluate("""() => [...document.querySelectorAll('button, a, input, select')]
        .filter(e => e.offsetParent !== null && !e.closest('dialog:not([open])'))
        .map(e => [e.getAttribute('aria-label') || e.textContent.trim() || e.id, e.getBoundingClientRect()])
        .filter(([, r]) => r.width < 44 || r.height < 44)
        .map(([name, r]) => `${name}: ${Math.round(r.width)}×${Math.round(r.height)}`)""")


@pytest.mark.parametrize("name", CONTEXTS)
def test_journey_is_accessible_in_every_context(name, demo, browser):
    context = browser.new_context(**CONTEXTS[name])
    page = context.new_page()
    axe = Axe()
    counts = {}

    def check(state):
        violations, total = serious(page, axe)
        counts[state] = total
        assert violations == [], f"{name}, {state}: {violations}"
        no_sideways_scrolling(page)
        if name == "phone":
            assert small_targets(page) == [], f"{name}, {state}: targets under 44 px"
        page.screenshot(path=str(ARTIFACTS / f"web-{name}-{state}.png"), full_page=True)

    ARTIFACTS.mkdir(exist_ok=True)
    tap = (lambda locator: locator.tap()) if name == "phone" else (lambda locator: locator.click())
    page.goto(demo.url)
    check("start")
    page.get_by_role("searchbox", name="Search songs").fill("paper lanterns")
    tap(page.get_by_role("button", name="Search", exact=True))
    expect(page.locator("#results tbody tr")).to_have_count(10)
    check("results")
    boats = row(page, "Paper Boats")
    tap(boats.get_by_role("button", name="Download Paper Boats"))
    expect(boats.locator(".progress-label")).to_have_text(PERCENT_OF, timeout=10_000)
    check("downloading")
    tap(boats.get_by_role("button", name="Pause Paper Boats"))
    expect(boats.locator(".progress-label")).to_have_text("Paused")
    check("paused")
    tap(boats.get_by_role("button", name="Resume Paper Boats"))
    expect(boats.get_by_text("In library")).to_be_visible(timeout=15_000)
    expect(page.locator("#library tbody tr")).to_have_count(1)
    check("library")
    tap(page.locator("#library").get_by_role("button", name="Play Paper Boats"))
    page.wait_for_function("() => document.getElementById('player').currentTime > 0.2", timeout=10_000)
    expect(page.locator("#now-playing")).to_have_text("Playing: Paper Boats — The Paper Lanterns")
    check("playing")
    tap(row(page, "Paper Boats").get_by_role("link", name="Harbour Lights"))
    expect(page.get_by_role("heading", name="Harbour Lights")).to_be_visible()
    expect(page.locator("#results tbody tr")).to_have_count(6)
    check("album")
    tap(page.locator("#view-facts").get_by_role("link", name="The Paper Lanterns"))
    expect(page.get_by_role("heading", name="The Paper Lanterns")).to_be_visible()
    expect(page.locator("#results tbody tr")).to_have_count(10)
    check("artist")
    (ARTIFACTS / f"axe-{name}.json").write_text(json.dumps(counts, indent=1) + "\n")
    assert demo.library_files() == ["The Paper Lanterns - Paper Boats [1002].wav"]
    context.close()


def test_nothing_scrolls_sideways_at_320_px(demo, browser):
    context = browser.new_context(viewport={"width": 320, "height": 640}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(demo.url)
    search(page, "los hermanos")
    expect(page.locator("#results tbody tr")).to_have_count(4)
    no_sideways_scrolling(page)
    # The player stays reachable: on screen, above the cards.
    player = page.get_by_role("button", name="Next")
    expect(player).to_be_in_viewport()
    context.close()


def test_dark_theme_follows_the_system(demo, browser):
    colors = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(color_scheme=scheme)
        page = context.new_page()
        page.goto(demo.url)
        colors[scheme] = page.evaluate("getComputedStyle(document.body).backgroundColor")
        context.close()
    assert colors["light"] == "rgb(250, 250, 250)"
    assert colors["dark"] == "rgb(18, 18, 18)"


def test_forced_colors_keep_controls_and_focus_visible(demo, browser):
    context = browser.new_context(forced_colors="active")
    page = context.new_page()
    page.goto(demo.url)
    search(page, "tidewater")
    download = row(page, "Tidewater").get_by_role("button", name="Download Tidewater")
    download.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    style = download.evaluate("b => { const s = getComputedStyle(b); return [s.borderTopStyle, s.outlineStyle]; }")
    assert style == ["solid", "solid"], style
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "web-forced-colors.png"), full_page=True)
    context.close()
