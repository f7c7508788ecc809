"""Entity resolution end to end: evidence, grey band, adjudication, clusters, merge plans.

Two kinds of entity, two models, one clustering:

- **records** (provenance method "record") carry fields: per entity type, a
  Fellegi-Sunter model is trained on the workspace's own records (`record_model`);
- **text mentions** carry a name, a type and the documents they were read in
  (`mentions`).

Each model yields candidate pairs with match probabilities and scores any other
pair on demand; `clustering.agreeing_clusters` joins two clusters only when every
cross pair agrees -- between records, a newcomer one in ten of a large cluster's
records rejects still may (`TOLERATED_SHARE`) -- so no chain of a few strong links
holds two groups the model keeps apart.

A record entity an earlier run merged is compared through the records it was made
of (`members`), not through its merged profile: that keeps one value per field, so
a household's merged head would agree with every member on name, address and town
and lose the birth dates that kept them apart. Records are clustered afresh and a
cluster becomes a merge of the live entities it covers only when it holds every
record of each: a run repeated on unchanged data plans nothing, and a run that would
split an earlier merge leaves those entities as they are.

`resolve_sync` is the pure core; `resolve` adds the optional adjudicator for grey
pairs; `resolve_incremental` resolves new entities against the stored ones. All
return a `ResolutionPlan`: what *would* merge, for the composition layer to turn
into `EntitiesMerged` events.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

import numpy as np

from redstring.consolidation.adjudication import GreyPair
from redstring.consolidation.bridging import bridges
from redstring.consolidation.clustering import agreeing_clusters
from redstring.consolidation.field_resolution import (
    PropertyConflict,
    is_record,
    resolve_fields,
)
from redstring.consolidation.heap import run_heap
from redstring.consolidation.mentions import score_mentions
from redstring.consolidation.record_model import (
    VETO_MIN_FIELDS,
    RecordEvidence,
    TrainedModel,
    train,
)
from redstring.consolidation.sorted_runs import first_and_inverse
from redstring.domain.exceptions import InvalidInputError, MalformedOutputError, TenantMismatchError
from redstring.domain.ids import id_order

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

    import numpy.typing as npt

    from redstring.consolidation.adjudication import Adjudicator
    from redstring.consolidation.clustering import PairScorer
    from redstring.consolidation.kinds import FieldReport
    from redstring.domain.entity import Entity
    from redstring.domain.ids import EntityId, TenantId
    from redstring.ports.graph_store import GraphStore

#: Two clusters join when their cross pairs' mean match probability reaches this:
#: the posterior's own decision point (even odds), not a constant fitted to a set ...
MERGE_THRESHOLD = 0.5
#: ... and none of them falls below this: one pair the model calls distinct at odds
#: of 1 to 19 vetoes the join, whatever the other links say.
DISTINCT_THRESHOLD = 0.05
#: A record pair starts a join only when it is one of the 4 strongest links of one
#: of its two records (`clustering._strongest_links`); the join's verdict still
#: reads every cross pair. Households and namesakes joined through links their
#: records' own duplicates outbid: measured in process on eleven sets
#: (bench/README.md), 4 took people-homes-5k F1 0.833 -> 0.939 and people-50k
#: 0.882 -> 0.910 and lowered no other set by more than 0.0005; 3 lifted those two
#: further but cost the clean sets recall (people-parts-1k 0.986 -> 0.979,
#: listings 0.997 -> 0.984); 6 kept half the gain.
STRONGEST_LINKS = 4
#: A record contradicted (below `DISTINCT_THRESHOLD`) by at most this share of a
#: cluster's records, rounded down, may still join it when the cluster has at least
#: twice its group's records (`agreeing_clusters`, `clustering.OUTNUMBERED`): a
#: cluster of ten or more holds copies mistyped past recognition, and one of them
#: rejecting a newcomer the rest accept speaks for that copy. Records only; a text
#: mention's contradictions always veto. Measured in process on 25 sets: people-50k
#: F1 0.9466 -> 0.9527 (P 0.976 -> 0.965, R 0.919 -> 0.941), people-parts-1k
#: 0.985 -> 0.993, people-export-1k 0.955 -> 0.984, people-registry-5k 0.952 ->
#: 0.967, no set lower; 0.2 lifted the people sets further but lowered songs and
#: articles by 0.001 and people-50k's precision to 0.947.
TOLERATED_SHARE = 0.1
#: Pairs from here up to `MERGE_THRESHOLD` are the grey band an adjudicator sees.
GREY_LOWER = 0.1
#: Why a record cluster and a text cluster were joined (`bridging`).
BRIDGE_REASON = (
    "a record and a text mention of one type share a core name of two or more words, "
    "and neither has another such partner"
)
#: The group label of text mentions in reports (records are labelled by type).
TEXT_GROUP = "text mentions"


class Band(StrEnum):
    MERGE = "merge"
    GREY = "grey"
    DISTINCT = "distinct"


def _band_masks(
    probabilities: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """(merge, grey) band of each probability; the rest is distinct."""
    merge = probabilities >= MERGE_THRESHOLD
    return merge, (probabilities >= GREY_LOWER) & ~merge


@dataclass(frozen=True)
class PairScore:
    left_id: EntityId
    right_id: EntityId
    probability: float
    band: Band


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
    #: Candidate pairs per band (before adjudication).
    band_counts: dict[str, int] = field(default_factory=dict)
    adjudicated: dict[str, int] = field(default_factory=dict)
    #: Every cluster, singletons included, as sorted id lists.
    clusters: list[list[EntityId]] = field(default_factory=list)
    #: Per record entity type: the fields compared, and the properties left out, why.
    fields: dict[str, FieldReport] = field(default_factory=dict)
    #: Per record entity type: the trained model (m, u, match rate, blocking rules).
    models: dict[str, dict[str, object]] = field(default_factory=dict)
    #: Record entity types scored with a model given to the run rather than trained.
    reused_models: list[str] = field(default_factory=list)
    #: Per record entity type: the log-odds from which two lone records may merge
    #: (`record_model.lone_bar`).
    lone_bars: dict[str, float] = field(default_factory=dict)
    #: The entities in the order `candidate_pairs` indexes them.
    entity_ids: list[EntityId] = field(default_factory=list)
    #: Every candidate pair, as index pairs into `entity_ids`, so a benchmark can
    #: measure pair completeness against labels.
    candidate_pairs: npt.NDArray[np.int64] = field(
        default_factory=lambda: np.zeros((0, 2), dtype=np.int64)
    )
    #: Per group: its live entities and the grey pairs kept apart as index arrays
    #: into them; `grey` builds the pair objects only when asked (people-50k keeps
    #: ~4*10^5 apart, and a run reports only their number).
    _grey_parts: list[_GreyPart] = field(default_factory=list, repr=False)
    _grey: list[PairScore] | None = field(default=None, repr=False)

    @property
    def grey(self) -> list[PairScore]:
        """Grey-band pairs whose ends ended up in different clusters (kept apart),
        sorted by their ids' text."""
        if self._grey is None:
            keyed: list[tuple[str, str, PairScore]] = []
            for part in self._grey_parts:
                for i, j, p in zip(
                    part.left.tolist(), part.right.tolist(), part.probability.tolist(), strict=True
                ):
                    a, b = part.live[i].id, part.live[j].id
                    x, y = str(a), str(b)
                    keyed.append((min(x, y), max(x, y), PairScore(a, b, p, Band.GREY)))
            keyed.sort(key=lambda k: k[:2])
            self._grey = [pair for _, _, pair in keyed]
        return self._grey

    @property
    def grey_count(self) -> int:
        """How many pairs `grey` holds, without building them."""
        return sum(len(part.left) for part in self._grey_parts)


