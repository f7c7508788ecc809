"""Entity resolution end to end: candidates, scores, bands, adjudication, clusters, merges.

`resolve_sync` is the pure core (no I/O, no awaits). `resolve` adds the optional
adjudicator for grey pairs; `resolve_incremental` resolves new entities against a
`GraphStore` through `find_by_blocking_keys`. All three return a `ResolutionPlan`:
what *would* merge, for the composition layer to turn into `EntitiesMerged` events.

Clustering threshold across kinds: each pair's probability is shifted by its
model's merge threshold (`link = sigmoid(logit(p) - logit(upper))`), so every kind
merges at link >= 0.5 and a wildcard-typed pair can join clusters of any kind.
The `upper` thresholds were calibrated through exactly this procedure.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from redstring.consolidation.adjudication import GreyPair
from redstring.consolidation.calibration import DEFAULT_MODELS
from redstring.consolidation.candidates import (
    DEFAULT_FAMILIES,
    DEFAULT_MAX_BLOCK_SIZE,
    CandidateStats,
    candidate_pairs_from_keys,
    pairing_keys,
    resolution_keys,
    secondary_keys,
    twin_signature,
)
from redstring.consolidation.clustering import ScoredPair, agreeing_clusters, average_link_clusters
from redstring.consolidation.field_resolution import (
    PropertyConflict,
    choose_canonical,
    resolve_fields,
)
from redstring.consolidation.record_model import train
from redstring.consolidation.scoring import (
    FEATURE_NAMES,
    Band,
    MatchModel,
    compatible_mask,
    pair_features,
    profile,
)
from redstring.domain.exceptions import InvalidInputError, MalformedOutputError, TenantMismatchError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import numpy.typing as npt

    from redstring.consolidation.adjudication import Adjudicator
    from redstring.consolidation.kinds import FieldReport
    from redstring.consolidation.record_model import RecordEvidence
    from redstring.domain.entity import Entity
    from redstring.domain.ids import EntityId, TenantId
    from redstring.ports.graph_store import GraphStore

#: Link score at which clusters join, after the per-model shift (see module doc).
LINK_THRESHOLD = 0.5
#: Records: two clusters join when their cross pairs' mean match probability
#: reaches this (the posterior's own decision point, not a fitted constant) ...
RECORD_MERGE = 0.5
#: ... and none of them falls below this: a pair the model calls distinct at odds
#: of 1 to 19 vetoes the join, whatever the other links say.
RECORD_DISTINCT = 0.05
#: Record pairs from here up to `RECORD_MERGE` are the grey band an adjudicator sees.
RECORD_GREY = 0.1


@dataclass(frozen=True)
class PairScore:
    left_id: EntityId
    right_id: EntityId
    probability: float
    band: Band
    features: dict[str, float]


@dataclass(frozen=True)
class MergeDecision:
    """One cluster of two or more entities that resolve to `canonical_id`."""

    canonical_id: EntityId
    merged_ids: tuple[EntityId, ...]
    reason: str
    #: Evidence over the scored pairs inside the cluster.
    scores: dict[str, float]
    merged_entity: Entity
    conflicts: tuple[PropertyConflict, ...] = ()


@dataclass
class ResolutionPlan:
    merges: list[MergeDecision] = field(default_factory=list)
    #: Grey-band pairs whose ends ended up in different clusters (kept apart).
    grey: list[PairScore] = field(default_factory=list)
    #: Scored pairs per band (before adjudication), plus "type_incompatible".
    band_counts: dict[str, int] = field(default_factory=dict)
    adjudicated: dict[str, int] = field(default_factory=dict)
    candidate_stats: CandidateStats = field(default_factory=CandidateStats)
    #: Every cluster, singletons included, as sorted id lists.
    clusters: list[list[EntityId]] = field(default_factory=list)
    #: Per record entity type: the fields compared, and the properties left out, why.
    fields: dict[str, FieldReport] = field(default_factory=dict)
    #: Per record entity type: the trained model (m, u, match rate, blocking rules).
    models: dict[str, dict[str, object]] = field(default_factory=dict)
    #: The entities in the order `candidate_pairs` indexes them.
    entity_ids: list[EntityId] = field(default_factory=list)
    #: Every candidate pair blocking produced, as index pairs into `entity_ids`, so a
    #: benchmark can measure pair completeness against labels.
    candidate_pairs: npt.NDArray[np.int64] = field(
        default_factory=lambda: np.zeros((0, 2), dtype=np.int64)
    )


@dataclass
class ScoredCandidates:
    """The scored stage, exposed so the benchmark can calibrate on it."""

    entities: Sequence[Entity]
    pairs: npt.NDArray[np.int64]
    probabilities: npt.NDArray[np.float64]
    uppers: npt.NDArray[np.float64]
    lowers: npt.NDArray[np.float64]
    features: npt.NDArray[np.float64]
    stats: CandidateStats
    incompatible: int
    representative: npt.NDArray[np.int64]


def _model_for(kinds: tuple[str, str], models: Mapping[str, MatchModel]) -> MatchModel:
    left, right = kinds
    key = left if left == right else "other"
    return models.get(key) or models["other"]


def score_candidates(
    entities: Sequence[Entity],
    *,
    neighbours: Mapping[EntityId, set[EntityId]] | None = None,
    vectors: Mapping[EntityId, Sequence[float]] | None = None,
    models: Mapping[str, MatchModel] = DEFAULT_MODELS,
    families: Sequence[str] = DEFAULT_FAMILIES,
    max_block_size: int = DEFAULT_MAX_BLOCK_SIZE,
    only_touching_ids: set[EntityId] | None = None,
) -> ScoredCandidates:
    """Candidates and their probabilities. Entities are first put in id order, so
    nothing downstream (twin representatives, tie-breaks) depends on input order."""
    entities = sorted(entities, key=lambda e: str(e.id))
    only_pairs_touching = (
        None
        if only_touching_ids is None
        else [i for i, e in enumerate(entities) if e.id in only_touching_ids]
    )
    profiles = [profile(e) for e in entities]
    keys = [resolution_keys(e, families) for e in entities]
    splitters = [secondary_keys(e) for e in entities]
    signatures = [twin_signature(e) for e in entities]
    candidates = candidate_pairs_from_keys(
        keys,
        splitters,
        max_block_size=max_block_size,
        signatures=signatures,
        only_pairs_touching=only_pairs_touching,
    )
    pairs = candidates.pairs
    compatible = compatible_mask(profiles, pairs)
    incompatible = int((~compatible).sum())
    pairs = pairs[compatible]
    ids = [e.id for e in entities]
    features = pair_features(profiles, pairs, ids=ids, neighbours=neighbours, vectors=vectors)
    probabilities = np.zeros(len(pairs), dtype=np.float64)
    uppers = np.zeros(len(pairs), dtype=np.float64)
    lowers = np.zeros(len(pairs), dtype=np.float64)
    kinds = np.asarray([p.kind for p in profiles], dtype=object)
    pair_kinds = np.where(kinds[pairs[:, 0]] == kinds[pairs[:, 1]], kinds[pairs[:, 0]], "other")
    for kind in sorted(set(pair_kinds.tolist())):
        mask = pair_kinds == kind
        model = _model_for((kind, kind), models)
        probabilities[mask] = model.probability(features[mask])
        uppers[mask] = model.upper
        lowers[mask] = model.lower
    return ScoredCandidates(
        entities=entities,
        pairs=pairs,
        probabilities=probabilities,
        uppers=uppers,
        lowers=lowers,
        features=features,
        stats=candidates.stats,
        incompatible=incompatible,
        representative=candidates.representative,
    )


def _logit(p: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    clipped = np.clip(p, 1e-12, 1 - 1e-12)
    return np.asarray(np.log(clipped / (1 - clipped)), dtype=np.float64)


def link_scores(
    probabilities: npt.NDArray[np.float64], uppers: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """Probabilities shifted so each model's merge threshold lands on 0.5."""
    shifted = _logit(probabilities) - _logit(uppers)
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(shifted, -40.0, 40.0))), dtype=np.float64)


