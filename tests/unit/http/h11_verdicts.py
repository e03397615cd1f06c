#!/usr/bin/python3
"""Second opinion for the differential framing test (differential_test.cc): runs every vector of
the JSON files given (tests/vectors/http/*.json) through h11, a strict HTTP/1.1 parser, and prints
one line per vector: "NAME ok" when h11 parses one complete message from the bytes followed by the end of
the stream, "NAME reject" otherwise. Vector strings are bytes, one character per byte (latin-1).
Responses answer a GET, or the request a vector's "method" names (HEAD). Exit status 2 when h11 is
missing (apt-get install python3-h11)."""
import json
import sys

try:
    import h11
except ImportError:
    print("h11_verdicts.py: python3-h11 is not installed", file=sys.stderr)
    sys.exit(2)


def verdict(kind, data, method):
    if kind == "request":
        conn = h11.Connection(our_role=h11.SERVER)
    else:
        conn = h11.Connection(our_role=h11.CLIENT)
        conn.send(h11.Request(method=method, target="/", headers=[("Host", "x")]))
        conn.send(h11.EndOfMessage())
    try:
        conn.receive_data(data)
        conn.receive_data(b"")
        for _ in range(1000):
            event = conn.next_event()
            if isinstance(event, h11.EndOfMessage):
                return "ok"
            if event is h11.NEED_DATA or event is h11.PAUSED:
                return "reject"
            if isinstance(event, h11.ConnectionClosed):
                return "reject"
    except h11.RemoteProtocolError:
        return "reject"
    return "reject"


def main():
    for path in sys.argv[1:]:
        with open(path, encoding="ascii") as f:
            vectors = json.load(f)
        for v in vectors:
            print(v["name"], verdict(v["kind"], v["bytes"].encode("latin-1"), v.get("method", "GET")))


main()
