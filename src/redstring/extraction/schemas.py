"""What the model is asked for and what it must answer.

- `ExtractionOutput`: the pydantic schema the LLM fills; its JSON schema is
  what the adapter sends as structured output.
- `DomainSchema`: a vocabulary of entity and relationship types with worked
  examples. Four ship with redstring as YAML in `extraction/domains/`
  (general, business, biomedical, news); a caller may build its own.
- `extraction_instructions`: the default prompt, rendered from a domain.

Names are asked for *exactly as written in the text*: mapping finds character
spans by searching for the name in the chunk, and a paraphrased name has no
span to show a user.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator

from redstring.domain.exceptions import InvalidInputError, NotFoundError

PropertyValue = str | int | float | bool | None


class ExtractedEntity(BaseModel):
    name: str = Field(description="The entity's name exactly as written in the text.")
    type: str = Field(description="One of the allowed entity types.")
    description: str | None = Field(default=None, description="One short sentence, if useful.")
    properties: dict[str, PropertyValue] | None = Field(
        default=None, description="Attributes stated in the text, e.g. a role or a date."
    )


class ExtractedRelationship(BaseModel):
    source: str = Field(description="The source entity's name, as listed in entities.")
    target: str = Field(description="The target entity's name, as listed in entities.")
    type: str = Field(description="One of the allowed relationship types.")
    description: str | None = None
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)


class ExtractionOutput(BaseModel):
    """The JSON object the model returns for one chunk.

    Either list may be left out, but not both: an answer naming neither (`{"foo": 1}`,
    `{}`) is the wrong shape, not "nothing found", and taking it for an empty chunk
    would mark the document done with nothing extracted, so no rerun would retry it.

    The schema sent to the model *requires* both lists: a server that compiles the
    schema into a grammar (llama.cpp) otherwise lets a small model answer `{}`, the
    shortest valid object, which is then refused (measured with Gemma 3 270M).
    """

    model_config = ConfigDict(json_schema_extra={"required": ["entities", "relationships"]})

    entities: list[ExtractedEntity] = Field(default_factory=list)
    relationships: list[ExtractedRelationship] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _names_a_list(cls, data: object) -> object:
        return _require_a_list(data)


def _require_a_list(data: object) -> object:
    if isinstance(data, dict) and not {"entities", "relationships"} & data.keys():
        raise ValueError(
            "the answer has neither 'entities' nor 'relationships' "
            f"(keys: {', '.join(map(repr, list(data)[:5])) or 'none'})"
        )
    return data


OutputShape = Literal["full", "lean"]
OUTPUT_SHAPES: tuple[OutputShape, ...] = ("full", "lean")
#: Which answer schema `LlmExtractor` asks for when its caller does not say.
ENV_OUTPUT_SHAPE = "REDSTRING_LLM_SCHEMA"
#: The longest name a lean answer may hold: a grammar-constrained model cannot run
#: on inside one string. Generous for real names (the longest CoNLL04 one is ~60).
LEAN_NAME_MAX_LENGTH = 100


class _LeanOutput(BaseModel):
    """Base of the per-domain lean answer schemas (`lean_output_schema`).

    Same two lists and the same "neither list" refusal as `ExtractionOutput`, both
    required in the sent schema for the same reason.
    """

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"required": ["entities", "relationships"]}
    )

    @model_validator(mode="before")
    @classmethod
    def _names_a_list(cls, data: object) -> object:
        return _require_a_list(data)


def _name_field(description: str) -> object:
    return (str, Field(max_length=LEAN_NAME_MAX_LENGTH, description=description))


def _type_field(names: tuple[str, ...], description: str) -> object:
    # `Literal[...]` built from data: pydantic turns it into a JSON-schema enum.
    kind: object = Literal.__getitem__(names) if names else str
    return (kind, Field(description=description))


@cache
def _lean_schema(
    domain: str, entity_types: tuple[str, ...], relationship_types: tuple[str, ...]
) -> type[BaseModel]:
    entity = create_model(
        "LeanEntity",
        __config__=ConfigDict(extra="forbid"),
        name=_name_field("The entity's name exactly as written in the text."),
        type=_type_field(entity_types, "The entity's type."),
    )  # type: ignore[call-overload]
    relationship = create_model(
        "LeanRelationship",
        __config__=ConfigDict(extra="forbid"),
        source=_name_field("The source entity's name, as listed in entities."),
        target=_name_field("The target entity's name, as listed in entities."),
        type=_type_field(relationship_types, "The relationship's type."),
    )  # type: ignore[call-overload]
    model: type[BaseModel] = create_model(
        "LeanExtractionOutput_" + re.sub(r"\W", "_", domain),
        __base__=_LeanOutput,
        entities=(list[entity], Field(default_factory=list)),
        relationships=(list[relationship], Field(default_factory=list)),
    )
    return model


class TypeSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    description: str = ""


class DomainExample(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str
    output: ExtractionOutput


_UNSEPARATED = re.compile(r"[\s\-]+")


def type_key(name: str) -> str:
    """Case, space, hyphen and underscore-insensitive key for matching a type name."""
    return _UNSEPARATED.sub("_", name.strip()).casefold()


class DomainSchema(BaseModel):
    """A type vocabulary: what kinds of entities and relationships to extract."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    description: str = ""
    entity_types: list[TypeSpec] = Field(min_length=1)
    relationship_types: list[TypeSpec] = Field(default_factory=list)
    #: Where an entity of a type outside the vocabulary goes. It must be one of
    #: `entity_types`, so every stored entity has a type the domain declared.
    fallback_entity_type: str
    examples: list[DomainExample] = Field(default_factory=list)

    def canonical_entity_type(self, raw: str) -> str:
        """The declared type `raw` names (ignoring case and separators), else the fallback."""
        wanted = type_key(raw)
        for spec in self.entity_types:
            if type_key(spec.name) == wanted:
                return spec.name
        return self.fallback_entity_type

    def canonical_relationship_type(self, raw: str) -> str | None:
        """The declared relationship type `raw` names, or `None` when it is not declared."""
        wanted = type_key(raw)
        for spec in self.relationship_types:
            if type_key(spec.name) == wanted:
                return spec.name
        return None

    def model_post_init(self, __context: object) -> None:
        if self.fallback_entity_type not in {t.name for t in self.entity_types}:
            raise ValueError(
                f"fallback_entity_type {self.fallback_entity_type!r} is not one of the "
                "domain's entity types"
            )


