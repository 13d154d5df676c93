"""The suite's own guard: every ChannelQuestionAnswered and DocumentIngested a test writes names nobody.

``tests/conftest.py``'s ``_no_names_in_accounted_log`` reads accounted's log
after each database test; these tests check what it rejects and that it is
wired to every test.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import actor_problems


@pytest.mark.parametrize(
    "actor",
    [
        {"type": "user", "id": "review-app:1", "label": "bea"},
        {"type": "system", "id": "review-app", "label": "Review app"},
        {"type": "user", "id": "review-app:1"},
        {"type": "user", "id": "bea"},
        {"type": "user"},
    ],
)
def test_a_label_or_a_user_id_that_is_no_uuid_is_a_problem(actor):
    assert len(actor_problems([("ChannelQuestionAnswered", "e1", json.dumps(actor))])) >= 1


@pytest.mark.parametrize(
    "actor",
    [
        {"type": "user", "id": "6f1c2a4e-9d1b-4c3a-8e2f-0a1b2c3d4e5f"},
        {"type": "system", "id": "review-app"},
        {"type": "system", "id": "whatsapp-inbound"},
    ],
)
def test_a_pseudonymous_actor_is_fine(actor):
    assert actor_problems([("DocumentIngested", "e1", json.dumps(actor))]) == []


def test_the_guard_runs_after_every_test(request):
    assert "_no_names_in_accounted_log" in request.fixturenames
