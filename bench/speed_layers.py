"""What each speed layer of the list page still saves: the page with the layer and without it, A/B in one process.

    .venv/bin/python bench/speed_layers.py [--items 100000] [--rounds 101]
        [--base-url postgres://postgres@127.0.0.1:5432] [--keep] [--reuse]

Builds the list's databases once with ``list_bench``'s own set-up (its
``_setup_django``, ``_seed_to``, ``_client``, ``_plain_storages``: demo data
seeded, the read model synced, VACUUM ANALYZE), on two databases of its own
(``bench_speed_review``, ``bench_speed_bookkeeping``, so it can run beside
``list_bench``). Then it times ``/?state=needs_answer`` (``list_bench``'s
"list: needs answer in app") with Django's test client, for two users:
``list_bench``'s superuser and a firm-wide bookkeeper (the list's everyday
user, who has permissions to look up and roles to show).

Each speed layer is a pair of variants of the same page, "on" (the app as it
is) and "off" (the plain Django/Jinja2 way in its place, switched in this
process only):

- the filter bar: ``InboxFilterForm.controls`` and its macro replaced, in a
  copy of ``inbox/list.html``, by a macro that prints the bound field
  (``label_tag()``, the widget through the form renderer, the same help text
  and error slot): what the bar was before the hand-written markup;
- the auth backend: ``django.contrib.auth.backends.ModelBackend`` as the only
  backend, the user signed in through it;
- both off at once, for the sum.

Every round takes every (user, layer, variant) once, the layers in a new
random order each round and "on"/"off" in alternating order, so the phases of
a shared machine fall on both variants alike. Each variant's switch is
checked once before timing (a page that does not change is no measurement).
For each pair it prints the medians, the difference of the medians (off − on:
what removing the layer would cost) and the median of the rounds' own
differences (each "off" against the "on" timed beside it, which cancels the
machine's slow phases), each with a 95 % bootstrap interval over the rounds;
the latter's share of the page's median; this process's CPU time saved (not
PostgreSQL's: the auth backend's saving is mostly queries); and the decision
rule of ``bench/README.md`` ("Speed layers"), read on the rounds'
differences: a layer stays only when removing it costs at least 5 % of the
page's median and at least 1 ms. The load average is sampled every round.

A layer already removed has no "on" to compare; its last figures and the
commit they were measured at are in ``bench/README.md`` (``csrf_once`` and
the cached ``url()``, removed after this script measured them at 25ed604).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

import benchdb
import list_bench

REVIEW_DB = "bench_speed_review"
BOOKKEEPING_DB = "bench_speed_bookkeeping"
PAGE = "/?state=needs_answer"
# The decision rule (bench/README.md, "Speed layers").
MIN_SHARE = 0.05
MIN_MS = 1.0
BOOTSTRAP = 2000

# The bar as it was before InboxFilterForm.controls: each bound field printed
# as the form renders it, with the same help text and always-present error slot.
PLAIN_FILTER_MACRO = """{% macro filter_field(field) %}
<div class="field">
  {{ field.label_tag() }}
  {% if field.help_text %}<p class="helptext" id="{{ field.auto_id }}_helptext">{{ field.help_text }}</p>{% endif %}
  {{ field }}
  <div class="field-errors" id="{{ field.auto_id }}_error">
    {%- for error in field.errors %}<p class="error">{{ error }}</p>{% endfor %}</div>
</div>
{% endmacro %}"""


# --- the layers, each switched off in this process only ---------------------------


def _engine() -> Any:
    from django.template import engines

    return engines["jinja2"]


def _plain_filter_bar_template() -> Any:
    env = _engine().env
    source, _filename, _uptodate = env.loader.get_source(env, "inbox/list.html")
    source, macros = re.subn(
        r"\{% macro filter_field\(control\) %\}.*?\{% endmacro %\}", lambda _m: PLAIN_FILTER_MACRO, source, flags=re.S
    )
    source, calls = re.subn(r"filter_field\(form\.controls\.(\w+)\)", r"filter_field(form.\1)", source)
    if macros != 1 or calls < 7 or "form.controls." in source:
        raise SystemExit("inbox/list.html's filter bar has changed: update PLAIN_FILTER_MACRO and its substitutions")
    return env.from_string(source)


@contextlib.contextmanager
def filter_bar_off(plain: Any) -> Iterator[None]:
    env = _engine().env
    get_template = env.get_template

    def patched(name: Any, *args: Any, **kwargs: Any) -> Any:
        return plain if name == "inbox/list.html" else get_template(name, *args, **kwargs)

    env.get_template = patched
    try:
        yield
    finally:
        del env.get_template  # the class's own again


MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


@contextlib.contextmanager
def auth_backend_off() -> Iterator[None]:
    from django.test.utils import override_settings

    with override_settings(AUTHENTICATION_BACKENDS=[MODEL_BACKEND]):
        yield


# --- users and checks ----------------------------------------------------------------


def _bookkeeper() -> Any:
    from django.contrib.auth.models import Group, Permission, User

    from reviewapp.core import roles

    user, _ = User.objects.get_or_create(username="bench_bookkeeper")
    user.groups.set([Group.objects.get(name=roles.BOOKKEEPER)])
    # Firm-wide, like tests/conftest.py's bookkeeper: every company, no assignments.
    user.user_permissions.set(
        [Permission.objects.get(codename="view_all_companies", content_type__app_label="reviewapp")]
    )
    return user


def _clients(user: Any) -> tuple[Any, Any]:
    """(signed in through the app's backend, signed in through ModelBackend): a session names its backend."""
    from django.conf import settings
    from django.test import Client

    on, off = Client(), Client()
    on.force_login(user, backend=settings.AUTHENTICATION_BACKENDS[0])
    off.force_login(user, backend=MODEL_BACKEND)
    return on, off


def _superuser_clients() -> tuple[Any, Any]:
    """list_bench's client (its superuser, signed in through the app's backend), and one through ModelBackend."""
    from django.contrib.auth.models import User
    from django.test import Client

    on = list_bench._client()
    off = Client()
    off.force_login(User.objects.get(username="bench"), backend=MODEL_BACKEND)
    return on, off


def _auth_queries(call: Callable[[], Any]) -> int:
    from django.db import connections
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connections["default"]) as queries:
        call()
    return sum(
        1
        for q in queries.captured_queries
        if re.search(r'\b"?auth_(user|group|permission)', q["sql"]) and "reviewapp_indexeditem" not in q["sql"]
    )


