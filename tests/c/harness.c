/* harness.c - see harness.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

float bl_test_uniform(uint32_t *state, float scale) {
    *state = *state * 1664525u + 1013904223u;
    return ((float)(*state >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
}

float *bl_test_rnd(uint32_t *state, size_t n, float scale) {
    float *p = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) p[i] = bl_test_uniform(state, scale);
    return p;
}

int bl_test_failures = 0;
static int passed = 0, failed = 0;

void bl_run(const char *name, void (*fn)(void)) {
    int before = bl_test_failures;
    fn();
    if (bl_test_failures == before) { passed++; printf("ok   %s\n", name); }
    else { failed++; printf("FAIL %s\n", name); }
}

int bl_summary(void) {
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#ifndef BL_HARNESS_NO_FIXTURES
#define MAX_FILES 8
static struct { char name[64]; cJSON *root; } cache[MAX_FILES];

cJSON *fx_load(const char *file) {
    for (int i = 0; i < MAX_FILES; i++)
        if (cache[i].root && strcmp(cache[i].name, file) == 0) return cache[i].root;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", BL_FIXTURES, file);
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open fixture %s\n", path); exit(2); }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)len + 1);
    if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) { fprintf(stderr, "read %s\n", path); exit(2); }
    text[len] = '\0';
    fclose(f);
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root) { fprintf(stderr, "fixture %s is not JSON\n", path); exit(2); }
    for (int i = 0; i < MAX_FILES; i++)
        if (!cache[i].root) {
            snprintf(cache[i].name, sizeof cache[i].name, "%s", file);
            cache[i].root = root;
            break;
        }
    return root;
}

cJSON *fx_cases(const char *file) {
    cJSON *c = cJSON_GetObjectItemCaseSensitive(fx_load(file), "cases");
    if (!cJSON_IsArray(c) || cJSON_GetArraySize(c) == 0) {
        fprintf(stderr, "fixture %s has no cases\n", file);
        exit(2);
    }
    return c;
}

cJSON *fx_get(const cJSON *obj, const char *key) {
    return obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

int fx_int(const cJSON *obj, const char *key, int fallback) {
    cJSON *v = fx_get(obj, key);
    if (cJSON_IsBool(v)) return cJSON_IsTrue(v);
    return cJSON_IsNumber(v) ? (int)v->valuedouble : fallback;
}

double fx_num(const cJSON *obj, const char *key, double fallback) {
    cJSON *v = fx_get(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

const char *fx_str(const cJSON *obj, const char *key) {
    cJSON *v = fx_get(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

double *fx_doubles(const cJSON *obj, const char *key, size_t *n) {
    cJSON *arr = fx_get(obj, key);
    if (!cJSON_IsArray(arr)) { if (n) *n = 0; return NULL; }
    size_t len = (size_t)cJSON_GetArraySize(arr), i = 0;
    double *out = malloc((len ? len : 1) * sizeof *out);
    cJSON *it;
    cJSON_ArrayForEach(it, arr) out[i++] = it->valuedouble;
    if (n) *n = len;
    return out;
}

float *fx_floats(const cJSON *obj, const char *key, size_t *n) {
    size_t len;
    double *d = fx_doubles(obj, key, &len);
    if (!d) { if (n) *n = 0; return NULL; }
    float *out = malloc((len ? len : 1) * sizeof *out);
    for (size_t i = 0; i < len; i++) out[i] = (float)d[i];
    free(d);
    if (n) *n = len;
    return out;
}

int fx_expect_close(const cJSON *kase, const char *key, const float *got, size_t n) {
    size_t len;
    double *want = fx_doubles(fx_get(kase, "expected"), key, &len);
    const char *name = fx_str(kase, "name");
    if (!want) { fprintf(stderr, "  FAIL %s: no expected.%s\n", name, key); bl_test_failures++; return 0; }
    if (len != n) {
        fprintf(stderr, "  FAIL %s.%s: %zu values, want %zu\n", name, key, n, len);
        bl_test_failures++;
        free(want);
        return 0;
    }
    double atol = fx_num(kase, "atol", 0), rtol = fx_num(kase, "rtol", 0), maxdiff = 0;
    size_t bad = 0, worst = 0;
    for (size_t i = 0; i < n; i++) {
        double diff = fabs((double)got[i] - want[i]);
        if (!(diff <= atol + rtol * fabs(want[i]))) { if (!bad) worst = i; bad++; }
        if (diff > maxdiff || isnan(diff)) maxdiff = diff;
    }
    if (bad) {
        fprintf(stderr, "  FAIL %s.%s: %zu of %zu outside atol %g rtol %g (max diff %.3g; first at %zu: got %.9g want %.9g)\n",
                name, key, bad, n, atol, rtol, maxdiff, worst, got[worst], want[worst]);
        bl_test_failures++;
    } else {
        printf("     %s.%s: max diff %.3g (atol %g, rtol %g)\n", name, key, maxdiff, atol, rtol);
    }
    free(want);
    return bad == 0;
}
#endif /* BL_HARNESS_NO_FIXTURES */
