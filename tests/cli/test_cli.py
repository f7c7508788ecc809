"""The `redstring` command, driven as a subprocess against a temporary workspace.

The fake embedder keeps these fast; the demo test runs the real local model once.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.support.openai_chat_server import ChatServer, completion

from redstring.application.workspaces import open_workspace
from redstring.consolidation.record_model import UNSEPARATED_GLOBAL_LOGIT
from redstring.embeddings.local import LocalEmbeddingProvider

DOC = "Ada Lovelace worked with Charles Babbage in London.\n"


def redstring(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "redstring.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    result = redstring("init", "--embedder", "fake", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (tmp_path / "notes.md").write_text(DOC, encoding="utf-8")
    (tmp_path / "people.csv").write_text(
        "id,name,type,born\n1,Ada Lovelace,Person,1815\n2,Charles Babage,Person,1791\n",
        encoding="utf-8",
    )
    return tmp_path


def test_ingest_then_search_prints_per_channel_scores(workspace: Path) -> None:
    ingest = redstring("ingest", "notes.md", "people.csv", "--id-column", "id", cwd=workspace)
    assert ingest.returncode == 0, ingest.stderr
    assert "notes.md" in ingest.stdout
    found = redstring("search", "Ada Lovelace", "--json", cwd=workspace)
    assert found.returncode == 0, found.stderr
    matches = json.loads(found.stdout)["matches"]
    assert matches[0]["entity"]["name"] == "Ada Lovelace"
    assert matches[0]["lexical"] == 1.0
    assert matches[0]["semantic"] is not None


def test_ingesting_the_same_files_twice_adds_nothing(workspace: Path) -> None:
    redstring("ingest", "notes.md", "people.csv", "--id-column", "id", cwd=workspace)
    before = json.loads(redstring("stats", "--json", cwd=workspace).stdout)
    again = redstring("ingest", "notes.md", "people.csv", "--id-column", "id", cwd=workspace)
    assert again.returncode == 0, again.stderr
    assert "unchanged" in again.stdout
    after = json.loads(redstring("stats", "--json", cwd=workspace).stdout)
    assert after == before


def test_show_neighbours_export_and_replay(workspace: Path) -> None:
    redstring("ingest", "notes.md", cwd=workspace)
    shown = redstring("show", "Charles Babbage", "--json", cwd=workspace)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["entity"]["name"] == "Charles Babbage"
    near = redstring("neighbours", "Charles Babbage", cwd=workspace)
    assert near.returncode == 0, near.stderr
    before = json.loads(redstring("stats", "--json", cwd=workspace).stdout)
    assert redstring("replay", cwd=workspace).returncode == 0
    assert json.loads(redstring("stats", "--json", cwd=workspace).stdout) == before
    assert redstring("export", "out.jsonl", cwd=workspace).returncode == 0
    lines = [json.loads(x) for x in (workspace / "out.jsonl").read_text().splitlines()]
    kinds = [x["kind"] for x in lines]
    assert kinds.count("entity") == before["entities"]
    assert kinds.count("relationship") == before["relationships"]
    assert redstring("export", "out.graphml", "--format", "graphml", cwd=workspace).returncode == 0
    assert "<graphml" in (workspace / "out.graphml").read_text()


def test_a_missing_file_is_exit_2_with_its_name(workspace: Path) -> None:
    result = redstring("ingest", "nope.md", cwd=workspace)
    assert result.returncode == 2
    assert "nope.md: no such file" in result.stderr


def test_an_unreadable_encoding_is_exit_2_and_stores_nothing(workspace: Path) -> None:
    (workspace / "latin.txt").write_bytes("Zoë Quinn wrote here.".encode("latin-1"))
    result = redstring("ingest", "latin.txt", cwd=workspace)
    assert result.returncode == 2
    assert "not UTF-8" in result.stderr
    stats = json.loads(redstring("stats", "--json", cwd=workspace).stdout)
    assert stats["entities"] == 0


def test_an_unknown_tenant_is_refused_with_the_known_ones(workspace: Path) -> None:
    result = redstring("search", "Ada", "--tenant", "globex", cwd=workspace)
    assert result.returncode == 1
    assert "unknown tenant 'globex'" in result.stderr
    assert "default" in result.stderr


def test_no_workspace_says_how_to_make_one(tmp_path: Path) -> None:
    result = redstring("search", "Ada", cwd=tmp_path)
    assert result.returncode == 1
    assert "redstring init" in result.stderr


def test_a_file_that_is_not_a_workspace_is_refused(tmp_path: Path) -> None:
    (tmp_path / "redstring.db").write_text("not a database at all, just text" * 100)
    result = redstring("stats", cwd=tmp_path)
    assert result.returncode == 1
    assert "not a redstring workspace" in result.stderr
    assert (tmp_path / "redstring.db").read_text().startswith("not a database")


def test_the_demo_runs_offline_with_the_local_model(tmp_path: Path) -> None:
    result = redstring("demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "search: 'ada lovelace'" in result.stdout
    assert "semantic" in result.stdout


def test_a_folder_of_jsonl_records_with_a_fixed_type(workspace: Path) -> None:
    folder = workspace / "records"
    folder.mkdir()
    (folder / "orgs.jsonl").write_text(
        '{"name": "Acme Ltd", "city": "Leeds"}\n\n{"name": "Globex", "city": "Paris"}\n',
        encoding="utf-8",
    )
    result = redstring("ingest", "records", "--type", "Organization", "--json", cwd=workspace)
    assert result.returncode == 0, result.stderr
    [row] = json.loads(result.stdout)
    assert row["entities"] == 2
    found = redstring(
        "search", "Acme", "--mode", "lexical", "--type", "Organization", "--json", cwd=workspace
    )
    [match] = json.loads(found.stdout)["matches"]
    assert match["entity"]["properties"] == {"city": "Leeds"}
    assert match["semantic"] is None


def test_a_bad_jsonl_line_names_its_line_and_stores_nothing(workspace: Path) -> None:
    (workspace / "bad.jsonl").write_text('{"name": "A"}\n{not json\n', encoding="utf-8")
    result = redstring("ingest", "bad.jsonl", "--type", "Thing", cwd=workspace)
    assert result.returncode == 2
    assert "bad.jsonl:2: not valid JSON" in result.stderr
    assert json.loads(redstring("stats", "--json", cwd=workspace).stdout)["entities"] == 0


def test_a_semicolon_csv_and_a_tsv_are_ingested_as_records(workspace: Path) -> None:
    """Catches a European spreadsheet export read as one column, and a .tsv refused."""
    (workspace / "a.csv").write_text("id;name;city\n1;Ann Lee;Leeds\n", encoding="utf-8")
    (workspace / "b.tsv").write_text("id\tname\tcity\n2\tBob Ray\tYork\n", encoding="utf-8")
    for file in ("a.csv", "b.tsv"):
        result = redstring("ingest", file, "--type", "Person", "--id-column", "id", cwd=workspace)
        assert result.returncode == 0, result.stderr
    stats = json.loads(redstring("stats", "--json", cwd=workspace).stdout)
    assert stats["entities"] == 2
    shown = redstring("show", "Ann Lee", "--json", cwd=workspace)
    assert shown.returncode == 0, shown.stderr
    assert "Leeds" in shown.stdout


def test_an_unsupported_file_type_is_refused(workspace: Path) -> None:
    (workspace / "slides.pdf").write_bytes(b"%PDF-1.4")
    result = redstring("ingest", "slides.pdf", cwd=workspace)
    assert result.returncode == 2
    assert "unsupported file type .pdf" in result.stderr


def test_show_names_the_ids_when_a_name_is_ambiguous_and_says_when_unknown(
    workspace: Path,
) -> None:
    redstring("ingest", "people.csv", "--id-column", "id", cwd=workspace)
    (workspace / "more.csv").write_text("id,name,type\n9,Ada Lovelace,Person\n", encoding="utf-8")
    redstring("ingest", "more.csv", "--id-column", "id", cwd=workspace)
    ambiguous = redstring("show", "Ada Lovelace", cwd=workspace)
    assert ambiguous.returncode == 1
    assert "names 2 entities; pass an id" in ambiguous.stderr
    unknown = redstring("show", "Nobody Atall", cwd=workspace)
    assert unknown.returncode == 1
    assert "no entity named 'Nobody Atall'" in unknown.stderr
    close = redstring("show", "Ada Lovelac", cwd=workspace)
    assert close.returncode == 1
    assert "did you mean 'Ada Lovelace'" in close.stderr
    missing_id = redstring("neighbours", "00000000-0000-4000-8000-000000000000", cwd=workspace)
    assert missing_id.returncode == 1
    assert "no entity with id" in missing_id.stderr


def test_init_refuses_to_overwrite_a_workspace(workspace: Path) -> None:
    result = redstring("init", cwd=workspace)
    assert result.returncode == 1
    assert "already exists" in result.stderr


def test_consolidate_merges_duplicates_and_undo_merge_reverses_it(workspace: Path) -> None:
    (workspace / "dupes.csv").write_text(
        "id,name,type,born\n1,Ada Lovelace,Person,1815\n2,Ada Lovelace,Person,1815\n"
        "3,Charles Babbage,Person,1791\n",
        encoding="utf-8",
    )
    redstring("ingest", "dupes.csv", "--id-column", "id", cwd=workspace)
    before = json.loads(redstring("stats", "--json", cwd=workspace).stdout)
    merged = redstring("consolidate", "--json", cwd=workspace)
    assert merged.returncode == 0, merged.stderr
    report = json.loads(merged.stdout)
    assert report["merges"] == 1
    after = json.loads(redstring("stats", "--json", cwd=workspace).stdout)
    assert after["entities"] == before["entities"] - 1
    undone = redstring("undo-merge", report["merge_ids"][0], cwd=workspace)
    assert undone.returncode == 0, undone.stderr
    assert (
        json.loads(redstring("stats", "--json", cwd=workspace).stdout)["entities"]
        == before["entities"]
    )
    again = redstring("undo-merge", report["merge_ids"][0], cwd=workspace)
    assert again.returncode == 1
    assert "already undone" in again.stderr


def test_consolidate_adjudicate_asks_the_llm_endpoint_about_grey_pairs(tmp_path: Path) -> None:
    """`--adjudicate` sends grey-band pairs to a real chat-completions endpoint and
    merges the pair it calls the same. A misspelled name in another document, with no
    shared context, is a grey pair: the string alone neither merges nor separates it."""
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "a.md").write_text("Grace Hopper joined the Navy in 1943.\n")
    (corpus / "b.md").write_text("Grace Hoper wrote the first compiler for the Navy.\n")
    assert redstring("init", "--embedder", "fake", cwd=tmp_path).returncode == 0
    ingest = redstring("ingest", str(corpus), cwd=tmp_path)
    assert ingest.returncode == 0, ingest.stderr
    plain = json.loads(redstring("consolidate", "--json", cwd=tmp_path).stdout)
    assert plain["grey_kept_apart"] >= 1
    undo = [redstring("undo-merge", m, cwd=tmp_path) for m in reversed(plain["merge_ids"])]
    assert all(u.returncode == 0 for u in undo)
    answer = completion(json.dumps({"verdicts": [{"pair": 0, "same": True}]}))
    with ChatServer(default=answer) as server:
        env = {
            "REDSTRING_LLM_BASE_URL": server.base_url,
            "REDSTRING_LLM_MODEL": "test-model",
            "REDSTRING_LLM_API_KEY": "test",
        }
        result = subprocess.run(
            [sys.executable, "-m", "redstring.cli", "consolidate", "--adjudicate", "--json"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=300,
            env={**os.environ, **env},
        )
        assert result.returncode == 0, result.stderr
        assert len(server.requests) >= 1
    report = json.loads(result.stdout)
    assert report["adjudicated"].get("same", 0) >= 1
    assert report["merged_entities"] > plain["merged_entities"]


def test_consolidate_reports_field_kinds_and_takes_overrides(tmp_path: Path) -> None:
    """Catches the detected fields going unreported, an override being ignored, or a
    malformed override reaching the resolver instead of a typed error."""
    people = Path(__file__).resolve().parents[2] / "src" / "redstring" / "cli" / "demo"
    assert redstring("init", "--embedder", "fake", cwd=tmp_path).returncode == 0
    ingest = redstring("ingest", str(people / "people.csv"), "--id-column", "id", cwd=tmp_path)
    assert ingest.returncode == 0, ingest.stderr
    bad = redstring("consolidate", "--field", "role", cwd=tmp_path)
    assert bad.returncode != 0
    assert "NAME=KIND" in bad.stderr
    unknown = redstring("consolidate", "--field", "role=shoe_size", cwd=tmp_path)
    assert unknown.returncode != 0
    assert "unknown kind" in unknown.stderr
    result = redstring("consolidate", "--field", "role=ignore", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["fields"]["Person"] == {"name": "person_name", "born": "year"}
    assert "role" in report["left_out"]["Person"]
    assert "Person" in report["models_trained"]
    again = redstring("consolidate", cwd=tmp_path)
    assert "model trained on this tenant's records" in again.stdout
    # The start bar is reported as the model logged it, and printed.
    bar = report["start_bars"]["Person"]
    assert bar is None or isinstance(bar, float)
    assert ("no start bar" if bar is None else f"from log-odds {bar:.1f}") in again.stdout
    # So is the bar two lone records merge from (`record_model.lone_bar`), read from
    # each run's own counts: the second run's is printed.
    assert isinstance(report["lone_bars"]["Person"], float)
    printed = " ".join(again.stdout.split())  # the console wraps long lines
    person = printed[printed.index("Person records:") :]
    assert re.search(r"two records that have joined nothing merge only from log-odds -?\d", person)


def _people_consolidated(tmp_path: Path, lines: list[str]) -> tuple[dict[str, Any], str]:
    """`lines` (a CSV, its header first, with an `id` column) ingested as Person
    records into a fresh workspace and consolidated: the `--json` report, and what
    a second `consolidate` printed."""
    (tmp_path / "people.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert redstring("init", "--embedder", "fake", cwd=tmp_path).returncode == 0
    ingest = redstring(
        "ingest", "people.csv", "--type", "Person", "--id-column", "id", cwd=tmp_path
    )
    assert ingest.returncode == 0, ingest.stderr
    result = redstring("consolidate", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    again = redstring("consolidate", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    return json.loads(result.stdout), again.stdout


def test_consolidate_prints_the_match_rate_among_each_rule_s_pairs(tmp_path: Path) -> None:
    """Catches the rules' rates (a pair starts a merge only at even odds among its
    own rule's pairs, `record_model._within_rules`) going unreported: a user whose
    records stay apart could not tell which rule held them back."""
    rng = random.Random(3)
    given = ["Anna", "Ben", "Carl", "Dora", "Emil", "Fay", "Gus", "Hana"]
    family = ["Berg", "Holm", "Lund", "Nyberg", "Ström", "Dahl", "Ek", "Falk"]
    lines = ["id,given_name,family_name,birth_date,id_number"]
    for person in range(80):
        born = f"19{rng.randint(10, 99)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        name = (rng.choice(given), rng.choice(family))
        code = f"P{rng.randrange(10**6, 10**7)}"
        for copy in range(2):
            lines.append(f"r{person}-{copy},{name[0]},{name[1]},{born},{code}")
    report, stdout = _people_consolidated(tmp_path, lines)
    rates = report["rule_rates"]["Person"]
    assert rates
    assert all(0.0 <= rate <= 1.0 for rate in rates.values())
    printed = " ".join(stdout.split())  # the console wraps long lines
    assert "at even odds among the pairs its own blocking rule found" in printed
    rule, rate = next(iter(rates.items()))
    assert f"{rule} {rate:.2g}" in printed


def test_consolidate_says_when_people_are_known_by_names_alone(tmp_path: Path) -> None:
    """Catches the cautious bar for people whose scores show no two groups going
    unreported (a user would not know why so few merged), or reported for people
    whose fields do separate them."""
    rng = random.Random(6)
    syllables = ["ka", "lo", "mi", "ren", "sa", "to", "vel", "dor", "an", "be", "ki", "mur"]
    given = [a + b for a in syllables[:6] for b in syllables[6:]][:30]
    family = [a + b + "s" for a in syllables[6:] for b in syllables[:7]][:40]
    rows = ["id,first_name,surname"]
    rows += [f"{k},{rng.choice(given)},{rng.choice(family)}" for k in range(400)]
    report, stdout = _people_consolidated(tmp_path, rows)
    assert report["unseparated"] == ["Person"]
    bar = report["start_bars"]["Person"]
    # Names alone: odds read under the match rate among all pairs, a margin above the
    # lone bar (`record_model.unseparated_bar`).
    assert bar == pytest.approx(UNSEPARATED_GLOBAL_LOGIT + report["lone_bars"]["Person"])
    assert "no two separate groups" in stdout
    printed = " ".join(stdout.split())  # the console wraps long lines
    assert f"from log-odds {bar:.1f} ({math.exp(bar):,.0f} to 1)" in printed


def test_consolidate_reports_a_postcode_that_names_its_town(tmp_path: Path) -> None:
    """Catches the dependence between two fields going unreported, in the JSON report
    and on the console, where a user reads why agreeing on both counts less."""
    rng = random.Random(3)
    letters = "bcdfghklmnprstvwz"
    towns = ["".join(rng.choices(letters, k=7)) for _ in range(100)]
    rows = ["id,given_name,family_name,born,town,postcode"]
    for k in range(1200):
        t = rng.randrange(len(towns))
        given, family = ("".join(rng.choices(letters + "aeiou", k=6)) for _ in range(2))
        born = f"19{rng.randint(10, 99)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        code = f"{chr(65 + t // 10)}{chr(65 + t % 10)}{rng.randrange(2)} {rng.randrange(10)}PT"
        rows.append(f"{k},{given},{family},{born},{towns[t]},{code}")
        if k % 10 == 0:
            rows.append(f"{k}b,{given[:-1]},{family},{born},{towns[t]},{code}")
    report, stdout = _people_consolidated(tmp_path, rows)
    assert report["dependent"] == {"Person": [["postcode", "town"]]}
    printed = " ".join(stdout.split())
    assert "postcode and town go together among strangers" in printed


def test_search_context_prints_and_emits_passages_with_spans(workspace: Path) -> None:
    assert redstring("ingest", "notes.md", cwd=workspace).returncode == 0
    shown = redstring("search", "London", "--context", cwd=workspace)
    assert shown.returncode == 0, shown.stderr
    assert "[notes.md#0] chars 0-52" in shown.stdout
    assert "Ada Lovelace worked with Charles Babbage in London." in shown.stdout
    emitted = redstring("search", "London", "--context", "--json", cwd=workspace)
    context = json.loads(emitted.stdout)
    [chunk] = context["chunks"]
    assert chunk["chunk_id"] == "notes.md#0"
    assert {DOC[m["start"] : m["end"]] for m in chunk["mentions"]} == {
        "Ada Lovelace",
        "Charles Babbage",
        "London",
    }
    assert context["entities"][0]["entity"]["name"] == "London"
    assert context["tokens"] <= context["token_budget"]
    refused = redstring("search", "London", "--context", "--hops", "3", cwd=workspace)
    assert refused.returncode == 1
    assert "hops" in refused.stderr


def ask(question: str, answer: dict[str, object], cwd: Path) -> tuple[str, list[str]]:
    """Run `redstring ask` against a local OpenAI-compatible server answering `answer`."""
    with ChatServer(default=completion(json.dumps(answer))) as server:
        env = {
            "REDSTRING_LLM_BASE_URL": server.base_url,
            "REDSTRING_LLM_MODEL": "test-model",
            "REDSTRING_LLM_API_KEY": "test",
        }
        result = subprocess.run(
            [sys.executable, "-m", "redstring.cli", "ask", question],
            capture_output=True,
            text=True,
            cwd=cwd,
            timeout=300,
            env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **env},
        )
        assert result.returncode == 0, result.stderr
        return result.stdout, [json.dumps(r) for r in server.requests]


def test_ask_answers_from_the_workspace_and_cites_its_passages(workspace: Path) -> None:
    assert redstring("ingest", "notes.md", cwd=workspace).returncode == 0
    out, requests = ask(
        "Where did Ada Lovelace work?",
        {"answerable": True, "answer": "In London.", "citations": ["notes.md#0"]},
        workspace,
    )
    assert "In London." in out
    assert "sources: notes.md#0" in out
    [request] = requests
    assert "[notes.md#0] Ada Lovelace worked with Charles Babbage in London." in request


def test_ask_says_so_when_the_workspace_does_not_hold_the_answer(workspace: Path) -> None:
    assert redstring("ingest", "notes.md", cwd=workspace).returncode == 0
    out, _ = ask(
        "Where did Ada Lovelace work?",
        {"answerable": True, "answer": "In Paris.", "citations": []},
        workspace,
    )
    assert "does not hold the answer" in out
    assert "Paris" not in out


def test_ingest_llm_tokens_show_in_stats_and_a_rebuild_asks_the_model_nothing(
    workspace: Path,
) -> None:
    """Catches token usage missing from `ingest` and `stats`, and the response cache
    (beside the workspace file) not answering a repeated question: a workspace
    rebuilt from the same files must make zero model calls."""
    answer = completion(
        json.dumps({"entities": [{"name": "Ada Lovelace", "type": "Person"}]}),
        prompt_tokens=40,
        completion_tokens=9,
    )

    def ingest_llm(server: ChatServer) -> list[dict[str, object]]:
        env = {"REDSTRING_LLM_BASE_URL": server.base_url, "REDSTRING_LLM_MODEL": "test-model"}
        result = subprocess.run(
            [sys.executable, "-m", "redstring.cli", "ingest", "notes.md", "--llm", "--json"],
            capture_output=True,
            text=True,
            cwd=workspace,
            timeout=300,
            env={**os.environ, **env},
        )
        assert result.returncode == 0, result.stderr
        rows: list[dict[str, object]] = json.loads(result.stdout)
        return rows

    with ChatServer(default=answer) as server:
        [first] = ingest_llm(server)
        assert (first["llm_calls"], first["tokens"]) == (1, 49)
        stats = json.loads(redstring("stats", "--documents", "--json", cwd=workspace).stdout)
        assert stats["llm_tokens"] == {"prompt_tokens": 40, "completion_tokens": 9, "calls": 1}
        assert stats["llm_tokens_by_document"]["notes.md"]["calls"] == 1
        assert stats["incomplete_documents"] == []
        assert (workspace / "redstring.db.llm-cache").exists()
        (workspace / "redstring.db").unlink()
        assert redstring("init", "--embedder", "fake", cwd=workspace).returncode == 0
        [rebuilt] = ingest_llm(server)
        assert len(server.requests) == 1
    assert rebuilt["status"] == "ok"
    assert (rebuilt["llm_calls"], rebuilt["entities"]) == (0, 1)


def test_a_records_ingest_an_export_and_init_start_without_numpy(workspace: Path) -> None:
    """Catches start-up cost creeping back into the commands a resolution run repeats:
    numpy (pulled in by sqlite-vec's package, the vector store or the embedding model's
    code) is ~0.1 s of each command, extraction's modules ~0.05 s, and neither a
    records ingest, an export nor `init` (which records the local model's dimension)
    uses them."""
    # Read at exit: the command line ends the process itself (`_leave`).
    probe = (
        "import atexit, runpy, sys\n"
        "heavy = ('numpy', 'redstring.composition.build_graph')\n"
        "atexit.register(lambda: print(any(m in sys.modules for m in heavy)))\n"
        "sys.argv = ['redstring', *sys.argv[1:]]\n"
        "runpy.run_module('redstring.cli', run_name='__main__')\n"
    )
    for command in (
        ["ingest", "people.csv", "--type", "Person"],
        ["export", "out.jsonl"],
        # The local model's dimension is read from its config, not its runner.
        ["init", "--db", "fresh.db"],
    ):
        result = subprocess.run(
            [sys.executable, "-c", probe, *command],
            capture_output=True,
            text=True,
            cwd=workspace,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip().splitlines()[-1] == "False", command
    with open_workspace(workspace / "fresh.db") as fresh:
        assert fresh.vectors.dimension == LocalEmbeddingProvider().dimension == 384


class _Costly:
    """A command's result whose repr is counted (an export's thousands of entities)."""

    reprs = 0

    def __repr__(self) -> str:
        type(self).reprs += 1
        return "costly"


def test_a_commands_result_is_handed_back_without_being_formatted() -> None:
    """Catches `run` finishing its task with the result: `asyncio.run` restoring the
    SIGINT handler formats the task's repr, result included (0.27 s of an export)."""
    from redstring.cli.app import run

    async def step() -> _Costly:
        return _Costly()

    result = run(step())
    assert isinstance(result, _Costly)
    assert _Costly.reprs == 0


def test_the_command_line_ends_without_teardown_yet_runs_every_exit_handler(
    tmp_path: Path,
) -> None:
    """Catches `_leave` skipping the exit handlers (coverage's, logging's, a library's)
    along with the interpreter's teardown, or losing the exit status or the output;
    and an error wrapped onto a second line off a terminal (the path is long enough
    to pass rich's 80 columns)."""
    db = tmp_path / ("workspace-" * 8 + ".db")
    script = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('handled', flush=True))\n"
        "from redstring.cli.app import main\n"
        f"sys.argv = ['redstring', 'init', '--db', {str(db)!r}]\n"
        "main()\n"
    )
    first = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert "created" in first.stdout
    assert first.stdout.rstrip().endswith("handled")
    again = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert again.returncode == 1
    assert again.stderr == f"error: {db} already exists; remove it or choose another --db\n"
    assert again.stdout.strip() == "handled"
