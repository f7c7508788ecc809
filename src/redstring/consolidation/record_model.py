"""An unsupervised Fellegi-Sunter model, trained on the workspace's own records.

Nothing here is fitted to a benchmark set. For one entity type:

1. `detect_fields` says which properties to compare and as what kind.
2. Blocking rules come from those fields: a field alone (or its core, phonetic,
   year or area key) when its values are selective enough on *this* data, otherwise
   a pair of fields together, taken from the most selective until a pair budget is
   spent. The union of the rules gives the candidate pairs, less those of a rule
   whose sampled pairs the trained model scores as no matches (`RuleJudge`).
3. u (how often non-matches agree at each level) is measured on random pairs.
4. m (how often matches agree) is estimated by expectation-maximisation sessions,
   each over the pairs that agree exactly on one selective field, learning m for
   every other field (a pair blocked on a field agrees on it by construction, and
   would teach the model nothing about it). The match rate among the candidates is
   then fitted with m and u held fixed.
5. Scores add log Bayes factors; an exact agreement on a value is weighed by how rare
   that value is in the data (term-frequency adjustment), so two "Smith" agree less
   than two "Chudleigh".

The priors for m are generic (agreement is likely among matches); everything else
comes from the data.
"""

from __future__ import annotations

import functools
import itertools
import math
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import numpy as np

from redstring.consolidation.comparisons import (
    LEVELS,
    PLACES_APART_KM,
    FieldColumn,
    build_columns,
    coded_per_value,
    codes_apart,
    compare,
    dated,
    generations,
    halves_apart,
    names_apart,
    phonetic,
)
from redstring.consolidation.kinds import (
    IDENTIFYING_KINDS,
    NAME_FIELD,
    NAME_KINDS,
    FieldKind,
    FieldReport,
    align_fields,
    align_sources,
    detect_fields,
)
from redstring.consolidation.names import type_kind
from redstring.consolidation.sorted_runs import first_and_inverse, pairs_within, stable_order

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, Sequence

    import numpy.typing as npt

    from redstring.consolidation.clustering import PairScorer
    from redstring.domain.entity import Entity

    #: m and u per field, the bundles counted once (`_em_sessions`) and the
    #: dependences discounted (`_dependences`).
    Tables = tuple[
        Sequence[npt.NDArray[np.float64]],
        Sequence[npt.NDArray[np.float64]],
        Sequence[Sequence[int]],
        Sequence["Dependence"],
    ]

#: Random pairs sampled to estimate u. A workspace with at most four times as many
#: pairs in all has u counted over every pair instead: exact, and no longer a draw
#: (a 1k-record set's F1 moved by 0.003 with the sample); counted by distinct value
#: pairs (`_level_counts`), that costs less than the sample would -- but on a
#: field of more value pairs than the sample, which is sampled still; and a field of
#: fewer value pairs than the sample is counted exactly in a workspace of any size.
U_SAMPLE_PAIRS = 200_000
#: Blocks u's random pairs are drawn in (`_random_pair_blocks`).
U_SAMPLE_BLOCKS = 4
#: EM stops after this many rounds or when no parameter moves more than the tolerance.
EM_ROUNDS = 40
EM_TOLERANCE = 1e-5
#: A blocking key shared by more entities than this pairs nobody (it says too little).
MAX_BLOCK = 200
#: Neighbours each member of an oversized block is paired with (sorted by name).
WINDOW = 3
#: A rule is tried only when its ordinary blocks (2 to `MAX_BLOCK` records) hold at
#: least this share of the records, or its field is held by that share and most of
#: its holders hold a value no other record does (`SELECTIVE_SHARE`; `_measure`).
RULE_COVERAGE = 0.3
SELECTIVE_SHARE = 0.5
#: The match rate among all pairs taken out of u is at most this
#: (`random_match_rate`): a file where one random pair in five is a match holds a
#: handful of people, and past that the candidates' rate itself is in doubt.
RANDOM_MATCH_RATE_CAP = 0.2
#: u with the matches taken out is at least this fraction of the u read on random
#: pairs (`_without_matches`): agreement gains at most log 20 (3.0) that way.
U_CORRECTION_LIMIT = 20.0
#: Kinds whose u has the random pairs' matches taken out (`_without_matches`): an
#: id, phone, e-mail, birth date, postcode or street is one person's or one home's,
#: so where random pairs agree on it they are mostly copies. Names and towns are
#: shared by many by nature, and their term frequencies already weigh each value:
#: taken out there too, people-names P 0.82 -> 0.58 (namesakes merged).
MATCHES_TAKEN_OUT = frozenset(
    {
        FieldKind.IDENTIFIER,
        FieldKind.PHONE,
        FieldKind.EMAIL,
        FieldKind.DATE,
        FieldKind.POSTCODE,
        FieldKind.ADDRESS,
    }
)
#: All rules together may pair at most this many pairs per entity. With a field's
#: further keys weighed after every field's first (`_choose_rules`), 30 where 40 was:
#: people-50k F1 0.9567 -> 0.9566 on 1.50M pairs, not 2.02M; of 28 sets 12 gained
#: (people-parts-1k +0.0032, people-export-5k +0.0034, people-names-5k +0.0048: fewer
#: namesakes to start joins), 4 lost at most 0.0012 (listings), the rest unchanged.
PAIRS_PER_ENTITY = 30.0
#: A rule that may not fit the pair budget is first tried on the pairs among every
#: this-many-th entity (`_over_budget`): about 1/this^2 of its pairs.
BUDGET_PROBE = 3
#: Generic starting belief: matches mostly agree exactly.
M_PRIOR_EXACT = 0.8
#: m of "different" for an id number before EM, and where no session can learn it
#: (a catalogue whose only trusted session is blocked on the ISBN itself).
M_PRIOR_ID_DIFFERS = 0.02
#: The generic u prior weighs as much as this many observed random pairs; the
#: data outweighs it from a few dozen records on.
U_PRIOR_PAIRS = 1000.0
U_PRIOR_EXACT = 0.001
U_PRIOR_CLOSE = 0.01
#: Term frequencies are read as if this many records of average frequency were added,
#: so a value seen twice among three records is not taken as "common".
TF_PRIOR_RECORDS = 1000.0
#: Kinds of field that related but different entities share: a household's address,
#: postcode, town, family name and phone; an organisation's name across branches; a
#: category. The other kinds (a birth date, an id number, a given name, an e-mail, a
#: title) describe one entity.
GROUP_KINDS = frozenset(
    {
        FieldKind.ADDRESS,
        FieldKind.POSTCODE,
        FieldKind.LOCALITY,
        FieldKind.FAMILY_NAME,
        FieldKind.PHONE,
        FieldKind.CATEGORY,
        FieldKind.LIST,
        FieldKind.ORGANISATION_NAME,
        FieldKind.NAME,
    }
)
#: A title-like name (kind TEXT) below this level ("token set>=0.80") keeps a pair
#: apart whatever the other fields say. Works of one author in one year share
#: names, dates and venue -- everything but the title -- and Fellegi-Sunter, which
#: weighs fields as if independent, scores such siblings as one work; a title that
#: differs in more than a fifth of its words names another work.
TITLE_GATE_LEVEL = 3
#: The same for a short title (the name of a thing neither person nor organisation,
#: under `kinds.TITLE_MIN_WORDS` words, kind NAME): below "jw>=0.80", i.e. names
#: that differ outright, keep a pair apart. The tracks of one album share artist,
#: album, year and language; EM, seeing them among the candidates, learnt that a
#: "match" often has another title, and a music catalogue of ~10k rows merged whole
#: albums (precision 0.09; 0.95 with the gate, 0.96 with "jw>=0.80" gated too but
#: recall 0.957 against 0.993: a retyped short title is often only that close).
NAME_GATE_LEVEL = 2
#: The same for an organisation's name: "another role on each side" (level 1,
#: `comparisons._roles_apart`) keeps two firms of one group, or two rooms of one
#: hotel, apart though they share address, phone and trade.
ORGANISATION_GATE_LEVEL = 2
#: An id number whose matches differ outright at most this often (m of "different")
#: keeps two records holding two such ids apart (more than two keying errors
#: apart, `comparisons.codes_apart`: two copies of one id mistyped once each are two
#: edits apart) unless every other field of one entity they hold outweighs that on
#: its own, or is a date one keying error off (`RecordEvidence._own_fields_agree`).
#: The editions of one book share title, authors and often publisher -- everything
#: but the ISBN -- and their agreement outweighs one differing field.
#: An id the data shows unstable (m above this), or whose m no session learnt, is
#: only evidence: a hospital's record number is its own, and one patient's records
#: at two hospitals hold two (with the prior's m as a gate, recall fell to 0.25).
ID_APART_M = 0.05
#: The same for a thing named by its address (a property): another house or flat
#: number (level 2) is another property, whatever owner, date or price say.
ADDRESS_GATE_LEVEL = 3
#: A date's level "one edit or day/month swap" (`comparisons.LEVELS`): one keying
#: error off the same date. Twins share a birth date, housemates' and a work's
#: editions' differ by more, so beside two ids apart it is a second typo, not
#: another entity (`RecordEvidence._own_fields_agree`).
DATE_TYPO_LEVEL = LEVELS[FieldKind.DATE].index("one edit or day/month swap") + 1
#: The entity's own name, by kind: the level below which it keeps a pair apart.
_NAME_GATES = {
    FieldKind.ADDRESS: ADDRESS_GATE_LEVEL,
    FieldKind.TEXT: TITLE_GATE_LEVEL,
    FieldKind.NAME: NAME_GATE_LEVEL,
    FieldKind.ORGANISATION_NAME: ORGANISATION_GATE_LEVEL,
}
#: Kinds of the own name of a work -- a paper, a film, a song, an article: a thing
#: neither person nor organisation (`kinds`) -- whose years, or dates, more than
#: `WORK_YEARS_APART` apart keep two records apart: a journal's "Editor's notes" of
#: 1997 and of 2002, a paper's conference and journal versions, a film and its
#: remake share title and authors. Two sources may each be a year off (a release
#: and a production year), so two years apart is still one work.
WORK_NAME_KINDS = frozenset({FieldKind.TEXT, FieldKind.NAME})
WORK_YEARS_APART = 2
#: A pair vetoes a join in clustering only when both records hold at least this many
#: of the same fields besides the name: one sharing less cannot show two different
#: things, only missing evidence. Measured (bench/README.md, BACKLOG "The clustering's
#: veto"): 2 lifts sparse sets (people-export-1k F1 0.931 -> 0.954) and changes no
#: precision on any set; 3 cost articles precision 0.977 -> 0.967.
VETO_MIN_FIELDS = 2
#: A work's title held by more than this many times the median number of rows a
#: repeated title is held by is a common one: alone, it starts no join
#: (`RecordEvidence._title_tells`). 2 and 4 rows as a fixed bar gave alike.
COMMON_TITLE = 2.0
#: Smallest probability any level may take (keeps log factors finite).
FLOOR = 1e-6
#: EM training sessions: the most selective single-field keys, each on its own field.
TRAINING_SESSIONS = 3
#: A session whose EM finds fewer matches than this taught nothing (m from a few
#: matches is a histogram of zeros) and does not count among `TRAINING_SESSIONS`,
#: unless no session that finds as many found entities (a file of a dozen records).
#: Sessions on columns each record fills on its own found 2-8 matches in 2,000
#: records (a remark, a date of last update); on the bench's sets every session
#: found 88 or more (restaurants' names).
SESSION_MIN_MATCHES = 20.0
#: Pairs an EM session learns from at most: a seeded sample of those agreeing on its
#: field beyond that. EM's few parameters need far fewer (people-50k's surname
#: session held 525k pairs; sampled to 50k each, F1 0.9527 as before, songs 0.9799 ->
#: 0.9794, and songs' training 6% faster, films' 12%).
SESSION_PAIRS = 50_000
#: A session whose matches disagree on every field that describes one entity at
#: more than this share of the rate random pairs do has learnt a group, not an
#: entity (`_em_sessions`).
SESSION_DOUBT = 0.5
#: Divergence of a field's m from its u (nats) from which it counts as evidence for
#: the veto and the gates (`RecordEvidence._informative`): columns each record
#: fills on its own read below 0.002, the weakest field of the bench's sets (a sex)
#: 0.126.
INFORMATIVE = 0.02
#: In a file of fewer than `SESSION_MIN_MATCHES` / this records, a field judges
#: sessions from this share of its records in pairs sharing a value, one pair at
#: least (`_shared`): three people's copies in a dozen records make 18 pairs.
SHARED_SHARE = 0.01
#: A field judges a session (`_doubtful`) only where at least this share of random
#: pairs differ in it outright: a date of last update within a few years puts
#: strangers on its close levels (u of "different" 0.005), and the ratio of two
#: such small shares called a voter roll's household session one of people
#: (voters with seven own columns: P 0.9985 -> 0.5723).
JUDGE_DIFFERS = 0.5
#: The same for an id number alone (`_doubtful`): one person's copies differ in it
#: only where mistyped beyond one edit.
ID_DOUBT = 0.1
#: A session blocked on a group's field found groups when, on more than half the
#: fields of one entity, its matches differ this much more often (in share of
#: pairs) than those of a session blocked on such a field do (`_beside_own`): a
#: fifth of its matches are another entity, as a mixture of copies and housemates
#: differs; copies alone differ by their typos in either session.
GROUP_EXCESS = 0.2
#: Fields of a group's kinds that agree exactly in at least this share of a doubtful
#: session's matches travel with the field it blocked on: one bundle (`_bundles`).
BUNDLE_SHARE = 0.8
#: The candidates' log-odds are read as two populations (`_start_logit`) only when
#: they are this far apart (Ashman's D: distance of the means over their pooled
#: spread; above 2 the two bumps are clearly separate).
SPLIT_SEPARATION = 2.0
#: Random pairs whose levels are read for dependence between fields (`_dependences`).
DEPENDENCE_PAIRS = 200_000
#: Two fields are dependent when, among pairs surely of two entities, they agree
#: together at least this many times as often as their separate rates predict
#: (town ~ postcode: 40-67 on the bench sets; no pair of independent fields above 2).
DEPENDENCE_LIFT = 10.0
#: Surely-two-entity pairs holding both fields needed to read their dependence, and
#: pairs agreeing on both: fewer are a few true duplicates, not a population.
DEPENDENCE_MIN_HELD = 1_000
DEPENDENCE_MIN_JOINT = 20
#: A pair of levels seen together fewer times than this among those pairs keeps its
#: evidence whole: its lift would be noise (people-50k F1 0.9568 with it, 0.9481
#: without).
DEPENDENCE_MIN_CELL = 5


class Dependence(NamedTuple):
    """Two fields whose agreement among strangers is not independent (a postcode
    names its town), and by how much (log) a pair at each pair of their levels
    over-counts: strangers of one town share its postcode area forty times as often
    as two independent fields would, and Fellegi-Sunter adds both agreements."""

    first: int
    second: int
    excess: npt.NDArray[np.float64]


@dataclass(frozen=True)
class BlockingRule:
    """Pairs whose keys are equal on every listed (field, transform)."""

    parts: tuple[tuple[int, str], ...]
    label: str

    @property
    def fields(self) -> frozenset[int]:
        return frozenset(f for f, _ in self.parts)


@dataclass
class TrainedModel:
    """What EM learnt for one entity type; serialisable into the event log."""

    fields: list[dict[str, object]]
    m: list[list[float]]
    u: list[list[float]]
    prior: float
    rounds: int
    rules: list[str]
    #: Entities of the type it was trained on.
    trained_on: int = 0
    #: Log-odds from which a candidate pair may start a join (`_start_logit`);
    #: None: any pair at even odds may.
    start_logit: float | None = None
    #: People whose candidates' scores showed no two groups: `start_logit` is the
    #: cautious bar (`UNSEPARATED_PEOPLE_LOGIT`, `unseparated_bar`), not read from
    #: the scores.
    unseparated: bool = False
    #: Fields that travel together (names; `_bundles`): their agreements count once.
    bundles: list[list[str]] = field(default_factory=list)
    #: Fields no EM session learnt (names): their m is the generic prior.
    unlearnt: list[str] = field(default_factory=list)
    #: Dependent field pairs (`Dependence`): {"fields": [first, second], "excess":
    #: log over-count per pair of levels}.
    dependent: list[dict[str, object]] = field(default_factory=list)
    #: The match rate among all pairs (`random_match_rate`): `u` was read on random
    #: pairs, which hold matches at this rate; the weights use u without them
    #: (`_without_matches`). 0 in a model logged before it was kept.
    random_match_rate: float = 0.0
    #: Each blocking rule's match rate among the pairs it found first, read without
    #: its own fields (`_within_rules`), by rule label. Empty in a model logged
    #: before it was kept: no pair is then held to it.
    rule_rates: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> TrainedModel:
        """The model `as_dict` wrote (e.g. read back from the log). A model logged
        before `unseparated` was a field marked the cautious bar by its value alone:
        odds of 10^4."""
        values = dict(data)
        if "unseparated" not in values:
            values["unseparated"] = values.get("start_logit") == UNSEPARATED_PEOPLE_LOGIT
        return cls(**values)  # type: ignore[arg-type]


