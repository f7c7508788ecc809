"""A real HTTP server on 127.0.0.1 that speaks OpenAI's `POST /v1/embeddings`.

Adapters are tested against the protocol on a socket, not a patched client: the
SDK's own request building, retries, Retry-After handling and response parsing
all run. By default every request is answered correctly with deterministic
vectors (`vector_for`); `script` queues misbehaviours, one per request, in order:

    with EmbeddingsServer(dimension=8) as server:
        server.script.append(Fail(500))               # first request: 500
        server.script.append(Fail(429, retry_after="0.2"))
        server.script.append(Shuffle())               # items out of order
        ...  # requests after the script runs out are answered correctly
        server.requests                               # what arrived, with timestamps

Only embeddings live here; chat completions have their own server module.
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def vector_for(text: str, dimension: int) -> list[float]:
    """A deterministic, text-specific vector: what a correct server returns for `text`."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    while len(digest) < 2 * dimension:
        digest += hashlib.sha256(digest).digest()
    return [(digest[2 * i] * 256 + digest[2 * i + 1]) / 65535.0 - 0.5 for i in range(dimension)]


@dataclass(frozen=True)
class Fail:
    """Answer one request with an error status (and optional Retry-After header)."""

    status: int
    retry_after: str | None = None
    message: str = "scripted failure"


@dataclass(frozen=True)
class Shuffle:
    """Answer correctly, but list the items in reverse order (their `index` stays right)."""


@dataclass(frozen=True)
class WrongDimension:
    """Answer with vectors of this length instead of the server's dimension."""

    dimension: int


@dataclass(frozen=True)
class Delay:
    """Sleep this long before answering correctly (for client timeouts)."""

    seconds: float


@dataclass(frozen=True)
class Raw:
    """Answer with this exact body and status (malformed responses)."""

    body: bytes
    status: int = 200


Action = Fail | Shuffle | WrongDimension | Delay | Raw


@dataclass(frozen=True)
class RecordedRequest:
    at: float  # time.monotonic() on arrival
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class EmbeddingsServer:
    """Start with `with EmbeddingsServer() as s:`; `s.base_url` ends in /v1."""

    dimension: int = 8
    api_key: str | None = None  # when set, requests must carry "Bearer <api_key>"
    script: list[Action] = field(default_factory=list)
    requests: list[RecordedRequest] = field(default_factory=list)
    _httpd: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> EmbeddingsServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output clean

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    body = {}
                status, payload, headers = server._answer(
                    self.path, {k.lower(): v for k, v in self.headers.items()}, body
                )
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to answer

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def _answer(
        self, path: str, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[int, bytes, dict[str, str]]:
        with self._lock:
            self.requests.append(RecordedRequest(time.monotonic(), path, headers, body))
            action = self.script.pop(0) if self.script else None
        if path != "/v1/embeddings":
            return _error(404, f"no route {path}")
        if self.api_key is not None and headers.get("authorization") != f"Bearer {self.api_key}":
            return _error(401, "Incorrect API key provided", "invalid_api_key")
        if isinstance(action, Fail):
            status, payload, extra = _error(action.status, action.message)
            if action.retry_after is not None:
                extra["Retry-After"] = action.retry_after
            return status, payload, extra
        if isinstance(action, Raw):
            return action.status, action.body, {}
        if isinstance(action, Delay):
            time.sleep(action.seconds)
        inputs = body.get("input")
        if isinstance(inputs, str):
            inputs = [inputs]
        if not isinstance(inputs, list) or not all(isinstance(t, str) for t in inputs):
            return _error(400, "'input' must be a string or a list of strings")
        if any(t == "" for t in inputs):
            return _error(400, "'$.input' is invalid: empty string")
        if not isinstance(body.get("model"), str):
            return _error(400, "'model' is required")
        dimension = action.dimension if isinstance(action, WrongDimension) else self.dimension
        items = [
            {
                "object": "embedding",
                "index": i,
                "embedding": _encode(vector_for(text, dimension), body.get("encoding_format")),
            }
            for i, text in enumerate(inputs)
        ]
        if isinstance(action, Shuffle):
            items.reverse()
        tokens = sum(len(t.split()) for t in inputs)
        response = {
            "object": "list",
            "data": items,
            "model": body["model"],
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
        return 200, json.dumps(response).encode(), {}


def _encode(vector: list[float], encoding_format: object) -> list[float] | str:
    if encoding_format == "base64":
        return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
    return vector


def _error(status: int, message: str, code: str | None = None) -> tuple[int, bytes, dict[str, str]]:
    payload = {"error": {"message": message, "type": "invalid_request_error", "code": code}}
    return status, json.dumps(payload).encode(), {}
