/* Small double matrices: the Cholesky factor and triangular solves as plain loops that read
   their inputs through the inputs' strides, before c/lapack.h.

   Up to OGLA_SMALL_MAX rows LAPACK's calls, the copies into Fortran order and the finiteness
   checks cost more than the arithmetic (a 30 x 30 GP kernel's factor and two one-column
   solves, about 5,400 multiply-adds, took some 3.5 us that way).  The loops are the unblocked ones LAPACK
   runs at these sizes (potf2, trsv), so the results agree to rounding; errors are LAPACK's
   (the first leading minor that is not positive definite, the first zero on the diagonal). */

#define OGLA_SMALL_MAX 64
#define OGLA_EXP_BITS 0x7ff0000000000000ULL

/* 1 when a (2-d) is an aligned native double matrix of at most OGLA_SMALL_MAX rows. */
static int ogla_small_ok(PyArrayObject *a) {
    return PyArray_NDIM(a) == 2 && PyArray_TYPE(a) == NPY_DOUBLE && PyArray_ISALIGNED(a)
           && PyArray_ISNOTSWAPPED(a) && PyArray_DIMS(a)[0] <= OGLA_SMALL_MAX;
}

/* 1 when every element of the strided rows x cols double matrix is finite (inf and NaN have
   every exponent bit set; the test ORs into one flag with no early exit, so it vectorises). */
static int ogla_finite_2d(const char *b, npy_intp s0, npy_intp s1, npy_intp rows,
                          npy_intp cols) {
    uint64_t bad = 0;
    for (npy_intp i = 0; i < rows; i++) {
        const char *row = b + i * s0;
        if (s1 == (npy_intp)sizeof(double)) {
            const uint64_t *p = (const uint64_t *)row;
            for (npy_intp j = 0; j < cols; j++) bad |= (p[j] & OGLA_EXP_BITS) == OGLA_EXP_BITS;
        } else {
            for (npy_intp j = 0; j < cols; j++) {
                uint64_t u;
                memcpy(&u, row + j * s1, sizeof u);
                bad |= (u & OGLA_EXP_BITS) == OGLA_EXP_BITS;
            }
        }
    }
    return !bad;
}

/* The same for a 1-d or 2-d aligned double array. */
static int ogla_finite_any(PyArrayObject *a) {
    npy_intp *d = PyArray_DIMS(a), *s = PyArray_STRIDES(a);
    if (PyArray_NDIM(a) == 1) return ogla_finite_2d(PyArray_BYTES(a), 0, s[0], 1, d[0]);
    return ogla_finite_2d(PyArray_BYTES(a), s[0], s[1], d[0], d[1]);
}

/* x . y over n contiguous doubles, four partial sums (they pipeline; gcc may pair them). */
static inline double ogla_dot(const double *x, const double *y, npy_intp n) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    npy_intp k = 0;
    for (; k + 4 <= n; k += 4) {
        s0 += x[k] * y[k];
        s1 += x[k + 1] * y[k + 1];
        s2 += x[k + 2] * y[k + 2];
        s3 += x[k + 3] * y[k + 3];
    }
    for (; k < n; k++) s0 += x[k] * y[k];
    return (s0 + s1) + (s2 + s3);
}

/* The Cholesky factor of the small double matrix a into out (C-ordered n x n): the
   lower one from a's lower triangle, or the upper one (its transpose) from the upper
   triangle.  Returns 0, or potrf's info: the order of the first leading minor that is not
   positive definite (out then holds partial rows). */
static int ogla_cholesky_small(PyArrayObject *a, PyArrayObject *out, int lower) {
    npy_intp n = PyArray_DIMS(a)[0];
    npy_intp s0 = PyArray_STRIDES(a)[0], s1 = PyArray_STRIDES(a)[1];
    if (!lower) { npy_intp t = s0; s0 = s1; s1 = t; }  /* read a^T: its lower = a's upper */
    const char *ab = PyArray_BYTES(a);
    double *l = (double *)PyArray_DATA(out);
    /* column by column, as potf2: the diagonal entry, then the column below it, whose
       entries are independent dot products (no chain of divisions through a row) */
    for (npy_intp j = 0; j < n; j++) {
        double *lj = l + j * n;
        double d = *(const double *)(ab + j * (s0 + s1)) - ogla_dot(lj, lj, j);
        if (!(d > 0.0)) return (int)j + 1;  /* also NaN, as potf2 */
        double ljj = sqrt(d), r = 1.0 / ljj;
        lj[j] = ljj;
        for (npy_intp i = j + 1; i < n; i++) {
            double *li = l + i * n;
            li[j] = (*(const double *)(ab + i * s0 + j * s1) - ogla_dot(li, lj, j)) * r;
        }
    }
    for (npy_intp i = 0; i < n; i++)
        for (npy_intp j = i + 1; j < n; j++) l[i * n + j] = 0.0;
    if (!lower)
        for (npy_intp i = 0; i < n; i++)
            for (npy_intp j = 0; j < i; j++) {
                l[j * n + i] = l[i * n + j];
                l[i * n + j] = 0.0;
            }
    return 0;
}

