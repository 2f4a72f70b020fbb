#!/usr/bin/env python3
"""Waits until the workers have acknowledged every job in the jobs stream, then prints the Unix
time it saw that (scripts/bench-fleet's end of a fleet run).

    scripts/fleet-drained.py nats://127.0.0.1:PORT

Asks the server itself ($JS.API stream info, every 10 ms, over one plain NATS connection)
rather than the worker's /metrics, so that the wait costs the machine being measured almost
nothing: no process per poll and no exposition to render. Done when the jobs stream, a work
queue whose jobs leave it when acknowledged, holds none (so run it after `submit` returns).
Standard library only.
"""
import json
import socket
import sys
import time
from urllib.parse import urlparse

JOBS_STREAM = "SIMFLEET_JOBS"  # shared/wire/src/names.rs
INBOX = "_INBOX.fleet_drained"


class Nats:
    def __init__(self, url):
        u = urlparse(url)
        self.sock = socket.create_connection((u.hostname or "127.0.0.1", u.port or 4222))
        self.buf = b""
        self._line()  # INFO
        self.sock.sendall(b'CONNECT {"verbose":false,"pedantic":false}\r\nPING\r\n')
        while self._line() != b"PONG":
            pass
        self.sock.sendall(f"SUB {INBOX} 1\r\n".encode())

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            sys.exit("fleet-drained: the server closed the connection")
        self.buf += chunk

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def request(self, subject):
        self.sock.sendall(f"PUB {subject} {INBOX} 0\r\n\r\n".encode())
        while True:
            line = self._line()
            if line == b"PING":
                self.sock.sendall(b"PONG\r\n")
            elif line.startswith(b"MSG "):
                size = int(line.split()[-1])
                while len(self.buf) < size + 2:
                    self._fill()
                payload, self.buf = self.buf[:size], self.buf[size + 2:]
                return json.loads(payload)
            elif line.startswith(b"-ERR"):
                sys.exit(f"fleet-drained: {line.decode()}")


def main():
    nats = Nats(sys.argv[1])
    subject = f"$JS.API.STREAM.INFO.{JOBS_STREAM}"
    while nats.request(subject)["state"]["messages"] > 0:
        time.sleep(0.01)
    print(f"{time.time():.6f}")


if __name__ == "__main__":
    main()
