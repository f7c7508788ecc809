"""An LLM response cache: the same question to the same model is paid for once.

`CachingLlmProvider` wraps any `LlmProvider`. Its key is a hash of the model
name, the instructions, the text and the JSON schema of the answer's type: a
change to any of them (a new prompt wording, a new field in the schema, another
model) is a different question and misses. Only validated answers are stored,
so a malformed or refused answer is asked again next time. Answers are assumed
to be a function of the key: the extraction adapters ask at temperature 0, and a
cached answer is the one the build used, which is what a rerun should reproduce.

Where it lives: `SqliteResponseStore` is a SQLite file *beside* the workspace
file (`cache_path_for`: `redstring.db` -> `redstring.db.llm-cache`), not a table
in it and not events in the log:

- the answers were paid for when the model returned them, so they must survive
  a build batch that rolls back (the workspace commits a batch at once; a crash
  before the commit would otherwise lose every answer of the batch);
- the cache is disposable: deleting the file costs tokens, never facts (the log
  keeps every extraction a replay needs), so it has no place in the log;
- it works the same whatever storage the workspace itself uses.

The file holds the model's answers, which quote the tenants' text: it needs
the same protection as the workspace file.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Protocol, TypeVar

from pydantic import BaseModel

from redstring.domain.exceptions import LlmError
from redstring.llm.validation import json_schema_for, validate_text
from redstring.storage.sqlite import open_connection

if TYPE_CHECKING:
    from pathlib import Path

    from redstring.domain.usage import TokenUsage
    from redstring.ports.llm import LlmProvider

SchemaT = TypeVar("SchemaT", bound=BaseModel)

#: Bumped when the key's recipe changes, so old entries stop matching.
KEY_VERSION = 1
CACHE_SUFFIX = ".llm-cache"


def cache_path_for(workspace_file: Path) -> Path:
    """Where the response cache of the workspace at `workspace_file` lives."""
    return workspace_file.with_name(workspace_file.name + CACHE_SUFFIX)


def cache_key(model: str, instructions: str | None, text: str, schema: type[BaseModel]) -> str:
    """The hash that names one question: model, prompt (instructions and text), schema."""
    recipe = {
        "v": KEY_VERSION,
        "model": model,
        "instructions": instructions,
        "text": text,
        "schema": json_schema_for(schema),
    }
    blob = json.dumps(recipe, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseStore(Protocol):
    """Answers (JSON text) by key."""

    def get(self, key: str) -> str | None: ...

    def put(self, key: str, answer: str) -> None: ...


class MemoryResponseStore:
    """A dict: for tests and for runs that keep nothing."""

    def __init__(self) -> None:
        self.answers: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self.answers.get(key)

    def put(self, key: str, answer: str) -> None:
        self.answers[key] = answer


class SqliteResponseStore:
    """Answers in a SQLite file of their own, committed one by one (autocommit)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn = open_connection(path, load_vec=False)
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS llm_response (key TEXT PRIMARY KEY, answer TEXT NOT NULL)"
        )

    def get(self, key: str) -> str | None:
        row = self._conn.execute("SELECT answer FROM llm_response WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, answer: str) -> None:
        self._conn.execute(
            "INSERT OR REPLACE INTO llm_response (key, answer) VALUES (?, ?)", (key, answer)
        )

    def __len__(self) -> int:
        return int(self._conn.execute("SELECT count(*) FROM llm_response").fetchone()[0])

    def close(self) -> None:
        self._conn.close()


class CachingLlmProvider:
    """An `LlmProvider` that answers repeated questions from a `ResponseStore`.

    `usage` is the wrapped provider's: what was actually paid. `hits` and
    `misses` count the questions answered from the store and asked of the model.
    """

    def __init__(self, inner: LlmProvider, store: ResponseStore) -> None:
        self._inner = inner
        self._store = store
        self.hits = 0
        self.misses = 0

    @property
    def model_name(self) -> str:
        return self._inner.model_name

    @property
    def usage(self) -> TokenUsage:
        return self._inner.usage

    async def extract(
        self, text: str, schema: type[SchemaT], *, instructions: str | None = None
    ) -> SchemaT:
        key = cache_key(self._inner.model_name, instructions, text, schema)
        stored = self._store.get(key)
        if stored is not None:
            try:
                answer = validate_text(stored, schema)
            except LlmError:
                pass  # an entry that no longer validates is asked again and overwritten
            else:
                self.hits += 1
                return answer
        self.misses += 1
        answer = await self._inner.extract(text, schema, instructions=instructions)
        self._store.put(key, answer.model_dump_json())
        return answer
