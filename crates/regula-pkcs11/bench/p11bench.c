/*
 * p11bench: times a few operations through any PKCS#11 module, the same code for every token
 * (scripts/bench-pkcs11 runs it on libregula-pkcs11 and SoftHSM2, interleaved).
 *
 *   p11bench MODULE.so PIN MILLISECONDS MEASUREMENT@TOKEN_LABEL...
 *
 * Measurements (each on the slot whose token has that label, as the user, session objects only):
 *   ecdsa-p256-sign   C_SignInit + C_Sign, CKM_ECDSA over a 32-byte hash (SoftHSM2 2.6 serves
 *                     no CKM_ECDSA_SHA256, so both tokens sign a hash the caller computed)
 *   aes-256-gcm-16k   C_EncryptInit + C_Encrypt of 16 KiB, CKM_AES_GCM, 12-byte IV, 128-bit tag
 *   ec-p256-keygen    C_GenerateKeyPair CKM_EC_KEY_PAIR_GEN on P-256, both halves destroyed
 *   sm4-gcm-16k       as aes-256-gcm-16k with CKM_REGULA_SM4_GCM (regula-pkcs11.h)
 * Each prints one line "NAME VALUE UNIT" (ops/s or MB/s, 10^6 bytes), VALUE the rate over at
 * least MILLISECONDS of back-to-back operations after one untimed warm-up operation.
 *
 * GCM: the IV buffer (12 bytes, ulIvLen 12) is an input on tokens that take the caller's IV and
 * an output where the policy has the token draw it (Regula's fips-140-3 slot), so one
 * CK_GCM_PARAMS serves both; the caller's IV is a counter, never repeated under a key.
 *
 * Exit status: 0 when every measurement ran; 1 when a PKCS#11 call failed (the function name and
 * its CKR code on stderr); 2 on a usage error.
 */
#define CRYPTOKI_COMPAT
#include <p11-kit/pkcs11.h>

#include "regula-pkcs11.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PAYLOAD_LEN 16384
#define GCM_IV_LEN 12
#define GCM_TAG_LEN 16

static CK_FUNCTION_LIST_PTR p11;

