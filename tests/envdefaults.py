"""Environment for the test run, loaded as a plugin (``-p tests.envdefaults``).

It must run before pytest-django imports the settings, which a conftest is
too late for. Tests run with production settings (DEBUG off) so the security
settings under test are the real ones; only the HTTPS redirect is off because
the test client speaks plain HTTP (tests that need HTTPS pass ``secure=True``).

Without DATABASE_URL and BOOKKEEPING_DATABASE_URL the run starts the embedded
PostgreSQL (reviewapp/dev/embedded_pg.py) and puts its URLs into the environment,
so the settings, and every process a test starts, find them there. The test
databases are test_<name> beside them (test_<name>_gw<n> per xdist worker).
"""

import os

from reviewapp.dev import embedded_pg

os.environ.setdefault("SECRET_KEY", "tests-only-key-not-a-secret")
os.environ.setdefault("DEBUG", "0")
# seed_demo, simulate_intake and create_bookkeeping_replica: the tests build replicas and demo data.
os.environ.setdefault("DEVTOOLS", "1")
# A name a template is not given fails the page, as under DEBUG (settings.STRICT_TEMPLATES).
os.environ.setdefault("STRICT_TEMPLATES", "1")
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost,127.0.0.1")
os.environ.setdefault("EMBEDDED_POSTGRES", "1")
embedded_pg.export_urls_if_asked(os.environ)
