#!/usr/bin/env python3
"""Checks a testssl.sh JSON scan (-p -E -f --jsonfile) of `regula tls serve` against a policy.

    tls_scan_check.py fips SCAN.json      exit 0 only if the scan connected and saw nothing but
                                          TLS 1.2/1.3, AES-GCM suites and P-256/P-384
    tls_scan_check.py default SCAN.json   exit 0 only if the scan connected, the FIPS check above
                                          fails on it, and ChaCha20 is offered (the check can fail)
    tls_scan_check.py cnsa SCAN.json      exit 0 only if the scan connected and saw nothing but
                                          TLS 1.3, TLS_AES_256_GCM_SHA384 and P-384 (CNSA 2.0
                                          with the CNSA 1.0 group; the scanner's OpenSSL has no
                                          ML-KEM-1024)
"""
import json
import sys

APPROVED_CURVES = {"prime256v1", "secp384r1"}
OLD_PROTOCOLS = ["SSLv2", "SSLv3", "TLS1", "TLS1_1"]


def load(path):
    rows = json.load(open(path))
    return {row["id"]: row["finding"] for row in rows}, rows


def offered_suites(findings, rows):
    suites = set(findings.get("PFS_ciphers", "").split())
    for row in rows:
        if row["id"].startswith("cipher-tls"):
            # The finding ends with the IANA name.
            suites.add(row["finding"].split()[-1])
    return suites


def connected(findings, rows):
    problems = []
    if "scanProblem" in findings:
        problems.append(f"scan problem: {findings['scanProblem']}")
    if not findings.get("TLS1_3", "").startswith("offered") and not findings.get(
        "TLS1_2", ""
    ).startswith("offered"):
        problems.append("neither TLS 1.2 nor TLS 1.3 seen: the scan did not connect")
    if not offered_suites(findings, rows):
        problems.append("no cipher suite seen: the scan did not connect")
    return problems


def fips_violations(findings, rows):
    violations = []
    for protocol in OLD_PROTOCOLS:
        if findings.get(protocol) != "not offered":
            violations.append(f"{protocol}: {findings.get(protocol, 'not scanned')}")
    for suite in sorted(offered_suites(findings, rows)):
        if "AES" not in suite or "GCM" not in suite:
            violations.append(f"non-approved cipher suite offered: {suite}")
    curves = set(findings.get("PFS_ECDHE_curves", "").split())
    for curve in sorted(curves - APPROVED_CURVES):
        violations.append(f"non-approved group offered: {curve}")
    if not curves:
        violations.append("no ECDHE group seen")
    return violations


CNSA_SUITES = {"TLS_AES_256_GCM_SHA384"}
CNSA_CURVES = {"secp384r1"}


def cnsa_violations(findings, rows):
    violations = []
    for protocol in OLD_PROTOCOLS + ["TLS1_2"]:
        if findings.get(protocol) != "not offered":
            violations.append(f"{protocol}: {findings.get(protocol, 'not scanned')}")
    if not findings.get("TLS1_3", "").startswith("offered"):
        violations.append(f"TLS1_3: {findings.get('TLS1_3', 'not scanned')}")
    for suite in sorted(offered_suites(findings, rows) - CNSA_SUITES):
        violations.append(f"cipher suite outside CNSA 2.0 offered: {suite}")
    curves = set(findings.get("PFS_ECDHE_curves", "").split())
    for curve in sorted(curves - CNSA_CURVES):
        violations.append(f"group outside CNSA offered: {curve}")
    if not curves:
        violations.append("no ECDHE group seen")
    return violations


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("fips", "default", "cnsa"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, path = sys.argv[1], sys.argv[2]
    findings, rows = load(path)
    problems = connected(findings, rows)
    if problems:
        for problem in problems:
            print(f"tls-scan: {problem}", file=sys.stderr)
        return 1
    suites = offered_suites(findings, rows)
    print(f"tls-scan ({mode}): protocols "
          + ", ".join(f"{p}={findings.get(p)}" for p in OLD_PROTOCOLS + ["TLS1_2", "TLS1_3"]))
    print(f"tls-scan ({mode}): suites {' '.join(sorted(suites))}")
    print(f"tls-scan ({mode}): groups {findings.get('PFS_ECDHE_curves', '')}")
    if mode == "cnsa":
        violations = cnsa_violations(findings, rows)
        for violation in violations:
            print(f"tls-scan: CNSA 2.0 violation: {violation}", file=sys.stderr)
        return 1 if violations else 0
    violations = fips_violations(findings, rows)
    if mode == "fips":
        for violation in violations:
            print(f"tls-scan: FIPS violation: {violation}", file=sys.stderr)
        return 1 if violations else 0
    if not violations:
        print("tls-scan: the FIPS check passed on the default policy: it cannot fail", file=sys.stderr)
        return 1
    if not any("CHACHA20" in suite for suite in suites):
        print("tls-scan: default policy shows no ChaCha20 suite", file=sys.stderr)
        return 1
    print(f"tls-scan (default): the FIPS check rejects it as it should ({len(violations)} findings)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
