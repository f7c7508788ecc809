"""Bundled domain schemas load, and the prompt carries what the model needs."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from redstring.domain.exceptions import InvalidInputError, NotFoundError
from redstring.extraction.schemas import (
    available_domains,
    extraction_instructions,
    load_domain,
    parse_domain,
)


def test_the_four_bundled_domains_load() -> None:
    """Catches: a YAML file missing from the package or failing validation."""
    assert set(available_domains()) >= {"general", "business", "biomedical", "news"}
    for name in available_domains():
        domain = load_domain(name)
        assert domain.name == name
        assert domain.examples, f"{name} has no examples"
        for example in domain.examples:
            declared = {t.name for t in domain.entity_types}
            assert {e.type for e in example.output.entities} <= declared


def test_unknown_domain_names_the_available_ones() -> None:
    """Catches: a typo in a domain name failing with a bare KeyError."""
    with pytest.raises(NotFoundError, match="general"):
        load_domain("astrology")


def test_fallback_type_must_be_declared() -> None:
    """Catches: a user domain whose fallback type is not one of its types."""
    with pytest.raises(InvalidInputError, match="fallback"):
        parse_domain("name: x\nentity_types: [{name: A}]\nfallback_entity_type: B\n")


def test_type_canonicalisation() -> None:
    """Catches: 'person' or 'works for' from a model not matching declared types."""
    general = load_domain("general")
    assert general.canonical_entity_type("person") == "Person"
    assert general.canonical_entity_type("Spaceship") == "Concept"
    assert general.canonical_relationship_type("works for") == "WORKS_FOR"
    assert general.canonical_relationship_type("ORBITS") is None


def test_prompt_lists_types_examples_and_carryover() -> None:
    """Catches: types, examples or carried-over names missing from the prompt."""
    prompt = extraction_instructions(load_domain("business"), ["Acme Corp"])
    assert "- Company:" in prompt
    assert "ACQUIRED" in prompt
    assert "Widget Ltd" in prompt
    assert prompt.rstrip().endswith("Acme Corp")


def test_the_lean_schema_leaves_no_open_slot() -> None:
    """Catches: a free description or properties map, free type names or unbounded
    names in the lean schema, where a grammar-constrained small model rambles."""
    from redstring.extraction.schemas import LEAN_NAME_MAX_LENGTH, lean_output_schema

    domain = load_domain("general")
    lean = lean_output_schema(domain)
    sent = lean.model_json_schema()
    entity = sent["$defs"]["LeanEntity"]
    relationship = sent["$defs"]["LeanRelationship"]
    assert set(entity["properties"]) == {"name", "type"}
    assert set(relationship["properties"]) == {"source", "target", "type"}
    assert entity["properties"]["type"]["enum"] == [t.name for t in domain.entity_types]
    assert relationship["properties"]["type"]["enum"] == [t.name for t in domain.relationship_types]
    assert entity["properties"]["name"]["maxLength"] == LEAN_NAME_MAX_LENGTH
    assert relationship["properties"]["source"]["maxLength"] == LEAN_NAME_MAX_LENGTH
    assert sent["required"] == ["entities", "relationships"]
    for part in (sent, entity, relationship):
        assert part["additionalProperties"] is False
    good = {"entities": [{"name": "Ada", "type": "Person"}], "relationships": []}
    assert lean.model_validate(good)
    for bad in (
        {"entities": [{"name": "Ada", "type": "Wizard"}]},
        {"entities": [{"name": "Ada", "type": "Person", "description": "x"}]},
        {"entities": [{"name": "A" * (LEAN_NAME_MAX_LENGTH + 1), "type": "Person"}]},
        {"foo": 1},
    ):
        with pytest.raises(ValidationError):
            lean.model_validate(bad)


def test_a_domain_without_relationship_types_gets_free_relationship_types() -> None:
    from redstring.extraction.schemas import lean_output_schema

    domain = parse_domain("name: x\nentity_types: [{name: A}]\nfallback_entity_type: A\n")
    sent = lean_output_schema(domain).model_json_schema()
    assert sent["$defs"]["LeanRelationship"]["properties"]["type"]["type"] == "string"
    assert "enum" not in sent["$defs"]["LeanRelationship"]["properties"]["type"]
    only = sent["$defs"]["LeanEntity"]["properties"]["type"]
    assert only.get("enum", [only.get("const")]) == ["A"]  # one value: pydantic writes const
