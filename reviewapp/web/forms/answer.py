"""The answer forms on the item page: one per question type.

The forms only turn posted fields into an ``Answer``; every rule lives in
``reviewapp.answers.validation.validate``, which the JSON API goes through
too. Its errors come back keyed by answer path (``participants.2.name``) and
are put under the field they belong to; the ones about the whole answer
("at most 20 participants") are the form's ``non_field_errors``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final, cast

from django import forms
from django.core.files.uploadedfile import UploadedFile
from django.utils.formats import localize
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from reviewapp.answers.evidence import EMAIL, MESSAGE, PHONE
from reviewapp.answers.inputs import (
    CONTEXT,
    READABLE,
    REPLACED,
    REPRESENTATION,
    RESEND,
    UPLOAD,
    Answer,
    ContextAnswer,
    ParticipantInput,
    RepresentationAnswer,
    ResendAnswer,
)
from reviewapp.answers.validation import (
    MAX_COMPANY_LENGTH,
    MAX_NAME_LENGTH,
    MAX_PARTICIPANTS,
    MAX_PURPOSE_LENGTH,
    MAX_RAW_ANSWER_LENGTH,
    MAX_TEXT_LENGTH,
    AnswerInvalid,
    validate,
)
from reviewapp.core import text
from reviewapp.core.rendering_caps import noted_cut

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

# The buttons' ``action`` values. "Not representation" first asks for a
# confirmation (DENY shows its preview), then saves (DENY_CONFIRM); EDIT goes
# back to the form with what was typed.
SAVE: Final = "save"
DENY: Final = "deny"
DENY_CONFIRM: Final = "deny_confirm"
EDIT: Final = "edit"
ADD_ROW: Final = "add_row"
ACTIONS: Final = (SAVE, DENY, DENY_CONFIRM, EDIT, ADD_ROW)

# How much of a stored value too long for its field the field's help quotes.
OVERLONG_QUOTE_CHARS: Final = 200

# Bound formsets never build more rows than this, whatever TOTAL_FORMS says;
# beyond MAX_PARTICIPANTS the answer is refused with a message anyway.
ABSOLUTE_MAX_ROWS: Final = 100


def _text_input(max_length: int, **attrs: Any) -> forms.TextInput:
    return forms.TextInput(attrs={"maxlength": max_length, "autocomplete": "off", **attrs})


# A text a person types under a limit: no maxlength (the browser would cut a pasted text silently),
# the limit as data-max-chars instead. answer.js shows a counter beside the field and "N characters
# over the limit" past it; the server refuses the answer then (reviewapp.core.text.clean), never cuts it.
MAX_CHARS_ATTR: Final = "data-max-chars"


def _counted_input(max_length: int) -> forms.TextInput:
    return forms.TextInput(attrs={MAX_CHARS_ATTR: max_length, "autocomplete": "off"})


class _DateInput(forms.TextInput):
    """An ISO date typed as text: a date control follows the browser's locale and refuses a typed ISO date."""

    def __init__(self) -> None:
        super().__init__(
            attrs={
                "inputmode": "numeric",
                "pattern": r"\d{4}-?\d{2}-?\d{2}",
                "maxlength": 10,
                "autocomplete": "off",
                "spellcheck": "false",
            }
        )

    def get_context(self, name: str, value: Any, attrs: dict[str, Any] | None) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        # Translated when rendered, in the language of the request.
        context["widget"]["attrs"]["placeholder"] = str(_("YYYY-MM-DD"))
        return context


def _free_text(label: StrOrPromise, *, rows: int, max_length: int, help_text: StrOrPromise) -> forms.CharField:
    """Free text kept as typed: ``validate`` trims it and says what is missing or too long."""
    textarea = forms.Textarea(attrs={"rows": rows, MAX_CHARS_ATTR: max_length})
    return forms.CharField(label=label, required=False, strip=False, widget=textarea, help_text=help_text)


