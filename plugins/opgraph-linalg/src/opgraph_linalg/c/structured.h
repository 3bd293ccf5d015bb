/* The Cholesky pullback (trmm + sygst) and the diagonal Ops, after c/lapack.h.

   Each function computes the Op's core result as a new array, or returns NULL
   with a Python exception set (the messages of the Ops' Python perform). */

typedef void (*ogla_trmm_t)(char *, char *, char *, char *, int *, int *, void *, void *,
                            int *, void *, int *);
typedef void (*ogla_sygst_t)(int *, char *, int *, void *, int *, void *, int *, int *);

/* The BLAS routine NAME from scipy.linalg.cython_blas (NULL + exception if absent). */
static void *ogla_blas_lookup(const char *name) {
    static PyObject *capi = NULL;
    if (capi == NULL) {
        PyObject *m = PyImport_ImportModule("scipy.linalg.cython_blas");
        if (m == NULL) return NULL;
        capi = PyObject_GetAttrString(m, "__pyx_capi__");
        Py_DECREF(m);
        if (capi == NULL) return NULL;
    }
    PyObject *cap = PyDict_GetItemString(capi, name);
    if (cap == NULL) {
        PyErr_Format(PyExc_RuntimeError, "scipy.linalg.cython_blas has no %s", name);
        return NULL;
    }
    return PyCapsule_GetPointer(cap, PyCapsule_GetName(cap));
}

static ogla_trmm_t ogla_trmm(int dbl) {
    static void *ptr[2] = {NULL, NULL};
    if (ptr[dbl] == NULL) ptr[dbl] = ogla_blas_lookup(dbl ? "dtrmm" : "strmm");
    return (ogla_trmm_t)ptr[dbl];
}

/* a as an aligned, native-order typenum array (a itself when it already is one, any strides). */
static PyArrayObject *ogla_as_type(PyArrayObject *a, int typenum) {
    return (PyArrayObject *)PyArray_FromAny((PyObject *)a, PyArray_DescrFromType(typenum), 0, 0,
                                            NPY_ARRAY_ALIGNED, NULL);
}

/* Element (i, j) of a 2-d array of T with byte strides s0, s1. */
#define OGLA_AT(T, base, s0, s1, i, j) (*(const T *)((base) + (i) * (s0) + (j) * (s1)))

/* The reversed transposes of the factor and of its cotangent, Fortran-ordered:
   lr(p, q) = L(n-1-q, n-1-p) and b(p, q) = G(n-1-q, n-1-p) (L, G read as lower). */
#define OGLA_PULLBACK_LOAD(T)                                                           \
    for (npy_intp q = 0; q < n; q++)                                                    \
        for (npy_intp p = 0; p < n; p++) {                                              \
            ((T *)lr)[p + q * n] = OGLA_AT(T, lb, l0, l1, n - 1 - q, n - 1 - p);        \
            ((T *)bw)[p + q * n] = OGLA_AT(T, gb, g0, g1, n - 1 - q, n - 1 - p);        \
        }

/* out(i, j) of the folded lower gradient (transposed for an upper factor) from sygst's
   Fortran result r: below the diagonal r(n-1-j, n-1-i), on it half of r(n-1-i, n-1-i). */
#define OGLA_PULLBACK_STORE(T)                                                          \
    for (npy_intp i = 0; i < n; i++) {                                                  \
        const T *r = (const T *)bw;                                                     \
        for (npy_intp j = 0; j < i; j++) {                                              \
            T v = r[(n - 1 - j) + (n - 1 - i) * n];                                     \
            if (lower) o[i * n + j] = v; else o[j * n + i] = v;                         \
        }                                                                               \
        o[i * n + i] = (T)0.5 * r[(n - 1 - i) * (n + 1)];                               \
    }

/* Small matrices: sym(L^-T Phi(L^T G) L^-1) by loops over rows (in double),
   where LAPACK's blocked routines cost more in calls than in flops.  l and g are row-major
   n x n (l read as lower); w holds 2 n^2 doubles; the symmetric part, folded onto the lower
   triangle, goes to out (T) as the LAPACK path writes it. */
#define OGLA_PULLBACK_SMALL_MAX 96

/* dst[j] += sign * sum_{k >= k0} L(k, i) rows(k, j) for j < len (row-major n x n), the
   rows taken four at a time. */