@dataclass(frozen=True)
class _GreyPart:
    live: Sequence[Entity]
    left: npt.NDArray[np.int64]
    right: npt.NDArray[np.int64]
    probability: npt.NDArray[np.float64]


@dataclass
class _Group:
    """One model's view of some entities: candidate pairs, probabilities, scorer."""

    label: str
    members: list[Entity]
    pairs: npt.NDArray[np.int64]
    probabilities: npt.NDArray[np.float64]
    scorer: PairScorer
    reason: str
    report: FieldReport | None = None
    model: dict[str, object] | None = None
    reused: bool = False
    #: Per member, the live entity it belongs to, when some members are the records
    #: of an earlier merge (else every member is live).
    owners: list[Entity] | None = None


def _records_of(
    live: Sequence[Entity], members: Mapping[EntityId, Sequence[Entity]] | None
) -> tuple[list[Entity], list[Entity] | None]:
    """`live` record entities with each earlier merge replaced by the records it was
    made of (when all of them are records of its type), and each record's live owner."""
    if not members:
        return list(live), None
    records: list[tuple[Entity, Entity]] = []
    for entity in live:
        parts = members.get(entity.id, ())
        if len(parts) > 1 and all(
            is_record(p) and p.entity_type == entity.entity_type for p in parts
        ):
            records.extend((part, entity) for part in parts)
        else:
            records.append((entity, entity))
    records.sort(key=lambda pair: _order_key(pair[0]))
    return [r for r, _ in records], [owner for _, owner in records]


