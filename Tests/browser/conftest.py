"""Fixtures for the browser tests: `halftunes demo` as a real process, and headless Chromium."""
import os
import pathlib
import re
import signal
import subprocess
import tempfile
import threading

import pytest
from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The debug build the test command made; HALFTUNES_BINARY runs the same tests against another build
# (a release build, say).
BINARY = pathlib.Path(os.environ["HALFTUNES_BINARY"]) if os.environ.get("HALFTUNES_BINARY") else ROOT / ".build" / "debug" / "halftunes"
ARTIFACTS = ROOT / "test-artifacts"


class Demo:
    """A running `halftunes demo`: its URL and its home folder."""

    def __init__(self, throttle, *options):
        self.home = pathlib.Path(tempfile.mkdtemp(prefix="halftunes-browser-"))
        env = dict(os.environ, HALFTUNES_HOME=str(self.home), HALFTUNES_CATALOG="")
        speed = ["--throttle", str(throttle or 0)]
        self.process = subprocess.Popen(
            [str(BINARY), "demo", "--port", "0", *speed, *options],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.url = None
        found = threading.Event()

        def read():
            for line in self.process.stdout:
                match = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
                if match and not found.is_set():
                    self.url = match.group(1)
                    found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(30):
            self.stop()
            raise RuntimeError("halftunes demo did not print its URL: " + self.process.stderr.read())

    @property
    def library(self):
        return self.home / "library"

    def library_files(self):
        return sorted(p.name for p in self.library.glob("*")) if self.library.exists() else []

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()


def running_demo(throttle, *options):
    """A `halftunes demo` serving previews at `throttle` bytes a second (None: as fast as it can),
    stopped (cleanly) after the test."""
    if not BINARY.exists():
        pytest.fail(f"{BINARY} is not built: run swift build first")
    app = Demo(throttle, *options)
    yield app
    app.stop()
    assert app.process.returncode == 0, "halftunes demo did not stop cleanly"


@pytest.fixture
def demo():
    # Slow enough to watch (and pause) a 1.3 MB preview: about 4 seconds each.
    yield from running_demo(300_000)


@pytest.fixture
def slow_demo():
    # A 1.3 MB preview in about 13 seconds: playing starts long before the download ends.
    yield from running_demo(100_000)


@pytest.fixture
def fast_demo():
    # Previews as fast as loopback goes: for building a library.
    yield from running_demo(None)


@pytest.fixture
def failing_demo():
    # Every preview request is answered 404: downloads fail.
    yield from running_demo(None, "--fail-previews", "404")


@pytest.fixture
def busy_demo():
    # Every preview request is answered 503: downloads wait and try again, then fail.
    yield from running_demo(None, "--fail-previews", "503")


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"])
        yield browser
        browser.close()
