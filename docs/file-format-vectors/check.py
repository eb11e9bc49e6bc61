#!/usr/bin/env python3
"""Decrypts the passphrase and key-file vectors with pyca/cryptography and hashlib (OpenSSL),
written from docs/file-format.md alone: an implementation independent of Regula's. Damaged
vectors must fail. Recipient vectors are left to the Rust test.

    python3 docs/file-format-vectors/check.py
"""

import hashlib
import hmac
import json
import os
import struct
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305

HERE = os.path.dirname(os.path.abspath(__file__))
MAGIC = b"\x89RGF\r\n\x1a\n"
AEADS = {1: "aes-256-gcm", 2: "chacha20-poly1305", 3: "sm4-gcm"}
PRFS = {1: ("sha256", 32), 2: ("sha384", 48), 3: ("sm3", 32)}
SEG = 65536 + 16


class Bad(Exception):
    pass


def aead_open(aead, key, nonce, data, aad=b""):
    try:
        if aead == "aes-256-gcm":
            return AESGCM(key).decrypt(nonce, data, aad)
        if aead == "chacha20-poly1305":
            return ChaCha20Poly1305(key).decrypt(nonce, data, aad)
        body, tag = data[:-16], data[-16:]
        decryptor = Cipher(algorithms.SM4(key), modes.GCM(nonce, tag)).decryptor()
        decryptor.authenticate_additional_data(aad)
        return decryptor.update(body) + decryptor.finalize()
    except InvalidTag:
        raise Bad("tag")


def kdf(hash_name, key, label, context, length):
    out, counter = b"", 1
    fixed = label + b"\0" + context + struct.pack(">I", 8 * length)
    while len(out) < length:
        out += hmac.new(key, struct.pack(">I", counter) + fixed, hash_name).digest()
        counter += 1
    return out[:length]


def decrypt(data, vector):
    if data[:8] != MAGIC:
        raise Bad("format")
    version, aead_id, prf_id, log2 = data[8:12]
    if version != 1 or log2 != 16 or aead_id not in AEADS or prf_id not in PRFS:
        raise Bad("format")
    aead, (hash_name, mac_len) = AEADS[aead_id], PRFS[prf_id]
    key_len = 16 if aead == "sm4-gcm" else 32
    prefix = data[12:19]
    pos = 19
    n = data[pos]
    pos += 1 + n
    count = data[pos]
    pos += 1
    stanzas = []
    for _ in range(count):
        kind, length = data[pos], struct.unpack(">H", data[pos + 1:pos + 3])[0]
        stanzas.append((kind, data[pos + 3:pos + 3 + length]))
        pos += 3 + length
    header, mac = data[:pos], data[pos:pos + mac_len]
    pos += mac_len
    key = vector["key"]
    file_key = None
    for kind, body in stanzas:
        if kind == 1 and key["type"] == "passphrase":
            iterations = struct.unpack(">I", body[:4])[0]
            kek = hashlib.pbkdf2_hmac(hash_name, key["passphrase"].encode(), body[4:20],
                                      iterations, key_len)
            wrapped = body[20:]
        elif kind == 2 and key["type"] == "key-file":
            kek = kdf(hash_name, bytes.fromhex(key["key_hex"]), b"regula-file v1 key-file",
                      body[:16], key_len)
            wrapped = body[16:]
        else:
            continue
        try:
            file_key = aead_open(aead, kek, wrapped[:12], wrapped[12:],
                                 b"regula-file v1 wrap" + bytes([kind]))
            break
        except Bad:
            continue
    if file_key is None:
        raise Bad("no stanza opens")
    mac_key = kdf(hash_name, file_key, b"regula-file v1 header", b"", mac_len)
    if not hmac.compare_digest(hmac.new(mac_key, header, hash_name).digest(), mac):
        raise Bad("header MAC")
    payload_key = kdf(hash_name, file_key, b"regula-file v1 payload", mac, key_len)
    body = data[pos:]
    segments = [body[i:i + SEG] for i in range(0, len(body), SEG)] or [b""]
    out = []
    for i, segment in enumerate(segments):
        last = i == len(segments) - 1
        if len(segment) < 16 or (last and len(segment) == 16 and i > 0):
            raise Bad("truncated")
        nonce = prefix + struct.pack(">I", i) + bytes([1 if last else 0])
        out.append(aead_open(aead, payload_key, nonce, segment))
    return b"".join(out)


def main():
    index = json.load(open(os.path.join(HERE, "vectors.json")))
    checked = 0
    for vector in index["vectors"]:
        if vector["key"]["type"] == "identity":
            continue
        data = open(os.path.join(HERE, vector["file"]), "rb").read()
        if vector["expect"] == "ok":
            plaintext = open(os.path.join(HERE, vector["plaintext"]), "rb").read()
            if decrypt(data, vector) != plaintext:
                sys.exit(f"{vector['name']}: wrong plaintext")
        else:
            try:
                decrypt(data, vector)
            except Bad:
                pass
            else:
                sys.exit(f"{vector['name']}: damaged vector decrypted")
        checked += 1
    print(f"check.py: {checked} vectors checked independently (pyca/cryptography, hashlib)")


if __name__ == "__main__":
    main()
