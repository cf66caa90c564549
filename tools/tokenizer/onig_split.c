/* onig_split.c - the matches of one regular expression in many strings, by Oniguruma (the regex
   engine Hugging Face's Rust tokenizers use, through the onig crate: ONIG_OPTION_NONE, the default
   syntax, UTF-8). The oracle for the Split pre-tokenizer's patterns in tools/tokenizer/splits.js.
   stdin:  u32 pattern length, pattern bytes, then per string: u32 length, bytes (little-endian).
   stdout: per string: u32 match count, then u32 start, u32 end per match (byte offsets).
   Build: cc -O2 onig_split.c -lonig */
#include <oniguruma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int read_u32(uint32_t *v) {
  unsigned char b[4];
  if (fread(b, 1, 4, stdin) != 4) return 0;
  *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
  return 1;
}

static void write_u32(uint32_t v) {
  unsigned char b[4] = { v & 255, v >> 8 & 255, v >> 16 & 255, v >> 24 & 255 };
  fwrite(b, 1, 4, stdout);
}

static uint32_t utf8_len(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

static unsigned char *read_bytes(uint32_t n) {
  unsigned char *p = malloc(n + 1);
  if (!p || fread(p, 1, n, stdin) != n) { fprintf(stderr, "onig_split: short input\n"); exit(2); }
  p[n] = 0;
  return p;
}

int main(void) {
  OnigEncoding enc = ONIG_ENCODING_UTF8;
  onig_initialize(&enc, 1);
  uint32_t n;
  if (!read_u32(&n)) return 2;
  unsigned char *pat = read_bytes(n);
  regex_t *re;
  OnigErrorInfo info;
  int r = onig_new(&re, pat, pat + n, ONIG_OPTION_NONE, ONIG_ENCODING_UTF8, ONIG_SYNTAX_DEFAULT, &info);
  if (r != ONIG_NORMAL) {
    OnigUChar msg[ONIG_MAX_ERROR_MESSAGE_LEN];
    onig_error_code_to_str(msg, r, &info);
    fprintf(stderr, "onig_split: %s\n", msg);
    return 1;
  }
  OnigRegion *region = onig_region_new();
  uint32_t cap = 1024, *out = malloc(cap * sizeof *out);
  while (read_u32(&n)) {
    unsigned char *s = read_bytes(n), *end = s + n;
    uint32_t count = 0, at = 0;
    /* find_iter as the onig crate does it: after an empty match, step one character on. */
    while (at <= n) {
      r = onig_search(re, s, end, s + at, end, region, ONIG_OPTION_NONE);
      if (r < 0) break;
      uint32_t a = (uint32_t)region->beg[0], b = (uint32_t)region->end[0];
      if (count * 2 + 2 > cap) { cap *= 2; out = realloc(out, cap * sizeof *out); }
      out[count * 2] = a;
      out[count * 2 + 1] = b;
      count++;
      if (b == a) {
        if (b >= n) break;
        at = b + utf8_len(s[b]);
      } else {
        at = b;
      }
    }
    write_u32(count);
    for (uint32_t i = 0; i < 2 * count; i++) write_u32(out[i]);
    free(s);
  }
  fflush(stdout);
  onig_region_free(region, 1);
  onig_free(re);
  onig_end();
  return 0;
}
