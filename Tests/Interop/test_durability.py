"""kill -9 at any moment loses no acknowledged write and never half-applies a multi-path update."""

import random
import signal
import threading
import time

import requests

from conftest import HearthProcess


def keep_writing(writer, acknowledged, stop, send):
    """Sends `send(session, writer, sequence)` with increasing sequences until the server dies,
    recording the last one acknowledged."""
    session = requests.Session()
    sequence = 0
    while not stop.is_set():
        sequence += 1
        try:
            response = send(session, writer, sequence)
        except requests.RequestException:
            return
        if response.status_code != 200:
            return
        acknowledged[writer] = sequence


def read_after_restart(server, path, **params):
    """The value at `path` once the restarted server answers. On a cluster the first request may
    be passed on to the owner that was killed, and fail with 503 while another node finds its
    lock free and takes the namespace over (docs/scale-out.md); any other failure fails the test."""
    deadline = time.time() + 10
    while True:
        response = requests.get(f"{server.url}/{path}.json", params=params, timeout=10)
        if response.status_code != 503 or time.time() > deadline:
            break
        time.sleep(0.1)
    assert response.status_code == 200, response.text
    return response.json()


def hammer(server, writer, acknowledged, stop):
    """Writes increasing numbers: even writers to a location of their own, odd ones to a pair
    of locations at once."""
    def send(session, writer, sequence):
        if writer % 2 == 0:
            return session.put(f"{server.url}/d/w{writer}.json", json=sequence, timeout=5)
        return session.patch(
            f"{server.url}/d.json", json={f"pair{writer}/a": sequence, f"pair{writer}/b": sequence}, timeout=5)
    keep_writing(writer, acknowledged, stop, send)


def test_kill_minus_nine_loses_no_acknowledged_write():
    server = HearthProcess().start()
    try:
        for round_number in range(3):
            acknowledged = {}
            stop = threading.Event()
            threads = [threading.Thread(target=hammer, args=(server, writer, acknowledged, stop)) for writer in range(8)]
            for thread in threads:
                thread.start()
            time.sleep(random.uniform(0.3, 1.2))
            server.stop(signal.SIGKILL)
            stop.set()
            for thread in threads:
                thread.join()
            assert len(acknowledged) == 8, f"round {round_number}: some writers never got an answer"

            server = HearthProcess(data_dir=server.data_dir).start()
            data = read_after_restart(server, "d")
            for writer, last in acknowledged.items():
                if writer % 2 == 0:
                    assert data[f"w{writer}"] >= last, (writer, data[f"w{writer}"], last)
                else:
                    pair = data[f"pair{writer}"]
                    assert pair["a"] == pair["b"], f"half-applied update: {pair}"
                    assert pair["a"] >= last, (writer, pair, last)
    finally:
        server.stop()
        server.remove_data()


def patch_new_keys(server, writer, acknowledged, stop):
    """Multi-path updates of 100 new keys each, so that the journal names thousands of locations
    within a second and compactions (rewriting them in steps) run while the server is killed."""
    def send(session, writer, sequence):
        update = {f"n/{writer}-{sequence}-{index}": sequence for index in range(100)}
        return session.patch(f"{server.url}/.json", json=update, timeout=5)
    keep_writing(writer, acknowledged, stop, send)


def test_kill_minus_nine_during_compactions_loses_nothing():
    server = HearthProcess().start()
    try:
        for round_number in range(4):
            acknowledged = {}
            stop = threading.Event()
            threads = [threading.Thread(target=patch_new_keys, args=(server, writer, acknowledged, stop))
                       for writer in range(6)]
            for thread in threads:
                thread.start()
            time.sleep(random.uniform(0.8, 2.5))
            server.stop(signal.SIGKILL)
            stop.set()
            for thread in threads:
                thread.join()
            server = HearthProcess(data_dir=server.data_dir).start()
            keys = read_after_restart(server, "n", shallow="true") or {}
            written = {}
            for key in keys:
                writer, sequence, _ = key.split("-")
                written.setdefault((writer, sequence), 0)
                written[(writer, sequence)] += 1
            assert all(count == 100 for count in written.values()), f"round {round_number}: a half-applied update"
            for writer, last in acknowledged.items():
                for sequence in range(1, last + 1):
                    assert written.get((str(writer), str(sequence))) == 100, (round_number, writer, sequence, last)
    finally:
        server.stop()
        server.remove_data()
