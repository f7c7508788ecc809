"""The text benchmark's scores: within-document merge pairs, the chain audit, the sample."""

from __future__ import annotations

from bench.text_scoring import (
    PRF,
    Document,
    chain_audit,
    cross_document_pairs,
    mention_scores,
    within_document_merges,
)


def test_within_document_merges_count_pairs_of_gold_mentions() -> None:
    """Catches: repeated mentions of one entity dropped, or undetected mentions ignored
    in the strict figure."""
    doc = Document("d", "Ann Lee met Lee and Bo.", [(0, 7, 0), (12, 15, 0), (20, 22, 1)])
    merged = {("d", 0, 7): "x", ("d", 12, 15): "x", ("d", 20, 22): "y"}
    assert within_document_merges([doc], merged, detected_only=False) == PRF(1, 0, 0)
    wrong = {("d", 0, 7): "x", ("d", 12, 15): "x", ("d", 20, 22): "x"}
    assert within_document_merges([doc], wrong, detected_only=False) == PRF(1, 2, 0)
    missing = {("d", 0, 7): "x", ("d", 20, 22): "y"}
    assert within_document_merges([doc], missing, detected_only=False) == PRF(0, 0, 1)
    assert within_document_merges([doc], missing, detected_only=True) == PRF(0, 0, 0)
    assert mention_scores([doc], {("d", 0, 7), ("d", 1, 7)}) == PRF(1, 1, 2)


def test_chain_audit_finds_the_three_kinds_and_spares_aliases() -> None:
    """Catches: an audit that cannot fail (the issue's chains must be counted)."""
    audit = chain_audit(
        [
            [("1968", "Date"), ("1986", "Date")],
            [("Henry III", "Person"), ("Henry VIII", "Person")],
            [("Washington", "Location"), ("Waxhaw", "Location")],
            [("U.S.", "Location"), ("United States", "Location")],
            [("FBI", "Organization"), ("Federal Bureau of Investigation", "Organization")],
            [("8", "Number"), ("eight", "Number")],
            [("Schneider", "Person"), ("Wilfried Schneider", "Person")],
        ]
    )
    assert audit.two_dates == [["1968", "1986"]]
    assert audit.two_regnal == [["Henry III", "Henry VIII"]]
    assert audit.token_disjoint == [["Washington", "Waxhaw"]]


def test_cross_document_sample_is_deterministic_and_crosses_documents() -> None:
    """Catches: a sample that changes between runs (labels would not join) or pairs
    from one document."""
    texts = {"a": "Ann Lee spoke.", "b": "Lee left."}
    clusters = [[[("a", 0, 7)], [("a", 4, 7), ("b", 0, 3)]]]
    first = cross_document_pairs("c", clusters, texts, per_corpus=5)
    assert first == cross_document_pairs("c", clusters, texts, per_corpus=5)
    (pair,) = first
    assert (pair.left_form, pair.right_form) == ("Ann Lee", "Lee")
    assert pair.left[0] != pair.right[0]


def test_cross_document_sample_caps_pairs_per_cluster() -> None:
    """Catches: one large cluster ("United States" in 100 documents) filling the sample."""
    texts = {doc: "Ohio Lee" for doc in "abcdefgh"}
    big = [[(doc, 0, 4)] for doc in "abcdef"]
    small = [[("g", 5, 8)], [("h", 5, 8)]]
    sample = cross_document_pairs("c", [big, small], texts, per_corpus=10, per_cluster=2)
    forms = sorted(p.left_form for p in sample)
    assert forms == ["Lee", "Ohio", "Ohio"]