static void ogla_rows_axpy(double *restrict dst, const double *restrict rows,
                           const double *restrict l, npy_intp i, npy_intp k0, npy_intp n,
                           npy_intp len, double sign) {
    npy_intp k = k0;
    for (; k + 3 < n; k += 4) {
        double a0 = sign * l[k * n + i], a1 = sign * l[(k + 1) * n + i],
               a2 = sign * l[(k + 2) * n + i], a3 = sign * l[(k + 3) * n + i];
        const double *r0 = rows + k * n, *r1 = r0 + n, *r2 = r1 + n, *r3 = r2 + n;
        for (npy_intp j = 0; j < len; j++)
            dst[j] += a0 * r0[j] + a1 * r1[j] + a2 * r2[j] + a3 * r3[j];
    }
    for (; k < n; k++) {
        double a0 = sign * l[k * n + i];
        const double *r0 = rows + k * n;
        for (npy_intp j = 0; j < len; j++) dst[j] += a0 * r0[j];
    }
}

/* x := L^-T b by rows, from the last (b and x row-major n x n, distinct). */
static void ogla_solve_lt_rows(const double *l, const double *b, double *x, npy_intp n) {
    for (npy_intp i = n - 1; i >= 0; i--) {
        double *xi = x + i * n;
        memcpy(xi, b + i * n, sizeof(double) * (size_t)n);
        ogla_rows_axpy(xi, x, l, i, i + 1, n, n, -1.0);
        double d = 1.0 / l[i * n + i];
        for (npy_intp j = 0; j < n; j++) xi[j] *= d;
    }
}

/* w (2 n^2) <- in its second half, the lower triangle of L^-T sym(Phi(L^T G)) L^-1 (the
   symmetric part of the pullback, computed as a congruence of a symmetric matrix). */
static void ogla_pullback_rows(const double *l, const double *g, double *w, npy_intp n) {
    double *p = w, *x = w + n * n;
    memset(p, 0, sizeof(double) * (size_t)(n * n));
    for (npy_intp i = 0; i < n; i++) {  /* p = Phi(L^T G): its lower triangle, half diagonal */
        ogla_rows_axpy(p + i * n, g, l, i, i, n, i + 1, 1.0);
        p[i * n + i] *= 0.5;
    }
    for (npy_intp i = 0; i < n; i++)  /* p = sym(Phi) = M */
        for (npy_intp j = 0; j < i; j++) {
            double v = 0.5 * p[i * n + j];
            p[i * n + j] = v;
            p[j * n + i] = v;
        }
    ogla_solve_lt_rows(l, p, x, n);  /* x = L^-T M */
    for (npy_intp i = 0; i < n; i++)  /* p = x^T = M L^-1 */
        for (npy_intp j = 0; j < n; j++) p[j * n + i] = x[i * n + j];
    for (npy_intp i = n - 1; i >= 0; i--) {  /* x = L^-T p, lower triangle only (symmetric) */
        double *xi = x + i * n;
        memcpy(xi, p + i * n, sizeof(double) * (size_t)(i + 1));
        ogla_rows_axpy(xi, x, l, i, i + 1, n, i + 1, -1.0);
        double d = 1.0 / l[i * n + i];
        for (npy_intp j = 0; j <= i; j++) xi[j] *= d;
    }
}

/* The small path: l, g and the result S^T in one malloc'd block; 0 or -1 (no memory). */
static int ogla_pullback_small(const char *lb, npy_intp l0, npy_intp l1, const char *gb,
                               npy_intp g0, npy_intp g1, int dbl, int lower, npy_intp n,
                               PyArrayObject *out) {
    double *buf = (double *)malloc(sizeof(double) * 4 * (size_t)(n * n));
    if (buf == NULL) { PyErr_NoMemory(); return -1; }
    double *l = buf, *g = buf + n * n, *w = buf + 2 * n * n, *st = buf + 3 * n * n;
    for (npy_intp i = 0; i < n; i++)
        for (npy_intp j = 0; j < n; j++) {
            l[i * n + j] = dbl ? OGLA_AT(double, lb, l0, l1, i, j)
                               : (double)OGLA_AT(float, lb, l0, l1, i, j);
            g[i * n + j] = dbl ? OGLA_AT(double, gb, g0, g1, i, j)
                               : (double)OGLA_AT(float, gb, g0, g1, i, j);
        }
    ogla_pullback_rows(l, g, w, n);  /* st (= w + n^2): the symmetric part, lower triangle */
    char *ob = PyArray_BYTES(out);
    for (npy_intp i = 0; i < n; i++)
        for (npy_intp j = 0; j <= i; j++) {
            double v = i == j ? st[i * n + i] : 2.0 * st[i * n + j];  /* both mirrored terms */
            npy_intp r = lower ? i : j, c = lower ? j : i;
            if (dbl) ((double *)ob)[r * n + c] = v;
            else ((float *)ob)[r * n + c] = (float)v;
        }
    free(buf);
    return 0;
}

