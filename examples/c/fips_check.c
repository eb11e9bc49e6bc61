/* A FIPS check, as Samba's FIPS mode needs it ("MD5 refused under fips-140-3, served flagged
 * under default"): the same request under two policies.
 * Under fips-140-3 (strict) a non-approved algorithm is refused with REGULA_ERR_NOT_APPROVED and
 * a message naming the approved alternative; under default it is served, and the service
 * indicator says "not approved" so the application can log or count it.
 *
 * Build:  cc -Wall -Wextra -o fips_check fips_check.c $(pkg-config --cflags --libs regula)
 * Run:    ./fips_check [DIGEST...]        (default: md5; any registry digest name works)
 *
 * It also tries ChaCha20-Poly1305, an AEAD outside FIPS 140-3. Exit status 0 when every
 * algorithm behaved as above.
 */
#include <stdio.h>
#include <string.h>

#include <regula.h>

static int check_digest(regula_module *fips, regula_module *def, const char *algorithm) {
    uint8_t out[REGULA_MAX_DIGEST_LEN];
    size_t out_len = 0;
    regula_indicator ind;
    int ok = 1;

    int rc = regula_digest(fips, algorithm, (const uint8_t *)"abc", 3, out, sizeof out, &out_len, &ind);
    if (rc == REGULA_ERR_NOT_APPROVED) {
        printf("fips-140-3: %s refused: %s\n", algorithm, regula_last_error_message());
    } else {
        printf("fips-140-3: %s NOT refused (status %d)\n", algorithm, rc);
        ok = 0;
    }

    rc = regula_digest(def, algorithm, (const uint8_t *)"abc", 3, out, sizeof out, &out_len, &ind);
    if (rc == REGULA_OK && !ind.approved) {
        printf("default:    %s served, indicator: %s %s under %s, not approved\n", algorithm, ind.algorithm,
               ind.service, ind.policy);
    } else {
        printf("default:    %s status %d, approved %d (expected: served, not approved)\n", algorithm, rc,
               rc == REGULA_OK ? ind.approved : -1);
        ok = 0;
    }
    return ok;
}

static int check_chacha(regula_module *fips, regula_module *def) {
    static const uint8_t key[32] = {0}, nonce[REGULA_AEAD_NONCE_LEN] = {0};
    regula_aead_key *k = NULL;
    int ok = 1;
    int rc = regula_aead_key_new(fips, "chacha20-poly1305", key, sizeof key, &k);
    if (rc == REGULA_ERR_NOT_APPROVED) {
        printf("fips-140-3: chacha20-poly1305 refused: %s\n", regula_last_error_message());
    } else {
        printf("fips-140-3: chacha20-poly1305 NOT refused (status %d)\n", rc);
        regula_aead_key_free(k);
        ok = 0;
    }
    if ((rc = regula_aead_key_new(def, "chacha20-poly1305", key, sizeof key, &k)) != REGULA_OK) {
        printf("default:    chacha20-poly1305 key refused (status %d): %s\n", rc, regula_last_error_message());
        return 0;
    }
    uint8_t sealed[5 + REGULA_AEAD_TAG_LEN];
    size_t sealed_len = 0;
    regula_indicator ind;
    rc = regula_aead_seal(k, nonce, sizeof nonce, NULL, 0, (const uint8_t *)"hello", 5, sealed, sizeof sealed,
                          &sealed_len, &ind);
    if (rc == REGULA_OK) {
        printf("default:    chacha20-poly1305 served, indicator: %s %s under %s, %s\n", ind.algorithm, ind.service,
               ind.policy, ind.approved ? "approved by this policy" : "not approved");
    } else {
        printf("default:    chacha20-poly1305 seal failed (status %d)\n", rc);
        ok = 0;
    }
    regula_aead_key_free(k);
    return ok;
}

int main(int argc, char **argv) {
    regula_module *fips = NULL, *def = NULL;
    if (regula_module_load("fips-140-3", &fips) != REGULA_OK || regula_module_load("default", &def) != REGULA_OK) {
        fprintf(stderr, "regula_module_load: %s\n", regula_last_error_message());
        return 1;
    }
    regula_info info;
    regula_module_info(fips, &info);
    printf("%s; validated module linked: %s, FIPS mode: %s\n", info.backend, info.fips_module_linked ? "yes" : "no",
           info.fips_mode ? "on" : "off");

    int ok = 1;
    if (argc > 1) {
        for (int i = 1; i < argc; i++) ok &= check_digest(fips, def, argv[i]);
    } else {
        ok &= check_digest(fips, def, "md5");
    }
    ok &= check_chacha(fips, def);

    regula_module_free(fips);
    regula_module_free(def);
    printf("%s\n", ok ? "FIPS check: as expected" : "FIPS check: UNEXPECTED");
    return ok ? 0 : 1;
}
