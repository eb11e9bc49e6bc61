/* Differential test of libregula against GnuTLS (what Samba calls today), on random inputs:
 * AES-128/256-GCM and AES-128/256-CCM (nonces of 7 to 13 bytes) seal and open, contiguous and
 * scatter/gather (gnutls_aead_cipher_encryptv2), in both directions; AES-128/256-CMAC;
 * AES-128/256-GMAC; HMAC-SHA256; SHA-256/384/512. Outputs must be identical.
 *
 *   test_gnutls [ROUNDS [SEED]]     (defaults: 300 rounds, seed from the clock; printed) */
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <stdint.h>
#include <sys/uio.h>
#include <time.h>

#include "check.h"

static uint64_t rng_state;

/* xorshift64*: reproducible inputs from the printed seed (test data, not key material). */
static uint64_t next(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static void fill(unsigned char *buf, size_t len) {
    for (size_t i = 0; i < len; i++) buf[i] = (unsigned char)next();
}

/* A length that favours the edges: 0, around a block, and larger messages. */
static size_t random_len(size_t max) {
    switch (next() % 4) {
    case 0: return next() % 33;
    case 1: return 16 * (next() % 5) + next() % 3;
    default: return next() % (max + 1);
    }
}

/* Splits len bytes of buf into 1..4 fragments (some possibly empty). */
static int split(unsigned char *buf, size_t len, regula_iovec *riov, giovec_t *giov) {
    int count = 1 + (int)(next() % 4);
    size_t offset = 0;
    for (int i = 0; i < count; i++) {
        size_t part = i == count - 1 ? len - offset : (len - offset == 0 ? 0 : next() % (len - offset + 1));
        riov[i].base = buf + offset;
        riov[i].len = part;
        giov[i].iov_base = buf + offset;
        giov[i].iov_len = part;
        offset += part;
    }
    return count;
}

#define MAX_MSG 4096

static void aead_round(regula_module *module, const char *name, gnutls_cipher_algorithm_t gnutls_alg,
                       size_t key_len, int ccm) {
    unsigned char key[32], nonce[13], aad[64], pt[MAX_MSG], ours[MAX_MSG + 16], theirs[MAX_MSG + 16];
    unsigned char back[MAX_MSG], vbuf[MAX_MSG], gbuf[MAX_MSG], vtag[16], gtag[16];
    fill(key, key_len);
    size_t nonce_len = ccm ? 7 + next() % 7 : 12;
    fill(nonce, nonce_len);
    size_t aad_len = next() % (sizeof aad + 1);
    fill(aad, aad_len);
    size_t len = random_len(MAX_MSG);
    fill(pt, len);

    regula_aead_key *rk = NULL;
    CHECK_OK(regula_aead_key_new(module, name, key, key_len, &rk));
    gnutls_aead_cipher_hd_t gh;
    gnutls_datum_t gkey = {key, (unsigned int)key_len};
    CHECK(gnutls_aead_cipher_init(&gh, gnutls_alg, &gkey) == 0);

    /* Contiguous seal: identical ciphertext and tag. */
    size_t ours_len = 0, theirs_len = sizeof theirs;
    CHECK_OK(regula_aead_seal(rk, nonce, nonce_len, aad, aad_len, pt, len, ours, sizeof ours, &ours_len, NULL));
    CHECK(gnutls_aead_cipher_encrypt(gh, nonce, nonce_len, aad, aad_len, 16, pt, len, theirs, &theirs_len) == 0);
    CHECK(ours_len == len + 16 && theirs_len == ours_len);
    CHECK_MEM(ours, theirs, ours_len);

    /* Each opens the other's. */
    size_t back_len = 0;
    CHECK_OK(regula_aead_open(rk, nonce, nonce_len, aad, aad_len, theirs, theirs_len, back, sizeof back, &back_len, NULL));
    CHECK(back_len == len);
    CHECK_MEM(back, pt, len);
    size_t gback_len = sizeof back;
    CHECK(gnutls_aead_cipher_decrypt(gh, nonce, nonce_len, aad, aad_len, 16, ours, ours_len, back, &gback_len) == 0);
    CHECK(gback_len == len);
    CHECK_MEM(back, pt, len);

    /* Scatter/gather, with independent fragmentations of message and AAD on each side. */
    regula_iovec riov[4], raad[4];
    giovec_t giov[4], gaad[4], unused[4];
    regula_iovec unused_r[4];
    memcpy(vbuf, pt, len);
    memcpy(gbuf, pt, len);
    int rcount = split(vbuf, len, riov, unused);
    int gcount = split(gbuf, len, unused_r, giov);
    int racount = split(aad, aad_len, raad, unused);
    int gacount = split(aad, aad_len, unused_r, gaad);
    CHECK_OK(regula_aead_sealv(rk, nonce, nonce_len, raad, (size_t)racount, riov, (size_t)rcount, vtag, 16, NULL));
    size_t gtag_len = 16;
    CHECK(gnutls_aead_cipher_encryptv2(gh, nonce, nonce_len, gaad, gacount, giov, gcount, gtag, &gtag_len) == 0);
    CHECK_MEM(vbuf, gbuf, len);
    CHECK_MEM(vbuf, theirs, len);
    CHECK_MEM(vtag, gtag, 16);
    /* Vectored open of the other's output, then a flipped tag bit must fail on both sides. */
    CHECK_OK(regula_aead_openv(rk, nonce, nonce_len, raad, (size_t)racount, riov, (size_t)rcount, gtag, 16, NULL));
    CHECK_MEM(vbuf, pt, len);
    CHECK(gnutls_aead_cipher_decryptv2(gh, nonce, nonce_len, gaad, gacount, giov, gcount, vtag, 16) == 0);
    CHECK_MEM(gbuf, pt, len);
    ours[ours_len - 1 - next() % 16] ^= (unsigned char)(1u << (next() % 8));
    CHECK_RC(regula_aead_open(rk, nonce, nonce_len, aad, aad_len, ours, ours_len, back, sizeof back, &back_len, NULL),
             REGULA_ERR_CRYPTO);
    gback_len = sizeof back;
    CHECK(gnutls_aead_cipher_decrypt(gh, nonce, nonce_len, aad, aad_len, 16, ours, ours_len, back, &gback_len) < 0);

    gnutls_aead_cipher_deinit(gh);
    regula_aead_key_free(rk);
}

static void mac_round(regula_module *module, const char *name, gnutls_mac_algorithm_t gnutls_alg, size_t key_len) {
    unsigned char key[64], msg[MAX_MSG], ours[64], theirs[64];
    fill(key, key_len);
    size_t len = random_len(MAX_MSG);
    fill(msg, len);
    regula_mac_key *mk = NULL;
    CHECK_OK(regula_mac_key_new(module, name, key, key_len, &mk));
    size_t ours_len = 0;
    CHECK_OK(regula_mac_sign(mk, msg, len, ours, sizeof ours, &ours_len, NULL));
    CHECK(gnutls_hmac_fast(gnutls_alg, key, key_len, msg, len, theirs) == 0);
    CHECK(ours_len == gnutls_hmac_get_len(gnutls_alg));
    CHECK_MEM(ours, theirs, ours_len);
    /* Fragmented input gives the same tag, and verifies GnuTLS's. */
    regula_iovec riov[4];
    giovec_t unused[4];
    int count = split(msg, len, riov, unused);
    CHECK_OK(regula_mac_verifyv(mk, riov, (size_t)count, theirs, ours_len, NULL));
    regula_mac_key_free(mk);
}

static void gmac_round(regula_module *module, const char *name, gnutls_mac_algorithm_t gnutls_alg, size_t key_len) {
    unsigned char key[32], nonce[12], msg[MAX_MSG], ours[16], theirs[16];
    fill(key, key_len);
    fill(nonce, sizeof nonce);
    size_t len = random_len(MAX_MSG);
    fill(msg, len);
    regula_mac_key *mk = NULL;
    CHECK_OK(regula_mac_key_new(module, name, key, key_len, &mk));
    regula_iovec riov[4];
    giovec_t unused[4];
    int count = split(msg, len, riov, unused);
    size_t ours_len = 0;
    CHECK_OK(regula_mac_signv_with_nonce(mk, nonce, sizeof nonce, riov, (size_t)count, ours, sizeof ours, &ours_len, NULL));
    gnutls_hmac_hd_t h;
    CHECK(gnutls_hmac_init(&h, gnutls_alg, key, key_len) == 0);
    gnutls_hmac_set_nonce(h, nonce, sizeof nonce);
    CHECK(gnutls_hmac(h, msg, len) == 0);
    gnutls_hmac_deinit(h, theirs);
    CHECK(ours_len == 16);
    CHECK_MEM(ours, theirs, 16);
    regula_mac_key_free(mk);
}

static void digest_round(regula_module *module, const char *name, gnutls_digest_algorithm_t gnutls_alg) {
    unsigned char msg[MAX_MSG], ours[64], theirs[64];
    size_t len = random_len(MAX_MSG);
    fill(msg, len);
    size_t ours_len = 0;
    CHECK_OK(regula_digest(module, name, msg, len, ours, sizeof ours, &ours_len, NULL));
    CHECK(gnutls_hash_fast(gnutls_alg, msg, len, theirs) == 0);
    CHECK(ours_len == gnutls_hash_get_len(gnutls_alg));
    CHECK_MEM(ours, theirs, ours_len);
    /* Streamed in two pieces. */
    regula_digest_ctx *ctx = NULL;
    size_t cut = len == 0 ? 0 : next() % (len + 1);
    CHECK_OK(regula_digest_new(module, name, &ctx));
    CHECK_OK(regula_digest_update(ctx, msg, cut));
    CHECK_OK(regula_digest_update(ctx, msg + cut, len - cut));
    CHECK_OK(regula_digest_final(ctx, ours, sizeof ours, &ours_len, NULL));
    CHECK_MEM(ours, theirs, ours_len);
    regula_digest_free(ctx);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 300;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : (uint64_t)time(NULL) * 2654435761u;
    rng_state = seed | 1;
    printf("test_gnutls: GnuTLS %s, %d rounds, seed %llu\n", gnutls_check_version(NULL), rounds,
           (unsigned long long)seed);
    CHECK(gnutls_global_init() == 0);
    regula_module *module = NULL;
    CHECK_OK(regula_module_load("default", &module));
    for (int i = 0; i < rounds; i++) {
        aead_round(module, "aes-128-gcm", GNUTLS_CIPHER_AES_128_GCM, 16, 0);
        aead_round(module, "aes-256-gcm", GNUTLS_CIPHER_AES_256_GCM, 32, 0);
        aead_round(module, "aes-128-ccm", GNUTLS_CIPHER_AES_128_CCM, 16, 1);
        aead_round(module, "aes-256-ccm", GNUTLS_CIPHER_AES_256_CCM, 32, 1);
        gmac_round(module, "aes-128-gmac", GNUTLS_MAC_AES_GMAC_128, 16);
        gmac_round(module, "aes-256-gmac", GNUTLS_MAC_AES_GMAC_256, 32);
        mac_round(module, "aes-128-cmac", GNUTLS_MAC_AES_CMAC_128, 16);
        mac_round(module, "aes-256-cmac", GNUTLS_MAC_AES_CMAC_256, 32);
        mac_round(module, "hmac-sha256", GNUTLS_MAC_SHA256, 1 + next() % 64);
        digest_round(module, "sha256", GNUTLS_DIG_SHA256);
        digest_round(module, "sha384", GNUTLS_DIG_SHA384);
        digest_round(module, "sha512", GNUTLS_DIG_SHA512);
    }
    regula_module_free(module);
    gnutls_global_deinit();
    return finish("test_gnutls");
}
