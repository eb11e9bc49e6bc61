#!/usr/bin/env python3
"""TLS 1.3 first-flight conformance probes (RFC 8446), written with tlslite-ng.

Each probe sends one malformed or edge-case flight to a server and checks the server's first
answer: a ServerHello, a plaintext alert with an exact description, or nothing. The expected
outcomes come from RFC 8446 (section named per probe), not from any implementation.

Usage: probes.py HOST:PORT [--label NAME] [--json FILE]
Exit status: 0 when every probe ran (pass or fail), 2 when the server could not be reached.
The server must hold an RSA-2048 certificate and offer TLS 1.3 with P-256 and AES-GCM.
"""
import argparse
import json
import os
import socket
import struct
import sys

from tlslite.constants import CipherSuite, GroupName, SignatureScheme
from tlslite.extensions import (
    ClientKeyShareExtension,
    KeyShareEntry,
    SignatureAlgorithmsExtension,
    SupportedGroupsExtension,
    SupportedVersionsExtension,
    TLSExtension,
)
from tlslite.keyexchange import ECDHKeyExchange
from tlslite.messages import ClientHello

HANDSHAKE, ALERT, CCS, APPDATA = 22, 21, 20, 23
ALERTS = {
    0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac", 22: "record_overflow",
    40: "handshake_failure", 47: "illegal_parameter", 50: "decode_error", 51: "decrypt_error",
    70: "protocol_version", 71: "insufficient_security", 80: "internal_error",
    109: "missing_extension", 110: "unsupported_extension",
}
TIMEOUT = 5.0

# Schemes a TLS 1.3 server with an RSA-2048 (rsaEncryption) key can sign with, and others.
GOOD_SCHEMES = [SignatureScheme.rsa_pss_rsae_sha256, SignatureScheme.rsa_pss_rsae_sha384,
                SignatureScheme.rsa_pss_rsae_sha512, SignatureScheme.ecdsa_secp256r1_sha256,
                SignatureScheme.ecdsa_secp384r1_sha384]
# ecdsa_sha1, ecdsa_sha224, rsa_pss_pss_*: none fits an rsaEncryption key in TLS 1.3.
NO_COMMON_SCHEMES = [(2, 3), (3, 3), SignatureScheme.rsa_pss_pss_sha256,
                     SignatureScheme.rsa_pss_pss_sha384, SignatureScheme.rsa_pss_pss_sha512]


def key_share():
    kex = ECDHKeyExchange(GroupName.secp256r1, (3, 4))
    public = kex.calc_public_value(kex.get_random_private_key())
    return KeyShareEntry().create(GroupName.secp256r1, public)


def hello(legacy_version=(3, 3), schemes=None, groups=True, shares=True, sigalgs=True,
          padding=0, versions=((3, 4),)):
    """A TLS 1.3 ClientHello handshake message (with its 4-byte header)."""
    extensions = [SupportedVersionsExtension().create(list(versions))]
    if groups:
        extensions.append(SupportedGroupsExtension().create([GroupName.secp256r1]))
    if shares:
        extensions.append(ClientKeyShareExtension().create([key_share()]))
    if sigalgs:
        extensions.append(SignatureAlgorithmsExtension().create(schemes or GOOD_SCHEMES))
    if padding:
        extensions.append(TLSExtension(extType=21).create(bytearray(padding)))
    message = ClientHello().create(
        legacy_version, bytearray(os.urandom(32)), bytearray(os.urandom(32)),
        [CipherSuite.TLS_AES_128_GCM_SHA256, CipherSuite.TLS_AES_256_GCM_SHA384],
        extensions=extensions)
    return bytes(message.write())


def record(content_type, payload, version=(3, 1)):
    return struct.pack(">BBBH", content_type, version[0], version[1], len(payload)) + payload


def records(message, size=16384):
    """The message split into handshake records of at most `size` bytes."""
    return b"".join(record(HANDSHAKE, message[i:i + size]) for i in range(0, len(message), size))


def split_with(message, middle, at=20):
    return record(HANDSHAKE, message[:at]) + middle + record(HANDSHAKE, message[at:])


def hello_of_record_length(length):
    base = len(hello())
    # padding extension: 4 bytes of header plus its contents.
    message = hello(padding=length - base - 4)
    assert len(message) == length, (len(message), length)
    return message


def many_schemes(count):
    schemes = GOOD_SCHEMES + [(0xfe, i % 0xfe) for i in range(count - len(GOOD_SCHEMES))]
    return records(hello(schemes=schemes))


