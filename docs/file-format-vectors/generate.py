#!/usr/bin/env python3
"""Regenerates the file-format test vectors with two `regula` binaries.

    docs/file-format-vectors/generate.py DEFAULT_BUILD_REGULA FIPS_BUILD_REGULA

Each vector is written by one build (recorded in vectors.json as `written_by`); the bad vectors
are valid files damaged here in one documented way each. The vectors are committed, so that a
test reads exactly these bytes in both builds: regenerating them is only needed when the
format's version changes.
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PASSPHRASE = "regula file-format test vector"
KEY_HEX = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"


def plaintext(n):
    return bytes((i * 31 + i // 251) % 256 for i in range(n))


PLAINTEXTS = {
    "empty.bin": b"",
    "short.txt": b"Regula encrypted-file test vector.\n",
    "70000.bin": plaintext(70000),
    "131072.bin": plaintext(131072),
}


def run(regula, args, env_passphrase=None):
    env = dict(os.environ)
    env.pop("REGULA_PASSPHRASE", None)
    if env_passphrase is not None:
        env["REGULA_PASSPHRASE"] = env_passphrase
    result = subprocess.run([regula] + args, env=env, capture_output=True)
    if result.returncode != 0:
        sys.exit(f"{regula} {' '.join(args)}: {result.stderr.decode()}")
    return result.stdout


def pem_body(path):
    import base64

    lines = open(path).read().strip().splitlines()
    return base64.b64decode("".join(lines[1:-1])).hex()


def main():
    default_regula, fips_regula = sys.argv[1], sys.argv[2]
    builds = {"default build": default_regula, "fips build": fips_regula}
    for name, data in PLAINTEXTS.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
    work = tempfile.mkdtemp()
    key_file = os.path.join(work, "key")
    with open(key_file, "w") as f:
        f.write(KEY_HEX + "\n")
    vectors = []

    def vector(name, build, policy, key, plain, extra=()):
        regula = builds[build]
        out = os.path.join(HERE, name + ".rgf")
        args = ["--policy", policy, "encrypt", "--json", "-o", out]
        env = None
        if key["type"] == "passphrase":
            args.append("--passphrase")
            env = PASSPHRASE
        elif key["type"] == "key-file":
            args += ["--key-file", key_file]
        else:
            args += ["--recipient", key["recipient_path"]]
        args += list(extra) + [os.path.join(HERE, plain)]
        summary = json.loads(run(regula, args, env))
        key = {k: v for k, v in key.items() if k != "recipient_path"}
        vectors.append(
            {
                "name": name,
                "file": name + ".rgf",
                "written_by": build,
                "policy": policy,
                "aead": summary["header"]["aead"],
                "prf": summary["header"]["prf"],
                "header_len": summary["header"]["header_len"],
                "key": key,
                "plaintext": plain,
                "expect": "ok",
            }
        )

    def identity(build, policy, kind):
        path = os.path.join(work, f"{kind}.identity")
        recipient = os.path.join(work, f"{kind}.recipient")
        run(builds[build], ["--policy", policy, "recipient-keygen", "--kind", kind, "-o", path,
                            "--recipient-out", recipient])
        return {"type": "identity", "kind": kind, "identity_hex": pem_body(path),
                "recipient_path": recipient}

    pw = {"type": "passphrase", "passphrase": PASSPHRASE}
    kf = {"type": "key-file", "key_hex": KEY_HEX}
    vector("default-passphrase-empty", "default build", "default", pw, "empty.bin")
    vector("default-keyfile-70000", "default build", "default", kf, "70000.bin")
    vector("default-keyfile-131072", "default build", "default", kf, "131072.bin")
    vector("default-keyfile-70000-second", "default build", "default", kf, "70000.bin")
    vector("default-chacha20-keyfile", "default build", "default", kf, "short.txt",
           ["--aead", "chacha20-poly1305"])
    vector("default-mlkem768-x25519", "default build", "default",
           identity("default build", "default", "mlkem768-x25519"), "short.txt")
    vector("gm-keyfile-70000", "default build", "gm", kf, "70000.bin")
    vector("gm-passphrase", "default build", "gm", pw, "short.txt")
    vector("gm-sm2", "default build", "gm", identity("default build", "gm", "sm2"), "short.txt")
    vector("fips-passphrase-70000", "fips build", "fips-140-3", pw, "70000.bin")
    vector("fips-keyfile-empty", "fips build", "fips-140-3", kf, "empty.bin")
    vector("fips-keyfile-131072", "fips build", "fips-140-3", kf, "131072.bin")
    vector("fips-keyfile-70000", "fips build", "fips-140-3", kf, "70000.bin")
    vector("fips-mlkem1024", "fips build", "fips-140-3",
           identity("fips build", "fips-140-3", "mlkem1024"), "short.txt")
    vector("fips-ecdh-p384", "fips build", "fips-140-3",
           identity("fips build", "fips-140-3", "ecdh-p384"), "short.txt")

    # Damaged copies of valid files: each must fail with `expect`.
    seg = 65536 + 16

    def damage(source, name, how, transform, expect="tampered"):
        base = next(v for v in vectors if v["name"] == source)
        data = open(os.path.join(HERE, base["file"]), "rb").read()
        bad = transform(data, base["header_len"])
        with open(os.path.join(HERE, name + ".rgf"), "wb") as f:
            f.write(bad)
        vectors.append(dict(base, name=name, file=name + ".rgf", expect=expect, damage=how))

    def flip(at):
        return lambda d, h: d[:at(d, h)] + bytes([d[at(d, h)] ^ 1]) + d[at(d, h) + 1:]

    for source in ["default-keyfile-70000", "fips-keyfile-70000"]:
        prefix = source.split("-")[0]
        if prefix == "fips":
            damage(source, "fips-bad-truncated-at-boundary", "only the first segment kept",
                   lambda d, h: d[:h + seg])
            damage(source, "fips-bad-header", "one bit of the policy name flipped",
                   flip(lambda d, h: 20))
            continue
        damage(source, f"{prefix}-bad-truncated-at-boundary", "only the first segment kept",
               lambda d, h: d[:h + seg])
        damage(source, f"{prefix}-bad-truncated-mid-segment", "last 1000 bytes removed",
               lambda d, h: d[:-1000])
        damage(source, f"{prefix}-bad-reordered", "segments 0 and 1 swapped",
               lambda d, h: d[:h] + d[h + seg:] + d[h:h + seg])
        damage(source, f"{prefix}-bad-tag", "last tag byte flipped", flip(lambda d, h: len(d) - 1))
        damage(source, f"{prefix}-bad-header", "one bit of the policy name flipped",
               flip(lambda d, h: 20))
        damage(source, f"{prefix}-bad-trailing", "one byte appended", lambda d, h: d + b"\0")
        damage(source, f"{prefix}-bad-magic", "first byte changed", flip(lambda d, h: 0),
               expect="format")
    # A segment from another file under the same key.
    a = open(os.path.join(HERE, "default-keyfile-70000.rgf"), "rb").read()
    b = open(os.path.join(HERE, "default-keyfile-70000-second.rgf"), "rb").read()
    base = next(v for v in vectors if v["name"] == "default-keyfile-70000")
    h = base["header_len"]
    with open(os.path.join(HERE, "bad-swapped-between-files.rgf"), "wb") as f:
        f.write(a[:h + seg] + b[h + seg:])
    vectors.append(dict(base, name="bad-swapped-between-files", file="bad-swapped-between-files.rgf",
                        expect="tampered", damage="segment 1 taken from default-keyfile-70000-second"))
    with open(os.path.join(HERE, "vectors.json"), "w") as f:
        json.dump({"format_version": 1, "passphrase_note": "600000 PBKDF2 iterations",
                   "vectors": vectors}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
