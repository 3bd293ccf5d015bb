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
    if (PyArray_TYPE(a) == typenum && PyArray_ISALIGNED(a) && PyArray_ISNOTSWAPPED(a)) {
        Py_INCREF(a);
        return a;
    }
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

/* Small matrices: the Cholesky factorisation's loops run backwards (reverse mode), where
   LAPACK's blocked routines cost more in calls than in flops.  l and g are row-major n x n,
   read as lower; g (the cotangent of L) is overwritten; a receives the cotangent of the
   lower triangle the factorisation read (off-diagonal entries count both mirrored terms,
   as the LAPACK path writes them).  n^3/3 multiply-adds, where the congruence
   L^-T Phi(L^T G) L^-1 of the LAPACK path takes 5 n^3/6. */
#define OGLA_PULLBACK_SMALL_MAX 96

/* The forward loops, row by row:  L[i][j] = (A[i][j] - sum_{k<j} L[i][k] L[j][k]) / L[j][j]
   for j < i, then L[i][i] = sqrt(A[i][i] - sum_{k<i} L[i][k]^2).  Backwards, each step
   passes the cotangent of its result to A and to the L entries it read. */
static void ogla_pullback_rev(const double *l, double *g, double *a, double *rd, npy_intp n) {
    /* reciprocals of the diagonal, once: a division per entry would chain its latency
       through every step of a row */
    for (npy_intp i = 0; i < n; i++) rd[i] = 1.0 / l[i * n + i];
    for (npy_intp i = n - 1; i >= 0; i--) {
        const double *restrict li = l + i * n;
        double *restrict gi = g + i * n;
        double sbar = 0.5 * gi[i] * rd[i];  /* d sqrt(s) / ds = 1 / (2 L[i][i]) */
        a[i * n + i] = sbar;
        for (npy_intp k = 0; k < i; k++) gi[k] -= 2.0 * sbar * li[k];
        for (npy_intp j = i - 1; j >= 0; j--) {
            const double *restrict lj = l + j * n;
            double *restrict gj = g + j * n;
            double tbar = gi[j] * rd[j];
            gj[j] -= tbar * li[j];  /* L[i][j] = t / L[j][j] */
            a[i * n + j] = tbar;
            for (npy_intp k = 0; k < j; k++) {
                gi[k] -= tbar * lj[k];
                gj[k] -= tbar * li[k];
            }
        }
    }
}

