"""The answer forms on the item page: one per question type.

The forms only turn posted fields into an ``answers.Answer``; every rule
lives in ``answers.validate``, which the JSON API goes through too. Errors
come back keyed by answer path (``participants.2.name``) and are put under
the field they belong to.
"""

from __future__ import annotations

from typing import Any, Final, cast

from django import forms
from django.core.files.uploadedfile import UploadedFile
from django.utils.translation import gettext_lazy as _

from reviewapp import answers
from reviewapp.answers import Answer, AnswerInvalid

# The buttons' ``action`` values. "Not representation" first asks for a
# confirmation (DENY shows its preview), then saves (DENY_CONFIRM); EDIT goes
# back to the form with what was typed.
SAVE: Final = "save"
DENY: Final = "deny"
DENY_CONFIRM: Final = "deny_confirm"
EDIT: Final = "edit"
ADD_ROW: Final = "add_row"
ACTIONS: Final = (SAVE, DENY, DENY_CONFIRM, EDIT, ADD_ROW)

# Bound formsets never build more rows than this, whatever TOTAL_FORMS says;
# beyond MAX_PARTICIPANTS the answer is refused with a message anyway.
ABSOLUTE_MAX_ROWS: Final = 100


def _text_input(max_length: int, **attrs: Any) -> forms.TextInput:
    return forms.TextInput(attrs={"maxlength": max_length, "autocomplete": "off", **attrs})


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


def _raw_answer_field() -> forms.CharField:
    return forms.CharField(
        label=_("The customer's own words (optional)"),
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 2, "maxlength": answers.MAX_RAW_ANSWER_LENGTH}),
        help_text=_(
            "Only what the customer said, for example on the phone or in a mail, word for word. "
            "Left empty, the answer is stored as what you entered above."
        ),
    )


class AnswerFormMixin:
    """What the view needs from every answer form."""

    question: str
    answer: Answer | None = None
    # Errors that belong to no single field (e.g. "at most 20 participants").
    group_errors: list[str]

    @property
    def is_amendment(self) -> bool:
        form: Any = self
        value = form.data.get("amend") if form.is_bound else form.initial.get("amend")
        return value in ("1", "true", "on", True)

    def amend_fields(self) -> tuple[bool, str]:
        """Whether this corrects an earlier answer, and the version of the answer it corrects."""
        form: Any = self
        if not self.is_amendment:
            return False, ""
        version = form.data.get("answer_version", "") if form.is_bound else form.initial.get("answer_version", "")
        return True, str(version or "")

    @property
    def valid_answer(self) -> Answer:
        """The answer of a form that passed ``is_valid()``."""
        if self.answer is None:
            raise ValueError("call is_valid() first")
        return self.answer

    def apply_errors(self, errors: dict[str, list[str]]) -> None:
        raise NotImplementedError

    def make_readonly(self) -> None:
        """Show what was typed without offering to save it (the conflict view)."""
        for form in self.all_forms():
            for bound in form:
                bound.field.widget.attrs["readonly"] = True
                if isinstance(bound.field.widget, forms.FileInput | forms.RadioSelect | forms.CheckboxInput):
                    bound.field.widget.attrs["disabled"] = True

    def all_forms(self) -> list[forms.Form]:
        return [self]  # type: ignore[list-item]

    def fields_in_order(self) -> list[forms.BoundField]:
        """The visible fields in the order the page shows them."""
        form: Any = self
        return [bound for bound in form if not bound.is_hidden]

    def focus_first(self) -> str:
        """Mark where the keyboard goes: ``"field"`` (given ``autofocus``) or ``"group"`` (the answer's errors).

        The first field with an error; else the errors about the whole answer
        (at most 20 participants, none named); else the first field.
        """
        fields = self.fields_in_order()
        if any(bound.field.widget.attrs.get("autofocus") for bound in fields):
            return "field"
        target = next((bound for bound in fields if bound.errors), None)
        if target is None and self.group_errors:
            return "group"
        (target or fields[0]).field.widget.attrs["autofocus"] = True
        return "field"


