"""Chapter 10's tests never reach the Hugging Face Hub: everything comes from the installed GGUF file."""

import os

import pytest

# Read by huggingface_hub when it is first imported; the fixture below covers a worker that imported it
# before this file (tests/posenc/test_serving.py imports transformers at collection).
os.environ["HF_HUB_OFFLINE"] = "1"


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    constants = pytest.importorskip("huggingface_hub.constants", reason="huggingface_hub is not installed")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
