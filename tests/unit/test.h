/*
 * test.h - a small unit-test runner.  A test is a function registered with
 * TEST(name); CHECK records a failure and goes on; the runner prints one line
 * per failing check, then `N passed, N failed, N skipped` over tests.
 * Adding a test file needs no table edit: TEST registers itself.
 */
#ifndef GB_TEST_H
#define GB_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct gb_test {
    const char *name;
    void (*fn)(void);
    int slow;      /* TEST_SLOW: run by `gemmbench-tests --slow` (make test-slow) */
    struct gb_test *next;
} gb_test;

void gb_test_register(gb_test *t);
void gb_test_fail(const char *file, int line, const char *expr);
void gb_test_skip(const char *why);

/* SKIP(why): this machine or build cannot run the test; it is counted as
 * skipped, never as passed (checks made before it still count). */
#define SKIP(why)                                                           \
    do {                                                                    \
        gb_test_skip(why);                                                  \
        return;                                                             \
    } while (0)

#define TEST_ENTRY(name, is_slow)                                           \
    static void test_##name(void);                                          \
    static gb_test test_entry_##name = { #name, test_##name, is_slow, NULL }; \
    __attribute__((constructor)) static void test_register_##name(void)     \
    {                                                                       \
        gb_test_register(&test_entry_##name);                               \
    }                                                                       \
    static void test_##name(void)

#define TEST(name) TEST_ENTRY(name, 0)
/* An exhaustive test too long for `make test`: `make test-slow` runs it. */
#define TEST_SLOW(name) TEST_ENTRY(name, 1)

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond))                                                        \
            gb_test_fail(__FILE__, __LINE__, #cond);                        \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                  \
    do {                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                 \
        if (a_ != b_) {                                                     \
            char m_[256];                                                   \
            snprintf(m_, sizeof m_, "%s == %s (%lld != %lld)", #a, #b, a_, b_); \
            gb_test_fail(__FILE__, __LINE__, m_);                           \
        }                                                                   \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                               \
    do {                                                                    \
        double a_ = (a), b_ = (b);                                          \
        if (!(fabs(a_ - b_) <= (tol))) {                                    \
            char m_[256];                                                   \
            snprintf(m_, sizeof m_, "%s ~ %s (%.17g vs %.17g)", #a, #b, a_, b_); \
            gb_test_fail(__FILE__, __LINE__, m_);                           \
        }                                                                   \
    } while (0)

#define CHECK_STR(a, b)                                                     \
    do {                                                                    \
        const char *a_ = (a), *b_ = (b);                                    \
        if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0) {              \
            char m_[512];                                                   \
            snprintf(m_, sizeof m_, "%s == %s (\"%s\" vs \"%s\")", #a, #b,  \
                     a_ ? a_ : "(null)", b_ ? b_ : "(null)");               \
            gb_test_fail(__FILE__, __LINE__, m_);                           \
        }                                                                   \
    } while (0)

#endif