class ParticipantForm(forms.Form):
    name = forms.CharField(label=_("Name"), required=False, strip=False, widget=_text_input(answers.MAX_NAME_LENGTH))
    company = forms.CharField(
        label=_("Company (optional)"),
        required=False,
        strip=False,
        widget=_text_input(answers.MAX_COMPANY_LENGTH),
    )

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
    max_num=answers.MAX_PARTICIPANTS,
    absolute_max=ABSOLUTE_MAX_ROWS,
)


def participant_formset(data: Any = None, *, initial: list[dict[str, str]] | None = None) -> BaseParticipantFormSet:
    return cast(BaseParticipantFormSet, ParticipantFormSet(data, prefix="participants", initial=initial))


class RepresentationForm(AnswerFormMixin, forms.Form):
    """Participants, purpose and event date; or the denial button."""

    question = answers.REPRESENTATION
    purpose = forms.CharField(
        label=_("Purpose"),
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": answers.MAX_PURPOSE_LENGTH}),
        help_text=_("Why the meal was held, for example a contract negotiation."),
    )
    event_date = forms.CharField(
        label=_("Event date (optional)"),
        required=False,
        widget=_DateInput(),
        help_text=_("YYYY-MM-DD, when it differs from the receipt."),
    )
    raw_answer = _raw_answer_field()
    amend = forms.CharField(required=False, widget=forms.HiddenInput)
    answer_version = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(
        self,
        data: Any = None,
        files: Any = None,
        *,
        channel_context: object = None,
        action: str = SAVE,
        extra_rows: int = 0,
        amend_version: str = "",
        customer_words: str = "",
        **kwargs: Any,
    ) -> None:
        initial, rows = _representation_initial(channel_context)
        if amend_version:
            initial.update(amend="1", answer_version=amend_version, raw_answer=customer_words)
        super().__init__(data, files, initial=initial, **kwargs)
        self.action = action
        self.group_errors = []
        if data is None:
            # One spare row to type into; a half answer's people come first.
            self.participants = participant_formset(initial=rows)
            self.participants.extra = 1 + extra_rows
        else:
            self.participants = participant_formset(data)

    def all_forms(self) -> list[forms.Form]:
        return [self, *self.participants.forms]

    def fields_in_order(self) -> list[forms.BoundField]:
        rows = [row[name] for row in self.participants.forms for name in ("name", "company")]
        return [*rows, self["purpose"], self["event_date"], self["raw_answer"]]

    def clean_event_date(self) -> str:
        # Eight digits are a date typed on a phone's number pad, which has no "-".
        value = str(self.cleaned_data.get("event_date") or "").strip()
        if len(value) == 8 and value.isascii() and value.isdigit():
            return f"{value[:4]}-{value[4:6]}-{value[6:]}"
        return value

    def is_valid(self, *, complete: bool = True) -> bool:
        amend, version = self.amend_fields()
        if self.action in (DENY, DENY_CONFIRM):
            # "Not representation" settles it whatever is on screen (often
            # the half answer the form was prefilled with): only the
            # customer's own words are kept, if any were typed.
            words = str(self.data.get("raw_answer", "") or "")
            try:
                self.answer = answers.validate(
                    answers.RepresentationAnswer(denied=True, raw_answer=words, amend=amend, expected_version=version)
                )
            except AnswerInvalid as invalid:
                super().is_valid()  # builds cleaned_data, so the errors can go under their fields
                self.apply_errors(invalid.errors)
                return False
            return True
        own_ok = super().is_valid()
        rows_ok = self.participants.is_valid()
        if not rows_ok:
            self.group_errors.extend(str(e) for e in self.participants.non_form_errors())
        if not (own_ok and rows_ok):
            return False
        self._rows = self.participants.rows()
        answer = answers.RepresentationAnswer(
            participants=tuple(
                answers.ParticipantInput(name=row.cleaned_data["name"], company=row.cleaned_data["company"] or None)
                for row in self._rows
            ),
            purpose=self.cleaned_data["purpose"],
            event_date=self.cleaned_data["event_date"],
            raw_answer=self.cleaned_data["raw_answer"],
            amend=amend,
            expected_version=version,
        )
        try:
            self.answer = answers.validate(answer, complete=complete)
        except AnswerInvalid as invalid:
            self.apply_errors(invalid.errors)
            return False
        return True

    def apply_errors(self, errors: dict[str, list[str]]) -> None:
        rows = getattr(self, "_rows", [])
        for key, messages in errors.items():
            parts = key.split(".")
            if parts[0] == "participants" and len(parts) == 3 and parts[1].isdigit() and int(parts[1]) < len(rows):
                for message in messages:
                    rows[int(parts[1])].add_error(parts[2], message)
            elif key in ("purpose", "event_date", "raw_answer"):
                for message in messages:
                    self.add_error(key, message)
            else:
                self.group_errors.extend(messages)

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


