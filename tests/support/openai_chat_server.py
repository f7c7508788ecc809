"""A real HTTP server that speaks OpenAI's chat-completions protocol, for adapter tests.

It listens on 127.0.0.1 on an ephemeral port, in a background thread, one
thread per connection. Tests queue the answers it should give (`Scripted`), in
order; each `POST /v1/chat/completions` pops one. It records every request body
and counts requests in flight, so a test can check what the client sent and how
many requests overlapped.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import TracebackType


@dataclass(frozen=True)
class Scripted:
    """One answer: status, JSON (or raw text) body, extra headers, delay before answering."""

    status: int = 200
    body: dict[str, Any] | str = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


def completion(
    content: str | None,
    *,
    refusal: str | None = None,
    prompt_tokens: int = 11,
    completion_tokens: int = 7,
    model: str = "test-model",
    delay_s: float = 0.0,
) -> Scripted:
    """A 200 answer carrying one assistant message, shaped like OpenAI's."""
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
    return Scripted(body=body, delay_s=delay_s)


def error(status: int, message: str = "error", **headers: str) -> Scripted:
    """An error answer with OpenAI's error envelope; `retry_after="1"` sets that header."""
    return Scripted(
        status=status,
        body={"error": {"message": message, "type": "test", "code": None}},
        headers={k.replace("_", "-"): v for k, v in headers.items()},
    )


class ChatServer:
    """Context manager: `with ChatServer() as server: ... server.base_url ...`."""

    def __init__(self, default: Scripted | None = None) -> None:
        self._queue: deque[Scripted] = deque()
        self._default = default
        self._lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.request_times: list[float] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        # A short poll interval keeps shutdown (each test's teardown) fast.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def script(self, *answers: Scripted) -> None:
        with self._lock:
            self._queue.extend(answers)

    def _next(self) -> Scripted:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self._default is not None:
            return self._default
        return error(500, "the test server has no scripted answer left")

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length)
                with server._lock:
                    server.requests.append(json.loads(raw or b"{}"))
                    server.request_times.append(time.monotonic())
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    if self.path.rstrip("/") != "/v1/chat/completions":
                        answer = error(404, f"no route {self.path}")
                    else:
                        answer = server._next()
                    if answer.delay_s:
                        time.sleep(answer.delay_s)
                    payload = (
                        answer.body.encode()
                        if isinstance(answer.body, str)
                        else json.dumps(answer.body).encode()
                    )
                    self.send_response(answer.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test); nothing to answer
                finally:
                    with server._lock:
                        server.in_flight -= 1

        return Handler


def iter_contents(server: ChatServer) -> Iterator[str]:
    """The user-message text of every request the server received, in order."""
    for body in server.requests:
        for message in body.get("messages", []):
            if message.get("role") == "user":
                yield str(message.get("content"))
