"""Regula's Python binding against pyca/cryptography: AES-256-GCM and SHA-256 at 64 B and 64 KiB.

Not a test: run it in the venv scripts/test-python builds,

    ~/.cache/regula/python/venv/bin/python python/bench.py [--rounds N] [--json]

Each case alternates Regula and pyca/cryptography batches (about 20 ms each) round after round,
so that both see the same machine load; it reports the median time per call, the spread
(interquartile range, as a percentage of the median) and Regula's throughput relative to
pyca/cryptography (above 1.0: Regula is faster). The per-call overhead is the difference of the
medians at 64 B, where the cryptography itself costs well under a microsecond.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

# python/ (this file's folder) holds the source of the `regula` package without its compiled
# extension: import the installed wheel instead.
sys.path = [
    entry
    for entry in sys.path
    if os.path.abspath(entry or ".") != os.path.dirname(os.path.abspath(__file__))
]

from cryptography.hazmat.primitives import hashes  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: E402

import regula  # noqa: E402

SIZES = [64, 64 * 1024]
BATCH_SECONDS = 0.02


def cpu_description() -> dict[str, object]:
    model, flags = platform.processor() or "unknown", []
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and model in ("unknown", "", platform.processor()):
                    model = value.strip()
                elif key == "flags" and not flags:
                    flags = value.split()
    except OSError:
        pass
    interesting = ["aes", "pclmulqdq", "avx2", "avx512f", "vaes", "vpclmulqdq", "sha_ni", "gfni"]
    return {
        "model": model,
        "cpus": os.cpu_count(),
        "features": [flag for flag in interesting if flag in flags],
    }


def cases(size: int):
    """(name, regula call, pyca call) for one message size; both produce the same bytes."""
    key, nonce, data = os.urandom(32), os.urandom(12), os.urandom(size)
    module = regula.Module("default")  # caller-chosen GCM nonces, as pyca takes them
    ours, theirs = module.aead("aes-256-gcm", key), AESGCM(key)
    assert ours.encrypt(nonce, data, b"") == theirs.encrypt(nonce, data, b"")

    def pyca_sha256():
        digest = hashes.Hash(hashes.SHA256())
        digest.update(data)
        return digest.finalize()

    assert module.digest("sha256", data) == pyca_sha256()
    return [
        (
            "AES-256-GCM encrypt",
            lambda: ours.encrypt(nonce, data, b""),
            lambda: theirs.encrypt(nonce, data, b""),
        ),
        ("SHA-256", lambda: module.digest("sha256", data), pyca_sha256),
    ]


def batch_size(call) -> int:
    calls, began = 0, time.perf_counter()
    while time.perf_counter() - began < BATCH_SECONDS / 4:
        call()
        calls += 1
    return max(1, calls * 4)


def timed(call, calls: int) -> float:
    began = time.perf_counter_ns()
    for _ in range(calls):
        call()
    return (time.perf_counter_ns() - began) / calls


def summary(samples: list[float]) -> dict[str, float]:
    quartiles = statistics.quantiles(samples, n=4)
    median = statistics.median(samples)
    return {"median_ns": median, "iqr_pct": 100 * (quartiles[2] - quartiles[0]) / median}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()

    rows = []
    for size in SIZES:
        for name, ours, theirs in cases(size):
            calls = batch_size(ours)
            samples = {"regula": [], "pyca": []}
            for round_ in range(arguments.rounds):
                order = [("regula", ours), ("pyca", theirs)]
                if round_ % 2:
                    order.reverse()
                for who, call in order:
                    samples[who].append(timed(call, calls))
            regula_stats, pyca_stats = summary(samples["regula"]), summary(samples["pyca"])
            rows.append(
                {
                    "case": name,
                    "bytes": size,
                    "regula": regula_stats,
                    "pyca": pyca_stats,
                    # Throughput ratio: pyca's time over Regula's (>1: Regula faster).
                    "ratio": pyca_stats["median_ns"] / regula_stats["median_ns"],
                }
            )

    overhead = {
        row["case"]: row["regula"]["median_ns"] - row["pyca"]["median_ns"]
        for row in rows
        if row["bytes"] == SIZES[0]
    }
    report = {
        "cpu": cpu_description(),
        "regula": regula.build_info()["backend"],
        "python": platform.python_version(),
        "rounds": arguments.rounds,
        "rows": rows,
        "per_call_overhead_ns_vs_pyca_at_64B": overhead,
    }
    if arguments.json:
        print(json.dumps(report, indent=2))
        return
    cpu = report["cpu"]
    print(f"CPU: {cpu['model']} ({cpu['cpus']} CPUs; {' '.join(cpu['features'])})")
    print(f"Regula on {report['regula']}, Python {report['python']}, {arguments.rounds} rounds")
    print(
        f"{'case':<22}{'size':>8}  {'regula ns/call':>16}  {'pyca ns/call':>14}"
        f"  {'regula MB/s':>11}  {'ratio':>6}"
    )
    for row in rows:
        ours, theirs = row["regula"], row["pyca"]
        print(
            f"{row['case']:<22}{row['bytes']:>8}"
            f"  {ours['median_ns']:>9.0f} ±{ours['iqr_pct']:>4.1f}%"
            f"  {theirs['median_ns']:>7.0f} ±{theirs['iqr_pct']:>4.1f}%"
            f"  {row['bytes'] / ours['median_ns'] * 1e3:>11.0f}  {row['ratio']:>5.2f}x"
        )
    for case, nanoseconds in overhead.items():
        print(f"per-call overhead vs pyca/cryptography ({case}, 64 B): {nanoseconds:+.0f} ns")


if __name__ == "__main__":
    main()
