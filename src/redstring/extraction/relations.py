"""Offline relationships: typed by the words between two mentions of one sentence.

A relationship is emitted only when the words between (and, for two rules, just
before) two mentions match one of a few fixed English patterns, and the two
mentions have the types the pattern expects. No pattern, no edge: co-occurrence
alone is never taken for a fact.

- WORKS_FOR: person X ", director of the" / ", an executive with" / ", a" / " of
  (the)" / " at the" / " founded (the)" / " 's" organisation Y; X ", " Y " 's
  chairman"; organisation Y, a role ("spokesman", "Commander"), person X; Y ", led
  by" X; "the deputy secretary of the" Y ", " X; Y " President" X.
- LOCATED_IN (an organisation's seat): organisation X " in" / " of" / ", based in" /
  " headquarters in" place Y; "Y-based X"; "Y 's X"; a dateline "Y ( X )"; a wire
  report's place and source ("Moscow INTERFAX"); X ", a" Y " construction firm".
- LIVES_IN: person X ", of" / ", a native of" / " lives in" place Y; X ", a" Y
  " businessman"; place Y, an occupation or office, person X ("Atlanta businessman
  X", "New Jersey Gov. X", "Illinois born X").
- BORN_IN: person X ", born in" / " was born (on <date>,) in" place Y, also after an
  apposition (X ", the 31st president of the United States , was born in" Y).
- LOCATED_IN (a place in a place): X ", " known place Y ("Aiken, S.C."); X " in
  (northern)" Y; X " in the southeastern part of" Y; X ", the capital of" / ", an
  island nation in the" Y; "Y 's X".
- KILLED: person X " killed" / ", who assassinated" / " was convicted of murdering"
  person Y (not when the verb is passive: "Y was shot and ... X"); Y " was shot by"
  X; "Y 's assassin X", "Y assassin X"; "the assassination of Y by X"; X " in the
  assassination of" Y.

A person or organisation placed in one member of a comma-joined place ("of Bethany,
Conn.", "BANGKOK, Thailand (AP)") is placed in every member.

Every edge carries a span: from the first mention's start to the second's end, the
words the pattern read. Confidence (0.6) ranks these edges below a model's; it is not a
calibrated probability. Measured by `bench/extraction_conll04.py` (relation F1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from redstring.extraction.extractor import RelationMention

if TYPE_CHECKING:
    from collections.abc import Sequence

PERSON, ORGANIZATION, LOCATION = "Person", "Organization", "Location"
WORKS_FOR, LOCATED_IN, LIVES_IN, BORN_IN, KILLED = (
    "WORKS_FOR",
    "LOCATED_IN",
    "LIVES_IN",
    "BORN_IN",
    "KILLED",
)
#: The offline extractor's relationship types (the general domain's names, plus KILLED).
OFFLINE_RELATIONSHIP_TYPES = (WORKS_FOR, LOCATED_IN, LIVES_IN, BORN_IN, KILLED)
PATTERN_CONFIDENCE = 0.6


@dataclass(frozen=True, slots=True)
class SpannedRelation(RelationMention):
    """A relationship with the chunk span of the words that stated it."""

    span: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Mention:
    """One typed occurrence in a chunk: what the patterns read."""

    name: str
    entity_type: str
    start: int
    end: int
    #: A known country, state or state abbreviation: the container in "Aiken, S.C.".
    known_place: bool = False


_ROLES = (
    r"(?:spokes(?:wo)?man|spokesperson|director|chairman|chairwoman|president|vice|"
    r"executive|chief|head|leader|commander|secretary|minister|official|analyst|economist|"
    r"manager|founder|member|attorney|lawyer|general|prosecutor|ambassador|editor|"
    r"correspondent|placekicker|coach|player|treasurer|administrator|governor|senator|"
    r"professor|researcher|scientist|engineer|employee|worker|officer|owner|partner|"
    r"deputy|adviser|advisor|aide|agent|representative|rep|sen|gov|premier|mayor|pilot|"
    r"astronaut|controller|comptroller)\.?"
)
_ADJ = r"(?:[a-z][\w'-]*\s+)"
_AGE = r"(?:\d{1,3}\s*,\s*)?"
_WORKS_FOR_PO = re.compile(
    rf"^(?:\s*,\s*{_AGE}(?:(?:a|an|the|another|former|who\s+is\s+(?:a|an|the))\s+)?"
    rf"{_ADJ}{{0,7}}(?:of|for|with|at|in)\s+(?:the\s+)?"
    rf"|\s*,\s*{_AGE}(?:a|an|the|another)\s+{_ADJ}{{0,2}}"
    r"|\s+(?:of|at)\s+(?:the\s+)?"
    rf"|\s+(?:(?:is|was)\s+(?:a\s+)?)?(?:member|employee|head|director|president|chairman)"
    r"\s+of\s+the\s+"
    r"|\s+(?:works?|worked|working)\s+(?:for|at)\s+(?:the\s+)?"
    r"|\s*,\s*who\s+(?:works?|worked)\s+(?:for|at)\s+(?:the\s+)?)$"
)
#: "X founded the Y", "Y, led for decades by X": a person who founds or leads a body.
_LEADS = (
    r"(?:founded|co-founded|set\s+up|established|leads|led|heads|headed|runs|ran|chairs|"
    r"chaired|directs|directed|manages|managed)"
)
_FOUNDED = re.compile(rf"^\s+(?:(?:also|later|then)\s+)?{_LEADS}\s+(?:the\s+)?$")
_LED_BY = re.compile(rf"^\s*,?\s*(?:which\s+was\s+|was\s+)?{_LEADS}\s+{_ADJ}{{0,3}}by\s+$")
_WORKS_FOR_OP = re.compile(rf"^\s*(?:'s\s+)?(?:[\w-]+\s+)?{_ROLES}\s+$", re.IGNORECASE)
#: "Mulroney 's Progressive Conservative Party"; "Georges , International Paper 's chairman".
_PERSON_S = re.compile(r"^\s*'s\s+(?:[a-z-]+\s+){0,2}$")
_COMMA = re.compile(r"^\s*,\s*$")
_ORG_S_ROLE = re.compile(rf"^\s*'s\s+(?:[a-z-]+\s+){{0,2}}{_ROLES}\b", re.IGNORECASE)
#: "Atlanta businessman Neil Estes", "New Jersey Gov. Thomas Kean", "a Netherlands
#: businessman": a place, then a person's occupation or office.
_PLACE_ROLE = (
    r"(?:businessman|businesswoman|historian|pianist|writer|author|teacher|farmer|doctor|"
    r"resident|native|student|artist|poet|composer|singer|actor|actress|banker|merchant|"
    rf"{_ROLES})"
)
_LOC_ROLE_PERSON = re.compile(
    rf"^(?:\s*(?:'s\s+)?(?:[a-z-]+\s+)?{_PLACE_ROLE}|\s?-?\s?born(?:\s+[a-z-]+)?)\s+$",
    re.IGNORECASE,
)
#: A person named with an office a place elects or sends: "New Jersey Gov. Thomas Kean".
_OFFICE_NAME = re.compile(
    r"^(?:Gov|Governor|Sen|Senator|Rep|Ambassador|President|Premier|Mayor|Prime\s+Minister)"
    r"\.?\s"
)
_ROLE_AFTER = re.compile(rf"^\s+(?:[a-z-]+\s+)?{_PLACE_ROLE}\b", re.IGNORECASE)
_A_BEFORE = re.compile(r"(?:^|\s),\s*(?:a|an|the)\s+$")
#: A name that opens with a title the extractor keeps ("President X", "Dr. X").
_TITLED = re.compile(r"^(?:President|Chairman|Chairwoman|Dr|Prof|Professor)\.?\s")
#: "the deputy secretary of the Foreign Ministry , Datuk Abdul Halim Ali": the person
#: in apposition holds the role of the body named before.
_ROLE_OF_BEFORE = re.compile(rf"\b{_ROLES}\s+(?:of|for|at|with)\s+(?:the\s+)?$", re.IGNORECASE)
#: "Sun Hung Kai Properties , a Hong Kong construction firm": a body and its place.
_FIRM_AFTER = re.compile(
    r"^\s+(?:[a-z-]+\s+){0,2}(?:firm|company|corporation|bank|group|agency|newspaper|"
    r"airline|carrier|manufacturer|maker|producer|retailer|chain|network|station|"
    r"university|college|institute|party|organization|organisation)\b"
)
_ORG_IN = re.compile(
    r"^(?:\s*,\s*)?\s+(?:in|of|from|in\s+nearby|based\s+in|headquartered\s+in|"
    r"(?:with\s+)?headquarters\s+in(?:\s+nearby)?|in\s+the)\s+$"
)
#: "Y 's X", "Y-based X", a dateline "Y ( X )"; a single space only between a place
#: and a source the extractor split apart ("Moscow INTERFAX", "Paris Radio Monte Carlo").
_IN_ORG = re.compile(r"^(?:\s*'s\s+|-based\s+|\s*\(\s*| )$")
#: "X was born in Y", "X , 76 , born in Y", "X , the 31st president of Z , was born in Y".
_BORN_IN = re.compile(
    rf"^(?:\s*,\s*(?:the|a|an)\s[^,;()]{{1,60}}?)?"
    rf"\s*,?\s*{_AGE}(?:who\s+)?(?:was\s+)?born\b(?:[^;]{{0,40}}?,)?\s+in\s+$"
)
_LIVES_IN = re.compile(
    rf"^(?:\s*,\s*{_AGE}(?:of|from|a\s+native\s+of|a\s+resident\s+of)"
    r"|\s+(?:(?:is|was)\s+a\s+native\s+of|lives\s+in|lived\s+in|who\s+lives\s+in|of))\s+$"
)
_LOC_IN_LOC = re.compile(
    r"^(?:\s*,\s*(?:in\s+)?|\s*,?\s+in\s+(?:the\s+)?"
    r"(?:(?:north|south|east|west|central|northern|southern|eastern|western|"
    r"north-?east|north-?west|south-?east|south-?west|northeast|northwest|southeast|"
    r"southwest)(?:ern)?\s+)?"
    r"|\s*,\s*(?:the|a|an)\s+(?:[a-z-]+\s+){0,2}(?:capital|city|town|village|state|"
    r"province|region|county|island|nation|country|suburb|port)\s+(?:of|in)\s+(?:the\s+)?"
    r"|\s*,?\s+in\s+the\s+(?:[a-z-]+\s+)?part\s+of\s+)$"
)
_POSSESSIVE = re.compile(r"^\s*'s\s+$")
_KILL_ACTIVE = re.compile(
    r"^\s*,?\s*(?:who\s+)?(?:[a-z,-]+\s+){0,8}?"
    r"(?:killed|assassinated|murdered|shot|assassinating|murdering|killing|shoots|"
    r"stabbed|strangled|slew|assassin\s+of|killer\s+of|murderer\s+of|"
    r"(?:convicted|accused|suspected)\s+of|in\s+the\s+(?:assassination|killing|murder)\s+of)\s+"
    r"(?:[a-z-]+\s+){0,6}$"
)
_KILL_PASSIVE = re.compile(
    r"^\s*,?\s*(?:[a-z,]+\s+){0,5}?(?:had\s+)?(?:just\s+)?(?:was|were|been|being)\s+"
    r"(?:fatally\s+)?(?:killed|assassinated|murdered|shot|stabbed)(?:\s+to\s+death)?\s+by\s+"
    r"(?:[a-z-]+\s+){0,3}$"
)
#: "Kennedy was shot and the ambulance that took Oswald": the verb is not Kennedy's act.
_PASSIVE_KILL_WORDS = re.compile(
    r"\b(?:was|were|been|being)\s+(?:\w+\s+)?(?:killed|assassinated|murdered|shot|stabbed)\b"
)
#: "Y 's assassin X", "Y assassin X": the second killed the first.
_ASSASSIN_OF = re.compile(r"^\s*(?:'s\s+)?(?:assassin|killer|murderer)\s*,?\s+$")
_KILLING_OF_BEFORE = re.compile(r"(?:assassination|killing|murder|slaying)\s+of\s+$")
_BY = re.compile(r"^\s+by\s+$")
#: A sentence ends, or a paragraph: a single newline only wraps a line.
_SENTENCE_BREAK = re.compile(r"[.!?;][\"')\]’”]*\s+[A-Z\"“(]|\n\s*\n")
#: How far apart (characters) two mentions may be for a pattern to join them.
_MAX_GAP = 90


def find_relations(text: str, mentions: Sequence[Mention]) -> list[SpannedRelation]:
    """The pattern relationships among `mentions` (in text order) of `text`."""
    named = [m for m in mentions if m.entity_type in (PERSON, ORGANIZATION, LOCATION)]
    named.sort(key=lambda m: m.start)
    found: dict[tuple[str, str, str], SpannedRelation] = {}

    def emit(source: Mention, target: Mention, relationship_type: str) -> None:
        if source.name == target.name:
            return
        key = (source.name, target.name, relationship_type)
        if key not in found:
            start, end = min(source.start, target.start), max(source.end, target.end)
            found[key] = SpannedRelation(
                source=source.name,
                target=target.name,
                relationship_type=relationship_type,
                confidence=PATTERN_CONFIDENCE,
                span=(start, end),
            )

    containers: dict[int, list[Mention]] = {}
    for i, left in enumerate(named):
        for right in named[i + 1 :]:
            gap = text[left.end : right.start]
            if len(gap) > _MAX_GAP or _SENTENCE_BREAK.search(gap):
                break
            between = [m for m in named if left.end <= m.start and m.end <= right.start]
            before = text[max(0, left.start - 30) : left.start]
            pair = (left.entity_type, right.entity_type)
            if pair == (LOCATION, LOCATION) and not between:
                if _POSSESSIVE.match(gap):
                    emit(right, left, LOCATED_IN)
                elif _LOC_IN_LOC.match(gap) and (
                    "," not in gap or (right.known_place and not left.known_place)
                ):
                    emit(left, right, LOCATED_IN)
                    if re.fullmatch(r"\s*,\s*", gap):
                        containers.setdefault(id(left), []).append(right)
                        containers.setdefault(id(right), []).append(left)
            after = text[right.end : right.end + 40]
            _pair_rules(emit, left, right, gap, before, after, between)
    # A thing placed in one member of "Bethany, Conn." is placed in every member.
    placed = [r for r in found.values() if r.relationship_type in (LIVES_IN, BORN_IN)] + [
        r for r in found.values() if r.relationship_type == LOCATED_IN
    ]
    by_name = {m.name: m for m in named}
    for relation in placed:
        target = by_name.get(relation.target)
        source = by_name.get(relation.source)
        if target is None or source is None or source.entity_type == LOCATION:
            continue
        for other in (m for t in named if t.name == target.name for m in containers.get(id(t), [])):
            emit(source, other, relation.relationship_type)
    return list(found.values())


def _pair_rules(
    emit: _Emit,
    left: Mention,
    right: Mention,
    gap: str,
    before: str,
    after: str,
    between: list[Mention],
) -> None:
    """Every rule that reads one ordered pair of mentions with nothing named between."""
    pair = (left.entity_type, right.entity_type)
    if (
        pair == (PERSON, ORGANIZATION)
        and not between
        and (
            _WORKS_FOR_PO.match(gap)
            or _FOUNDED.match(gap)
            or _PERSON_S.match(gap)
            or (_COMMA.match(gap) and _ORG_S_ROLE.match(after))
        )
    ):
        emit(left, right, WORKS_FOR)
    elif (
        pair == (ORGANIZATION, PERSON)
        and not between
        and (
            _WORKS_FOR_OP.match(gap)
            or _LED_BY.match(gap)
            or (_COMMA.match(gap) and _ROLE_OF_BEFORE.search(before))
            # "National Congress President X": a body, then its titled head.
            or (gap == " " and _TITLED.match(right.name) is not None)
        )
    ):
        emit(right, left, WORKS_FOR)
    elif (
        pair == (ORGANIZATION, LOCATION)
        and not between
        and (_ORG_IN.match(gap) or (_A_BEFORE.search(gap) and _FIRM_AFTER.match(after)))
    ):
        emit(left, right, LOCATED_IN)
    elif pair == (LOCATION, ORGANIZATION) and not between and _IN_ORG.match(gap):
        emit(right, left, LOCATED_IN)
    elif pair == (PERSON, LOCATION):
        if _BORN_IN.match(gap) and not any(m.entity_type == PERSON for m in between):
            emit(left, right, BORN_IN)
        elif not between and (
            _LIVES_IN.match(gap) or (_A_BEFORE.search(gap) and _ROLE_AFTER.match(after))
        ):
            emit(left, right, LIVES_IN)
    elif (
        pair == (LOCATION, PERSON)
        and not between
        and (_LOC_ROLE_PERSON.match(gap) or (gap == " " and _OFFICE_NAME.match(right.name)))
    ):
        emit(right, left, LIVES_IN)
    elif pair == (PERSON, PERSON) and not between:
        if (
            _ASSASSIN_OF.match(gap)
            or _KILL_PASSIVE.match(gap)
            or (_BY.match(gap) and _KILLING_OF_BEFORE.search(before))
        ):
            emit(right, left, KILLED)
        elif _KILL_ACTIVE.match(gap) and not _PASSIVE_KILL_WORDS.search(gap):
            emit(left, right, KILLED)


if TYPE_CHECKING:
    from collections.abc import Callable

    _Emit = Callable[[Mention, Mention, str], None]
