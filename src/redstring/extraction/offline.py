"""`OfflineExtractor`: rule-based entity extraction that needs no model.

What it finds, per chunk, with the rule that fires first:

- Concept (0.5): a title in quotes ("Hold On to Sixteen", "Hole in Your Soul"), its
  small words and numbers included, when every longer word is capitalised.
- Money (0.9): `$`/`€`/`£` amounts, "N million dollars".
- Percent (0.9): "20 %", "3.5 percent".
- Date (0.9): clock times ("0400 GMT", "2 a.m. EST"), decades and centuries ("the
  1960s", "the early 20th century"), month with day and/or year ("26 Apr 94" too),
  standalone years 1500-2099. A weekday alone ("said Tuesday") is no entity.
- Number (0.9): digits ("6,000", "40", "2.5 million") and spelled counts ("two",
  "forty-one"; not "one", which is mostly a pronoun), with a unit that follows
  ("four years", "66 km", "three - year"); not a rank ("number 9", "top 40"), a page
  ("p 6"), a part of a name ("ASEAN+3"), a range's end, a clock time, or a
  capitalised word inside a title ("Hold On to Sixteen").
- Group (0.8): a lone nationality or group adjective ("American", "Soviet",
  "Catholic"): never a Person, Location or Organization, so never fuzzy-merged.
- Dropped: a run made only of titles and ranks ("King", "Prime Minister", "Duke").
- Location (0.85): countries, continents, US states and their AP abbreviations
  (before the keywords: "Soviet Union" is no union).
- Person (0.9): a capitalised run starting with a title (Mr, Dr, President, Sen., ...),
  unless a body's keyword follows ("General Accounting Office").
- Location / Organization (0.6): a name and the lowercase noun after it that says
  what it is ("the Sahara desert", "the Najd plateau", "NHK network", "the Phnom
  Penh government"); a body's noun does not join a known place or a nationality
  ("the U.S. government").
- Organization (0.8): a numbered unit ("the 6th Fleet", "12th Brigade").
- Organization (0.85): a run containing a suffix or keyword (Inc, Ltd, Corp, GmbH,
  University, Ministry, Party, ...), or one of a few single-word bodies (Congress, Navy).
- Location (0.8): a run ending in Street, River, Plant, County, District, Forest, ...;
  a capital or large city by name (Moscow, Dallas).
- Location (0.7): a place's kind, then its name ("Lake Constance", "Fort Bend"), or a
  place head and "of" ("Sea of Japan", "District of Columbia").
- Location (0.7): a news dateline's capitalised place ("DAYTON, Ohio (AP)").
- Location, then Organization (0.6): a wire report's place and source ("Moscow
  INTERFAX", "Paris Radio Monte Carlo in Arabic"); a reference code
  ("PA2904034294") is no word of a name.
- Concept (0.5): an acronym made or built ("Wilkes built the EDSAC").
- Location (0.6): a run after "in", "at", "near", "from", ..., or "north of" /
  "town of", or before ", <known place>" ("Aiken, S.C.").
- Organization (0.6): a lone ALL-CAPS word of 2-6 letters, or dotted (U.N.).
- Location (0.6): a run after "<person> of" ("Brian Michaud of Millinocket") or
  "native of".
- Organization (0.6): a dateline's wire agency ("Moscow March 5 ( ITAR-TASS ) --");
  a run after "<place>-based" ("the Frankfurt-based Commerzbank"); a run before a
  staff noun ("Chevron spokesman", "an Emery employee"); "Institute of ...", "Union
  of ..." (a body keyword, then "of").
- Person (0.5): one word with what only a person has after it (", who", an age, "'s
  assassin", "'s lawyers", "has said", a killing within eight words: "Oswald acted
  alone in killing", "Kennedy was shot", a post in apposition or stated: ", a
  designer", "is a lawyer") or a killing before it ("killing Kennedy").
- Person (0.7): one word equal to the last word of a Person found earlier in the chunk.
- Concept / Organization (0.5): a run with an event's word ("World War II"); one
  opening with a firm's word ("International Paper"), or all in capitals
  ("MOSKOVSKIY KOMSOMOLETS").
- Person (0.6 / 0.5): a word before "said"/"told"; any 2-4 word Titlecase run.
- Person (0.4): a sentence's first word followed by an age or a description ("Tal, a
  senior ... official"). A lone capitalised word inside a sentence is not typed a
  Person: as "David" or "Danny" it joined two people's mentions in consolidation
  (Re-DocRED's chain audit), so it stays a Concept.
- Concept (0.3): any other capitalised run that does not start a sentence, or that
  does and has several words, or one word the sentence defines ("Odessa is a ...").
- A single word opening a sentence is a name when the chunk names it elsewhere
  ("Villanova is small ... at Villanova"), with that name's type.
- A birthplace "town , state" after "born in" is one Location ("born in Lubbock ,
  Texas"); elsewhere the two stay apart.
- A wire headline (the words before a reference code: "Police Find No Signs of
  Radiation Leak AU0202111694") capitalises every word: there a run typed only by
  its shape (a Titlecase Person or Concept guess, 0.5 or less) is dropped.
- A year next to an event's name joins it: "2010 Winter Olympics", "Eurovision Song
  Contest 2009" (Concept).

Capitalised runs are maximal sequences of capitalised words joined by single
spaces or a spaced hyphen ("Rhineland - Palatinate", not between two demonyms) or
a spaced apostrophe after an initial ("Kevin O 'Brien"),
which may contain connectors ("of", "de", "von der", "&", and "and" only inside an
organisation name; "of" after an organisation or place head, or after one word that
is no title, office or known place: "Order of the Rising Sun", "Call of Duty"). A
number right after a run belongs to it ("Atari 2600"). A run stops at a sentence
that starts after an abbreviation ("the U.S. It was"). A sentence-initial
function word ("The", "In", "He", ...) is dropped from a run. An honorific stays
in a person's name, as written ("President Lincoln", "Dr. Lee DeForest"); an office
or rank does not ("Gov. James Thompson" names "James Thompson"), and still types
the name a Person. A title or office inside a run splits off the place, town, body
or nationality before it ("Illinois Gov. James Thompson", "Whitefish City Attorney
Tom Muri", "CNEN Radioprotection Director Laercio Vinhas").

What it cannot do:

- **Relationships only where a pattern states them** (`extraction.relations`):
  "X, director of the Y", "Y-based X", "X was born in Y", "X killed Y", ... between
  two mentions of one sentence, each edge with the span of its words. Two names
  that merely co-occur get no edge; most stated facts use words no pattern knows.
- No lowercase entities (diseases, chemicals, "the company").
- No pronoun or alias resolution beyond the surname rule above.
- Types are heuristic: a person named right after "from" or "at" is typed Location;
  a two-word product name is typed Person; a company with no suffix,
  cue or acronym shape is a Concept.
- English only: the word lists are English.

Confidence values rank the rules against each other; they are not calibrated
probabilities. Its accuracy on a real gold set is measured by
`bench/extraction_conll04.py` and quoted in docs/how-to/offline-extraction.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from redstring.extraction.extractor import ChunkExtraction, EntityMention
from redstring.extraction.relations import Mention, find_relations

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from redstring.extraction.chunking import Chunk

PERSON, ORGANIZATION, LOCATION, DATE, MONEY, CONCEPT = (
    "Person",
    "Organization",
    "Location",
    "Date",
    "Money",
    "Concept",
)
PERCENT, NUMBER, GROUP = ("Percent", "Number", "Group")
#: Every type the offline extractor can assign (the general domain's, plus values and groups).
OFFLINE_ENTITY_TYPES = (
    PERSON, ORGANIZATION, LOCATION, DATE, MONEY, PERCENT, NUMBER, GROUP, CONCEPT,
)  # fmt: skip


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


TITLES = _words(
    "Mr Mrs Ms Miss Dr Prof Professor President Vice Sen Senator Rep Representative Gov "
    "Governor Gen General Col Colonel Lt Lieutenant Capt Captain Sgt Sergeant Adm Admiral "
    "Judge Justice King Queen Prince Princess Pope Rev Reverend Father Sister Brother Rabbi "
    "Imam Sheikh Minister Premier Chancellor Mayor Secretary Ambassador Chairman Chairwoman "
    "Sir Dame Lady Lord St Saint Cardinal Bishop Archbishop Commissioner Officer Detective "
    "Chief Deputy Attorney Speaker Dean Major Maj"
)
#: Honorifics and styles: a form of address that CoNLL04-style annotation and common
#: usage keep with the name ("Mr. Smith", "Dr. Lee DeForest", "President Lincoln",
#: "Prince Norodom Sihanouk"). Every other title is an office or rank held for a while
#: ("Gov.", "Sen.", "Ambassador", "Prime Minister"): it describes the person's post, is
#: left out of the name's span, and still types the name a Person.
HONORIFICS = _words(
    "Mr Mrs Ms Miss Dr Prof Professor President Rev Reverend Father Sister Brother Rabbi "
    "Imam Sheikh Sir Dame Lady Lord St Saint Pope King Queen Prince Princess Cardinal "
    "Emperor Empress Duke Duchess Count Countess Earl Baron Baroness Viscount Marquess "
    "Marquis Tsar Czar Sultan Caliph Khan Shah Pharaoh"
)
#: Ranks and offices that name nobody on their own: a run made only of these and
#: connectors ("King", "Prime Minister", "Duke of") is dropped, not typed Person.
BARE_TITLES = TITLES | _words(
    "Emperor Empress Duke Duchess Count Countess Earl Baron Baroness Viscount Marquess "
    "Marquis Tsar Czar Sultan Caliph Khan Shah Pharaoh Prime Vice President Minister "
    "Governor Senator Mayor Chief Executive Director Manager Coach Head Leader Commander"
)
#: Offices and ranks: left out of a person's span (`HONORIFICS` says why).
_OFFICE_TITLES = BARE_TITLES - HONORIFICS
#: Nationality and group adjectives ("American", "Soviet", "Catholic"): typed Group,
#: never Person/Location/Organization, so the resolver never fuzzy-merges them.
#: Written for this project from the country list below, plus common religious and
#: political groups.
DEMONYMS = _words(
    "Afghan Albanian Algerian American Angolan Arab Arabian Argentine Argentinian Armenian "
    "Asian Australian Austrian Bangladeshi Belgian Bolivian Bosnian Brazilian British Briton "
    "Bulgarian Burmese Cambodian Canadian Chilean Chinese Colombian Croatian Cuban Cypriot "
    "Czech Danish Dutch Ecuadorian Egyptian English Estonian Ethiopian European Filipino "
    "Finnish French Georgian German Ghanaian Greek Guatemalan Guinean Haitian Hungarian Icelandic "
    "Indian Indonesian Iranian Iraqi Irish Israeli Italian Jamaican Japanese Jordanian Kenyan "
    "Korean Kurdish Kuwaiti Latin Latvian Lebanese Liberian Libyan Lithuanian Malaysian "
    "Mexican Mongolian Moroccan Nepalese Nigerian Norwegian Pakistani Palestinian Panamanian "
    "Persian Peruvian Polish Portuguese Romanian Roman Russian Rwandan Saudi Scottish Serbian "
    "Slovak Slovenian Somali Soviet Spanish Sudanese Swedish Swiss Syrian Taiwanese Thai "
    "Tibetan Tunisian Turkish Ugandan Ukrainian Uruguayan Venezuelan Vietnamese Welsh Yemeni "
    "Yugoslav Zambian Zimbabwean African Africans Americans Europeans Asians Germans "
    "Italians Russians Israelis Palestinians Arabs Jews Jewish Muslim Muslims Islamic "
    "Christian Christians Catholic Catholics Protestant Protestants Buddhist Hindu Sikh "
    "Republican Republicans Democrat Democrats Democratic Communist Communists Socialist "
    "Conservative Liberal Nazi Nazis Sunni Shia Shiite Orthodox Byzantine Ottoman Anglo "
    "Hispanic Latino Caucasian Celtic Norman Saxon Viking Mughal Han Manchu Arabic Hebrew "
    "Hindi Urdu Farsi Swahili Mandarin Cantonese"
)
ORG_KEYWORDS = _words(
    "Inc Incorporated Corp Corporation Co Company Companies Ltd Limited LLC LLP PLC Plc GmbH "
    "AG SA NV BV SpA AB Group Holdings Bank Bancorp University College Institute Institution "
    "School Academy Association Society Agency Administration Authority Commission Committee "
    "Council Department Ministry Bureau Office Party Union Federation League Foundation Fund "
    "Trust Airlines Airways Railways Motors Industries Technologies Systems Laboratories Labs "
    "Press Army Navy Force Forces Guard Police Court Congress Parliament Senate Assembly "
    "Church Hospital Museum Network Television Radio Broadcasting Corps Service Services "
    "Organization Organisation Club Team Board Government Agency Magazine Alliance Front "
    "Movement Entertainment Properties Laboratory Fleet Brigade Tribune"
)
CONNECTORS = _words("of the for de del da di du van von der den la le y &")
MONTHS = _words(
    "January February March April May June July August September October November "
    "December Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec"
)
WEEKDAYS = _words("Monday Tuesday Wednesday Thursday Friday Saturday Sunday")
#: Capitalised only because they start a sentence (or are pronouns/determiners).
FUNCTION_WORDS = _words(
    "The A An In On At He She It They We I You This That These Those But And Or If When "
    "While After Before As For From With By Of To His Her Their Its Our My Your There Here "
    "What Who Whom Which Why How Yesterday Today Tomorrow Also However Meanwhile According "
    "Although Though Because Since Until Once Then Now Some Many Most All Both Each Every "
    "No Not Other Another Such Only Even Still Yet So Thus Instead During Under Over Into "
    "Despite Among Between Without Within Against About Above Below Last Next First One Two "
    "Three Four Five Six Seven Eight Nine Ten Several Few More Less Mrs Mr Ms Dr Is Was Are "
    "Were Be Been Has Have Had Do Does Did Will Would Can Could Should May Might Must Let "
    "Please Thank Thanks Yes Oh Well Just Like Asked Said Police Officials Authorities "
    "Photo Page Story News Report Reports Update Editor Editors Note Chapter Section Table "
    "Figure Part Volume Today's Where Whether Whose Any Nothing Everything Someone Nobody"
)
#: Connectors that continue a name only after a head word: "University of Paris",
#: "Gulf of Mexico" -- but not "Brian Michaud of Millinocket".
_HEADED_CONNECTORS = _words("of for the")
PLACE_HEADS = _words(
    "Palace Gulf Bay Sea Lake River Mount Cape Isle Islands Republic Kingdom State States "
    "Province County City Port Strait Valley Plant Bank Coast District"
)
#: First words that make a run a place: "Lake Constance", "Fort Bend", "San Gabriel".
_PLACE_FIRST_WORDS = _words("Lake Mount Mt Fort Ft Cape Port Sierra Santa San Puerto Rio")
#: Last words that make a run a place: "Nelson Street", "Savannah River Plant".
PLACE_KEYWORDS = _words(
    "Street St Avenue Ave Road Rd Boulevard Blvd Highway Lane Drive River Lake Mountain "
    "Mountains Plant Park Bridge Square Canyon Valley Island Islands Bay County Fork Beach "
    "Harbor Harbour Airport Channel Heights Springs Falls Creek Hills Peninsula Desert Ocean "
    "District Forest City Parish Range Center Centre Theater Theatre Coast Counties Palace "
    "Sea Gulf"
)
#: Single words that name an organisation on their own.
SINGLE_WORD_ORGS = _words(
    "Congress Parliament Senate Pentagon Kremlin Vatican Interpol Navy Army Knesset Duma "
    "Politburo Bundestag Bundesbank"
)
#: "northeast of Boise", "the town of Lowman": "of" after these introduces a place.
_PLACE_OF = _words(
    "north south east west northeast northwest southeast southwest town city village "
    "county state province suburb capital outskirts region island native natives resident "
    "residents"
)
LOCATION_PREPOSITIONS = _words(
    "in at near from outside inside across toward towards into via throughout around"
)
SPEECH_VERBS = _words("said says told added stated declared announced reported")
KNOWN_PLACES = _words(
    "Afghanistan Albania Algeria Angola Argentina Armenia Australia Austria Bangladesh "
    "Belgium Bolivia Bosnia Brazil Bulgaria Cambodia Canada Chile China Colombia Croatia "
    "Cuba Cyprus Czechoslovakia Denmark Ecuador Egypt England Ethiopia Europe Africa "
    "Asia America Antarctica Finland France Germany Ghana Greece Guatemala Haiti "
    "Honduras Hungary Iceland India Indonesia Iran Iraq Ireland Israel Italy Jamaica "
    "Japan Jordan Kenya Korea Kosovo Kuwait Laos Lebanon Liberia Libya Lithuania "
    "Malaysia Mexico Mongolia Morocco Mozambique Nepal Netherlands Nicaragua Nigeria "
    "Norway Pakistan Panama Peru Philippines Poland Portugal Romania Russia Rwanda "
    "Scotland Serbia Singapore Somalia Spain Sudan Sweden Switzerland Syria Taiwan "
    "Tanzania Thailand Tibet Tunisia Turkey Uganda Ukraine Uruguay Venezuela Vietnam "
    "Wales Yemen Yugoslavia Zaire Zambia Zimbabwe Madagascar Oman Qatar Bahrain Chad Mali "
    "Niger Senegal Gabon Cameroon Congo Sudan Eritrea Djibouti Botswana Namibia "
    "Malawi Burundi Benin Togo Mauritania Belarus Moldova Estonia Latvia Slovakia Slovenia "
    "Macedonia Montenegro Luxembourg Monaco Malta Kazakhstan Uzbekistan Turkmenistan "
    "Kyrgyzstan Tajikistan Azerbaijan Burma Myanmar Bhutan Brunei Fiji Paraguay Guyana "
    "Suriname Belize Bahamas Barbados Grenada Dominica Bosnia-Herzegovina Herzegovina "
    "Alabama Alaska Arizona Arkansas "
    "California Colorado Connecticut Delaware Florida Georgia Hawaii Idaho Illinois "
    "Indiana Iowa Kansas Kentucky Louisiana Maine Maryland Massachusetts Michigan "
    "Minnesota Mississippi Missouri Montana Nebraska Nevada Ohio Oklahoma Oregon "
    "Pennsylvania Tennessee Texas Utah Vermont Virginia Washington Wisconsin Wyoming "
    "Ala. Ariz. Ark. Calif. Colo. Conn. Del. Fla. Ga. Ill. Ind. Kan. Ky. La. Md. Mass. "
    "Mich. Minn. Miss. Mo. Mont. Neb. Nev. N.H. N.J. N.M. N.Y. N.C. N.D. Okla. Ore. Pa. "
    "R.I. S.C. S.D. Tenn. Tex. Vt. Va. Wash. Wis. Wyo. D.C. U.S. U.K. USA UK USSR US"
) | frozenset(
    [
        "United States",
        "United Kingdom",
        "Soviet Union",
        "New York",
        "New Jersey",
        "New Mexico",
        "New Hampshire",
        "North Carolina",
        "South Carolina",
        "North Dakota",
        "South Dakota",
        "West Virginia",
        "Rhode Island",
        "South Africa",
        "North Korea",
        "South Korea",
        "Saudi Arabia",
        "New Zealand",
        "Sri Lanka",
        "El Salvador",
        "Costa Rica",
        "Hong Kong",
        "Latin America",
        "Middle East",
        "Puerto Rico",
        "Sierra Leone",
        # Seas, deserts and regions that one word names.
        "Mediterranean",
        "Caribbean",
        "Baltic",
        "Adriatic",
        "Aegean",
        "Sahara",
        "Balkans",
        "Caucasus",
        "Siberia",
        "Scandinavia",
        "Arctic",
        "West Germany",
        "East Germany",
        "North Vietnam",
        "South Vietnam",
    ]
)
#: Capitals and large cities, written for this project from general knowledge: a lone
#: word with no other cue ("in Moscow" has one, "Moscow said" has none).
WORLD_CITIES = _words(
    "London Paris Berlin Madrid Rome Lisbon Dublin Brussels Amsterdam Vienna Prague Warsaw "
    "Budapest Bucharest Sofia Athens Belgrade Zagreb Sarajevo Ljubljana Bratislava Kiev Kyiv "
    "Minsk Moscow Vilnius Riga Tallinn Helsinki Stockholm Oslo Copenhagen Reykjavik Bern "
    "Geneva Zurich Munich Frankfurt Hamburg Milan Naples Venice Florence Barcelona Istanbul "
    "Ankara Cairo Tripoli Tunis Algiers Rabat Khartoum Nairobi Lagos Accra Dakar Kinshasa "
    "Johannesburg Pretoria Beirut Damascus Baghdad Amman Jerusalem Riyadh Tehran Kabul "
    "Islamabad Karachi Delhi Bombay Mumbai Calcutta Dhaka Colombo Kathmandu Bangkok Hanoi "
    "Saigon Manila Jakarta Singapore Beijing Peking Shanghai Taipei Seoul Pyongyang Tokyo "
    "Osaka Kyoto Sydney Melbourne Canberra Wellington Auckland Ottawa Toronto Montreal "
    "Vancouver Havana Caracas Bogota Lima Quito Santiago Brasilia "
    "Montevideo Managua Tegucigalpa Guatemala Chicago Boston Philadelphia Detroit Houston "
    "Dallas Atlanta Miami Denver Phoenix Seattle Baltimore Pittsburgh Cleveland Cincinnati "
    "Milwaukee Minneapolis Nashville Memphis Austin Portland Sacramento Anchorage Honolulu "
    "Brooklyn Manhattan Queens Hollywood Vladivostok Leningrad Tbilisi Yerevan Baku"
) | frozenset(["Los Angeles", "San Francisco", "San Diego", "New Orleans", "Las Vegas",
               "Mexico City", "New York City", "Buenos Aires", "Hong Kong", "Tel Aviv",
               "Rio de Janeiro", "St. Louis", "Salt Lake City", "Kansas City"])  # fmt: skip
#: Short forms that end in a period without ending a sentence.
#: Only the organisation keywords that are abbreviations: "Museum." at the end of a
#: sentence is a full stop, "Corp." is not.
_ORG_ABBREVIATIONS = _words("Inc Corp Co Ltd Bros Assn Dept Univ Intl Mfg Cie Plc")
_ABBREVIATIONS = (
    TITLES | _ORG_ABBREVIATIONS | frozenset(m for m in MONTHS if len(m) <= 4) | {"Jr", "Sr", "No"}
)

_TOKEN = re.compile(r"[^\W\d_][\w'’\-]*(?:\.[^\W\d_]+)*\.?|&")
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_DATE = re.compile(
    rf"\b(?:(?:{_MONTH})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:\s*,\s*\d{{4}})?"
    # "26 Apr 94": a wire dateline's two-digit year, not a count ("5 May 20 people").
    rf"|\d{{1,2}}\s+(?:{_MONTH})\.?(?:\s+\d{{4}}|\s+\d{{2}}(?!\d|\s+[a-z]{{2}}))?"
    rf"|(?:{_MONTH})\.?\s+\d{{4}}"
    r"|(?<![\d$.,])(?:1[5-9]\d\d|20\d\d)(?![\d,.]\d)"
    # Not a year: a season ("1983–84"), a clock time ("1700 GMT").
    r"(?!\s?[–-]\s?\d\d(?!\d))(?!\s*(?:GMT|UTC|EST|EDT|CET|hours|hrs)\b))\b"
)
#: A weekday alone ("said Tuesday", "on Monday") names a day only relative to when
#: the text was written, which the text does not say: no entity a graph can use, and
#: CoNLL04 labels 3 of dev's 24. Its span is still reserved, so it is never read as a
#: name either ("Good Friday" stays as before: "Good" alone).
_WEEKDAY = re.compile(rf"\b(?:{'|'.join(sorted(WEEKDAYS))})\b")
#: A clock time with its zone or half of the day: "0400 GMT", "2 a.m. EST", "1:50 p.m.".
_TIME = re.compile(
    r"(?<![\w.])(?:\d{4}\s?(?:GMT|UTC)"
    r"|\d{1,2}(?:\s?:\s?\d\d)?\s?(?:a\.m\.?|p\.m\.?)(?:\s(?:[ECMP][SD]T|GMT|UTC)\b)?)"
)
#: A year-shaped number after a ticker or code is an identifier: "TSE 1503".
_CODE_BEFORE = re.compile(r"(?<![\w.])(?!(?:AD|BC|BCE|CE)\s)[A-Z]{2,6}\s$")
_MONEY = re.compile(
    r"[$€£]\s?\d[\d,]*(?:\.\d+)?(?:\s+(?:million|billion|trillion|thousand))?"
    r"|\b\d[\d,]*(?:\.\d+)?(?:\s+(?:million|billion|trillion|thousand))?\s+"
    r"(?:dollars|euros|pounds|yen|francs|marks|rupees)\b"
)
_PERCENT = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?\s?(?:%|per ?cent\b)")
#: Decades and centuries ("1990s", "the early 20th century"): dates at that precision.
_DECADE = re.compile(
    r"\b(?:the\s+)?(?:(?:early|mid|late)[- ]?\s*)?"
    r"(?:(?:1[0-9]|20)\d0s\b|\d{1,2}(?:st|nd|rd|th)[- ]century\b)"
)
#: Spelled numbers; "one" is left out, it is far more often a pronoun than a count.
_CARDINALS = sorted(
    _words(
        "two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
        "eighty ninety hundred thousand million billion"
    ),
    key=len,
    reverse=True,
)
_NUMBER = re.compile(
    r"(?<![\w.,$€£+/#–—-])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w%]|,\d)"
    r"|(?<![\w.,$€£:+/#–—-])\d+(?:\.\d+)?(?:\s+(?:million|billion|thousand))?(?![\w%.,]\d|[\w%+])"
    rf"|\b(?i:{'|'.join(_CARDINALS)})(?:(?:\s*-\s*|\s)(?i:{'|'.join(_CARDINALS)}))*\b"
)
#: Where a number is part of something else: "Flight 007", "Region 2" (a name before
#: it), "p 6", "pp. 12", "vol. 3" (a page or part), "number 9", "No . 1", "top 40", "# 49"
#: (a rank), "2 , 000" (a tokenised thousands
#: separator), "2003–04", "12–16 mm", "ASEAN+3", "3 p.m.", "John 4:23", "Thirty - first".
_NUMBER_INSIDE_BEFORE = re.compile(
    r"(?:(?<![\w.])[A-Z][\w’'-]*\s|(?<![\w.])(?:p|pp|vol|ch|fig|no|art|sec|para)\.?\s"
    r"|(?<![\w.])(?:number|No \.|top|top -)\s|#\s?"
    r"|\d\s?,\s?|\d{4}\s?[–-]\s?)$"
)
_NUMBER_INSIDE_AFTER = re.compile(
    r"^(?:\s?,\s?\d{3}\b|\s*(?:a\.m|p\.m|am\b|pm\b)|:\d|\s?[-–]\s?\d"
    r"|\s?[-–]\s?(?i:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)\b)"
)
#: A spelled number written capitalised inside a sentence is a title's word, not a
#: count: "Hold On to Sixteen", "the Thirty Years' War", "the Four Tops".
_SENTENCE_OPENING = re.compile(r"(?:^|[.!?:;\n])\s*[\"'“‘(]?\s*$")
#: A title in quotes ("Hold On to Sixteen", "Get on the Carousel"): one name, whatever
#: its small words and numbers; tokenised text spaces the quotes off.
_QUOTED = re.compile(r'(?:(?<=\s)|^)["“]\s?([^"“”\n]{1,120}?)\s?["”](?=\s|$|[,.;:)])')
_MAX_TITLE_WORDS = 10
_DEFINES = re.compile(r" (?:\(|(?:is|was|are|were) (?:a|an|the)\b)")
_NAME_NUMBER = re.compile(r" \d{1,4}[A-Za-z]?(?![\w,.:%\u00a0-]|\s?(?:%|per))")
#: A unit after a count is part of the quantity: "four years", "66 km", "600 MW".
_UNIT = re.compile(
    r"\s?-\s?(?:year|month|week|day|hour|minute|mile|meter|metre|part|volume)s?\b"
    r"|[\s\u00a0]+(?:years?|months?|weeks?|days?|hours?|minutes?|seconds?|decades?|centuries"
    r"|km|kilometres?|kilometers?|miles?|m|mm|cm|metres?|meters?|feet|ft|inches|kg|tonnes?|tons?"
    r"|acres?|ha|hectares?|MW|GW|kW|cents?)\b"
)
_VALUE_TYPES = frozenset({DATE, MONEY, PERCENT, NUMBER})
#: Offices and degrees before "of" name a post, not a body: "Director of the Middle
#: East", "Doctor of Historical Sciences Sergey Rogov".
_OFFICES = frozenset({"Doctor", "Master", "Bachelor", "Vice", "Head", "Member", "Professor"})
_SENTENCE_END = re.compile(r"[.!?][\"')\]’”]*\s+|\n")
#: "of" that introduces a place: a company's seat ("Globex Inc. of Pittsburgh") or a
#: person's home town after a name and an age ("John Smith, 41, of Millinocket").
_PLACE_OF_BEFORE = re.compile(
    rf"(?:\b(?:{'|'.join(sorted(_ORG_ABBREVIATIONS))})\.?|,\s*\d{{1,3}}\s*,)\s+of\s+$"
)
#: Staff nouns: the run before one names whose staff ("Chevron spokesman").
_STAFF_NOUNS = _words(
    "spokesman spokeswoman spokesperson employee employees executive executives official "
    "officials chairman analyst analysts engineer engineers worker workers staff lawyer "
    "lawyers attorney attorneys director directors president"
)
#: After a sentence's first word: an age or a description in apposition names a person.
_APPOSITION = re.compile(
    r" , (?:\d{1,3} ,|(?:a|an) (?:[\w-]+ ){0,4}(?:official|leader|member|"
    r"professor|lawyer|spokesman|spokeswoman|director|chairman|president|"
    r"executive|commander|minister|officer|senator|judge)\b)"
)
#: Occupations and posts only a person holds (not "member", "leader" or "player":
#: a body is a member, a leader in its field, a media player a device).
_PERSON_ROLES = (
    r"(?:designer|appointee|official|professor|lawyer|spokesman|spokeswoman|director|"
    r"chairman|president|commander|minister|officer|senator|judge|writer|author|actor|"
    r"actress|singer|politician|poet|painter|composer|historian|journalist|businessman|"
    r"economist|scientist|character)"
)
#: After one capitalised word, what only a person has: a relative "who", an age in
#: apposition, a killer or a lawyer ("Starr , who", "Winter , 53 ,", "Kennedy 's
#: assassin"), a post in apposition or stated ("Blackwell , a designer", "Lazutkin ,
#: former first deputy general director", "Marshall is a lawyer"). Not kin ("Manon
#: 's mother"): it types given names, and a lone given name typed Person joins a
#: full name (`test_a_lone_given_name_...`); on Re-DocRED it took within-document
#: merge precision under 0.95.
_PERSON_AFTER = re.compile(
    r"\s?,\s(?:who\b|\d{1,3}\s?,)"
    # "Stone has said"; "Oswald acted alone in killing", "Kennedy was shot".
    r"|\s(?:has|had|have)\s(?:also\s)?(?:said|told)\b"
    r"|(?:\s(?:[a-z]+|,)){0,8}?\s(?:killed|killing|assassinated|assassinating|murdered|"
    r"murdering|shot)\b"
    r"|\s?['’]s\s(?:assassin|killer|murderer|assassination|killing|murder|lawyers?|"
    r"attorneys?)\b"
    rf"|\s,\s(?:a|an|the|former)\s(?:[\w-]+\s){{0,5}}?{_PERSON_ROLES}\b"
    rf"|\s(?:is|was)\s(?:a|an)\s(?:[\w-]+\s){{0,3}}?{_PERSON_ROLES}\b"
)
#: Before one capitalised word, a killing done to it: "killing Kennedy",
#: "the assassination of Lincoln" (the KILLED patterns read the same words).
_KILLED_BEFORE = re.compile(
    r"\b(?:killed|killing|assassinated|assassinating|murdered|murdering|shot|shooting|"
    r"(?:assassination|killing|murder|slaying|assassin|killer|murderer)\s+of)\s$"
)
#: A verb of making before "the": "built the EDSAC", "launched the XR7".
_MADE_BEFORE = re.compile(
    r"\b(?:built|builds|designed|designs|developed|develops|invented|made|makes|launched|"
    r"released|constructed|programmed|produced|flew|flies|drove|drives)\s+(?:the\s+|an?\s+)?$"
)
_ACRONYM = re.compile(r"^(?:[A-Z]{2,6}|(?:[A-Z]\.){2,4})$")


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    start: int
    end: int

    @property
    def bare(self) -> str:
        return self.text.rstrip(".")


@dataclass(frozen=True, slots=True)
class _Found:
    name: str
    entity_type: str
    start: int
    end: int
    confidence: float


#: A wire service's reference code ("PA2904034294", "AU0202111694"): letters, then
#: five or more digits. It is no word of a name, so it ends a run and starts none.
_REFERENCE_CODE = re.compile(r"^[A-Z]{1,4}\d{5,}$")

#: A reference code standing alone in running text, for `_headlines`.
_CODE_IN_TEXT = re.compile(r"(?<!\S)[A-Z]{1,4}\d{5,}(?!\S)")
_LINE_OR_SENTENCE_END = re.compile(r"\n|[.!?][\"')\]’”]*\s")
#: The confidence of the rules that type a run by its shape alone (any Titlecase
#: run a Person, any other capitalised run a Concept) rather than by a cue.
_GUESS = 0.5


def _headlines(text: str) -> list[tuple[int, int]]:
    """Spans of wire headlines: the words before a reference code, back to the line or
    sentence end ("Police Find No Signs of Radiation Leak AU0202111694 Paris AFP").

    A headline capitalises every word, so there a capital says nothing: a run the
    rules type only by its shape ("Find No Signs", "Announces Offer") is no name.
    """
    spans = []
    for code in _CODE_IN_TEXT.finditer(text):
        ends = [m.end() for m in _LINE_OR_SENTENCE_END.finditer(text, 0, code.start())]
        spans.append((ends[-1] if ends else 0, code.start()))
    return spans


def _is_capitalised(token: str) -> bool:
    return token[:1].isupper() and _REFERENCE_CODE.match(token) is None


#: Words that make a name an event's, not a person's: "World War II", "the Moscow
#: Tchaikovsky International Competition", "Camp David Accords".
_EVENT_NAME_WORDS = _words(
    "War Wars Competition Championship Championships Olympics Olympiad Games Festival "
    "Tournament Cup Prize Awards Conference Summit Revolution Treaty Accord Accords Expo "
    "Crusade Massacre Uprising Rebellion Election Elections"
)
#: First words of firms' names that are no one's given name: "International Paper",
#: "Federal Express", "Continental Airlines".
_CORPORATE_FIRST_WORDS = _words(
    "International National Federal Global Universal United Consolidated Continental "
    "Allied Amalgamated Standard Royal Imperial Central Northern Southern Eastern Western "
    "Pacific Atlantic Commonwealth Metropolitan Municipal Mutual Associated Integrated "
    "Advanced Applied Digital"
)
#: Units named by their number: "6th Fleet", "12th Brigade", "82nd Airborne Division".
_UNITS = _words(
    "Fleet Brigade Division Regiment Battalion Squadron Army Corps Infantry Cavalry "
    "Airborne Armored Armoured Artillery Wing Group District Precinct Congress"
)
#: Lowercase nouns that name what kind of place or body the name before them is:
#: "the Sahara desert", "the Najd plateau", "NHK network", "the Phnom Penh
#: government". After a known place or a nationality only a place head joins ("the
#: U.S. government" is the U.S.'s, "a U.S. bank" some bank in it, "the South Korean
#: government" South Korea's).
_PLACE_HEAD_NOUNS = _words("desert plateau river mountains valley basin peninsula")
_BODY_HEAD_NOUNS = _words("government network bank newspaper")
_LOWERCASE_HEAD = re.compile(rf" ({'|'.join(sorted(_PLACE_HEAD_NOUNS | _BODY_HEAD_NOUNS))})\b(?!-)")
_ORDINAL_BEFORE = re.compile(r"(?<![\w.,])\d{1,3}(?:st|nd|rd|th)\s$")
_AGENCY_BEFORE = re.compile(r"\(\s?$")
_AGENCY_AFTER = re.compile(r"\s?\)\s?(?:--|—|–)")
_BASED_BEFORE = re.compile(r"\w-based\s$")
_GLUED_SUFFIX = re.compile(r"([A-Z][\w'’.]*?)-(?:based|born)")


def _tokens(text: str) -> list[_Token]:
    """Word tokens; a trailing period is kept only on abbreviations and initials."""
    out: list[_Token] = []
    for match in _TOKEN.finditer(text):
        word, start, end = match.group(), match.start(), match.end()
        bare = word.rstrip(".")
        keep_period = (
            bare in _ABBREVIATIONS
            or word in KNOWN_PLACES
            or (len(bare) == 1 and bare.isupper())
            or "." in bare
        )
        if word.endswith(".") and not keep_period:
            word, end = bare, end - (len(word) - len(bare))
        glued = _GLUED_SUFFIX.fullmatch(word)
        if glued is not None:
            # "Frankfurt-based", "Texas-born": the place, then a lowercase word.
            word, end = glued.group(1), start + len(glued.group(1))
        out.append(_Token(word, start, end))
    return out


def _sentence_starts(text: str, tokens: list[_Token]) -> set[int]:
    """Token indices that begin a sentence."""
    starts = {0} if tokens else set()
    boundaries = {m.end() for m in _SENTENCE_END.finditer(text)}
    for i, token in enumerate(tokens[1:], start=1):
        previous = tokens[i - 1]
        between = text[previous.end : token.start]
        ended = previous.text.endswith(".") and previous.bare not in _ABBREVIATIONS
        by_boundary = token.start in boundaries and ("\n" in between or ended or between.strip())
        if by_boundary or (ended and len(previous.bare) > 1 and "." not in previous.bare):
            starts.add(i)
    return starts


#: A spaced hyphen between two capitalised words joins one name: "Rhineland - Palatinate",
#: "Jacques - François Blondel" (tokenised text spaces its hyphens).
_HYPHEN_GAPS = frozenset({" - ", " – "})


def _runs(text: str, tokens: list[_Token]) -> list[list[int]]:
    """Maximal runs of capitalised tokens joined by single spaces, connectors allowed inside."""
    runs: list[list[int]] = []
    i = 0
    while i < len(tokens):
        if not _is_capitalised(tokens[i].text) or tokens[i].bare in CONNECTORS:
            i += 1
            continue
        run = [i]
        j = i + 1
        while j < len(tokens):
            gap = text[tokens[j - 1].end : tokens[j].start]
            hyphen = (
                gap in _HYPHEN_GAPS
                and _is_capitalised(tokens[j].text)
                and not {tokens[j - 1].bare, tokens[j].bare} & DEMONYMS
            ) or (
                # "Kevin O 'Brien": tokenised text spaces off a surname's apostrophe.
                gap in (" '", " ’")
                and len(tokens[j - 1].text) == 1
                and _is_capitalised(tokens[j].text)
            )
            if (gap != " " and not hyphen) or (
                tokens[j - 1].text.endswith(".")
                and tokens[j - 1].bare not in (_ABBREVIATIONS)
                and "." not in tokens[j - 1].bare
                and len(tokens[j - 1].bare) > 1
            ):
                break
            word = tokens[j].text
            if tokens[j - 1].text.endswith(".") and word in FUNCTION_WORDS:
                break  # "... in the U.S. It was": a new sentence, not "U.S. It".
            if _is_capitalised(word) and word not in ("&",):
                run.append(j)
                j += 1
                continue
            needs_head = word in _HEADED_CONNECTORS
            # "Order of the Rising Sun", "Call of Duty": one word then "of" is a head;
            # "Brian Michaud of Millinocket" (two words) is a person and a place.
            head_ok = (
                # "Globex Inc. of Pittsburgh": a company suffix closes the name.
                (
                    tokens[j - 1].bare in ORG_KEYWORDS | PLACE_HEADS
                    and tokens[j - 1].bare not in _ORG_ABBREVIATIONS
                )
                or (
                    len(run) == 1
                    and word == "of"
                    and tokens[run[0]].bare not in FUNCTION_WORDS | BARE_TITLES | _OFFICES
                    and tokens[run[0]].text not in KNOWN_PLACES
                    # "the capture in London of James Earl Ray": a place, then a person.
                    and (
                        run[0] == 0 or tokens[run[0] - 1].text.lower() not in LOCATION_PREPOSITIONS
                    )
                )
                or (
                    # "House of Commons of Canada": a body's name, then the country it is of.
                    word == "of"
                    and any(tokens[k].text == "of" for k in run)
                    and j + 1 < len(tokens)
                    and tokens[j + 1].text in KNOWN_PLACES
                )
            )
            if (word in CONNECTORS or word == "and") and (head_ok or not needs_head):
                # Connectors may chain ("von der", "of the") before the next name word.
                k = j
                while k < len(tokens) and tokens[k].text in CONNECTORS and k - j < 2:
                    if (
                        text[tokens[k].end : tokens[k + 1].start if k + 1 < len(tokens) else 0]
                        != " "
                    ):
                        break
                    k += 1
                if (
                    k < len(tokens)
                    and k > j
                    and _is_capitalised(tokens[k].text)
                    and (tokens[k].text not in CONNECTORS)
                    and text[tokens[k - 1].end : tokens[k].start] == " "
                ):
                    run.extend(range(j, k))
                    j = k
                    continue
                if word == "and" and j + 1 < len(tokens):
                    after_gap = text[tokens[j].end : tokens[j + 1].start]
                    if after_gap == " " and _is_capitalised(tokens[j + 1].text):
                        run.append(j)
                        j += 1
                        continue
            break
        runs.append(run)
        i = j
    return runs


def _split_on_and(run: list[int], tokens: list[_Token]) -> list[list[int]]:
    """Keep "and" inside an organisation name; otherwise it separates two names."""
    if not any(tokens[k].text == "and" for k in run):
        return [run]
    parts: list[list[int]] = [[]]
    for k in run:
        if tokens[k].text == "and":
            parts.append([])
        else:
            parts[-1].append(k)
    parts = [p for p in parts if p]

    def has_keyword(part: list[int]) -> bool:
        return any(tokens[k].bare in ORG_KEYWORDS for k in part)

    # "National Aeronautics and Space Administration": one name, the keyword closes it.
    # "University of California and Acme Corp.": two names, each has its own keyword.
    if len(parts) == 2 and not has_keyword(parts[0]) and has_keyword(parts[1]):
        return [run]
    return parts


class OfflineExtractor:
    """Rule-based entities with character spans, and pattern relationships between them."""

    method = "offline"
    model_name: str | None = None

    def __init__(self, *, min_confidence: float = 0.0) -> None:
        """`min_confidence=0.5` drops the catch-all Concept rule's guesses (0.3)."""
        if not 0.0 <= min_confidence <= 1.0:
            raise ValueError(f"min_confidence must be in [0, 1], got {min_confidence}")
        self._min_confidence = min_confidence

    async def extract_document(self, chunks: Sequence[Chunk]) -> list[ChunkExtraction]:
        return [self.extract_chunk(chunk) for chunk in chunks]

    def extract_chunk(self, chunk: Chunk) -> ChunkExtraction:
        found = self._find(chunk.text)
        relationships = find_relations(
            chunk.text,
            [
                Mention(
                    f.name,
                    f.entity_type,
                    f.start,
                    f.end,
                    known_place=f.name in KNOWN_PLACES or f"{f.name}." in KNOWN_PLACES,
                )
                for f in found
            ],
        )
        grouped: dict[tuple[str, str], list[_Found]] = {}
        for item in found:
            grouped.setdefault((item.name, item.entity_type), []).append(item)
        entities = tuple(
            EntityMention(
                name=name,
                entity_type=entity_type,
                spans=tuple((f.start, f.end) for f in items),
                confidence=max(f.confidence for f in items),
            )
            for (name, entity_type), items in grouped.items()
        )
        return ChunkExtraction(
            chunk=chunk,
            entities=entities,
            relationships=tuple(relationships),
            method=self.method,
            model=None,
        )

    def _find(self, text: str) -> list[_Found]:
        """Every entity occurrence in `text`, in text order, spans non-overlapping."""
        found: list[_Found] = []
        taken: list[tuple[int, int]] = []

        def free(start: int, end: int) -> bool:
            return all(end <= s or start >= e for s, e in taken)

        def add(name: str, entity_type: str, start: int, end: int, confidence: float) -> None:
            found.append(_Found(name, entity_type, start, end, confidence))
            taken.append((start, end))

        for match in _QUOTED.finditer(text):
            title = match.group(1)
            words = title.split()
            if (
                len(words) <= _MAX_TITLE_WORDS
                and title[:1].isupper()
                and all(w[:1].isupper() for w in words if len(w) >= 4 and w[:1].isalpha())
                and title.rstrip()[-1:] not in ".,;:"
                and free(match.start(1), match.end(1))
            ):
                add(title, CONCEPT, match.start(1), match.end(1), 0.5)
        for pattern, entity_type in (
            (_MONEY, MONEY),
            (_PERCENT, PERCENT),
            (_TIME, DATE),
            (_DECADE, DATE),
            (_DATE, DATE),
            (_NUMBER, NUMBER),
        ):
            for match in pattern.finditer(text):
                if (
                    pattern is _DATE
                    and match.group().isdigit()
                    and (
                        _CODE_BEFORE.search(text[max(0, match.start() - 8) : match.start()])
                        or _season(text, match.start(), match.end())
                    )
                ):
                    continue
                if pattern is _NUMBER and (
                    _NUMBER_INSIDE_BEFORE.search(text[max(0, match.start() - 30) : match.start()])
                    or _NUMBER_INSIDE_AFTER.match(text[match.end() : match.end() + 12])
                    or (
                        match.group()[:1].isupper()
                        and not _SENTENCE_OPENING.search(
                            text[max(0, match.start() - 30) : match.start()]
                        )
                    )
                ):
                    continue
                end = match.end()
                if entity_type in (NUMBER, MONEY):
                    unit = _UNIT.match(text, end)
                    if unit is not None:
                        end = unit.end()
                if free(match.start(), end):
                    add(text[match.start() : end], entity_type, match.start(), end, 0.9)
        for match in _WEEKDAY.finditer(text):
            if free(match.start(), match.end()):
                taken.append((match.start(), match.end()))

        tokens = _tokens(text)
        starts = _sentence_starts(text, tokens)
        people_surnames: set[str] = set()
        openers: list[tuple[int, int]] = []

        def defer(start: int, end: int) -> None:
            openers.append((start, end))

        for raw_run in _runs(text, tokens):
            for run in _split_on_and(raw_run, tokens):
                self._classify_run(text, tokens, run, starts, people_surnames, free, add, defer)
        # A single capitalised word opening a sentence is a name when the text names
        # it elsewhere too: "Villanova is ... at Villanova", "Gujranwala ... in Gujranwala".
        named: dict[str, _Found] = {}
        for item in found:
            if item.entity_type not in _VALUE_TYPES:
                for word in item.name.split():
                    named.setdefault(word, item)
                named[item.name] = item
        for start, end in openers:
            known = named.get(text[start:end])
            if known is not None and free(start, end):
                exact = known.name == text[start:end]
                entity_type = known.entity_type if exact else CONCEPT
                add(text[start:end], entity_type, start, end, min(known.confidence, 0.5))
        found.sort(key=lambda f: f.start)
        found = _join_event_years(text, found)
        found = _join_birthplaces(text, found)
        headlines = _headlines(text)
        return [
            f
            for f in found
            if f.confidence >= self._min_confidence
            and not (
                f.confidence <= _GUESS and any(s <= f.start and f.end <= e for s, e in headlines)
            )
        ]

    def _classify_run(
        self,
        text: str,
        tokens: list[_Token],
        run: list[int],
        starts: set[int],
        people_surnames: set[str],
        free: Callable[[int, int], bool],
        add: Callable[[str, str, int, int, float], None],
        defer: Callable[[int, int], None],
    ) -> None:
        # Drop leading function words / connectors and trailing connectors.
        while run and (tokens[run[0]].bare in FUNCTION_WORDS or tokens[run[0]].text in CONNECTORS):
            if tokens[run[0]].bare in TITLES and len(run) > 1:
                break
            run = run[1:]
        while run and (tokens[run[-1]].text in CONNECTORS or tokens[run[-1]].text == "and"):
            run = run[:-1]
        if not run or all(
            tokens[k].bare in BARE_TITLES or tokens[k].text in CONNECTORS for k in run
        ):
            return
        first, last = tokens[run[0]], tokens[run[-1]]
        start, end = first.start, last.end
        if not free(start, end):
            return
        # "Atari 2600", "Interstate 287", "Ong Bak 3": a number right after a name is
        # part of it (the number rules left it alone for that reason).
        numbered = _NAME_NUMBER.match(text, end)
        if numbered is not None and free(end, numbered.end()):
            end = numbered.end()
        name = text[start:end]
        words = [tokens[k].bare for k in run]
        head = _LOWERCASE_HEAD.match(text, end)
        if head is not None and free(end, head.end()) and words[0] not in TITLES:
            head_type = LOCATION if head.group(1) in _PLACE_HEAD_NOUNS else ORGANIZATION
            place = name in KNOWN_PLACES or name in WORLD_CITIES or words[-1] in DEMONYMS
            if head_type == LOCATION or not place:
                add(text[start : head.end()], head_type, start, head.end(), 0.6)
                return
        ordinal = _ORDINAL_BEFORE.search(text, max(0, start - 8), start)
        if ordinal is not None and words[0] in _UNITS and free(ordinal.start(), start):
            # "the 6th Fleet", "the 21st Brigade of Cerro Muriano": a numbered unit.
            add(text[ordinal.start() : end], ORGANIZATION, ordinal.start(), end, 0.8)
            return
        # The word right before the run: "In 1833 , Benjamin Harrison" has none, the
        # tokens skip numbers and punctuation, so "In" is not this run's preposition.
        before = (
            tokens[run[0] - 1].text
            if run[0] > 0 and text[tokens[run[0] - 1].end : start] == " "
            else ""
        )
        after_index = run[-1] + 1
        after = tokens[after_index].text if after_index < len(tokens) else ""
        after_gap = text[end : tokens[after_index].start] if after else ""
        sentence_initial = run[0] in starts

        entity_type: str | None
        confidence: float
        title_at = next(
            (
                k
                for k, w in enumerate(words)
                if k > 0 and (w in TITLES or w in _OFFICE_TITLES) and k + 1 < len(words)
            ),
            None,
        )
        # "Deputy U.S. Ambassador X": offices before the place are the person's too.
        lead = 0
        while title_at is not None and lead < title_at - 1 and words[lead] in _OFFICE_TITLES:
            lead += 1
        prefix = " ".join(words[lead:title_at]) if title_at is not None else ""
        if (
            title_at is not None
            and words[title_at + 1][:1].isupper()
            and (
                prefix in KNOWN_PLACES
                or f"{prefix}." in KNOWN_PLACES
                or prefix.isupper()
                or prefix in DEMONYMS
                or any(w in ORG_KEYWORDS for w in words[lead + 1 : title_at])
                or words[title_at - 1] in PLACE_KEYWORDS
                or (len(words[lead]) > 1 and words[lead].isupper())
            )
        ):
            # "Illinois Gov. James Thompson", "National Congress President X",
            # "Whitefish City Attorney X", "CNEN Radioprotection Director X": a place,
            # town, body or nationality, then a titled person (an honorific inside a
            # run is no office: "Roman Emperor Julius Caesar" stays whole).
            self._classify_run(
                text, tokens, run[lead:title_at], starts, people_surnames, free, add, defer
            )
            self._classify_run(
                text, tokens, run[title_at:], starts, people_surnames, free, add, defer
            )
            return
        place_words = _dateline_place(text, tokens, run)
        if place_words:
            # "Moscow INTERFAX", "Paris Radio Monte Carlo in Arabic": a wire report's
            # place, then the agency, paper or station that filed it.
            self._classify_run(
                text, tokens, run[:place_words], starts, people_surnames, free, add, defer
            )
            source = run[place_words:]
            if all(tokens[k].text.isupper() for k in source):
                source_start, source_end = tokens[source[0]].start, tokens[source[-1]].end
                add(text[source_start:source_end], ORGANIZATION, source_start, source_end, 0.6)
            else:
                self._classify_run(text, tokens, source, starts, people_surnames, free, add, defer)
            return
        before_of = tokens[run[0] - 2].text.lower() if run[0] > 1 else ""
        if len(words) == 1 and words[0] in DEMONYMS:
            entity_type, confidence = GROUP, 0.8
        elif name in KNOWN_PLACES or f"{name}." in KNOWN_PLACES:
            # Before the keywords: "Soviet Union" is a country, not a union.
            entity_type, confidence = LOCATION, 0.85
        elif (
            words[0] in TITLES
            and len(words) > 1
            and words[1] not in TITLES
            # "General Accounting Office": a title word opening a body's name.
            and not any(w in ORG_KEYWORDS for w in words[1:])
        ):
            entity_type, confidence = PERSON, 0.9
        elif (
            any(w in ORG_KEYWORDS for w in words[1:])
            or (
                len(words) > 1
                and words[0] in {"University", "Bank", "Ministry", "Department", "Radio"}
            )
            or (len(words) > 2 and words[0] in ORG_KEYWORDS and words[1] in {"of", "for", "on"})
        ):
            # "Institute of Mechanics", "Union of Democratic Forces": a body of something.
            entity_type, confidence = ORGANIZATION, 0.85
        elif len(words) > 1 and words[-1] in PLACE_KEYWORDS:
            entity_type, confidence = LOCATION, 0.8
        elif len(words) > 1 and (
            words[0] in _PLACE_FIRST_WORDS or (words[0] in PLACE_HEADS and words[1] == "of")
        ):
            # "Lake Constance", "Fort Bend", "Sierra Nevada"; "Sea of Japan",
            # "District of Columbia": a place's kind, then its name.
            entity_type, confidence = LOCATION, 0.7
        elif len(words) == 1 and words[0] in SINGLE_WORD_ORGS:
            entity_type, confidence = ORGANIZATION, 0.85
        elif name in WORLD_CITIES or name.title() in WORLD_CITIES:
            entity_type, confidence = LOCATION, 0.8
        elif _dateline(text, tokens, run, after_gap):
            entity_type, confidence = LOCATION, 0.7
        elif len(words) == 1 and _ACRONYM.match(first.text):
            if _MADE_BEFORE.search(text, 0, start):
                # "Wilkes built the EDSAC": a made thing, not a body.
                entity_type, confidence = CONCEPT, 0.5
            else:
                entity_type, confidence = ORGANIZATION, 0.6
        elif (
            (
                not sentence_initial
                and (
                    before.lower() in LOCATION_PREPOSITIONS
                    or (before == "of" and before_of in _PLACE_OF)
                )
            )
            or (after_gap.strip() == "," and _place_follows(tokens, after_index))
            or (before == "of" and _PLACE_OF_BEFORE.search(text, 0, start) is not None)
        ):
            entity_type, confidence = LOCATION, 0.6
        elif (
            before == "of"
            and run[0] > 1
            and tokens[run[0] - 2].bare in people_surnames
            and text[tokens[run[0] - 2].end : tokens[run[0] - 1].start] == " "
        ):
            # "Brian Michaud of Millinocket": a person, then the town they are from.
            entity_type, confidence = LOCATION, 0.6
        elif (
            _AGENCY_BEFORE.search(text, max(0, start - 4), start) is not None
            and _AGENCY_AFTER.match(text, end) is not None
        ):
            # "Moscow March 5 ( ITAR-TASS ) --": a dateline's wire agency.
            entity_type, confidence = ORGANIZATION, 0.6
        elif _BASED_BEFORE.search(text, max(0, start - 12), start) is not None:
            # "the Frankfurt-based Commerzbank": what is based somewhere is a body.
            entity_type, confidence = ORGANIZATION, 0.6
        elif (
            after.lower() in _STAFF_NOUNS
            and after_gap == " "
            and not after[:1].isupper()
            and words[0] not in TITLES
        ):
            # "Chevron spokesman Jonathan Lifa", "an Emery employee": whose staff.
            entity_type, confidence = ORGANIZATION, 0.6
        elif (
            len(words) == 1
            and words[0] not in FUNCTION_WORDS | MONTHS
            and (
                _PERSON_AFTER.match(text, end) is not None
                or _KILLED_BEFORE.search(text, 0, start) is not None
            )
        ):
            # "Starr , who served", "Kennedy 's assassin", "killing Kennedy": only a person
            # has these; a lone given name with none of them stays a Concept.
            entity_type, confidence = PERSON, 0.5
        elif len(words) == 1 and words[0] in people_surnames:
            entity_type, confidence = PERSON, 0.7
        elif after.lower() in SPEECH_VERBS and after_gap == " ":
            entity_type, confidence = PERSON, 0.6
        elif len(words) > 1 and (set(words) & _EVENT_NAME_WORDS):
            # "World War II", "Moscow Tchaikovsky International Competition": an event.
            entity_type, confidence = CONCEPT, 0.5
        elif len(words) > 1 and all(w.isupper() and len(w) > 1 for w in words):
            # "MOSKOVSKIY KOMSOMOLETS has learned": a paper or body set in capitals.
            entity_type, confidence = ORGANIZATION, 0.5
        elif len(words) > 1 and words[0] in _CORPORATE_FIRST_WORDS:
            # "International Paper", "Federal Express": no one's given name.
            entity_type, confidence = ORGANIZATION, 0.5
        elif (
            2 <= len(content := [w for w in words if w not in CONNECTORS]) <= 4
            and all(w[:1].isupper() for w in content)
            and not set(words) & _HEADED_CONNECTORS  # "Battle of Homs" names no one
        ):
            entity_type, confidence = PERSON, 0.5
        elif words[0] not in FUNCTION_WORDS and (
            not sentence_initial or len(words) > 1 or _DEFINES.match(text, end) is not None
        ):
            # At a sentence's start a run of several words, or one word the sentence
            # defines ("Odessa is a ...", "Foulsyke ( ..."), is a name, not a capital.
            entity_type, confidence = CONCEPT, 0.3
        else:
            entity_type = None
            confidence = 0.0
        if (
            entity_type is None
            and sentence_initial
            and len(words) == 1
            and words[0] not in FUNCTION_WORDS | MONTHS
            and _APPOSITION.match(text, end) is not None
        ):
            # "Tal, a senior Defense Ministry official", "Cheek, 53, is": a person.
            entity_type, confidence = PERSON, 0.4
        if entity_type is None:
            if sentence_initial and len(words) == 1 and words[0] not in FUNCTION_WORDS:
                defer(start, end)
            return
        if entity_type == PERSON:
            # "Gov. James Thompson", "Prime Minister Felipe Gonzalez": the office is
            # the person's post, not their name; an honorific stays ("Dr. Lee DeForest").
            lead = 0
            while (
                lead < len(run) - 1
                and words[lead] in _OFFICE_TITLES
                and text[tokens[run[lead]].end : tokens[run[lead + 1]].start] == " "
            ):
                lead += 1
            if lead and all(w in BARE_TITLES for w in words[lead:]):
                lead = 0
            start = tokens[run[lead]].start
            name = text[start:end]
            people_surnames.add(words[-1])
        add(name, entity_type, start, end, confidence)