def cluster_indices(
    n: int, pairs: npt.NDArray[np.int64], links: npt.NDArray[np.float64]
) -> list[list[int]]:
    """Average-link clusters over entity indices (keys are zero-padded index strings)."""
    width = max(1, len(str(max(n - 1, 0))))
    names = [str(i).zfill(width) for i in range(n)]
    scored = [
        ScoredPair(names[i], names[j], float(s))
        for (i, j), s in zip(pairs.tolist(), links.tolist(), strict=True)
    ]
    return [[int(k) for k in c] for c in average_link_clusters(names, scored, LINK_THRESHOLD)]


def _plan(
    scored: ScoredCandidates,
    verdicts: Mapping[int, bool] | None,
    restrict_to: set[EntityId] | None = None,
) -> ResolutionPlan:
    entities = scored.entities
    probabilities = scored.probabilities.copy()
    bands = np.where(
        probabilities >= scored.uppers,
        Band.MERGE.value,
        np.where(probabilities >= scored.lowers, Band.GREY.value, Band.DISTINCT.value),
    )
    band_counts = dict(sorted(Counter(bands.tolist()).items()))
    band_counts["type_incompatible"] = scored.incompatible
    adjudicated = {"same": 0, "different": 0}
    for row, same in (verdicts or {}).items():
        probabilities[row] = 1.0 if same else 0.0
        adjudicated["same" if same else "different"] += 1
    links = link_scores(probabilities, scored.uppers)
    # Adjudicated "same" must clear the threshold whatever the shift did to 1.0.
    for row, same in (verdicts or {}).items():
        links[row] = 1.0 if same else 0.0
    clusters = cluster_indices(len(entities), scored.pairs, links)
    cluster_of = {m: c for c, members in enumerate(clusters) for m in members}

    plan = ResolutionPlan(
        band_counts=band_counts,
        adjudicated=adjudicated,
        candidate_stats=scored.stats,
        entity_ids=[e.id for e in entities],
        candidate_pairs=scored.pairs,
    )
    plan.clusters = sorted(
        (sorted((entities[m].id for m in c), key=str) for c in clusters), key=lambda c: str(c[0])
    )
    inside: dict[int, list[float]] = {}
    for row, (i, j) in enumerate(scored.pairs.tolist()):
        if cluster_of[i] == cluster_of[j]:
            inside.setdefault(cluster_of[i], []).append(float(probabilities[row]))
        elif bands[row] == Band.GREY.value and (verdicts is None or row not in verdicts):
            plan.grey.append(
                PairScore(
                    left_id=entities[i].id,
                    right_id=entities[j].id,
                    probability=float(probabilities[row]),
                    band=Band.GREY,
                    features=dict(zip(FEATURE_NAMES, scored.features[row].tolist(), strict=True)),
                )
            )
    for c, members in enumerate(clusters):
        if len(members) < 2:
            continue
        member_entities = [entities[m] for m in members]
        if restrict_to is not None and not restrict_to.intersection(e.id for e in member_entities):
            continue
        resolved = resolve_fields(member_entities)
        canonical = choose_canonical(member_entities)
        values = inside.get(c, [])
        plan.merges.append(
            MergeDecision(
                canonical_id=canonical.id,
                merged_ids=tuple(
                    sorted((e.id for e in member_entities if e.id != canonical.id), key=str)
                ),
                reason=(
                    "average-link: mean match probability of the scored pairs between "
                    "each joined group cleared the calibrated merge threshold"
                ),
                scores={
                    "scored_pairs": float(len(values)),
                    "mean_probability": float(np.mean(values)) if values else math.nan,
                    "min_probability": float(np.min(values)) if values else math.nan,
                },
                merged_entity=resolved.entity,
                conflicts=resolved.conflicts,
            )
        )
    plan.merges.sort(key=lambda d: str(d.canonical_id))
    plan.grey.sort(key=lambda s: (str(s.left_id), str(s.right_id)))
    return plan


