#!/usr/bin/env bash
# Writes rsa_oaep_openssl.txt: RSA-OAEP ciphertexts made by the OpenSSL command line (its
# default provider, an independent peer) for crates/regula-ossl/tests/rsa_oaep.rs, which
# decrypts them through the Regula provider. A fresh 2048-bit test key each run (kept in the
# file as PKCS#8 PEM; it protects nothing); OAEP is randomized, so a new run writes other
# ciphertexts. Run once from this directory:
#     ./make_rsa_oaep_vectors.sh > rsa_oaep_openssl.txt
# Exit code 0: written; anything else: an openssl command failed.
set -euo pipefail
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/key.pem" 2>/dev/null
echo "# $(openssl version), make_rsa_oaep_vectors.sh"
echo "Key:"
cat "$work/key.pem"
# The key's integers in hex (n, e, d, p, q, dp, dq, qinv), for EVP_PKEY_fromdata.
openssl pkey -in "$work/key.pem" -noout -text | awk '
    /^publicExponent:/ { e = $2; next }
    /^[a-zA-Z]/ { name = $1; sub(":$", "", name); order[++count] = name; next }
    /^ / { value = $0; gsub(/[ :]/, "", value); hex[name] = hex[name] value }
    END {
        split("modulus=n privateExponent=d prime1=p prime2=q exponent1=dp exponent2=dq coefficient=qinv", pairs, " ")
        for (i in pairs) { split(pairs[i], kv, "="); rename[kv[1]] = kv[2] }
        for (i = 1; i <= count; i++) if (order[i] in rename) print rename[order[i]] " = " hex[order[i]]
        printf "e = %06x\n", e
    }'
# digest, label (hex, "-" for none), message
while read -r digest label message; do
    printf '%s' "$message" >"$work/message"
    options=(-pkeyopt rsa_padding_mode:oaep -pkeyopt "rsa_oaep_md:$digest"
        -pkeyopt "rsa_mgf1_md:$digest")
    [ "$label" = - ] || options+=(-pkeyopt "rsa_oaep_label:$label")
    openssl pkeyutl -encrypt -inkey "$work/key.pem" "${options[@]}" \
        -in "$work/message" -out "$work/ciphertext"
    echo
    echo "Digest = $digest"
    echo "Label = $label"
    echo "Message = $message"
    echo "Ciphertext = $(xxd -p -c 1000 "$work/ciphertext")"
done <<'CASES'
sha256 5265677561204f4145502074657374 OAEP-SHA256-with-a-label
sha256 - OAEP-SHA256-without-a-label
sha384 6c6162656c OAEP-SHA384-with-a-label
sha512 - OAEP-SHA512-without-a-label
sha1 6c6162656c OAEP-SHA1-with-a-label
CASES
