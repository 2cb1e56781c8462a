"""A chat-completions server on loopback for the tests of the LLM callers (the judge, the
generator writer): it answers each request with the next scripted behaviour (a reply text, an
HTTP status, or a delay), or with what `respond` picks for that request's body, and records
what it was sent."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ChatServer:
    def __init__(self):
        # ("reply", text) | ("status", code) | ("sleep", s, text)
        # | ("raw", status, content type, body): an answer that is not a chat completion
        self.script: list[tuple] = []
        self.default: tuple = ("reply", "{}")
        # when set, picks each request's behaviour from its body (the order requests arrive
        # in is not fixed when several are in flight); the script goes first while it lasts
        self.respond: Callable[[dict], tuple] | None = None
        self.requests: list[dict] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server._lock:
                    server.requests.append(body)
                    if server.script:
                        step = server.script.pop(0)
                    elif server.respond is not None:
                        step = server.respond(body)
                    else:
                        step = server.default
                    server.in_flight += 1
                    server.most_in_flight = max(server.most_in_flight, server.in_flight)
                answered = False
                try:
                    if step[0] == "sleep":
                        time.sleep(step[1])
                        step = ("reply", step[2])
                    content_type = "application/json"
                    if step[0] == "raw":
                        _, status, content_type, payload = step
                        self.send_response(status)
                    elif step[0] == "status":
                        payload = json.dumps({"error": {"message": f"scripted {step[1]}"}})
                        self.send_response(step[1])
                        self.send_header("retry-after-ms", "10")
                    else:
                        payload = json.dumps(
                            {
                                "id": "x",
                                "object": "chat.completion",
                                "created": 0,
                                "model": body["model"],
                                "choices": [
                                    {
                                        "index": 0,
                                        "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": step[1]},
                                    }
                                ],
                                "usage": {
                                    "prompt_tokens": 100,
                                    "completion_tokens": 20,
                                    "total_tokens": 120,
                                },
                            }
                        )
                        self.send_response(200)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    # out of flight before the body goes: once the client has it, it may send
                    # its next request before this thread would get to a `finally`
                    with server._lock:
                        server.in_flight -= 1
                    answered = True
                    self.wfile.write(payload.encode())
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)
                finally:
                    if not answered:
                        with server._lock:
                            server.in_flight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        # a short poll: close() waits for the serving loop to notice, once per test
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def reply(category: str = "io", **extra) -> str:
    return json.dumps(
        {"faster": "B", "category": category, "secondary": None, "rationale": "bulk read",
         "confidence": 0.8, **extra}
    )  # fmt: skip
