"""`AUTO` domain selection: one classifier call on a document's opening text.

The opening text is PII-masked first (emails, phone numbers, long digit runs):
choosing a vocabulary needs none of it, and the classifier may be a hosted
model the extraction itself would not otherwise send it to in that form.
Choosing a domain is an optimisation, never a reason to fail a build, so any
error or a low-confidence answer falls back to `general`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from redstring.extraction.schemas import available_domains, load_domain

if TYPE_CHECKING:
    from redstring.ports.llm import LlmProvider

AUTO = "auto"
FALLBACK_DOMAIN = "general"
#: Characters of the opening text the classifier sees: a page is plenty to tell
#: a clinical note from a quarterly report, and it keeps the call cheap.
OPENING_CHARS = 2000
DEFAULT_MIN_CONFIDENCE = 0.6

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE = re.compile(r"(?<!\w)\+?\d[\d\s().-]{6,}\d(?!\w)")
_DIGITS = re.compile(r"\d{6,}")


def mask_pii(text: str) -> str:
    """Replace emails, phone-number-like runs and runs of 6+ digits with placeholders."""
    text = _EMAIL.sub("[EMAIL]", text)
    text = _PHONE.sub(
        lambda m: "[PHONE]" if sum(c.isdigit() for c in m.group()) >= 7 else m.group(), text
    )
    return _DIGITS.sub("[NUMBER]", text)


class DomainChoice(BaseModel):
    domain: str = Field(description="The name of the best-fitting domain.")
    confidence: float = Field(ge=0.0, le=1.0, description="How sure, from 0 to 1.")


def _instructions(names: tuple[str, ...]) -> str:
    described = "\n".join(f"- {n}: {load_domain(n).description}" for n in names)
    return (
        "Choose the domain whose vocabulary best fits the text. Domains:\n"
        f"{described}\n"
        'Answer with JSON {"domain": <one of the names>, "confidence": <0..1>}.'
    )


async def classify_domain(
    provider: LlmProvider,
    opening_text: str,
    *,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
) -> str:
    """The bundled domain that fits `opening_text`, or `general`. Never raises.

    Falls back on any exception (outage, refusal, malformed answer), an unknown
    domain name, or confidence below `min_confidence`. `BaseException`s that
    are not errors (cancellation, KeyboardInterrupt) still propagate.
    """
    try:
        names = available_domains()
        sample = mask_pii(opening_text[:OPENING_CHARS])
        if not sample.strip():
            return FALLBACK_DOMAIN
        choice = await provider.extract(sample, DomainChoice, instructions=_instructions(names))
        name = choice.domain.strip().casefold()
        if name in names and choice.confidence >= min_confidence:
            return name
    except Exception:
        return FALLBACK_DOMAIN
    return FALLBACK_DOMAIN
