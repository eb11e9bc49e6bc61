#!/usr/bin/env python3
"""TLS 1.3 conformance probes (RFC 8446), written with tlslite-ng.

First-flight probes send one malformed or edge-case flight to a server and check the server's
first answer: a ServerHello, a plaintext alert with an exact description, or nothing.
Post-handshake probes complete a TLS 1.3 handshake with tlslite's TLSConnection, then send
crafted records through its record layer (as tlsfuzzer does) and decrypt the server's answer:
application data (the server's page), an alert with its description, or nothing. 0-RTT probes
offer early_data with a pre_shared_key the server never issued, followed by N bytes of
undecryptable application_data records, then complete the handshake (the server must skip up to
its configured maximum, 16,384 bytes here, and fail with bad_record_mac beyond it).
The expected outcomes come from RFC 8446 (section named per probe), not from any implementation.

Usage: probes.py HOST:PORT [--early HOST:PORT] [--label NAME] [--json FILE] [--deviations FILE]
                 [--only-baseline]
Exit status: 0 when every probe ran (pass or fail), 2 when the server could not be reached;
with --only-baseline, 0 when the server answers a valid ClientHello with a ServerHello, else 1.
The server must hold an RSA-2048 certificate, offer TLS 1.3 with P-256 and AES-GCM, answer an
HTTP GET after the handshake (`regula tls serve --http`, `openssl s_server -www`) and accept
16,384 bytes of early data (`--early-data 16384`, `-early_data`); --early names another address
for the 0-RTT probes (OpenSSL cannot combine -early_data with -www).
A deviations file names probes (one per line) where the server is known to differ from the RFC
for a documented reason: they still count as failed, and are marked "dev" instead of "FAIL".
"""
import argparse
import json
import os
import socket
import struct
import sys

import tlslite.tlsconnection
from tlslite.api import HandshakeSettings, TLSConnection
from tlslite.constants import (CipherSuite, ContentType, GroupName, KeyUpdateMessageType,
                               SignatureScheme)
from tlslite.errors import TLSAbruptCloseError, TLSError, TLSRemoteAlert
from tlslite.extensions import (
    ClientKeyShareExtension,
    KeyShareEntry,
    SignatureAlgorithmsExtension,
    SupportedGroupsExtension,
    SupportedVersionsExtension,
    TLSExtension,
)
from tlslite.keyexchange import ECDHKeyExchange
from tlslite.messages import ClientHello, Finished, Message

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


def key_share(public=None):
    """A P-256 key share: a fresh valid one, or the given bytes as the public value."""
    if public is None:
        kex = ECDHKeyExchange(GroupName.secp256r1, (3, 4))
        public = kex.calc_public_value(kex.get_random_private_key())
    return KeyShareEntry().create(GroupName.secp256r1, bytearray(public))


def off_curve_point():
    """An uncompressed P-256 point (0x04 || x || y) that is not on the curve: y is changed."""
    kex = ECDHKeyExchange(GroupName.secp256r1, (3, 4))
    public = bytearray(kex.calc_public_value(kex.get_random_private_key()))
    public[-1] ^= 1
    return bytes(public)


def hello(legacy_version=(3, 3), schemes=None, groups=True, shares=True, sigalgs=True,
          padding=0, versions=((3, 4),), share=None):
    """A TLS 1.3 ClientHello handshake message (with its 4-byte header)."""
    extensions = [SupportedVersionsExtension().create(list(versions))]
    if groups:
        extensions.append(SupportedGroupsExtension().create([GroupName.secp256r1]))
    if shares:
        extensions.append(ClientKeyShareExtension().create([key_share(share)]))
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


GET = b"GET / HTTP/1.0\r\n\r\n"
KEY_UPDATE = b"\x18\x00\x00\x01\x00"  # KeyUpdate, update_not_requested


def settings():
    chosen = HandshakeSettings()
    chosen.minVersion = chosen.maxVersion = (3, 4)
    chosen.cipherNames = ["aes128gcm"]
    chosen.eccCurves = ["secp256r1"]
    chosen.keyShares = ["secp256r1"]
    return chosen


def send_encrypted(connection, content_type, payload):
    """One record through the connection's record layer (encrypted under the current keys)."""
    for _ in connection._recordLayer.sendRecord(Message(content_type, bytearray(payload))):
        pass


def server_reply(connection):
    """What the server sends next: 'data', 'alert:NAME', 'closed', 'reset' or 'timeout'."""
    try:
        data = connection.read(min=1)
    except TLSRemoteAlert as alert:
        return "alert:" + ALERTS.get(alert.description, str(alert.description))
    except TLSAbruptCloseError:
        return "closed"
    except ConnectionResetError:
        return "reset"
    except socket.timeout:
        return "timeout"
    return "data" if data else "closed"