/* 1 when the (strided) n x n matrix holds a NaN. */
static int ogla_has_nan(const char *b, npy_intp s0, npy_intp s1, npy_intp n, int dbl) {
    for (npy_intp i = 0; i < n; i++)
        for (npy_intp j = 0; j < n; j++) {
            double v = dbl ? OGLA_AT(double, b, s0, s1, i, j)
                           : (double)OGLA_AT(float, b, s0, s1, i, j);
            if (v != v) return 1;
        }
    return 0;
}

/* The large path: trmm + sygst on the index-reversed problem (see cholesky_grad.py). */
static int ogla_pullback_lapack(const char *lb, npy_intp l0, npy_intp l1, const char *gb,
                                npy_intp g0, npy_intp g1, int dbl, int lower, npy_intp n,
                                PyArrayObject *out) {
    ogla_trmm_t trmm = ogla_trmm(dbl);
    ogla_sygst_t sygst = (ogla_sygst_t)ogla_routine("sygst", dbl);
    if (trmm == NULL || sygst == NULL) return -1;
    size_t e = dbl ? sizeof(double) : sizeof(float);
    char *lr = (char *)malloc(2 * (size_t)n * (size_t)n * e), *bw = lr + (size_t)n * n * e;
    if (lr == NULL) { PyErr_NoMemory(); return -1; }
    if (dbl) { OGLA_PULLBACK_LOAD(double) } else { OGLA_PULLBACK_LOAD(float) }
    /* with J the index reversal: b := b lr^T, then b := lr^-1 b lr^-T (its lower triangle) */
    int ni = (int)n, itype = 1, info = 0;
    char side = 'R', uplo = 'L', tr = 'T', diag = 'N';
    double one_d = 1.0; float one_f = 1.0f;
    trmm(&side, &uplo, &tr, &diag, &ni, &ni, dbl ? (void *)&one_d : (void *)&one_f, lr, &ni,
         bw, &ni);
    sygst(&itype, &uplo, &ni, bw, &ni, lr, &ni, &info);
    if (info != 0) {
        free(lr);
        PyErr_Format(PyExc_RuntimeError, "cholesky_pullback: sygst argument %d is invalid",
                     -info);
        return -1;
    }
    if (dbl) { double *o = (double *)PyArray_DATA(out); OGLA_PULLBACK_STORE(double) }
    else { float *o = (float *)PyArray_DATA(out); OGLA_PULLBACK_STORE(float) }
    free(lr);
    return 0;
}

/* A_bar from (L, L_bar): the cotangent of the matrix the Cholesky factor L came from, laid
   on the triangle the factorisation read (see opgraph_linalg.cholesky_grad). */
static PyArrayObject *ogla_cholesky_pullback(PyArrayObject *chol, PyArrayObject *gz,
                                             int typenum, int lower) {
    int dbl = typenum == NPY_DOUBLE;
    npy_intp *dc = PyArray_DIMS(chol), *dg = PyArray_DIMS(gz);
    if (PyArray_NDIM(chol) != 2 || PyArray_NDIM(gz) != 2 || dc[0] != dc[1] || dg[0] != dc[0]
            || dg[1] != dc[1]) {
        char sc[64], sg[64];
        ogla_shape(chol, sc, sizeof sc);
        ogla_shape(gz, sg, sizeof sg);
        PyErr_Format(PyExc_ValueError, "cholesky_pullback: chol and gz must be equal square "
                     "matrices, got %s and %s", sc, sg);
        return NULL;
    }
    npy_intp n = dc[0];
    PyArrayObject *out = (PyArrayObject *)PyArray_ZEROS(2, dc, typenum, 0);
    if (out == NULL || n == 0) return out;
    PyArrayObject *lc = ogla_as_type(chol, typenum), *gc = ogla_as_type(gz, typenum);
    if (lc == NULL || gc == NULL) { Py_XDECREF(lc); Py_XDECREF(gc); Py_DECREF(out); return NULL; }
    /* the factor and its cotangent read as lower: an upper one is its transpose */
    const char *lb = PyArray_BYTES(lc), *gb = PyArray_BYTES(gc);
    npy_intp l0 = PyArray_STRIDES(lc)[!lower], l1 = PyArray_STRIDES(lc)[lower];
    npy_intp g0 = PyArray_STRIDES(gc)[!lower], g1 = PyArray_STRIDES(gc)[lower];
    int rc = 0;
    if (ogla_has_nan(lb, l0, l1, n, dbl)) ogla_fill_nan(out, dbl);  /* failed factorisation */
    else if (n <= OGLA_PULLBACK_SMALL_MAX)
        rc = ogla_pullback_small(lb, l0, l1, gb, g0, g1, dbl, lower, n, out);
    else rc = ogla_pullback_lapack(lb, l0, l1, gb, g0, g1, dbl, lower, n, out);
    Py_DECREF(lc); Py_DECREF(gc);
    if (rc < 0) { Py_DECREF(out); return NULL; }
    return out;
}

