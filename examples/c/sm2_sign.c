/* SM2 signatures with SM3 under the GM/T policy: generate a key, sign with the default signer
 * ID (GM/T 0009: "1234567812345678") and with an application's own ID, verify with the
 * exported public key, and see a tampered message rejected. SM2 hashes Z_A || M with SM3
 * (GB/T 32918.2); the SM3 digest of the message is printed too.
 *
 * Build:  cc -Wall -Wextra -o sm2_sign sm2_sign.c $(pkg-config --cflags --libs regula)
 * Run:    ./sm2_sign ["message"]
 */
#include <stdio.h>
#include <string.h>

#include <regula.h>

static int fail(const char *what, int rc) {
    fprintf(stderr, "%s failed (%d): %s\n", what, rc, regula_last_error_message());
    return 1;
}

int main(int argc, char **argv) {
    const char *text = argc > 1 ? argv[1] : "message digest";
    const uint8_t *msg = (const uint8_t *)text;
    size_t msg_len = strlen(text);
    regula_module *gm = NULL;
    regula_indicator ind;
    int rc;
    if ((rc = regula_module_load("gm", &gm)) != REGULA_OK) return fail("regula_module_load", rc);

    uint8_t digest[32];
    size_t digest_len = 0;
    if ((rc = regula_digest(gm, "sm3", msg, msg_len, digest, sizeof digest, &digest_len, &ind)) != REGULA_OK)
        return fail("regula_digest", rc);
    printf("SM3(\"%s\") = ", text);
    for (size_t i = 0; i < digest_len; i++) printf("%02x", digest[i]);
    printf("  [%s, %s]\n", ind.policy, ind.approved ? "approved" : "not approved");

    regula_signing_key *key = NULL;
    if ((rc = regula_signing_key_generate(gm, "sm2-sign", 0, &key, &ind)) != REGULA_OK)
        return fail("regula_signing_key_generate", rc);
    uint8_t public_key[128];
    size_t public_key_len = 0;
    if ((rc = regula_signing_key_public_der(key, public_key, sizeof public_key, &public_key_len)) != REGULA_OK)
        return fail("regula_signing_key_public_der", rc);
    printf("SM2 key generated (pairwise consistency test passed), public key %zu bytes of DER\n", public_key_len);

    uint8_t sig[REGULA_MAX_SIGNATURE_LEN];
    size_t sig_len = 0;
    if ((rc = regula_sign(key, msg, msg_len, sig, sizeof sig, &sig_len, &ind)) != REGULA_OK)
        return fail("regula_sign", rc);
    printf("signed with the default ID: %zu-byte DER signature [%s %s, %s]\n", sig_len, ind.algorithm, ind.service,
           ind.approved ? "approved" : "not approved");
    if ((rc = regula_verify(gm, "sm2-sign", public_key, public_key_len, msg, msg_len, sig, sig_len, &ind)) != REGULA_OK)
        return fail("regula_verify", rc);
    printf("verified\n");

    static const uint8_t id[] = "alice@example.com";
    if ((rc = regula_sign_with_id(key, id, sizeof id - 1, msg, msg_len, sig, sizeof sig, &sig_len, NULL)) != REGULA_OK)
        return fail("regula_sign_with_id", rc);
    if ((rc = regula_verify_with_id(gm, "sm2-sign", public_key, public_key_len, id, sizeof id - 1, msg, msg_len, sig,
                                    sig_len, NULL)) != REGULA_OK)
        return fail("regula_verify_with_id", rc);
    printf("signed and verified as %s\n", (const char *)id);

    /* The signature binds both the ID and the message. */
    int wrong_id = regula_verify(gm, "sm2-sign", public_key, public_key_len, msg, msg_len, sig, sig_len, NULL);
    int wrong_msg = regula_verify_with_id(gm, "sm2-sign", public_key, public_key_len, id, sizeof id - 1, msg,
                                          msg_len - 1, sig, sig_len, NULL);
    printf("other ID: %s; altered message: %s\n", wrong_id == REGULA_ERR_CRYPTO ? "rejected" : "ACCEPTED",
           wrong_msg == REGULA_ERR_CRYPTO ? "rejected" : "ACCEPTED");

    regula_signing_key_free(key);
    regula_module_free(gm);
    return wrong_id == REGULA_ERR_CRYPTO && wrong_msg == REGULA_ERR_CRYPTO ? 0 : 1;
}