def _dateline(text: str, tokens: list[_Token], run: list[int], after_gap: str) -> bool:
    """Whether `run` is a news dateline's place: "BANGKOK, Thailand (AP)", "DAYTON, Ohio"."""
    return (
        run[0] == 0
        and text[: tokens[0].start].strip() == ""
        and all(tokens[k].text.isupper() for k in run)
        and len(tokens[run[0]].bare) > 2
        and after_gap.strip() in (",", "(")
    )


#: "... in Arabic 1700 GMT": the language a wire report was filed in.
_FILED_IN = re.compile(r" in [A-Z][a-z]+\b")


def _dateline_place(text: str, tokens: list[_Token], run: list[int]) -> int:
    """How many leading words of `run` are a place that a news source's name follows
    ("Moscow MOSKOVSKIY KOMSOMOLETS", "Panama City ACAN", "Paris Radio Monte Carlo"
    before "in Arabic"); 0 when the run is not a place and a source."""
    words = [tokens[k].bare for k in run]
    for cut in range(len(run) - 1, 0, -1):  # the longest place: "Guatemala City"
        place = " ".join(words[:cut])
        city = cut > 1 and words[cut - 1] == "City" and " ".join(words[: cut - 1]) in KNOWN_PLACES
        if not (place in KNOWN_PLACES or place in WORLD_CITIES or city):
            continue
        rest = run[cut:]
        capitals = all(tokens[k].text.isupper() and len(tokens[k].bare) > 1 for k in rest)
        filed = _FILED_IN.match(text, tokens[run[-1]].end)
        if capitals or (filed is not None and filed.group().split()[1] in DEMONYMS):
            return cut
    return 0