def is_record(entity: Entity) -> bool:
    """Entities imported from records carry fields the record model compares;
    entities extracted from text carry a name and its context."""
    return any(p.method == "record" for p in entity.provenance)


def _decision(members: Sequence[Entity], values: Sequence[float], reason: str) -> MergeDecision:
    resolved = resolve_fields(members)
    canonical = choose_canonical(members)
    return MergeDecision(
        canonical_id=canonical.id,
        merged_ids=tuple(sorted((e.id for e in members if e.id != canonical.id), key=str)),
        reason=reason,
        scores={
            "scored_pairs": float(len(values)),
            "mean_probability": float(np.mean(values)) if values else math.nan,
            "min_probability": float(np.min(values)) if values else math.nan,
        },
        merged_entity=resolved.entity,
        conflicts=resolved.conflicts,
    )


def _train_records(
    entities: Sequence[Entity], overrides: Mapping[str, str] | None
) -> list[tuple[str, list[Entity], RecordEvidence]]:
    """One trained record model per entity type, entities in id order."""
    groups: dict[str, list[Entity]] = {}
    for entity in sorted(entities, key=lambda e: str(e.id)):
        groups.setdefault(entity.entity_type, []).append(entity)
    return [(t, groups[t], train(groups[t], overrides=overrides)) for t in sorted(groups)]


