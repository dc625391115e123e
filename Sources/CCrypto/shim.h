#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
