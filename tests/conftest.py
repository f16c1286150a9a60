"""Shared settings for the test suite, and the fixtures of the browser tests."""

import os

import pytest
from hypothesis import settings
from site_helpers import CHROMIUM, LAUNCH_ARGS, SITE, chromium_missing, serve

# Fixed examples on CI, so a red run can be reproduced; random locally.
settings.register_profile("ci", derandomize=True, max_examples=100, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")


# The browser tests (tests/test_site.py, tests/test_interactive_site.py): a headless Chromium, the built
# site, and a server on 127.0.0.1. Without the browser they skip, except under CI=true.


@pytest.fixture(scope="module")
def browser():
    reason = chromium_missing()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the browser tests cannot run: {reason}")
        pytest.skip(f"browser tests skipped: {reason}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=LAUNCH_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def site():
    if not (SITE / "index.html").is_file():
        pytest.fail(f"no built site at {SITE}: run `make book` first (`make test` builds it)")
    return SITE


@pytest.fixture(scope="module")
def served(site):
    with serve(site) as base_url:
        yield base_url