def short_finished(original):
    """Finished.create making a client Finished one byte short (RFC 8446 §4.4.4: decode_error);
    the server's Finished is parsed, not created, so it is untouched."""
    def create(self, verify_data):
        return original(self, verify_data[:-1])
    return create


def after_handshake(action, malformed_finished=False):
    """A probe that completes a TLS 1.3 handshake, runs `action(connection, sock)` and returns
    the server's answer to it."""
    def probe(address):
        host, port = address.rsplit(":", 1)
        sock = socket.create_connection((host, int(port)), timeout=TIMEOUT)
        connection = TLSConnection(sock)
        original = Finished.create
        if malformed_finished:
            Finished.create = short_finished(original)
        try:
            connection.handshakeClientCert(settings=settings())
        except TLSRemoteAlert as alert:
            return "alert:" + ALERTS.get(alert.description, str(alert.description))
        except (TLSError, OSError) as error:
            return "handshake-failed:%s" % type(error).__name__
        finally:
            Finished.create = original
        try:
            action(connection, sock)
            return server_reply(connection)
        except (BrokenPipeError, ConnectionResetError):
            return "reset"
        finally:
            sock.close()
    return probe


def get(connection, sock):
    connection.write(GET)


def key_update_then_get(connection, sock):
    for _ in connection.send_keyupdate_request(KeyUpdateMessageType.update_not_requested):
        pass
    connection.write(GET)


def split_key_update(connection, sock):
    send_encrypted(connection, ContentType.handshake, KEY_UPDATE[:2])
    send_encrypted(connection, ContentType.application_data, GET)
    send_encrypted(connection, ContentType.handshake, KEY_UPDATE[2:])


def empty_alert(connection, sock):
    send_encrypted(connection, ContentType.alert, b"")


def empty_handshake(connection, sock):
    send_encrypted(connection, ContentType.handshake, b"")


def oversized_plaintext(connection, sock):
    # 2^14 + 256 bytes of data: a 2^14 + 273-byte ciphertext (type byte and 16-byte tag).
    send_encrypted(connection, ContentType.application_data, b"x" * (16384 + 256))


def oversized_garbage(connection, sock):
    # A ciphertext of 2^14 + 257 bytes: over the limit before any decryption (§5.2).
    sock.sendall(record(APPDATA, os.urandom(16384 + 257), version=(3, 3)))


def early_data_probe(total, chunk=4096):
    """0-RTT with an identity the server never issued, then application_data records it cannot
    decrypt holding `total` bytes of early data (at most `chunk` a record), then the handshake and
    a GET. max_early_data_size counts application data only (§4.2.10, §4.6.1): each record's
    ciphertext is its data plus the inner content type byte and a 16-byte AES-GCM tag."""
    def probe(address):
        host, port = address.rsplit(":", 1)
        sock = socket.create_connection((host, int(port)), timeout=TIMEOUT)
        garbage = b"".join(
            record(APPDATA, os.urandom(min(chunk, total - sent) + 1 + 16), version=(3, 3))
            for sent in range(0, total, chunk))

        class EarlyConnection(TLSConnection):
            def _clientSendClientHello(self, *args, **kwargs):
                for result in super()._clientSendClientHello(*args, **kwargs):
                    if isinstance(result, ClientHello):
                        self.sock.flush()
                        sock.sendall(garbage)
                    yield result

        helpers = tlslite.tlsconnection.HandshakeHelpers
        original = helpers.update_binders

        def with_early_data(client_hello, *args, **kwargs):
            # early_data goes before pre_shared_key, which must stay last (§4.2.11).
            client_hello.extensions.insert(-1, TLSExtension(extType=42).create(bytearray()))
            return original(client_hello, *args, **kwargs)

        chosen = settings()
        chosen.pskConfigs = [(bytearray(os.urandom(32)), bytearray(os.urandom(32)), "sha256")]
        connection = EarlyConnection(sock)
        helpers.update_binders = with_early_data
        try:
            connection.handshakeClientCert(settings=chosen)
            connection.write(GET)
            reply = server_reply(connection)
            # The page, or silence from a server that does not serve one: the early data was
            # skipped and the handshake completed.
            return "completed" if reply in ("data", "timeout") else reply
        except TLSRemoteAlert as alert:
            return "alert:" + ALERTS.get(alert.description, str(alert.description))
        except TLSAbruptCloseError:
            return "closed"
        except (BrokenPipeError, ConnectionResetError):
            return "reset"
        except socket.timeout:
            return "timeout"
        except TLSError as error:
            return "handshake-failed:%s" % type(error).__name__
        finally:
            helpers.update_binders = original
            sock.close()
    return probe