@dataclass
class RecordEvidence:
    """Candidate pairs of one entity type, their match probabilities, and a scorer."""

    pairs: npt.NDArray[np.int64]
    probabilities: npt.NDArray[np.float64]
    report: FieldReport
    model: TrainedModel | None
    columns: list[FieldColumn] = field(default_factory=list)
    log_m: list[npt.NDArray[np.float64]] = field(default_factory=list)
    log_u: list[npt.NDArray[np.float64]] = field(default_factory=list)
    prior_logit: float = 0.0
    comparisons: int = 0
    #: log of each field's exact-agreement rate among random pairs: the average
    #: value frequency that term-frequency adjustment compares a value's own with.
    log_random_u: list[float] = field(default_factory=list)
    #: The model was given (a stored one), not trained on these entities.
    reused: bool = False
    #: Per candidate pair: fields besides the name present on both records.
    comparable: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: Per candidate pair: whether it may start a join (`_start_logit`).
    can_start: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))
    #: Per candidate pair: whether it may join two lone records (`lone_bar`).
    lone_start: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=bool))
    #: That bar, in the candidates' log-odds (None: no pairs were scored).
    lone_logit: float | None = None
    #: People compared on their names alone whose scores show no two groups
    #: (`names_decide`): a pair whose names all differ scores 0.
    names_only: bool = False
    #: Points on the map more than 50 km apart keep a pair apart: true for things
    #: (a place, a firm's site), not for people, who move.
    places_apart: bool = False
    #: Fields that travel together, by index (`TrainedModel.bundles`).
    bundles: list[list[int]] = field(default_factory=list)
    #: Fields whose m no session learnt, by index (`TrainedModel.unlearnt`).
    unlearnt: list[int] = field(default_factory=list)
    #: Dependent field pairs, by index (`TrainedModel.dependent`).
    dependences: list[Dependence] = field(default_factory=list)

    def veto_view(
        self,
        probabilities: npt.NDArray[np.float64],
        comparable: npt.NDArray[np.int64],
        distinct: float,
    ) -> npt.NDArray[np.float64]:
        """`probabilities` as the clustering's veto reads them: a pair that shares
        fewer than `VETO_MIN_FIELDS` present fields besides the name is raised to
        `distinct`. Its low score says the evidence is missing, not that the two
        differ, so it must not keep two groups apart (it still counts in their mean).
        The bands and the adjudicator's grey pairs use the unraised scores."""
        return np.where(
            comparable < VETO_MIN_FIELDS, np.maximum(probabilities, distinct), probabilities
        )

    def veto_scorer(self, distinct: float) -> PairScorer:
        """This model as a `PairScorer` whose scores are `veto_view`ed."""

        def score(
            left: npt.NDArray[np.int64], right: npt.NDArray[np.int64]
        ) -> npt.NDArray[np.float64]:
            levels, probabilities = self._scored(left, right)
            return self.veto_view(probabilities, self._comparable(levels, left, right), distinct)

        return score

    def _comparable(
        self,
        levels: npt.NDArray[np.int8],
        left: npt.NDArray[np.int64],
        right: npt.NDArray[np.int64],
    ) -> npt.NDArray[np.int64]:
        """Per pair, the fields besides the name both hold (`veto_view`); a pair
        whose own names its kind's gate keeps apart (`_NAME_GATES`: two titles that
        differ, two firms' roles), or two places' points (`_places_apart`), counts
        as holding all it needs: they show two things, not missing evidence. A
        catalogue whose titles were blank in 40% of rows chained a maker's laptops,
        mice and speakers through the untitled rows that held only the maker
        (products P 0.02): titled pairs sharing no other field could not veto; and
        towns of one name hundreds of kilometres apart joined through their copies
        holding the name alone (places with 40% of cells blank)."""
        out = np.asarray((levels[:, self._told_besides_name] > 0).sum(axis=1), dtype=np.int64)
        for f, column in enumerate(self.columns):
            gate = _NAME_GATES.get(column.spec.kind)
            if column.spec.name == NAME_FIELD and gate is not None:
                out[(levels[:, f] > 0) & (levels[:, f] < gate)] += VETO_MIN_FIELDS
            if column.spec.kind is FieldKind.COORDINATES and self.places_apart:
                out[self._places_apart(levels, f, left, right)] += VETO_MIN_FIELDS
        return out

    def _places_apart(
        self,
        levels: npt.NDArray[np.int8],
        f: int,
        left: npt.NDArray[np.int64],
        right: npt.NDArray[np.int64],
    ) -> npt.NDArray[np.bool_]:
        """Pairs whose points (field `f`) are more than `PLACES_APART_KM` apart,
        read part by part where a row holds half a point (`halves_apart`; places
        with 40% of cells blank: P 0.33 with the halves unread)."""
        apart = np.asarray(levels[:, f] == 1)
        half = np.flatnonzero(levels[:, f] == 0)
        apart[half] = halves_apart(self.columns[f], left[half], right[half], PLACES_APART_KM)
        return apart

    @functools.cached_property
    def _told_besides_name(self) -> list[int]:
        """The fields besides the entity's own name that tell anything (`_informative`):
        what a pair shares beyond its names (`_comparable`, `_title_tells`)."""
        return [
            f
            for f, c in enumerate(self.columns)
            if c.spec.name != NAME_FIELD and self._informative[f]
        ]

    @functools.cached_property
    def _informative(self) -> list[bool]:
        """Per field, whether it tells matches from strangers at all: the divergence
        of its trained m from u, sum of m * (log m - log u) over its levels, reaches
        `INFORMATIVE`. A column each record fills on its own (a status, a date of
        last update) has m as u: it counts as no field two records share for the
        veto, and a date of last update is no work's date."""
        out = []
        for lm, lu in zip(self.log_m, self.log_u, strict=True):
            m = np.exp(lm[1:])
            out.append(float((m * (lm[1:] - lu[1:])).sum()) >= INFORMATIVE)
        return out

    def __call__(
        self, left: npt.NDArray[np.int64], right: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float64]:
        """Match probability of arbitrary index pairs (the clustering's `PairScorer`)."""
        return self._scored(left, right)[1]

    def _scored(
        self, left: npt.NDArray[np.int64], right: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
        """Each pair's comparison levels and match probability: a field that tells
        nothing (`_informative`) is not compared, and reads as missing."""
        told = [f for f, informative in enumerate(self._informative) if informative]
        levels = _levels(self.columns, left, right, only=told)
        if not self.columns:
            return levels, np.zeros(len(left), dtype=np.float64)
        return levels, self._from_levels(levels, left, right)

    def _from_levels(
        self,
        levels: npt.NDArray[np.int8],
        left: npt.NDArray[np.int64],
        right: npt.NDArray[np.int64],
    ) -> npt.NDArray[np.float64]:
        """Match probability of pairs whose comparison levels are known; a field
        that tells nothing reads as missing, so candidates compared with it score as
        the pairs `_scored` compares without it (listings with seven own columns:
        comparing 2.06 -> 1.28 s, the engine 2.89 -> 1.97 s)."""
        levels = self._told_levels(levels)
        return self._gate(
            levels,
            _probability(self._log_factor(levels, left, right), self.prior_logit),
            left,
            right,
        )

    def _told_levels(self, levels: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
        """`levels` with the fields that tell nothing (`_informative`) read as
        missing; `levels` itself where every field tells something."""
        if all(self._informative):
            return levels
        return np.where(np.asarray(self._informative)[None, :], levels, 0).astype(np.int8)

    def _gate(
        self,
        levels: npt.NDArray[np.int8],
        probability: npt.NDArray[np.float64],
        left: npt.NDArray[np.int64],
        right: npt.NDArray[np.int64],
    ) -> npt.NDArray[np.float64]:
        """Probability 0 where the entity's own name is not close enough for its kind
        (`_NAME_GATES`; two organisations' names without three letters in common,
        `_names_apart`) or two works' years lie apart (`WORK_YEARS_APART`) -- unless
        the two hold one id number: one ISBN is one book however its title was
        retyped ("Code Book 2" / "Code Boko 2: A Novel") -- where they hold two ids
        (`ID_APART_M`), where their points on the map are far apart, or where both
        hold a generational suffix and the two differ ("Sr" / "Jr": a father and son
        of one name, home and line; `generations`)."""
        same_id = np.zeros(len(levels), dtype=bool)
        for f, column in enumerate(self.columns):
            if column.spec.kind is FieldKind.IDENTIFIER:
                same_id |= levels[:, f] == column.levels - 1
                if f not in self.unlearnt and np.exp(self.log_m[f][1]) <= ID_APART_M:
                    differ = np.flatnonzero(levels[:, f] == 1)
                    differ = differ[~self._own_fields_agree(levels[differ], f)]
                    apart = differ[codes_apart(column, left[differ], right[differ])]
                    probability = probability.copy()
                    probability[apart] = 0.0
        for f, column in enumerate(self.columns):
            marks = generations(column)
            if marks is not None:
                one, two = marks[left], marks[right]
                probability = np.where(
                    (one >= 0) & (two >= 0) & (one != two) & ~same_id, 0.0, probability
                )
            if column.spec.kind is FieldKind.COORDINATES and self.places_apart:
                # More than 50 km apart: two places, however alike the rest (namesake
                # towns; "Springfield" is in thirty-odd states).
                probability = np.where(self._places_apart(levels, f, left, right), 0.0, probability)
            gate = _NAME_GATES.get(column.spec.kind)
            if column.spec.name == NAME_FIELD and gate is not None:
                far = (levels[:, f] > 0) & (levels[:, f] < gate) & ~same_id
                if column.spec.kind is FieldKind.ORGANISATION_NAME:
                    different = (levels[:, f] == gate) & ~same_id
                    far |= _names_apart(column, different, probability, left, right)
                probability = np.where(far, 0.0, probability)
        if self._work:
            for f, column in enumerate(self.columns):
                if column.spec.kind in (FieldKind.YEAR, FieldKind.DATE) and self._informative[f]:
                    stamps = dated(column)
                    one, two = stamps[left], stamps[right]
                    years = np.abs(one // 10000 - two // 10000)
                    apart = (one >= 0) & (two >= 0) & (years > WORK_YEARS_APART) & ~same_id
                    probability = np.where(apart, 0.0, probability)
        if self.names_only:
            # Every name both records hold differs outright ("different", level 1):
            # with nothing but names to go on, nothing says they are one person.
            held = levels > 0
            differ = held.any(axis=1) & ((levels == 1) | ~held).all(axis=1)
            probability = np.where(differ, 0.0, probability)
        return probability

    def _both_named(self, levels: npt.NDArray[np.int8]) -> npt.NDArray[np.bool_]:
        """Per pair, whether both records hold the entity's own name. A work's or a
        product's row without its title holds what many of them share -- a maker, an
        author, a year -- and cannot tell which it is: its pairs start no join
        (`train`). A catalogue with 40% of its cells blank merged such rows into one
        of their maker's products (products P 0.0551, articles 0.5664; 1.0000 and
        0.9774 since, recall 0.235 -> 0.220, 0.593 -> 0.319). Not for people or
        organisations: a firm's row without its name is still told by its phone
        and street (restaurants with 40% blank: recall 0.54 -> 0.25 with the rule)."""
        named = [f for f, c in enumerate(self.columns) if c.spec.name == NAME_FIELD]
        return np.asarray((levels[:, named] > 0).all(axis=1))

    def _title_tells(
        self,
        levels: npt.NDArray[np.int8],
        left: npt.NDArray[np.int64],
        right: npt.NDArray[np.int64],
    ) -> npt.NDArray[np.bool_]:
        """Per pair of works, whether it may start a join (`train`): it shares a
        field besides the title, or its title is no common one -- held by more than
        `COMMON_TITLE` times the median number of rows a repeated title is held by
        (about one work's copies). Two rows holding only "Love Song" are as likely
        two of the eighteen songs so called as one (songs with 40% of cells blank:
        P 0.5068 -> 0.7549, recall unmoved). A file whose titles never repeat
        exactly has no common title (products: its copies' titles differ in their
        words; blocking title-only pairs cost its recall 0.8953 -> 0.5641)."""
        common = np.zeros(len(levels), dtype=bool)
        for column in self.columns:
            if column.spec.name != NAME_FIELD:
                continue
            held = column.codes >= 0
            counts = np.bincount(column.codes[held], minlength=1)
            repeated = counts[counts >= 2]
            if not len(repeated):
                continue
            rows = np.where(held, counts[np.maximum(column.codes, 0)], 0)
            bar = COMMON_TITLE * float(np.median(repeated))
            common |= np.maximum(rows[left], rows[right]) > bar
        return np.asarray((levels[:, self._told_besides_name] > 0).any(axis=1) | ~common)

    @property
    def _work(self) -> bool:
        """Whether these are works (`WORK_NAME_KINDS`): their own name is a title."""
        return any(
            c.spec.name == NAME_FIELD and c.spec.kind in WORK_NAME_KINDS for c in self.columns
        )

    def _own_fields_agree(
        self, levels: npt.NDArray[np.int8], id_field: int
    ) -> npt.NDArray[np.bool_]:
        """Per pair, whether every field besides `id_field` that describes one entity
        (not of `GROUP_KINDS`) and is held by both outweighs on its own the two ids'
        disagreement (its level's trained weight at least the ids' "different" weight
        turned round), one such field held at least. Two ids apart then do not keep
        the pair apart: the id is the field in error (retyped, or another record's
        number pasted in: FEBRL's registers, 4.5% of duplicates), and its weight
        counts as any field's does. A household's members differ in given name and
        birth date, twins in given name (unless as alike as a typo), a work's
        editions in their year: apart. A date one keying error off
        (`DATE_TYPO_LEVEL`) whose level speaks for the match at all, though weaker
        than the ids, does not keep the pair apart (FEBRL 4: +3.0 against -3.3, 7 of
        its 5,000 true pairs were): no twin or housemate differs so. Another field
        must still outweigh the ids, and a name a letter off may be a twin's, so
        names still have to outweigh them."""
        bar = float(self.log_u[id_field][1] - self.log_m[id_field][1])
        agree = np.zeros(len(levels), dtype=bool)
        against = np.zeros(len(levels), dtype=bool)
        for g, column in enumerate(self.columns):
            if g == id_field or column.spec.kind in GROUP_KINDS or not self._informative[g]:
                continue
            level = levels[:, g]
            weight = self.log_m[g] - self.log_u[g]
            outweighs = weight >= bar
            falls_short = ~outweighs
            if column.spec.kind is FieldKind.DATE and weight[DATE_TYPO_LEVEL] > 0.0:
                falls_short[DATE_TYPO_LEVEL] = False
            agree |= (level > 0) & outweighs[level]
            against |= (level > 0) & falls_short[level]
        return np.asarray(agree & ~against)

    def _log_factor(
        self,
        levels: npt.NDArray[np.int8],
        left: npt.NDArray[np.int64],
        right: npt.NDArray[np.int64],
    ) -> npt.NDArray[np.float64]:
        total = _BundledSum(len(left), self.bundles, self.dependences)
        for f, column in enumerate(self.columns):
            g = levels[:, f].astype(np.int64)
            weight = self.log_m[f] - self.log_u[f]
            part = weight[g]
            top = column.levels - 1
            exact = g == top
            if exact.any():
                # Term-frequency adjustment: agreeing on a value rarer than average
                # is stronger evidence, on a common one weaker (Splink's rule).
                # A pair read reversed holds the value on one side only.
                code = np.maximum(column.codes[left[exact]], column.codes[right[exact]])
                size = float(len(column.codes))
                average = float(np.exp(self.log_random_u[f]))
                freq = (column.frequency[code] * size + TF_PRIOR_RECORDS * average) / (
                    size + TF_PRIOR_RECORDS
                )
                adjustment = self.log_random_u[f] - np.log(freq)
                if column.spec.kind in IDENTIFYING_KINDS:
                    # An id number, phone or e-mail many records hold is mostly one
                    # entity's many copies: common through the duplicates themselves,
                    # not among different entities, as a surname or a town is. Only
                    # rarity counts (a person copied 21 times, one copy holding only
                    # the phone: -0.2 against the others, kept apart; people-us with
                    # 1% of its people copied 0.9871 -> 0.9990).
                    adjustment = np.maximum(adjustment, 0.0)
                part[exact] += adjustment
            total.add(f, part)
        return total.result(levels)


def _logged_tables(
    model: TrainedModel, names: Sequence[str]
) -> tuple[
    list[npt.NDArray[np.float64]], list[npt.NDArray[np.float64]], list[list[int]], list[Dependence]
]:
    """A logged model's m, u, bundles and dependences (`Tables`), fields by their
    index in `names`."""
    dependences = []
    for pair in model.dependent:
        first, second = cast("list[str]", pair["fields"])
        excess = np.asarray(pair["excess"], dtype=np.float64)
        dependences.append(Dependence(names.index(first), names.index(second), excess))
    return (
        [np.asarray(t, dtype=np.float64) for t in model.m],
        [np.asarray(t, dtype=np.float64) for t in model.u],
        [[names.index(name) for name in bundle] for bundle in model.bundles],
        dependences,
    )


def _names_apart(
    column: FieldColumn,
    different: npt.NDArray[np.bool_],
    probability: npt.NDArray[np.float64],
    left: npt.NDArray[np.int64],
    right: npt.NDArray[np.int64],
) -> npt.NDArray[np.bool_]:
    """Per pair, whether two organisations' own names, "different" (no level of
    closeness), have not three letters in common (`comparisons.names_apart`): the
    restaurants of one casino, the tenants of one building, whose address and phone
    agree and, weighed as independent fields, outweigh the names (Fodors-Zagat:
    precision 0.886 -> 0.948). Read only where the score is not 0 already."""
    out = np.zeros(len(different), dtype=bool)
    text = column.text
    for k in np.flatnonzero(different & (probability > 0.0)).tolist():
        out[k] = names_apart(str(text[left[k]]), str(text[right[k]]))
    return out


def _fits(model: TrainedModel, columns: Sequence[FieldColumn]) -> bool:
    """Whether `model` was trained on the same fields, kinds and levels as `columns`."""
    mine = [(f.get("name"), f.get("kind")) for f in model.fields]
    theirs = [(c.spec.name, c.spec.kind.value) for c in columns]
    return mine == theirs and [len(t) for t in model.m] == [c.levels for c in columns]


def _levels(
    columns: Sequence[FieldColumn],
    left: npt.NDArray[np.int64],
    right: npt.NDArray[np.int64],
    only: Collection[int] | None = None,
) -> npt.NDArray[np.int8]:
    """Each pair's level on each field (on the fields `only`, with the partners
    they are read with; the other columns stay 0)."""
    wanted = range(len(columns)) if only is None else sorted(only)
    out = np.zeros((len(left), len(columns)), dtype=np.int8)
    for f in wanted:
        out[:, f] = compare(columns[f], left, right)
    for f in wanted:
        column = columns[f]
        if column.reversed is not None:
            _read_reversed(out, f, column, columns[column.partner], left, right)
    for f in wanted:
        column = columns[f]
        if column.crossed is not None and column.spec.kind is FieldKind.FAMILY_NAME:
            _read_crossed(out, f, column, columns[column.cross_partner], left, right)
    return out


#: Levels both parts must reach crossed for a pair to be read crossed: Jaro-Winkler
#: 0.80 or better on each (family names, given names), not a shared initial
#: (people-au: 0.92 read a third as many swapped records, F1 0.9782 against 0.9791).
CROSSED_FAMILY_LEVEL, CROSSED_GIVEN_LEVEL = 2, 3


def _read_crossed(
    out: npt.NDArray[np.int8],
    f: int,
    family: FieldColumn,
    given: FieldColumn,
    left: npt.NDArray[np.int64],
    right: npt.NDArray[np.int64],
) -> None:
    """Levels of the pairs whose given and family names both differ as written and
    both agree with the other record's other part: one record has them swapped."""
    assert family.crossed is not None
    assert given.crossed is not None
    assert family.crossed_initials is not None
    assert given.crossed_initials is not None
    g = family.cross_partner
    n = len(family.codes)
    rows = np.flatnonzero((out[:, f] == 1) & (out[:, g] == 1))
    # Crossed, both parts start alike: the few pairs worth a string comparison.
    rows = rows[
        (family.crossed_initials[left[rows]] == family.crossed_initials[right[rows] + n])
        & (given.crossed_initials[left[rows]] == given.crossed_initials[right[rows] + n])
    ]
    if not len(rows):
        return
    as_family = compare(family.crossed, left[rows], right[rows] + n)
    as_given = compare(given.crossed, left[rows], right[rows] + n)
    crossed = (as_family >= CROSSED_FAMILY_LEVEL) & (as_given >= CROSSED_GIVEN_LEVEL)
    out[rows[crossed], f] = as_family[crossed]
    out[rows[crossed], g] = as_given[crossed]


def _read_reversed(
    out: npt.NDArray[np.int8],
    f: int,
    column: FieldColumn,
    other: FieldColumn,
    left: npt.NDArray[np.int64],
    right: npt.NDArray[np.int64],
) -> None:
    """Levels of the pairs where one record holds only `other`'s part and that value
    is like the second record's `column` part: read reversed, `column` takes that
    level and `other` is missing -- unless as written `other` already agrees at some
    level (a lone "Roberts" beside "Robert Jones" is a mistyped first name, not a
    surname)."""
    assert column.reversed is not None
    p = column.partner
    present, holds = column.codes >= 0, other.codes >= 0
    lone = holds & ~present
    rows = np.flatnonzero(
        ((lone[left] & present[right]) | (lone[right] & present[left])) & (out[:, p] <= 1)
    )
    if not len(rows):
        return
    reversed_levels = compare(column.reversed, left[rows], right[rows])
    similar = reversed_levels > 1
    rows = rows[similar]
    out[rows, f] = reversed_levels[similar]
    out[rows, p] = 0


def _probability(
    log_factor: npt.NDArray[np.float64], prior_logit: float
) -> npt.NDArray[np.float64]:
    z = np.clip(prior_logit + log_factor, -60.0, 60.0)
    return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)


def _keys(column: FieldColumn, transform: str) -> npt.NDArray[np.int64]:
    """Blocking keys; a name part's keys include the lone values written in the other
    part's column (`FieldColumn.reversed`)."""
    column = column.reversed or column
    if transform == "exact":
        return column.codes
    if transform == "alt":
        return column.alt
    if transform == "phonetic":
        return coded_per_value(column, phonetic)
    if transform == "family":
        assert column.family is not None
        return column.family
    if transform == "year":
        return coded_per_value(column, lambda t: t[:4])
    if transform == "initial":
        return coded_per_value(column, lambda t: t[:1])
    raise ValueError(transform)


def _combine(keys: Sequence[npt.NDArray[np.int64]]) -> npt.NDArray[np.int64]:
    """One key array equal exactly where all `keys` are equal; -1 where any is missing."""
    combined = keys[0].copy()
    missing = keys[0] < 0
    for k in keys[1:]:
        missing |= k < 0
        # One int64 per (combined, k) row, ordered as the rows are: the same codes
        # as a row-wise unique, several times faster.
        span = int(k.max()) + 2 if len(k) else 1
        _, combined = first_and_inverse((combined + 1) * span + (k + 1))
    combined[missing] = -1
    return combined


def _block_pairs(
    keys: npt.NDArray[np.int64],
    rank: npt.NDArray[np.int64] | None = None,
    max_block: int = MAX_BLOCK,
    rows: npt.NDArray[np.int64] | None = None,
) -> tuple[npt.NDArray[np.int64], int]:
    """Index pairs sharing a key, each low end first; (pairs, pair load).

    `keys[i]` belongs to entity `rows[i]` when `rows` is given (a list field: one
    key per value held), to entity `i` otherwise.

    A block over `max_block` is never paired all-to-all. Without `rank` it pairs
    nobody; with it, its members are sorted by `rank` (their name's sort order) and
    each is paired with its next `WINDOW` neighbours -- a sorted neighbourhood, so a
    676-record company still gets linked, at a linear cost. Whether those links
    hold is the model's and the clustering's call.
    """
    low, high, load = _block_ends(keys, rank, max_block, rows)
    return np.stack([low, high], axis=1), load


def _block_ends(
    keys: npt.NDArray[np.int64],
    rank: npt.NDArray[np.int64] | None = None,
    max_block: int = MAX_BLOCK,
    rows: npt.NDArray[np.int64] | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int]:
    """`_block_pairs` as (low ends, high ends, load): the rule choice turns them
    into pair codes without stacking them first."""
    empty = np.zeros(0, dtype=np.int64)
    present = np.flatnonzero(keys >= 0)
    if len(present) < 2:
        return empty, empty, 0
    order = present[stable_order(keys[present])]
    sorted_keys = keys[order]
    if rows is not None:
        order = rows[order]
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    ends = np.r_[starts[1:], len(order)]
    sizes = ends - starts
    chunks = [pairs_within(order, starts, sizes, max_block)]
    if rank is not None:
        chunks.extend(_neighbourhood_pairs(order, starts, sizes, max_block, rank))
    left = np.concatenate([c[0] for c in chunks])
    right = np.concatenate([c[1] for c in chunks])
    if not len(left):
        return empty, empty, 0
    if rows is not None:
        differ = left != right
        left, right = left[differ], right[differ]
    # Each pair low end first: two element-wise passes, not a row-wise sort.
    return np.minimum(left, right), np.maximum(left, right), len(left)


def _neighbourhood_pairs(
    order: npt.NDArray[np.int64],
    starts: npt.NDArray[np.int64],
    sizes: npt.NDArray[np.int64],
    max_block: int,
    rank: npt.NDArray[np.int64],
) -> list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]]:
    """Each member of every block over `max_block` paired with its next `WINDOW`
    neighbours in the block, the block sorted by `rank` (stably): every oversized
    block at once, a pass per step, not a sort and three stacks per block (the
    125k FEBRL-like point's rule choice 5.49 -> 5.23 s). (left, right) per step."""
    big = sizes > max_block
    if not big.any():
        return []
    block_starts, block_sizes = starts[big], sizes[big]
    block = np.repeat(np.arange(len(block_starts)), block_sizes)
    first = np.repeat(block_starts - (np.cumsum(block_sizes) - block_sizes), block_sizes)
    members = order[first + np.arange(len(block))]
    # By block, then by rank; ties keep the members' order (lexsort is stable).
    members = members[np.lexsort((rank[members], block))]
    out = []
    for step in range(1, WINDOW + 1):
        same = block[:-step] == block[step:]
        out.append((members[:-step][same], members[step:][same]))
    return out