/* numpy.diagonal(x, offset, axis1, axis2), copied to a new C-ordered array. */
static PyArrayObject *ogla_extract_diag(PyArrayObject *x, int offset, int axis1, int axis2) {
    PyObject *view = PyArray_Diagonal(x, offset, axis1, axis2);
    if (view == NULL) return NULL;
    PyObject *out = PyArray_NewCopy((PyArrayObject *)view, NPY_CORDER);
    Py_DECREF(view);
    return (PyArrayObject *)out;
}

/* Zeros shaped like `like` (dtype of `values`) with `values` on the diagonal
   (offset, axis1, axis2): its first values.shape[-1] entries, the other axes broadcast. */
static PyArrayObject *ogla_alloc_diag(PyArrayObject *values, PyArrayObject *like, int offset,
                                      int axis1, int axis2) {
    int nd = PyArray_NDIM(like);
    if (axis1 < 0) axis1 += nd;
    if (axis2 < 0) axis2 += nd;
    if (nd < 2 || axis1 < 0 || axis2 < 0 || axis1 >= nd || axis2 >= nd || axis1 == axis2
            || PyArray_NDIM(values) != nd - 1) {
        PyErr_Format(PyExc_ValueError, "AllocDiag: values with %d axes cannot fill the "
                     "diagonal (axes %d, %d) of an array with %d", PyArray_NDIM(values),
                     axis1, axis2, nd);
        return NULL;
    }
    Py_INCREF(PyArray_DESCR(values));
    PyArrayObject *out = (PyArrayObject *)PyArray_Zeros(nd, PyArray_DIMS(like),
                                                        PyArray_DESCR(values), 0);
    if (out == NULL) return NULL;
    npy_intp *d = PyArray_DIMS(out), *s = PyArray_STRIDES(out);
    npy_intp r0 = offset < 0 ? -(npy_intp)offset : 0, c0 = offset > 0 ? offset : 0;
    npy_intp avail = d[axis1] - r0 < d[axis2] - c0 ? d[axis1] - r0 : d[axis2] - c0;
    npy_intp n = PyArray_DIMS(values)[nd - 2];
    if (n > (avail > 0 ? avail : 0)) {
        Py_DECREF(out);
        PyErr_Format(PyExc_IndexError, "AllocDiag: %ld values do not fit on a diagonal of "
                     "length %ld", (long)n, (long)(avail > 0 ? avail : 0));
        return NULL;
    }
    npy_intp vd[NPY_MAXDIMS], vs[NPY_MAXDIMS];
    int k = 0;
    for (int a = 0; a < nd; a++)
        if (a != axis1 && a != axis2) { vd[k] = d[a]; vs[k++] = s[a]; }
    vd[k] = n;
    vs[k] = s[axis1] + s[axis2];
    char *start = PyArray_BYTES(out);
    if (n > 0) start += r0 * s[axis1] + c0 * s[axis2];
    Py_INCREF(PyArray_DESCR(out));
    PyArrayObject *view = (PyArrayObject *)PyArray_NewFromDescr(
        &PyArray_Type, PyArray_DESCR(out), nd - 1, vd, vs, start, NPY_ARRAY_WRITEABLE, NULL);
    int ok = view != NULL && PyArray_CopyInto(view, values) == 0;
    Py_XDECREF(view);
    if (!ok) { Py_DECREF(out); return NULL; }
    return out;
}
