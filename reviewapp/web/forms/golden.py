"""Forms QA change a golden case with: accept the current output, rename, tags."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from reviewapp.models import GoldenCase
from reviewapp.previews.maintenance import MAX_TAG_LENGTH, MAX_TAGS, normalise_tags


class GoldenCaseAcceptForm(forms.Form):
    """What the person compared: the stored and the current output's ``digest``.

    ``confirm`` is sent only by the confirmation page's button (its name and
    value), so no other form, however old, accepts without that page.
    """

    expected_digest = forms.CharField(max_length=64, widget=forms.HiddenInput)
    actual_digest = forms.CharField(max_length=64, widget=forms.HiddenInput)
    confirm = forms.BooleanField(required=True, widget=forms.HiddenInput)


class GoldenCaseRenameForm(forms.Form):
    name = forms.CharField(label=_("New name"), max_length=200)

    def __init__(self, *args: Any, case: GoldenCase, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.case = case

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        if GoldenCase.objects.filter(name=name).exclude(pk=self.case.pk).exists():
            raise forms.ValidationError(_("A golden case with this name already exists."), code="unique")
        return name


class GoldenCaseTagsForm(forms.Form):
    tags = forms.CharField(
        label=_("Tags"),
        required=False,
        max_length=(MAX_TAG_LENGTH + 2) * MAX_TAGS,
        help_text=_("Separated by commas, e.g. “denial, moved context”. Empty removes every tag."),
    )

    def clean_tags(self) -> list[str]:
        tags = normalise_tags(self.cleaned_data["tags"].split(","))
        if len(tags) > MAX_TAGS:
            raise forms.ValidationError(_("At most %(count)s tags."), code="too_many", params={"count": MAX_TAGS})
        too_long = [tag for tag in tags if len(tag) > MAX_TAG_LENGTH]
        if too_long:
            raise forms.ValidationError(
                _("A tag has at most %(limit)s characters: “%(tag)s” is longer."),
                code="too_long",
                params={"limit": MAX_TAG_LENGTH, "tag": too_long[0]},
            )
        return tags
