
/* exp(x*x) without the rounding error of x*x: x = h + l with h*h exact. */
static double ogsp_exp_sq(double x) {
    double h = floor(x * 4096.0) / 4096.0, l = x - h;
    return exp(h * h) * exp(l * (x + h));
}
static double ogsp_erfcx_pos(double x) {   /* x >= 0 */
    if (x < 25.0) return ogsp_exp_sq(x) * erfc(x);
    if (x > 5e7) return 0.56418958354775628695 / x;
    double r = 1.0 / (2.0 * x * x), t = 1.0, s = 1.0;
    for (int k = 1; k <= 10; k++) { t *= -(2 * k - 1) * r; s += t; }
    return 0.56418958354775628695 / x * s;
}
static double ogsp_erfcx(double x) {
    if (x != x) return x;
    if (x >= 0) return ogsp_erfcx_pos(x);
    if (x < -26.7) return HUGE_VAL;
    return 2.0 * ogsp_exp_sq(-x) - ogsp_erfcx_pos(-x);
}