def _check(label: str, on: Callable[[], Any], off: Callable[[], Any], differs: Callable[[Any, Any], bool]) -> None:
    a, b = on(), off()
    if not differs(a, b):
        raise SystemExit(f"switching off {label} changed nothing: the benchmark would compare a page with itself")


def _filter_bar(body: str) -> str:
    start, end = body.index('<div class="filter-bar">'), body.index('<div class="filter-actions">')
    return body[start:end]


# --- statistics -----------------------------------------------------------------------


def _interval(values: list[float], estimate: Callable[[list[int]], float], rng: random.Random) -> tuple[float, float]:
    """95 % bootstrap interval of ``estimate`` over the rounds, resampled with replacement."""
    n = len(values)
    estimates = sorted(estimate([rng.randrange(n) for _ in range(n)]) for _ in range(BOOTSTRAP))
    return estimates[int(0.025 * BOOTSTRAP)], estimates[int(0.975 * BOOTSTRAP) - 1]


def _compare(on: list[float], off: list[float], rng: random.Random) -> dict[str, Any]:
    """Medians, the difference of the medians and the median of the rounds' differences, each with its interval.

    The rounds' differences pair each "off" with the "on" timed next to it, so a
    slow phase of the machine cancels out; the decision reads that one.
    """
    paired = [b - a for a, b in zip(on, off, strict=True)]
    return {
        "on": statistics.median(on),
        "off": statistics.median(off),
        "diff_of_medians": statistics.median(off) - statistics.median(on),
        "diff_of_medians_interval": _interval(
            on,
            lambda picks: statistics.median(off[i] for i in picks) - statistics.median(on[i] for i in picks),
            rng,
        ),
        "paired": statistics.median(paired),
        "paired_interval": _interval(paired, lambda picks: statistics.median(paired[i] for i in picks), rng),
    }


def _decision(median_on: float, diff: float) -> str:
    threshold = max(MIN_SHARE * median_on, MIN_MS)
    return "keep" if diff >= threshold else "remove"


# --- the run --------------------------------------------------------------------------


