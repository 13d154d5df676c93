"""The e2e folder's browser fixtures, for the answer form's journeys."""

from tests.e2e.conftest import (  # noqa: F401 - fixtures, found by name
    _orm_beside_playwright,
    browser,
    log_in,
    make_user,
    page,
    problems,
)