def _representation_initial(ctx: object) -> tuple[dict[str, str], list[dict[str, str]]]:
    """What a half answer already holds: its people, purpose and date."""
    rep = ctx.get("representation") if isinstance(ctx, dict) else None
    if not isinstance(rep, dict) or rep.get("denied") is True:
        return {}, []
    rows = []
    people = rep.get("participants")
    for person in people if isinstance(people, list) else []:
        if isinstance(person, dict) and isinstance(person.get("name"), str) and person["name"].strip():
            company = person.get("company")
            rows.append({"name": person["name"], "company": company if isinstance(company, str) else ""})
    # A stored list can be of any length; a form of 10 000 rows took seconds
    # to render, and no more rows than this can be posted back anyway.
    rows = rows[:ABSOLUTE_MAX_ROWS]
    initial = {}
    for key in ("purpose", "event_date"):
        if isinstance(rep.get(key), str):
            initial[key] = rep[key]
    return initial, rows


def representation_form_with_extra_row(form: RepresentationForm, channel_context: object) -> RepresentationForm:
    """The same typed values, unbound, with one more empty row (no JavaScript)."""
    rows = form.typed_rows()
    fresh = RepresentationForm(channel_context=None)
    fresh.initial = {
        key: form.data.get(key, "") for key in ("purpose", "event_date", "raw_answer", "amend", "answer_version")
    }
    fresh.participants = participant_formset(initial=rows)
    fresh.participants.extra = 1
    # The keyboard goes to the new row, where the next name is typed.
    fresh.participants.forms[-1].fields["name"].widget.attrs["autofocus"] = True
    return fresh


class ContextForm(AnswerFormMixin, forms.Form):
    question = answers.CONTEXT
    text = forms.CharField(
        label=_("What was the purchase for?"),
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 4, "maxlength": answers.MAX_TEXT_LENGTH}),
        help_text=_("Saved as the note on the receipt."),
    )
    raw_answer = _raw_answer_field()
    amend = forms.CharField(required=False, widget=forms.HiddenInput)
    answer_version = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(
        self,
        data: Any = None,
        files: Any = None,
        *,
        channel_context: object = None,
        amend_version: str = "",
        customer_words: str = "",
        **kwargs: Any,
    ) -> None:
        initial: dict[str, Any] = {}
        if amend_version:
            note = channel_context.get("user_note") if isinstance(channel_context, dict) else None
            initial = {
                "text": note if isinstance(note, str) else "",
                "raw_answer": customer_words,
                "amend": "1",
                "answer_version": amend_version,
            }
        super().__init__(data, files, initial=initial, **kwargs)
        self.group_errors = []

    def is_valid(self, *, complete: bool = True) -> bool:
        if not super().is_valid():
            return False
        amend, version = self.amend_fields()
        answer = answers.ContextAnswer(
            text=self.cleaned_data["text"],
            raw_answer=self.cleaned_data["raw_answer"],
            amend=amend,
            expected_version=version,
        )
        try:
            self.answer = answers.validate(answer, complete=complete)
        except AnswerInvalid as invalid:
            self.apply_errors(invalid.errors)
            return False
        return True

    def apply_errors(self, errors: dict[str, list[str]]) -> None:
        for key, messages in errors.items():
            for message in messages:
                if key in ("text", "raw_answer"):
                    self.add_error(key, message)
                else:
                    self.group_errors.append(message)


