"""A TCP proxy on loopback that a test, a benchmark or the cluster harness (scripts/cluster.py)
turns into a network fault: a process connects to the proxy's port instead of the server's,
and the proxy forwards, cuts, delays or stalls what goes through.

Plain Python (sockets and threads), no Django: importable from tests, benchmarks and scripts.

    proxy = FaultProxy("127.0.0.1", 5432)    # listens on a free loopback port: proxy.port
    url = f"postgres://postgres@127.0.0.1:{proxy.port}/codeopt"
    proxy.cut()        # listener and every connection closed: new connections are refused
    proxy.restore()    # listening (same port) and forwarding again, no delay, no stall
    proxy.delay(0.2)   # every chunk forwarded 0.2 s late, both ways
    proxy.drop()       # connections accepted, nothing forwarded: both ends stall
    proxy.close()

`drop` is a partition that heals: bytes sent meanwhile are held (as the kernel's buffers and
TCP retransmission would hold them), a connection accepted meanwhile reaches the server only
once `restore` is called, and then everything flows on in order. `cut` is a partition both
ends see at once: every connection is reset.
"""

from __future__ import annotations

import socket
import threading
import time

from scripts.readiness import free_port

CHUNK_BYTES = 65536


def _close(sock: socket.socket) -> None:
    try:  # wakes a thread blocked in recv()/accept(): close() alone does not on Linux
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


class FaultProxy:
    """127.0.0.1:`port` forwarded to `host`:`target_port`, with faults on demand (module
    docstring). `accepted` counts the connections taken since it started."""

    def __init__(self, host: str, target_port: int, port: int | None = None, name: str = ""):
        self.target = (host, target_port)
        self.port = port or free_port()
        self.name = name or f"{host}:{target_port}"
        self.accepted = 0
        self._delay_s = 0.0
        self._flowing = threading.Event()  # cleared by drop(): pumps hold what they read
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self.restore()

    def __enter__(self) -> FaultProxy:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"FaultProxy({self.name} on :{self.port}, {self.state})"

    @property
    def state(self) -> str:
        if self._listener is None:
            return "cut"
        if not self._flowing.is_set():
            return "dropping"
        return f"delaying {self._delay_s:g} s" if self._delay_s else "forwarding"

    # --- faults ------------------------------------------------------------------------------

    def restore(self) -> None:
        """Forward again: listening (if cut), no delay, held bytes sent on."""
        self._delay_s = 0.0
        self._flowing.set()
        with self._lock:
            if self._listener is not None:
                return
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", self.port))
            listener.listen(64)
            self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Close the listener and every forwarded connection: connecting is refused."""
        with self._lock:
            listener, self._listener = self._listener, None
            sockets, self._sockets = self._sockets, set()
        if listener is not None:
            _close(listener)
        for sock in sockets:
            _close(sock)
        self._flowing.set()  # held pumps find their sockets closed and end

    def delay(self, seconds: float) -> None:
        """Forward every chunk `seconds` late (each direction; 0: no delay)."""
        self._delay_s = max(0.0, float(seconds))

    def drop(self) -> None:
        """Accept and read, forward nothing, until `restore` (or `cut`)."""
        self._flowing.clear()

    def close(self) -> None:
        self.cut()

    # --- forwarding ---------------------------------------------------------------------------

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:  # closed by cut()
                return
            self.accepted += 1
            threading.Thread(target=self._connect, args=(client,), daemon=True).start()

    def _connect(self, client: socket.socket) -> None:
        with self._lock:
            self._sockets.add(client)
        self._flowing.wait()  # a connection accepted while dropping waits for restore()
        try:
            server = socket.create_connection(self.target, timeout=10)
            server.settimeout(None)
        except OSError:
            self._forget(client)
            return
        with self._lock:
            if client not in self._sockets:  # cut meanwhile
                _close(server)
                return
            self._sockets.add(server)
        for source, sink in ((client, server), (server, client)):
            threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _forget(self, *sockets: socket.socket) -> None:
        with self._lock:
            for sock in sockets:
                self._sockets.discard(sock)
        for sock in sockets:
            _close(sock)

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(CHUNK_BYTES):
                self._flowing.wait()
                if self._delay_s:
                    time.sleep(self._delay_s)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            self._forget(source, sink)
