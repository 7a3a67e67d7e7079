"""An OpenAI-compatible streaming server that sends one reply at a fixed token rate, on a schedule.

Run as its own process (``python -m bench.paced_server --tokens 5000 --rate 1000``)
so its sending never competes with the app under test for the GIL. It prints
``listening on http://127.0.0.1:PORT/v1``. The first chat request whose last
user message contains ``stream please`` gets the paced reply: one content chunk
per token, chunk *i* written at ``start + i / rate`` (an absolute schedule, so
late wake-ups do not add up); every other chat request gets a one-word answer
at once. ``GET /stats`` answers ``{"first_sent": t, "last_sent": t, "chunks": n}``
with ``time.perf_counter()`` values, which on Linux share the system-wide
monotonic clock with every other process on the machine.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TRIGGER = "stream please"
END_MARK = "ENDOFSTREAM"
WORDS = ["context", "window", "memory", "token", "budget", "session", "prompt", "record", "engine", "summary", "skill", "index", "recall", "gauge", "turn", "model"]


def reply_tokens(count: int, seed: int = 20260819) -> list[str]:
    """``count`` token-sized pieces of Markdown (paragraphs, bullets, a code block), ending in END_MARK."""
    rng = random.Random(seed)
    tokens: list[str] = []
    while len(tokens) < count - 1:
        shape = rng.random()
        if shape < 0.15:
            tokens += ["\n\n## ", rng.choice(WORDS).title(), " " + rng.choice(WORDS), "\n\n"]
        elif shape < 0.35:
            for _ in range(rng.randint(2, 5)):
                tokens.append("- ")
                tokens += [rng.choice(WORDS) + " " for _ in range(rng.randint(4, 12))]
                tokens.append("\n")
            tokens.append("\n")
        elif shape < 0.42:
            tokens.append("```python\n")
            for _ in range(rng.randint(2, 6)):
                tokens += [f"{rng.choice(WORDS)}_{rng.randrange(99)}", " = ", f"{rng.choice(WORDS)}(", f"{rng.randrange(999)})", "\n"]
            tokens.append("```\n\n")
        else:
            tokens += [rng.choice(WORDS) + (", " if rng.random() < 0.1 else " ") for _ in range(rng.randint(20, 60))]
            tokens.append(".\n\n")
    tokens = tokens[: count - 1]
    tokens.append(" " + END_MARK)
    return tokens


class _State:
    def __init__(self, tokens: int, rate: float) -> None:
        self.tokens = reply_tokens(tokens)
        self.rate = rate
        self.lock = threading.Lock()
        self.served = False
        self.first_sent = 0.0
        self.last_sent = 0.0
        self.chunks = 0


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {"id": "chatcmpl-paced", "object": "chat.completion.chunk", "created": int(time.time()), "model": "bench-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    data = f"data: {json.dumps(body)}\n\n".encode()
    return b"%x\r\n%s\r\n" % (len(data), data)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        state: _State = self.server.state
        if self.path.rstrip("/") == "/stats":
            self._json(200, {"first_sent": state.first_sent, "last_sent": state.last_sent, "chunks": state.chunks})
        elif self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": "bench-model", "object": "model", "created": 0, "owned_by": "bench"}]})
        else:
            self._json(404, {"error": {"message": "unknown path"}})

    def do_POST(self) -> None:
        state: _State = self.server.state
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        last = users[-1].get("content") if users else ""
        text = last if isinstance(last, str) else json.dumps(last)
        with state.lock:
            paced = TRIGGER in text and not state.served
            state.served = state.served or paced
        if not body.get("stream"):
            message = {"role": "assistant", "content": "OK"}
            self._json(200, {"id": "chatcmpl-x", "object": "chat.completion", "created": 0, "model": "bench-model",
                             "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                             "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        write = self.wfile.write
        write(_chunk({"role": "assistant", "content": ""}))
        self.wfile.flush()
        if paced:
            start = time.perf_counter()
            for index, token in enumerate(state.tokens):
                wait = start + index / state.rate - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
                write(_chunk({"content": token}))
                self.wfile.flush()
                now = time.perf_counter()
                if index == 0:
                    state.first_sent = now
                state.last_sent = now
                state.chunks = index + 1
        else:
            write(_chunk({"content": "OK"}))
        write(_chunk({}, "stop"))
        usage = {"id": "chatcmpl-paced", "object": "chat.completion.chunk", "created": 0, "model": "bench-model", "choices": [],
                 "usage": {"prompt_tokens": 1000, "completion_tokens": len(state.tokens) if paced else 1, "total_tokens": 1000}}
        data = f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode()
        write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data))
        self.wfile.flush()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokens", type=int, default=5000)
    parser.add_argument("--rate", type=float, default=1000.0)
    args = parser.parse_args()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    httpd.state = _State(args.tokens, args.rate)  # type: ignore[attr-defined]
    print(f"listening on http://127.0.0.1:{httpd.server_address[1]}/v1", flush=True)
    try:
        httpd.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
