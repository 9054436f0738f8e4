import re

import pytest

from scope_recall_engine.hookspecs import hookimpl
from scope_recall_engine.plugins import load_plugins
from scope_recall_engine.truth import redaction

SECRETS = {
    "openai_key": "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
    "anthropic_key": "sk-ant-api03-Ab3dEf6hIj9kLm2nOp5qRs8tUv1w",
    "github_token": "ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3d",
    "aws_access_key": "AKIAIOSFODNN7EXAMPLE",
    "slack_token": "xoxb-123456789012-abcdefghijkl",
    "google_api_key": "AIzaSyA-1234567890abcdefghijklmnopqrstu",
    "stripe_key": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("rule, secret", SECRETS.items())
def test_provider_tokens_are_redacted_and_prose_kept(rule, secret):
    text, count = redaction.redact(f"here is the key {secret} for the deploy")
    assert secret not in text and count == 1
    assert text == f"here is the key [REDACTED:{rule}] for the deploy"


def test_github_fine_grained_pat():
    token = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
    text, count = redaction.redact(f"use {token}")
    assert count == 1 and text.startswith("use [REDACTED:") and token not in text


def test_password_phrasing_keeps_the_sentence_but_not_the_value():
    for text in ("my password is hunter2!", "Password: hunter2!", "the wifi passphrase was 'hunter2!'"):
        redacted, count = redaction.redact(text)
        assert "hunter2" not in redacted and "[REDACTED:password]" in redacted and count == 1
    assert redaction.redact("I forgot my password yesterday") == ("I forgot my password yesterday", 0)


def test_a_password_or_pin_named_by_what_it_opens_is_redacted():
    for text, secret in (("My password for the school portal is Tulipe!2024, can you keep it?", "Tulipe!2024"),
                         ("the password to my laptop: s3cr3t-Pa55", "s3cr3t-Pa55"),
                         ("My login PIN is 482913, don't tell anyone.", "482913"),
                         ("my PIN for the bank card is 7391", "7391")):
        redacted, count = redaction.redact(text)
        assert secret not in redacted and "[REDACTED:" in redacted and count == 1, redacted
    for text in ("the pin is in the drawer", "I reset my password for the school portal yesterday",
                 "Pin 3 is the ground wire"):  # control: prose about pins and passwords stays whole
        assert redaction.redact(text) == (text, 0)


def test_bearer_and_private_key_blocks():
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\nabcd\n-----END RSA PRIVATE KEY-----"
    redacted, count = redaction.redact(f"Authorization: Bearer abc123def456ghi789\nkey:\n{pem}\nthanks")
    assert "abc123def456ghi789" not in redacted and "MIIEowIBAAKCAQEA1234" not in redacted
    assert redacted.endswith("[REDACTED:private_key]\nthanks") and count == 2


def test_card_numbers_need_a_luhn_check():
    redacted, count = redaction.redact("card 4111 1111 1111 1111, order 1234 5678 9012 3456")
    assert "4111" not in redacted and count == 1
    assert "1234 5678 9012 3456" in redacted  # fails Luhn: an order number, not a card


def test_ordinary_text_is_untouched():
    text = "I like sk-ii skincare and my AKIA-free life; call 555-0100 at 9."
    assert redaction.redact(text) == (text, 0)


@pytest.mark.parametrize("role, text, reason", [
    ("user", "   ", "empty"),
    ("user", None, "empty"),
    ("user", "Ok, thanks!", "acknowledgement"),
    ("assistant", "👍", "acknowledgement"),
    ("user", "[Image #1]", "attachment marker"),
    ("user", "<attachment name='a.pdf'>", "attachment marker"),
    ("system", "You are a helpful assistant", "system turn"),
    ("tool", "ls output", "tool turn"),
    ("assistant", '{"files": ["a", "b"]}', "tool output"),
    ("assistant", "<tool_response>done</tool_response>", "tool output"),
])
def test_noise_is_dropped(role, text, reason):
    assert redaction.sanitize(role, text) == redaction.Sanitized(None, dropped=reason)


def test_real_turns_pass_the_filter():
    assert redaction.sanitize("user", "  ok, my name is Dana  ").text == "ok, my name is Dana"
    assert redaction.sanitize("assistant", "[Image #1] shows a cat").text == "[Image #1] shows a cat"


class ExtraRules:
    @hookimpl
    def register_redaction_rules(self, register):
        register("employee_id", re.compile(r"\bEMP-\d{6}\b"))

    @hookimpl
    def capture_filter(self, role, text):
        return "off the record" if text and text.startswith("OTR") else None


def test_users_add_rules_and_filters_through_the_hook():
    pm = load_plugins()
    assert redaction.redact("badge EMP-123456") == ("badge EMP-123456", 0)
    pm.register(ExtraRules(), name="extra-rules")
    try:
        assert redaction.redact("badge EMP-123456") == ("badge [REDACTED:employee_id]", 1)
        assert redaction.sanitize("user", "OTR: my salary").dropped == "off the record"
        assert redaction.sanitize("user", "Ok").dropped == "acknowledgement"
    finally:
        pm.unregister(name="extra-rules")
    assert redaction.redact("badge EMP-123456") == ("badge EMP-123456", 0)