def read_exactly(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def answer(address, flight):
    """The server's first answer: 'server_hello', 'alert:NAME', 'closed', 'reset' or 'timeout'."""
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=TIMEOUT) as sock:
        try:
            sock.sendall(flight)
        except (BrokenPipeError, ConnectionResetError):
            return "reset"
        try:
            header = read_exactly(sock, 5)
            if header is None:
                return "closed"
            content_type, _, _, length = struct.unpack(">BBBH", header)
            body = read_exactly(sock, length)
            if body is None:
                return "closed"
        except ConnectionResetError:
            return "reset"
        except socket.timeout:
            return "timeout"
        if content_type == HANDSHAKE and body[:1] == b"\x02":
            return "server_hello"
        if content_type == ALERT and len(body) == 2:
            return "alert:" + ALERTS.get(body[1], str(body[1]))
        return "record:%d" % content_type


# (name, RFC 8446 section, flight builder, expected answer)
PROBES = [
    ("baseline TLS 1.3 ClientHello", "4.1.2", lambda: records(hello()), "server_hello"),
    ("ClientHello split over two records", "5.1",
     lambda: split_with(hello(), b""), "server_hello"),
    ("ClientHello in a record of exactly 2^14 bytes", "5.1",
     lambda: records(hello_of_record_length(16384)), "server_hello"),
    ("legacy_version 3.1 with supported_versions 1.3", "4.2.1",
     lambda: records(hello(legacy_version=(3, 1))), "server_hello"),
] + [
    ("legacy_version %d.%d" % version, "D.5",
     (lambda version=version: records(hello(legacy_version=version))), "alert:protocol_version")
    for version in [(0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (1, 3), (2, 0), (3, 0)]
] + [
    ("ClientHello in a 2^14+1-byte plaintext record", "5.1",
     lambda: records(hello_of_record_length(16385), size=16385), "alert:record_overflow"),
    ("ClientHello in a 2^14+2048-byte plaintext record", "5.1",
     lambda: records(hello_of_record_length(16384 + 2048), size=18432), "alert:record_overflow"),
    ("zero-length handshake record before the ClientHello", "5.1",
     lambda: record(HANDSHAKE, b"") + records(hello()), "alert:unexpected_message"),
    ("zero-length handshake record inside the ClientHello", "5.1",
     lambda: split_with(hello(), record(HANDSHAKE, b"")), "alert:unexpected_message"),
    ("change_cipher_spec inside the ClientHello", "5.1",
     lambda: split_with(hello(), record(CCS, b"\x01")), "alert:unexpected_message"),
    ("application_data inside the ClientHello", "5.1",
     lambda: split_with(hello(), record(APPDATA, b"x" * 16)), "alert:unexpected_message"),
    ("warning alert inside the ClientHello", "5.1",
     lambda: split_with(hello(), record(ALERT, b"\x01\x5a")), "alert:unexpected_message"),
    ("empty alert record before the ClientHello", "5.1, 6",
     lambda: record(ALERT, b"") + records(hello()), "alert:unexpected_message"),
    ("application_data before the ClientHello", "5",
     lambda: record(APPDATA, b"x" * 16) + records(hello()), "alert:unexpected_message"),
    ("no common signature scheme (ecdsa_sha1, ecdsa_sha224, rsa_pss_pss_*)", "4.2.3",
     lambda: records(hello(schemes=NO_COMMON_SCHEMES)), "alert:handshake_failure"),
    ("only rsa_pkcs1_sha256 offered (not for TLS 1.3 CertificateVerify)", "4.2.3",
     lambda: records(hello(schemes=[SignatureScheme.rsa_pkcs1_sha256])),
     "alert:handshake_failure"),
    ("supported_groups without key_share", "9.2",
     lambda: records(hello(shares=False)), "alert:missing_extension"),
    ("key_share without supported_groups", "9.2",
     lambda: records(hello(groups=False)), "alert:missing_extension"),
    ("no signature_algorithms and no pre_shared_key", "9.2",
     lambda: records(hello(sigalgs=False)), "alert:missing_extension"),
    ("ClientHello with 32,715 signature schemes (~65 KB)", "4.2.3",
     lambda: many_schemes(32715), "server_hello"),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("address")
    parser.add_argument("--label", default="server")
    parser.add_argument("--json")
    args = parser.parse_args()
    try:
        socket.create_connection(tuple([args.address.rsplit(":", 1)[0],
                                        int(args.address.rsplit(":", 1)[1])]), timeout=TIMEOUT).close()
    except OSError as error:
        print("%s: cannot connect to %s: %s" % (args.label, args.address, error), file=sys.stderr)
        return 2
    results = []
    for name, section, build, expected in PROBES:
        try:
            got = answer(args.address, build())
        except OSError as error:
            got = "error:%s" % error
        results.append({"name": name, "rfc8446": section, "expected": expected, "got": got,
                        "pass": got == expected})
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"label": args.label, "results": results}, out, indent=1)
    for result in results:
        print("%-4s %-70s want %-26s got %s" % ("ok" if result["pass"] else "FAIL",
              result["name"], result["expected"], result["got"]))
    print("%s: %d/%d probes pass" % (args.label, sum(r["pass"] for r in results), len(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