class _FirstRadioFocus(forms.RadioSelect):
    """Radio buttons where only the first may carry ``autofocus`` (one per page)."""

    def create_option(
        self,
        name: str,
        value: Any,
        label: int | str,
        selected: bool,
        index: int,
        subindex: int | None = None,
        attrs: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        if index:
            option["attrs"].pop("autofocus", None)
        return option


def refuse_overlong(form: forms.Form, raw_download: str = "") -> None:
    """Leave out of an unbound form's pre-filled values each one longer than its field takes.

    A stored value can be of any length (another program wrote it); the
    field's ``maxlength`` is what a person may type and what the answer
    accepts. Pre-filled, a 2 MB name made a 3 MB page, and the browser would
    have cut it at ``maxlength`` silently on saving. Instead the field is left
    empty and its help says so, quoting the start of the stored value, with
    the stored JSON's download for those who may have it (``raw_download``).
    """
    for name, field in form.fields.items():
        value = form.initial.get(name)
        limit = field.widget.attrs.get(MAX_CHARS_ATTR, field.widget.attrs.get("maxlength"))
        if not isinstance(value, str) or not isinstance(limit, int) or text.length(value) <= limit:
            continue
        form.initial[name] = ""
        note = _(
            "The stored value has %(total)s characters, more than the %(limit)s this field takes, so it is "
            "not filled in: enter it anew. It begins: “%(start)s”"
        ) % {
            "total": localize(text.length(value)),
            "limit": localize(limit),
            "start": noted_cut(value, OVERLONG_QUOTE_CHARS),
        }
        link = (
            format_html(' <a href="{}" class="cut-download" download>{}</a>', raw_download, _("Show all: download"))
            if raw_download
            else ""
        )
        field.help_text = format_html(
            '{}<span class="overlong-value" data-stored-chars="{}"> {}</span>{}',
            field.help_text,
            text.length(value),
            note,
            link,
        )


class AnswerForm(forms.Form):
    """What every answer form does: the posted fields as an ``Answer`` that passed ``validate``.

    ``is_valid()`` sets ``valid_answer``; an ``AnswerInvalid`` (from
    ``validate`` here, or from the write) goes under the field that
    ``error_fields`` names for its path, else above the form.
    """

    question: ClassVar[str]
    # An answer path (``AnswerInvalid.errors`` key) → the field its message goes under.
    error_fields: ClassVar[dict[str, str]] = {}

    def __init__(
        self,
        data: Any = None,
        files: Any = None,
        *,
        channel_context: object = None,
        action: str = SAVE,
        amend_version: str = "",
        raw_download: str = "",
    ) -> None:
        """Bound to ``data`` when given, else prefilled from ``channel_context``.

        ``amend_version`` (the current answer's ``answer_version``) makes an
        unbound form a correction of the app's answer, prefilled with its
        fields; the customer's words start empty: a correction adds to
        ``raw_answer``, so only new words are typed. A stored value longer
        than its field takes is not pre-filled (``refuse_overlong``;
        ``raw_download``: where the stored JSON downloads).
        """
        initial = self.initial_from(channel_context, amending=bool(amend_version))
        if amend_version and "amend" in self.base_fields:
            initial.update(amend="1", answer_version=amend_version)
        super().__init__(data, files, initial=initial)
        self.raw_download = raw_download
        if data is None:
            refuse_overlong(self, raw_download)
        self.action = action
        self.answer: Answer | None = None

    def initial_from(self, channel_context: object, *, amending: bool) -> dict[str, Any]:
        return {}

    @property
    def is_amendment(self) -> bool:
        value = self.data.get("amend") if self.is_bound else self.initial.get("amend")
        return value in ("1", "true", "on", True)

    def amend_fields(self) -> dict[str, Any]:
        """Whether this corrects an earlier answer, and the version of the answer it corrects."""
        if not self.is_amendment:
            return {"amend": False, "expected_version": ""}
        version = self.data.get("answer_version", "") if self.is_bound else self.initial.get("answer_version", "")
        return {"amend": True, "expected_version": str(version or "")}

    @property
    def valid_answer(self) -> Answer:
        """The answer of a form that passed ``is_valid()``."""
        if self.answer is None:
            raise ValueError("call is_valid() first")
        return self.answer

    def is_valid(self, *, complete: bool = True) -> bool:
        """Whether the fields make an answer ``validate`` accepts (``complete=False``: half done is fine)."""
        if not self.fields_valid():
            return False
        try:
            self.answer = validate(self.typed_answer(), complete=complete)
        except AnswerInvalid as invalid:
            self.apply_errors(invalid.errors)
            return False
        return True

    def fields_valid(self) -> bool:
        return super().is_valid()

    def typed_answer(self) -> Answer:
        """The answer the cleaned fields describe (may raise ``AnswerInvalid`` for a choice left half done)."""
        raise NotImplementedError

    def apply_errors(self, errors: dict[str, list[str]]) -> None:
        for key, messages in errors.items():
            form, field = self.error_place(key)
            for message in messages:
                form.add_error(field, message)

    def error_place(self, key: str) -> tuple[forms.Form, str | None]:
        """The form and field an error of answer path ``key`` is shown under (None: the whole answer)."""
        return self, self.error_fields.get(key)

    def make_readonly(self) -> None:
        """Show what was typed without offering to save it (the conflict view)."""
        for form in self.all_forms():
            for bound in form:
                bound.field.widget.attrs["readonly"] = True
                if isinstance(bound.field.widget, forms.FileInput | forms.RadioSelect | forms.CheckboxInput):
                    bound.field.widget.attrs["disabled"] = True

    def all_forms(self) -> list[forms.Form]:
        return [self]

    def fields_in_order(self) -> list[forms.BoundField]:
        """The visible fields in the order the page shows them."""
        return [bound for bound in self if not bound.is_hidden]

    def focus_first(self) -> str:
        """Mark where the keyboard goes: ``"field"`` (given ``autofocus``) or ``"group"`` (the answer's errors).

        The first field with an error; else the errors about the whole answer
        (at most 20 participants, none named); else the first field.
        """
        fields = self.fields_in_order()
        if any(bound.field.widget.attrs.get("autofocus") for bound in fields):
            return "field"
        target = next((bound for bound in fields if bound.errors), None)
        if target is None and self.non_field_errors():
            return "group"
        (target or fields[0]).field.widget.attrs["autofocus"] = True
        return "field"


class TypedAnswerForm(AnswerForm):
    """A representation or context answer: the customer's own words and their source, the correction's fields."""

    raw_answer = _free_text(
        _("The customer's own words (optional)"),
        rows=2,
        max_length=MAX_RAW_ANSWER_LENGTH,
        help_text=_(
            "Only what the customer said, word for word, and then where it came from below. "
            "Left empty, the answer is stored as entered by the firm in the review app, with the time "
            "(never your name). A correction adds to what is stored, it never replaces it."
        ),
    )
    raw_answer_via = forms.ChoiceField(
        label=_("Where the customer's words came from"),
        required=False,
        choices=[
            (PHONE, _("Phone")),
            (EMAIL, _("E-mail")),
            (MESSAGE, _("A message (SMS or another chat)")),
        ],
        widget=_FirstRadioFocus,
        help_text=_("Required with the customer's words; kept in the review app's log only."),
    )
    amend = forms.CharField(required=False, widget=forms.HiddenInput)
    answer_version = forms.CharField(required=False, widget=forms.HiddenInput)


class ParticipantForm(forms.Form):
    name = forms.CharField(label=_("Name"), required=False, strip=False, widget=_counted_input(MAX_NAME_LENGTH))
    company = forms.CharField(
        label=_("Company (optional)"),
        required=False,
        strip=False,
        widget=_counted_input(MAX_COMPANY_LENGTH),
    )

    def __init__(self, *args: Any, raw_download: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            refuse_overlong(self, raw_download)

    @property
    def is_blank(self) -> bool:
        """A row left entirely empty (the spare row): not a participant."""
        data = getattr(self, "cleaned_data", {})
        return not data.get("name") and not data.get("company")


class BaseParticipantFormSet(forms.BaseFormSet):  # type: ignore[type-arg]
    def rows(self) -> list[ParticipantForm]:
        """The rows that name someone: not removed, not left blank."""
        kept = []
        for form in self.forms:
            if not hasattr(form, "cleaned_data") or form.cleaned_data.get("DELETE") or form.is_blank:
                continue
            kept.append(form)
        return kept


ParticipantFormSet = forms.formset_factory(
    ParticipantForm,
    formset=BaseParticipantFormSet,
    extra=0,
    can_delete=True,
    max_num=MAX_PARTICIPANTS,
    absolute_max=ABSOLUTE_MAX_ROWS,
)


def participant_formset(
    data: Any = None, *, initial: list[dict[str, str]] | None = None, raw_download: str = ""
) -> BaseParticipantFormSet:
    kwargs = {"raw_download": raw_download}
    formset = ParticipantFormSet(data, prefix="participants", initial=initial, form_kwargs=kwargs)
    return cast(BaseParticipantFormSet, formset)


def typed_event_date(value: object) -> str:
    """An event date as typed, trimmed; eight digits are a date typed on a phone's number pad, which has no "-"."""
    text = str(value or "").strip()
    if len(text) == 8 and text.isascii() and text.isdigit():
        return f"{text[:4]}-{text[4:6]}-{text[6:]}"
    return text


class RepresentationForm(TypedAnswerForm):
    """Participants, purpose and event date; or the denial button."""

    question = REPRESENTATION
    error_fields = {
        "purpose": "purpose",
        "event_date": "event_date",
        "raw_answer": "raw_answer",
        "raw_answer_via": "raw_answer_via",
    }
    purpose = _free_text(
        _("Purpose"),
        rows=3,
        max_length=MAX_PURPOSE_LENGTH,
        help_text=_("Why the meal was held, for example a contract negotiation."),
    )
    event_date = forms.CharField(
        label=_("Event date (optional)"),
        required=False,
        widget=_DateInput(),
        help_text=_("YYYY-MM-DD, when it differs from the receipt."),
    )

    def __init__(self, data: Any = None, files: Any = None, *, channel_context: object = None, **kwargs: Any) -> None:
        super().__init__(data, files, channel_context=channel_context, **kwargs)
        self._rows: list[ParticipantForm] = []
        if data is None:
            # One spare row to type into; a half answer's people come first.
            self.participants = participant_formset(
                initial=_half_answer_rows(channel_context), raw_download=self.raw_download
            )
            self.participants.extra = 1
        else:
            self.participants = participant_formset(data)

    def initial_from(self, channel_context: object, *, amending: bool) -> dict[str, Any]:
        """What a half answer (or the app's answer being corrected) holds: its purpose and date."""
        rep = _representation(channel_context)
        return {key: rep[key] for key in ("purpose", "event_date") if isinstance(rep.get(key), str)}

    def all_forms(self) -> list[forms.Form]:
        return [self, *self.participants.forms]

    def fields_in_order(self) -> list[forms.BoundField]:
        rows = [row[name] for row in self.participants.forms for name in ("name", "company")]
        return [*rows, self["purpose"], self["event_date"], self["raw_answer"], self["raw_answer_via"]]

    def clean_event_date(self) -> str:
        return typed_event_date(self.cleaned_data.get("event_date"))

    def event_date_as_typed(self) -> str:
        """The event date on screen, read whatever else the form gets wrong (the live preview warns about it)."""
        value = self.data.get("event_date") if self.is_bound else self.initial.get("event_date")
        return typed_event_date(value)

    def fields_valid(self) -> bool:
        own_ok = super().fields_valid()  # builds cleaned_data, so errors can go under their fields
        if self.action in (DENY, DENY_CONFIRM):
            return True  # settled whatever is on screen: see typed_answer
        rows_ok = self.participants.is_valid()
        if not rows_ok:
            for error in self.participants.non_form_errors():
                self.add_error(None, error)
        return own_ok and rows_ok

    def typed_answer(self) -> RepresentationAnswer:
        if self.action in (DENY, DENY_CONFIRM):
            # "Not representation" settles it whatever is on screen (often
            # the half answer the form was prefilled with): only the
            # customer's own words are kept, if any were typed.
            words = str(self.data.get("raw_answer", "") or "")
            via = str(self.data.get("raw_answer_via", "") or "")
            return RepresentationAnswer(denied=True, raw_answer=words, raw_answer_via=via, **self.amend_fields())
        self._rows = self.participants.rows()
        return RepresentationAnswer(
            participants=tuple(
                ParticipantInput(name=row.cleaned_data["name"], company=row.cleaned_data["company"] or None)
                for row in self._rows
            ),
            purpose=self.cleaned_data["purpose"],
            event_date=self.cleaned_data["event_date"],
            raw_answer=self.cleaned_data["raw_answer"],
            raw_answer_via=self.cleaned_data["raw_answer_via"],
            **self.amend_fields(),
        )

    def error_place(self, key: str) -> tuple[forms.Form, str | None]:
        parts = key.split(".")
        if parts[0] == "participants" and len(parts) == 3 and parts[1].isdigit() and int(parts[1]) < len(self._rows):
            return self._rows[int(parts[1])], parts[2]
        return super().error_place(key)

    def typed_rows(self) -> list[dict[str, str]]:
        """The rows as typed, for re-showing them with one more (no JavaScript)."""
        rows = []
        for form in self.participants.forms:
            name = form.data.get(form.add_prefix("name"), "")
            company = form.data.get(form.add_prefix("company"), "")
            if form.data.get(form.add_prefix("DELETE")):
                continue
            rows.append({"name": name, "company": company})
        return rows

    def with_extra_row(self) -> RepresentationForm:
        """The same typed values, unbound, with one more empty row (no JavaScript)."""
        fresh = RepresentationForm()
        fresh.initial = {
            key: self.data.get(key, "")
            for key in ("purpose", "event_date", "raw_answer", "raw_answer_via", "amend", "answer_version")
        }
        fresh.participants = participant_formset(initial=self.typed_rows())
        fresh.participants.extra = 1
        # The keyboard goes to the new row, where the next name is typed.
        fresh.participants.forms[-1].fields["name"].widget.attrs["autofocus"] = True
        return fresh


def _representation(ctx: object) -> dict[str, Any]:
    """The context's representation object, unless it is missing, malformed or a denial."""
    rep = ctx.get("representation") if isinstance(ctx, dict) else None
    return rep if isinstance(rep, dict) and rep.get("denied") is not True else {}


def _half_answer_rows(ctx: object) -> list[dict[str, str]]:
    """The people a half answer already names."""
    people = _representation(ctx).get("participants")
    rows = []
    for person in people if isinstance(people, list) else []:
        if isinstance(person, dict) and isinstance(person.get("name"), str) and person["name"].strip():
            company = person.get("company")
            rows.append({"name": person["name"], "company": company if isinstance(company, str) else ""})
    # A stored list can be of any length; a form of 10 000 rows took seconds
    # to render, and no more rows than this can be posted back anyway.
    return rows[:ABSOLUTE_MAX_ROWS]


class ContextForm(TypedAnswerForm):
    question = CONTEXT
    error_fields = {"text": "text", "raw_answer": "raw_answer", "raw_answer_via": "raw_answer_via"}
    field_order = ["text", "raw_answer", "raw_answer_via"]
    text = _free_text(
        _("What was the purchase for?"),
        rows=4,
        max_length=MAX_TEXT_LENGTH,
        help_text=_("Saved as the note on the receipt."),
    )

    def initial_from(self, channel_context: object, *, amending: bool) -> dict[str, Any]:
        note = channel_context.get("user_note") if isinstance(channel_context, dict) else None
        return {"text": note if isinstance(note, str) else ""} if amending else {}

    def typed_answer(self) -> ContextAnswer:
        return ContextAnswer(
            text=self.cleaned_data["text"],
            raw_answer=self.cleaned_data["raw_answer"],
            raw_answer_via=self.cleaned_data["raw_answer_via"],
            **self.amend_fields(),
        )


class ResendForm(AnswerForm):
    question = RESEND
    error_fields = {"file": "file", "replaced_by": "replaced_by", "readable": "choice"}
    choice = forms.ChoiceField(
        label=_("What settles it?"),
        choices=[
            (READABLE, _("The current document is readable after all")),
            (REPLACED, _("A newer item of this company replaces it")),
            (UPLOAD, _("Upload a sharper file (JPEG, PNG or PDF)")),
        ],
        widget=_FirstRadioFocus,
        error_messages={"required": _("Choose how the question is settled.")},
    )
    replaced_by = forms.CharField(
        label=_("Id of the newer item"),
        required=False,
        widget=_text_input(36, spellcheck="false"),
        help_text=_(
            "The item the customer sent instead: its id, or its first 8 or more characters as the list shows them. "
            "It must be newer and of the same company."
        ),
    )
    file = forms.FileField(
        label=_("Sharper file"),
        required=False,
        widget=forms.FileInput(attrs={"accept": "image/jpeg,image/png,application/pdf"}),
        help_text=_("Becomes a new item for the same company; this one is marked as replaced."),
    )
    # Posted by the "Yes, it replaces this one" button of the confirmation
    # (items/_answer_panel.html) with the id as typed when asked: an id typed
    # after it is asked about again, never confirmed unseen.
    confirm = forms.CharField(required=False, widget=forms.HiddenInput)

    def typed_answer(self) -> ResendAnswer:
        choice = self.cleaned_data["choice"]
        upload: UploadedFile | None = self.cleaned_data.get("file") or None
        replaced_by = self.cleaned_data.get("replaced_by", "") or ""
        errors: dict[str, list[str]] = {}
        if choice == UPLOAD and upload is None:
            errors["file"] = [str(_("Choose the file to upload."))]
        if choice == REPLACED and not replaced_by.strip():
            errors["replaced_by"] = [str(_("Enter the id of the item that replaces this one."))]
        if errors:
            raise AnswerInvalid(errors)
        confirm = self.cleaned_data.get("confirm", "") or ""
        return ResendAnswer(
            readable=choice == READABLE,
            upload=upload if choice == UPLOAD else None,
            replaced_by=replaced_by if choice == REPLACED else "",
            confirmed=choice == REPLACED and confirm.strip().lower() == replaced_by.strip().lower(),
        )


FORMS: Final[dict[str, type[AnswerForm]]] = {
    REPRESENTATION: RepresentationForm,
    CONTEXT: ContextForm,
    RESEND: ResendForm,
}


def answer_form(question: str, data: Any = None, files: Any = None, **kwargs: Any) -> AnswerForm:
    """The form for ``question`` (see ``AnswerForm.__init__`` for the keywords)."""
    return FORMS[question](data, files, **kwargs)
