"""The Jinja2 environment the app's own pages are rendered with (``TEMPLATES`` in settings).

Why Jinja2: a page of 50 list rows is about 1 300 printed values. Django's
template language costs a few microseconds for each one (a node object, a
lookup chain, a context stack), which made rendering the list cost more
than its queries; Jinja2 compiles a template to Python once and prints a
value for a fraction of that. The Django admin keeps Django's own engine.

The names here stand in for what the pages used from Django's tags, with
the same meaning:

- ``_()``, ``gettext``, ``ngettext`` and ``{% trans %}``: Django's catalogue
  (``locale/``), so a msgid is the same string it was under
  ``{% translate %}`` / ``{% blocktranslate %}``;
- ``url(name, *args)``: ``reverse``; ``static(path)``: the static files storage;
- ``csrf_input``, ``csrf_token``, ``request`` and the context processors'
  names (``perms``, ``user``, ``messages``, ``LANGUAGE_CODE``, ``csp_nonce``):
  put in by Django's backend for every page rendered with a request;
- the filters Django's pages used (``date``, ``time``, ``timeuntil``,
  ``floatformat``, ``capfirst``, ``truncatechars``) and the app's own
  (``local_date``, ``agent_capped``, ``exact_text``, ``short``) and ``cut()``.

As in Django's templates, a printed value that is not text is shown the way
Django shows it (``finalize``): an aware time in the reader's time zone,
numbers and dates localized.

A name a template is not given is settings' choice (``TEMPLATES``' ``undefined``):
under DEBUG and in the tests it fails the page (``StrictUndefined``), so a
misspelled name is found where it is made, and a template says "may be
missing" itself (``is defined``, ``|default``); in production it prints nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import jinja2
from django.contrib.staticfiles.storage import staticfiles_storage
from django.template import defaultfilters, engines
from django.template.backends.jinja2 import Jinja2
from django.template.backends.utils import csrf_input_lazy, csrf_token_lazy
from django.urls import reverse
from django.utils import translation
from django.utils.formats import localize
from django.utils.module_loading import import_string
from django.utils.timezone import template_localtime  # type: ignore[attr-defined]  # public, not in django-stubs
from django_htmx.jinja import htmx_script
from markupsafe import Markup

from reviewapp.core.dates import local_date
from reviewapp.core.people import person_name
from reviewapp.core.rendering_caps import PRINTED_MARKUP_MAX_CHARS, PRINTED_TEXT_MAX_CHARS
from reviewapp.web.page_text import agent_capped, cut, exact_text, printed_markup, printed_text, short_text


def url(name: str, *args: Any, **kwargs: Any) -> str:
    """``{% url name arg %}``: the path of a named URL."""
    return reverse(name, args=args, kwargs=kwargs)


def _finalize(value: Any) -> Any:
    """What Django's templates do to a printed value (local time, localized numbers and dates), within the cap.

    Every value a page prints passes here, so this is where the one cap on
    printed stored text is kept (``reviewapp.core.rendering_caps``): text past
    ``PRINTED_TEXT_MAX_CHARS`` is cut with a plain-text mark saying so, and
    HTML built in Python (a form field, a macro, anything with ``__html__``)
    past ``PRINTED_MARKUP_MAX_CHARS`` is left out with a note.
    """
    if isinstance(value, str):  # text (and safe text): the common case first
        if len(value) <= PRINTED_TEXT_MAX_CHARS:
            return value
        if hasattr(value, "__html__"):
            return value if len(value) <= PRINTED_MARKUP_MAX_CHARS else printed_markup(value)
        return printed_text(value)
    if hasattr(value, "__html__"):  # a form, a bound field: rendered here, so its length is known
        html = value.__html__()
        # The value's own __html__: escaped by whoever built it, as Jinja2 would print it.
        return Markup(html) if len(html) <= PRINTED_MARKUP_MAX_CHARS else printed_markup(html)  # noqa: S704
    value = localize(template_localtime(value))
    if isinstance(value, str | int | float | dt.date | dt.time) or value is None:
        return value
    # Anything else prints as its str(): cut like text.
    return printed_text(str(value))


def _date(value: dt.date | dt.datetime | None, arg: str | None = None) -> str:
    return defaultfilters.date(template_localtime(value), arg)


def _time(value: dt.time | dt.datetime | None, arg: str | None = None) -> str:
    return defaultfilters.time(template_localtime(value), arg)


def environment(**options: Any) -> jinja2.Environment:
    # settings name the Undefined class by its dotted path (settings import no Jinja2).
    if isinstance(options.get("undefined"), str):
        options["undefined"] = import_string(options["undefined"])
    env = jinja2.Environment(
        # Every printed value escaped unless marked safe (Django's SafeString counts as marked).
        autoescape=True,
        extensions=["jinja2.ext.i18n"],
        finalize=_finalize,
        # Whitespace as Django's templates leave it: the tests read the text, not the indentation.
        keep_trailing_newline=True,
        # The loader and ``undefined`` (settings' TEMPLATES), ``auto_reload``.
        **{key: value for key, value in options.items() if key != "autoescape"},
    )
    env.install_gettext_callables(  # type: ignore[attr-defined]
        translation.gettext,
        translation.ngettext,
        newstyle=True,
        pgettext=translation.pgettext,
        npgettext=translation.npgettext,
    )
    env.globals.update(
        url=url,
        static=staticfiles_storage.url,
        htmx_script=htmx_script,
        cut=cut,
        person_name=person_name,
    )
    env.filters.update(
        date=_date,
        time=_time,
        timeuntil=defaultfilters.timeuntil_filter,
        floatformat=defaultfilters.floatformat,
        capfirst=defaultfilters.capfirst,
        truncatechars=defaultfilters.truncatechars,
        local_date=local_date,
        agent_capped=agent_capped,
        exact_text=exact_text,
        short=short_text,
    )
    return env


def render_block(template_name: str, block: str, context: dict[str, Any], request: Any) -> str:
    """One ``{% block %}`` of a page, alone: what htmx swaps in (``reviewapp.web.htmx.render_htmx``).

    The block sees what the whole page would: the view's context, the
    request, the CSRF token and the context processors' names.
    """
    engine = _engine()
    template = engine.env.get_template(template_name)
    # What Django's backend adds to a page rendered with a request (its Template.render).
    full = {
        **context,
        "request": request,
        "csrf_input": csrf_input_lazy(request),
        "csrf_token": csrf_token_lazy(request),
    }
    for processor in engine.template_context_processors:
        full.update(processor(request))
    render: Any = template.blocks[block]
    parts: Iterator[str] = render(template.new_context(full))
    return "".join(parts)


def _engine() -> Jinja2:
    engine = engines["jinja2"]
    assert isinstance(engine, Jinja2)
    return engine
