/* C tests of libregula: every service family through the C ABI, every status code, NULL and
 * length abuse, indicators and scopes, the panic boundary, and (with an argument) the error
 * state after REGULA_BREAK_SELFTEST.
 *
 *   test_regula                      all functional tests
 *   test_regula error-state NAME     expects REGULA_BREAK_SELFTEST=NAME (a power-on test)
 *   test_regula pct-error ALG        expects REGULA_BREAK_SELFTEST=<its PCT>; keygen of ALG fails
 *   test_regula algorithm-table      prints every registry row as regula_algorithm_info_at
 *                                    reports it, one tab-separated line each (scripts/test-c
 *                                    compares them with `regula info --json`)
 *
 * Known answers come from the standards cited beside them (or, where noted, from OpenSSL as an
 * independent peer), never from Regula. REGULA_EXPECT_FIPS=1 makes the test require the FIPS
 * build's validated module in regula_module_info(). */
#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"

static regula_module *load(const char *policy) {
    regula_module *module = NULL;
    CHECK_OK(regula_module_load(policy, &module));
    CHECK(module != NULL);
    return module;
}

static int str_eq(const char *a, const char *b) { return a != NULL && b != NULL && strcmp(a, b) == 0; }

static void check_indicator(const regula_indicator *ind, const char *algorithm, const char *service,
                            const char *policy, int approved) {
    CHECK(str_eq(ind->algorithm, algorithm));
    CHECK(str_eq(ind->service, service));
    CHECK(str_eq(ind->policy, policy));
    CHECK(ind->approved == approved);
}

/* ------------------------------------------------------------------------------------------ */

static void test_module(void) {
    regula_module *module = (regula_module *)0x1;
    CHECK_RC(regula_module_load("no-such-policy", &module), REGULA_ERR_INVALID_INPUT);
    CHECK(module == NULL);
    CHECK(strlen(regula_last_error_message()) > 0);
    CHECK_RC(regula_module_load("default", NULL), REGULA_ERR_INVALID_INPUT);

    module = load(NULL);
    CHECK(regula_module_state(module) == REGULA_STATE_OPERATIONAL);
    CHECK(str_eq(regula_module_policy(module), "default"));
    CHECK(regula_module_failed_selftest(module) == NULL);
    CHECK(regula_module_state(NULL) == 0);
    regula_module_free(module);
    regula_module_free(NULL);

    regula_info info;
    memset(&info, 0, sizeof info);
    CHECK_OK(regula_module_info(NULL, &info));
    CHECK(info.version != NULL && strlen(info.version) > 0);
    CHECK(info.backend != NULL && strstr(info.backend, "AWS-LC") != NULL);
    CHECK_RC(regula_module_info(NULL, NULL), REGULA_ERR_INVALID_INPUT);
    const char *expect_fips = getenv("REGULA_EXPECT_FIPS");
    if (expect_fips != NULL && strcmp(expect_fips, "1") == 0) {
        CHECK(info.fips_module_linked == 1);
        CHECK(info.fips_mode == 1);
        CHECK(info.fips_module_version != 0);
        CHECK(strstr(info.backend, "FIPS") != NULL);
    } else {
        CHECK(info.fips_module_linked == 0);
        CHECK(info.fips_mode == 0);
    }
    printf("build: %s, FIPS module linked: %d, FIPS mode: %d\n", info.backend,
           info.fips_module_linked, info.fips_mode);

    /* A policy file narrowing fips-140-3: its name shows in indicators; what it leaves out is
     * refused. */
    char path[] = "/tmp/regula-policy-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    const char *toml = "base = \"fips-140-3\"\nname = \"c-test\"\nallow = [\"sha256\"]\n";
    CHECK(write(fd, toml, strlen(toml)) == (ssize_t)strlen(toml));
    close(fd);
    module = load(path);
    unlink(path);
    CHECK(str_eq(regula_module_policy(module), "c-test"));
    unsigned char out[64];
    size_t out_len = 0;
    regula_indicator ind;
    CHECK_OK(regula_digest(module, "sha256", (const uint8_t *)"abc", 3, out, sizeof out, &out_len, &ind));
    check_indicator(&ind, "sha256", "digest", "c-test", 1);
    CHECK_RC(regula_digest(module, "sha384", (const uint8_t *)"abc", 3, out, sizeof out, &out_len, NULL),
             REGULA_ERR_NOT_APPROVED);
    regula_module_free(module);

    /* A policy file with a syntax error is an input error, with the place in the message. */
    char bad[] = "/tmp/regula-policy-XXXXXX";
    fd = mkstemp(bad);
    CHECK(write(fd, "base = \n", 8) == 8);
    close(fd);
    module = (regula_module *)0x1;
    CHECK_RC(regula_module_load(bad, &module), REGULA_ERR_INVALID_INPUT);
    CHECK(module == NULL);
    CHECK(strstr(regula_last_error_message(), ":1:") != NULL);
    unlink(bad);
}

/* ------------------------------------------------------------------------------------------ */