def lean_output_schema(domain: DomainSchema) -> type[BaseModel]:
    """The answer schema for grammar-constrained small models, for `domain`.

    A server that compiles the schema into a grammar (llama.cpp) lets a model write
    anything the schema allows, and a small one fills every open slot: Gemma 3
    270M wrote a `description` and an invented `properties` map into each entity
    until `max_tokens` cut it off (bench/README.md). This schema leaves no open
    slot: names and types only, names bounded (`LEAN_NAME_MAX_LENGTH`), entity
    types an enum of the domain's, relationship types an enum of its declared ones
    (free text when it declares none), and no other key. The answer is read back
    as an `ExtractionOutput` (`as_extraction_output`).
    """
    return _lean_schema(
        domain.name,
        tuple(t.name for t in domain.entity_types),
        tuple(t.name for t in domain.relationship_types),
    )


def as_extraction_output(answer: BaseModel) -> ExtractionOutput:
    """An answer in any of the shapes (full or lean) as the one `ExtractionOutput`."""
    if isinstance(answer, ExtractionOutput):
        return answer
    return ExtractionOutput.model_validate(answer.model_dump())


_DOMAIN_PACKAGE = "redstring.extraction"
_DOMAIN_DIR = "domains"


def available_domains() -> tuple[str, ...]:
    """Names of the bundled domain schemas, sorted."""
    folder = resources.files(_DOMAIN_PACKAGE).joinpath(_DOMAIN_DIR)
    return tuple(
        sorted(
            entry.name.removesuffix(".yaml")
            for entry in folder.iterdir()
            if entry.name.endswith(".yaml")
        )
    )


@cache
def load_domain(name: str) -> DomainSchema:
    """A bundled domain schema by name; `NotFoundError` names the ones that exist."""
    if name not in available_domains():
        raise NotFoundError(
            f"no bundled domain {name!r}; available: {', '.join(available_domains())}"
        )
    source = resources.files(_DOMAIN_PACKAGE).joinpath(_DOMAIN_DIR, f"{name}.yaml")
    return parse_domain(source.read_text(encoding="utf-8"), origin=f"{name}.yaml")


def parse_domain(text: str, *, origin: str = "<string>") -> DomainSchema:
    """Parse a domain schema from YAML text (a user's own domain file, say)."""
    import yaml  # here, not at the top: ~0.15 s of every command's start, for domains only

    try:
        data = yaml.safe_load(text)
        return DomainSchema.model_validate(data)
    except (yaml.YAMLError, ValidationError) as exc:
        raise InvalidInputError(f"domain schema {origin} is invalid: {exc}") from exc


def extraction_instructions(domain: DomainSchema, known_names: list[str] | None = None) -> str:
    """The default extraction prompt for `domain`.

    `known_names` are entity names already found earlier in the same document
    (carryover): the model is told to reuse those spellings, so one person is
    not "Dr. Smith" in chunk 1 and "Jane Smith" in chunk 3 when the text allows
    either.
    """
    lines = [
        "You extract a knowledge graph from text.",
        f"Domain: {domain.name} - {domain.description}".rstrip(" -"),
        "",
        "Entity types (use exactly these names):",
        *(f"- {t.name}: {t.description}" for t in domain.entity_types),
    ]
    if domain.relationship_types:
        lines += [
            "",
            "Relationship types (use exactly these names):",
            *(f"- {t.name}: {t.description}" for t in domain.relationship_types),
        ]
    lines += [
        "",
        "Rules:",
        "- Copy every entity name exactly as it is written in the text; do not expand,"
        " translate or correct it.",
        "- Only extract what the text states. Do not use outside knowledge.",
        "- A relationship's source and target must be names from your entities list.",
        "- If nothing qualifies, return empty lists.",
        '- Answer with one JSON object: {"entities": [...], "relationships": [...]}.',
    ]
    for number, example in enumerate(domain.examples, start=1):
        lines += [
            "",
            f"Example {number} text: {example.text}",
            f"Example {number} answer: "
            + json.dumps(example.output.model_dump(exclude_none=True), ensure_ascii=False),
        ]
    if known_names:
        lines += [
            "",
            "Entities already found earlier in this document (reuse these exact names when"
            " the text refers to them): " + "; ".join(known_names),
        ]
    return "\n".join(lines)


GLEANING_INSTRUCTIONS = (
    "Some entities and relationships may have been missed. Here is what was already"
    " extracted from this text:\n{previous}\n"
    "Return ONLY entities and relationships that are in the text but missing above,"
    " following the same rules. Return empty lists if nothing was missed."
)
