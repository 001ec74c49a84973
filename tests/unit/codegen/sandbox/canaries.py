"""Canaries for the sandbox tests: a loopback server counting TCP connections and UDP datagrams."""

from __future__ import annotations

import socket
import threading


class CanaryServer:
    """Listens on 127.0.0.1 (TCP and UDP, OS-chosen ports); anything it sees is an escape."""

    def __init__(self) -> None:
        self.tcp = socket.socket()
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(64)
        self.tcp.settimeout(0.1)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp.settimeout(0.1)
        self.port = self.tcp.getsockname()[1]
        self.udp_port = self.udp.getsockname()[1]
        self.connections = 0
        self.datagrams = 0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._accept, daemon=True),
                         threading.Thread(target=self._receive, daemon=True)]

    def __enter__(self) -> CanaryServer:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(2)
        self.tcp.close()
        self.udp.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.tcp.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def _receive(self) -> None:
        while not self._stop.is_set():
            try:
                self.udp.recvfrom(65536)
            except OSError:
                continue
            self.datagrams += 1