/* b as a Fortran-ordered double array (prev reused, see ogla_reuse; the solution is written
   there), copied by loops when b is an aligned native double array, else through NumPy. */
static PyArrayObject *ogla_small_rhs(PyArrayObject *b, PyArrayObject *prev) {
    int nd = PyArray_NDIM(b);
    PyArray_Descr *dd = PyArray_DescrFromType(NPY_DOUBLE);
    PyArrayObject *x = ogla_reuse(prev, nd, PyArray_DIMS(b), dd, 1);
    Py_DECREF(dd);
    if (x == NULL) return NULL;
    if (!(PyArray_TYPE(b) == NPY_DOUBLE && PyArray_ISALIGNED(b) && PyArray_ISNOTSWAPPED(b))) {
        if (PyArray_CopyInto(x, b) < 0) { Py_DECREF(x); return NULL; }
        return x;
    }
    npy_intp rows = PyArray_DIMS(b)[0], cols = nd == 1 ? 1 : PyArray_DIMS(b)[1];
    npy_intp r = PyArray_STRIDES(b)[0], c = nd == 1 ? 0 : PyArray_STRIDES(b)[1];
    const char *bb = PyArray_BYTES(b);
    double *xd = (double *)PyArray_DATA(x);
    for (npy_intp j = 0; j < cols; j++)
        for (npy_intp i = 0; i < rows; i++)
            xd[i + j * rows] = *(const double *)(bb + i * r + j * c);
    return x;
}

/* Solve t x = x in place for one contiguous column x, t = op(a) triangular with element (i, k)
   at tb + i * t0 + k * t1; t_lower says which triangle of t holds it.  Row-oriented (dot
   products) when t's rows are contiguous, column-oriented (axpys) otherwise. */
static void ogla_trsv_small(const char *tb, npy_intp t0, npy_intp t1, int t_lower, int unit,
                            double *x, npy_intp n) {
#define OGLA_T(i, k) (*(const double *)(tb + (i) * t0 + (k) * t1))
    if (t1 == (npy_intp)sizeof(double) || t0 != (npy_intp)sizeof(double)) {
        int contiguous = t1 == (npy_intp)sizeof(double);
        for (npy_intp step = 0; step < n; step++) {
            npy_intp i = t_lower ? step : n - 1 - step;
            npy_intp lo = t_lower ? 0 : i + 1, hi = t_lower ? i : n;
            double s;
            if (contiguous) s = ogla_dot((const double *)(tb + i * t0) + lo, x + lo, hi - lo);
            else {
                s = 0.0;
                for (npy_intp k = lo; k < hi; k++) s += OGLA_T(i, k) * x[k];
            }
            x[i] = unit ? x[i] - s : (x[i] - s) / OGLA_T(i, i);
        }
    } else {  /* t's columns are contiguous */
        for (npy_intp step = 0; step < n; step++) {
            npy_intp i = t_lower ? step : n - 1 - step;
            if (!unit) x[i] /= OGLA_T(i, i);
            const double *col = (const double *)(tb + i * t1);
            double xi = x[i];
            if (t_lower) for (npy_intp k = i + 1; k < n; k++) x[k] -= col[k] * xi;
            else for (npy_intp k = 0; k < i; k++) x[k] -= col[k] * xi;
        }
    }
#undef OGLA_T
}

/* x with a x = b (trans: a^T x = b) for a small double triangular a (ogla_small_ok) whose
   rows match b's: a new Fortran-ordered array, or NULL with an exception set. */
static PyArrayObject *ogla_solve_triangular_small(PyArrayObject *a, PyArrayObject *b, int lower,
                                                  int trans, int unit, int check_finite,
                                                  PyArrayObject *prev) {
    npy_intp n = PyArray_DIMS(a)[0];
    npy_intp s0 = PyArray_STRIDES(a)[0], s1 = PyArray_STRIDES(a)[1];
    const char *ab = PyArray_BYTES(a);
    PyArrayObject *x = ogla_small_rhs(b, prev);
    if (x == NULL) return NULL;
    if (check_finite && (!ogla_finite_2d(ab, s0, s1, n, n) || !ogla_finite_any(x))) {
        Py_DECREF(x);
        PyErr_SetString(PyExc_ValueError, "array must not contain infs or NaNs");
        return NULL;
    }
    npy_intp nrhs = PyArray_NDIM(x) == 1 ? 1 : PyArray_DIMS(x)[1];
    if (n == 0 || nrhs == 0) return x;
    if (!unit)
        for (npy_intp i = 0; i < n; i++)
            if (*(const double *)(ab + i * (s0 + s1)) == 0.0) {
                Py_DECREF(x);
                ogla_linalg_error("singular matrix: resolution failed at diagonal %ld", (long)i);
                return NULL;
            }
    npy_intp t0 = trans ? s1 : s0, t1 = trans ? s0 : s1;
    double *xd = (double *)PyArray_DATA(x);
    for (npy_intp c = 0; c < nrhs; c++)
        ogla_trsv_small(ab, t0, t1, lower != trans, unit, xd + c * n, n);
    return x;
}
