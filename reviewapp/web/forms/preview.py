"""Forms of the prompt preview: the playground input, its query string, a golden case's name, the cases' filter."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from reviewapp.models import GoldenCase
from reviewapp.previews.gallery import EXAMPLES
from reviewapp.previews.parsing import InvalidJson, parse_json
from reviewapp.previews.rendering import line_from_texts, pretty

_CODE_ATTRS = {"class": "code", "spellcheck": "false", "autocomplete": "off", "autocapitalize": "off"}


class PreviewForm(forms.Form):
    """One input line for the renderers, typed as JSON text.

    The cleaned values are parsed JSON; ``json_errors`` keeps each field's
    ``InvalidJson`` so the page can point at the line and column.
    """

    channel_context = forms.CharField(
        label=_("channel_context (JSON)"),
        strip=False,
        widget=forms.Textarea(attrs={**_CODE_ATTRS, "rows": 16}),
        help_text=_("Any JSON value, as stored on the inbox item. null is allowed."),
        error_messages={"required": _("Paste a channel_context (JSON). Write null for none.")},
    )
    document_id = forms.CharField(
        label=_("document_id"),
        required=False,
        max_length=200,
        widget=forms.TextInput(attrs={**_CODE_ATTRS, "class": "mono"}),
        help_text=_("Optional. Shown on the agent's bullet line."),
    )
    extracted_data = forms.CharField(
        label=_("extracted_data (JSON)"),
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={**_CODE_ATTRS, "rows": 8}),
        help_text=_("Optional. Supplier, date and amounts for the agent's bullet line."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.json_errors: dict[str, InvalidJson] = {}

    @staticmethod
    def data_for(value: dict[str, Any]) -> dict[str, str]:
        """Form data that shows ``value`` (an input line) for editing."""
        raw_item = value.get("item")
        item: dict[str, Any] = raw_item if isinstance(raw_item, dict) else {}
        document_id = item.get("document_id")
        extracted = item.get("extracted_data")
        return {
            "channel_context": pretty(value.get("channel_context")),
            "document_id": document_id if isinstance(document_id, str) else "",
            "extracted_data": "" if extracted is None else pretty(extracted),
        }

    def _parse(self, name: str) -> Any:
        try:
            return parse_json(self.cleaned_data[name])
        except InvalidJson as exc:
            self.json_errors[name] = exc
            raise forms.ValidationError(exc.message, code="invalid_json") from None

    def clean_channel_context(self) -> Any:
        return self._parse("channel_context")

    def clean_document_id(self) -> str | None:
        return self.cleaned_data["document_id"].strip() or None

    def clean_extracted_data(self) -> Any:
        if not self.cleaned_data["extracted_data"].strip():
            return None
        return self._parse("extracted_data")

    def case_input(self) -> dict[str, Any]:
        """The input line, parsed whole as ``python -m clarifications`` would parse it."""
        extracted = self.data.get("extracted_data") or ""
        return line_from_texts(
            self.data["channel_context"],
            self.cleaned_data["document_id"],
            extracted if extracted.strip() else None,
        )


def _example_choices() -> list[tuple[str, Any]]:
    return [("", ""), *((e.slug, e.title) for e in EXAMPLES)]


class PreviewSourceForm(forms.Form):
    """The playground's query string: what to load into the editor."""

    example = forms.ChoiceField(choices=_example_choices, required=False)
    item = forms.UUIDField(required=False)
    case = forms.IntegerField(required=False, min_value=1)


class GoldenCaseNameForm(forms.Form):
    name = forms.CharField(
        label=_("Case name"),
        max_length=200,
        help_text=_("Unique. Say what the case pins down, e.g. “denial with moved context question”."),
    )
    # The inbox item the input was loaded from (``/preview/?item=<id>``), kept on the case.
    source_item = forms.UUIDField(required=False, widget=forms.HiddenInput)

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        if GoldenCase.objects.filter(name=name).exists():
            raise forms.ValidationError(_("A golden case with this name already exists."), code="unique")
        return name


class GoldenCaseFilterForm(forms.Form):
    status = forms.ChoiceField(
        label=_("Show"),
        choices=[("", _("All cases")), ("fail", _("Failing only")), ("pass", _("Passing only"))],
        required=False,
    )
    tag = forms.CharField(label=_("Tag"), max_length=50, required=False)

    def clean_tag(self) -> str:
        return " ".join(self.cleaned_data["tag"].split()).lower()
