
static const double ogsp_b2j_over_fact[@NBERN@] = {@BERNOULLI@};
/* Hurwitz zeta(s, q) for integer s >= 2 (Euler-Maclaurin). */
static double ogsp_hurwitz(double s, double q) {
    if (q != q) return q;
    if (q <= 0.0 && q == floor(q)) return HUGE_VAL;
    if (q == HUGE_VAL) return 0.0;
    double sum = 0.0, a = q, term;
    int k = 0;
    while (k < 9 || a <= 9.0) {
        term = pow(a, -s);
        sum += term;
        a += 1.0; k++;
        if (a > 9.0 && fabs(term) <= 1e-17 * fabs(sum)) return sum;
        if (k > 100000) break;
    }
    double w = pow(a, -s);
    sum += a * w / (s - 1.0) + 0.5 * w;             /* integral and half term */
    double fac = s, pw = w / a;                     /* s (s+1)... ; a^(-s-2j+1) */
    for (int j = 0; j < @NBERN@; j++) {
        term = ogsp_b2j_over_fact[j] * fac * pw;
        sum += term;
        if (fabs(term) <= 1e-17 * fabs(sum)) break;
        fac *= (s + 2 * j + 1) * (s + 2 * j + 2);
        pw /= a * a;
    }
    return sum;
}
static double ogsp_polygamma(double n, double x) {
    if (n != n || x != x) return NAN;
    if (n < 0 || n != floor(n)) return NAN;
    if (n == 0) return ogsp_digamma(x);
    double sign = fmod(n, 2.0) == 0.0 ? -1.0 : 1.0;  /* (-1)^(n+1) */
    return sign * exp(lgamma(n + 1.0)) * ogsp_hurwitz(n + 1.0, x);
}
