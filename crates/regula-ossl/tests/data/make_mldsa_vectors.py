"""Writes mldsa_pyca.txt: ML-DSA-44/65/87 signatures made by pyca/cryptography (an independent
peer: its own OpenSSL/AWS-LC build), for crates/regula-ossl/tests/mldsa.rs.

Run once with a pyca/cryptography that has ML-DSA (50.0.2 wrote the file kept here):
    python make_mldsa_vectors.py > mldsa_pyca.txt
Each stanza: the parameter set, the 32-byte seed, the raw public key, the message, the context
string and the signature, in hex. Signing is hedged, so a new run writes other signatures.
"""

import os

import cryptography
from cryptography.hazmat.primitives.asymmetric import mldsa

SETS = [
    ("ML-DSA-44", mldsa.MLDSA44PrivateKey),
    ("ML-DSA-65", mldsa.MLDSA65PrivateKey),
    ("ML-DSA-87", mldsa.MLDSA87PrivateKey),
]


def main() -> None:
    print(f"# pyca/cryptography {cryptography.__version__}, make_mldsa_vectors.py")
    for name, private_class in SETS:
        seed = os.urandom(32)
        key = private_class.from_seed_bytes(seed)
        message = f"message signed by pyca/cryptography with {name}".encode()
        context = f"Regula {name} context".encode()
        signature = key.sign(message, context)
        print()
        print(f"set = {name}")
        print(f"seed = {seed.hex()}")
        print(f"pub = {key.public_key().public_bytes_raw().hex()}")
        print(f"msg = {message.hex()}")
        print(f"ctx = {context.hex()}")
        print(f"sig = {signature.hex()}")


if __name__ == "__main__":
    main()