/* The small path: l, g and the result in one malloc'd block; 0 or -1 (no memory). */
static int ogla_pullback_small(const char *lb, npy_intp l0, npy_intp l1, const char *gb,
                               npy_intp g0, npy_intp g1, int dbl, int lower, npy_intp n,
                               PyArrayObject *out) {
    double *buf = (double *)malloc(sizeof(double) * (3 * (size_t)(n * n) + (size_t)n));
    if (buf == NULL) { PyErr_NoMemory(); return -1; }
    double *l = buf, *g = buf + n * n, *a = buf + 2 * n * n, *rd = buf + 3 * n * n;
    for (npy_intp i = 0; i < n; i++)
        for (npy_intp j = 0; j <= i; j++) {  /* the lower triangles are all that is read */
            l[i * n + j] = dbl ? OGLA_AT(double, lb, l0, l1, i, j)
                               : (double)OGLA_AT(float, lb, l0, l1, i, j);
            g[i * n + j] = dbl ? OGLA_AT(double, gb, g0, g1, i, j)
                               : (double)OGLA_AT(float, gb, g0, g1, i, j);
        }
    ogla_pullback_rev(l, g, a, rd, n);
    char *ob = PyArray_BYTES(out);
    for (npy_intp i = 0; i < n; i++)
        for (npy_intp j = 0; j <= i; j++) {
            double v = a[i * n + j];
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
                                             int typenum, int lower, PyArrayObject *prev) {
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
    PyArray_Descr *od = PyArray_DescrFromType(typenum);
    PyArrayObject *out = ogla_reuse(prev, 2, dc, od, 0);
    Py_DECREF(od);
    if (out == NULL || n == 0) return out;
    memset(PyArray_DATA(out), 0, (size_t)PyArray_NBYTES(out));  /* one triangle is written */
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

/* Copy n elements of elsize bytes from src (byte step) to the contiguous dst. */
static void ogla_copy_strided(char *dst, const char *src, npy_intp step, npy_intp n,
                              npy_intp elsize) {
    if (elsize == 8)
        for (npy_intp i = 0; i < n; i++) memcpy(dst + 8 * i, src + i * step, 8);
    else
        for (npy_intp i = 0; i < n; i++) memcpy(dst + elsize * i, src + i * step, (size_t)elsize);
}

/* numpy.diagonal(x, offset, axis1, axis2), copied to a new C-ordered array (a matrix of a
   type without references by a loop, anything else through NumPy's view). */
static PyArrayObject *ogla_extract_diag(PyArrayObject *x, int offset, int axis1, int axis2,
                                        PyArrayObject *prev) {
    int a1 = axis1 < 0 ? axis1 + 2 : axis1, a2 = axis2 < 0 ? axis2 + 2 : axis2;
    PyArray_Descr *descr = PyArray_DESCR(x);
    if (PyArray_NDIM(x) == 2 && a1 >= 0 && a1 < 2 && a2 >= 0 && a2 < 2 && a1 != a2
            && !PyDataType_REFCHK(descr)) {
        npy_intp *d = PyArray_DIMS(x), *s = PyArray_STRIDES(x);
        npy_intp r0 = offset < 0 ? -(npy_intp)offset : 0, c0 = offset > 0 ? offset : 0;
        npy_intp n = d[a1] - r0 < d[a2] - c0 ? d[a1] - r0 : d[a2] - c0;
        if (n < 0) n = 0;
        PyArrayObject *out = ogla_reuse(prev, 1, &n, descr, 0);
        if (out == NULL) return NULL;
        if (n > 0)
            ogla_copy_strided(PyArray_BYTES(out), PyArray_BYTES(x) + r0 * s[a1] + c0 * s[a2],
                              s[a1] + s[a2], n, PyArray_ITEMSIZE(out));
        return out;
    }
    PyObject *view = PyArray_Diagonal(x, offset, axis1, axis2);
    if (view == NULL) return NULL;
    PyObject *out = PyArray_NewCopy((PyArrayObject *)view, NPY_CORDER);
    Py_DECREF(view);
    return (PyArrayObject *)out;
}

/* Zeros shaped like `like` (dtype of `values`) with `values` on the diagonal
   (offset, axis1, axis2): its first values.shape[-1] entries, the other axes broadcast. */
static PyArrayObject *ogla_alloc_diag(PyArrayObject *values, PyArrayObject *like, int offset,
                                      int axis1, int axis2, PyArrayObject *prev) {
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
    PyArrayObject *out;
    if (nd == 2 && !PyDataType_REFCHK(PyArray_DESCR(values))) {  /* reused, zeroed by hand */
        out = ogla_reuse(prev, 2, PyArray_DIMS(like), PyArray_DESCR(values), 0);
        if (out == NULL) return NULL;
        memset(PyArray_DATA(out), 0, (size_t)PyArray_NBYTES(out));
    } else {
        Py_INCREF(PyArray_DESCR(values));
        out = (PyArrayObject *)PyArray_Zeros(nd, PyArray_DIMS(like), PyArray_DESCR(values), 0);
        if (out == NULL) return NULL;
    }
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
    if (nd == 2 && !PyDataType_REFCHK(PyArray_DESCR(out))) {  /* a matrix: one loop */
        npy_intp es = PyArray_ITEMSIZE(out), vstep = PyArray_STRIDES(values)[0];
        const char *src = PyArray_BYTES(values);
        for (npy_intp i = 0; i < n; i++) memcpy(start + i * vs[0], src + i * vstep, (size_t)es);
        return out;
    }
    Py_INCREF(PyArray_DESCR(out));
    PyArrayObject *view = (PyArrayObject *)PyArray_NewFromDescr(
        &PyArray_Type, PyArray_DESCR(out), nd - 1, vd, vs, start, NPY_ARRAY_WRITEABLE, NULL);
    int ok = view != NULL && PyArray_CopyInto(view, values) == 0;
    Py_XDECREF(view);
    if (!ok) { Py_DECREF(out); return NULL; }
    return out;
}
