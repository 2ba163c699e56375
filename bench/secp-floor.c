/* The libsecp256k1 floor of bench/exchange-scale.mjs: every signature of FILE (97 bytes a row: digest,
 * r ‖ s, recovery id) recovered to its uncompressed key, as chaingw does, and the process CPU it took.
 * Build: cc -O2 -o secp-floor bench/secp-floor.c -lsecp256k1 (Debian: libsecp256k1-dev). */
#include <secp256k1.h>
#include <secp256k1_recovery.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "rb");
  if (!f) return 2;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc(size);
  if (fread(b, 1, size, f) != (size_t)size) return 2;
  size_t n = size / 97, ok = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  secp256k1_context *ctx = secp256k1_context_create(SECP256K1_CONTEXT_VERIFY);
  for (size_t i = 0; i < n; i++) {
    secp256k1_ecdsa_recoverable_signature sig;
    secp256k1_pubkey pk;
    unsigned char out[65];
    size_t len = 65;
    if (!secp256k1_ecdsa_recoverable_signature_parse_compact(ctx, &sig, b + i * 97 + 32, b[i * 97 + 96])) continue;
    if (!secp256k1_ecdsa_recover(ctx, &pk, &sig, b + i * 97)) continue;
    secp256k1_ec_pubkey_serialize(ctx, out, &len, &pk, SECP256K1_EC_UNCOMPRESSED);
    ok++;
  }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  printf("{\"recovered\":%zu,\"cpu_ms\":%.3f}\n", ok, (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
  return ok == n ? 0 : 1;
}
