/* The two-sided Mann-Whitney U test of diff (docs/formats/xray.md, "diff").
 *
 * Small samples without ties: the exact distribution of U, whose
 * frequencies are the coefficients of the Gaussian binomial coefficient
 * [n1 + n2 choose n1]_q (built by multiplying (1 - q^(n2+i)) / (1 - q^i)
 * for i = 1..n1); p = 2 min(P(U <= u), P(U >= u)), capped at 1. Otherwise
 * the normal approximation: mean n1 n2 / 2, variance
 * n1 n2 / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))) with the tie groups
 * t, and a continuity correction of 1/2 (scipy.stats.mannwhitneyu's
 * defaults, method "asymptotic"). */
#include <math.h>
#include <stdlib.h>

#include <tracekit/xray_diff.h>

#define EXACT_MAX 400 /* n1 n2: the polynomial has n1 n2 + 1 terms */

static double exact_p(double u, uint64_t n1, uint64_t n2)
{
    size_t m = (size_t)(n1 < n2 ? n1 : n2), n = (size_t)(n1 < n2 ? n2 : n1);
    size_t size = m * n + m + n + 2;
    double *c = calloc(size, sizeof *c);
    if (!c)
        return -1; /* the caller falls back to the approximation */
    c[0] = 1;
    size_t deg = 0;
    for (size_t i = 1; i <= m; i++) {
        size_t s = n + i;
        for (size_t k = deg + s; k >= s; k--) /* times (1 - q^s) */
            c[k] -= c[k - s];
        deg += s;
        for (size_t k = i; k <= deg; k++) /* over (1 - q^i) */
            c[k] += c[k - i];
        deg -= i;
    }
    double total = 0, le = 0, ge = 0;
    for (size_t k = 0; k <= deg; k++) {
        total += c[k];
        if ((double)k <= u + 1e-9)
            le += c[k];
        if ((double)k >= u - 1e-9)
            ge += c[k];
    }
    free(c);
    double p = 2 * (le < ge ? le : ge) / total;
    return p > 1 ? 1 : p;
}

double tk_xray_diff_mwu_p(double u, uint64_t n1, uint64_t n2, double ties, double *z,
                          int *exact)
{
    *z = 0;
    *exact = 0;
    if (!n1 || !n2)
        return 1;
    double a = (double)n1, b = (double)n2, nn = a + b;
    if (ties == 0 && a * b <= EXACT_MAX) {
        double p = exact_p(u, n1, n2);
        if (p >= 0) {
            *exact = 1;
            return p;
        }
    }
    double var = a * b / 12 * ((nn + 1) - ties / (nn * (nn - 1)));
    if (!(var > 0))
        return 1; /* every value equal */
    double dev = u - a * b / 2, c = fabs(dev) - 0.5;
    if (c < 0)
        c = 0;
    *z = copysign(c / sqrt(var), dev);
    double p = erfc(c / sqrt(var) / sqrt(2.0));
    return p > 1 ? 1 : p;
}