def _place_follows(tokens: list[_Token], index: int) -> bool:
    """Whether the token at `index` (after a comma) starts a known place: "Aiken, S.C."."""
    if index >= len(tokens):
        return False
    one = tokens[index].text
    two = f"{one} {tokens[index + 1].text}" if index + 1 < len(tokens) else ""
    return one in KNOWN_PLACES or two in KNOWN_PLACES


#: Last words of events that carry their year in the name: "2010 Winter Olympics",
#: "Eurovision Song Contest 2009", "UEFA Euro 2008".
EVENT_WORDS = _words(
    "Olympics Olympiad Games Cup Championship Championships Contest Festival Awards Open "
    "Tour Election Elections Series Final Finals Prix Expo Euro Summit Trophy Marathon "
    "Classic Rally Tournament Season Draft"
)


def _join_event_years(text: str, found: list[_Found]) -> list[_Found]:
    """A year right before or after an event's name is part of that name."""
    out: list[_Found] = []
    k = 0
    while k < len(found):
        item = found[k]
        after = found[k + 1] if k + 1 < len(found) else None
        event = None
        if after is not None and text[item.end : after.start] == " ":
            if _year_and_event(item, after):
                event = after
            elif _year_and_event(after, item):
                event = item
        if after is not None and event is not None:
            out.append(
                _Found(
                    text[item.start : after.end],
                    CONCEPT,
                    item.start,
                    after.end,
                    event.confidence,
                )
            )
            k += 2
            continue
        out.append(item)
        k += 1
    return out