# Probes that run their own connection: (name, RFC 8446 section, probe(address), expected).
SESSION_PROBES = [
    ("after the handshake: GET answered", "4.4.4", after_handshake(get), "data"),
    ("after the handshake: KeyUpdate, then GET answered", "4.6.3",
     after_handshake(key_update_then_get), "data"),
    ("after the handshake: empty encrypted alert record", "5.1, 6",
     after_handshake(empty_alert), "alert:unexpected_message"),
    ("after the handshake: zero-length encrypted handshake record", "5.1",
     after_handshake(empty_handshake), "alert:unexpected_message"),
    ("after the handshake: KeyUpdate split by application_data", "5.1",
     after_handshake(split_key_update), "alert:unexpected_message"),
    ("after the handshake: 2^14+273-byte ciphertext (2^14+256 bytes of data)", "5.2",
     after_handshake(oversized_plaintext), "alert:record_overflow"),
    ("after the handshake: 2^14+257-byte undecryptable ciphertext", "5.2",
     after_handshake(oversized_garbage), "alert:record_overflow"),
    ("client Finished one byte short", "4.4.4",
     after_handshake(get, malformed_finished=True), "alert:decode_error"),
]

# 0-RTT probes, run against the --early address.
EARLY_PROBES = [
    ("0-RTT with an unknown PSK, %d bytes of early data skipped" % total, "4.2.10",
     early_data_probe(total), "completed" if total <= 16384 else "alert:bad_record_mac")
    for total in (4096, 8192, 8193, 16384, 16385)
]

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
    # §4.2.8.2: peers MUST validate each other's public value; a bad one is an illegal_parameter
    # (as in tlsfuzzer's test-tls13-crfg-curves).
    ("P-256 key_share not on the curve", "4.2.8.2",
     lambda: records(hello(share=off_curve_point())), "alert:illegal_parameter"),
    ("P-256 key_share of 64 bytes (no point format byte)", "4.2.8.2",
     lambda: records(hello(share=off_curve_point()[1:])), "alert:illegal_parameter"),
    ("P-256 key_share: the point at infinity (one zero byte)", "4.2.8.2",
     lambda: records(hello(share=b"\x00")), "alert:illegal_parameter"),
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
    parser.add_argument("--deviations")
    parser.add_argument("--early", help="address for the 0-RTT probes (default: ADDRESS)")
    parser.add_argument("--only-baseline", action="store_true",
                        help="run only the baseline ClientHello probe; exit 1 if it fails")
    args = parser.parse_args()
    try:
        socket.create_connection(tuple([args.address.rsplit(":", 1)[0],
                                        int(args.address.rsplit(":", 1)[1])]), timeout=TIMEOUT).close()
    except OSError as error:
        print("%s: cannot connect to %s: %s" % (args.label, args.address, error), file=sys.stderr)
        return 2
    deviations = set()
    if args.deviations:
        with open(args.deviations) as listed:
            deviations = {line.strip() for line in listed
                          if line.strip() and not line.startswith("#")}
    runs = [(name, section, lambda build=build: answer(args.address, build()), expected)
            for name, section, build, expected in PROBES]
    runs += [(name, section, lambda probe=probe: probe(args.address), expected)
             for name, section, probe, expected in SESSION_PROBES]
    runs += [(name, section, lambda probe=probe: probe(args.early or args.address), expected)
             for name, section, probe, expected in EARLY_PROBES]
    if args.only_baseline:
        name, _, run, expected = runs[0]
        got = run()
        print("%s: %s: want %s, got %s" % (args.label, name, expected, got))
        return 0 if got == expected else 1
    results = []
    for name, section, run, expected in runs:
        try:
            got = run()
        except OSError as error:
            got = "error:%s" % error
        results.append({"name": name, "rfc8446": section, "expected": expected, "got": got,
                        "pass": got == expected, "deviation": name in deviations})
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"label": args.label, "results": results}, out, indent=1)
    for result in results:
        mark = "ok" if result["pass"] else ("dev" if result["deviation"] else "FAIL")
        print("%-4s %-72s want %-26s got %s" % (mark,
              result["name"], result["expected"], result["got"]))
    failed = [r for r in results if not r["pass"]]
    print("%s: %d/%d probes pass; failed: %d listed deviations, %d other" % (
        args.label, len(results) - len(failed), len(results),
        sum(r["deviation"] for r in failed), sum(not r["deviation"] for r in failed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