def _candidate_rules(columns: Sequence[FieldColumn]) -> list[BlockingRule]:
    """Every rule worth trying: each field alone, name fields by phonetic key and
    first letter, dates by year, and every two fields together."""
    singles: list[tuple[tuple[int, str], str]] = []
    lists: list[BlockingRule] = []
    for f, column in enumerate(columns):
        name = column.spec.name
        kind = column.spec.kind
        if kind is FieldKind.LIST:
            # Any one shared value; alone only (a pair of values is rarely shared).
            lists.append(BlockingRule(((f, "item"),), f"any({name})"))
            continue
        if kind is FieldKind.TEXT:
            lists.append(BlockingRule(((f, "item"),), f"rare words({name})"))
        singles.append(((f, "exact"), f"{name}"))
        if kind in NAME_KINDS:
            singles.append(((f, "alt"), f"{name}~core"))
            singles.append(((f, "phonetic"), f"soundex({name})"))
            if kind is FieldKind.GIVEN_NAME:
                singles.append(((f, "initial"), f"initial({name})"))
            if column.family is not None:
                # A whole name's first word is the family name in "PRICE, Fred"
                # and the given name in "Fred Price", which one column may mix.
                singles.append(((f, "family"), f"soundex(family name of {name})"))
        if kind is FieldKind.DATE:
            singles.append(((f, "year"), f"year({name})"))
        if kind in (FieldKind.POSTCODE, FieldKind.EMAIL, FieldKind.WEBSITE):
            singles.append(((f, "alt"), f"{name}~part"))
        if kind is FieldKind.COORDINATES:
            singles.append(((f, "alt"), f"{name}~cell"))
    # A category alone (a trade, a sex) never identifies anything: only in pairs.
    rules = [
        BlockingRule((part,), label)
        for part, label in singles
        if columns[part[0]].spec.kind is not FieldKind.CATEGORY
    ]
    for (pa, la), (pb, lb) in itertools.combinations(singles, 2):
        if pa[0] != pb[0]:
            rules.append(BlockingRule((pa, pb), f"{la} & {lb}"))
    return rules + lists


#: A rule as `_measure` found it: (pair load, rank among the candidates, the rule,
#: its keys, its chain limit, the rows of a list field's keys).
_Measured = tuple[
    float, int, BlockingRule, "npt.NDArray[np.int64]", int, "npt.NDArray[np.int64] | None"
]


def _measure(
    rule: BlockingRule,
    order: int,
    columns: Sequence[FieldColumn],
    n: int,
    cache: dict[tuple[int, str], npt.NDArray[np.int64]],
) -> _Measured | None:
    """A rule's keys and pair load (`_choose_rules`), None when it is not worth trying:
    no pairs, or too few records in its ordinary blocks."""
    rows: npt.NDArray[np.int64] | None = None
    if rule.parts[0][1] == "item":
        column = columns[rule.parts[0][0]]
        assert column.item_rows is not None
        assert column.item_codes is not None
        rows, combined = column.item_rows, column.item_codes
    else:
        keys = []
        for part in rule.parts:
            if part not in cache:
                cache[part] = _keys(columns[part[0]], part[1])
            keys.append(cache[part])
        combined = keys[0] if len(keys) == 1 else _combine(keys)
    if not (combined >= 0).any():
        return None
    counts = np.bincount(combined[combined >= 0])
    identifies = _identifies(rule, columns)
    limit = _chain_from(identifies)
    small = counts[(counts > 1) & (counts <= limit)]
    large = counts[counts > limit]
    load = float((small * (small - 1) // 2).sum()) + float(WINDOW * large.sum())
    # Coverage counts ordinary blocks only: a key whose records sit mostly in
    # oversized blocks (an initial, a trade) says little, however cheap its
    # neighbourhood links would be -- unless it is an identifier.
    covered = float(counts[(counts > 1) & (counts <= MAX_BLOCK)].sum())
    if rows is not None:
        # Values held by several rows of one entity count that entity once.
        covered = float(
            len(
                np.unique(
                    rows[np.isin(combined, np.flatnonzero((counts > 1) & (counts <= MAX_BLOCK)))]
                )
            )
        )
    # A key few records share is still tried where most records holding it hold a
    # value of their own: a birth date or a phone in a file with few duplicates
    # pairs few records because few have a copy, and finds those at a few pairs'
    # cost (a FEBRL-like file with 1% of its people copied: R 0.965 -> 1.000; it
    # had been blocked on surname and town alone).
    held = float(counts.sum())
    selective = held >= RULE_COVERAGE * n and float((counts == 1).sum()) >= SELECTIVE_SHARE * held
    if load == 0 or (covered < RULE_COVERAGE * n and not identifies and not selective):
        return None
    return load, order, rule, combined, limit, rows


def _weighing_order(measured: Sequence[_Measured]) -> list[_Measured]:
    """Measured rules in the order `_choose_rules` weighs them: by pair load, a field's
    further keys (a postcode's area after the postcode, a surname's sound after the
    surname) after every field's first. Their new pairs are those the field's first
    key kept apart, where another field's key pairs records on agreement of its own:
    people-50k's postcode area, weighed before the surname by load, spent 496k pairs
    of the budget on 3% true ones, the surname 478k on 12%."""
    first: dict[int, float] = {}
    for load, _, rule, *_ in measured:
        if len(rule.parts) == 1:
            f = rule.parts[0][0]
            first[f] = min(first.get(f, load), load)
    return sorted(
        measured,
        key=lambda m: (len(m[2].parts) == 1 and m[0] > first[m[2].parts[0][0]], m[0], m[1]),
    )


def _choose_rules(
    columns: Sequence[FieldColumn],
    n: int,
    accepted: Callable[[BlockingRule, npt.NDArray[np.int64]], None] | None = None,
) -> tuple[list[BlockingRule], npt.NDArray[np.int64]]:
    """The most selective rules this data affords, and their distinct pairs, until
    the pair budget is spent.

    Rules are taken single fields first, each group from the most selective up (a
    rule's pair load is known from its block sizes before any pair is built). The
    budget counts distinct pairs: a rule whose pairs mostly repeat earlier rules'
    costs only its new ones. A combination containing a key already used alone
    pairs only a subset of it and is skipped.

    `accepted` is given each chosen rule's new pairs as it is chosen (no pair twice),
    so they can be compared while later rules are weighed.
    """
    budget = PAIRS_PER_ENTITY * max(n, 1)
    rank = _name_rank(columns)
    cache: dict[tuple[int, str], npt.NDArray[np.int64]] = {}
    chosen: list[BlockingRule] = []
    alone: set[tuple[int, str]] = set()
    seen: set[bytes] = set()
    # Keyings (and chain limits) found over the budget: the union only grows, so the
    # distinct pairs it would reach only grow and a keying refused once is refused
    # again -- a second rule grouping alike ("surname" and "surname~core" where no
    # surname has a title) is not built and weighed twice (people-50k: six of them).
    over: set[tuple[bytes, int]] = set()
    union = np.zeros(0, dtype=_code_type(n))
    # The union's pairs as (low ends, high ends), a batch per chosen rule
    # (`_new_at_least`).
    held: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]] = []
    # Rules the budget refused, in the order weighed: tried again on the records no
    # chosen rule paired (`_pair_the_unpaired`).
    refused: list[_Measured] = []
    rules = _candidate_rules(columns)
    # Singles are weighed before any combination, so a combination is measured only
    # once the singles are chosen, and not at all when it holds a key used alone:
    # people-50k's 171 candidates cost 0.75 s to measure, most of them combinations.
    for width in sorted({len(rule.parts) for rule in rules}):
        measured = [
            found
            for order, rule in enumerate(rules)
            if len(rule.parts) == width
            and not (width > 1 and any(p in alone for p in rule.parts))
            and (found := _measure(rule, order, columns, n, cache)) is not None
        ]
        for found in _weighing_order(measured):
            load, _, rule, combined, limit, rows = found
            if load > budget:
                # Past the whole budget even if none of its pairs were new.
                refused.append(found)
                continue
            # A transform that changes nothing on this data ("surname~core" where no
            # surname has a title) would pay for the same pairs twice.
            signature = (_canonical(combined) if rows is None else combined).tobytes()
            if signature in seen or (signature, limit) in over:
                continue
            if len(union) + load > budget and (
                _new_at_least(combined, limit, rows, held) > budget - len(union)
                or _over_budget(combined, rank, limit, rows, union, n, budget - len(union))
            ):
                over.add((signature, limit))
                refused.append(found)
                continue
            low, high, _ = _block_ends(combined, rank, limit, rows)
            fresh = _missing_from(union, _end_codes(low, high, n))
            if len(union) + len(fresh) > budget:
                over.add((signature, limit))
                refused.append(found)
                continue
            seen.add(signature)
            if len(fresh):
                new = _pairs_of(fresh, n)
                held.append((new[:, 0], new[:, 1]))
                if accepted is not None:
                    accepted(rule, new)
            # Two sorted runs: a stable sort (timsort) merges them in linear time.
            union = np.sort(np.concatenate([union, fresh]), kind="stable")
            chosen.append(rule)
            if len(rule.parts) == 1:
                alone.add(rule.parts[0])
    taken, union = _pair_the_unpaired(refused, columns, rank, union, n, budget)
    for rule, fresh in taken:
        if accepted is not None:
            accepted(rule, fresh)
        chosen.append(rule)
    return chosen, _pairs_of(union, n)


