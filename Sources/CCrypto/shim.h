#ifndef LEAKHISTORY_CCRYPTO_SHIM_H
#define LEAKHISTORY_CCRYPTO_SHIM_H
#include <openssl/sha.h>
#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#endif
