"""What a user does on the page, found by role and name: shared by the browser tests."""
import re

from playwright.sync_api import expect

PERCENT_OF = re.compile(r"^\d{1,3}\.\d% of \d+\.\d (KB|MB)$")


def search(page, term):
    page.get_by_role("searchbox", name="Search songs").fill(term)
    page.get_by_role("button", name="Search", exact=True).click()


def row(page, title):
    """A result row, by the title in its cell."""
    return page.locator("#results tbody tr").filter(has=page.get_by_role("cell", name=title, exact=True))


def library_row(page, title):
    return page.locator("#library tbody tr").filter(has=page.get_by_role("cell", name=title, exact=True))


def announcer(page):
    """The page's one polite live region."""
    return page.get_by_role("status")


def focused_name(page):
    """The accessible name (aria-label, else text) of the element with focus."""
    return page.evaluate(
        "() => { const e = document.activeElement; return e === document.body ? null :"
        " (e.getAttribute('aria-label') || e.textContent.trim()); }")


def download_all(page, titles, timeout=30_000):
    """Presses Download on each title's row, then waits until every one is in the library."""
    for title in titles:
        row(page, title).get_by_role("button", name=f"Download {title}").click()
    for title in titles:
        expect(row(page, title).get_by_text("In library")).to_be_visible(timeout=timeout)