def _order_key(entity: Entity) -> tuple[str, str, int]:
    """Where an entity stands in the model's arrays: by where it came from (its first
    source and record key), then its name, and only then its id. Ids are minted per
    tenant, so ordering by them made the random pairs u is measured on, and every
    tie, differ between two tenants holding the same records (people-parts-1k F1
    0.9844 or 0.9876 by tenant); this way the same records get the same decisions."""
    sources = sorted(p.source_id for p in entity.provenance if p.source_id)
    return (sources[0] if sources else "", entity.name, id_order(entity.id))


def _groups(
    entities: Sequence[Entity],
    neighbours: Mapping[EntityId, set[EntityId]] | None,
    overrides: Mapping[str, str] | None,
    models: Mapping[str, TrainedModel] | None = None,
    members_of: Mapping[EntityId, Sequence[Entity]] | None = None,
) -> list[_Group]:
    """Evidence for every entity: one record model per type (a given one when it
    still fits the type's fields, else trained here) over the records of earlier
    merges (`members_of`), one mention model."""
    ordered = sorted(entities, key=_order_key)
    groups: list[_Group] = []
    by_type: dict[str, list[Entity]] = {}
    text: list[Entity] = []
    for entity in ordered:
        if is_record(entity):
            by_type.setdefault(entity.entity_type, []).append(entity)
        else:
            text.append(entity)
    for entity_type in sorted(by_type):
        members, owners = _records_of(by_type[entity_type], members_of)
        evidence = train(members, overrides=overrides, model=(models or {}).get(entity_type))
        groups.append(
            _Group(
                label=entity_type,
                members=members,
                owners=owners,
                pairs=evidence.pairs,
                probabilities=evidence.probabilities,
                scorer=evidence,
                reason=(
                    "record model trained on this workspace: every pair across the joined "
                    f"groups that shares {VETO_MIN_FIELDS} or more fields besides the name "
                    f"scored >= {DISTINCT_THRESHOLD}, all pairs' mean >= {MERGE_THRESHOLD}"
                ),
                report=evidence.report,
                model=evidence.model.as_dict() if evidence.model is not None else None,
                reused=evidence.reused,
            )
        )
    missing = sorted(set(overrides or {}) - {"name"})
    for group in by_type.values():
        for e in group:
            if not missing:
                break
            missing = [key for key in missing if key not in e.properties]
    if missing:
        raise InvalidInputError(f"--field {missing[0]}: no record has a property {missing[0]!r}")
    if text:
        mentions = score_mentions(text, neighbours=neighbours)
        groups.append(
            _Group(
                label=TEXT_GROUP,
                members=text,
                pairs=mentions.pairs,
                probabilities=mentions.probabilities,
                scorer=mentions.scorer,
                reason=(
                    "mention model: names, values and document context agree across the "
                    f"joined groups (every pair >= {DISTINCT_THRESHOLD}, mean >= "
                    f"{MERGE_THRESHOLD})"
                ),
            )
        )
    return groups


def _grey_rows(group: _Group) -> list[int]:
    _, grey = _band_masks(group.probabilities)
    rows: list[int] = np.flatnonzero(grey).tolist()
    if group.owners is not None:
        # Two records of one earlier merge are one entity already: nothing to ask.
        owners = group.owners
        rows = [r for r in rows if owners[group.pairs[r, 0]] is not owners[group.pairs[r, 1]]]
    return rows


def _decision(members: Sequence[Entity], values: Sequence[float], reason: str) -> MergeDecision:
    resolved = resolve_fields(members)
    canonical_id = resolved.entity.id
    return MergeDecision(
        canonical_id=canonical_id,
        merged_ids=tuple(sorted((e.id for e in members if e.id != canonical_id), key=id_order)),
        reason=reason,
        # A bridged record and mention were never scored as a pair: no mean to give.
        scores={"scored_pairs": float(len(values))}
        | (
            # In Python: a cluster's few scores, where numpy's conversion cost more than
            # the sums (people-50k: 5k merges).
            {"mean_probability": math.fsum(values) / len(values), "min_probability": min(values)}
            if values
            else {}
        ),
        merged_entity=resolved.entity,
        conflicts=resolved.conflicts,
    )


