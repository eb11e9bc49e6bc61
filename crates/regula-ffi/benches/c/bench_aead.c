/* AES-128-GCM seal throughput, in one process: Regula's C API, Regula's Rust API (looped inside
 * the library, `bench` feature), and GnuTLS 3.7 (gnutls_aead_cipher_encrypt and, for scatter/
 * gather, gnutls_aead_cipher_encryptv2), at 64 B, 1 KiB and 64 KiB, contiguous and as three
 * fragments. Every contender seals the same plaintext under the same key and caller nonce.
 *
 * Rounds are interleaved (each round runs every contender once, starting with a different one),
 * so drift on a shared machine affects all alike; each cell is the median over the rounds, with
 * the spread as half the min–max range in percent of the median.
 *
 *   bench_aead [ROUNDS [MILLISECONDS_PER_BATCH]]     (defaults: 15, 20)
 * Built and run by scripts/bench-c. Not a test: it prints figures and checks nothing. */
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include <regula.h>

/* Exported by libregula built with the `bench` feature; not part of regula.h. */
int regula_bench_rust_seal(const regula_aead_key *key, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                           size_t aad_len, const uint8_t *in, size_t in_len, uint64_t iterations);

#define MAX_LEN 65536
#define AAD_LEN 32

static uint8_t key_bytes[16], nonce[12], aad[AAD_LEN];
static uint8_t plaintext[MAX_LEN], out[MAX_LEN + 16], vbuf[MAX_LEN], tag[16];
static regula_aead_key *regula_key;
static gnutls_aead_cipher_hd_t gnutls_key;

enum { REGULA_C, RUST_API, GNUTLS, REGULA_SEALV, GNUTLS_V2, CONTENDERS };
static const char *names[CONTENDERS] = {
    "regula C API  regula_aead_seal", "regula Rust API seal_in_place_with_nonce",
    "GnuTLS gnutls_aead_cipher_encrypt", "regula C API  regula_aead_sealv (3 fragments)",
    "GnuTLS gnutls_aead_cipher_encryptv2 (3 fragments)",
};

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what) {
    fprintf(stderr, "bench_aead: %s failed: %s\n", what, regula_last_error_message());
    exit(1);
}

/* Three fragments of len bytes: a quarter, a half, the rest (e.g. header, body, trailer). */
static void fragments(size_t len, regula_iovec *r, giovec_t *g) {
    size_t a = len / 4, b = len / 2, c = len - a - b;
    size_t sizes[3] = {a, b, c}, offset = 0;
    for (int i = 0; i < 3; i++) {
        r[i].base = vbuf + offset;
        r[i].len = sizes[i];
        g[i].iov_base = vbuf + offset;
        g[i].iov_len = sizes[i];
        offset += sizes[i];
    }
}

