
/* Clenshaw's sum of c[0..n) Chebyshev terms at t in [-1, 1]. */
static double ogsp_cheb(const double *c, int n, double t) {
    double b0 = 0.0, b1 = 0.0, b2;
    for (int k = n - 1; k >= 1; k--) { b2 = b1; b1 = b0; b0 = 2.0 * t * b1 - b2 + c[k]; }
    return t * b0 - b1 + c[0];
}
static double ogsp_i0(double x) {
    if (x != x) return x;
    x = fabs(x);
    if (x <= 8.0) return exp(x) * ogsp_cheb(ogsp_i0_near, @N_I0_NEAR@, x / 4.0 - 1.0);
    return exp(x) * (ogsp_cheb(ogsp_i0_far, @N_I0_FAR@, 16.0 / x - 1.0) / sqrt(x));
}
static double ogsp_i1(double x) {
    if (x != x) return x;
    double a = fabs(x), r;
    if (a <= 8.0) r = x * exp(a) * ogsp_cheb(ogsp_i1_near, @N_I1_NEAR@, a / 4.0 - 1.0);
    else r = copysign(exp(a) * (ogsp_cheb(ogsp_i1_far, @N_I1_FAR@, 16.0 / a - 1.0)
                                / sqrt(a)), x);
    return r;
}