def _grey_rows(evidence: RecordEvidence) -> list[int]:
    p = evidence.probabilities
    return np.flatnonzero((p >= RECORD_GREY) & (p < RECORD_MERGE)).tolist()


def _record_plan(
    trained: Sequence[tuple[str, list[Entity], RecordEvidence]],
    verdicts: Mapping[tuple[str, int], bool] | None,
    restrict_to: set[EntityId] | None = None,
) -> ResolutionPlan:
    plan = ResolutionPlan()
    offset = 0
    all_pairs: list[npt.NDArray[np.int64]] = []
    adjudicated = {"same": 0, "different": 0}
    bands: Counter[str] = Counter()
    for entity_type, members, evidence in trained:
        plan.fields[entity_type] = evidence.report
        if evidence.model is not None:
            plan.models[entity_type] = evidence.model.as_dict()
        probabilities = evidence.probabilities.copy()
        bands.update(
            np.where(
                probabilities >= RECORD_MERGE,
                Band.MERGE.value,
                np.where(probabilities >= RECORD_GREY, Band.GREY.value, Band.DISTINCT.value),
            ).tolist()
        )
        for (t, row), same in (verdicts or {}).items():
            if t == entity_type:
                probabilities[row] = 1.0 if same else 0.0
                adjudicated["same" if same else "different"] += 1
        clusters = agreeing_clusters(
            len(members),
            evidence.pairs,
            probabilities,
            evidence,
            merge_threshold=RECORD_MERGE,
            distinct_threshold=RECORD_DISTINCT,
        )
        cluster_of = {m: c for c, group in enumerate(clusters) for m in group}
        inside: dict[int, list[float]] = {}
        for row, (i, j) in enumerate(evidence.pairs.tolist()):
            if cluster_of[i] == cluster_of[j]:
                inside.setdefault(cluster_of[i], []).append(float(probabilities[row]))
            elif RECORD_GREY <= probabilities[row] < RECORD_MERGE and (
                verdicts is None or (entity_type, row) not in verdicts
            ):
                plan.grey.append(
                    PairScore(
                        left_id=members[i].id,
                        right_id=members[j].id,
                        probability=float(probabilities[row]),
                        band=Band.GREY,
                        features={},
                    )
                )
        for c, group in enumerate(clusters):
            plan.clusters.append(sorted((members[m].id for m in group), key=str))
            if len(group) < 2:
                continue
            chosen = [members[m] for m in group]
            if restrict_to is not None and not restrict_to.intersection(e.id for e in chosen):
                continue
            plan.merges.append(
                _decision(
                    chosen,
                    inside.get(c, []),
                    "record model trained on this workspace: every pair across the joined "
                    f"groups scored >= {RECORD_DISTINCT} and their mean >= {RECORD_MERGE}",
                )
            )
        plan.entity_ids.extend(e.id for e in members)
        all_pairs.append(evidence.pairs + offset)
        offset += len(members)
        plan.candidate_stats.entities += len(members)
        plan.candidate_stats.pairs += len(evidence.pairs)
    plan.band_counts = dict(sorted(bands.items()))
    plan.adjudicated = adjudicated
    if all_pairs:
        plan.candidate_pairs = np.concatenate(all_pairs)
    return plan


def _add(left: Mapping[str, int], right: Mapping[str, int]) -> dict[str, int]:
    return {k: left.get(k, 0) + right.get(k, 0) for k in sorted({*left, *right})}