#: Kinds whose value alone many unrelated entities share by where or what they are:
#: a rule on one of them alone is not tried for the unpaired (`_pair_the_unpaired`).
#: fodors-zagat's city alone paired each restaurant listed once with its city's
#: others: P 0.9402 -> 0.9322, no true pair found.
PLACE_KINDS = frozenset(
    {
        FieldKind.LOCALITY,
        FieldKind.POSTCODE,
        FieldKind.ADDRESS,
        FieldKind.COORDINATES,
        FieldKind.CATEGORY,
    }
)


def _pair_the_unpaired(
    refused: Sequence[_Measured],
    columns: Sequence[FieldColumn],
    rank: npt.NDArray[np.int64],
    union: npt.NDArray[Any],
    n: int,
    budget: float,
) -> tuple[list[tuple[BlockingRule, npt.NDArray[np.int64]]], npt.NDArray[Any]]:
    """Rules the budget refused, each kept to the blocks of records no rule chosen
    so far paired with anyone, and their new pairs with at least one such record,
    while the budget lasts. Where every rule within it keys on one field (people-es
    at 50k: a phone, an id, the birth date, and the surnames each with the birth
    year), a copy holding none of those -- no date, its id mistyped -- was paired
    with nobody, whatever its three names said; the names' own rules, whole, were
    over the budget. Returns each rule taken (labelled so) with its new pairs, and
    the union grown by them."""
    paired = np.zeros(n, dtype=bool)
    ends = _pairs_of(union, n)
    paired[ends[:, 0]] = paired[ends[:, 1]] = True
    size = len(union)
    tried: set[bytes] = set()
    taken: list[tuple[BlockingRule, npt.NDArray[np.int64]]] = []
    for _, _, rule, combined, limit, rows in refused:
        room = budget - size
        if room < 1 or paired.all():
            break
        signature = _canonical(combined).tobytes()
        place = len(rule.parts) == 1 and columns[rule.parts[0][0]].spec.kind in PLACE_KINDS
        if rows is not None or place or signature in tried:
            continue
        tried.add(signature)
        lonely = ~paired & (combined >= 0)
        if not lonely.any():
            continue
        wanted = np.zeros(int(combined.max()) + 1, dtype=bool)
        wanted[combined[lonely]] = True
        keys = np.where((combined >= 0) & wanted[np.maximum(combined, 0)], combined, -1)
        low, high, _ = _block_ends(keys, rank, limit)
        keep = ~paired[low] | ~paired[high]
        fresh = _missing_from(union, _end_codes(low[keep], high[keep], n))
        if not len(fresh) or len(fresh) > room:
            continue
        union = np.sort(np.concatenate([union, fresh]), kind="stable")
        size = len(union)
        new = _pairs_of(fresh, n)
        paired[new[:, 0]] = paired[new[:, 1]] = True
        taken.append(
            (BlockingRule(rule.parts, f"{rule.label} (records no other rule paired)"), new)
        )
    return taken, union


#: A rule past the first is taken only when at least this share of a sample of its
#: new pairs would score as matches (`RuleJudge`). voters' last eight rules added 200k
#: of its 224k candidates and two of its 3,958 true pairs.
RULE_YIELD = 1e-3
#: New pairs of a rule scored to judge it.
JUDGE_SAMPLE = 2_000


