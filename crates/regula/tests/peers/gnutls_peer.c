/*
 * A GnuTLS peer for tests/differential_legacy_and_smb.rs: the calls Samba makes for SMB3 and
 * NTLM/netlogon, driven by a line protocol so that one process serves a whole test run.
 *
 * Each input line is an operation and its arguments in hex ("-" for empty):
 *   ccm KEY NONCE AAD PLAINTEXT TAGLEN   gnutls_aead_cipher_encrypt, AES-128/256-CCM
 *   gcm KEY NONCE AAD PLAINTEXT          gnutls_aead_cipher_encrypt, AES-128/256-GCM
 *   gmac KEY NONCE DATA                  gnutls_hmac with GNUTLS_MAC_AES_GMAC_128/256
 *   cmac KEY DATA                        gnutls_hmac_fast with GNUTLS_MAC_AES_CMAC_128/256
 *   hmacmd5 KEY DATA                     gnutls_hmac_fast with GNUTLS_MAC_MD5
 *   md5 DATA                             gnutls_hash_fast with GNUTLS_DIG_MD5
 *   xts KEY TWEAK DATA                   gnutls_cipher_encrypt2, GNUTLS_CIPHER_AES_256_XTS
 *   cfb8 KEY IV DATA                     gnutls_cipher_encrypt2, GNUTLS_CIPHER_AES_128/256_CFB8
 *   rc4 KEY DATA                         gnutls_cipher_encrypt2, GNUTLS_CIPHER_ARCFOUR_128
 *   des KEY IV DATA, 3des KEY IV DATA    gnutls_cipher_encrypt2, GNUTLS_CIPHER_(3)DES_CBC
 * and the answer is one line: the output in hex ("-" if empty), or "ERR <message>".
 */
#define _GNU_SOURCE
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	unsigned char *data;
	size_t len;
} buf;

static int unhex(const char *text, buf *out)
{
	size_t n = strlen(text);
	out->data = NULL;
	out->len = 0;
	if (strcmp(text, "-") == 0)
		return 0;
	if (n % 2)
		return -1;
	out->data = malloc(n / 2 + 1);
	if (!out->data)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned int byte;
		if (sscanf(text + 2 * i, "%2x", &byte) != 1)
			return -1;
		out->data[i] = (unsigned char)byte;
	}
	out->len = n / 2;
	return 0;
}

static void print_hex(const unsigned char *data, size_t len)
{
	if (len == 0)
		fputc('-', stdout);
	for (size_t i = 0; i < len; i++)
		printf("%02x", data[i]);
	fputc('\n', stdout);
}

static void fail(const char *what, int code)
{
	printf("ERR %s: %s\n", what, code < 0 ? gnutls_strerror(code) : "bad request");
}

static int aead(gnutls_cipher_algorithm_t alg, buf *key, buf *nonce, buf *aad, buf *pt,
		size_t tag_len)
{
	gnutls_aead_cipher_hd_t hd;
	gnutls_datum_t k = {key->data, (unsigned)key->len};
	size_t out_len = pt->len + tag_len;
	unsigned char *out = malloc(out_len + 1);
	int ret = gnutls_aead_cipher_init(&hd, alg, &k);
	if (ret < 0) {
		free(out);
		return ret;
	}
	ret = gnutls_aead_cipher_encrypt(hd, nonce->data, nonce->len, aad->data, aad->len,
					 tag_len, pt->data, pt->len, out, &out_len);
	gnutls_aead_cipher_deinit(hd);
	if (ret >= 0)
		print_hex(out, out_len);
	free(out);
	return ret;
}

