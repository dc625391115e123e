// The declarations TrainKit calls from CommonCrypto, with the types, constants and
// signatures of Apple's CommonDigest.h, CommonHMAC.h, CommonKeyDerivation.h and
// CommonCryptoError.h, implemented over libcrypto. Only SHA-256 is implemented: any
// other algorithm fails, so a wrong constant in the calling code fails the tests.
#ifndef TRAINKIT_COMMONCRYPTO_STAND_IN_H
#define TRAINKIT_COMMONCRYPTO_STAND_IN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

// CommonCryptoError.h
enum {
    kCCSuccess = 0,
    kCCParamError = -4300,
    kCCBufferTooSmall = -4301,
    kCCMemoryFailure = -4302,
    kCCAlignmentError = -4303,
    kCCDecodeError = -4304,
    kCCUnimplemented = -4305,
    kCCOverflow = -4306,
    kCCRNGFailure = -4307,
    kCCUnspecifiedError = -4308,
    kCCCallSequenceError = -4309,
    kCCKeySizeError = -4310,
    kCCInvalidKey = -4311,
};
typedef int32_t CCStatus;
typedef int32_t CCCryptorStatus;

// CommonDigest.h
typedef uint32_t CC_LONG;
#define CC_SHA256_DIGEST_LENGTH 32
#define CC_SHA256_BLOCK_BYTES 64
typedef struct CC_SHA256state_st {
    CC_LONG count[2];
    CC_LONG hash[8];
    CC_LONG wbuf[16];
} CC_SHA256_CTX;

// What the stand-in saw, for the tests of the calling code's chunking: the largest
// length one CC_SHA256_Update was given, and how many calls there were. Weak, so every
// module that includes this header shares one of each; not part of Apple's API.
__attribute__((weak)) uint64_t TrainKitStandInLargestUpdate = 0;
__attribute__((weak)) uint64_t TrainKitStandInUpdateCount = 0;

static inline uint64_t TrainKitStandInLargestSHA256Update(void) { return TrainKitStandInLargestUpdate; }
static inline uint64_t TrainKitStandInSHA256UpdateCount(void) { return TrainKitStandInUpdateCount; }
static inline void TrainKitStandInResetSHA256Counts(void) {
    TrainKitStandInLargestUpdate = 0;
    TrainKitStandInUpdateCount = 0;
}

// The libcrypto context lives in the first bytes of the context's buffer.
static inline EVP_MD_CTX *TrainKitStandInContext(CC_SHA256_CTX *c) {
    EVP_MD_CTX *context;
    memcpy(&context, c->wbuf, sizeof context);
    return context;
}

static inline int CC_SHA256_Init(CC_SHA256_CTX *c) {
    memset(c, 0, sizeof *c);
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL || EVP_DigestInit_ex(context, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(context);
        return 0;
    }
    memcpy(c->wbuf, &context, sizeof context);
    return 1;
}

static inline int CC_SHA256_Update(CC_SHA256_CTX *c, const void *data, CC_LONG len) {
    TrainKitStandInUpdateCount += 1;
    if (len > TrainKitStandInLargestUpdate) TrainKitStandInLargestUpdate = len;
    EVP_MD_CTX *context = TrainKitStandInContext(c);
    return context != NULL && EVP_DigestUpdate(context, data, len) == 1;
}

static inline int CC_SHA256_Final(unsigned char *md, CC_SHA256_CTX *c) {
    EVP_MD_CTX *context = TrainKitStandInContext(c);
    int succeeded = context != NULL && EVP_DigestFinal_ex(context, md, NULL) == 1;
    EVP_MD_CTX_free(context);
    memset(c, 0, sizeof *c);
    return succeeded;
}

// CommonHMAC.h
enum {
    kCCHmacAlgSHA1,
    kCCHmacAlgMD5,
    kCCHmacAlgSHA256,
    kCCHmacAlgSHA384,
    kCCHmacAlgSHA512,
    kCCHmacAlgSHA224
};
typedef uint32_t CCHmacAlgorithm;

static inline void CCHmac(CCHmacAlgorithm algorithm, const void *key, size_t keyLength, const void *data, size_t dataLength,
                          void *macOut) {
    if (algorithm != kCCHmacAlgSHA256 || keyLength > INT32_MAX ||
        HMAC(EVP_sha256(), key, (int)keyLength, data, dataLength, macOut, NULL) == NULL) {
        // CCHmac reports nothing: a wrong algorithm leaves a code no vector matches.
        memset(macOut, 0, CC_SHA256_DIGEST_LENGTH);
    }
}

// CommonKeyDerivation.h
enum {
    kCCPBKDF2 = 2,
};
typedef uint32_t CCPBKDFAlgorithm;

enum {
    kCCPRFHmacAlgSHA1 = 1,
    kCCPRFHmacAlgSHA224 = 2,
    kCCPRFHmacAlgSHA256 = 3,
    kCCPRFHmacAlgSHA384 = 4,
    kCCPRFHmacAlgSHA512 = 5,
};
typedef uint32_t CCPseudoRandomAlgorithm;

static inline int CCKeyDerivationPBKDF(CCPBKDFAlgorithm algorithm, const char *password, size_t passwordLen, const uint8_t *salt,
                                       size_t saltLen, CCPseudoRandomAlgorithm prf, unsigned rounds, uint8_t *derivedKey,
                                       size_t derivedKeyLen) {
    if (algorithm != kCCPBKDF2 || prf != kCCPRFHmacAlgSHA256 || rounds == 0 || rounds > INT32_MAX || passwordLen > INT32_MAX ||
        saltLen > INT32_MAX || derivedKeyLen == 0 || derivedKeyLen > INT32_MAX) {
        return kCCParamError;
    }
    int done = PKCS5_PBKDF2_HMAC(password, (int)passwordLen, salt, (int)saltLen, (int)rounds, EVP_sha256(), (int)derivedKeyLen,
                                 derivedKey);
    return done == 1 ? kCCSuccess : kCCParamError;
}

#endif