class Refused(NamedTuple):
    """A batch `RuleJudge` refused: its sample's pairs and levels, and its size."""

    pairs: npt.NDArray[np.int64]
    levels: npt.NDArray[np.int8]
    size: int

    def standing(self, values: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """Per-pair `values` of the sample, each repeated so the sample counts as
        many pairs as the batch holds."""
        base, extra = divmod(self.size, max(1, len(self.pairs)))
        counts = np.full(len(self.pairs), base, dtype=np.int64)
        counts[:extra] += 1
        return np.repeat(values, counts, axis=0)


class RuleJudge:
    """Whether a chosen rule's new pairs are worth keeping: the share of a sample of
    them that would score as matches reaches `RULE_YIELD`.

    "As matches": a log Bayes factor (this data's m and u, bundles counted once) of at
    least the log odds against a match among the first rule's pairs -- the most
    selective rule's match rate, fitted as the candidates' prior is (`learn`) -- or
    log(n), the odds against a match between two records drawn at random, whichever
    is lower. Not log(n) alone: where a few firms fill thousands of records
    (patstat), u of an exact name is high and a true pair weighs ~e^2 (recall 0.71
    fell to 0.43).

    The sample is every k-th pair of the batch, so a verdict is the same whichever
    thread gives it and whether the whole batch was compared or only its sample:
    plans stay deterministic. `tables` gives m and u, waiting for the estimate;
    `estimated` says whether it is in, and `ready` whether a verdict can be given
    without waiting."""

    def __init__(self, n: int, tables: Callable[[], Tables], estimated: Callable[[], bool]):
        self._n = n
        self._tables = tables
        self._estimated = estimated
        self._weights: (
            tuple[list[npt.NDArray[np.float64]], Sequence[Sequence[int]], Sequence[Dependence]]
            | None
        ) = None
        self._bar = 0.0
        self._learnt = threading.Event()
        self._lock = threading.Lock()

    def ready(self) -> bool:
        return self._learnt.is_set() and self._estimated()

    @staticmethod
    def sample(count: int) -> slice:
        """The rows of a batch of `count` pairs the verdict reads."""
        step = max(1, count // JUDGE_SAMPLE)
        return slice(None, step * JUDGE_SAMPLE, step)

    @staticmethod
    def sampled_first(count: int) -> bool:
        """Whether a batch of `count` pairs is judged on its sample's levels before
        it is compared; a smaller one is judged from its own levels, its sample
        being most of it."""
        return count > 4 * JUDGE_SAMPLE

    @staticmethod
    def sample_levels(
        columns: Sequence[FieldColumn], fresh: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.int8]:
        """The levels of the `sample` rows of the batch `fresh`."""
        rows = fresh[RuleJudge.sample(len(fresh))]
        return _levels(columns, rows[:, 0], rows[:, 1])

    def learn(self, levels: npt.NDArray[np.int8]) -> None:
        """The bar, from the levels of the first rule's pairs."""
        m_tables, u_tables, bundles, dependences = self._tables()
        rate = _fit_prior(levels, m_tables, u_tables, bundles)
        with self._lock:
            self._weights = _log_factor_table(m_tables, u_tables), bundles, dependences
            self._bar = min(float(np.log(max(self._n, 2))), float(np.log((1 - rate) / rate)))
        self._learnt.set()

    def refusal(
        self, fresh: npt.NDArray[np.int64], sampled: npt.NDArray[np.int8]
    ) -> Refused | None:
        """The verdict on the batch `fresh`, from the levels of its `sample` rows:
        None where it is kept (waits for `learn`)."""
        self._learnt.wait()
        assert self._weights is not None
        factor = _sum_factors(sampled, *self._weights)
        if float((factor >= self._bar).mean()) >= RULE_YIELD:
            return None
        return Refused(fresh[self.sample(len(fresh))], sampled, len(fresh))


def _over_budget(
    combined: npt.NDArray[np.int64],
    rank: npt.NDArray[np.int64],
    limit: int,
    rows: npt.NDArray[np.int64] | None,
    union: npt.NDArray[np.int64],
    n: int,
    room: float,
) -> bool:
    """Whether a rule's new pairs certainly exceed `room`, told from its pairs among
    every `BUDGET_PROBE`-th entity, in the blocks paired all-to-all: those are a
    subset of its pairs (an oversized block's sorted neighbourhood is not, once
    thinned), so more new ones there than `room` refuses the rule exactly as building
    all of them would. Once the budget is nearly spent most rules tried are refused
    (people-50k: 39 of 64), and each cost a full build of up to millions of pairs."""
    owner = np.arange(len(combined)) if rows is None else rows
    present = combined >= 0
    counts = np.bincount(combined[present])
    keep = present & (owner % BUDGET_PROBE == 0)
    keep[keep] = counts[combined[keep]] <= limit
    low, high, _ = _block_ends(np.where(keep, combined, -1), rank, limit, rows)
    return len(_missing_from(union, _end_codes(low, high, n))) > room


def _new_at_least(
    combined: npt.NDArray[np.int64],
    limit: int,
    rows: npt.NDArray[np.int64] | None,
    held: Sequence[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]],
) -> int:
    """How many new pairs a rule adds to the union of `held` (pairs as ends) at
    least, told from its block sizes and the held pairs whose ends share its key,
    without building its pairs: a block paired all-to-all adds every pair not held,
    an oversized block's sorted neighbourhood at least its count less the held pairs
    inside the block. More than the room refuses the rule exactly as building it
    would; at 50k records the rules refused that way were built whole first, ~6M of
    the 15M pairs people-50k's choice built. 0 for a list field's rule (a record's
    keys are several)."""
    if rows is not None:
        return 0
    present = combined >= 0
    if not present.any():
        return 0
    counts = np.bincount(combined[present])
    small = counts[(counts > 1) & (counts <= limit)]
    large = counts[counts > limit]
    steps = np.arange(1, WINDOW + 1)
    linked = int(np.maximum(large[:, None] - steps[None, :], 0).sum())
    inside_small = inside_large = 0
    for low, high in held:
        key = combined[low]
        same = key[(key >= 0) & (key == combined[high])]
        sizes = counts[same]
        inside = int((sizes <= limit).sum())
        inside_small += inside
        inside_large += len(sizes) - inside
    return int((small * (small - 1) // 2).sum()) - inside_small + max(linked - inside_large, 0)


def _code_type(n: int) -> type[np.unsignedinteger[Any]] | type[np.signedinteger[Any]]:
    """The narrowest type a pair's code `left * n + right` fits: uint32 below 65,536
    entities, whose sorts (most of choosing the rules) run ~1.7x as fast as int64's."""
    return np.uint32 if n * n <= np.iinfo(np.uint32).max else np.int64


def _pair_codes(pairs: npt.NDArray[np.int64], n: int) -> npt.NDArray[Any]:
    return _end_codes(pairs[:, 0], pairs[:, 1], n)


def _end_codes(
    left: npt.NDArray[np.int64], right: npt.NDArray[np.int64], n: int
) -> npt.NDArray[Any]:
    """Each pair (left[k], right[k]) as one code `left * n + right` (`_code_type`)."""
    return (left * n + right).astype(_code_type(n))


def _pairs_of(codes: npt.NDArray[Any], n: int) -> npt.NDArray[np.int64]:
    """The (left, right) pairs of `_pair_codes`."""
    wide = codes.astype(np.int64)
    return np.stack([wide // max(n, 1), wide % max(n, 1)], axis=1)


def _missing_from(union: npt.NDArray[Any], codes: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The distinct `codes` not in the sorted, distinct `union` (sorting, not hashing:
    numpy's hashed unique is many times slower on millions of int64)."""
    codes = np.sort(codes)
    codes = codes[np.r_[True, codes[1:] != codes[:-1]]] if len(codes) else codes
    if not len(union):
        return codes
    at = np.searchsorted(union, codes)
    found = union[np.minimum(at, len(union) - 1)] == codes
    return np.asarray(codes[~found])


def _identifies(rule: BlockingRule, columns: Sequence[FieldColumn]) -> bool:
    """A rule on one identifier-like field (a phone, an email, an id number): its
    oversized blocks are big entities sharing one identifier, not a weak key shared
    by many, so their sorted neighbourhoods are worth linking."""
    return len(rule.parts) == 1 and columns[rule.parts[0][0]].spec.kind in IDENTIFYING_KINDS


def _chain_from(identifies: bool) -> int:
    """Block size from which a rule's blocks are linked by sorted neighbourhood.

    Equal identifiers name one entity, so linking each record to its next `WINDOW`
    neighbours connects the whole block for the clustering, which scores the rest
    on demand: an identifier rule then costs ~`WINDOW` pairs a record and always
    fits the pair budget, however large its entities are.
    """
    return WINDOW + 1 if identifies else MAX_BLOCK


def _name_rank(columns: Sequence[FieldColumn]) -> npt.NDArray[np.int64]:
    """Each entity's position when sorted by its first name-like field's text."""
    named = [c for c in columns if c.spec.kind in NAME_KINDS] or list(columns)
    text = named[0].text
    order = np.argsort(np.asarray([str(t) for t in text], dtype=object), kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


def _canonical(keys: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Keys renumbered by first appearance: equal exactly when two keyings group alike."""
    first, inverse = first_and_inverse(keys + 1)  # -1 (missing) packs as 0
    rank = np.argsort(np.argsort(first))
    out = rank[inverse].astype(np.int64)
    out[keys < 0] = -1
    return out


def _random_pair_blocks(
    n: int, count: int, seed: int
) -> list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]]:
    """About `count` uniform random pairs in `U_SAMPLE_BLOCKS` blocks, each the cross
    product of two disjoint random samples of the records: a block is a matrix of a
    few hundred values a side, which `comparisons` scores by `cdist` (people-export-
    5k: u ~30% faster than from a pair list), and several blocks keep any one
    record's weight in the sample small (one block of 448 x 448 moved people-names-
    5k's F1 twice as much from seed to seed)."""
    rng = np.random.default_rng(seed)
    side = math.isqrt(max(1, count // U_SAMPLE_BLOCKS) - 1) + 1
    if 2 * side > n:
        left = rng.integers(0, n, size=count)
        right = rng.integers(0, n, size=count)
        keep = left != right
        return [(left[keep], right[keep])]
    blocks = []
    for _ in range(U_SAMPLE_BLOCKS):
        chosen = rng.choice(n, size=2 * side, replace=False).astype(np.int64)
        blocks.append((np.repeat(chosen[:side], side), np.tile(chosen[side:], side)))
    return blocks


def _prior_m(levels: int, kind: FieldKind | None = None) -> npt.NDArray[np.float64]:
    """Generic m before EM: most matches agree exactly, the rest spread below; an id
    number differs outright only where it was mistyped beyond one edit
    (`M_PRIOR_ID_DIFFERS`)."""
    m = np.zeros(levels, dtype=np.float64)
    rest = 1.0 - M_PRIOR_EXACT
    below = levels - 2
    m[1 : levels - 1] = rest / max(1, below)
    if kind is FieldKind.IDENTIFIER and below > 1:
        m[1] = M_PRIOR_ID_DIFFERS
        m[2 : levels - 1] = (rest - M_PRIOR_ID_DIFFERS) / (below - 1)
    m[levels - 1] = M_PRIOR_EXACT
    return m


def _prior_u(levels: int) -> npt.NDArray[np.float64]:
    """Generic u before data: random pairs rarely agree exactly, seldom closely."""
    u = np.zeros(levels, dtype=np.float64)
    u[2:] = U_PRIOR_CLOSE
    u[levels - 1] = U_PRIOR_EXACT
    u[1] = 1.0 - u[2:].sum()
    return u


def _monotone(weight: npt.NDArray[np.float64], start: int = 1) -> npt.NDArray[np.float64]:
    """A closer level is never weaker evidence than a looser one (pool violators),
    from level `start` up (the levels below it are not steps of closeness)."""
    out = weight.copy()
    out[start:] = np.maximum.accumulate(out[start:])
    return out


def _log_factor_table(
    m_tables: Sequence[npt.NDArray[np.float64]], u_tables: Sequence[npt.NDArray[np.float64]]
) -> list[npt.NDArray[np.float64]]:
    out = []
    for m, u in zip(m_tables, u_tables, strict=True):
        w = np.zeros(len(m))
        w[1:] = np.log(np.maximum(m[1:], FLOOR)) - np.log(u[1:])
        out.append(w)
    return out


def _sum_factors(
    levels: npt.NDArray[np.int8],
    weights: Sequence[npt.NDArray[np.float64]],
    bundles: Sequence[Sequence[int]] = (),
    dependences: Sequence[Dependence] = (),
) -> npt.NDArray[np.float64]:
    total = _BundledSum(len(levels), bundles, dependences)
    for f, w in enumerate(weights):
        total.add(f, w[levels[:, f].astype(np.int64)])
    return total.result(levels)


class _BundledSum:
    """Each pair's log factor, added field by field: a bundle's agreements count
    once, as its strongest; its disagreements each count; a dependent pair's joint
    agreement loses what it over-counts (`Dependence`). Kept as one running sum
    and one running best per bundle, not a pairs-by-fields matrix (people-50k scores
    2M candidates)."""

    def __init__(
        self,
        pairs: int,
        bundles: Sequence[Sequence[int]],
        dependences: Sequence[Dependence] = (),
    ) -> None:
        self._total = np.zeros(pairs, dtype=np.float64)
        self._bundle_of = {f: k for k, bundle in enumerate(bundles) for f in bundle}
        self._best = [np.zeros(pairs, dtype=np.float64) for _ in bundles]
        self._dependences = dependences

    def add(self, f: int, part: npt.NDArray[np.float64]) -> None:
        k = self._bundle_of.get(f)
        if k is None:
            self._total += part
        else:
            self._total += np.minimum(part, 0.0)
            np.maximum(self._best[k], part, out=self._best[k])

    def result(self, levels: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        for best in self._best:
            self._total += best
        for first, second, excess in self._dependences:
            self._total -= excess[
                levels[:, first].astype(np.int64), levels[:, second].astype(np.int64)
            ]
        return self._total


def _distribution(counts: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Weighted level counts as probabilities over the levels past "missing", floored."""
    out = np.zeros(len(counts))
    out[1:] = np.maximum(counts[1:] / counts[1:].sum(), FLOOR)
    return out


def _distinct_rows(
    levels: npt.NDArray[np.int8],
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
    """The distinct rows of `levels` and how many times each occurs. Each row is
    packed into one integer where its levels fit 63 bits (numpy's unique of rows
    sorts them as bytes, 15 times slower on 50k rows)."""
    if not len(levels):
        return levels, np.zeros(0)
    bits = max(1, int(levels.max()).bit_length())
    if bits * levels.shape[1] > 63:
        rows, counts = np.unique(levels, axis=0, return_counts=True)
        return rows, counts.astype(np.float64)
    packed = np.zeros(len(levels), dtype=np.int64)
    for f in range(levels.shape[1]):
        packed = (packed << bits) | levels[:, f].astype(np.int64)
    _, first, counts = np.unique(packed, return_index=True, return_counts=True)
    return levels[first], counts.astype(np.float64)


#: One EM session as `_em_sessions` keeps it: the field it blocked on, the matches it
#: found, its m per field, and whether it found groups rather than entities
#: (`_doubtful`; None: nothing to judge by).
_Session = tuple[int, float, "list[npt.NDArray[np.float64]]", "bool | None"]


def _em_sessions(
    columns: Sequence[FieldColumn],
    u_tables: Sequence[npt.NDArray[np.float64]],
    m_tables: list[npt.NDArray[np.float64]],
) -> tuple[list[npt.NDArray[np.float64]], int, list[list[int]], list[int]]:
    """m by expectation-maximisation, u held at its random-pair estimate.

    Each session takes the pairs that agree exactly on one selective field (the ones
    random pairs agree on least, chosen from this data; a title's pairs share one of
    its rarest words) -- mostly matches -- and learns m for every *other* field. A
    field's final m averages the sessions that did not block on it, weighted by how
    many matches each session found.

    Every field takes its m only from sessions blocked on a field that describes one
    entity (not of `GROUP_KINDS`), when there is one: a session blocked on an address
    takes a household's members for matches and learns that their birth dates and
    id numbers often differ (people-homes: m(date differs) 0.36 there, 0.03 in the
    session blocked on the id number); one blocked on a firm's switchboard number
    takes colleagues for matches and learns that surnames differ (a contact list:
    m(surname differs) 0.61, precision 0.85).

    A session whose matches disagree on each such field nearly as often as random
    pairs do (`SESSION_DOUBT`) found a group, not an entity: blocked on the company
    or switchboard of a contact list with no e-mail column, EM called three in four
    colleagues one person (precision 0.22). It is not used when another session's
    matches do agree on such a field; with none to judge by, every session is kept.
    What a doubtful session's matches share is a bundle (`_bundles`). When every
    session is doubtful, none found an entity: the records hold no duplicates this
    data can show, and what EM learnt is what a group shares (a file of 5,156 people,
    one record each: "matches" were pairs of one trade and sex, m of a differing id
    number 1.0, and 3,037 records merged into others). m is then the prior for every
    field (their scores then show no two bumps: the cautious bar). A session whose
    EM finds fewer than `SESSION_MIN_MATCHES` matches is not counted: its field
    pairs strangers by chance. Where fewer than two counted sessions are on fields
    of one entity, more are run (`_own_short`), and a session on a group's field
    whose matches differ from theirs is doubtful too (`_beside_own`). Returns (m, EM
    rounds, bundles, the fields no session learnt).
    """
    ranked = sorted(
        (
            # A list field's session pairs entities sharing a rare value: ranked by
            # how often random pairs do that.
            (float(u_tables[f][3:].sum() if c.spec.kind is FieldKind.LIST else u_tables[f][-1]), f)
            for f, c in enumerate(columns)
            if float((c.codes >= 0).mean()) >= 0.3 and c.spec.kind is not FieldKind.CATEGORY
        )
    )
    learnt: list[_Session] = []
    # Every session run, by its place in the ranking.
    every: list[tuple[int, _Session]] = []
    rounds_total = 0
    empty = 0
    own_fields = [f for _, f in ranked if columns[f].spec.kind not in GROUP_KINDS]
    judging = _judging(columns, u_tables)
    # Fields blocked on by the sessions run past the usual ones (`_own_short`).
    extra: set[int] = set()
    for tried, (_, blocked) in enumerate(ranked):
        if _sessions_enough(tried - empty, learnt):
            if len(extra) >= TRAINING_SESSIONS or not _own_short(columns, own_fields, learnt):
                break
            if blocked not in own_fields:
                continue
            extra.add(blocked)
        pairs, _ = _session_pairs(columns[blocked])
        if len(pairs) < 10:
            continue
        # A sampled session's matches count as many as its whole would find.
        share = 1.0
        if len(pairs) > SESSION_PAIRS:
            rng = np.random.default_rng(blocked)
            share = len(pairs) / SESSION_PAIRS
            pairs = pairs[np.sort(rng.choice(len(pairs), SESSION_PAIRS, replace=False))]
        # A pair's posterior depends only on its levels: EM runs over the distinct
        # rows of levels, each weighed by how many pairs hold it (songs' sessions:
        # 50k pairs each, a few hundred distinct rows).
        levels, held = _distinct_rows(_levels(columns, pairs[:, 0], pairs[:, 1]))
        m_local = [t.copy() for t in m_tables]
        prior = 0.5
        matched = np.zeros(len(levels))
        for _ in range(EM_ROUNDS):
            weights = _log_factor_table(m_local, u_tables)
            weights[blocked] = np.zeros(len(weights[blocked]))
            matched = held * _probability(
                _sum_factors(levels, weights), float(np.log(prior / (1 - prior)))
            )
            rate = float(matched.sum()) / len(pairs)
            moved = abs(rate - prior)
            prior = float(np.clip(rate, 1e-6, 1 - 1e-6))
            for f, column in enumerate(columns):
                if f == blocked:
                    continue
                use = levels[:, f] > 0
                counts = np.bincount(
                    levels[use, f], weights=matched[use], minlength=column.levels
                ).astype(np.float64)
                if counts[1:].sum() <= 0:
                    continue
                new = _distribution(counts)
                moved = max(moved, float(np.abs(new - m_local[f]).max()))
                m_local[f] = new
            rounds_total += 1
            if moved < EM_TOLERANCE:
                break
        session = (
            blocked,
            float(matched.sum()) * share,
            m_local,
            _doubtful(columns, blocked, m_local, u_tables, judging),
        )
        every.append((tried, session))
        if session[1] < SESSION_MIN_MATCHES:
            # A field whose exact agreements are rare among copies as among strangers
            # (a free-text note, a record's own date of update) pairs a few strangers
            # by chance; the match or two EM finds there taught people-us-10k with
            # ten such columns that m(names differ) is 0 (R 0.9989 -> 0.9220; thirty
            # columns: 0.1963), and people-au's 2,000 records with seven kept only
            # such sessions (R 0.9945 -> 0.7271). The next field is tried instead.
            empty += 1
        else:
            learnt.append(session)
    learnt = _beside_own(columns, judging, learnt)
    if all(doubtful is True for *_, doubtful in learnt):
        # Every session of `SESSION_MIN_MATCHES` found a group, as in a file of a
        # dozen records whose copies make 18 pairs (three people merged into one
        # where the sessions on the columns all twelve share counted alone): every
        # session counts as it comes.
        learnt = []
        for tried, session in every:
            if _sessions_enough(tried, learnt):
                break
            learnt.append(session)
    bundles = _bundles(columns, [(b, m) for b, _, m, doubtful in learnt if doubtful])
    if learnt and all(doubtful is True for *_, doubtful in learnt):
        priors = [_unlearnt_m(m_tables[f], u_tables[f], c.spec.kind) for f, c in enumerate(columns)]
        return priors, rounds_total, bundles, list(range(len(columns)))
    # Doubtful sessions step aside only for one that showed it found entities.
    if any(doubtful is False for *_, doubtful in learnt):
        learnt = [session for session in learnt if not session[3]]
    sums: list[npt.NDArray[np.float64]] = [np.zeros(c.levels) for c in columns]
    # The same sums over the sessions blocked on a field that describes one entity.
    own_sums: list[npt.NDArray[np.float64]] = [np.zeros(c.levels) for c in columns]
    # ...and over the extra sessions, for a field no other session learnt: read
    # first, their m moved the 53 bench files' F1 both ways (contacts 0.9933 ->
    # 0.9425: the first-name session's namesakes said a surname may differ).
    extra_sums: list[npt.NDArray[np.float64]] = [np.zeros(c.levels) for c in columns]
    for blocked, matches, m_local, _ in learnt:
        own = columns[blocked].spec.kind not in GROUP_KINDS
        for f in range(len(columns)):
            if f == blocked:
                continue
            if blocked in extra:
                extra_sums[f] += matches * m_local[f]
                continue
            sums[f] += matches * m_local[f]
            if own:
                own_sums[f] += matches * m_local[f]
    out = []
    unlearnt = []
    for f in range(len(columns)):
        if own_sums[f][1:].sum() > 0:
            out.append(_distribution(own_sums[f]))
        elif sums[f][1:].sum() > 0:
            out.append(_distribution(sums[f]))
        elif extra_sums[f][1:].sum() > 0:
            out.append(_distribution(extra_sums[f]))
        else:
            out.append(_unlearnt_m(m_tables[f], u_tables[f], columns[f].spec.kind))
            unlearnt.append(f)
    return out, rounds_total, bundles, unlearnt


def _beside_own(
    columns: Sequence[FieldColumn],
    judging: Sequence[int],
    learnt: list[_Session],
) -> list[_Session]:
    """`learnt`, a session blocked on a group's field called doubtful where its
    matches differ on more than half the fields that describe one entity
    `GROUP_EXCESS` more often than those of a session blocked on another such field.

    The fields compared are those that judge `_doubtful` (`judging`). It compares
    a session's matches with strangers, which a household's
    members are not: on a voter roll the street session's matches differed in first
    name 0.42 of the time against 1.00 among random pairs -- not doubtful -- and 0.00
    in the sessions on given and middle name. Most fields, not one: in a small file
    one session's matches may agree on a middle name by chance (people-forms' 200
    records: the given-name session 0.05 where copies differ in it 0.68)."""
    own = [
        (b, m)
        for b, _, m, doubtful in learnt
        if doubtful is False and columns[b].spec.kind not in GROUP_KINDS
    ]
    if not own:
        return learnt
    out = []
    for blocked, matches, m, doubtful in learnt:
        if doubtful is False and columns[blocked].spec.kind in GROUP_KINDS:
            excess = []
            for f in judging:
                reference = [float(mo[f][1]) for b, mo in own if b != f]
                if f != blocked and reference:
                    excess.append(float(m[f][1]) - min(reference) > GROUP_EXCESS)
            doubtful = 2 * sum(excess) > len(excess)
        out.append((blocked, matches, m, doubtful))
    return out


def _own_short(
    columns: Sequence[FieldColumn],
    own: Sequence[int],
    learnt: Sequence[_Session],
) -> bool:
    """Whether fewer sessions blocked on a field that describes one entity counted
    than two (or than the ranking holds): the one that did leaves its own field to
    learn from the sessions on a group's fields, and `_beside_own` has nothing to
    judge them by. A voter roll whose first names are a fifth initials ranks street,
    surname and phone first, all three a household's: their m said matches differ
    in first name 0.40, age 0.27, sex 0.22 of the time, and households merged (P
    0.60). The next fields of one entity in the ranking are then tried, up to
    `TRAINING_SESSIONS` more; their m is used only for a field no other session
    learnt, as the group sessions they unseat leave it."""
    done = sum(1 for blocked, *_ in learnt if columns[blocked].spec.kind not in GROUP_KINDS)
    return done < min(2, len(own))


def _sessions_enough(rank: int, learnt: Sequence[_Session]) -> bool:
    """Whether `_em_sessions` stops before its session at `rank` (among those that
    count): after `TRAINING_SESSIONS`, unless every session so far found a group --
    the next field in the ranking is then tried, up to twice as many: a roll whose
    rarest fields are a household's learns from its given names only so."""
    if rank >= 2 * TRAINING_SESSIONS:
        return True
    return rank >= TRAINING_SESSIONS and any(doubtful is not True for *_, doubtful in learnt)


def _bundles(
    columns: Sequence[FieldColumn],
    groups: Sequence[tuple[int, Sequence[npt.NDArray[np.float64]]]],
) -> list[list[int]]:
    """Fields that travel together: for each session that found a group (blocked on
    a field, its m), the group's kinds of field its matches agree on exactly
    (`BUNDLE_SHARE`), beside the field it blocked on when that is of a group's kind;
    bundles that share a field are one.

    Fellegi-Sunter adds the fields' evidence as if independent; a household's
    members agree on surname, street, town, postcode and landline at once, and a
    voter roll without an id number merged whole households (precision 0.46): five
    strong agreements outweighed two given names that differ. A bundle's agreements
    count once, as its strongest."""
    bundles: list[set[int]] = []
    for blocked, m in groups:
        bundle = {blocked} if columns[blocked].spec.kind in GROUP_KINDS else set()
        bundle |= {
            f
            for f, c in enumerate(columns)
            if f != blocked
            and c.spec.kind in GROUP_KINDS
            and c.spec.name != NAME_FIELD
            and float(m[f][-1]) >= BUNDLE_SHARE
        }
        for joined in [b for b in bundles if b & bundle]:
            bundle |= joined
            bundles.remove(joined)
        if len(bundle) > 1:
            bundles.append(bundle)
    return [sorted(b) for b in bundles]


def _dependence_fields(
    columns: Sequence[FieldColumn], bundles: Sequence[Sequence[int]], n: int
) -> tuple[list[int], list[int]] | None:
    """The group fields `_dependences` pairs (a bundle's and categories left out),
    and the fields that describe one entity, which tell strangers; None where there
    is nothing to read (fewer than two of either, or of records)."""
    bundled = {f for bundle in bundles for f in bundle}
    group = [
        f
        for f, c in enumerate(columns)
        if c.spec.kind in GROUP_KINDS and c.spec.kind is not FieldKind.CATEGORY and f not in bundled
    ]
    own = [f for f, c in enumerate(columns) if c.spec.kind not in GROUP_KINDS]
    return (group, own) if len(group) >= 2 and len(own) >= 2 and n >= 2 else None


class _DependenceSample:
    """The random pairs' levels `_dependences` reads, computed once by whichever
    thread asks first: the estimate's, or the choosing thread when it is done first
    and would only wait for the estimate (a small workspace with many fields:
    names and seven columns of their own at 2,000 records waited 0.45 s, most of it
    these 200k pairs compared). The same pairs either way (`seed`)."""

    def __init__(self, columns: Sequence[FieldColumn], n: int, seed: int) -> None:
        self._columns, self._n, self._seed = columns, n, seed
        self._lock = threading.Lock()
        self._levels: npt.NDArray[np.int8] | None = None

    def needed(self) -> bool:
        """Whether `_dependences` may read it (before bundles leave fields out)."""
        return _dependence_fields(self._columns, (), self._n) is not None

    def __call__(self) -> npt.NDArray[np.int8]:
        with self._lock:
            if self._levels is None:
                # Uniform pairs, not u's blocks (`_random_pair_blocks`): a block pairs
                # a few hundred records among themselves, and a cell's count must be
                # a population's.
                rng = np.random.default_rng(self._seed)
                left = rng.integers(0, self._n, DEPENDENCE_PAIRS)
                right = rng.integers(0, self._n, DEPENDENCE_PAIRS)
                distinct = left != right
                self._levels = _levels(self._columns, left[distinct], right[distinct])
            return self._levels


def _dependences(
    columns: Sequence[FieldColumn],
    n: int,
    bundles: Sequence[Sequence[int]],
    u_tables: Sequence[npt.NDArray[np.float64]],
    sample: Callable[[], npt.NDArray[np.int8]],
) -> list[Dependence]:
    """Pairs of group fields (`GROUP_KINDS`) that agree together among strangers
    far more often than apart (`DEPENDENCE_LIFT`), each with its over-count per pair
    of levels: log of the joint rate over the product of the two rates, floored at
    0 (only ever discounting), where both agree.

    Read among random pairs surely of two entities: every field describing one
    entity that both hold differs outright, two such fields at least. All random
    pairs would not do: true duplicates agree on everything, and an id number ~
    postcode read 876 on a set with few duplicates. A set with few duplicates is
    where this counts: 1% of identities copied, strangers of one town and postcode
    area merged (town +4.9 and area +4.9 outweighing two names that differ), F1
    0.965 against Splink's 0.985.

    The pairs kept form a forest (strongest first, Chow-Liu's way): street, postcode
    and town all agreeing are two discounts, not three that would take the street's
    evidence twice. A bundle's fields (`_bundles`) already count once and are left
    out.

    No over-count exceeds what dependence can explain: two fields agree together
    among random pairs at most as often as the likelier of the two agrees alone, so
    the excess is at most minus the log of that one's u. A small workspace's
    strangers hold copies (a name in kanji and in romaji differs outright): 200
    Japanese records read postcode ~ phone 7.2 where exact phones' u allows 3.1, and
    copies agreeing on name, address, postcode and phone scored -2.8."""
    fields = _dependence_fields(columns, bundles, n)
    if fields is None:
        return []
    group, own = fields
    levels = sample()
    held = (levels[:, own] > 0).sum(axis=1)
    strangers = levels[(held >= 2) & ((levels[:, own] == 1).sum(axis=1) == held)]
    found: list[tuple[float, Dependence]] = []
    for f, g in itertools.combinations(group, 2):
        both = (strangers[:, f] > 0) & (strangers[:, g] > 0)
        total = int(both.sum())
        if total < DEPENDENCE_MIN_HELD:
            continue
        joint = np.zeros((columns[f].levels, columns[g].levels))
        np.add.at(
            joint, (strangers[both, f].astype(np.int64), strangers[both, g].astype(np.int64)), 1.0
        )
        apart = np.outer(joint.sum(axis=1), joint.sum(axis=0)) / total
        # Agreeing is any level above "different" (1); the joint rate is read beside
        # the rate independence gives, weighed as `U_PRIOR_PAIRS` pairs.
        together = (joint + U_PRIOR_PAIRS * apart / total) * total / (total + U_PRIOR_PAIRS)
        lift = float(together[2:, 2:].sum() / max(apart[2:, 2:].sum(), FLOOR))
        if lift < DEPENDENCE_LIFT or joint[2:, 2:].sum() < DEPENDENCE_MIN_JOINT:
            continue
        excess = np.zeros_like(joint)
        read = joint[2:, 2:] >= DEPENDENCE_MIN_CELL
        excess[2:, 2:][read] = np.maximum(np.log(together[2:, 2:][read] / apart[2:, 2:][read]), 0.0)
        likelier = np.maximum.outer(u_tables[f][2:], u_tables[g][2:])
        excess[2:, 2:] = np.minimum(excess[2:, 2:], -np.log(np.maximum(likelier, FLOOR)))
        if excess.any():
            found.append((lift, Dependence(f, g, excess)))
    # Kruskal's forest over the fields, a bundle being one node already joined.
    root = list(range(len(columns)))

    def top(f: int) -> int:
        while root[f] != f:
            f = root[f]
        return f

    for bundle in bundles:
        for f in bundle[1:]:
            root[top(f)] = top(bundle[0])
    kept = []
    for _, dependence in sorted(found, key=lambda t: (-t[0], t[1].first, t[1].second)):
        a, b = top(dependence.first), top(dependence.second)
        if a != b:
            root[a] = b
            kept.append(dependence)
    return kept


def _doubtful(
    columns: Sequence[FieldColumn],
    blocked: int,
    m: Sequence[npt.NDArray[np.float64]],
    u: Sequence[npt.NDArray[np.float64]],
    judging: Sequence[int],
) -> bool | None:
    """Whether a session's matches disagree on every field that describes one entity
    (but the one it blocked on) more than `SESSION_DOUBT` times as often as random
    pairs do: no such field tells its matches from strangers. Or on an id number
    alone more than `ID_DOUBT` times: an id names one entity (a person has several
    phones and addresses, not passports), so matches that differ in it are a wider
    thing -- a book's editions, sharing title and authors, in a session blocked on
    the authors (a catalogue's m(ISBN differs) was 0.76 there); namesakes, in one
    blocked on the full name (0.27 among 600 households, whose members then merged).

    With no such field, a family name judges: a household shares it, so matches
    that do not agree on it more than half as often as strangers found neither
    people nor households -- on first names and surnames alone, a session blocked
    on the first name took every "William" for one person (m of a differing surname
    0.998, random pairs 0.996) and a file of 5,156 people, one record each, merged
    4,340 into chains. None when there is no field to judge by.

    The fields that judge are `judging` (`_judging`). A session blocked on a name
    part is judged by a field beyond the names when there is one: its matches
    agreeing on the other parts may be namesakes (a file of distinct people, the
    surname session's "matches" sharing the given name and nothing else, 927 of
    1,500 merged once the id number no longer judged)."""
    judged = [(float(m[f][1] / u[f][1]), columns[f].spec.kind) for f in judging if f != blocked]
    if columns[blocked].spec.kind in PERSON_NAME_KINDS:
        # Matches of a session blocked on a name part that agree on the other parts
        # may be namesakes: a field beyond the name judges, where there is one.
        beyond = [(r, kind) for r, kind in judged if kind not in PERSON_NAME_KINDS]
        judged = beyond or judged
    if not judged:
        families = [
            float(m[f][1] / u[f][1])
            for f, c in enumerate(columns)
            if f != blocked and c.spec.kind is FieldKind.FAMILY_NAME and u[f][1] > 0
        ]
        return min(families) > SESSION_DOUBT if families else None
    if any(r > ID_DOUBT for r, kind in judged if kind is FieldKind.IDENTIFIER):
        return True
    return min(r for r, _ in judged) > SESSION_DOUBT


def _judging(columns: Sequence[FieldColumn], u: Sequence[npt.NDArray[np.float64]]) -> list[int]:
    """The fields that may judge whether a session found entities (`_doubtful`,
    `_beside_own`): those that describe one entity (not of `GROUP_KINDS`), that
    strangers differ in outright at least `JUDGE_DIFFERS` of the time, and that
    enough pairs share (`_shared`: a field no two records share judges nothing,
    every pair differs on it). Read once per training: a session's field does not
    change them."""
    return [
        f
        for f, c in enumerate(columns)
        if c.spec.kind not in GROUP_KINDS and u[f][1] >= JUDGE_DIFFERS and _shared(c)
    ]


def _shared(column: FieldColumn) -> bool:
    """Whether at least `SESSION_MIN_MATCHES` pairs of records hold one value of
    `column` (in a small file, `SHARED_SHARE` of its records, one pair at least).
    Where fewer do (each record's own reference: a row id, an invoice
    number, two of which may meet by chance), nearly every pair differs on it,
    matches as strangers, so it judges no session (`_doubtful`): read as an id, it
    called every session's matches a wider thing and m fell back to the priors,
    under which each copy's differing reference counted against it (people-parts-1k
    with such a column: R 0.9959 -> 0.8246; songs, whose references met once: F1
    0.9868 -> 0)."""
    held = column.codes[column.codes >= 0]
    counts = np.bincount(held) if len(held) else np.zeros(0, dtype=np.int64)
    bar = min(SESSION_MIN_MATCHES, max(1.0, SHARED_SHARE * len(column.codes)))
    return float((counts * (counts - 1) // 2).sum()) >= bar


def _unlearnt_m(
    prior: npt.NDArray[np.float64], u: npt.NDArray[np.float64], kind: FieldKind
) -> npt.NDArray[np.float64]:
    """m for a field no session learnt: the generic prior, but no close level weighs
    more than "exact" does. A close level's u can be tiny (a category's "jw>=0.88":
    5e-5 beside the prior's m 0.1, 7.6 nats), and the monotone correction then lifted
    "exact" to it: any shared brand or kind became strong evidence on a catalogue
    where no field agreed exactly often enough for EM. The mass taken goes to
    "different" -- but for an id number to "exact": one equal id is strong evidence,
    and a different one the strongest against (given to "different", it made two
    editions' ISBNs a weak objection, m 0.18)."""
    m = prior.copy()
    top = len(m) - 1
    if top < 3 or u[top] <= 0:
        return m
    cap = u[2:top] * (m[top] / u[top])
    capped = np.minimum(m[2:top], cap)
    m[top if kind is FieldKind.IDENTIFIER else 1] += float((m[2:top] - capped).sum())
    m[2:top] = capped
    return m


def _session_pairs(column: FieldColumn) -> tuple[npt.NDArray[np.int64], int]:
    """Pairs agreeing exactly on `column`; for a list field, sharing a rare value;
    for a title, one of its rarest words."""
    if column.spec.kind is FieldKind.TEXT and column.item_codes is not None:
        assert column.item_rows is not None
        return _block_pairs(column.item_codes, rows=column.item_rows)
    if column.spec.kind is not FieldKind.LIST:
        return _block_pairs(column.codes)
    assert column.item_codes is not None
    assert column.common is not None
    rare = np.where(column.common[column.item_codes], -1, column.item_codes)
    return _block_pairs(rare, rows=column.item_rows)


def _fit_prior(
    levels: npt.NDArray[np.int8],
    m_tables: Sequence[npt.NDArray[np.float64]],
    u_tables: Sequence[npt.NDArray[np.float64]],
    bundles: Sequence[Sequence[int]] = (),
) -> float:
    """The match rate among the candidate pairs, m and u held fixed (one-parameter EM).

    Read without the dependences' discount: the rate, and the bars fitted beside it,
    stay what each field's own evidence gives. Read with it, people-50k's rate fell
    0.445 -> 0.385 and the cautious bar let more strangers start joins (F1 0.9568 ->
    0.9521); the few-duplicates sets did not move."""
    return _fitted_rate(_sum_factors(levels, _log_factor_table(m_tables, u_tables), bundles))


def _fitted_rate(factor: npt.NDArray[np.float64]) -> float:
    """The match rate of pairs of these log factors (one-parameter EM), read over
    their distinct values: a few thousand, where people-50k has 1.5M candidates."""
    values, counts = np.unique(factor, return_counts=True)
    share = counts / max(len(factor), 1)
    prior = 0.1
    for _ in range(EM_ROUNDS * 2):
        posterior = _probability(values, float(np.log(prior / (1 - prior))))
        new = float(np.clip(posterior @ share, 1e-6, 1 - 1e-6))
        if abs(new - prior) < EM_TOLERANCE:
            return new
        prior = new
    return prior


def train(
    entities: Sequence[Entity],
    *,
    overrides: Mapping[str, str] | None = None,
    seed: int = 0,
    model: TrainedModel | None = None,
) -> RecordEvidence:
    """Detect fields, block, estimate u and m, and score the candidate pairs.

    With `model` (one trained earlier on this type) whose fields still fit the
    detected ones, its m, u and match rate are used as they are: no sampling, no
    EM, so incremental runs decide as the run that trained it did.
    """
    entities, renamed = align_sources(entities, overrides)
    report = detect_fields(entities, overrides)
    for key, used in renamed.items():
        report.left_out[key] = f"read as {used}: held by no record that holds {used}"
    align_fields(report)
    n = len(entities)
    empty = RecordEvidence(
        pairs=np.zeros((0, 2), dtype=np.int64),
        probabilities=np.zeros(0, dtype=np.float64),
        report=report,
        model=None,
    )
    if n < 2 or not report.used:
        return empty
    columns = build_columns(entities, report.used, report.cells)
    names = [c.spec.name for c in columns]
    reused = model is not None and _fits(model, columns)
    logged = _logged_tables(model, names) if model is not None and reused else None
    with ThreadPoolExecutor(max_workers=1) as pool:
        # u and m come from random pairs and EM, not from the blocking: estimated on
        # a second core while the rules are chosen (numpy and rapidfuzz let go of
        # the GIL), the same figures either way.
        sample = _DependenceSample(columns, n, seed)
        estimating = None if reused else pool.submit(_estimate, columns, n, seed, sample)
        # Each chosen rule's new pairs are compared on the second core once the
        # estimate is done, while the main thread weighs the remaining rules
        # (people-50k: ~2 s of choosing, ~1.7 s of comparing 2M pairs).
        parts: list[tuple[npt.NDArray[np.int64], Future[npt.NDArray[np.int8] | Refused]]] = []
        batch_rules: list[BlockingRule] = []
        # The first rule's pairs are kept whatever their scores, and so are an
        # identifier's: a phone two firms' listings share is weak evidence where a
        # workspace holds few phones, yet links the copies names no longer can.
        judged: list[bool] = []

        def compare_new(rule: BlockingRule, fresh: npt.NDArray[np.int64]) -> None:
            judged.append(bool(parts) and not _identifies(rule, columns))
            batch_rules.append(rule)
            parts.append((fresh, pool.submit(compared, fresh, judged[-1], not parts)))

        def compared(
            fresh: npt.NDArray[np.int64], judging: bool, first: bool
        ) -> npt.NDArray[np.int8] | Refused:
            """A chosen rule's new pairs compared, or `Refused` when `judge` finds no
            matches among them; the first rule's teach it its bar. On the pool's
            thread the estimate is done (it ran first), and so is the first rule's
            batch."""
            sampled_first = RuleJudge.sampled_first(len(fresh))
            if judge is not None and judging and sampled_first:
                refusal = judge.refusal(fresh, RuleJudge.sample_levels(columns, fresh))
                if refusal is not None:
                    return refusal
            levels = _levels(columns, fresh[:, 0], fresh[:, 1])
            if judge is not None and first:
                judge.learn(levels)
            if judge is not None and judging and not sampled_first:
                return judge.refusal(fresh, levels[RuleJudge.sample(len(fresh))]) or levels
            return levels

        def tables() -> Tables:
            if estimating is not None:
                m_tables, u_tables, _, bundles, _, dependences = estimating.result()
                return m_tables, u_tables, bundles, dependences
            assert logged is not None
            return logged

        # Names alone cannot tell a duplicate from a namesake (`names_decide`): no
        # score there says a rule's pairs hold none, so every rule in budget is taken.
        judge = (
            None
            if all(c.spec.kind in PERSON_NAME_KINDS for c in columns)
            else RuleJudge(n, tables, lambda: estimating is None or estimating.done())
        )
        rules, pairs = _choose_rules(columns, n, compare_new)
        if estimating is not None and not estimating.done() and sample.needed():
            sample()  # this thread's wait for the estimate, spent on its last part
        levels = None
        refused: dict[int, Refused] = {}
        batch = np.zeros(0, dtype=np.int32)
        if len(pairs):
            pairs, levels, refused, batch = _in_pair_order(
                columns, parts, judged, n, compared, judge
            )
            dropped = {batch_rules[k] for k in refused}
            rules = [r for r in rules if r not in dropped]
        estimate = estimating.result() if estimating is not None else None
    if levels is None:
        empty.columns = columns
        return empty

    # Every candidate the rules gave, a refused batch's pairs included: the bars
    # read from the match rate among all pairs scale with them.
    candidates = len(pairs) + sum(r.size for r in refused.values())
    kinds = [c.spec.kind for c in columns]
    if model is not None and logged is not None:
        m_tables, u_tables, bundles, dependences = logged
        prior, rounds = model.prior, model.rounds
        unlearnt = [names.index(name) for name in model.unlearnt]
        match_rate = model.random_match_rate
        used_u = _without_matches(u_tables, m_tables, match_rate, kinds)
    else:
        assert estimate is not None
        m_tables, u_tables, rounds, bundles, unlearnt, dependences = estimate
        # A refused batch's sample stands for all its pairs (`Refused.standing`): the
        # match rate and the start bar are read over every candidate the rules gave,
        # as if they had all been compared.
        every = np.concatenate([levels, *(r.standing(r.levels) for r in refused.values())])
        prior = _fit_prior(every, m_tables, u_tables, bundles)
        match_rate = random_match_rate(prior, n, candidates)
        used_u = _without_matches(u_tables, m_tables, match_rate, kinds)
        if match_rate > 0.0:
            # Read again with the matches out of u: the weights the pairs are scored by.
            prior = _fit_prior(every, m_tables, used_u, bundles)

    log_u: list[npt.NDArray[np.float64]] = []
    log_m: list[npt.NDArray[np.float64]] = []
    log_random_u: list[float] = []
    for f, column in enumerate(columns):
        lm = np.zeros(column.levels)
        lu = np.zeros(column.levels)
        lm[1:] = np.log(np.maximum(m_tables[f][1:], FLOOR))
        lu[1:] = np.log(used_u[f][1:])
        # An organisation's "another role on each side" (level 1) is no step of
        # closeness below "different": it keeps two names apart (a gate), and EM
        # learns it as a match where a hotel's rooms share address and phone --
        # lifting "different" to that weight made any two names at one address a
        # match (restaurants P 0.929; 0.952 without).
        first = 2 if column.spec.kind is FieldKind.ORGANISATION_NAME else 1
        weight = _monotone(lm - lu, first)
        # Keep log u as estimated and fold the monotone correction into log m.
        lm = weight + lu
        lm[0] = lu[0] = 0.0
        log_m.append(lm)
        log_u.append(lu)
        log_random_u.append(float(np.log(u_tables[f][-1])))
    trained = (
        model
        if model is not None and reused
        else TrainedModel(
            fields=[
                {"name": c.spec.name, "kind": c.spec.kind.value, "sources": list(c.spec.sources)}
                for c in columns
            ],
            m=[[float(x) for x in t] for t in m_tables],
            u=[[float(x) for x in t] for t in u_tables],
            prior=prior,
            rounds=rounds,
            rules=[r.label for r in rules],
            trained_on=n,
            bundles=[[names[f] for f in bundle] for bundle in bundles],
            unlearnt=[names[f] for f in unlearnt],
            random_match_rate=match_rate,
            dependent=[
                {
                    "fields": [names[d.first], names[d.second]],
                    "excess": [[float(x) for x in row] for row in d.excess],
                }
                for d in dependences
            ],
        )
    )
    evidence = RecordEvidence(
        pairs=pairs,
        probabilities=np.zeros(0),
        report=report,
        model=trained,
        columns=columns,
        log_m=log_m,
        log_u=log_u,
        prior_logit=float(np.log(prior / (1 - prior))),
        comparisons=len(pairs),
        log_random_u=log_random_u,
        reused=reused,
        places_apart=type_kind(entities[0].entity_type) != "person",
        bundles=bundles,
        unlearnt=unlearnt,
        dependences=dependences,
    )
    evidence.comparable = evidence._comparable(levels, pairs[:, 0], pairs[:, 1])
    within, rule_rates = _within_rules(
        evidence._told_levels(levels),
        batch,
        batch_rules,
        columns,
        evidence._informative,
        [m - u for m, u in zip(log_m, log_u, strict=True)],
        bundles,
        trained.rule_rates if reused else None,
    )
    if not reused:
        trained.rule_rates = rule_rates
    evidence.probabilities = evidence._from_levels(levels, pairs[:, 0], pairs[:, 1])
    logits = _logits(evidence.probabilities)
    if not reused:
        standing = [
            r.standing(_logits(evidence._from_levels(r.levels, r.pairs[:, 0], r.pairs[:, 1])))
            for r in refused.values()
        ]
        trained.start_logit = _start_logit(np.concatenate([logits, *standing]))
        fitted = (~np.isnan(logits)).sum() >= START_MIN_PAIRS  # and found no two bumps
        if (
            trained.start_logit is None
            and fitted
            and type_kind(entities[0].entity_type) == "person"
        ):
            trained.unseparated = True
            trained.start_logit = (
                unseparated_bar(prior, n, candidates)
                if names_decide(columns, unseparated=True)
                else UNSEPARATED_PEOPLE_LOGIT
            )
    start = trained.start_logit
    if names_decide(columns, trained.unseparated):
        # The gate only lowers scores to 0: applied to the scores at hand, not
        # recomputed from the levels (1.7M pairs on people-names at 50k).
        evidence.names_only = True
        evidence.probabilities = evidence._gate(
            levels, evidence.probabilities, pairs[:, 0], pairs[:, 1]
        )
        logits = _logits(evidence.probabilities)
    evidence.can_start = logits >= start if start is not None else np.ones(len(pairs), dtype=bool)
    evidence.can_start &= within >= 0.0
    if evidence._work:
        evidence.can_start &= evidence._both_named(levels)
        evidence.can_start &= evidence._title_tells(levels, pairs[:, 0], pairs[:, 1])
    if evidence.names_only:
        evidence.can_start &= ~_torn(columns, pairs, evidence.can_start)
    evidence.lone_logit = lone_bar(prior, n, candidates)
    evidence.lone_start = evidence.can_start & (logits >= evidence.lone_logit)
    return evidence


def _torn(
    columns: Sequence[FieldColumn],
    pairs: npt.NDArray[np.int64],
    starts: npt.NDArray[np.bool_],
) -> npt.NDArray[np.bool_]:
    """Per pair, whether it is a start (`starts`) of a record lacking a name part
    whose other starts hold that part as two different names (level 1 between them):
    the lone "artie" beside "artie tomblin", "artie osbourn" and "artie pond" cannot
    tell which Artie it is, and each join it starts is as likely wrong as right.

    For names alone (`names_decide`): there a join's cross pairs cannot veto it --
    EM learns another surname as weak evidence (copies change theirs; m 0.29) -- so
    the lone record, joined to one Artie, carried the others in: a cluster of five
    Arthurs of four surnames in people-names at 2,000 records (P 0.82 -> 0.93, F1
    0.7658 -> 0.8061; Splink 0.7706). A part every start agrees on ("bowen", a
    surname written as the first name, beside the Bowens alone) leaves its starts
    be. Each record's starts are read against its first one (by partner index):
    two different names among them show there. The part is read with the parts it
    is read reversed or crossed with, as every comparison reads it: a copy with its
    names swapped does not hold another name."""
    out = np.zeros(len(pairs), dtype=bool)
    rows = np.flatnonzero(starts)
    left, right = pairs[rows, 0], pairs[rows, 1]
    for f, column in enumerate(columns):
        lacks_left = column.codes[left] < 0
        lacks_right = column.codes[right] < 0
        one = rows[lacks_left != lacks_right]
        if not len(one):
            continue
        lacking = np.where(lacks_left, left, right)[lacks_left != lacks_right]
        holder = np.where(lacks_left, right, left)[lacks_left != lacks_right]
        order = np.lexsort((holder, lacking))
        one, lacking, holder = one[order], lacking[order], holder[order]
        opens = np.r_[True, lacking[1:] != lacking[:-1]]
        first = holder[np.maximum.accumulate(np.where(opens, np.arange(len(opens)), 0))]
        other = np.flatnonzero(first != holder)
        read_with = [p for p in (column.partner, column.cross_partner) if p >= 0]
        levels = _levels(columns, first[other], holder[other], only=(f, *read_with))
        torn = np.unique(lacking[other[levels[:, f] == 1]])
        out[one[np.isin(lacking, torn)]] = True
    return out


def _within_rules(
    levels: npt.NDArray[np.int8],
    batch: npt.NDArray[np.int32],
    rules: Sequence[BlockingRule],
    columns: Sequence[FieldColumn],
    told: Sequence[bool],
    weights: Sequence[npt.NDArray[np.float64]],
    bundles: Sequence[Sequence[int]],
    rates: Mapping[str, float] | None,
) -> tuple[npt.NDArray[np.float64], dict[str, float]]:
    """Each candidate's log-odds among the pairs its rule found first (batch `k` of
    `rules`), and those rules' match rates: the rate fitted as the candidates' prior
    is, on the pairs' levels with the rule's own fields read as missing, and the
    pair's log factor over the other fields beside it. `rates` (a stored model's)
    are read instead of fitted; a rule they lack holds no pair back (+inf).

    The candidates' prior is fitted with u from random pairs, and a rule's pairs
    agree on its fields by construction: the agreement a first-name rule gave them
    is read as evidence that they match. Where fields are mostly blank, "Henry" and
    "Analyst" shared by two strangers was then a 0.99 match (contacts with 40% of
    cells blank: a prior of 0.21 where 0.027 of the candidates match; the rules'
    rates read this way sum to 0.026). A pair starts a join only at even odds or
    better among its own rule's pairs: whatever made it a candidate counts once.

    Not read where the rule holds the entity's own name: there the other fields are
    what varies among one thing's records (a firm's patents: their coauthors and
    classes), and the rate they give is not the rule's (patstat's exact-name pairs:
    all true, read as 0.34; F1 0.83 -> 0.77). Nor where the fields that tell anything
    (`told`) are names alone: one name part read against the other says nothing
    `names_decide` does not. `levels` read the fields that tell nothing as missing."""
    out = np.full(len(levels), np.inf)
    found: dict[str, float] = {}
    if not len(levels) or all(
        c.spec.kind in PERSON_NAME_KINDS for c, tells in zip(columns, told, strict=True) if tells
    ):
        return out, found
    for k in np.unique(batch).tolist():
        rule = rules[k]
        if any(columns[f].spec.name == NAME_FIELD for f in rule.fields):
            continue
        rows = np.flatnonzero(batch == k)
        own = levels[rows]  # a copy (rows is an index array)
        for f in rule.fields:
            column = columns[f]
            if column.reversed is not None:
                # A name part's keys hold the lone values of the other part's column
                # (`_keys`): a pair the rule found through them agrees on that part.
                own[own[:, f] == 0, column.partner] = 0
        own[:, sorted(rule.fields)] = 0
        factor = _sum_factors(own, weights, bundles)
        if rates is None:
            rate = found[rule.label] = _fitted_rate(factor)
        elif rule.label in rates:
            rate = rates[rule.label]
        else:
            continue
        out[rows] = factor + np.log(rate / (1 - rate))
    return out, found


def _in_pair_order(
    columns: Sequence[FieldColumn],
    parts: Sequence[tuple[npt.NDArray[np.int64], Future[npt.NDArray[np.int8] | Refused]]],
    judged: Sequence[bool],
    n: int,
    compared: Callable[[npt.NDArray[np.int64], bool, bool], npt.NDArray[np.int8] | Refused],
    judge: RuleJudge | None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int8], dict[int, Refused], npt.NDArray[np.int32]]:
    """The pairs of disjoint batches and their levels, in the order `_choose_rules`
    returns their union (by code `left * n + right`), less the batches `judge`
    refused (of those `judged`), which those were, and each pair's batch (its index
    in `parts`). The batches the other thread has not begun are compared here, the
    last first: judged first (`compared`) once the estimate is in. While the other
    thread is still estimating, a small batch is compared whole and judged from its
    levels afterwards, so this thread compares instead of waiting (people-50k); a
    large one only has its sample compared, and is judged, and compared whole if
    kept, once the estimate is in: compared whole at once, the batches voters' judge
    refuses took the interpreter from the estimate they wait for."""
    done: dict[int, npt.NDArray[np.int8] | Refused] = {}
    unjudged: list[int] = []
    deferred: dict[int, npt.NDArray[np.int8]] = {}
    for k in range(len(parts) - 1, -1, -1):
        fresh, pending = parts[k]
        if not pending.cancel():
            continue
        if judge is None or not judged[k] or judge.ready():
            done[k] = compared(fresh, judged[k], k == 0)
        elif RuleJudge.sampled_first(len(fresh)):
            deferred[k] = RuleJudge.sample_levels(columns, fresh)
        else:
            done[k] = _levels(columns, fresh[:, 0], fresh[:, 1])
            unjudged.append(k)
    for k, sampled in deferred.items():
        assert judge is not None
        fresh = parts[k][0]
        done[k] = judge.refusal(fresh, sampled) or _levels(columns, fresh[:, 0], fresh[:, 1])
    results = [done[k] if k in done else pending.result() for k, (_, pending) in enumerate(parts)]
    for k in unjudged:
        found = results[k]
        assert judge is not None
        assert not isinstance(found, Refused)
        fresh = parts[k][0]
        results[k] = judge.refusal(fresh, found[RuleJudge.sample(len(fresh))]) or found
    refused = {k: found for k, found in enumerate(results) if isinstance(found, Refused)}
    kept = [k for k in range(len(parts)) if k not in refused]
    codes = np.concatenate([_pair_codes(parts[k][0], n) for k in kept])
    levels = np.concatenate([found for found in results if not isinstance(found, Refused)])
    batch = np.concatenate([np.full(len(parts[k][0]), k, dtype=np.int32) for k in kept])
    order = np.argsort(codes)  # distinct codes (disjoint batches): any sort orders them alike
    return _pairs_of(codes[order], n), levels[order], refused, batch[order]


#: Where a pair of people may start a join when the candidates' scores show no two
#: bumps (`_start_logit` is None): the fields cannot tell duplicates from namesakes
#: (names alone, or names and a trade), and EM, unable to separate them either, fits
#: a match rate of 0.65-0.90 among candidates that are mostly namesakes. Odds of
#: 10^4 to 1: people-50k's records cut to full name and occupation, P 0.093 -> 0.984
#: (a chain of 605 "William ..." gone; Splink 0.999 / 0.076); cut to first name,
#: surname, gender and occupation (5k records), P 0.912, where odds of 10^3.2 let it
#: chain (P 0.204). Names alone take `unseparated_bar` instead.
UNSEPARATED_PEOPLE_LOGIT = float(np.log(1e4))
#: `unseparated_bar`'s odds under the match rate among all pairs (log): e^0.7, two
#: to one. Over people-names at 200 to 50,578 records and six seeds (43 files),
#: 0.4 lifted F1 most but cost precision as the files grew (50k P 0.82 -> 0.75);
#: 1.0 gave back most of the gain at 1k-3k records.
UNSEPARATED_GLOBAL_LOGIT = 0.7


def unseparated_bar(prior: float, records: int, candidates: int) -> float:
    """The cautious bar of people compared on their names alone (`names_decide`), in
    the candidates' log-odds: odds of `UNSEPARATED_GLOBAL_LOGIT` under the match
    rate among all pairs (as Splink reads its prior), i.e. that many nats above the
    lone bar (`lone_bar`), rather than under the candidates' rate `prior`. The rate
    among all pairs falls as the workspace grows: a person's duplicates are a
    handful whatever its size, while the namesakes sharing a name grow with it, so
    more records need stronger evidence. Other fields (a trade, a gender) are
    weighed by EM in ways no size corrects, so they keep the fixed bar.

    Read through `prior`, not as log(all pairs / candidates) added to fixed odds:
    on names alone EM's candidates' rate is what it cannot pin down (0.25 on one
    file, 0.93 on the next of the same generator), and the scores move with it, so
    a bar that ignored it asked more of the names the lower EM put the rate. At
    200 records of people-names (seed 41) EM fitted 0.25, eleven copies of "john
    roach" scored 4.5 against a bar of 5.0, and nothing merged (R 0.04; now 0.53).
    Over 43 files (200 to 50,578 records, six seeds) F1 rose on 24, by up to 0.09
    beside that one, fell on 3 by at most 0.006, the rest unmoved (`bench/README.md`)."""
    return UNSEPARATED_GLOBAL_LOGIT + lone_bar(prior, records, candidates)


def _all_pairs(records: int) -> float:
    """Pairs among `records` (at least 1): what the match rate among all pairs is
    read over."""
    return max(records * (records - 1) / 2, 1.0)


def _rate_among_all(prior: float, records: int, candidates: int) -> float:
    """The match rate among all pairs of `records`: the candidates' rate `prior`
    times candidates / all pairs."""
    return prior * max(candidates, 1) / _all_pairs(records)


def random_match_rate(prior: float, records: int, candidates: int) -> float:
    """`_rate_among_all`, at most `RANDOM_MATCH_RATE_CAP`: how many random pairs
    are matches, for `_without_matches`."""
    return min(_rate_among_all(prior, records, candidates), RANDOM_MATCH_RATE_CAP)


def _without_matches(
    u_tables: Sequence[npt.NDArray[np.float64]],
    m_tables: Sequence[npt.NDArray[np.float64]],
    rate: float,
    kinds: Sequence[FieldKind],
) -> list[npt.NDArray[np.float64]]:
    """Each field's u with the random pairs' matches taken out: a random pair agrees
    at a level with probability rate * m + (1 - rate) * u, so u is (read - rate * m)
    / (1 - rate), kept at least 1 / `U_CORRECTION_LIMIT` of what was read.

    Random pairs hold matches at the rate among all pairs: 5e-4 in people-50k, a
    twentieth in a file of 200 records of twenty people's copies, where random
    pairs agreeing on an id number are mostly copies (u 0.05: the id's exact
    agreement weighed +2.9, and a copy under a pen name with the person's id,
    birth date and address stayed apart). At 200 records: people-au 0.981 ->
    1.000, people-forms 0.942 -> 0.977, people-jp-500 0.985 -> 0.999; the 41 bench
    sets within -0.0013 / +0.0122 (people-50k 0.9569 -> 0.9593), the few-copies
    files of people-export -0.007 (still 0.016 above Splink)."""
    if rate <= 0.0:
        return [u.copy() for u in u_tables]
    out = []
    for u, m, kind in zip(u_tables, m_tables, kinds, strict=True):
        fixed = u.copy()
        if kind not in MATCHES_TAKEN_OUT:
            out.append(fixed)
            continue
        fixed[1:] = np.maximum((u[1:] - rate * m[1:]) / (1.0 - rate), u[1:] / U_CORRECTION_LIMIT)
        fixed[1:] /= fixed[1:].sum()
        out.append(fixed)
    return out


def lone_bar(prior: float, records: int, candidates: int) -> float:
    """The candidates' log-odds from which a pair may join two lone records: even
    odds under the match rate among all pairs (the candidates' rate `prior` times
    candidates / all pairs), the bar Splink reads every pair at.

    The candidates' rate counts twice what made a pair a candidate (the rate is
    high because blocked pairs agree, and the agreement is weighed again), which
    the start bar (`_start_logit`) corrects where a pair's two ends have copies
    besides: a join is then judged on every cross pair, and a false start between
    two people's records is refused. Two lone records have their one pair alone,
    and in a file where few people have a copy such pairs are mostly two people
    sharing a town, a trade and a birth year ("J. Pemberton" / "J. Hopper", both
    cricketers born 1790): people-parts with 1% of its people copied P 0.978 ->
    0.991, people-homes 1% 0.946 -> 0.997, fodors-zagat 0.948 -> 0.957; no set with
    many copies moved (the same bar for every start: people-registry-5k R 0.950 ->
    0.942, its stray copies kept from their clusters)."""
    rate = min(_rate_among_all(prior, records, candidates), 1 - 1e-12)
    if rate <= 0.0:
        return math.inf
    return float(np.log(prior / (1 - prior)) - np.log(rate / (1 - rate)))


#: Kinds that name a person (an occupation read as a family name counts too).
PERSON_NAME_KINDS = frozenset({FieldKind.GIVEN_NAME, FieldKind.FAMILY_NAME, FieldKind.PERSON_NAME})


def names_decide(columns: Sequence[FieldColumn], unseparated: bool) -> bool:
    """Whether people are compared on their names alone and their scores showed no
    two groups (the cautious bar): then a pair whose names all differ outright is
    kept apart, whatever EM says. EM, fitting most candidates as matches there,
    scores even "Helen Hatton" against "William Bennett" above 0.05, so nothing
    could keep two groups apart: people-50k cut to its first names and surnames
    chained into groups of 1,852 records (precision 0.03; 0.61 at 20k records).
    Read from the model and the fields alone, so a reused model decides alike."""
    return unseparated and bool(columns) and all(c.spec.kind in PERSON_NAME_KINDS for c in columns)


#: Candidates below which no bar is read (too few to show two bumps or their
#: absence: a small workspace keeps no bar, whatever its kind).
START_MIN_PAIRS = 50
#: The log-odds `_start_logit` reads, either side of even odds, and the width of its
#: histogram's bins. Scored pairs of rich schemas reach -40 and beyond; clipped at
#: 30, they piled at the edge with the gated ones (people-febrl-10k F1 0.9996 ->
#: 0.9950 when the gated were left out; 0.9993 read to 60).
START_LOGIT_RANGE = 60.0
START_LOGIT_BIN_WIDTH = 0.1
#: Log-odds over which the histogram is smoothed to find its valley (`_start_logit`):
#: 20 bins. 4.0 moved the same sets (contacts, songs, voters), each by under 0.001
#: of F1 from this width's figures, and no other.
START_VALLEY_WIDTH = 2.0


def _logits(probabilities: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    with np.errstate(divide="ignore"):
        return np.asarray(np.log(probabilities) - np.log1p(-probabilities), dtype=np.float64)


def _start_logit(logits: npt.NDArray[np.float64]) -> float | None:
    """Where the candidates' log-odds pass from the non-matches' bump to the matches'.

    The model's odds assume fields independent, and they are not (a namesake shares
    surname, birth year and town, which travel together), so on a rich set its 0.99
    is often wrong: on people-50k 2% of the candidates scored 0.9-0.99 are true
    pairs. Its log-odds still sort the pairs well, and over the candidates they
    form two bumps, non-matches and matches: a two-Gaussian mixture fitted to them
    (EM on a histogram, no label) reads the share of matches at each log-odds far
    closer to the truth (people-50k: 0.31 where 0.29 are true, at log-odds 7-8). A
    pair starts a join only from where the matches' bump outweighs the other;
    the join's verdict still reads every cross pair as before. None (no bar) when the
    fit finds no such two bumps, one below even odds and one above: sets whose
    candidates are nearly all matches, or whose evidence is too thin to separate.

    Pairs a gate kept apart (score 0, log-odds -inf) are left out: a gate decided
    them, and as a pile at the histogram's edge the fit took them for one bump and
    every scored pair for the other, whose mean -- above or below even odds as the
    candidates' mix fell -- chose between no bar and the cautious one (people-parts
    reshaped, one name column in two orders, dates in four formats, 30% of cells
    empty: R 0.75, now 0.86; people-50k P 0.965 -> 0.978, voters R 0.989 -> 0.997).
    The scores are read over `START_LOGIT_RANGE`.
    """
    finite = logits[~np.isnan(logits) & ~np.isneginf(logits)]
    finite = np.clip(finite, -START_LOGIT_RANGE, START_LOGIT_RANGE)
    if len(finite) < START_MIN_PAIRS:
        return None
    counts, edges = np.histogram(
        finite,
        bins=round(2 * START_LOGIT_RANGE / START_LOGIT_BIN_WIDTH),
        range=(-START_LOGIT_RANGE, START_LOGIT_RANGE),
    )
    x = (edges[:-1] + edges[1:]) / 2
    weight = counts.astype(np.float64)
    mean = np.asarray(np.quantile(finite, [0.25, 0.95]), dtype=np.float64)
    spread = np.full(2, max(float(finite.std()) / 2, 0.5))
    share = np.asarray([0.8, 0.2])
    for _ in range(EM_ROUNDS * 5):
        log_density = -0.5 * ((x[:, None] - mean) / spread) ** 2 - np.log(spread) + np.log(share)
        log_density -= log_density.max(axis=1, keepdims=True)
        resp = np.exp(log_density)
        resp /= resp.sum(axis=1, keepdims=True)
        mass = (resp * weight[:, None]).sum(axis=0) + 1e-12
        new_mean = (resp * weight[:, None] * x[:, None]).sum(axis=0) / mass
        variance = (resp * weight[:, None] * (x[:, None] - new_mean) ** 2).sum(axis=0) / mass
        spread = np.maximum(np.sqrt(variance), 0.5)
        share = mass / mass.sum()
        moved = float(np.abs(new_mean - mean).max())
        mean = new_mean
        if moved < EM_TOLERANCE:
            break
    low, high = (0, 1) if mean[0] < mean[1] else (1, 0)
    distance = (mean[high] - mean[low]) * np.sqrt(2.0 / (spread[low] ** 2 + spread[high] ** 2))
    if not mean[low] < 0.0 < mean[high] or distance < SPLIT_SEPARATION:
        return None
    grid = np.linspace(mean[low], mean[high], 2001)
    log_ratio = (
        np.log(share[high] / share[low])
        - np.log(spread[high] / spread[low])
        - 0.5 * ((grid - mean[high]) / spread[high]) ** 2
        + 0.5 * ((grid - mean[low]) / spread[low]) ** 2
    )
    past = np.flatnonzero(log_ratio >= 0.0)
    if not len(past):
        return None
    # Where the non-matches' bump expects less than one of the candidates above it,
    # no pair is one of them: the bar stops there. The matches' bump can lie mostly
    # beyond the histogram, piled at its edge, and a bump fitted to that pile is so
    # narrow that the crossing sits deep inside the matches (a FEBRL-like set: 1.3%
    # of its true pairs, scored 10^4 to 10^10 to 1, kept from starting a join).
    expected = len(finite) * share[low] * _upper_tail((grid - mean[low]) / spread[low])
    empty = np.flatnonzero(expected < 1.0)
    bar = float(grid[min(past[0], empty[0])] if len(empty) else grid[past[0]])
    # Two Gaussians are the fit's assumption, not the data's shape: where one file
    # holds several registers' records (people-intl: eight countries' fields, some
    # with no id, some with two scripts), the non-matches' bump has a long right
    # tail, its fitted Gaussian is wide, and the crossing lands deep in the matches
    # (log-odds 15.5, where 4,533 true pairs against 11 false ones lay at 12.5-15:
    # R 0.937). The bar is never above the histogram's own valley between the two
    # bumps, its lowest point smoothed over `START_VALLEY_WIDTH`.
    width = round(START_VALLEY_WIDTH / START_LOGIT_BIN_WIDTH)
    smooth = np.convolve(weight, np.ones(width) / width, mode="same")
    between = np.flatnonzero((x > mean[low]) & (x < mean[high]))
    if len(between):
        bar = min(bar, float(x[between[np.argmin(smooth[between])]]))
    return bar


def _upper_tail(z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """P(Z >= z) of a standard normal, elementwise."""
    return np.asarray([0.5 * math.erfc(value / math.sqrt(2.0)) for value in z.tolist()])


def _level_counts(
    columns: Sequence[FieldColumn], n: int, seed: int
) -> list[npt.NDArray[np.float64]]:
    """How many of the n records' pairs reach each level of each field: counted
    exactly where that costs less than the random sample, else on the sample.

    A field's level depends only on the two values, so each pair of distinct values
    is compared once and weighed by how many pairs hold it: a 1k-record FEBRL-like
    set has ~0.75M value pairs over its fields where its 500k record pairs make 4.5M
    comparisons; a voter roll's gender, party, town, age or zip code hold a handful
    to 78k value pairs, where the sample compares 200k (voters' estimate, on the
    critical path: 0.33 -> 0.29 s). Name parts read crossed or reversed (and lists)
    depend on more than their own two values: their pairs are compared, every pair
    of a workspace of at most four times `U_SAMPLE_PAIRS` pairs, else the random ones.

    A field of more distinct values than `U_SAMPLE_PAIRS` value pairs (a name, a
    street, a phone that nearly every record writes its own way) is counted on
    the random pairs: its value pairs are nearly its record pairs, and its exact
    count cost more than the rest (restaurants: 0.82 s of training against 0.51,
    F1 unchanged)."""
    joint = {
        f
        for f, c in enumerate(columns)
        if c.reversed is not None or c.crossed is not None or c.spec.kind is FieldKind.LIST
    }
    joint |= {columns[f].partner for f in joint if columns[f].partner >= 0}
    joint |= {columns[f].cross_partner for f in joint if columns[f].cross_partner >= 0}
    sampled = {
        f for f, c in enumerate(columns) if f not in joint and _value_pairs(c) > U_SAMPLE_PAIRS
    }
    if n * (n - 1) // 2 > U_SAMPLE_PAIRS * 4:
        sampled |= joint
        joint = set()
    out: list[npt.NDArray[np.float64]] = [np.zeros(c.levels) for c in columns]

    def count_joint() -> None:
        every = np.triu_indices(n, k=1)
        left, right = every[0].astype(np.int64), every[1].astype(np.int64)
        levels = _levels(columns, left, right, only=joint)
        for f in joint:
            out[f] = np.bincount(levels[:, f], minlength=columns[f].levels).astype(float)

    # The joint fields' every-pair levels and the other fields' value pairs are
    # counted side by side: the caller's other thread waits on this count (numpy
    # and rapidfuzz let go of the GIL).
    with ThreadPoolExecutor(max_workers=1) as pool:
        joint_counted = pool.submit(count_joint) if joint else None
        _count_value_pairs(columns, n, joint | sampled, out)
        if sampled:
            _count_sampled(columns, n, seed, sampled, out)
        if joint_counted is not None:
            joint_counted.result()
    return out


def _value_pairs(column: FieldColumn) -> int:
    """How many pairs of distinct values a field holds."""
    values = int(column.codes.max()) + 1 if len(column.codes) else 0
    return values * (values - 1) // 2


def _count_sampled(
    columns: Sequence[FieldColumn],
    n: int,
    seed: int,
    fields: Collection[int],
    out: list[npt.NDArray[np.float64]],
) -> None:
    """Level counts of `fields` over `U_SAMPLE_PAIRS` random pairs, into `out`."""
    for sample_left, sample_right in _random_pair_blocks(n, U_SAMPLE_PAIRS, seed):
        levels = _levels(columns, sample_left, sample_right, only=fields)
        for f in fields:
            out[f] += np.bincount(levels[:, f], minlength=columns[f].levels)


def _count_value_pairs(
    columns: Sequence[FieldColumn],
    n: int,
    joint: Collection[int],
    out: list[npt.NDArray[np.float64]],
) -> None:
    """`_level_counts` of the fields outside `joint`, by value pairs, into `out`."""
    for f, column in enumerate(columns):
        if f in joint:
            continue
        codes = column.codes
        held = codes[codes >= 0]
        values, first, many = np.unique(held, return_index=True, return_counts=True)
        where = np.flatnonzero(codes >= 0)[first]
        a, b = np.triu_indices(len(values), k=1)
        if len(a):
            levels_ab = compare(column, where[a].astype(np.int64), where[b].astype(np.int64))
            out[f] += np.bincount(
                levels_ab, weights=(many[a] * many[b]).astype(float), minlength=column.levels
            )
        out[f][column.levels - 1] += float((many * (many - 1) // 2).sum())
        missing = n - len(held)
        out[f][0] += float(missing * (n - missing) + missing * (missing - 1) // 2)


def _estimate(
    columns: Sequence[FieldColumn],
    n: int,
    seed: int,
    sample: _DependenceSample | None = None,
) -> tuple[
    list[npt.NDArray[np.float64]],
    list[npt.NDArray[np.float64]],
    int,
    list[list[int]],
    list[int],
    list[Dependence],
]:
    """u from the level counts (`_level_counts`: exact where cheaper, else random
    pairs; beside a generic prior), then m by EM: (m, u, EM rounds, bundles, the
    fields no session learnt, the dependences)."""
    level_counts = _level_counts(columns, n, seed)
    m_tables: list[npt.NDArray[np.float64]] = []
    u_tables: list[npt.NDArray[np.float64]] = []
    for f, column in enumerate(columns):
        counts = level_counts[f][1:].copy()
        # A small workspace has few distinct pairs: the random sample repeats them.
        # Weigh it as the pairs it really holds, beside a generic prior.
        real = min(float(counts.sum()), n * (n - 1) / 2)
        counts *= real / max(1.0, float(counts.sum()))
        u = np.zeros(column.levels)
        u[1:] = (counts + U_PRIOR_PAIRS * _prior_u(column.levels)[1:]) / (real + U_PRIOR_PAIRS)
        u_tables.append(u)
        m_tables.append(_prior_m(column.levels, column.spec.kind))
    m_tables, rounds, bundles, unlearnt = _em_sessions(columns, u_tables, m_tables)
    dependences = _dependences(
        columns, n, bundles, u_tables, sample or _DependenceSample(columns, n, seed)
    )
    return m_tables, u_tables, rounds, bundles, unlearnt, dependences
