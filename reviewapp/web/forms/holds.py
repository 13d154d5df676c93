"""The hold and note forms: the same validation for the item page's forms and the JSON API."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from reviewapp.core import text
from reviewapp.inbox import holds
from reviewapp.items import notes
from reviewapp.models import Hold
from reviewapp.web.forms.inbox import IsoDateField


def _free_text(value: str, max_length: int) -> str:
    """``value`` cleaned as every free text is (``reviewapp.core.text.clean``): direction controls refused."""
    try:
        return text.clean(value, max_length=max_length, multiline=True)
    except ValueError as error:
        raise forms.ValidationError(str(error)) from None


class HoldForm(forms.Form):
    until = IsoDateField(label=_("On hold until"), help_text=_("Back in the queue at midnight, Stockholm time."))
    reason = forms.ChoiceField(label=_("Why"), choices=Hold.Reason.choices)
    note = forms.CharField(
        label=_("Note (optional)"),
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 2, "maxlength": holds.NOTE_MAX_CHARS}),
    )

    def __init__(self, *args: Any, now: dt.datetime | None = None, **kwargs: Any) -> None:
        # Its own ids: the panel shares the answer page with the answer form (whose fields include a note).
        kwargs.setdefault("auto_id", "hold_%s")
        super().__init__(*args, **kwargs)
        self.now = now
        self.fields["until"].initial = holds.default_until(now)

    def clean_until(self) -> dt.date:
        until: dt.date = self.cleaned_data["until"]
        if until <= holds.stockholm_today(self.now):
            raise forms.ValidationError(_("Choose a day after today."))
        if until > holds.latest_until(self.now):
            raise forms.ValidationError(_("Choose a day at most %(days)d days ahead.") % {"days": holds.MAX_DAYS})
        return until

    def clean_note(self) -> str:
        return _free_text(self.cleaned_data.get("note") or "", holds.NOTE_MAX_CHARS)


class NoteForm(forms.Form):
    text = forms.CharField(
        label=_("Note for colleagues"),
        strip=False,
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": notes.MAX_CHARS}),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Its own ids: on the answer page the context answer's field is "text" too (id_text, twice, was
        # one label for two fields and broke every journey that typed an answer).
        kwargs.setdefault("auto_id", "team_note_%s")
        super().__init__(*args, **kwargs)

    def clean_text(self) -> str:
        cleaned = _free_text(self.cleaned_data.get("text") or "", notes.MAX_CHARS)
        if not cleaned:
            raise forms.ValidationError(_("Write the note first."))
        return cleaned


def json_errors(form: forms.Form) -> dict[str, list[str]]:
    """The form's errors, field by field, as the API sends them."""
    return {field: [str(message) for message in messages] for field, messages in form.errors.items()}