/* A failed call ends the run: the caller's script reports the measurement as failed. */
static void check(const char *function, CK_RV rv)
{
    if (rv != CKR_OK) {
        fprintf(stderr, "p11bench: %s failed: CKR 0x%08lx\n", function, (unsigned long)rv);
        exit(1);
    }
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The slot whose token carries `label` (blank-padded to 32 bytes in CK_TOKEN_INFO). */
static CK_SLOT_ID slot_of(const char *label)
{
    CK_ULONG count = 0;
    check("C_GetSlotList", p11->C_GetSlotList(CK_TRUE, NULL, &count));
    CK_SLOT_ID *slots = calloc(count ? count : 1, sizeof *slots);
    if (slots == NULL) {
        fprintf(stderr, "p11bench: out of memory\n");
        exit(1);
    }
    check("C_GetSlotList", p11->C_GetSlotList(CK_TRUE, slots, &count));
    char padded[32];
    size_t len = strlen(label);
    if (len > sizeof padded) {
        len = sizeof padded;
    }
    memset(padded, ' ', sizeof padded);
    memcpy(padded, label, len);
    for (CK_ULONG i = 0; i < count; i++) {
        CK_TOKEN_INFO info;
        check("C_GetTokenInfo", p11->C_GetTokenInfo(slots[i], &info));
        if (memcmp(info.label, padded, sizeof padded) == 0) {
            CK_SLOT_ID slot = slots[i];
            free(slots);
            return slot;
        }
    }
    fprintf(stderr, "p11bench: no token labelled '%s'\n", label);
    exit(1);
}

static CK_SESSION_HANDLE open_user_session(const char *label, const char *pin)
{
    CK_SESSION_HANDLE session;
    check("C_OpenSession", p11->C_OpenSession(slot_of(label), CKF_SERIAL_SESSION | CKF_RW_SESSION,
                                              NULL, NULL, &session));
    CK_RV rv = p11->C_Login(session, CKU_USER, (CK_UTF8CHAR_PTR)pin, strlen(pin));
    /* Login is per application and token: a second measurement on the token finds it done. */
    if (rv != CKR_USER_ALREADY_LOGGED_IN) {
        check("C_Login", rv);
    }
    return session;
}

/* The DER OID of P-256 (prime256v1), CKA_EC_PARAMS. */
static CK_BYTE p256_oid[] = {0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};

static void generate_p256(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE *public_key,
                          CK_OBJECT_HANDLE *private_key)
{
    CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
    CK_MECHANISM mechanism = {CKM_EC_KEY_PAIR_GEN, NULL, 0};
    CK_ATTRIBUTE public_template[] = {
        {CKA_EC_PARAMS, p256_oid, sizeof p256_oid},
        {CKA_TOKEN, &no, sizeof no},
        {CKA_VERIFY, &yes, sizeof yes},
    };
    CK_ATTRIBUTE private_template[] = {
        {CKA_TOKEN, &no, sizeof no},
        {CKA_PRIVATE, &yes, sizeof yes},
        {CKA_SENSITIVE, &yes, sizeof yes},
        {CKA_SIGN, &yes, sizeof yes},
    };
    check("C_GenerateKeyPair",
          p11->C_GenerateKeyPair(session, &mechanism, public_template, 3, private_template, 4,
                                 public_key, private_key));
}

static CK_OBJECT_HANDLE generate_secret(CK_SESSION_HANDLE session, CK_MECHANISM_TYPE generator,
                                        CK_ULONG value_len)
{
    CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
    CK_MECHANISM mechanism = {generator, NULL, 0};
    CK_ATTRIBUTE template[] = {
        {CKA_TOKEN, &no, sizeof no},
        {CKA_ENCRYPT, &yes, sizeof yes},
        {CKA_VALUE_LEN, &value_len, sizeof value_len},
    };
    CK_OBJECT_HANDLE key;
    check("C_GenerateKey", p11->C_GenerateKey(session, &mechanism, template, 3, &key));
    return key;
}

/* One measured operation; returns the bytes it processed (0 for ops/s measurements). */
typedef size_t (*operation)(CK_SESSION_HANDLE session, void *state);

struct sign_state {
    CK_OBJECT_HANDLE key;
    CK_BYTE hash[32];
};

static size_t sign_once(CK_SESSION_HANDLE session, void *opaque)
{
    struct sign_state *state = opaque;
    CK_MECHANISM mechanism = {CKM_ECDSA, NULL, 0};
    CK_BYTE signature[64];
    CK_ULONG signature_len = sizeof signature;
    check("C_SignInit", p11->C_SignInit(session, &mechanism, state->key));
    check("C_Sign", p11->C_Sign(session, state->hash, sizeof state->hash, signature,
                                &signature_len));
    if (signature_len != sizeof signature) {
        fprintf(stderr, "p11bench: C_Sign gave %lu bytes, not 64\n",
                (unsigned long)signature_len);
        exit(1);
    }
    return 0;
}

static size_t keygen_once(CK_SESSION_HANDLE session, void *opaque)
{
    (void)opaque;
    CK_OBJECT_HANDLE public_key, private_key;
    generate_p256(session, &public_key, &private_key);
    check("C_DestroyObject", p11->C_DestroyObject(session, public_key));
    check("C_DestroyObject", p11->C_DestroyObject(session, private_key));
    return 0;
}

struct gcm_state {
    CK_MECHANISM_TYPE mechanism;
    CK_OBJECT_HANDLE key;
    uint64_t counter;
    CK_BYTE *plaintext;
    CK_BYTE *ciphertext;
};

static size_t gcm_once(CK_SESSION_HANDLE session, void *opaque)
{
    struct gcm_state *state = opaque;
    CK_BYTE iv[GCM_IV_LEN] = {0};
    state->counter++;
    memcpy(iv + 4, &state->counter, sizeof state->counter);
    CK_GCM_PARAMS params = {iv, GCM_IV_LEN, GCM_IV_LEN * 8, NULL, 0, GCM_TAG_LEN * 8};
    CK_MECHANISM mechanism = {state->mechanism, &params, sizeof params};
    CK_ULONG out_len = PAYLOAD_LEN + GCM_TAG_LEN;
    check("C_EncryptInit", p11->C_EncryptInit(session, &mechanism, state->key));
    check("C_Encrypt",
          p11->C_Encrypt(session, state->plaintext, PAYLOAD_LEN, state->ciphertext, &out_len));
    if (out_len != PAYLOAD_LEN + GCM_TAG_LEN) {
        fprintf(stderr, "p11bench: C_Encrypt gave %lu bytes\n", (unsigned long)out_len);
        exit(1);
    }
    return PAYLOAD_LEN;
}

/* Runs `op` once untimed, then back to back for at least `ms`; prints the rate. */
static void measure(const char *name, CK_SESSION_HANDLE session, operation op, void *state,
                    long ms)
{
    op(session, state);
    unsigned long count = 0;
    size_t bytes = 0;
    double start = now_seconds(), elapsed;
    do {
        bytes += op(session, state);
        count++;
        elapsed = now_seconds() - start;
    } while (elapsed * 1000.0 < (double)ms);
    if (bytes > 0) {
        printf("%s %.1f MB/s\n", name, (double)bytes / elapsed / 1e6);
    } else {
        printf("%s %.1f ops/s\n", name, (double)count / elapsed);
    }
    fflush(stdout);
}

static void run(const char *name, const char *label, const char *pin, long ms)
{
    CK_SESSION_HANDLE session = open_user_session(label, pin);
    if (strcmp(name, "ecdsa-p256-sign") == 0) {
        struct sign_state state;
        CK_OBJECT_HANDLE public_key;
        generate_p256(session, &public_key, &state.key);
        memset(state.hash, 0xa5, sizeof state.hash);
        measure(name, session, sign_once, &state, ms);
    } else if (strcmp(name, "ec-p256-keygen") == 0) {
        measure(name, session, keygen_once, NULL, ms);
    } else if (strcmp(name, "aes-256-gcm-16k") == 0 || strcmp(name, "sm4-gcm-16k") == 0) {
        int aes = name[0] == 'a';
        struct gcm_state state = {
            .mechanism = aes ? CKM_AES_GCM : CKM_REGULA_SM4_GCM,
            .key = generate_secret(session, aes ? CKM_AES_KEY_GEN : CKM_REGULA_SM4_KEY_GEN,
                                   aes ? 32 : 16),
            .plaintext = calloc(1, PAYLOAD_LEN),
            .ciphertext = malloc(PAYLOAD_LEN + GCM_TAG_LEN),
        };
        if (state.plaintext == NULL || state.ciphertext == NULL) {
            fprintf(stderr, "p11bench: out of memory\n");
            exit(1);
        }
        measure(name, session, gcm_once, &state, ms);
        free(state.plaintext);
        free(state.ciphertext);
    } else {
        fprintf(stderr, "p11bench: unknown measurement '%s'\n", name);
        exit(2);
    }
    /* Closing the session destroys its objects. */
    check("C_CloseSession", p11->C_CloseSession(session));
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: p11bench MODULE.so PIN MILLISECONDS MEASUREMENT@TOKEN_LABEL...\n"
                        "measurements: ecdsa-p256-sign aes-256-gcm-16k ec-p256-keygen "
                        "sm4-gcm-16k\n");
        return 2;
    }
    long ms = strtol(argv[3], NULL, 10);
    if (ms <= 0) {
        fprintf(stderr, "p11bench: MILLISECONDS must be a positive number\n");
        return 2;
    }
    void *module = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (module == NULL) {
        fprintf(stderr, "p11bench: dlopen: %s\n", dlerror());
        return 1;
    }
    CK_C_GetFunctionList get_function_list;
    *(void **)&get_function_list = dlsym(module, "C_GetFunctionList");
    if (get_function_list == NULL) {
        fprintf(stderr, "p11bench: %s has no C_GetFunctionList\n", argv[1]);
        return 1;
    }
    check("C_GetFunctionList", get_function_list(&p11));
    check("C_Initialize", p11->C_Initialize(NULL));
    for (int i = 4; i < argc; i++) {
        char *at = strchr(argv[i], '@');
        if (at == NULL) {
            fprintf(stderr, "p11bench: '%s' is not MEASUREMENT@TOKEN_LABEL\n", argv[i]);
            return 2;
        }
        *at = '\0';
        run(argv[i], at + 1, argv[2], ms);
    }
    check("C_Finalize", p11->C_Finalize(NULL));
    return 0;
}
