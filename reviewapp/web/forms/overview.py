"""The overview's one parameter, ``days``: the page's and the API's query string, validated alike."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from reviewapp.overview.numbers import DEFAULT_PERIOD, PERIODS


class OverviewForm(forms.Form):
    days = forms.TypedChoiceField(
        label=_("Period"),
        # Called when the menu is drawn, so each label is in the request's language.
        choices=lambda: [(n, gettext("Last %(days)s days") % {"days": n}) for n in PERIODS],
        coerce=int,
        required=False,
        empty_value=None,
        error_messages={"invalid_choice": _("Choose 7, 30 or 90 days.")},
    )

    def period(self) -> int:
        """The days asked for; the default when none was (or, on the page, when the value was invalid)."""
        if self.is_valid() and self.cleaned_data["days"] is not None:
            return int(self.cleaned_data["days"])
        return DEFAULT_PERIOD
