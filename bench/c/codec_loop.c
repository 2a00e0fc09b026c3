/* Decode + validate + encode of one message in a loop through the C API, timed: the C side
 * of the boundary benchmark (bench/c/run.py runs it interleaved with codec-loop).
 *
 *   codec_loop WIRE_FILE ITERATIONS [into|alloc]   # prints {"ns_per_op": ...}
 */
#define _POSIX_C_SOURCE 199309L
#include <a2a_wire.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: %s WIRE_FILE ITERATIONS [into|alloc]\n", argv[0]), 2;
  FILE *f = fopen(argv[1], "rb");
  if (!f) return perror(argv[1]), 2;
  static uint8_t wire[1 << 20], out[1 << 21];
  size_t len = fread(wire, 1, sizeof wire, f);
  fclose(f);
  long n = atol(argv[2]);
  int alloc = argc > 3 && strcmp(argv[3], "alloc") == 0;
  static const char type[] = "lf.a2a.v1.Task";
  size_t out_len = 0;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (long i = 0; i < n; i++) {
    a2a_result r;
    if (alloc) {
      a2a_bytes *bytes = NULL;
      r = a2a_transcode(type, sizeof type - 1, A2A_FORMAT_JSON, A2A_FORMAT_JSON, wire, len, &bytes);
      out_len = a2a_bytes_len(bytes);
      a2a_bytes_free(bytes);
    } else {
      r = a2a_transcode_into(type, sizeof type - 1, A2A_FORMAT_JSON, A2A_FORMAT_JSON, wire, len, out, sizeof out, &out_len);
    }
    if (r != A2A_RESULT_OK) return fprintf(stderr, "transcode: %s\n", a2a_result_message(r)), 1;
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n;
  printf("{\"impl\":\"c-%s\",\"ns_per_op\":%.1f,\"bytes_out\":%zu}\n", alloc ? "alloc" : "into", ns, out_len);
  return 0;
}
