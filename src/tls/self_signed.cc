#include "tls/self_signed.h"

#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace stampede::tls {
namespace {

template <auto Free>
struct Deleter {
  template <typename T>
  void operator()(T* p) const {
    Free(p);
  }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO_free>>;
using BnPtr = std::unique_ptr<BIGNUM, Deleter<BN_free>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION_free>>;

constexpr long kValidFrom = -3600;                  // an hour ago: tolerates clock skew
constexpr long kValidFor = 30L * 24 * 3600 + 3600;  // thirty days from now

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(n));
}

bool set_serial(X509* cert) {
  BnPtr serial(BN_new());
  if (!serial || BN_rand(serial.get(), 63, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1) return false;
  return BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert)) != nullptr;
}

bool add_extension(X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  ExtPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
  return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

bool fill_certificate(X509* cert, EVP_PKEY* key) {
  X509_NAME* name = X509_get_subject_name(cert);
  const auto* cn = reinterpret_cast<const unsigned char*>("localhost");
  return X509_set_version(cert, 2) == 1 && set_serial(cert) &&
         X509_gmtime_adj(X509_getm_notBefore(cert), kValidFrom) != nullptr &&
         X509_gmtime_adj(X509_getm_notAfter(cert), kValidFor) != nullptr &&
         X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, cn, -1, -1, 0) == 1 &&
         X509_set_issuer_name(cert, name) == 1 && X509_set_pubkey(cert, key) == 1 &&
         add_extension(cert, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1") &&
         add_extension(cert, NID_basic_constraints, "critical,CA:TRUE") &&
         X509_sign(cert, key, EVP_sha256()) > 0;
}

}  // namespace

Expected<Credentials> make_self_signed() {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return make_error("cannot make a key: " + last_error_text());
  CertPtr cert(X509_new());
  if (!cert || !fill_certificate(cert.get(), key.get())) {
    return make_error("cannot make a certificate: " + last_error_text());
  }
  BioPtr cert_bio(BIO_new(BIO_s_mem()));
  BioPtr key_bio(BIO_new(BIO_s_mem()));
  if (!cert_bio || !key_bio || PEM_write_bio_X509(cert_bio.get(), cert.get()) != 1 ||
      PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) !=
          1) {
    return make_error("cannot write the certificate: " + last_error_text());
  }
  return Credentials{bio_text(cert_bio.get()), bio_text(key_bio.get())};
}

}  // namespace stampede::tls