def _combine(text: ResolutionPlan | None, records: ResolutionPlan) -> ResolutionPlan:
    if text is None:
        return records
    out = ResolutionPlan(
        merges=sorted([*text.merges, *records.merges], key=lambda d: str(d.canonical_id)),
        grey=sorted([*text.grey, *records.grey], key=lambda s: (str(s.left_id), str(s.right_id))),
        band_counts=_add(text.band_counts, records.band_counts),
        adjudicated=_add(text.adjudicated, records.adjudicated),
        candidate_stats=text.candidate_stats,
        clusters=sorted([*text.clusters, *records.clusters], key=lambda c: str(c[0])),
        fields=records.fields,
        models=records.models,
        entity_ids=[*text.entity_ids, *records.entity_ids],
        candidate_pairs=np.concatenate(
            [text.candidate_pairs, records.candidate_pairs + len(text.entity_ids)]
        ),
    )
    out.band_counts.setdefault("type_incompatible", 0)
    out.candidate_stats.pairs += records.candidate_stats.pairs
    out.candidate_stats.entities += records.candidate_stats.entities
    return out


async def _adjudicate_records(
    trained: Sequence[tuple[str, list[Entity], RecordEvidence]], adjudicator: Adjudicator
) -> dict[tuple[str, int], bool]:
    keys: list[tuple[str, int]] = []
    grey: list[GreyPair] = []
    for entity_type, members, evidence in trained:
        for row in _grey_rows(evidence):
            i, j = evidence.pairs[row].tolist()
            keys.append((entity_type, row))
            grey.append(
                GreyPair(
                    left=members[i],
                    right=members[j],
                    probability=float(evidence.probabilities[row]),
                )
            )
    answers = await adjudicator.decide(grey) if grey else []
    if len(answers) != len(grey):
        raise MalformedOutputError(f"adjudicator answered {len(answers)} of {len(grey)} pairs")
    return {key: same for key, same in zip(keys, answers, strict=True) if same is not None}


def resolve_sync(
    entities: Sequence[Entity],
    *,
    neighbours: Mapping[EntityId, set[EntityId]] | None = None,
    vectors: Mapping[EntityId, Sequence[float]] | None = None,
    models: Mapping[str, MatchModel] = DEFAULT_MODELS,
    families: Sequence[str] = DEFAULT_FAMILIES,
    max_block_size: int = DEFAULT_MAX_BLOCK_SIZE,
    field_overrides: Mapping[str, str] | None = None,
) -> ResolutionPlan:
    """Resolve without an adjudicator: grey pairs stay apart and are reported."""
    _check_unique(entities)
    _check_tenant(entities)
    text = [e for e in entities if not is_record(e)]
    text_plan = None
    if text:
        scored = score_candidates(
            text,
            neighbours=neighbours,
            vectors=vectors,
            models=models,
            families=families,
            max_block_size=max_block_size,
        )
        text_plan = _plan(scored, None)
    trained = _train_records([e for e in entities if is_record(e)], field_overrides)
    return _combine(text_plan, _record_plan(trained, None))


async def _adjudicate(scored: ScoredCandidates, adjudicator: Adjudicator) -> dict[int, bool]:
    rows = [
        row
        for row in range(len(scored.pairs))
        if scored.lowers[row] <= scored.probabilities[row] < scored.uppers[row]
    ]
    grey = [
        GreyPair(
            left=scored.entities[int(scored.pairs[row, 0])],
            right=scored.entities[int(scored.pairs[row, 1])],
            probability=float(scored.probabilities[row]),
        )
        for row in rows
    ]
    answers = await adjudicator.decide(grey) if grey else []
    if len(answers) != len(grey):
        raise MalformedOutputError(f"adjudicator answered {len(answers)} of {len(grey)} pairs")
    return {row: same for row, same in zip(rows, answers, strict=True) if same is not None}


