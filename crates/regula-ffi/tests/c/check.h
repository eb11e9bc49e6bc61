/* A minimal check harness for the C tests of libregula: each CHECK counts, each failure prints
 * its place and the library's last error message, and main() returns non-zero if any failed. */
#ifndef REGULA_TEST_CHECK_H
#define REGULA_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <regula.h>

static int checks_run;
static int checks_failed;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        checks_run++;                                                                      \
        if (!(cond)) {                                                                     \
            checks_failed++;                                                               \
            fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__,        \
                    __LINE__, #cond, regula_last_error_message());                         \
        }                                                                                  \
    } while (0)

/* A call that must return `expected`. */
#define CHECK_RC(call, expected)                                                           \
    do {                                                                                   \
        int rc_ = (call);                                                                  \
        checks_run++;                                                                      \
        if (rc_ != (expected)) {                                                           \
            checks_failed++;                                                               \
            fprintf(stderr, "%s:%d: %s returned %d, expected %d (last error: %s)\n",       \
                    __FILE__, __LINE__, #call, rc_, (int)(expected),                       \
                    regula_last_error_message());                                          \
        }                                                                                  \
    } while (0)

#define CHECK_OK(call) CHECK_RC(call, REGULA_OK)

#define CHECK_MEM(got, want, len) CHECK(memcmp((got), (want), (len)) == 0)

/* Parses a hex string into buf (at most cap bytes); returns the length. */
static inline size_t unhex(const char *hex, unsigned char *buf, size_t cap) {
    size_t n = 0;
    while (hex[0] && hex[1] && n < cap) {
        unsigned int byte;
        if (sscanf(hex, "%2x", &byte) != 1) {
            break;
        }
        buf[n++] = (unsigned char)byte;
        hex += 2;
    }
    return n;
}

static inline int all_zero(const unsigned char *buf, size_t len) {
    for (size_t i = 0; i < len; i++) {
        if (buf[i] != 0) {
            return 0;
        }
    }
    return 1;
}

static inline int finish(const char *name) {
    printf("%s: %d checks, %d failed\n", name, checks_run, checks_failed);
    return checks_failed == 0 && checks_run > 0 ? 0 : 1;
}

#endif