static int cipher(gnutls_cipher_algorithm_t alg, buf *key, buf *iv, buf *data)
{
	gnutls_cipher_hd_t hd;
	gnutls_datum_t k = {key->data, (unsigned)key->len};
	gnutls_datum_t v = {iv->data, (unsigned)iv->len};
	unsigned char *out = malloc(data->len + 1);
	int ret = gnutls_cipher_init(&hd, alg, &k, iv->len ? &v : NULL);
	if (ret < 0) {
		free(out);
		return ret;
	}
	ret = gnutls_cipher_encrypt2(hd, data->data, data->len, out, data->len);
	gnutls_cipher_deinit(hd);
	if (ret >= 0)
		print_hex(out, data->len);
	free(out);
	return ret;
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	if (gnutls_global_init() < 0)
		return 2;
	while (getline(&line, &cap, stdin) > 0) {
		char *fields[8] = {0};
		int count = 0;
		for (char *save = NULL, *tok = strtok_r(line, " \n", &save); tok && count < 8;
		     tok = strtok_r(NULL, " \n", &save))
			fields[count++] = tok;
		if (count == 0)
			continue;
		buf args[4] = {{0}};
		int bad = 0;
		for (int i = 1; i < count && i <= 4; i++)
			bad |= unhex(fields[i], &args[i - 1]);
		const char *op = fields[0];
		int ret = 0;
		if (bad) {
			ret = 1;
		} else if (strcmp(op, "ccm") == 0 && count == 6) {
			ret = aead(args[0].len == 16 ? GNUTLS_CIPHER_AES_128_CCM
						     : GNUTLS_CIPHER_AES_256_CCM,
				   &args[0], &args[1], &args[2], &args[3],
				   (size_t)strtoul(fields[5], NULL, 10));
		} else if (strcmp(op, "gcm") == 0 && count == 5) {
			ret = aead(args[0].len == 16 ? GNUTLS_CIPHER_AES_128_GCM
						     : GNUTLS_CIPHER_AES_256_GCM,
				   &args[0], &args[1], &args[2], &args[3], 16);
		} else if (strcmp(op, "gmac") == 0 && count == 4) {
			gnutls_hmac_hd_t hd;
			unsigned char tag[16];
			ret = gnutls_hmac_init(&hd,
					       args[0].len == 16 ? GNUTLS_MAC_AES_GMAC_128
								 : GNUTLS_MAC_AES_GMAC_256,
					       args[0].data, args[0].len);
			if (ret >= 0) {
				gnutls_hmac_set_nonce(hd, args[1].data, args[1].len);
				ret = gnutls_hmac(hd, args[2].data, args[2].len);
				gnutls_hmac_deinit(hd, tag);
				if (ret >= 0)
					print_hex(tag, sizeof tag);
			}
		} else if (strcmp(op, "cmac") == 0 && count == 3) {
			unsigned char tag[16];
			ret = gnutls_hmac_fast(args[0].len == 16 ? GNUTLS_MAC_AES_CMAC_128
								 : GNUTLS_MAC_AES_CMAC_256,
					       args[0].data, args[0].len, args[1].data,
					       args[1].len, tag);
			if (ret >= 0)
				print_hex(tag, sizeof tag);
		} else if (strcmp(op, "hmacmd5") == 0 && count == 3) {
			unsigned char tag[16];
			ret = gnutls_hmac_fast(GNUTLS_MAC_MD5, args[0].data, args[0].len,
					       args[1].data, args[1].len, tag);
			if (ret >= 0)
				print_hex(tag, sizeof tag);
		} else if (strcmp(op, "md5") == 0 && count == 2) {
			unsigned char digest[16];
			ret = gnutls_hash_fast(GNUTLS_DIG_MD5, args[0].data, args[0].len, digest);
			if (ret >= 0)
				print_hex(digest, sizeof digest);
		} else if (strcmp(op, "xts") == 0 && count == 4) {
			ret = cipher(GNUTLS_CIPHER_AES_256_XTS, &args[0], &args[1], &args[2]);
		} else if (strcmp(op, "cfb8") == 0 && count == 4) {
			ret = cipher(args[0].len == 16 ? GNUTLS_CIPHER_AES_128_CFB8
						       : GNUTLS_CIPHER_AES_256_CFB8,
				     &args[0], &args[1], &args[2]);
		} else if (strcmp(op, "rc4") == 0 && count == 3) {
			buf none = {0};
			ret = cipher(GNUTLS_CIPHER_ARCFOUR_128, &args[0], &none, &args[1]);
		} else if (strcmp(op, "des") == 0 && count == 4) {
			ret = cipher(GNUTLS_CIPHER_DES_CBC, &args[0], &args[1], &args[2]);
		} else if (strcmp(op, "3des") == 0 && count == 4) {
			ret = cipher(GNUTLS_CIPHER_3DES_CBC, &args[0], &args[1], &args[2]);
		} else {
			ret = 1;
		}
		if (ret < 0 || ret == 1)
			fail(op, ret);
		for (int i = 0; i < 4; i++)
			free(args[i].data);
		fflush(stdout);
	}
	free(line);
	gnutls_global_deinit();
	return 0;
}
