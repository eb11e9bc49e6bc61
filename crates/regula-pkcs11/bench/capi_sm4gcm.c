/*
 * capi_sm4gcm: the reference for p11bench's sm4-gcm-16k: SM4-GCM seal of 16 KiB through
 * libregula's C API (regula.h) under the `gm` policy, the token's `gm` slot's work without
 * PKCS#11 around it.
 *
 *   capi_sm4gcm MILLISECONDS
 *
 * Prints "sm4-gcm-16k-capi VALUE MB/s" (10^6 bytes), the rate over at least MILLISECONDS of
 * back-to-back seals after one untimed warm-up. The nonce is the caller's counter where the
 * policy takes it, else drawn by the module (regula_aead_seal_gen_nonce), as the token does.
 * Exit status: 0, or 1 with the failing function and its REGULA_ERR_* code on stderr, 2 on a
 * usage error.
 */
#include "regula.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PAYLOAD_LEN 16384
#define TAG_LEN 16

static void check(const char *function, int rc)
{
    if (rc != REGULA_OK) {
        fprintf(stderr, "capi_sm4gcm: %s failed: %d\n", function, rc);
        exit(1);
    }
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const regula_aead_key *key;
static uint8_t *plaintext, *sealed;
static uint64_t counter;
static int module_draws_nonce;

static void seal_once(void)
{
    uint8_t nonce[REGULA_AEAD_NONCE_LEN] = {0};
    size_t out_len = 0;
    if (module_draws_nonce) {
        check("regula_aead_seal_gen_nonce",
              regula_aead_seal_gen_nonce(key, nonce, sizeof nonce, NULL, 0, plaintext,
                                         PAYLOAD_LEN, sealed, PAYLOAD_LEN + TAG_LEN, &out_len,
                                         NULL));
    } else {
        counter++;
        memcpy(nonce + 4, &counter, sizeof counter);
        check("regula_aead_seal", regula_aead_seal(key, nonce, sizeof nonce, NULL, 0, plaintext,
                                                   PAYLOAD_LEN, sealed, PAYLOAD_LEN + TAG_LEN,
                                                   &out_len, NULL));
    }
    if (out_len != PAYLOAD_LEN + TAG_LEN) {
        fprintf(stderr, "capi_sm4gcm: sealed %zu bytes\n", out_len);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    long ms = argc == 2 ? strtol(argv[1], NULL, 10) : 0;
    if (ms <= 0) {
        fprintf(stderr, "usage: capi_sm4gcm MILLISECONDS\n");
        return 2;
    }
    regula_module *module = NULL;
    check("regula_module_load", regula_module_load("gm", &module));
    static const uint8_t key_bytes[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                          0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
    regula_aead_key *sm4 = NULL;
    check("regula_aead_key_new",
          regula_aead_key_new(module, "sm4-gcm", key_bytes, sizeof key_bytes, &sm4));
    key = sm4;
    plaintext = calloc(1, PAYLOAD_LEN);
    sealed = malloc(PAYLOAD_LEN + TAG_LEN);
    if (plaintext == NULL || sealed == NULL) {
        fprintf(stderr, "capi_sm4gcm: out of memory\n");
        return 1;
    }
    /* The warm-up decides the nonce source: a policy that refuses the caller's nonce refuses
     * the first seal, and the module draws it from then on. */
    uint8_t nonce[REGULA_AEAD_NONCE_LEN] = {0};
    size_t out_len = 0;
    if (regula_aead_seal(key, nonce, sizeof nonce, NULL, 0, plaintext, PAYLOAD_LEN, sealed,
                         PAYLOAD_LEN + TAG_LEN, &out_len, NULL) != REGULA_OK) {
        module_draws_nonce = 1;
        seal_once();
    }
    unsigned long count = 0;
    double start = now_seconds(), elapsed;
    do {
        seal_once();
        count++;
        elapsed = now_seconds() - start;
    } while (elapsed * 1000.0 < (double)ms);
    printf("sm4-gcm-16k-capi %.1f MB/s\n", (double)count * PAYLOAD_LEN / elapsed / 1e6);
    regula_aead_key_free(sm4);
    regula_module_free(module);
    free(plaintext);
    free(sealed);
    return 0;
}
