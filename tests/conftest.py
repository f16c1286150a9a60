"""Shared settings for the test suite: the hypothesis profiles."""

import os

from hypothesis import settings

# Fixed examples on CI, so a red run can be reproduced; random locally.
settings.register_profile("ci", derandomize=True, max_examples=100, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")
