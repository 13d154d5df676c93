"""axe-core on every page at 390 px (a phone) and 1440 px wide: no violations, and on a phone no sideways scroll.

Each page is shown with content on it (rows in the list, a receipt and a
conversation on the item, renderings in the preview, a failing golden case),
so axe checks what people see, not an empty shell. A case that fails because
of a template owned elsewhere is marked ``xfail(strict=True)`` with the fix
it needs; strict, so the mark must go once the template is fixed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User
from django.urls import reverse
from playwright.sync_api import Page

from reviewapp.bookkeeping.models import InboxItem
from reviewapp.core import roles
from reviewapp.models import ApiToken, GoldenCase
from reviewapp.previews.golden import save_golden_case
from tests import factories
from tests.e2e import data
from tests.items.bookkeeping import make_document, real_png

WIDTHS = {390: 844, 1440: 900}
# axe's default rule set: WCAG 2.x A and AA, and its best practices (landmarks, headings, regions...).
# (resultTypes only trims the details axe reports for the other kinds; every rule still runs.)
AXE_OPTIONS = {"resultTypes": ["violations"]}

# Failures in templates and styles this folder does not own, each with the fix (checked by
# applying it in the browser: no sideways scroll and still no axe violation). Strict: once the
# fix is in, the case passes and the mark must go.
KNOWN: dict[tuple[str, int], str] = {}


@dataclass(frozen=True)
class Screen:
    """One page to check: who looks at it, and its address once the data is there."""

    role: str | None
    url: Callable[[dict[str, Any]], str]


def _scene(user: Any) -> dict[str, Any]:
    """A queue with a few items, one with its receipt and its conversation; golden cases, one failing."""
    company = factories.make_company(name="Tegelbruket AB")
    link = data.phone_link(company, masked="+46 70*** **12")
    item: InboxItem = data.waiting_item(company, "Restaurang Tegel", "representation", moved_hours_ago=30)
    InboxItem.objects.filter(pk=item.pk).update(document=make_document(company, content=real_png(300, 420)))
    data.message(item_id=item.pk, hours=80, body="Lunch", phone_link_id=link, wamid="wamid.AXE1")
    data.message(
        item_id=item.pk,
        hours=79,
        body="Vilka var med?",
        direction="outbound",
        message_type="template",
        template="representation_question",
        phone_link_id=link,
    )
    data.reindex(item)
    data.waiting_item(company, "Taxi Stockholm", "context", moved_hours_ago=20)
    data.waiting_item(company, "ICA Kvantum", "resend", moved_hours_ago=10)
    data.item(company, "Operakällaren", data.denial("nej"), received_hours_ago=5)
    save_golden_case(name="anteckning", value={"channel_context": {"channel": "whatsapp", "user_note": "hej"}})
    failing = save_golden_case(name="nekad", value={"channel_context": data.denial("nej")})
    GoldenCase.objects.filter(pk=failing.pk).update(expected={**failing.expected, "notes": "gammal rad"})
    if user is not None:
        ApiToken.objects.create(
            user=user, key_hash="0" * 64, prefix="rva_1234", name="Bokföringsskript", expires_at=data.hours_ago(-720)
        )
    return {"item": item, "failing_case": failing}


SCREENS: dict[str, Screen] = {
    "login": Screen(None, lambda scene: reverse("login")),
    "list": Screen(roles.BOOKKEEPER, lambda scene: reverse("inbox")),
    "item": Screen(roles.BOOKKEEPER, lambda scene: reverse("item_detail", args=[scene["item"].pk])),
    "answer": Screen(roles.BOOKKEEPER, lambda scene: reverse("item_answer", args=[scene["item"].pk])),
    "preview": Screen(roles.QA, lambda scene: reverse("preview") + "?example=half-answer"),
    "cases": Screen(roles.QA, lambda scene: reverse("golden_cases")),
    "case": Screen(roles.QA, lambda scene: reverse("golden_case_detail", args=[scene["failing_case"].pk])),
    "tokens": Screen(roles.BOOKKEEPER, lambda scene: reverse("api_tokens")),
}


def _cases() -> list[Any]:
    cases = []
    for name in SCREENS:
        for width in WIDTHS:
            reason = KNOWN.get((name, width))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cases.append(pytest.param(name, width, id=f"{name}-{width}", marks=marks))
    return cases


def _report(violations: list[dict[str, Any]]) -> str:
    lines = []
    for violation in violations:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"][:5]:
            lines.append(f"    {' '.join(map(str, node['target']))}: {node['html'][:160]}")
    return "\n".join(lines)


@pytest.mark.e2e
@pytest.mark.parametrize(("screen", "width"), _cases())
def test_no_accessibility_violations(
    screen: str,
    width: int,
    new_page: Callable[..., Page],
    make_user: Callable[..., User],
    log_in: Callable[[Page, str], None],
) -> None:
    spec = SCREENS[screen]
    user = make_user(spec.role, username="person") if spec.role else None
    scene = _scene(user)
    page = new_page(width=width, height=WIDTHS[width])
    if user is not None:
        log_in(page, "person")
    page.goto(spec.url(scene))
    page.wait_for_load_state("networkidle")

    results = Axe().run(page, options=AXE_OPTIONS)
    violations = results.response["violations"]
    assert results.response["passes"], "axe checked nothing: did it run on the page?"
    overflow = page.evaluate(
        "() => ({scroll: document.documentElement.scrollWidth, inner: window.innerWidth,"
        " wide: Array.from(document.querySelectorAll('body *')).filter(e => e.getBoundingClientRect().right"
        " > window.innerWidth + 1).slice(0, 5).map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')"
        " + (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ').join('.') : ''))})"
    )
    print(f"\naxe {screen} at {width} px: {len(violations)} violations; scrollWidth {overflow['scroll']}")
    problems = []
    if violations:
        problems.append(_report(violations))
    if width == 390 and overflow["scroll"] > overflow["inner"]:
        problems.append(
            f"scrolls sideways: scrollWidth {overflow['scroll']} > innerWidth {overflow['inner']}; "
            f"wider than the window: {', '.join(overflow['wide'])}"
        )
    assert not problems, f"{screen} at {width} px:\n" + "\n".join(problems)