/* Runs `iterations` seals of `len` bytes with one contender; returns seconds. */
static double batch(int who, size_t len, uint64_t iterations) {
    regula_iovec riov[3];
    giovec_t giov[3], gaad = {aad, AAD_LEN};
    regula_iovec raad = {aad, AAD_LEN};
    size_t out_len, tag_len;
    fragments(len, riov, giov);
    double start = now();
    switch (who) {
    case REGULA_C:
        for (uint64_t i = 0; i < iterations; i++)
            if (regula_aead_seal(regula_key, nonce, 12, aad, AAD_LEN, plaintext, len, out, sizeof out, &out_len, NULL))
                die("regula_aead_seal");
        break;
    case RUST_API:
        if (regula_bench_rust_seal(regula_key, nonce, 12, aad, AAD_LEN, plaintext, len, iterations))
            die("regula_bench_rust_seal");
        break;
    case GNUTLS:
        for (uint64_t i = 0; i < iterations; i++) {
            out_len = sizeof out;
            if (gnutls_aead_cipher_encrypt(gnutls_key, nonce, 12, aad, AAD_LEN, 16, plaintext, len, out, &out_len))
                die("gnutls_aead_cipher_encrypt");
        }
        break;
    case REGULA_SEALV:
        for (uint64_t i = 0; i < iterations; i++)
            if (regula_aead_sealv(regula_key, nonce, 12, &raad, 1, riov, 3, tag, 16, NULL)) die("regula_aead_sealv");
        break;
    case GNUTLS_V2:
        for (uint64_t i = 0; i < iterations; i++) {
            tag_len = 16;
            if (gnutls_aead_cipher_encryptv2(gnutls_key, nonce, 12, &gaad, 1, giov, 3, tag, &tag_len))
                die("gnutls_aead_cipher_encryptv2");
        }
        break;
    }
    return now() - start;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void cpu_features(void) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[8192];
    const char *wanted[] = {"aes", "pclmulqdq", "avx", "avx2", "avx512f", "vaes", "vpclmulqdq", "movbe"};
    if (f == NULL) return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) printf("CPU:%s", strchr(line, ':') + 1);
        if (strncmp(line, "flags", 5) == 0) {
            printf("CPU features:");
            for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
                char needle[32];
                snprintf(needle, sizeof needle, " %s ", wanted[i]);
                line[strcspn(line, "\n")] = ' ';
                if (strstr(line, needle)) printf(" %s", wanted[i]);
            }
            printf("\n");
            break;
        }
    }
    fclose(f);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 15;
    double batch_seconds = (argc > 2 ? atof(argv[2]) : 20.0) / 1000.0;
    if (rounds < 1 || rounds > 100) rounds = 15;
    for (size_t i = 0; i < sizeof plaintext; i++) plaintext[i] = (uint8_t)(i * 7);
    memset(key_bytes, 0x42, sizeof key_bytes);
    memset(nonce, 0x24, sizeof nonce);
    memset(aad, 0x5a, sizeof aad);

    regula_module *module = NULL;
    if (regula_module_load("default", &module) != REGULA_OK) die("regula_module_load");
    if (regula_aead_key_new(module, "aes-128-gcm", key_bytes, 16, &regula_key) != REGULA_OK) die("regula_aead_key_new");
    gnutls_global_init();
    gnutls_datum_t gkey = {key_bytes, 16};
    if (gnutls_aead_cipher_init(&gnutls_key, GNUTLS_CIPHER_AES_128_GCM, &gkey) != 0) die("gnutls_aead_cipher_init");

    regula_info info;
    regula_module_info(module, &info);
    cpu_features();
    printf("libregula %s (%s), GnuTLS %s; AES-128-GCM seal, %d-byte AAD, %d interleaved rounds of ~%.0f ms\n",
           info.version, info.backend, gnutls_check_version(NULL), AAD_LEN, rounds, batch_seconds * 1000);

    const size_t sizes[] = {64, 1024, 65536};
    for (size_t s = 0; s < 3; s++) {
        size_t len = sizes[s];
        /* Calibrate a batch size per contender, then interleave the rounds. */
        uint64_t iterations[CONTENDERS];
        for (int who = 0; who < CONTENDERS; who++) {
            uint64_t n = 64;
            double t;
            while ((t = batch(who, len, n)) < batch_seconds / 4) n *= 2;
            iterations[who] = (uint64_t)((double)n * batch_seconds / t) + 1;
        }
        double mbps[CONTENDERS][100];
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < CONTENDERS; k++) {
                int who = (k + r) % CONTENDERS;
                double t = batch(who, len, iterations[who]);
                mbps[who][r] = (double)len * (double)iterations[who] / t / 1e6;
            }
        }
        double median[CONTENDERS];
        printf("\n%6zu B %54s %10s %8s\n", len, "", "MB/s", "spread");
        for (int who = 0; who < CONTENDERS; who++) {
            qsort(mbps[who], (size_t)rounds, sizeof(double), compare);
            median[who] = rounds % 2 ? mbps[who][rounds / 2] : (mbps[who][rounds / 2 - 1] + mbps[who][rounds / 2]) / 2;
            double spread = (mbps[who][rounds - 1] - mbps[who][0]) / 2 / median[who] * 100;
            printf("         %-54s %10.1f %7.1f%%\n", names[who], median[who], spread);
        }
        printf("         regula C / GnuTLS encrypt            %.2fx\n", median[REGULA_C] / median[GNUTLS]);
        printf("         regula sealv / GnuTLS encryptv2       %.2fx\n", median[REGULA_SEALV] / median[GNUTLS_V2]);
        printf("         C-ABI cost over the Rust API          %+.1f%%\n",
               (median[RUST_API] / median[REGULA_C] - 1) * 100);
    }

    gnutls_aead_cipher_deinit(gnutls_key);
    regula_aead_key_free(regula_key);
    regula_module_free(module);
    gnutls_global_deinit();
    return 0;
}
