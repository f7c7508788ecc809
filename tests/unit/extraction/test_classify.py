"""AUTO domain selection never fails a build and never sends obvious PII."""

from __future__ import annotations

import pytest

from redstring.domain.exceptions import ProviderUnavailableError
from redstring.extraction.classify import classify_domain, mask_pii
from redstring.llm.fake import FakeLlmProvider


def test_mask_pii() -> None:
    """Catches: emails, phone numbers or account numbers reaching the classifier."""
    masked = mask_pii("Mail jo.park@example.com or call +1 (555) 123-4567, acct 12345678, in 1999.")
    assert "example.com" not in masked
    assert "[EMAIL]" in masked
    assert "555" not in masked
    assert "[PHONE]" in masked
    assert "12345678" not in masked
    assert "1999" in masked  # a year is not PII


async def test_confident_answer_is_used_and_text_is_masked() -> None:
    """Catches: the classifier's answer ignored, or raw PII sent in the call."""
    fake = FakeLlmProvider([{"domain": "Biomedical", "confidence": 0.9}])
    assert await classify_domain(fake, "Patient jo@x.org was given imatinib.") == "biomedical"
    assert "jo@x.org" not in fake.calls[0].text


@pytest.mark.parametrize(
    "answer",
    [
        {"domain": "business", "confidence": 0.2},
        {"domain": "astrology", "confidence": 0.99},
        "not json",
        ProviderUnavailableError("down"),
    ],
)
async def test_falls_back_to_general(answer: object) -> None:
    """Catches: a low-confidence, unknown, malformed or failed classification raising or leaking."""
    fake = FakeLlmProvider([answer])  # type: ignore[list-item]
    assert await classify_domain(fake, "Quarterly revenue rose.") == "general"