static void test_digest(regula_module *def, regula_module *fips, regula_module *gm) {
    /* FIPS 180-2 appendix examples ("abc") and GB/T 32905-2016 example 1 (SM3 "abc"). */
    static const struct {
        const char *alg, *hex;
    } kats[] = {
        {"sha256", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"sha384", "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"},
        {"sha512", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
        {"sm3", "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"},
    };
    unsigned char want[64], out[REGULA_MAX_DIGEST_LEN];
    size_t out_len;
    regula_indicator ind;
    for (size_t i = 0; i < sizeof kats / sizeof kats[0]; i++) {
        size_t want_len = unhex(kats[i].hex, want, sizeof want);
        CHECK_OK(regula_digest(def, kats[i].alg, (const uint8_t *)"abc", 3, out, sizeof out, &out_len, &ind));
        CHECK(out_len == want_len);
        CHECK_MEM(out, want, want_len);
        check_indicator(&ind, kats[i].alg, "digest", "default", 1);

        /* Streaming, with a copy taken after "ab" (the SMB 3.1.1 preauth hash pattern). */
        regula_digest_ctx *ctx = NULL, *copy = NULL;
        CHECK_OK(regula_digest_new(def, kats[i].alg, &ctx));
        CHECK_OK(regula_digest_update(ctx, (const uint8_t *)"a", 1));
        CHECK_OK(regula_digest_update(ctx, NULL, 0));
        CHECK_OK(regula_digest_update(ctx, (const uint8_t *)"b", 1));
        CHECK_OK(regula_digest_copy(ctx, &copy));
        CHECK_OK(regula_digest_update(copy, (const uint8_t *)"c", 1));
        CHECK_OK(regula_digest_update(ctx, (const uint8_t *)"c", 1));
        memset(out, 0, sizeof out);
        CHECK_OK(regula_digest_final(copy, out, sizeof out, &out_len, &ind));
        CHECK(out_len == want_len);
        CHECK_MEM(out, want, want_len);
        memset(out, 0, sizeof out);
        CHECK_OK(regula_digest_final(ctx, out, sizeof out, &out_len, NULL));
        CHECK_MEM(out, want, want_len);
        /* A finished context refuses more work. */
        CHECK_RC(regula_digest_update(ctx, (const uint8_t *)"d", 1), REGULA_ERR_INVALID_INPUT);
        CHECK_RC(regula_digest_final(ctx, out, sizeof out, &out_len, NULL), REGULA_ERR_INVALID_INPUT);
        regula_digest_ctx *none = (regula_digest_ctx *)0x1;
        CHECK_RC(regula_digest_copy(ctx, &none), REGULA_ERR_INVALID_INPUT);
        CHECK(none == NULL);
        regula_digest_free(ctx);
        regula_digest_free(copy);
    }

    /* A buffer too small: the size needed comes back, the buffer is wiped. */
    memset(out, 0xAA, sizeof out);
    CHECK_RC(regula_digest(def, "sha256", (const uint8_t *)"abc", 3, out, 16, &out_len, NULL),
             REGULA_ERR_BUFFER_TOO_SMALL);
    CHECK(out_len == 32);
    CHECK(all_zero(out, 16));
    CHECK(out[16] == 0xAA);

    /* SHA-1 (FIPS 180-2, "abc"); whether it is approved is the policy's business. */
    CHECK_OK(regula_digest(def, "sha1", (const uint8_t *)"abc", 3, out, sizeof out, &out_len, &ind));
    CHECK(str_eq(ind.algorithm, "sha1"));
    CHECK(out_len == 20 && unhex("a9993e364706816aba3e25717850c26c9cd0d89d", want, sizeof want) == 20);
    CHECK_MEM(out, want, 20);
    /* MD5 (RFC 1321 §A.5, "abc"): refused under fips-140-3 with a message naming it, served
     * flagged under default. */
    CHECK_RC(regula_digest(fips, "md5", (const uint8_t *)"abc", 3, out, sizeof out, &out_len, &ind),
             REGULA_ERR_NOT_APPROVED);
    CHECK(strstr(regula_last_error_message(), "md5") != NULL);
    CHECK_OK(regula_digest(def, "md5", (const uint8_t *)"abc", 3, out, sizeof out, &out_len, &ind));
    check_indicator(&ind, "md5", "digest", "default", 0);
    CHECK(out_len == 16 && unhex("900150983cd24fb0d6963f7d28e17f72", want, sizeof want) == 16);
    CHECK_MEM(out, want, 16);
    /* SHA-256 under gm: refused; SM3 under gm: approved. */
    CHECK_RC(regula_digest(gm, "sha256", (const uint8_t *)"abc", 3, out, sizeof out, &out_len, NULL),
             REGULA_ERR_NOT_APPROVED);
    CHECK_OK(regula_digest(gm, "sm3", (const uint8_t *)"abc", 3, out, sizeof out, &out_len, &ind));
    check_indicator(&ind, "sm3", "digest", "gm", 1);

    /* Names: unknown, another family, case-insensitive. */
    CHECK_RC(regula_digest(def, "sha-999", (const uint8_t *)"abc", 3, out, sizeof out, &out_len, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_digest(def, "aes-128-gcm", (const uint8_t *)"abc", 3, out, sizeof out, &out_len, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_OK(regula_digest(def, "SHA256", (const uint8_t *)"abc", 3, out, sizeof out, &out_len, NULL));
    regula_digest_ctx *ctx = (regula_digest_ctx *)0x1;
    CHECK_RC(regula_digest_new(fips, "md5", &ctx), REGULA_ERR_NOT_APPROVED);
    CHECK(ctx == NULL);

    /* NULL and length abuse. */
    CHECK_RC(regula_digest(NULL, "sha256", (const uint8_t *)"abc", 3, out, sizeof out, &out_len, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_digest(def, NULL, (const uint8_t *)"abc", 3, out, sizeof out, &out_len, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_digest(def, "sha256", NULL, 3, out, sizeof out, &out_len, NULL), REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_digest(def, "sha256", (const uint8_t *)"abc", SIZE_MAX, out, sizeof out, &out_len, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_digest(def, "sha256", (const uint8_t *)"abc", 3, NULL, 32, &out_len, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_digest(def, "sha256", (const uint8_t *)"abc", 3, out, sizeof out, NULL, NULL),
             REGULA_ERR_INVALID_INPUT);
    /* A misaligned size_t out-parameter. */
    unsigned char raw[sizeof(size_t) * 2];
    CHECK_RC(regula_digest(def, "sha256", (const uint8_t *)"abc", 3, out, sizeof out, (size_t *)(void *)(raw + 1), NULL),
             REGULA_ERR_INVALID_INPUT);
    /* An empty message is fine with a NULL pointer (FIPS 180-2: SHA-256 of ""). */
    CHECK_OK(regula_digest(def, "sha256", NULL, 0, out, sizeof out, &out_len, NULL));
    unhex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", want, sizeof want);
    CHECK_MEM(out, want, 32);
    CHECK_RC(regula_digest_update(NULL, (const uint8_t *)"a", 1), REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_digest_new(def, "sha256", NULL), REGULA_ERR_INVALID_INPUT);
}

/* ------------------------------------------------------------------------------------------ */

static void mac_kat(regula_module *module, const char *alg, const char *key_hex, const char *msg,
                    size_t msg_len, const char *tag_hex, const char *policy) {
    unsigned char key[64], want[64], tag[REGULA_MAX_MAC_LEN];
    size_t key_len = unhex(key_hex, key, sizeof key), want_len = unhex(tag_hex, want, sizeof want);
    size_t tag_len = 0;
    regula_mac_key *mk = NULL;
    regula_indicator ind;
    CHECK_OK(regula_mac_key_new(module, alg, key, key_len, &mk));
    CHECK_OK(regula_mac_sign(mk, (const uint8_t *)msg, msg_len, tag, sizeof tag, &tag_len, &ind));
    CHECK(tag_len == want_len);
    CHECK_MEM(tag, want, want_len);
    check_indicator(&ind, alg, "mac-generate", policy, 1);
    CHECK_OK(regula_mac_verify(mk, (const uint8_t *)msg, msg_len, want, want_len, &ind));
    check_indicator(&ind, alg, "mac-verify", policy, 1);
    /* The same message in three fragments. */
    size_t third = msg_len / 3;
    regula_iovec iov[3] = {
        {(uint8_t *)msg, third},
        {(uint8_t *)msg + third, third},
        {(uint8_t *)msg + 2 * third, msg_len - 2 * third},
    };
    memset(tag, 0, sizeof tag);
    CHECK_OK(regula_mac_signv(mk, iov, 3, tag, sizeof tag, &tag_len, NULL));
    CHECK_MEM(tag, want, want_len);
    CHECK_OK(regula_mac_verifyv(mk, iov, 3, want, want_len, NULL));
    /* Any flipped bit, or a truncated tag, fails. */
    want[0] ^= 0x80;
    CHECK_RC(regula_mac_verify(mk, (const uint8_t *)msg, msg_len, want, want_len, NULL), REGULA_ERR_CRYPTO);
    want[0] ^= 0x80;
    CHECK_RC(regula_mac_verify(mk, (const uint8_t *)msg, msg_len, want, want_len - 1, NULL), REGULA_ERR_CRYPTO);
    regula_mac_key_free(mk);
}

static void test_mac(regula_module *def, regula_module *fips, regula_module *gm) {
    /* RFC 4231 test cases 1 and 2. */
    mac_kat(def, "hmac-sha256", "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "Hi There", 8,
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", "default");
    mac_kat(fips, "hmac-sha256", "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "Hi There", 8,
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", "fips-140-3");
    mac_kat(def, "hmac-sha256", "4a656665", "what do ya want for nothing?", 28,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", "default");
    /* RFC 4493 examples 1 and 2 (AES-128-CMAC). */
    mac_kat(def, "aes-128-cmac", "2b7e151628aed2a6abf7158809cf4f3c", "", 0,
            "bb1d6929e95937287fa37d129b756746", "default");
    static const unsigned char m16[] = {0x6b, 0xc1, 0xbe, 0xe2, 0x2e, 0x40, 0x9f, 0x96,
                                        0xe9, 0x3d, 0x7e, 0x11, 0x73, 0x93, 0x17, 0x2a};
    mac_kat(fips, "aes-128-cmac", "2b7e151628aed2a6abf7158809cf4f3c", (const char *)m16, 16,
            "070a16b46b4d4144f79bdd9dd04a287c", "fips-140-3");
    /* GM/T 0042-2015 appendix D.3, first example (HMAC-SM3). */
    mac_kat(gm, "hmac-sm3", "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20",
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopqabcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            112, "ca05e144ed05d1857840d1f318a4a8669e559fc8391f414485bfdf7bb408963a", "gm");
    /* SM4-CMAC of "abc" under 000102…0f, as computed by OpenSSL 3 (`openssl mac -cipher
     * SM4-CBC CMAC`), an independent implementation. */
    mac_kat(gm, "sm4-cmac", "000102030405060708090a0b0c0d0e0f", "abc", 3, "12191f51dc5c89af84446df24355d3f7", "gm");

    /* FIPS: an HMAC key under 112 bits is refused (SP 800-131A); under default it is served. */
    regula_mac_key *mk = (regula_mac_key *)0x1;
    CHECK_RC(regula_mac_key_new(fips, "hmac-sha256", (const uint8_t *)"Jefe", 4, &mk), REGULA_ERR_NOT_APPROVED);
    CHECK(mk == NULL);
    /* AES-CMAC takes exactly the AES key length; the message never shows the key. */
    CHECK_RC(regula_mac_key_new(def, "aes-128-cmac", (const uint8_t *)"SECRETKEYBYTES", 14, &mk),
             REGULA_ERR_INVALID_INPUT);
    CHECK(strstr(regula_last_error_message(), "SECRET") == NULL);
    CHECK_RC(regula_mac_key_new(def, "sha256", (const uint8_t *)"0123456789abcdef", 16, &mk),
             REGULA_ERR_INVALID_INPUT);

    CHECK_OK(regula_mac_key_new(def, "hmac-sha512", (const uint8_t *)"0123456789abcdef", 16, &mk));
    unsigned char tag[REGULA_MAX_MAC_LEN];
    size_t tag_len;
    memset(tag, 0xAA, sizeof tag);
    CHECK_RC(regula_mac_sign(mk, (const uint8_t *)"x", 1, tag, 32, &tag_len, NULL), REGULA_ERR_BUFFER_TOO_SMALL);
    CHECK(tag_len == 64);
    CHECK(all_zero(tag, 32));
    CHECK_RC(regula_mac_signv(mk, NULL, 2, tag, sizeof tag, &tag_len, NULL), REGULA_ERR_INVALID_INPUT);
    regula_iovec holes[2] = {{NULL, 5}, {(uint8_t *)"x", 1}};
    CHECK_RC(regula_mac_signv(mk, holes, 2, tag, sizeof tag, &tag_len, NULL), REGULA_ERR_INVALID_INPUT);
    regula_iovec huge[2] = {{(uint8_t *)"x", SIZE_MAX / 2}, {(uint8_t *)"x", SIZE_MAX / 2}};
    CHECK_RC(regula_mac_signv(mk, huge, 2, tag, sizeof tag, &tag_len, NULL), REGULA_ERR_INVALID_INPUT);
    unsigned char raw[sizeof(regula_iovec) * 2];
    memset(raw, 0, sizeof raw);
    CHECK_RC(regula_mac_signv(mk, (const regula_iovec *)(void *)(raw + 1), 1, tag, sizeof tag, &tag_len, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_mac_verify(mk, (const uint8_t *)"x", 1, NULL, 16, NULL), REGULA_ERR_INVALID_INPUT);
    regula_mac_key_free(mk);
}

/* ------------------------------------------------------------------------------------------ */

/* The GCM specification (McGrew & Viega), test case 4: AES-128, 60-byte plaintext, 20-byte AAD. */
#define GCM4_KEY "feffe9928665731c6d6a8f9467308308"
#define GCM4_IV "cafebabefacedbaddecaf888"
#define GCM4_AAD "feedfacedeadbeeffeedfacedeadbeefabaddad2"
#define GCM4_PT                                                                                \
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e24" \
    "49a6b525b16aedf5aa0de657ba637b39"
#define GCM4_CT                                                                                \
    "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5a" \
    "ac84aa051ba30b396a0aac973d58e091"
#define GCM4_TAG "5bc94fbc3221a5db94fae95ae7121a47"

static void test_aead(regula_module *def, regula_module *fips, regula_module *gm) {
    unsigned char key[16], iv[12], aad[20], pt[60], ct[60], tag[16];
    unhex(GCM4_KEY, key, 16);
    unhex(GCM4_IV, iv, 12);
    unhex(GCM4_AAD, aad, 20);
    unhex(GCM4_PT, pt, 60);
    unhex(GCM4_CT, ct, 60);
    unhex(GCM4_TAG, tag, 16);

    regula_aead_key *k = NULL;
    regula_indicator ind;
    CHECK_OK(regula_aead_key_new(def, "aes-128-gcm", key, 16, &k));
    unsigned char out[128], back[128];
    size_t out_len = 0, back_len = 0;
    CHECK_OK(regula_aead_seal(k, iv, 12, aad, 20, pt, 60, out, sizeof out, &out_len, &ind));
    CHECK(out_len == 76);
    CHECK_MEM(out, ct, 60);
    CHECK_MEM(out + 60, tag, 16);
    CHECK(str_eq(ind.algorithm, "aes-128-gcm") && str_eq(ind.service, "encrypt"));
    CHECK_OK(regula_aead_open(k, iv, 12, aad, 20, out, out_len, back, sizeof back, &back_len, &ind));
    CHECK(back_len == 60);
    CHECK_MEM(back, pt, 60);
    check_indicator(&ind, "aes-128-gcm", "decrypt", "default", 1);

    /* In place, both ways. */
    unsigned char buf[76];
    memcpy(buf, pt, 60);
    CHECK_OK(regula_aead_seal(k, iv, 12, aad, 20, buf, 60, buf, sizeof buf, &out_len, NULL));
    CHECK_MEM(buf, ct, 60);
    CHECK_MEM(buf + 60, tag, 16);
    CHECK_OK(regula_aead_open(k, iv, 12, aad, 20, buf, 76, buf, sizeof buf, &back_len, NULL));
    CHECK(back_len == 60);
    CHECK_MEM(buf, pt, 60);

    /* Overlapping but not the same buffer: the input is moved first. */
    unsigned char shifted[96];
    memcpy(shifted + 8, pt, 60);
    CHECK_OK(regula_aead_seal(k, iv, 12, aad, 20, shifted + 8, 60, shifted, 76, &out_len, NULL));
    CHECK_MEM(shifted, ct, 60);
    CHECK_MEM(shifted + 60, tag, 16);
    CHECK_OK(regula_aead_open(k, iv, 12, aad, 20, shifted, 76, shifted + 4, 60, &back_len, NULL));
    CHECK_MEM(shifted + 4, pt, 60);

    /* A bad tag (or AAD, or nonce): REGULA_ERR_CRYPTO, output wiped, length 0. */
    memcpy(buf, ct, 60);
    memcpy(buf + 60, tag, 16);
    buf[75] ^= 1;
    memset(back, 0xAA, sizeof back);
    back_len = 99;
    CHECK_RC(regula_aead_open(k, iv, 12, aad, 20, buf, 76, back, sizeof back, &back_len, NULL), REGULA_ERR_CRYPTO);
    CHECK(back_len == 0);
    CHECK(all_zero(back, sizeof back));
    buf[75] ^= 1;
    CHECK_RC(regula_aead_open(k, iv, 12, aad, 19, buf, 76, back, sizeof back, &back_len, NULL), REGULA_ERR_CRYPTO);
    CHECK(strcmp(regula_last_error_message(), "authentication failed") == 0);
    CHECK_RC(regula_aead_open(k, iv, 12, aad, 20, buf, 76, buf, sizeof buf, &back_len, NULL), REGULA_OK);

    /* Scatter/gather: header + payload fragments give the contiguous result. */
    unsigned char frag[60];
    memcpy(frag, pt, 60);
    regula_iovec iov[3] = {{frag, 7}, {frag + 7, 0}, {frag + 7, 53}};
    regula_iovec aad_iov[2] = {{aad, 4}, {aad + 4, 16}};
    unsigned char vtag[16];
    CHECK_OK(regula_aead_sealv(k, iv, 12, aad_iov, 2, iov, 3, vtag, 16, &ind));
    CHECK_MEM(frag, ct, 60);
    CHECK_MEM(vtag, tag, 16);
    CHECK_OK(regula_aead_openv(k, iv, 12, aad_iov, 2, iov, 3, vtag, 16, &ind));
    CHECK_MEM(frag, pt, 60);
    check_indicator(&ind, "aes-128-gcm", "decrypt", "default", 1);
    /* One fragment works in place without a copy; a bad tag wipes the fragments. */
    memcpy(frag, ct, 60);
    regula_iovec one = {frag, 60};
    vtag[3] ^= 4;
    CHECK_RC(regula_aead_openv(k, iv, 12, aad_iov, 2, &one, 1, vtag, 16, NULL), REGULA_ERR_CRYPTO);
    CHECK(all_zero(frag, 60));
    memcpy(frag, ct, 60);
    CHECK_RC(regula_aead_openv(k, iv, 12, aad_iov, 2, iov, 3, vtag, 16, NULL), REGULA_ERR_CRYPTO);
    CHECK(all_zero(frag, 60));
    vtag[3] ^= 4;
    CHECK_RC(regula_aead_sealv(k, iv, 12, aad_iov, 2, iov, 3, vtag, 12, NULL), REGULA_ERR_INVALID_INPUT);
    CHECK(all_zero(vtag, 12));

    /* Module-generated nonces, contiguous and vectored; the caller opens with the nonce. */
    unsigned char nonce[12];
    CHECK_OK(regula_aead_seal_gen_nonce(k, nonce, 12, aad, 20, pt, 60, out, sizeof out, &out_len, &ind));
    CHECK_OK(regula_aead_open(k, nonce, 12, aad, 20, out, out_len, back, sizeof back, &back_len, NULL));
    CHECK_MEM(back, pt, 60);
    memcpy(frag, pt, 60);
    CHECK_OK(regula_aead_sealv_gen_nonce(k, nonce, 12, aad_iov, 2, iov, 3, vtag, 16, NULL));
    CHECK_OK(regula_aead_openv(k, nonce, 12, aad_iov, 2, iov, 3, vtag, 16, NULL));
    CHECK_MEM(frag, pt, 60);
    CHECK_RC(regula_aead_seal_gen_nonce(k, nonce, 11, aad, 20, pt, 60, out, sizeof out, &out_len, NULL),
             REGULA_ERR_INVALID_INPUT);

    /* Sizes and bad arguments. */
    memset(out, 0xAA, sizeof out);
    CHECK_RC(regula_aead_seal(k, iv, 12, aad, 20, pt, 60, out, 75, &out_len, NULL), REGULA_ERR_BUFFER_TOO_SMALL);
    CHECK(out_len == 76);
    CHECK(all_zero(out, 75));
    CHECK_RC(regula_aead_open(k, iv, 12, aad, 20, out, 15, back, sizeof back, &back_len, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_aead_seal(k, iv, 8, aad, 20, pt, 60, out, sizeof out, &out_len, NULL), REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_aead_seal(NULL, iv, 12, aad, 20, pt, 60, out, sizeof out, &out_len, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_aead_seal(k, NULL, 12, aad, 20, pt, 60, out, sizeof out, &out_len, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_aead_seal(k, iv, 12, NULL, 20, pt, 60, out, sizeof out, &out_len, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_aead_seal(k, iv, 12, aad, 20, pt, SIZE_MAX - 8, out, sizeof out, &out_len, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_aead_seal(k, iv, 12, aad, 20, pt, 60, out, sizeof out, NULL, NULL), REGULA_ERR_INVALID_INPUT);
    /* Empty plaintext with NULL pointers: just a tag (GCM spec test case 1 for a zero key). */
    regula_aead_key *zero = NULL;
    unsigned char zkey[16] = {0}, znonce[12] = {0};
    CHECK_OK(regula_aead_key_new(def, "aes-128-gcm", zkey, 16, &zero));
    CHECK_OK(regula_aead_seal(zero, znonce, 12, NULL, 0, NULL, 0, out, sizeof out, &out_len, NULL));
    CHECK(out_len == 16);
    unsigned char tc1[16];
    unhex("58e2fccefa7e3061367f1d57a4e7455a", tc1, 16);
    CHECK_MEM(out, tc1, 16);
    regula_aead_key_free(zero);
    regula_aead_key_free(k);

    /* Key problems. */
    regula_aead_key *bad = (regula_aead_key *)0x1;
    CHECK_RC(regula_aead_key_new(def, "aes-128-gcm", key, 15, &bad), REGULA_ERR_INVALID_INPUT);
    CHECK(bad == NULL);
    CHECK_RC(regula_aead_key_new(def, "aes-128-gcm", NULL, 16, &bad), REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_aead_key_new(def, "sha256", key, 16, &bad), REGULA_ERR_INVALID_INPUT);

    /* FIPS 140-3: AES-GCM with a caller's nonce is not approved (IG C.H), so strict refuses it;
     * the module-generated nonce is approved. ChaCha20-Poly1305 is refused outright. */
    CHECK_OK(regula_aead_key_new(fips, "aes-128-gcm", key, 16, &k));
    CHECK_RC(regula_aead_seal(k, iv, 12, aad, 20, pt, 60, out, sizeof out, &out_len, NULL), REGULA_ERR_NOT_APPROVED);
    CHECK_OK(regula_aead_seal_gen_nonce(k, nonce, 12, aad, 20, pt, 60, out, sizeof out, &out_len, &ind));
    check_indicator(&ind, "aes-128-gcm", "encrypt", "fips-140-3", 1);
    CHECK_OK(regula_aead_open(k, nonce, 12, aad, 20, out, out_len, back, sizeof back, &back_len, &ind));
    check_indicator(&ind, "aes-128-gcm", "decrypt", "fips-140-3", 1);
    memcpy(frag, pt, 60);
    CHECK_RC(regula_aead_sealv(k, iv, 12, aad_iov, 2, iov, 3, vtag, 16, NULL), REGULA_ERR_NOT_APPROVED);
    CHECK(all_zero(frag, 60)); /* failure wipes the in-place buffers */
    regula_aead_key_free(k);
    unsigned char key32[32] = {0};
    CHECK_RC(regula_aead_key_new(fips, "chacha20-poly1305", key32, 32, &bad), REGULA_ERR_NOT_APPROVED);
    CHECK_OK(regula_aead_key_new(def, "chacha20-poly1305", key32, 32, &k));
    CHECK_OK(regula_aead_seal(k, iv, 12, NULL, 0, pt, 60, out, sizeof out, &out_len, &ind));
    CHECK(str_eq(ind.algorithm, "chacha20-poly1305"));
    CHECK_OK(regula_aead_open(k, iv, 12, NULL, 0, out, out_len, back, sizeof back, &back_len, NULL));
    CHECK_MEM(back, pt, 60);
    regula_aead_key_free(k);

    /* SM4-GCM and SM4-CCM under gm; AES-GCM refused there. */
    CHECK_RC(regula_aead_key_new(gm, "aes-128-gcm", key, 16, &bad), REGULA_ERR_NOT_APPROVED);
    const char *sm4[] = {"sm4-gcm", "sm4-ccm"};
    for (int i = 0; i < 2; i++) {
        CHECK_OK(regula_aead_key_new(gm, sm4[i], key, 16, &k));
        CHECK_OK(regula_aead_seal_gen_nonce(k, nonce, 12, aad, 20, pt, 60, out, sizeof out, &out_len, &ind));
        check_indicator(&ind, sm4[i], "encrypt", "gm", 1);
        memcpy(frag, pt, 60);
        CHECK_OK(regula_aead_sealv(k, nonce, 12, aad_iov, 2, iov, 3, vtag, 16, NULL));
        CHECK_MEM(frag, out, 60);
        CHECK_MEM(vtag, out + 60, 16);
        CHECK_OK(regula_aead_openv(k, nonce, 12, aad_iov, 2, iov, 3, vtag, 16, NULL));
        CHECK_MEM(frag, pt, 60);
        out[0] ^= 1;
        CHECK_RC(regula_aead_open(k, nonce, 12, aad, 20, out, out_len, back, sizeof back, &back_len, NULL),
                 REGULA_ERR_CRYPTO);
        CHECK(all_zero(back, 60));
        regula_aead_key_free(k);
    }
}

/* ------------------------------------------------------------------------------------------ */

static void test_cipher(regula_module *def, regula_module *gm) {
    /* SP 800-38A F.2.1 (CBC-AES128, first block) and F.5.1 (CTR-AES128, first block). */
    unsigned char key[16], iv[16], pt[16], want[16], out[64], back[64];
    size_t out_len, back_len;
    regula_indicator ind;
    unhex("2b7e151628aed2a6abf7158809cf4f3c", key, 16);
    unhex("6bc1bee22e409f96e93d7e117393172a", pt, 16);
    regula_cipher_key *ck = NULL;

    unhex("000102030405060708090a0b0c0d0e0f", iv, 16);
    unhex("7649abac8119b246cee98e9b12e9197d", want, 16);
    CHECK_OK(regula_cipher_key_new(def, "aes-128-cbc", key, 16, &ck));
    CHECK_OK(regula_cipher_encrypt(ck, iv, 16, pt, 16, out, sizeof out, &out_len, &ind));
    CHECK(out_len == 32); /* PKCS#7 adds a block */
    CHECK_MEM(out, want, 16);
    check_indicator(&ind, "aes-128-cbc", "encrypt", "default", 1);
    CHECK_OK(regula_cipher_decrypt(ck, iv, 16, out, out_len, back, sizeof back, &back_len, &ind));
    CHECK(back_len == 16);
    CHECK_MEM(back, pt, 16);
    /* A corrupted last block breaks the padding: a cryptographic failure, nothing returned. */
    out[31] ^= 0x55;
    memset(back, 0xAA, sizeof back);
    int rc = regula_cipher_decrypt(ck, iv, 16, out, out_len, back, sizeof back, &back_len, NULL);
    CHECK(rc == REGULA_ERR_CRYPTO);
    CHECK(back_len == 0 && all_zero(back, sizeof back));
    CHECK_RC(regula_cipher_decrypt(ck, iv, 16, out, 17, back, sizeof back, &back_len, NULL), REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_cipher_encrypt(ck, iv, 15, pt, 16, out, sizeof out, &out_len, NULL), REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_cipher_encrypt(ck, iv, 16, pt, 16, out, 16, &out_len, NULL), REGULA_ERR_BUFFER_TOO_SMALL);
    CHECK(out_len == 32);
    regula_cipher_key_free(ck);

    unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", iv, 16);
    unhex("874d6191b620e3261bef6864990db6ce", want, 16);
    CHECK_OK(regula_cipher_key_new(def, "aes-128-ctr", key, 16, &ck));
    CHECK_OK(regula_cipher_encrypt(ck, iv, 16, pt, 16, out, sizeof out, &out_len, NULL));
    CHECK(out_len == 16);
    CHECK_MEM(out, want, 16);
    CHECK_OK(regula_cipher_decrypt(ck, iv, 16, out, 16, back, sizeof back, &back_len, NULL));
    CHECK_MEM(back, pt, 16);
    regula_cipher_key_free(ck);

    /* GB/T 32907-2016 example 1: SM4 with key = plaintext = 0123456789abcdeffedcba9876543210. */
    unhex("0123456789abcdeffedcba9876543210", key, 16);
    unhex("681edf34d206965e86b3e94f536e4246", want, 16);
    CHECK_OK(regula_cipher_key_new(gm, "sm4-ecb", key, 16, &ck));
    CHECK_OK(regula_cipher_encrypt(ck, NULL, 0, key, 16, out, sizeof out, &out_len, &ind));
    CHECK(out_len == 16);
    CHECK_MEM(out, want, 16);
    check_indicator(&ind, "sm4-ecb", "encrypt", "gm", 1);
    CHECK_RC(regula_cipher_encrypt(ck, iv, 16, key, 16, out, sizeof out, &out_len, NULL), REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_cipher_encrypt(ck, NULL, 0, key, 15, out, sizeof out, &out_len, NULL), REGULA_ERR_INVALID_INPUT);
    regula_cipher_key_free(ck);
    CHECK_RC(regula_cipher_key_new(gm, "aes-128-cbc", key, 16, &ck), REGULA_ERR_NOT_APPROVED);
}

/* ------------------------------------------------------------------------------------------ */

static void test_kdf_random(regula_module *def, regula_module *fips) {
    /* RFC 5869 test case 1 (HKDF-SHA256). */
    unsigned char ikm[22], salt[13], info[10], okm[42], want[64];
    memset(ikm, 0x0b, sizeof ikm);
    for (int i = 0; i < 13; i++) salt[i] = (unsigned char)i;
    for (int i = 0; i < 10; i++) info[i] = (unsigned char)(0xf0 + i);
    unhex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865", want, 42);
    regula_indicator ind;
    CHECK_OK(regula_hkdf(fips, "hkdf-sha256", ikm, 22, salt, 13, info, 10, okm, 42, &ind));
    CHECK_MEM(okm, want, 42);
    check_indicator(&ind, "hkdf-sha256", "key-derivation", "fips-140-3", 1);
    memset(okm, 0xAA, sizeof okm);
    CHECK_RC(regula_hkdf(def, "hkdf-sha256", ikm, 22, salt, 13, info, 10, okm, 0, NULL), REGULA_ERR_INVALID_INPUT);
    static unsigned char big[255 * 32 + 1];
    CHECK_RC(regula_hkdf(def, "hkdf-sha256", ikm, 22, salt, 13, info, 10, big, sizeof big, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_hkdf(def, "hmac-sha256", ikm, 22, salt, 13, info, 10, okm, 42, NULL), REGULA_ERR_INVALID_INPUT);
    CHECK(all_zero(okm, 42)); /* wiped on failure */

    /* RFC 7914 §11: PBKDF2-HMAC-SHA256("passwd", "salt", 1, 64). One iteration and a 4-byte
     * salt are below SP 800-132's limits: served flagged under default, refused under FIPS. */
    unsigned char dk[64];
    unhex("55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783",
          want, 64);
    CHECK_OK(regula_pbkdf2(def, "pbkdf2-sha256", (const uint8_t *)"passwd", 6, (const uint8_t *)"salt", 4, 1, dk, 64, &ind));
    CHECK_MEM(dk, want, 64);
    CHECK(str_eq(ind.algorithm, "pbkdf2-sha256"));
    CHECK_RC(regula_pbkdf2(fips, "pbkdf2-sha256", (const uint8_t *)"passwd", 6, (const uint8_t *)"salt", 4, 1, dk, 64, NULL),
             REGULA_ERR_NOT_APPROVED);
    CHECK(all_zero(dk, 64));
    CHECK_RC(regula_pbkdf2(def, "pbkdf2-sha256", (const uint8_t *)"passwd", 6, (const uint8_t *)"salt", 4, 0, dk, 64, NULL),
             REGULA_ERR_INVALID_INPUT);

    unsigned char a[32], b[32];
    CHECK_OK(regula_random(fips, a, 32, &ind));
    check_indicator(&ind, "ctr-drbg", "random-generation", "fips-140-3", 1);
    CHECK_OK(regula_random(fips, b, 32, NULL));
    CHECK(memcmp(a, b, 32) != 0);
    CHECK(!all_zero(a, 32));
    CHECK_OK(regula_random(fips, NULL, 0, NULL));
    CHECK_RC(regula_random(fips, NULL, 32, NULL), REGULA_ERR_INVALID_INPUT);
}

/* ------------------------------------------------------------------------------------------ */

/* Keys made with OpenSSL 3 (`openssl genpkey`), and an ECDSA signature OpenSSL made over
 * "message from openssl" (`openssl dgst -sha256 -sign`). */
static const char P256_KEY[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgoIcC46d7/68fcLu7\n"
    "b+vUDocQWt4y1tlveZG4yD5eGHihRANCAARC8y+uGVq6Z2cX/eYzAwhRzWZiuMgJ\n"
    "2t6zx5RpdO7swag/jqtwJ0kf2L9GVJrbDawT5gSV7NRwejIDc1CmJ412\n"
    "-----END PRIVATE KEY-----\n";
static const char P256_PUB[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEQvMvrhlaumdnF/3mMwMIUc1mYrjI\n"
    "Cdres8eUaXTu7MGoP46rcCdJH9i/RlSa2w2sE+YElezUcHoyA3NQpieNdg==\n"
    "-----END PUBLIC KEY-----\n";
static const char P256_OPENSSL_SIG[] =
    "3046022100c4ebf432f689f96c4304b4cbdad3690dee8d4fc30d110e6bfcf2a377d9ba457d02210098eef6aed66f97"
    "2076ccbe3dbb14702a8cef704eb2cbd85340feb60ec1ad815a";
static const char SM2_KEY[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqBHM9VAYItBG0wawIBAQQgNkfjy+KFsySJxkws\n"
    "G5tz94D5+u+uXVgcgJ7Tq6xbNh+hRANCAATwo7L15/SQISFOfUn0JX9Gfxu/3Af4\n"
    "PeQdj2G7M67oumAejaeaHlLcLC1lhNk/7gfTOmuJ8jaGZxcHS8wlGt5h\n"
    "-----END PRIVATE KEY-----\n";
static const char SM2_PUB[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MFkwEwYHKoZIzj0CAQYIKoEcz1UBgi0DQgAE8KOy9ef0kCEhTn1J9CV/Rn8bv9wH\n"
    "+D3kHY9huzOu6LpgHo2nmh5S3CwtZYTZP+4H0zprifI2hmcXB0vMJRreYQ==\n"
    "-----END PUBLIC KEY-----\n";

static void test_signature(regula_module *def, regula_module *fips, regula_module *gm) {
    const uint8_t *msg = (const uint8_t *)"message from openssl";
    size_t msg_len = strlen((const char *)msg);
    unsigned char sig[REGULA_MAX_SIGNATURE_LEN], der[512];
    size_t sig_len, der_len;
    regula_indicator ind;

    /* OpenSSL's signature verifies with OpenSSL's public key (PEM). */
    unsigned char osig[80];
    size_t osig_len = unhex(P256_OPENSSL_SIG, osig, sizeof osig);
    CHECK_OK(regula_verify(fips, "ecdsa-p256", (const uint8_t *)P256_PUB, strlen(P256_PUB), msg, msg_len, osig,
                           osig_len, &ind));
    check_indicator(&ind, "ecdsa-p256", "verify", "fips-140-3", 1);
    CHECK_RC(regula_verify(fips, "ecdsa-p256", (const uint8_t *)P256_PUB, strlen(P256_PUB), msg, msg_len - 1, osig,
                           osig_len, NULL),
             REGULA_ERR_CRYPTO);
    CHECK_RC(regula_verify(fips, "ecdsa-p256", (const uint8_t *)"-----BEGIN junk", 15, msg, msg_len, osig, osig_len, NULL),
             REGULA_ERR_INVALID_INPUT);

    /* OpenSSL's private key (PEM) signs; the signature verifies with the exported DER key. */
    regula_signing_key *sk = NULL;
    CHECK_OK(regula_signing_key_import(fips, "ecdsa-p256", (const uint8_t *)P256_KEY, strlen(P256_KEY), &sk, &ind));
    check_indicator(&ind, "ecdsa-p256", "key-import", "fips-140-3", 1);
    CHECK_OK(regula_sign(sk, msg, msg_len, sig, sizeof sig, &sig_len, &ind));
    check_indicator(&ind, "ecdsa-p256", "sign", "fips-140-3", 1);
    CHECK_OK(regula_signing_key_public_der(sk, der, sizeof der, &der_len));
    CHECK(der_len == 91);
    CHECK_OK(regula_verify(fips, "ecdsa-p256", der, der_len, msg, msg_len, sig, sig_len, NULL));
    CHECK_OK(regula_verify(fips, "ecdsa-p256", (const uint8_t *)P256_PUB, strlen(P256_PUB), msg, msg_len, sig,
                           sig_len, NULL));
    sig[sig_len - 1] ^= 1;
    CHECK_RC(regula_verify(fips, "ecdsa-p256", der, der_len, msg, msg_len, sig, sig_len, NULL), REGULA_ERR_CRYPTO);
    CHECK_RC(regula_sign(sk, msg, msg_len, sig, 8, &sig_len, NULL), REGULA_ERR_BUFFER_TOO_SMALL);
    CHECK(sig_len > 8);
    regula_signing_key_free(sk);

    /* ML-DSA-87's signature, the largest (FIPS 204 Table 2: 4627 bytes), fits the constant. */
    CHECK_OK(regula_signing_key_generate(fips, "ml-dsa-87", 0, &sk, &ind));
    check_indicator(&ind, "ml-dsa-87", "key-generation", "fips-140-3", 1);
    CHECK_OK(regula_sign(sk, msg, msg_len, sig, sizeof sig, &sig_len, &ind));
    CHECK(sig_len == 4627);
    {
        /* FIPS 204: a 2592-byte public key, in a SubjectPublicKeyInfo. */
        static unsigned char mldsa_pub[4096];
        size_t mldsa_pub_len;
        CHECK_OK(regula_signing_key_public_der(sk, mldsa_pub, sizeof mldsa_pub, &mldsa_pub_len));
        CHECK(mldsa_pub_len > 2592);
        CHECK_OK(regula_verify(fips, "ml-dsa-87", mldsa_pub, mldsa_pub_len, msg, msg_len, sig, sig_len, &ind));
        check_indicator(&ind, "ml-dsa-87", "verify", "fips-140-3", 1);
        sig[0] ^= 1;
        CHECK_RC(regula_verify(fips, "ml-dsa-87", mldsa_pub, mldsa_pub_len, msg, msg_len, sig, sig_len, NULL),
                 REGULA_ERR_CRYPTO);
    }
    regula_signing_key_free(sk);
    sk = NULL;

    /* A P-256 key is not an Ed25519 key, and garbage is not a key. */
    CHECK_RC(regula_signing_key_import(fips, "ed25519", (const uint8_t *)P256_KEY, strlen(P256_KEY), &sk, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_signing_key_import(fips, "ecdsa-p256", (const uint8_t *)"\x30\x03\x02\x01\x00", 5, &sk, NULL),
             REGULA_ERR_INVALID_INPUT);

    /* Generated keys: ECDSA P-384 and Ed25519. */
    const char *algs[] = {"ecdsa-p384", "ed25519"};
    for (int i = 0; i < 2; i++) {
        CHECK_OK(regula_signing_key_generate(def, algs[i], 0, &sk, &ind));
        check_indicator(&ind, algs[i], "key-generation", "default", 1);
        CHECK_OK(regula_sign(sk, msg, msg_len, sig, sizeof sig, &sig_len, NULL));
        CHECK_OK(regula_signing_key_public_der(sk, der, sizeof der, &der_len));
        CHECK_OK(regula_verify(def, algs[i], der, der_len, msg, msg_len, sig, sig_len, &ind));
        check_indicator(&ind, algs[i], "verify", "default", 1);
        CHECK_RC(regula_verify(def, algs[i], der, der_len, msg, msg_len - 1, sig, sig_len, NULL), REGULA_ERR_CRYPTO);
        regula_signing_key_free(sk);
    }
    CHECK_RC(regula_signing_key_generate(def, "ecdsa-p256", 2048, &sk, NULL), REGULA_ERR_INVALID_INPUT);
    CHECK(sk == NULL);

    /* RFC 8032 §7.1 test 1: Ed25519, empty message, raw public key. */
    unsigned char pk[32], esig[64];
    unhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", pk, 32);
    unhex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
          esig, 64);
    CHECK_OK(regula_verify(def, "ed25519", pk, 32, NULL, 0, esig, 64, NULL));
    esig[10] ^= 1;
    CHECK_RC(regula_verify(def, "ed25519", pk, 32, NULL, 0, esig, 64, NULL), REGULA_ERR_CRYPTO);

    /* SM2 under gm: OpenSSL's key imports; the default and an explicit signer ID. */
    CHECK_OK(regula_signing_key_import(gm, "sm2-sign", (const uint8_t *)SM2_KEY, strlen(SM2_KEY), &sk, NULL));
    CHECK_OK(regula_sign(sk, msg, msg_len, sig, sizeof sig, &sig_len, &ind));
    check_indicator(&ind, "sm2-sign", "sign", "gm", 1);
    CHECK_OK(regula_verify(gm, "sm2-sign", (const uint8_t *)SM2_PUB, strlen(SM2_PUB), msg, msg_len, sig, sig_len, NULL));
    CHECK_OK(regula_verify_with_id(gm, "sm2-sign", (const uint8_t *)SM2_PUB, strlen(SM2_PUB),
                                   (const uint8_t *)"1234567812345678", 16, msg, msg_len, sig, sig_len, NULL));
    CHECK_OK(regula_sign_with_id(sk, (const uint8_t *)"alice@example", 13, msg, msg_len, sig, sizeof sig, &sig_len, NULL));
    CHECK_OK(regula_verify_with_id(gm, "sm2-sign", (const uint8_t *)SM2_PUB, strlen(SM2_PUB),
                                   (const uint8_t *)"alice@example", 13, msg, msg_len, sig, sig_len, NULL));
    CHECK_RC(regula_verify(gm, "sm2-sign", (const uint8_t *)SM2_PUB, strlen(SM2_PUB), msg, msg_len, sig, sig_len, NULL),
             REGULA_ERR_CRYPTO);
    regula_signing_key_free(sk);
    CHECK_RC(regula_signing_key_import(fips, "sm2-sign", (const uint8_t *)SM2_KEY, strlen(SM2_KEY), &sk, NULL),
             REGULA_ERR_NOT_APPROVED);
    CHECK_RC(regula_signing_key_generate(gm, "ecdsa-p256", 0, &sk, NULL), REGULA_ERR_NOT_APPROVED);
    CHECK_RC(regula_sign(NULL, msg, msg_len, sig, sizeof sig, &sig_len, NULL), REGULA_ERR_INVALID_INPUT);
}

/* ------------------------------------------------------------------------------------------ */

/* SM2 public-key encryption (GB/T 32918.4). A ciphertext OpenSSL 3.0 made to SM2_PUB, the
 * ASN.1 SM2Cipher of GM/T 0009-2012:
 *   printf 'message from openssl' > msg
 *   openssl pkeyutl -encrypt -pubin -inkey sm2_pub.pem -in msg | xxd -p */
static const char SM2_OPENSSL_CIPHERTEXT[] =
    "307d0220023871706f399dc91d2e5620345296331af87110a060bcb1abc805af6351fe41022100c6c3d2cbac93f0"
    "0ec070697a607f5cefd61a2a42ec4777c829566fe73295c36a0420f715dcd6812e9381061727ffd1bd3c18157356"
    "8f6abb7c936222037f32b6b9f10414d1950fb3182de7a6cece6e73154d20a79126a645";

static void test_public_key_encryption(regula_module *def, regula_module *fips, regula_module *gm) {
    const uint8_t *msg = (const uint8_t *)"message from openssl";
    size_t msg_len = strlen((const char *)msg);
    unsigned char ct[256], pt[256], der[128];
    size_t ct_len, pt_len, der_len;
    regula_indicator ind;
    regula_decryption_key *dk = NULL;

    /* OpenSSL's key (PEM) decrypts OpenSSL's ciphertext. */
    CHECK_OK(regula_decryption_key_import(gm, "sm2-encrypt", (const uint8_t *)SM2_KEY, strlen(SM2_KEY), &dk, &ind));
    check_indicator(&ind, "sm2-encrypt", "key-import", "gm", 1);
    unsigned char oct[160];
    size_t oct_len = unhex(SM2_OPENSSL_CIPHERTEXT, oct, sizeof oct);
    CHECK(oct_len == 127);
    CHECK_OK(regula_decrypt(dk, REGULA_SM2_CIPHERTEXT_ASN1, oct, oct_len, pt, sizeof pt, &pt_len, &ind));
    check_indicator(&ind, "sm2-encrypt", "decrypt", "gm", 1);
    CHECK(pt_len == msg_len);
    CHECK_MEM(pt, msg, msg_len);
    /* The size query, then too small a buffer: the length needed, nothing written. */
    CHECK_RC(regula_decrypt(dk, REGULA_SM2_CIPHERTEXT_ASN1, oct, oct_len, NULL, 0, &pt_len, NULL),
             REGULA_ERR_BUFFER_TOO_SMALL);
    CHECK(pt_len == msg_len);
    memset(pt, 0xaa, sizeof pt);
    CHECK_RC(regula_decrypt(dk, REGULA_SM2_CIPHERTEXT_ASN1, oct, oct_len, pt, 4, &pt_len, NULL),
             REGULA_ERR_BUFFER_TOO_SMALL);
    CHECK(pt_len == msg_len && all_zero(pt, 4));
    /* A flipped byte anywhere (here in C2, then in C3) is a cryptographic failure; the output is wiped. */
    for (size_t at = oct_len - 1; at > oct_len - 30; at -= 25) {
        oct[at] ^= 1;
        memset(pt, 0xaa, sizeof pt);
        CHECK_RC(regula_decrypt(dk, REGULA_SM2_CIPHERTEXT_ASN1, oct, oct_len, pt, sizeof pt, &pt_len, NULL),
                 REGULA_ERR_CRYPTO);
        CHECK(pt_len == 0 && all_zero(pt, sizeof pt));
        oct[at] ^= 1;
    }
    /* The ASN.1 ciphertext read as C1C3C2 does not decrypt; an unknown format is refused. */
    CHECK_RC(regula_decrypt(dk, REGULA_SM2_CIPHERTEXT_C1C3C2, oct, oct_len, pt, sizeof pt, &pt_len, NULL),
             REGULA_ERR_CRYPTO);
    CHECK_RC(regula_decrypt(dk, 7, oct, oct_len, pt, sizeof pt, &pt_len, NULL), REGULA_ERR_INVALID_INPUT);

    /* Round trip to OpenSSL's public key (PEM), in both layouts. */
    CHECK_OK(regula_encrypt_to_public_key(gm, "sm2-encrypt", (const uint8_t *)SM2_PUB, strlen(SM2_PUB),
                                          REGULA_SM2_CIPHERTEXT_ASN1, msg, msg_len, ct, msg_len + 116, &ct_len, &ind));
    check_indicator(&ind, "sm2-encrypt", "encrypt", "gm", 1);
    CHECK(ct[0] == 0x30 && ct_len <= msg_len + 116);
    CHECK_OK(regula_decrypt(dk, REGULA_SM2_CIPHERTEXT_ASN1, ct, ct_len, pt, sizeof pt, &pt_len, NULL));
    CHECK(pt_len == msg_len);
    CHECK_MEM(pt, msg, msg_len);
    CHECK_OK(regula_encrypt_to_public_key(gm, "sm2-encrypt", (const uint8_t *)SM2_PUB, strlen(SM2_PUB),
                                          REGULA_SM2_CIPHERTEXT_C1C3C2, msg, msg_len, ct, sizeof ct, &ct_len, NULL));
    CHECK(ct_len == msg_len + 97 && ct[0] == 0x04);
    CHECK_OK(regula_decrypt(dk, REGULA_SM2_CIPHERTEXT_C1C3C2, ct, ct_len, pt, sizeof pt, &pt_len, NULL));
    CHECK(pt_len == msg_len);
    CHECK_MEM(pt, msg, msg_len);
    CHECK_RC(regula_encrypt_to_public_key(gm, "sm2-encrypt", (const uint8_t *)SM2_PUB, strlen(SM2_PUB),
                                          REGULA_SM2_CIPHERTEXT_C1C3C2, msg, msg_len, ct, 8, &ct_len, NULL),
             REGULA_ERR_BUFFER_TOO_SMALL);
    CHECK(ct_len == msg_len + 97 && all_zero(ct, 8));
    CHECK_RC(regula_encrypt_to_public_key(gm, "sm2-encrypt", (const uint8_t *)SM2_PUB, strlen(SM2_PUB),
                                          REGULA_SM2_CIPHERTEXT_ASN1, NULL, 0, ct, sizeof ct, &ct_len, NULL),
             REGULA_ERR_INVALID_INPUT);
    regula_decryption_key_free(dk);

    /* A generated key: round trip through its exported DER public key. */
    CHECK_OK(regula_decryption_key_generate(gm, "sm2-encrypt", &dk, &ind));
    check_indicator(&ind, "sm2-encrypt", "key-generation", "gm", 1);
    CHECK_OK(regula_decryption_key_public_der(dk, der, sizeof der, &der_len));
    CHECK(der_len == 91);
    CHECK_RC(regula_decryption_key_public_der(dk, der, 10, &der_len), REGULA_ERR_BUFFER_TOO_SMALL);
    CHECK(der_len == 91);
    CHECK_OK(regula_decryption_key_public_der(dk, der, sizeof der, &der_len));
    CHECK_OK(regula_encrypt_to_public_key(gm, "sm2-encrypt", der, der_len, REGULA_SM2_CIPHERTEXT_ASN1, msg, msg_len,
                                          ct, sizeof ct, &ct_len, NULL));
    CHECK_OK(regula_decrypt(dk, REGULA_SM2_CIPHERTEXT_ASN1, ct, ct_len, pt, sizeof pt, &pt_len, &ind));
    check_indicator(&ind, "sm2-encrypt", "decrypt", "gm", 1);
    CHECK(pt_len == msg_len);
    CHECK_MEM(pt, msg, msg_len);
    ct[ct_len / 2] ^= 0x80;
    CHECK_RC(regula_decrypt(dk, REGULA_SM2_CIPHERTEXT_ASN1, ct, ct_len, pt, sizeof pt, &pt_len, NULL),
             REGULA_ERR_CRYPTO);
    regula_decryption_key_free(dk);
    regula_decryption_key_free(NULL);

    /* Not approved under fips-140-3; only sm2-encrypt is a public-key encryption; NULL checks. */
    dk = (regula_decryption_key *)0x1;
    CHECK_RC(regula_decryption_key_generate(fips, "sm2-encrypt", &dk, NULL), REGULA_ERR_NOT_APPROVED);
    CHECK(dk == NULL);
    CHECK_RC(regula_decryption_key_import(fips, "sm2-encrypt", (const uint8_t *)SM2_KEY, strlen(SM2_KEY), &dk, NULL),
             REGULA_ERR_NOT_APPROVED);
    CHECK_RC(regula_encrypt_to_public_key(fips, "sm2-encrypt", (const uint8_t *)SM2_PUB, strlen(SM2_PUB),
                                          REGULA_SM2_CIPHERTEXT_ASN1, msg, msg_len, ct, sizeof ct, &ct_len, NULL),
             REGULA_ERR_NOT_APPROVED);
    CHECK_RC(regula_decryption_key_generate(def, "sm2-sign", &dk, NULL), REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_decryption_key_import(gm, "sm2-encrypt", (const uint8_t *)P256_KEY, strlen(P256_KEY), &dk, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_decryption_key_generate(gm, "sm2-encrypt", NULL, NULL), REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_decrypt(NULL, REGULA_SM2_CIPHERTEXT_ASN1, oct, oct_len, pt, sizeof pt, &pt_len, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_decryption_key_public_der(NULL, der, sizeof der, &der_len), REGULA_ERR_INVALID_INPUT);
}

/* ------------------------------------------------------------------------------------------ */

static void test_agreement_kem(regula_module *def, regula_module *fips) {
    /* RFC 7748 §6.1: X25519 between Alice's private key and Bob's public key. */
    unsigned char alice[32], bob_pub[32], alice_pub[32], want[32], out[1600], out2[1600];
    size_t out_len, out2_len;
    regula_indicator ind;
    unhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a", alice, 32);
    unhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f", bob_pub, 32);
    unhex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a", alice_pub, 32);
    unhex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742", want, 32);
    regula_agreement_key *ak = NULL, *bk = NULL;
    CHECK_OK(regula_agreement_key_import(def, "x25519", alice, 32, &ak, &ind));
    check_indicator(&ind, "x25519", "key-import", "default", 1);
    CHECK_OK(regula_agreement_public_key(ak, out, sizeof out, &out_len));
    CHECK(out_len == 32);
    CHECK_MEM(out, alice_pub, 32);
    CHECK_OK(regula_agree(ak, bob_pub, 32, out, sizeof out, &out_len, &ind));
    CHECK(out_len == 32);
    CHECK_MEM(out, want, 32);
    check_indicator(&ind, "x25519", "key-agreement", "default", 1);
    CHECK_RC(regula_agree(ak, bob_pub, 31, out, sizeof out, &out_len, NULL), REGULA_ERR_INVALID_INPUT);
    regula_agreement_key_free(ak);

    /* ECDH P-256: two generated keys agree. */
    CHECK_OK(regula_agreement_key_generate(fips, "ecdh-p256", &ak, NULL));
    CHECK_OK(regula_agreement_key_generate(fips, "ecdh-p256", &bk, &ind));
    check_indicator(&ind, "ecdh-p256", "key-generation", "fips-140-3", 1);
    unsigned char apub[133], bpub[133];
    size_t apub_len, bpub_len;
    CHECK_OK(regula_agreement_public_key(ak, apub, sizeof apub, &apub_len));
    CHECK_OK(regula_agreement_public_key(bk, bpub, sizeof bpub, &bpub_len));
    CHECK(apub_len == 65 && apub[0] == 0x04);
    CHECK_OK(regula_agree(ak, bpub, bpub_len, out, sizeof out, &out_len, NULL));
    CHECK_OK(regula_agree(bk, apub, apub_len, out2, sizeof out2, &out2_len, NULL));
    CHECK(out_len == 32 && out2_len == 32);
    CHECK_MEM(out, out2, 32);
    bpub[40] ^= 1; /* no longer on the curve */
    CHECK_RC(regula_agree(ak, bpub, bpub_len, out, sizeof out, &out_len, NULL), REGULA_ERR_INVALID_INPUT);
    regula_agreement_key_free(ak);
    regula_agreement_key_free(bk);
    CHECK_RC(regula_agreement_key_generate(fips, "x25519", &ak, NULL), REGULA_ERR_NOT_APPROVED);

    /* ML-KEM-768 (FIPS 203): the encapsulated and decapsulated secrets agree. */
    regula_kem_key *kk = NULL;
    CHECK_OK(regula_kem_key_generate(fips, "ml-kem-768", &kk, &ind));
    check_indicator(&ind, "ml-kem-768", "key-generation", "fips-140-3", 1);
    unsigned char ek[1600], ct[1600], ss[32], ss2[32];
    size_t ek_len, ct_len, ss_len, ss2_len;
    CHECK_OK(regula_kem_encapsulation_key(kk, ek, sizeof ek, &ek_len));
    CHECK(ek_len == 1184);
    CHECK_OK(regula_kem_encapsulate(fips, "ml-kem-768", ek, ek_len, ct, sizeof ct, &ct_len, ss, sizeof ss, &ss_len, &ind));
    check_indicator(&ind, "ml-kem-768", "encapsulate", "fips-140-3", 1);
    CHECK(ct_len == 1088 && ss_len == 32);
    CHECK_OK(regula_kem_decapsulate(kk, ct, ct_len, ss2, sizeof ss2, &ss2_len, &ind));
    check_indicator(&ind, "ml-kem-768", "decapsulate", "fips-140-3", 1);
    CHECK(ss2_len == 32);
    CHECK_MEM(ss, ss2, 32);
    memset(ss, 0xAA, sizeof ss);
    CHECK_RC(regula_kem_encapsulate(fips, "ml-kem-768", ek, ek_len, ct, 100, &ct_len, ss, sizeof ss, &ss_len, NULL),
             REGULA_ERR_BUFFER_TOO_SMALL);
    CHECK(ct_len == 1088 && all_zero(ss, sizeof ss));
    CHECK_RC(regula_kem_encapsulate(fips, "ml-kem-768", ek, 100, ct, sizeof ct, &ct_len, ss, sizeof ss, &ss_len, NULL),
             REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_kem_decapsulate(kk, ct, 5, ss2, sizeof ss2, &ss2_len, NULL), REGULA_ERR_INVALID_INPUT);
    regula_kem_key_free(kk);
}

/* ------------------------------------------------------------------------------------------ */

/* SP 800-108 KBKDF (SMB 3 key derivation), AES-CCM with a short tag, AES-GMAC. */
static void test_smb3_algorithms(regula_module *def, regula_module *fips) {
    regula_indicator ind;
    /* Microsoft's "Encryption in SMB 3.0: a protocol perspective" sample: SigningKey =
     * KDF(SessionKey, "SMB2AESCMAC\0", "SmbSign\0") with KBKDF counter mode, HMAC-SHA256. */
    unsigned char session_key[16], want[16], key[16];
    unhex("b4546771b515f766a86735532dd6c4f0", session_key, 16);
    unhex("f773cd23c18fd1e08ee510cada7cf852", want, 16);
    CHECK_OK(regula_kbkdf_label_context(fips, "kbkdf-ctr-hmac-sha256", session_key, 16, (const uint8_t *)"SMB2AESCMAC",
                                        12, (const uint8_t *)"SmbSign", 8, key, 16, &ind));
    CHECK_MEM(key, want, 16);
    check_indicator(&ind, "kbkdf-ctr-hmac-sha256", "key-derivation", "fips-140-3", 1);
    /* The same with the fixed input spelled out: label ‖ 0x00 ‖ context ‖ [128]₃₂. */
    static const unsigned char fixed[] = "SMB2AESCMAC\0\0SmbSign\0\0\0\0\x80";
    memset(key, 0, sizeof key);
    CHECK_OK(regula_kbkdf(fips, "kbkdf-ctr-hmac-sha256", session_key, 16, fixed, sizeof fixed - 1, key, 16, NULL));
    CHECK_MEM(key, want, 16);
    CHECK_RC(regula_kbkdf(def, "kbkdf-ctr-hmac-sha256", NULL, 0, fixed, sizeof fixed - 1, key, 16, NULL),
             REGULA_ERR_INVALID_INPUT);

    /* RFC 3610 packet vector #1: AES-128-CCM, 13-byte nonce, 8-byte AAD, 8-byte tag. */
    unsigned char ckey[16], nonce[13], aad[8], pt[23], ct[31], out[64], back[64];
    size_t out_len, back_len;
    for (int i = 0; i < 16; i++) ckey[i] = (unsigned char)(0xc0 + i);
    unhex("00000003020100a0a1a2a3a4a5", nonce, 13);
    for (int i = 0; i < 8; i++) aad[i] = (unsigned char)i;
    for (int i = 0; i < 23; i++) pt[i] = (unsigned char)(8 + i);
    unhex("588c979a61c663d2f066d0c2c0f989806d5f6b61dac38417e8d12cfdf926e0", ct, 31);
    regula_aead_key *k = NULL;
    CHECK_RC(regula_aead_key_new_with_tag_len(def, "aes-128-gcm", ckey, 16, 8, &k), REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_aead_key_new_with_tag_len(def, "aes-128-ccm", ckey, 16, 7, &k), REGULA_ERR_INVALID_INPUT);
    CHECK_OK(regula_aead_key_new_with_tag_len(def, "aes-128-ccm", ckey, 16, 8, &k));
    CHECK(regula_aead_tag_len(k) == 8);
    CHECK(regula_aead_tag_len(NULL) == 0);
    CHECK_OK(regula_aead_seal(k, nonce, 13, aad, 8, pt, 23, out, sizeof out, &out_len, &ind));
    CHECK(out_len == 31);
    CHECK_MEM(out, ct, 31);
    check_indicator(&ind, "aes-128-ccm", "encrypt", "default", 1);
    CHECK_OK(regula_aead_open(k, nonce, 13, aad, 8, ct, 31, back, sizeof back, &back_len, NULL));
    CHECK(back_len == 23);
    CHECK_MEM(back, pt, 23);
    unsigned char frag[23], tag[8];
    memcpy(frag, pt, 23);
    regula_iovec iov[2] = {{frag, 10}, {frag + 10, 13}};
    regula_iovec aad_iov = {aad, 8};
    CHECK_OK(regula_aead_sealv(k, nonce, 13, &aad_iov, 1, iov, 2, tag, 8, NULL));
    CHECK_MEM(frag, ct, 23);
    CHECK_MEM(tag, ct + 23, 8);
    CHECK_RC(regula_aead_sealv(k, nonce, 13, &aad_iov, 1, iov, 2, tag, 16, NULL), REGULA_ERR_INVALID_INPUT);
    ct[30] ^= 1;
    CHECK_RC(regula_aead_open(k, nonce, 13, aad, 8, ct, 31, back, sizeof back, &back_len, NULL), REGULA_ERR_CRYPTO);
    CHECK(all_zero(back, 23));
    CHECK_RC(regula_aead_seal(k, nonce, 6, aad, 8, pt, 23, out, sizeof out, &out_len, NULL), REGULA_ERR_INVALID_INPUT);
    regula_aead_key_free(k);

    /* AES-GMAC: it needs a nonce; signing and verifying over fragments agree; tampering fails. */
    regula_mac_key *mk = NULL;
    unsigned char gtag[16];
    size_t gtag_len;
    /* Under fips-140-3 GMAC is refused: its nonce comes from the caller (IG C.H). */
    CHECK_RC(regula_mac_key_new(fips, "aes-128-gmac", ckey, 16, &mk), REGULA_ERR_NOT_APPROVED);
    CHECK_OK(regula_mac_key_new(def, "aes-128-gmac", ckey, 16, &mk));
    CHECK(regula_mac_sign(mk, pt, 23, gtag, sizeof gtag, &gtag_len, NULL) != REGULA_OK);
    regula_iovec msg[2] = {{pt, 5}, {pt + 5, 18}};
    CHECK_OK(regula_mac_signv_with_nonce(mk, nonce, 12, msg, 2, gtag, sizeof gtag, &gtag_len, &ind));
    CHECK(gtag_len == 16);
    CHECK(str_eq(ind.algorithm, "aes-128-gmac") && str_eq(ind.service, "mac-generate") && str_eq(ind.policy, "default"));
    regula_iovec whole = {pt, 23};
    CHECK_OK(regula_mac_verifyv_with_nonce(mk, nonce, 12, &whole, 1, gtag, gtag_len, NULL));
    gtag[0] ^= 1;
    CHECK_RC(regula_mac_verifyv_with_nonce(mk, nonce, 12, &whole, 1, gtag, gtag_len, NULL), REGULA_ERR_CRYPTO);
    regula_mac_key_free(mk);
}

/* ------------------------------------------------------------------------------------------ */

static void test_scopes_and_boundary(regula_module *def) {
    regula_scope *a = NULL, *b = NULL;
    CHECK_OK(regula_scope_new(def, &a));
    CHECK_OK(regula_scope_new(def, &b));
    CHECK(regula_scope_indicator_state(a) == REGULA_INDICATOR_UNSET);
    unsigned char out[64];
    size_t out_len;
    CHECK_OK(regula_digest(regula_scope_module(a), "sha256", (const uint8_t *)"x", 1, out, sizeof out, &out_len, NULL));
    CHECK(regula_scope_indicator_state(a) == REGULA_INDICATOR_APPROVED);
    CHECK(regula_scope_indicator_state(b) == REGULA_INDICATOR_UNSET);
    /* A non-approved operation makes the scope sticky NOT_APPROVED. */
    CHECK_OK(regula_digest(regula_scope_module(b), "md5", (const uint8_t *)"x", 1, out, sizeof out, &out_len, NULL));
    CHECK_OK(regula_digest(regula_scope_module(b), "sha256", (const uint8_t *)"x", 1, out, sizeof out, &out_len, NULL));
    CHECK(regula_scope_indicator_state(b) == REGULA_INDICATOR_NOT_APPROVED);
    CHECK(regula_scope_indicator_state(a) == REGULA_INDICATOR_APPROVED);
    /* Keys made through a scope record into it, even after the scope's module view is used
     * from elsewhere. */
    regula_mac_key *mk = NULL;
    CHECK_OK(regula_mac_key_new(regula_scope_module(a), "hmac-sha256", (const uint8_t *)"0123456789abcdef", 16, &mk));
    regula_scope_reset(a);
    CHECK(regula_scope_indicator_state(a) == REGULA_INDICATOR_UNSET);
    CHECK_OK(regula_mac_sign(mk, (const uint8_t *)"x", 1, out, sizeof out, &out_len, NULL));
    CHECK(regula_scope_indicator_state(a) == REGULA_INDICATOR_APPROVED);
    regula_scope_free(a);
    /* The key outlives the scope it was made in. */
    CHECK_OK(regula_mac_sign(mk, (const uint8_t *)"x", 1, out, sizeof out, &out_len, NULL));
    regula_mac_key_free(mk);
    regula_scope_free(b);
    regula_scope_free(NULL);
    CHECK(regula_scope_indicator_state(NULL) == -1);
    CHECK(regula_scope_module(NULL) == NULL);
    CHECK_RC(regula_scope_new(NULL, &a), REGULA_ERR_INVALID_INPUT);

    /* A panic inside the library comes back as REGULA_ERR_INTERNAL; the module keeps serving. */
    CHECK_RC(regula_debug_panic(), REGULA_ERR_INTERNAL);
    CHECK(strstr(regula_last_error_message(), "panic") != NULL);
    CHECK_OK(regula_digest(def, "sha256", (const uint8_t *)"abc", 3, out, sizeof out, &out_len, NULL));
    CHECK(regula_module_state(def) == REGULA_STATE_OPERATIONAL);
}

/* ------------------------------------------------------------------------------------------ */

/* The registry's rows: regula_algorithm_count, regula_algorithm_info_at, regula_algorithm_info. */

static int same_str(const char *a, const char *b) { return (a == NULL && b == NULL) || str_eq(a, b); }

static int same_info(const regula_algorithm_row *a, const regula_algorithm_row *b) {
    return same_str(a->name, b->name) && same_str(a->family, b->family) &&
           same_str(a->provider, b->provider) && same_str(a->oid, b->oid) &&
           same_str(a->openssl_name, b->openssl_name) && same_str(a->hash, b->hash) &&
           same_str(a->acvp_algorithm, b->acvp_algorithm) &&
           same_str(a->acvp_revision, b->acvp_revision) && a->key_min == b->key_min &&
           a->key_max == b->key_max && a->nonce_min == b->nonce_min &&
           a->nonce_max == b->nonce_max && a->iv_len == b->iv_len && a->tag_min == b->tag_min &&
           a->tag_max == b->tag_max && a->block_len == b->block_len &&
           a->output_len == b->output_len && a->public_key_len == b->public_key_len &&
           a->signature_max_len == b->signature_max_len &&
           a->ciphertext_len == b->ciphertext_len && a->pkcs11_mechanism == b->pkcs11_mechanism &&
           a->pkcs11_count == b->pkcs11_count;
}

static int all_null_and_zero(const regula_algorithm_row *info) {
    regula_algorithm_row empty;
    memset(&empty, 0, sizeof empty);
    return info->name == NULL && info->family == NULL && info->oid == NULL && same_info(info, &empty);
}

static regula_algorithm_row info_of(const char *name) {
    regula_algorithm_row info;
    memset(&info, 0, sizeof info);
    CHECK_OK(regula_algorithm_info(name, &info));
    return info;
}

static void test_algorithm_info(regula_module *def) {
    size_t count = regula_algorithm_count();
    CHECK(count > 0);
    regula_algorithm_row info, by_name;
    for (size_t i = 0; i < count; i++) {
        memset(&info, 0xA5, sizeof info);
        CHECK_OK(regula_algorithm_info_at(i, &info));
        CHECK(info.name != NULL && info.name[0] != '\0');
        CHECK(info.family != NULL && info.provider != NULL);
        if (info.name == NULL || info.family == NULL) {
            continue;
        }
        /* By name, in any case: the same row, with the same static strings. */
        memset(&by_name, 0, sizeof by_name);
        CHECK_OK(regula_algorithm_info(info.name, &by_name));
        CHECK(same_info(&info, &by_name) && by_name.name == info.name);
        char upper[64];
        size_t n = strlen(info.name);
        CHECK(n < sizeof upper);
        if (n >= sizeof upper) {
            n = sizeof upper - 1;
        }
        for (size_t j = 0; j < n; j++) {
            upper[j] = (char)toupper((unsigned char)info.name[j]);
        }
        upper[n] = '\0';
        memset(&by_name, 0, sizeof by_name);
        CHECK_OK(regula_algorithm_info(upper, &by_name));
        CHECK(by_name.name == info.name);

        CHECK(info.key_min <= info.key_max && info.nonce_min <= info.nonce_max &&
              info.tag_min <= info.tag_max);
        CHECK(info.pkcs11_count > 0 || info.pkcs11_mechanism == 0);
        /* The header's buffer constants hold every row's sizes. */
        if (strcmp(info.family, "digest") == 0) {
            CHECK(info.output_len > 0 && info.output_len <= REGULA_MAX_DIGEST_LEN);
            /* The module's digest is as long as the row says (unless the policy refuses it). */
            unsigned char out[REGULA_MAX_DIGEST_LEN];
            size_t out_len = 0;
            int rc = regula_digest(def, info.name, (const uint8_t *)"abc", 3, out, sizeof out, &out_len, NULL);
            CHECK(rc == REGULA_OK || rc == REGULA_ERR_NOT_APPROVED);
            CHECK(rc != REGULA_OK || out_len == info.output_len);
        } else if (strcmp(info.family, "mac") == 0) {
            CHECK(info.output_len > 0 && info.output_len <= REGULA_MAX_MAC_LEN);
        } else if (strcmp(info.family, "signature") == 0) {
            CHECK(info.signature_max_len <= REGULA_MAX_SIGNATURE_LEN);
        } else if (strcmp(info.family, "aead") == 0) {
            CHECK(info.key_min > 0 && info.tag_max == REGULA_AEAD_TAG_LEN);
            CHECK(info.nonce_min <= REGULA_AEAD_NONCE_LEN && REGULA_AEAD_NONCE_LEN <= info.nonce_max);
        } else if (strcmp(info.family, "cipher") == 0) {
            CHECK(info.key_min > 0 && info.iv_len <= REGULA_CIPHER_IV_LEN);
        }
    }

    /* Failures: typed, with a message, and the out-parameter cleared. */
    memset(&info, 0xA5, sizeof info);
    CHECK_RC(regula_algorithm_info_at(count, &info), REGULA_ERR_INVALID_INPUT);
    CHECK(all_null_and_zero(&info));
    CHECK(strlen(regula_last_error_message()) > 0);
    memset(&info, 0xA5, sizeof info);
    CHECK_RC(regula_algorithm_info("no-such-algorithm", &info), REGULA_ERR_INVALID_INPUT);
    CHECK(all_null_and_zero(&info));
    CHECK(strstr(regula_last_error_message(), "no-such-algorithm") != NULL);
    CHECK_RC(regula_algorithm_info(NULL, &info), REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_algorithm_info("sha256", NULL), REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_algorithm_info_at(0, NULL), REGULA_ERR_INVALID_INPUT);
    CHECK_RC(regula_algorithm_info_at((size_t)-1, &info), REGULA_ERR_INVALID_INPUT);

    /* Known answers from the standards. FIPS 180-4: SHA-256 is 32 bytes over 64-byte blocks;
     * its NIST OID; PKCS#11 3.2 CKM_SHA256 = 0x250; OpenSSL 3 calls it SHA2-256. */
    info = info_of("sha256");
    CHECK(str_eq(info.family, "digest") && str_eq(info.provider, "aws-lc"));
    CHECK(info.output_len == 32 && info.block_len == 64 && info.key_max == 0);
    CHECK(str_eq(info.oid, "2.16.840.1.101.3.4.2.1") && str_eq(info.openssl_name, "SHA2-256"));
    CHECK(info.hash == NULL && info.pkcs11_mechanism == 0x250 && info.pkcs11_count == 1);
    /* SP 800-38D and RFC 5116: AES-128-GCM takes a 16-byte key, a 12-byte nonce, a 16-byte tag;
     * PKCS#11 CKM_AES_GCM = 0x1087. */
    info = info_of("AES-128-GCM");
    CHECK(str_eq(info.name, "aes-128-gcm") && str_eq(info.family, "aead"));
    CHECK(info.key_min == 16 && info.key_max == 16 && info.nonce_min == 12 && info.nonce_max == 12);
    CHECK(info.tag_min == 16 && info.tag_max == 16 && info.block_len == 16 && info.iv_len == 0);
    CHECK(str_eq(info.oid, "2.16.840.1.101.3.4.1.6") && info.pkcs11_mechanism == 0x1087);
    /* SP 800-38C: AES-CCM nonces of 7 to 13 bytes, tags of 4 to 16. */
    info = info_of("aes-128-ccm");
    CHECK(info.nonce_min == 7 && info.nonce_max == 13 && info.tag_min == 4 && info.tag_max == 16);
    /* RFC 2104: HMAC takes a key of any length; built on its hash. */
    info = info_of("hmac-sha256");
    CHECK(info.key_min == 0 && info.key_max == 0 && info.output_len == 32 && str_eq(info.hash, "sha256"));
    /* FIPS 203 Table 3: ML-KEM-768 encapsulation key 1184, ciphertext 1088, shared secret 32. */
    info = info_of("ml-kem-768");
    CHECK(info.public_key_len == 1184 && info.ciphertext_len == 1088 && info.output_len == 32);
    /* FIPS 204 Table 2: ML-DSA-87 public key 2592, signature 4627. */
    info = info_of("ml-dsa-87");
    CHECK(info.public_key_len == 2592 && info.signature_max_len == 4627);
    /* SEC 1: an uncompressed P-256 point is 65 bytes. */
    info = info_of("ecdsa-p256");
    CHECK(info.public_key_len == 65 && str_eq(info.hash, "sha256"));
    /* GB/T 32905: SM3 is 32 bytes over 64-byte blocks (OID from GM/T 0006), served by Regula's
     * own SM code. */
    info = info_of("sm3");
    CHECK(info.output_len == 32 && info.block_len == 64 && str_eq(info.provider, "regula-sm"));
    CHECK(str_eq(info.oid, "1.2.156.10197.1.401"));
}

static const char *or_dash(const char *text) { return text == NULL ? "-" : text; }

/* One tab-separated line per row, in registry order, for scripts/test-c to compare with
 * `regula info --json`. */
static int print_algorithm_table(void) {
    size_t count = regula_algorithm_count();
    for (size_t i = 0; i < count; i++) {
        regula_algorithm_row info;
        if (regula_algorithm_info_at(i, &info) != REGULA_OK) {
            fprintf(stderr, "regula_algorithm_info_at(%zu): %s\n", i, regula_last_error_message());
            return 1;
        }
        printf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", info.name, info.family, info.provider,
               or_dash(info.oid), or_dash(info.openssl_name), or_dash(info.hash),
               or_dash(info.acvp_algorithm), or_dash(info.acvp_revision));
        printf("\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%zu\t%lu\t%zu\n",
               info.key_min, info.key_max, info.nonce_min, info.nonce_max, info.iv_len,
               info.tag_min, info.tag_max, info.block_len, info.output_len, info.public_key_len,
               info.signature_max_len, info.ciphertext_len, (unsigned long)info.pkcs11_mechanism,
               info.pkcs11_count);
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

/* One AEAD key, sealed and opened from several threads at once. */
struct worker {
    const regula_aead_key *key;
    int failures;
};

static void *aead_worker(void *arg) {
    struct worker *w = arg;
    unsigned char msg[256], out[256 + 16], back[256], nonce[12];
    size_t out_len, back_len;
    for (int i = 0; i < 200; i++) {
        memset(msg, i, sizeof msg);
        if (regula_aead_seal_gen_nonce(w->key, nonce, 12, NULL, 0, msg, sizeof msg, out, sizeof out, &out_len, NULL) !=
                REGULA_OK ||
            regula_aead_open(w->key, nonce, 12, NULL, 0, out, out_len, back, sizeof back, &back_len, NULL) != REGULA_OK ||
            memcmp(back, msg, sizeof msg) != 0) {
            w->failures++;
        }
    }
    return NULL;
}

static void test_threads(regula_module *fips) {
    unsigned char key[32] = {1};
    regula_aead_key *k = NULL;
    CHECK_OK(regula_aead_key_new(fips, "aes-256-gcm", key, 32, &k));
    pthread_t threads[4];
    struct worker workers[4];
    for (int i = 0; i < 4; i++) {
        workers[i].key = k;
        workers[i].failures = 0;
        CHECK(pthread_create(&threads[i], NULL, aead_worker, &workers[i]) == 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        CHECK(workers[i].failures == 0);
    }
    regula_aead_key_free(k);
}

/* ------------------------------------------------------------------------------------------ */

/* Every service of a module in its error state is refused. */
static void expect_error_state(regula_module *module, const char *failed) {
    CHECK(regula_module_state(module) == REGULA_STATE_ERROR);
    CHECK(str_eq(regula_module_failed_selftest(module), failed));
    unsigned char out[64], key[32] = {0};
    size_t out_len = 99;
    memset(out, 0xAA, sizeof out);
    CHECK_RC(regula_digest(module, "sha256", (const uint8_t *)"abc", 3, out, sizeof out, &out_len, NULL),
             REGULA_ERR_ERROR_STATE);
    CHECK(out_len == 0 && all_zero(out, sizeof out));
    CHECK(strstr(regula_last_error_message(), failed) != NULL);
    regula_digest_ctx *ctx = NULL;
    CHECK_RC(regula_digest_new(module, "sha256", &ctx), REGULA_ERR_ERROR_STATE);
    regula_aead_key *ak = NULL;
    CHECK_RC(regula_aead_key_new(module, "aes-128-gcm", key, 16, &ak), REGULA_ERR_ERROR_STATE);
    regula_mac_key *mk = NULL;
    CHECK_RC(regula_mac_key_new(module, "hmac-sha256", key, 32, &mk), REGULA_ERR_ERROR_STATE);
    CHECK_RC(regula_random(module, out, 16, NULL), REGULA_ERR_ERROR_STATE);
    CHECK_RC(regula_hkdf(module, "hkdf-sha256", key, 32, NULL, 0, NULL, 0, out, 32, NULL), REGULA_ERR_ERROR_STATE);
    regula_signing_key *sk = NULL;
    CHECK_RC(regula_signing_key_generate(module, "ed25519", 0, &sk, NULL), REGULA_ERR_ERROR_STATE);
    regula_kem_key *kk = NULL;
    CHECK_RC(regula_kem_key_generate(module, "ml-kem-768", &kk, NULL), REGULA_ERR_ERROR_STATE);
    regula_decryption_key *dk = NULL;
    CHECK_RC(regula_decryption_key_generate(module, "sm2-encrypt", &dk, NULL), REGULA_ERR_ERROR_STATE);
    CHECK_RC(regula_encrypt_to_public_key(module, "sm2-encrypt", (const uint8_t *)SM2_PUB, strlen(SM2_PUB),
                                          REGULA_SM2_CIPHERTEXT_ASN1, (const uint8_t *)"abc", 3, out, sizeof out,
                                          &out_len, NULL),
             REGULA_ERR_ERROR_STATE);
    regula_info info;
    CHECK_OK(regula_module_info(module, &info)); /* information stays available */
}

static int run_error_state(const char *name) {
    const char *env = getenv("REGULA_BREAK_SELFTEST");
    CHECK(env != NULL && strcmp(env, name) == 0);
    regula_module *module = NULL;
    CHECK_RC(regula_module_load("default", &module), REGULA_ERR_ERROR_STATE);
    CHECK(module != NULL);
    if (module != NULL) {
        expect_error_state(module, name);
    }
    regula_module_free(module);
    return finish("test_regula error-state");
}

static int run_pct_error(const char *algorithm) {
    const char *env = getenv("REGULA_BREAK_SELFTEST");
    CHECK(env != NULL);
    regula_module *module = load("default");
    /* The power-on tests pass; the consistency test at key generation fails. */
    CHECK(regula_module_state(module) == REGULA_STATE_OPERATIONAL);
    regula_signing_key *sk = (regula_signing_key *)0x1;
    regula_agreement_key *ak = (regula_agreement_key *)0x1;
    regula_kem_key *kk = (regula_kem_key *)0x1;
    regula_decryption_key *dk = (regula_decryption_key *)0x1;
    int rc;
    if (strcmp(algorithm, "sm2-encrypt") == 0 || strncmp(algorithm, "rsa-oaep", 8) == 0) {
        rc = regula_decryption_key_generate(module, algorithm, &dk, NULL);
        CHECK(dk == NULL);
    } else if (strncmp(algorithm, "ml-kem", 6) == 0) {
        rc = regula_kem_key_generate(module, algorithm, &kk, NULL);
        CHECK(kk == NULL);
    } else if (strstr(algorithm, "ecdh") != NULL || strcmp(algorithm, "x25519") == 0) {
        rc = regula_agreement_key_generate(module, algorithm, &ak, NULL);
        CHECK(ak == NULL);
    } else {
        rc = regula_signing_key_generate(module, algorithm, 0, &sk, NULL);
        CHECK(sk == NULL);
    }
    CHECK(rc == REGULA_ERR_ERROR_STATE);
    if (env != NULL) {
        expect_error_state(module, env);
    }
    regula_module_free(module);
    return finish("test_regula pct-error");
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "error-state") == 0) {
        return run_error_state(argv[2]);
    }
    if (argc == 3 && strcmp(argv[1], "pct-error") == 0) {
        return run_pct_error(argv[2]);
    }
    if (argc == 2 && strcmp(argv[1], "algorithm-table") == 0) {
        return print_algorithm_table();
    }
    test_module();
    regula_module *def = load("default");
    regula_module *fips = load("fips-140-3");
    regula_module *gm = load("gm");
    test_digest(def, fips, gm);
    test_mac(def, fips, gm);
    test_aead(def, fips, gm);
    test_cipher(def, gm);
    test_kdf_random(def, fips);
    test_signature(def, fips, gm);
    test_public_key_encryption(def, fips, gm);
    test_agreement_kem(def, fips);
    test_smb3_algorithms(def, fips);
    test_scopes_and_boundary(def);
    test_algorithm_info(def);
    test_threads(fips);
    regula_module_free(def);
    regula_module_free(fips);
    regula_module_free(gm);
    return finish("test_regula");
}
