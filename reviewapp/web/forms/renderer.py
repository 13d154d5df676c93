"""The form renderer (``FORM_RENDERER``): Django's ``TemplatesSetting``, never pre-filled past the printed cap.

Every form field of the app and the admin is rendered here. A widget whose
value is longer than ``reviewapp.core.rendering_caps.PRINTED_TEXT_MAX_CHARS`` is
rendered empty: no form takes that much, and a value cut to fit would be
saved cut by whoever submits the form unchanged. A form that may be
pre-filled with stored text says so itself and shows the stored value cut
(the answer form: ``reviewapp.web.forms.answer``); this is the guarantee behind it.
"""

from __future__ import annotations

from typing import Any

from django.forms.renderers import TemplatesSetting
from django.http import HttpRequest

from reviewapp.core.rendering_caps import PRINTED_TEXT_MAX_CHARS


class FormRenderer(TemplatesSetting):
    # The app's field markup (templates/, Jinja2). Not Django's own name
    # (django/forms/field.html), which its engine finds too: which of the two
    # rendered would then depend on the order of TEMPLATES.
    field_template_name = "forms/field.html"

    def render(self, template_name: str, context: dict[str, Any], request: HttpRequest | None = None) -> str:
        widget = context.get("widget")
        if isinstance(widget, dict):
            value = widget.get("value")
            if isinstance(value, str) and len(value) > PRINTED_TEXT_MAX_CHARS:
                context = {**context, "widget": {**widget, "value": None}}
        return super().render(template_name, context, request)