class ResendForm(AnswerFormMixin, forms.Form):
    question = answers.RESEND
    choice = forms.ChoiceField(
        label=_("What settles it?"),
        choices=[
            (answers.READABLE, _("The current document is readable after all")),
            (answers.REPLACED, _("A newer item of this company replaces it")),
            (answers.UPLOAD, _("Upload a sharper file (JPEG, PNG or PDF)")),
        ],
        widget=_FirstRadioFocus,
        error_messages={"required": _("Choose how the question is settled.")},
    )
    replaced_by = forms.CharField(
        label=_("Id of the newer item"),
        required=False,
        widget=_text_input(36, spellcheck="false"),
        help_text=_("The item the customer sent instead: it must be newer and of the same company."),
    )
    file = forms.FileField(
        label=_("Sharper file"),
        required=False,
        widget=forms.FileInput(attrs={"accept": "image/jpeg,image/png,application/pdf"}),
        help_text=_("Becomes a new item for the same company; this one is marked as replaced."),
    )

    def __init__(self, data: Any = None, files: Any = None, *, channel_context: object = None, **kwargs: Any) -> None:
        kwargs.pop("amend_version", None)
        kwargs.pop("customer_words", None)
        super().__init__(data, files, **kwargs)
        self.group_errors = []

    def is_valid(self, *, complete: bool = True) -> bool:
        if not super().is_valid():
            return False
        choice = self.cleaned_data["choice"]
        upload: UploadedFile | None = self.cleaned_data.get("file") or None
        replaced_by = self.cleaned_data.get("replaced_by", "") or ""
        answer = answers.ResendAnswer(
            readable=choice == answers.READABLE,
            upload=upload if choice == answers.UPLOAD else None,
            replaced_by=replaced_by if choice == answers.REPLACED else "",
        )
        errors: dict[str, list[str]] = {}
        if choice == answers.UPLOAD and upload is None:
            errors["file"] = [str(_("Choose the file to upload."))]
        if choice == answers.REPLACED and not replaced_by.strip():
            errors["replaced_by"] = [str(_("Enter the id of the item that replaces this one."))]
        if errors:
            self.apply_errors(errors)
            return False
        try:
            self.answer = answers.validate(answer, complete=complete)
        except AnswerInvalid as invalid:
            self.apply_errors(invalid.errors)
            return False
        return True

    def apply_errors(self, errors: dict[str, list[str]]) -> None:
        for key, messages in errors.items():
            for message in messages:
                if key in ("file", "replaced_by"):
                    self.add_error(key, message)
                elif key == "readable":
                    self.add_error("choice", message)
                else:
                    self.group_errors.append(message)


FORMS: Final[dict[str, type[RepresentationForm | ContextForm | ResendForm]]] = {
    answers.REPRESENTATION: RepresentationForm,
    answers.CONTEXT: ContextForm,
    answers.RESEND: ResendForm,
}


def answer_form(
    question: str,
    *,
    channel_context: object,
    data: Any = None,
    files: Any = None,
    action: str = SAVE,
    amend_version: str = "",
    customer_words: str = "",
) -> RepresentationForm | ContextForm | ResendForm:
    """The form for ``question``: bound to ``data`` when given, else prefilled.

    ``amend_version`` (the current answer's ``answer_version``) makes an
    unbound form a correction of the app's answer, prefilled with it.
    """
    if question == answers.REPRESENTATION:
        return RepresentationForm(
            data,
            files,
            channel_context=channel_context,
            action=action,
            amend_version=amend_version,
            customer_words=customer_words,
        )
    form_class = FORMS[question]
    return form_class(
        data, files, channel_context=channel_context, amend_version=amend_version, customer_words=customer_words
    )
