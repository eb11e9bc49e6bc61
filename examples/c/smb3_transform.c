/* An SMB 3.1.1-style session through libregula, the way a file server would use it:
 *
 *  1. the preauthentication integrity hash (SHA-512 chained over the NEGOTIATE and
 *     SESSION_SETUP messages), read mid-stream with regula_digest_copy;
 *  2. session keys derived from the session key with SP 800-108 KBKDF (counter mode,
 *     HMAC-SHA256), the label and the preauth hash as context ([MS-SMB2] 3.1.4.2);
 *  3. an SMB2 message signed with AES-128-GMAC (nonce from the MessageId, [MS-SMB2] 3.1.4.1)
 *     over header and payload given as iovecs, or with AES-128-CMAC where GMAC is refused;
 *  4. the message encrypted into an SMB2 TRANSFORM_HEADER with AES-128-GCM or AES-128-CCM:
 *     header and payload sealed in place as iovecs, the transform header's tail (nonce
 *     included) as additional data; then decrypted again, and a tampered copy rejected.
 *
 * Build:  cc -Wall -Wextra -o smb3_transform smb3_transform.c $(pkg-config --cflags --libs regula)
 * Run:    ./smb3_transform [POLICY [aes-128-gcm|aes-128-ccm]]
 *         (defaults: default, aes-128-gcm; under fips-140-3 GMAC signing falls back to CMAC and
 *         encryption is refused, exit status 3: see 4.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <regula.h>

static int fail(const char *what, int rc) {
    fprintf(stderr, "%s failed (%d): %s\n", what, rc, regula_last_error_message());
    return 1;
}

static void hex(const char *label, const uint8_t *data, size_t len) {
    printf("%-22s", label);
    for (size_t i = 0; i < len; i++) printf("%02x", data[i]);
    printf("\n");
}

static void show(const regula_indicator *ind) {
    printf("  indicator: %s %s under %s: %s\n", ind->algorithm, ind->service, ind->policy,
           ind->approved ? "approved" : "NOT approved");
}

/* [MS-SMB2] 2.2.41 SMB2 TRANSFORM_HEADER (52 bytes). */
struct transform_header {
    uint8_t protocol_id[4];   /* 0xFD 'S' 'M' 'B' */
    uint8_t signature[16];    /* the AEAD tag */
    uint8_t nonce[16];        /* 12 bytes for AES-GCM, zero-padded */
    uint8_t original_size[4]; /* little-endian */
    uint8_t reserved[2];
    uint8_t flags[2];         /* 0x0001: encrypted */
    uint8_t session_id[8];
};