def _year_and_event(year: _Found, event: _Found) -> bool:
    """Whether `year` is a bare year and `event` a name ending in an event word."""
    return (
        year.entity_type == DATE
        and year.name.isdigit()
        and event.entity_type not in _VALUE_TYPES
        and event.name.split()[-1] in EVENT_WORDS
    )


#: "was born in", "born on Feb. 5 , 1907 , in": what names a birthplace next.
_BORN_IN_BEFORE = re.compile(r"\bborn\b(?:[^;]{0,40}?,)?\s+in\s+$")
_COMMA_GAP = re.compile(r"\s?,\s")


def _join_birthplaces(text: str, found: list[_Found]) -> list[_Found]:
    """A birthplace written "town, state" is one place: "born in Lubbock , Texas".

    The state or country tells which town of that name it is, so the pair names
    one place as a whole (CoNLL04 annotates it so after "born in", 13 of 13 on
    dev, while "Aiken , S.C." after other words is two). Elsewhere the two stay
    apart and the patterns place the town in the state.
    """
    out: list[_Found] = []
    k = 0
    while k < len(found):
        town = found[k]
        state = found[k + 1] if k + 1 < len(found) else None
        if (
            state is not None
            and town.entity_type == LOCATION
            and state.entity_type == LOCATION
            and (state.name in KNOWN_PLACES or f"{state.name}." in KNOWN_PLACES)
            and _COMMA_GAP.fullmatch(text[town.end : state.start])
            and _BORN_IN_BEFORE.search(text, max(0, town.start - 60), town.start)
        ):
            name = text[town.start : state.end]
            out.append(_Found(name, LOCATION, town.start, state.end, town.confidence))
            k += 2
            continue
        out.append(town)
        k += 1
    return out


_RANGE_BEFORE = re.compile(r"\d{4}\s?[–-]\s?$")
_SEASON_AFTER = re.compile(r"^(?:\s?[–-]\s?\d{4})?\s+(?:[^\W\d_]+\s+)?season\b")


def _season(text: str, start: int, end: int) -> bool:
    """Whether the year at `start:end` is one end of a season: "the 2008 - 2009
    television season" names a season, not the year 2008 or 2009."""
    after = text[end : end + 40]
    if _RANGE_BEFORE.search(text[max(0, start - 8) : start]):
        return _SEASON_AFTER.match(after) is not None
    return _SEASON_AFTER.match(after) is not None and after.lstrip()[:1] in "–-"