async def resolve(
    entities: Sequence[Entity],
    *,
    neighbours: Mapping[EntityId, set[EntityId]] | None = None,
    vectors: Mapping[EntityId, Sequence[float]] | None = None,
    adjudicator: Adjudicator | None = None,
    models: Mapping[str, MatchModel] = DEFAULT_MODELS,
    families: Sequence[str] = DEFAULT_FAMILIES,
    max_block_size: int = DEFAULT_MAX_BLOCK_SIZE,
    field_overrides: Mapping[str, str] | None = None,
) -> ResolutionPlan:
    """Resolve a batch of entities; grey pairs go to `adjudicator` when one is given."""
    _check_unique(entities)
    _check_tenant(entities)
    text = [e for e in entities if not is_record(e)]
    text_plan = None
    if text:
        scored = score_candidates(
            text,
            neighbours=neighbours,
            vectors=vectors,
            models=models,
            families=families,
            max_block_size=max_block_size,
        )
        verdicts = await _adjudicate(scored, adjudicator) if adjudicator is not None else None
        text_plan = _plan(scored, verdicts)
    trained = _train_records([e for e in entities if is_record(e)], field_overrides)
    record_verdicts = (
        await _adjudicate_records(trained, adjudicator) if adjudicator is not None else None
    )
    return _combine(text_plan, _record_plan(trained, record_verdicts))


async def resolve_incremental(
    new_entities: Sequence[Entity],
    store: GraphStore,
    tenant_id: TenantId,
    *,
    neighbours: Mapping[EntityId, set[EntityId]] | None = None,
    vectors: Mapping[EntityId, Sequence[float]] | None = None,
    adjudicator: Adjudicator | None = None,
    models: Mapping[str, MatchModel] = DEFAULT_MODELS,
    families: Sequence[str] = DEFAULT_FAMILIES,
    max_block_size: int = DEFAULT_MAX_BLOCK_SIZE,
    field_overrides: Mapping[str, str] | None = None,
) -> ResolutionPlan:
    """Resolve `new_entities` against each other and the live entities they block with.

    Stored candidates come from `store.find_by_blocking_keys` with the new entities'
    resolution keys (never `t:`). Only pairs with a new entity at one end are scored,
    and only clusters containing a new entity become merges.
    """
    _check_unique(new_entities)
    _check_tenant(new_entities)
    records = [e for e in new_entities if is_record(e)]
    record_plan = ResolutionPlan()
    if records:
        # The record model learns from the whole type, so it is trained on every
        # live entity of the new records' types; only clusters holding a new one merge.
        types = sorted({e.entity_type for e in records})
        live = {e.id: e for e in await store.list_entities(tenant_id, entity_types=types)}
        live.update({e.id: e for e in records})
        trained = _train_records([e for e in live.values() if is_record(e)], field_overrides)
        record_verdicts = (
            await _adjudicate_records(trained, adjudicator) if adjudicator is not None else None
        )
        record_plan = _record_plan(trained, record_verdicts, restrict_to={e.id for e in records})
    new_entities = [e for e in new_entities if not is_record(e)]
    if not new_entities:
        return record_plan
    query = sorted({k for e in new_entities for k in pairing_keys(resolution_keys(e, families))})
    found = await store.find_by_blocking_keys(query, tenant_id) if query else {}
    new_ids = {e.id for e in new_entities}
    existing: dict[EntityId, Entity] = {}
    for key in sorted(found):
        for entity in found[key]:
            if entity.id not in new_ids:
                existing.setdefault(entity.id, entity)
    combined = [*new_entities, *sorted(existing.values(), key=lambda e: str(e.id))]
    scored = score_candidates(
        combined,
        neighbours=neighbours,
        vectors=vectors,
        models=models,
        families=families,
        max_block_size=max_block_size,
        only_touching_ids=new_ids,
    )
    verdicts = await _adjudicate(scored, adjudicator) if adjudicator is not None else None
    return _combine(_plan(scored, verdicts, restrict_to=new_ids), record_plan)


def _check_unique(entities: Sequence[Entity]) -> None:
    counts = Counter(e.id for e in entities)
    duplicated = sorted((str(i) for i, n in counts.items() if n > 1))
    if duplicated:
        raise InvalidInputError(f"entity ids given more than once: {', '.join(duplicated[:5])}")


def _check_tenant(entities: Sequence[Entity]) -> None:
    tenants = {e.tenant_id for e in entities}
    if len(tenants) > 1:
        raise TenantMismatchError("resolution runs within one tenant; got entities of several")