def _kept_apart(
    members: Sequence[Entity],
    apart: Sequence[Collection[EntityId]],
    owners: Sequence[Entity] | None = None,
) -> dict[tuple[int, int], float]:
    """Index pairs of `members` a user separated (an undone merge): probability 0
    in every clustering check, so no cluster joins them again. With `owners`, the
    ids are live entities and every record of one is kept apart from the other's.
    Nothing undone, nothing to index: filing every member by owner found no pair
    (people-50k: 50k members, ~0.06 s of each run)."""
    if not apart:
        return {}
    by_owner: dict[EntityId, list[int]] = {}
    for i, member in enumerate(members):
        by_owner.setdefault((owners[i] if owners is not None else member).id, []).append(i)
    out: dict[tuple[int, int], float] = {}
    for ids in apart:
        parts = [by_owner[i] for i in sorted(ids, key=id_order) if i in by_owner]
        for a, left in enumerate(parts):
            for right in parts[a + 1 :]:
                for i in left:
                    for j in right:
                        out[(min(i, j), max(i, j))] = 0.0
    return out


def _by_owner(owners: Sequence[Entity] | None) -> list[list[int]]:
    """Member indices of each live entity made of several records."""
    groups: dict[int, list[int]] = {}
    for i, owner in enumerate(owners or ()):
        groups.setdefault(id(owner), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def _plan(
    groups: Sequence[_Group],
    verdicts: Mapping[tuple[int, int], bool] | None,
    restrict_to: set[EntityId] | None = None,
    separate: Sequence[Collection[EntityId]] = (),
) -> ResolutionPlan:
    plan = ResolutionPlan()
    bands: Counter[str] = Counter()
    adjudicated = {"same": 0, "different": 0}
    all_pairs: list[npt.NDArray[np.int64]] = []
    # Every cluster's members and in-cluster scores, records and text apart, for
    # the bridge between them.
    formed: dict[bool, list[tuple[list[Entity], list[float], str]]] = {True: [], False: []}
    for g, group in enumerate(groups):
        members = group.members
        if group.report is not None:
            plan.fields[group.label] = group.report
        if group.model is not None:
            plan.models[group.label] = group.model
            if group.reused:
                plan.reused_models.append(group.label)
        probabilities = group.probabilities.copy()
        merge_band, grey_band = _band_masks(probabilities)
        bands[Band.MERGE.value] += int(merge_band.sum())
        bands[Band.GREY.value] += int(grey_band.sum())
        bands[Band.DISTINCT.value] += int((~merge_band & ~grey_band).sum())
        decided = {row: same for (k, row), same in (verdicts or {}).items() if k == g}
        for row, same in decided.items():
            probabilities[row] = 1.0 if same else 0.0
            adjudicated["same" if same else "different"] += 1
        fixed = {
            (min(i, j), max(i, j)): float(probabilities[row])
            for row in decided
            for i, j in [group.pairs[row].tolist()]
        }
        separated = _kept_apart(members, separate, group.owners)
        if separated:
            fixed.update(separated)
            n = len(members)
            low = group.pairs.min(axis=1) * n + group.pairs.max(axis=1)
            apart_codes = np.asarray([i * n + j for i, j in separated], dtype=np.int64)
            probabilities[np.isin(low, apart_codes)] = 0.0
        veto_probabilities, veto_scorer = probabilities, group.scorer
        can_start = lone_start = None
        if isinstance(group.scorer, RecordEvidence):
            # An adjudicator's "same" may start a join whatever the bars.
            said_same = [row for row, same in decided.items() if same]
            can_start = group.scorer.can_start.copy()
            can_start[said_same] = True
            lone_start = group.scorer.lone_start.copy()
            lone_start[said_same] = True
            if group.scorer.lone_logit is not None:
                plan.lone_bars[group.label] = group.scorer.lone_logit
            # Sparse pairs do not veto (`RecordEvidence.veto_view`); bands and grey
            # pairs keep the scores as they are.
            veto_probabilities = group.scorer.veto_view(
                probabilities, group.scorer.comparable, DISTINCT_THRESHOLD
            )
            veto_scorer = group.scorer.veto_scorer(DISTINCT_THRESHOLD)
        clusters = agreeing_clusters(
            len(members),
            group.pairs,
            veto_probabilities,
            veto_scorer,
            merge_threshold=MERGE_THRESHOLD,
            distinct_threshold=DISTINCT_THRESHOLD,
            overrides=fixed,
            initial=_by_owner(group.owners),
            strongest_links=STRONGEST_LINKS if group.report is not None else None,
            can_start=can_start,
            lone_start=lone_start,
            tolerated_share=TOLERATED_SHARE if group.report is not None else 0.0,
        )
        label = np.zeros(len(members), dtype=np.int64)
        for c, indices in enumerate(clusters):
            label[indices] = c
        left, right = group.pairs[:, 0], group.pairs[:, 1]
        same = label[left] == label[right]
        inside = _by_cluster(label[left[same]], probabilities[same])
        apart = ~same & grey_band
        if decided:
            apart[list(decided)] = False
        live = group.owners if group.owners is not None else members
        plan._grey_parts.append(
            _grey_part(live, left, right, probabilities, apart, distinct=group.owners is None)
        )
        for c, indices in enumerate(clusters):
            chosen = list({id(live[m]): live[m] for m in indices}.values())
            formed[group.report is not None].append((chosen, inside.get(c, []), group.reason))
        all_pairs.append(group.pairs + len(plan.entity_ids))
        plan.entity_ids.extend(e.id for e in members)
    joined = [
        (r, t)
        for r, t in bridges([c[0] for c in formed[True]], [c[0] for c in formed[False]])
        if not _kept_apart(formed[True][r][0] + formed[False][t][0], separate)
    ]
    bridged = {r for r, _ in joined}, {t for _, t in joined}
    final = [c for k, c in enumerate(formed[True]) if k not in bridged[0]]
    final += [c for k, c in enumerate(formed[False]) if k not in bridged[1]]
    for r, t in joined:
        (records, r_scores, _), (text, t_scores, _) = formed[True][r], formed[False][t]
        final.append((records + text, r_scores + t_scores, BRIDGE_REASON))
    for chosen, scores, reason in final:
        # Most clusters are one entity: no ids to turn into text to sort.
        ids = [chosen[0].id] if len(chosen) == 1 else sorted((e.id for e in chosen), key=id_order)
        plan.clusters.append(ids)
        if len(chosen) < 2:
            continue
        if restrict_to is not None and not restrict_to.intersection(e.id for e in chosen):
            continue
        plan.merges.append(_decision(chosen, scores, reason))
    plan.band_counts = {b.value: bands.get(b.value, 0) for b in Band}
    plan.adjudicated = adjudicated
    if all_pairs:
        plan.candidate_pairs = np.concatenate(all_pairs)
    plan.merges.sort(key=lambda d: id_order(d.canonical_id))
    plan.clusters.sort(key=lambda c: id_order(c[0]))
    return plan


def _grey_part(
    live: Sequence[Entity],
    left: npt.NDArray[np.int64],
    right: npt.NDArray[np.int64],
    probabilities: npt.NDArray[np.float64],
    apart: npt.NDArray[np.bool_],
    *,
    distinct: bool = False,
) -> _GreyPart:
    """The `apart` pairs, one per two live entities (records of one earlier merge
    share their live entity), the first in candidate order kept. `distinct`: no two
    of `live` are one entity (no earlier merge's records), so each is its own code
    and no id is hashed (people-50k: 50k, ~0.04 s)."""
    if distinct:
        code = np.arange(len(live), dtype=np.int64)
    else:
        first: dict[EntityId, int] = {}
        code = np.asarray([first.setdefault(e.id, k) for k, e in enumerate(live)], dtype=np.int64)
    rows = np.flatnonzero(apart)
    a, b = code[left[rows]], code[right[rows]]
    key = np.minimum(a, b) * max(len(live), 1) + np.maximum(a, b)
    kept, _ = first_and_inverse(key)
    rows = rows[np.sort(kept)]
    return _GreyPart(live, left[rows], right[rows], probabilities[rows])


def _by_cluster(
    labels: npt.NDArray[np.int64], values: npt.NDArray[np.float64]
) -> dict[int, list[float]]:
    """`values` grouped by their cluster label, each group in its original order
    (one sort, not a Python step per pair: people-50k has ~10^5 pairs inside clusters)."""
    if not len(labels):
        return {}
    order = np.argsort(labels, kind="stable")
    labels, values = labels[order], values[order]
    starts = np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]])
    groups = np.split(values, starts[1:])
    return {
        int(labels[start]): group.tolist()
        for start, group in zip(starts.tolist(), groups, strict=True)
    }


