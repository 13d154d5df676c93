"""Browser fixtures for the journeys in this folder (``make e2e``).

Debian's Chromium, driven by Playwright's sync API, against pytest-django's
``live_server``. Every journey fails on a console error, an uncaught page
error, a failed request, a response of 400 or more, or a Content Security
Policy violation, unless the test declares that exact response expected.
Each journey leaves a screenshot in ``test-artifacts/e2e/<test name>.png``,
taken at the end whether it passed or failed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Error,
    Page,
    Request,
    Response,
    expect,
    sync_playwright,
)

from reviewapp.core import access, roles
from tests import factories

CHROMIUM = os.environ.get("E2E_CHROMIUM", "/usr/bin/chromium")
# Headless, and off the network: no updates, no sync, no QUIC probes, nothing
# that reaches past the live server. --no-sandbox because CI runs as root.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"
# Generous for a 2-core machine shared with other work; a real hang still fails.
TIMEOUT_MS = 10_000

# The page learns of a CSP violation through this DOM event. Chromium also logs
# one to the console, but the event names the directive, so report it too.
# (Playwright injects init scripts itself; the page's CSP does not apply to them.)
_CSP_REPORTER = """
document.addEventListener("securitypolicyviolation", (e) => {
  console.error("CSP violation: " + e.violatedDirective + " blocked " + (e.blockedURI || "inline code")
    + " at " + e.sourceFile + ":" + e.lineNumber);
});
"""


# Nothing may scroll sideways, on a phone or on a desktop (issue 37: the list
# was 1955 px wide at 1280): every page a journey loads, at any width (and every
# htmx swap on it), is checked, and a page wider than the window is reported as
# a console error, which fails the journey.
_NO_SIDEWAYS_SCROLL = """
(() => {
  const check = (when) => {
    const wide = document.documentElement.scrollWidth;
    if (wide <= window.innerWidth) return;
    const culprits = Array.from(document.querySelectorAll("body *"))
      .filter((e) => e.checkVisibility() && e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 4)
      .map((e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : ""));
    console.error("sideways scroll " + when + ": scrollWidth " + wide + " > innerWidth " + window.innerWidth
      + " at " + location.pathname + " (" + culprits.join(", ") + ")");
  };
  window.addEventListener("load", () => check("after load"));
  document.addEventListener("htmx:afterSettle", () => check("after an htmx swap"));
})();
"""


@pytest.fixture(scope="session")
def _orm_beside_playwright() -> Iterator[None]:
    # Playwright's sync API runs an asyncio event loop in the test's own
    # thread (in a greenlet), so Django sees a running loop and refuses ORM
    # calls there with SynchronousOnlyOperation. Our ORM calls are ordinary
    # blocking calls made between browser steps, never inside a coroutine, so
    # the check does not apply. Set from the first browser test to the end of
    # the run: `make test` deselects browser tests, so it never sees this.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


# One browser per test, started after the test database is set up and closed
# before it is flushed (about a second each). While Playwright's sync API
# lives, its event loop runs in this thread, and Django then keeps database
# connections per async context instead of per thread: the flush and the
# serialized rollback would use a different connection object than the one
# that holds the migrations' data to restore. A browser that outlived one
# test would also keep other folders' browser tests (which start their own
# Playwright) from running in the same process.
@pytest.fixture
def browser(_orm_beside_playwright: None) -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"No Chromium at {CHROMIUM}. Install Debian's: apt-get install -y chromium "
            "(Playwright's own browser download does not work here)."
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@dataclass
class BrowserProblems:
    """Everything that went wrong in the browser during one journey."""

    found: list[str] = field(default_factory=list)
    # (status, URL pattern) pairs the journey provokes on purpose.
    allowed: list[tuple[int, re.Pattern[str]]] = field(default_factory=list)

    def allow(self, status: int, url_pattern: str) -> None:
        """Declare one response status expected for URLs matching ``url_pattern`` (a regex)."""
        self.allowed.append((status, re.compile(url_pattern)))

    def _is_allowed(self, status: int, url: str) -> bool:
        return any(status == code and pattern.search(url) for code, pattern in self.allowed)

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        # Chromium logs every 4xx it loads as a console error, so an allowed
        # response would fail the test twice over; the response handler
        # already judged it.
        if message.text.startswith("Failed to load resource") and self._is_allowed_console(message):
            return
        # htmx logs an aborted request as an error (the pair below). Aborts
        # are by design: hx-sync="this:replace" drops the older request when
        # the user types on before it answered, and leaving the page drops a
        # pending live render. A failed send or a timeout is still reported
        # (htmx:sendError, htmx:timeout), as is every 4xx/5xx (htmx:responseError).
        if message.text.startswith(("htmx:sendAbort", "htmx:afterRequest")):
            return
        self.found.append(f"console error: {message.text} ({message.location.get('url', '')})")

    def _is_allowed_console(self, message: ConsoleMessage) -> bool:
        status = re.search(r"status of (\d{3})", message.text)
        url = message.location.get("url", "")
        return status is not None and self._is_allowed(int(status.group(1)), url)

    def on_page_error(self, error: Error) -> None:
        self.found.append(f"page error: {error.message}")

    def on_request_failed(self, request: Request) -> None:
        failure = request.failure or ""
        # ERR_ABORTED is the browser dropping a request it no longer wants:
        # htmx replacing an in-flight search (hx-sync), or a navigation
        # leaving the page. Blocked, refused or reset requests still fail.
        if failure == "net::ERR_ABORTED":
            return
        self.found.append(f"request failed: {request.method} {request.url}: {failure}")

    def on_response(self, response: Response) -> None:
        if response.status >= 400 and not self._is_allowed(response.status, response.url):
            self.found.append(f"HTTP {response.status}: {response.request.method} {response.url}")

    def watch(self, page: Page) -> None:
        page.on("console", self.on_console)
        page.on("pageerror", self.on_page_error)
        page.on("requestfailed", self.on_request_failed)
        page.on("response", self.on_response)


@pytest.fixture
def problems() -> BrowserProblems:
    return BrowserProblems()


@pytest.fixture
def new_page(  # type: ignore[no-untyped-def]
    browser: Browser,
    live_server,
    django_db_serialized_rollback: None,
    problems: BrowserProblems,
    request: pytest.FixtureRequest,
) -> Iterator[Callable[..., Page]]:
    """``new_page(width=..., height=..., touch=...)``: a tab in a fresh browser context (no cookies, no storage).

    Each call is another person at another browser; all of them are watched
    for problems, and each leaves its screenshot (``<test>.png``, then
    ``<test>-2.png``...).
    """
    contexts: list[tuple[BrowserContext, Page]] = []

    def _new_page(*, width: int = 1280, height: int = 900, touch: bool = False) -> Page:
        context = browser.new_context(
            # A touch screen: (pointer: coarse) and (hover: none) match, as on a phone.
            has_touch=touch,
            base_url=live_server.url,
            # The bookkeepers' language; the app picks it from Accept-Language.
            locale="sv-SE",
            timezone_id="Europe/Stockholm",
            viewport={"width": width, "height": height},
        )
        context.set_default_timeout(TIMEOUT_MS)
        context.set_default_navigation_timeout(TIMEOUT_MS)
        context.add_init_script(_CSP_REPORTER)
        context.add_init_script(_NO_SIDEWAYS_SCROLL)
        tab = context.new_page()
        problems.watch(tab)
        contexts.append((context, tab))
        return tab

    try:
        yield _new_page
    finally:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for n, (context, tab) in enumerate(contexts, start=1):
            suffix = "" if n == 1 else f"-{n}"
            try:
                tab.screenshot(path=str(ARTIFACTS / f"{request.node.name}{suffix}.png"), full_page=True)
            finally:
                context.close()
    assert not problems.found, "The browser reported problems:\n" + "\n".join(problems.found)


@pytest.fixture
def page(new_page: Callable[..., Page]) -> Page:
    """One tab on the live server, 1280 × 900."""
    return new_page()


@pytest.fixture
def make_user(django_db_serialized_rollback: None, transactional_db: None) -> Callable[..., User]:
    """``make_user(role, username=...)``: a user who logs in with ``factories.PASSWORD``.

    A bookkeeper is firm-wide (may see every company), like the tests'
    ``bookkeeper`` fixture; support and QA see every company through their
    role. (tests/access covers bookkeepers restricted to some companies.)

    live_server needs transactional tests, whose flush would also empty what
    the migrations wrote (the role groups). Serialized rollback puts that back
    before each test, and lets these tests share a run with other browser
    tests that use it (a flush that re-creates content types would collide
    with their restore).
    """

    def _make_user(role: str | None = None, **extra: Any) -> User:
        user = factories.make_user(role, **extra)
        if role == roles.BOOKKEEPER:
            app_label, codename = access.ALL_COMPANIES.split(".")
            user.user_permissions.add(Permission.objects.get(codename=codename, content_type__app_label=app_label))
        return user

    return _make_user


@pytest.fixture
def log_in() -> Callable[..., None]:
    """``log_in(page, username, keyboard=False)``: through the real login form, from the inbox URL as a user would.

    With ``keyboard=True`` only keys are used: the user name has the focus when
    the page loads, Tab reaches the password, Enter sends the form. QA land on
    the prompt preview (``inbox.landing.after_login_url``), everyone else on the list.
    """

    def _log_in(page: Page, username: str, *, keyboard: bool = False) -> None:
        page.goto("/")
        # LoginRequiredMiddleware sends an anonymous visitor to the login page.
        page.wait_for_url(re.compile(r"/accounts/login/"))
        if keyboard:
            expect(page.locator("#id_username")).to_be_focused()
            page.keyboard.type(username)
            page.keyboard.press("Tab")
            page.keyboard.type(factories.PASSWORD)
            page.keyboard.press("Enter")
        else:
            page.locator("#id_username").fill(username)
            page.locator("#id_password").fill(factories.PASSWORD)
            page.locator("main form button[type=submit]").click()
        page.wait_for_url(re.compile(r"^https?://[^/]+/((\?.*)?|preview/)$"))  # the inbox or, for QA, the preview
        page.locator("#preview-form" if "/preview/" in page.url else "#inbox-filters").wait_for()

    return _log_in
