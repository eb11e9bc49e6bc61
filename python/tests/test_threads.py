"""Threads: one module shared by many threads, and the GIL released during bulk work."""

import hashlib
import hmac
import os
import threading
import time

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM


def test_eight_threads_share_one_module(default):
    key = os.urandom(32)
    aead = default.aead("aes-256-gcm", key)  # shared by every thread too
    mac = default.hmac("sha256", key)
    peer = AESGCM(key)
    errors = []
    start = threading.Barrier(8)

    def work(index):
        try:
            start.wait()
            scope = default.scope()
            for round_ in range(40):
                size = (index * 977 + round_ * 131) % 20000
                data = os.urandom(size)
                nonce = os.urandom(12)
                ciphertext = aead.encrypt(nonce, data, b"t%d" % index)
                assert ciphertext == peer.encrypt(nonce, data, b"t%d" % index)
                assert aead.decrypt(nonce, ciphertext, b"t%d" % index) == data
                sealed_nonce, sealed = aead.seal(data)
                assert peer.decrypt(sealed_nonce, sealed.data, None) == data
                assert default.digest("sha256", data) == hashlib.sha256(data).digest()
                assert mac.sign(data) == hmac.new(key, data, hashlib.sha256).digest()
                assert scope.digest("sha3-256", data) == hashlib.sha3_256(data).digest()
            assert scope.indicator_state == "approved"
        except Exception as error:  # reported below, with the thread that raised it
            errors.append((index, error))

    threads = [threading.Thread(target=work, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors


def test_eight_threads_share_one_hash_object(default):
    h = default.hash("sha256")
    chunk = os.urandom(8192)
    start = threading.Barrier(8)

    def feed():
        start.wait()
        for _ in range(50):
            h.update(chunk)

    threads = [threading.Thread(target=feed) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Every update landed whole (the order of identical chunks does not matter).
    assert h.digest() == hashlib.sha256(chunk * 400).digest()


MIB = 1 << 20


@pytest.mark.skipif(
    (os.cpu_count() or 1) < 2, reason="needs at least 2 CPUs to run 2 threads at once"
)
def test_sealing_releases_the_gil(default):
    """2 threads sealing 8 MiB each finish in at most 0.65x the time one thread takes for both.

    With the GIL held the ratio would be about 1.0. The machine may be busy with other work
    (another process on one of two cores alone makes it about 0.75), so the ratio is the best of
    interleaved tries for up to half a minute: one fast parallel run shows the GIL is released;
    contention from elsewhere can only make runs slower.
    """
    aead = default.aead("aes-256-gcm", os.urandom(32))
    buffers = [os.urandom(8 * MIB), os.urandom(8 * MIB)]
    # Two long-lived workers (thread start-up and fresh malloc arenas stay out of the timing).
    # Each round: worker 0 alone seals both buffers, then both workers seal one each.
    start, done = threading.Barrier(3), threading.Barrier(3)
    jobs = [[], []]
    stop = False

    def worker(index):
        while True:
            start.wait()
            if stop:
                return
            for buffer in jobs[index]:
                aead.seal(buffer)
            done.wait()

    def timed(assignment):
        jobs[0], jobs[1] = assignment
        # Timed from before the start signal: after it, this thread may wait for the GIL.
        began = time.perf_counter()
        start.wait()
        done.wait()
        return time.perf_counter() - began

    workers = [threading.Thread(target=worker, args=(index,)) for index in range(2)]
    for thread in workers:
        thread.start()
    try:
        timed((buffers, []))  # warm up: page in the output buffers once
        timed(([buffers[0]], [buffers[1]]))
        best_serial, best_parallel = float("inf"), float("inf")
        deadline = time.monotonic() + 30
        tries = 0
        while tries < 10 or time.monotonic() < deadline:
            tries += 1
            best_serial = min(best_serial, timed((buffers, [])))
            best_parallel = min(best_parallel, timed(([buffers[0]], [buffers[1]])))
            if tries >= 10 and best_parallel <= 0.65 * best_serial:
                break
            if tries % 10 == 0:
                time.sleep(0.2)  # let a burst of other work on the machine pass
    finally:
        stop = True
        start.wait()
        for thread in workers:
            thread.join()
    ratio = best_parallel / best_serial
    print(
        f"2 threads / 1 thread: {ratio:.2f} "
        f"({best_parallel * 1e3:.2f} ms / {best_serial * 1e3:.2f} ms, {tries} tries)"
    )
    assert ratio <= 0.65
