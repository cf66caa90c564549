/* harness.h - a tiny test harness: named behaviour tests, checks that report, fixture access
   (the JSON files in tests/fixtures, shared with the Node tests) and float comparison with tolerance. */
#ifndef BL_HARNESS_H
#define BL_HARNESS_H
#include <stdio.h>
#include "blocklens.h"

extern int bl_test_failures;

#define CHECK(cond) do { if (!(cond)) { \
    fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); bl_test_failures++; } \
} while (0)
#define CHECK_STATUS(got, want) do { bl_status g_ = (got); if (g_ != (want)) { \
    fprintf(stderr, "  FAIL %s:%d: status %d (%s), want %d\n", __FILE__, __LINE__, g_, \
            bl_status_string(g_), (int)(want)); bl_test_failures++; } } while (0)

/* Runs fn, prints "ok name" or "FAIL name"; returns nothing (failures are counted). */
void bl_run(const char *name, void (*fn)(void));
int bl_summary(void);            /* prints "N passed, M failed"; exit code for main */

/* Test data from a 32-bit LCG whose state the caller owns (each file keeps its own sequence):
   one value in [-scale, scale), or a malloc'd array of n of them. */
float bl_test_uniform(uint32_t *state, float scale);
float *bl_test_rnd(uint32_t *state, size_t n, float scale);

#ifndef BL_HARNESS_NO_FIXTURES   /* defined for the 32-bit build, which has no 32-bit cJSON */
#include "cJSON.h"

/* The parsed fixture file (cached; aborts the test program if missing: a setup error). */
cJSON *fx_load(const char *file);
cJSON *fx_cases(const char *file);
cJSON *fx_get(const cJSON *obj, const char *key);   /* NULL if absent */
int fx_int(const cJSON *obj, const char *key, int fallback);
double fx_num(const cJSON *obj, const char *key, double fallback);
const char *fx_str(const cJSON *obj, const char *key);
/* A freshly malloc'd float array of the list obj[key] (NULL if absent); *n gets its length. */
float *fx_floats(const cJSON *obj, const char *key, size_t *n);
double *fx_doubles(const cJSON *obj, const char *key, size_t *n);

/* Compares got (n) with obj["expected"][key] under the case's atol / rtol; prints the max
   difference either way; returns 1 when all within tolerance. */
int fx_expect_close(const cJSON *kase, const char *key, const float *got, size_t n);
#endif /* BL_HARNESS_NO_FIXTURES */
#endif