def _measure(rounds: int, seed: int) -> None:
    from django.test.utils import override_settings

    # The Jinja2 environment binds static() when it is made: make it under the bench's storages.
    storages = override_settings(STORAGES=list_bench._plain_storages())
    storages.enable()
    plain_bar = _plain_filter_bar_template()
    layers: dict[str, Callable[[], contextlib.AbstractContextManager[None]]] = {
        "hand-written filter bar": lambda: filter_bar_off(plain_bar),
        "auth backend": auth_backend_off,
    }

    @contextlib.contextmanager
    def all_off() -> Iterator[None]:
        with contextlib.ExitStack() as stack:
            for off in layers.values():
                stack.enter_context(off())
            yield

    variants = {**layers, "both": all_off}
    clients = {"superuser": _superuser_clients(), "bookkeeper": _clients(_bookkeeper())}

    def request(user: str, layer: str, off: bool) -> Callable[[], Any]:
        client_on, client_off = clients[user]
        # The auth layer is the session's backend: "off" uses the client signed in through ModelBackend.
        uses_model_backend = off and layer in {"auth backend", "both"}
        client = client_off if uses_model_backend else client_on

        def call() -> Any:
            response = client.get(PAGE)
            assert response.status_code == 200, response.status_code
            return response

        return call

    def run(user: str, layer: str, off: bool) -> Any:
        if off:
            with variants[layer]():
                return request(user, layer, off)()
        return request(user, layer, off)()

    def timed(user: str, layer: str, off: bool) -> tuple[float, float]:
        """Wall-clock and this process's CPU milliseconds of one request."""
        call = request(user, layer, off)
        with variants[layer]() if off else contextlib.nullcontext():
            wall, cpu = time.perf_counter(), time.process_time()
            call()
            return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000

    try:
        # Each switch must change the page it is meant to change.
        for user in clients:
            _check(
                "the hand-written filter bar",
                lambda user=user: run(user, "hand-written filter bar", False).content.decode(),
                lambda user=user: run(user, "hand-written filter bar", True).content.decode(),
                # The same controls, written differently (whitespace, attribute order).
                lambda a, b: _filter_bar(a) != _filter_bar(b),
            )
            _check(
                "the auth backend",
                lambda user=user: _auth_queries(lambda: run(user, "auth backend", False)),
                lambda user=user: _auth_queries(lambda: run(user, "auth backend", True)),
                lambda a, b: a == 1 and b > 1,
            )
        rng = random.Random(seed)
        keys = [(user, layer) for user in clients for layer in variants]
        for _ in range(3):  # warm-up: every template compiled, every cache filled
            for user, layer in keys:
                for off in (False, True):
                    timed(user, layer, off)
        # (user, layer) -> on/off -> wall/cpu -> milliseconds per round
        timings: dict[tuple[str, str], dict[bool, tuple[list[float], list[float]]]] = {
            key: {False: ([], []), True: ([], [])} for key in keys
        }
        loads: list[float] = []
        started = time.monotonic()
        for n in range(rounds):
            order = keys[:]
            rng.shuffle(order)
            for user, layer in order:
                for off in (False, True) if n % 2 == 0 else (True, False):
                    wall, cpu = timed(user, layer, off)
                    timings[(user, layer)][off][0].append(wall)
                    timings[(user, layer)][off][1].append(cpu)
            loads.append(os.getloadavg()[0])
        elapsed = time.monotonic() - started
    finally:
        storages.disable()

    print(
        f"\n{rounds} rounds in {elapsed:.0f} s; 1-minute load average min {min(loads):.1f}, "
        f"median {statistics.median(loads):.1f}, max {max(loads):.1f} ({os.cpu_count()} CPUs)\n"
    )
    print(
        "| user | layer | median on (ms) | median off (ms) | off − on, medians (95 %) "
        "| off − on, per round (95 %) | share | CPU of this process, per round | decision |"
    )
    print("|---|---|---:|---:|---|---|---:|---:|---|")
    for user, layer in keys:
        wall = _compare(timings[(user, layer)][False][0], timings[(user, layer)][True][0], rng)
        cpu = _compare(timings[(user, layer)][False][1], timings[(user, layer)][True][1], rng)
        (low, high), (paired_low, paired_high) = wall["diff_of_medians_interval"], wall["paired_interval"]
        decision = _decision(wall["on"], wall["paired"]) if layer in layers else "—"
        print(
            f"| {user} | {layer} | {wall['on']:.1f} | {wall['off']:.1f} "
            f"| {wall['diff_of_medians']:+.2f} ({low:+.2f} … {high:+.2f}) "
            f"| {wall['paired']:+.2f} ({paired_low:+.2f} … {paired_high:+.2f}) "
            f"| {wall['paired'] / wall['on']:+.1%} | {cpu['paired']:+.2f} | {decision} |"
        )
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=101)
    parser.add_argument("--seed", type=int, default=28, help="the order of the layers in each round")
    parser.add_argument("--base-url", default=list_bench.DEFAULT_BASE, help="the PostgreSQL server, no database name")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark databases afterwards")
    parser.add_argument("--reuse", action="store_true", help="measure the databases a --keep run left")
    args = parser.parse_args()
    if args.rounds < 41:
        parser.error("--rounds must be 41 or more: a median of fewer moves with the machine's phases")
    base = args.base_url.rstrip("/")
    review_url, bookkeeping_url = f"{base}/{REVIEW_DB}", f"{base}/{BOOKKEEPING_DB}"
    media_root = os.path.join(tempfile.gettempdir(), "bench_speed_media")
    if not args.reuse:
        benchdb.recreate_database(review_url)
        benchdb.recreate_database(bookkeeping_url)
        shutil.rmtree(media_root, ignore_errors=True)
    try:
        list_bench._setup_django(review_url, bookkeeping_url, media_root)
        from django.core.management import call_command
        from django.db import connections

        from reviewapp.bookkeeping import replica

        call_command("migrate", verbosity=0)
        if not replica.has_inbox_table(connections["bookkeeping"]):
            replica.create()
        print(f"load average before seeding: {os.getloadavg()[0]:.1f}", flush=True)
        seeded, polled = list_bench._seed_to(args.items)
        print(f"{args.items:,} items (seeded in {seeded:.0f} s, poll {polled:.1f} s)", flush=True)
        _measure(args.rounds, args.seed)
    finally:
        if "django" in sys.modules:
            from django.db import connections

            connections.close_all()
        if not args.keep:
            benchdb.recreate_database(review_url, drop_only=True)
            benchdb.recreate_database(bookkeeping_url, drop_only=True)
            shutil.rmtree(media_root, ignore_errors=True)


if __name__ == "__main__":
    main()