int main(int argc, char **argv) {
    const char *policy = argc > 1 ? argv[1] : "default";
    regula_module *module = NULL;
    regula_indicator ind;
    int rc = regula_module_load(policy, &module);
    if (rc != REGULA_OK) return fail("regula_module_load", rc);
    printf("policy %s\n", regula_module_policy(module));

    /* 1. Preauth integrity hash: H = SHA-512(H || message) per message, starting from zeros.
     *    A copy of the running hash lets the server read H after each message. */
    const char *messages[] = {"NEGOTIATE request", "NEGOTIATE response", "SESSION_SETUP request"};
    uint8_t preauth[64] = {0};
    size_t preauth_len = sizeof preauth;
    for (size_t i = 0; i < 3; i++) {
        regula_digest_ctx *ctx = NULL, *snapshot = NULL;
        if ((rc = regula_digest_new(module, "sha512", &ctx)) != REGULA_OK) return fail("regula_digest_new", rc);
        regula_digest_update(ctx, preauth, preauth_len);
        regula_digest_update(ctx, (const uint8_t *)messages[i], strlen(messages[i]));
        /* Read the value without ending the computation (the real server keeps hashing). */
        if ((rc = regula_digest_copy(ctx, &snapshot)) != REGULA_OK) return fail("regula_digest_copy", rc);
        rc = regula_digest_final(snapshot, preauth, sizeof preauth, &preauth_len, &ind);
        regula_digest_free(snapshot);
        regula_digest_free(ctx);
        if (rc != REGULA_OK) return fail("regula_digest_final", rc);
    }
    hex("preauth hash:", preauth, 16);
    show(&ind);

    /* 2. Keys from the session key (here from the module's DRBG, as after authentication). The
     *    labels are NUL-terminated and the NUL is part of them. */
    uint8_t session_key[16], signing_key[16], encryption_key[16];
    if ((rc = regula_random(module, session_key, sizeof session_key, NULL)) != REGULA_OK) return fail("regula_random", rc);
    static const char signing_label[] = "SMBSigningKey";
    static const char encryption_label[] = "SMBC2SCipherKey";
    if ((rc = regula_kbkdf_label_context(module, "kbkdf-ctr-hmac-sha256", session_key, sizeof session_key,
                                         (const uint8_t *)signing_label, sizeof signing_label, preauth, preauth_len,
                                         signing_key, sizeof signing_key, &ind)) != REGULA_OK)
        return fail("regula_kbkdf_label_context", rc);
    if ((rc = regula_kbkdf_label_context(module, "kbkdf-ctr-hmac-sha256", session_key, sizeof session_key,
                                         (const uint8_t *)encryption_label, sizeof encryption_label, preauth,
                                         preauth_len, encryption_key, sizeof encryption_key, NULL)) != REGULA_OK)
        return fail("regula_kbkdf_label_context", rc);
    printf("session keys derived\n");
    show(&ind);

    /* An SMB2 header (64 bytes) and a READ response payload, in separate buffers. */
    uint8_t smb2_header[64] = {0xFE, 'S', 'M', 'B', 64};
    uint8_t payload[1000];
    for (size_t i = 0; i < sizeof payload; i++) payload[i] = (uint8_t)i;
    uint64_t message_id = 42;
    for (int i = 0; i < 8; i++) smb2_header[24 + i] = (uint8_t)(message_id >> (8 * i));

    /* 3. Signing over header and payload without copying them together: AES-128-GMAC with the
     *    MessageId as nonce (a response: bit 0 of the last 4 bytes set), else AES-128-CMAC. */
    regula_iovec message[2] = {{smb2_header, sizeof smb2_header}, {payload, sizeof payload}};
    uint8_t signature[16], gmac_nonce[12] = {0};
    size_t signature_len = 0;
    memcpy(gmac_nonce, smb2_header + 24, 8);
    gmac_nonce[8] = 1;
    regula_mac_key *signer = NULL;
    rc = regula_mac_key_new(module, "aes-128-gmac", signing_key, sizeof signing_key, &signer);
    if (rc == REGULA_OK) {
        rc = regula_mac_signv_with_nonce(signer, gmac_nonce, sizeof gmac_nonce, message, 2, signature,
                                         sizeof signature, &signature_len, &ind);
        if (rc == REGULA_OK)
            rc = regula_mac_verifyv_with_nonce(signer, gmac_nonce, sizeof gmac_nonce, message, 2, signature,
                                               signature_len, NULL);
    } else if (rc == REGULA_ERR_NOT_APPROVED) {
        printf("GMAC signing refused (%s); signing with AES-128-CMAC\n", regula_last_error_message());
        if ((rc = regula_mac_key_new(module, "aes-128-cmac", signing_key, sizeof signing_key, &signer)) == REGULA_OK &&
            (rc = regula_mac_signv(signer, message, 2, signature, sizeof signature, &signature_len, &ind)) == REGULA_OK)
            rc = regula_mac_verifyv(signer, message, 2, signature, signature_len, NULL);
    }
    if (rc != REGULA_OK) return fail("signing", rc);
    hex("SMB2 signature:", signature, signature_len);
    show(&ind);
    regula_mac_key_free(signer);

    /* 4. Encryption into a transform header. The nonce is part of the additional data (the
     *    header from the nonce on, 32 bytes), so it is chosen first: here from the module's
     *    DRBG, passed in as a caller's nonce. FIPS 140-3 approves AES-GCM only with nonces the
     *    module generates inside the seal (regula_aead_sealv_gen_nonce), which cannot cover
     *    the nonce in the AAD, and AES-CCM not in SMB's shape: under fips-140-3 the transform
     *    is refused with REGULA_ERR_NOT_APPROVED, and the example says so. */
    /* [MS-SMB2] 2.2.41: the AEAD nonce is the first 11 (CCM) or 12 (GCM) bytes of Nonce. */
    const char *algorithm = argc > 2 ? argv[2] : "aes-128-gcm";
    size_t nonce_len = strcmp(algorithm, "aes-128-ccm") == 0 ? 11 : 12;
    regula_aead_key *cipher = NULL;
    rc = regula_aead_key_new(module, algorithm, encryption_key, sizeof encryption_key, &cipher);
    if (rc == REGULA_ERR_NOT_APPROVED) {
        printf("transform refused by policy %s: %s\n", policy, regula_last_error_message());
        regula_module_free(module);
        return 3;
    }
    if (rc != REGULA_OK) return fail("regula_aead_key_new", rc);
    struct transform_header th;
    memset(&th, 0, sizeof th);
    memcpy(th.protocol_id, "\xFDSMB", 4);
    uint32_t size = sizeof smb2_header + sizeof payload;
    for (int i = 0; i < 4; i++) th.original_size[i] = (uint8_t)(size >> (8 * i));
    th.flags[0] = 1;
    memcpy(th.session_id, "\x01\x00\x00\x00\x00\x00\x00\x10", 8);
    if ((rc = regula_random(module, th.nonce, nonce_len, NULL)) != REGULA_OK) return fail("regula_random", rc);
    regula_iovec aad = {th.nonce, 32};
    rc = regula_aead_sealv(cipher, th.nonce, nonce_len, &aad, 1, message, 2, th.signature,
                           sizeof th.signature, &ind);
    if (rc == REGULA_ERR_NOT_APPROVED) {
        printf("transform refused by policy %s: %s\n", policy, regula_last_error_message());
        regula_aead_key_free(cipher);
        regula_module_free(module);
        return 3;
    }
    if (rc != REGULA_OK) return fail("regula_aead_sealv", rc);
    show(&ind);
    hex("transform nonce:", th.nonce, nonce_len);
    hex("transform signature:", th.signature, sizeof th.signature);

    /* The receiver: decrypt header and payload in place with the nonce and the same AAD. */
    regula_iovec received[2] = {{smb2_header, sizeof smb2_header}, {payload, sizeof payload}};
    if ((rc = regula_aead_openv(cipher, th.nonce, nonce_len, &aad, 1, received, 2, th.signature,
                                sizeof th.signature, &ind)) != REGULA_OK)
        return fail("regula_aead_openv", rc);
    show(&ind);
    int intact = smb2_header[0] == 0xFE && payload[999] == (uint8_t)999;
    printf("decrypted message intact: %s\n", intact ? "yes" : "NO");

    /* A flipped bit anywhere is caught, and nothing unauthenticated is released. */
    th.signature[0] ^= 1;
    rc = regula_aead_openv(cipher, th.nonce, nonce_len, &aad, 1, received, 2, th.signature,
                           sizeof th.signature, NULL);
    printf("tampered message: %s\n", rc == REGULA_ERR_CRYPTO ? "rejected" : "ACCEPTED");

    regula_aead_key_free(cipher);
    regula_module_free(module);
    return intact && rc == REGULA_ERR_CRYPTO ? 0 : 1;
}
