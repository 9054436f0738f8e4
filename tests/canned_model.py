"""A canned ``llm`` chat model for the digest's model path (llm's own tests/conftest.py MockModel pattern)."""

import json

import llm
import pytest
from llm.plugins import pm


class CannedModel(llm.Model):
    model_id = "canned"
    can_stream = False

    def __init__(self):
        self.replies: list[str] = []
        self.prompts: list[tuple[str, str]] = []

    def enqueue(self, *replies):
        self.replies.extend(r if isinstance(r, str) else json.dumps(r) for r in replies)

    def execute(self, prompt, stream, response, conversation):
        self.prompts.append((prompt.system or "", prompt.prompt))
        yield self.replies.pop(0) if self.replies else '{"facts": []}'


@pytest.fixture
def canned():
    model = CannedModel()

    class Plugin:
        __name__ = "CannedModelPlugin"

        @llm.hookimpl
        def register_models(self, register):
            register(model)

    pm.register(Plugin(), name="canned-model-plugin")
    try:
        yield model
    finally:
        pm.unregister(name="canned-model-plugin")