async def _adjudicate(
    groups: Sequence[_Group], adjudicator: Adjudicator
) -> dict[tuple[int, int], bool]:
    keys: list[tuple[int, int]] = []
    grey: list[GreyPair] = []
    for g, group in enumerate(groups):
        for row in _grey_rows(group):
            i, j = group.pairs[row].tolist()
            keys.append((g, row))
            grey.append(
                GreyPair(
                    left=group.members[i],
                    right=group.members[j],
                    probability=float(group.probabilities[row]),
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
    field_overrides: Mapping[str, str] | None = None,
    models: Mapping[str, TrainedModel] | None = None,
    separate: Sequence[Collection[EntityId]] = (),
    members: Mapping[EntityId, Sequence[Entity]] | None = None,
) -> ResolutionPlan:
    """Resolve without an adjudicator: grey pairs stay apart and are reported."""
    _check(entities)
    with run_heap():
        groups = _groups(entities, neighbours, field_overrides, models, members)
        plan = _plan(groups, None, separate=separate)
        del groups  # before the run ends (`heap`)
    return plan


async def resolve(
    entities: Sequence[Entity],
    *,
    neighbours: Mapping[EntityId, set[EntityId]] | None = None,
    adjudicator: Adjudicator | None = None,
    field_overrides: Mapping[str, str] | None = None,
    models: Mapping[str, TrainedModel] | None = None,
    separate: Sequence[Collection[EntityId]] = (),
    members: Mapping[EntityId, Sequence[Entity]] | None = None,
) -> ResolutionPlan:
    """Resolve a batch of entities; grey pairs go to `adjudicator` when one is given.
    `models` (per entity type) are used instead of training where they still fit;
    no two ids of one `separate` set end in one cluster (a user undid their merge);
    `members` gives the records each earlier merge was made of (see the module)."""
    _check(entities)
    with run_heap():
        groups = _groups(entities, neighbours, field_overrides, models, members)
        verdicts = await _adjudicate(groups, adjudicator) if adjudicator is not None else None
        plan = _plan(groups, verdicts, separate=separate)
        del groups  # before the run ends (`heap`)
    return plan


async def resolve_incremental(
    new_entities: Sequence[Entity],
    store: GraphStore,
    tenant_id: TenantId,
    *,
    neighbours: Mapping[EntityId, set[EntityId]] | None = None,
    adjudicator: Adjudicator | None = None,
    field_overrides: Mapping[str, str] | None = None,
    models: Mapping[str, TrainedModel] | None = None,
    separate: Sequence[Collection[EntityId]] = (),
    members: Mapping[EntityId, Sequence[Entity]] | None = None,
) -> ResolutionPlan:
    """Resolve `new_entities` against the live entities of their types.

    Both models read the whole tenant (value frequencies, document context), so
    they see every live entity of the new entities' types; a record model given in
    `models` keeps its m, u and match rate (no retraining). Only clusters that hold
    a new entity become merges.
    """
    _check(new_entities)
    if not new_entities:
        return ResolutionPlan()
    if {e.tenant_id for e in new_entities} != {tenant_id}:
        raise TenantMismatchError("new entities belong to another tenant")
    types = sorted({e.entity_type for e in new_entities})
    live = {e.id: e for e in await store.list_entities(tenant_id, entity_types=types)}
    live.update({e.id: e for e in new_entities})
    groups = _groups(list(live.values()), neighbours, field_overrides, models, members)
    verdicts = await _adjudicate(groups, adjudicator) if adjudicator is not None else None
    return _plan(groups, verdicts, restrict_to={e.id for e in new_entities}, separate=separate)


def _check(entities: Sequence[Entity]) -> None:
    counts = Counter(e.id for e in entities)
    duplicated = sorted(str(i) for i, n in counts.items() if n > 1)
    if duplicated:
        raise InvalidInputError(f"entity ids given more than once: {', '.join(duplicated[:5])}")
    if len({e.tenant_id for e in entities}) > 1:
        raise TenantMismatchError("resolution runs within one tenant; got entities of several")
