#!/usr/bin/env python3
"""Compares the C ABI's view of the registry with `regula info --json`.

    check_algorithm_table.py INFO_JSON TABLE

INFO_JSON is the output of `regula info --json` (each registry row under
implementations[].row); TABLE is the output of `test_regula algorithm-table` (one tab-separated
line per row, from regula_algorithm_info_at). Every row must be present, in the same order,
with the same names and sizes. Exit code 1 and one line per difference otherwise.
"""

import json
import sys

COLUMNS = [
    "name", "family", "provider", "oid", "openssl_name", "hash", "acvp_algorithm",
    "acvp_revision", "key_min", "key_max", "nonce_min", "nonce_max", "iv_len", "tag_min",
    "tag_max", "block_len", "output_len", "public_key_len", "signature_max_len",
    "ciphertext_len", "pkcs11_mechanism", "pkcs11_count",
]  # fmt: skip


def expected(row):
    """The line the C ABI must print for a row of `regula info --json`."""
    sizes = row["sizes"]

    def text(value):
        return "-" if value is None else str(value)

    def lengths(name):
        value = sizes[name]
        return ["0", "0"] if value is None else [str(value["min"]), str(value["max"])]

    def size(name):
        return str(sizes[name] or 0)

    openssl = row["openssl"]
    acvp = row["acvp"]
    pkcs11 = row["pkcs11"]
    return (
        [row["name"], row["family"], row["provider"], text(row["oid"])]
        + [openssl["names"].split(":")[0] if openssl else "-", text(row["hash"])]
        + [acvp["algorithm"] if acvp else "-", acvp["revision"] if acvp else "-"]
        + lengths("key")
        + lengths("nonce")
        + [size("iv")]
        + lengths("tag")
        + [size(name) for name in ("block", "output", "public_key", "signature", "ciphertext")]
        + [str(pkcs11[0]["value"]) if pkcs11 else "0", str(len(pkcs11))]
    )


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as file:
        rows = [item["row"] for item in json.load(file)["implementations"]]
    with open(sys.argv[2], encoding="utf-8") as file:
        table = [line.rstrip("\n").split("\t") for line in file if line.strip()]
    problems = []
    if len(rows) != len(table):
        problems.append(f"regula info has {len(rows)} rows, the C ABI {len(table)}")
    for index, (row, got) in enumerate(zip(rows, table)):
        want = expected(row)
        if len(got) != len(COLUMNS):
            problems.append(f"line {index + 1}: {len(got)} columns, expected {len(COLUMNS)}")
            continue
        for column, want_value, got_value in zip(COLUMNS, want, got):
            if want_value != got_value:
                problems.append(
                    f"{row['name']}: {column} is {got_value!r} in the C ABI, "
                    f"{want_value!r} in regula info"
                )
    if not rows:
        problems.append("regula info lists no algorithm")
    for problem in problems:
        print(f"check_algorithm_table: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"the C ABI reports the {len(rows)} registry rows as regula info --json does")


if __name__ == "__main__":
    main()
