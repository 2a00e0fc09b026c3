/* Helpers shared by the C tests: checks that count failures, files, base64, strings. */
#ifndef A2A_TEST_COMMON_H
#define A2A_TEST_COMMON_H

#include <a2a_wire.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures;
static int test_checks;

#define S(lit) lit, sizeof(lit) - 1
#define U(lit) (const uint8_t *)lit, sizeof(lit) - 1

static void fail_at(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "FAIL %s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  __atomic_add_fetch(&test_failures, 1, __ATOMIC_RELAXED); /* checks run on several threads */
}

#define CHECK(cond, ...)                                  \
  do {                                                    \
    __atomic_add_fetch(&test_checks, 1, __ATOMIC_RELAXED); \
    if (!(cond)) fail_at(__FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

/* The last error's message, for failure reports. */
static inline const char *last_message(void) {
  static char buf[512];
  a2a_str m = a2a_error_message(a2a_error_last());
  snprintf(buf, sizeof buf, "%.*s", (int)m.len, m.data);
  return buf;
}

#define CHECK_OK(call)                                                                         \
  do {                                                                                         \
    a2a_result r_ = (call);                                                                    \
    __atomic_add_fetch(&test_checks, 1, __ATOMIC_RELAXED);                                      \
    if (r_ != A2A_RESULT_OK) fail_at(__FILE__, __LINE__, "%s -> %s: %s", #call, a2a_result_message(r_), last_message()); \
  } while (0)

#define CHECK_RESULT(call, want)                                                                     \
  do {                                                                                               \
    a2a_result r_ = (call);                                                                          \
    __atomic_add_fetch(&test_checks, 1, __ATOMIC_RELAXED);                                            \
    if (r_ != (want)) fail_at(__FILE__, __LINE__, "%s -> %u (%s), want %s", #call, (unsigned)r_, a2a_result_message(r_), #want); \
  } while (0)

static inline int str_eq(a2a_str s, const char *c) { return s.len == strlen(c) && memcmp(s.data, c, s.len) == 0; }

static inline int str_contains(a2a_str s, const char *needle) {
  size_t n = strlen(needle);
  if (n == 0) return 1;
  for (size_t i = 0; i + n <= s.len; i++)
    if (memcmp(s.data + i, needle, n) == 0) return 1;
  return 0;
}

static inline char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap + 1);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *bigger = realloc(buf, cap * 2 + 1);
      if (!bigger) { free(buf); buf = NULL; break; }
      buf = bigger, cap *= 2;
    }
  }
  fclose(f);
  if (buf) buf[n] = 0, *len = n;
  return buf;
}

/* Standard base64 (with or without padding); returns a malloc'd buffer or NULL. */
static inline uint8_t *base64_decode(const char *in, size_t *out_len) {
  size_t n = strlen(in);
  uint8_t *out = malloc(n / 4 * 3 + 3);
  size_t o = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n && out; i++) {
    char c = in[i];
    int v = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
          : c == '+' || c == '-' ? 62 : c == '/' || c == '_' ? 63 : -1;
    if (c == '=') break;
    if (v < 0) { free(out); return NULL; }
    acc = acc << 6 | (uint32_t)v, bits += 6;
    if (bits >= 8) bits -= 8, out[o++] = (uint8_t)(acc >> bits);
  }
  if (out) *out_len = o;
  return out;
}

#include <sys/wait.h>
#include <unistd.h>

/* Runs `argv` (argv[0] is the program's path) with its standard output in a temporary
 * file, waits for it, and reads that output's JSON result lines (`{...,"ok":...}`): counts
 * them into *rows and the failed ones into *failed, printing those with `label` when `show`.
 * Returns the exit status (-1 when it did not exit normally). */
static inline int run_json_rows(char *const argv[], const char *label, int show, int *rows, int *failed) {
  char out[] = "/tmp/a2a-rows-XXXXXX";
  int fd = mkstemp(out);
  *rows = *failed = 0;
  if (fd < 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd, 1);
    execv(argv[0], argv);
    _exit(127);
  }
  int status = -1;
  if (pid > 0) waitpid(pid, &status, 0);
  close(fd);
  FILE *f = fopen(out, "r");
  char line[8192];
  while (f && fgets(line, sizeof line, f)) {
    if (line[0] != '{') continue;
    (*rows)++;
    if (strstr(line, "\"ok\":false")) {
      (*failed)++;
      if (show) fprintf(stderr, "%s: %s", label, line);
    }
  }
  if (f) fclose(f);
  unlink(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#endif
