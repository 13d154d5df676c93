from __future__ import annotations

import pytest
from django.conf import settings as django_settings


@pytest.fixture(autouse=True)
def _english(settings):  # type: ignore[no-untyped-def]
    # tests/conftest.py already makes the unit tests English; this also
    # covers the item page's own browser tests, which find buttons by their
    # English names ("Copy").
    settings.LANGUAGE_CODE = "en"


@pytest.fixture(autouse=True)
def documents_bucket(settings, tmp_path):  # type: ignore[no-untyped-def]
    # accounted's documents bucket in a throwaway folder. Setting STORAGES
    # fires setting_changed, which drops the cached backends, so
    # storages["documents"] is a fresh FileSystemStorage at this location.
    settings.STORAGES = {
        **(settings.STORAGES or django_settings.STORAGES),
        "documents": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": tmp_path / "bucket-documents", "base_url": None},
        },
    }
    return tmp_path / "bucket-documents"
