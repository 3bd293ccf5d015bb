
typedef void (*ogla_fn_t)(void);

/* The LAPACK routine NAME from scipy.linalg.cython_lapack (NULL + exception if absent). */
static void *ogla_lookup(const char *name) {
    static PyObject *capi = NULL;
    if (capi == NULL) {
        PyObject *m = PyImport_ImportModule("scipy.linalg.cython_lapack");
        if (m == NULL) return NULL;
        capi = PyObject_GetAttrString(m, "__pyx_capi__");
        Py_DECREF(m);
        if (capi == NULL) return NULL;
    }
    PyObject *cap = PyDict_GetItemString(capi, name);
    if (cap == NULL) {
        PyErr_Format(PyExc_RuntimeError, "scipy.linalg.cython_lapack has no %s", name);
        return NULL;
    }
    return PyCapsule_GetPointer(cap, PyCapsule_GetName(cap));
}

typedef void (*ogla_potrf_t)(char *, int *, void *, int *, int *);
typedef void (*ogla_trtrs_t)(char *, char *, char *, int *, int *, void *, int *, void *, int *,
                             int *);
typedef void (*ogla_getrf_t)(int *, int *, void *, int *, int *, int *);
typedef void (*ogla_getrs_t)(char *, int *, int *, void *, int *, int *, void *, int *, int *);
typedef void (*ogla_gecon_t)(char *, int *, void *, int *, void *, void *, void *, int *, int *);
typedef void (*ogla_potrs_t)(char *, int *, int *, void *, int *, void *, int *, int *);

/* Pointer to the double (dbl) or single precision routine BASE, cached per name (a call
   site passes the same literal each time: its address is compared first, no formatting). */
static void *ogla_routine(const char *base, int dbl) {
    static const char *bases[32];
    static int dbls[32];
    static void *ptrs[32];
    static int n_cached = 0;
    for (int i = 0; i < n_cached; i++)
        if (dbls[i] == dbl && (bases[i] == base || strcmp(bases[i], base) == 0)) return ptrs[i];
    char name[16];
    snprintf(name, sizeof name, "%c%s", dbl ? 'd' : 's', base);
    void *p = ogla_lookup(name);
    if (p != NULL && n_cached < 32) {
        bases[n_cached] = base;  /* the callers pass string literals */
        dbls[n_cached] = dbl;
        ptrs[n_cached++] = p;
    }
    return p;
}

static int ogla_small_ok(PyArrayObject *a);
static PyArrayObject *ogla_small_rhs(PyArrayObject *b, PyArrayObject *prev);
static int ogla_finite_2d(const char *b, npy_intp s0, npy_intp s1, npy_intp rows,
                          npy_intp cols);
static int ogla_cholesky_small(PyArrayObject *a, PyArrayObject *out, int lower);
static PyArrayObject *ogla_solve_triangular_small(PyArrayObject *a, PyArrayObject *b, int lower,
                                                  int trans, int unit, int check_finite,
                                                  PyArrayObject *prev);

static void ogla_linalg_error(const char *fmt, long arg) {
    PyObject *m = PyImport_ImportModule("numpy.linalg");
    PyObject *cls = m ? PyObject_GetAttrString(m, "LinAlgError") : NULL;
    Py_XDECREF(m);
    if (cls == NULL) return;
    PyErr_Format(cls, fmt, arg);
    Py_DECREF(cls);
}

static void ogla_shape(PyArrayObject *a, char *buf, size_t size) {
    int nd = PyArray_NDIM(a);
    npy_intp *d = PyArray_DIMS(a);
    if (nd == 1) snprintf(buf, size, "(%ld,)", (long)d[0]);
    else if (nd == 2) snprintf(buf, size, "(%ld, %ld)", (long)d[0], (long)d[1]);
    else snprintf(buf, size, "(%d dims)", nd);
}

static int ogla_square(PyArrayObject *a, const char *who, const char *arg) {
    if (PyArray_NDIM(a) == 2 && PyArray_DIMS(a)[0] == PyArray_DIMS(a)[1]) return 0;
    char s[64];
    ogla_shape(a, s, sizeof s);
    PyErr_Format(PyExc_ValueError, "%s: %s must be a square matrix, got shape %s", who, arg, s);
    return -1;
}

static int ogla_rows_match(PyArrayObject *a, PyArrayObject *b, const char *who) {
    if (PyArray_DIMS(b)[0] == PyArray_DIMS(a)[0]) return 0;
    char sa[64], sb[64];
    ogla_shape(a, sa, sizeof sa);
    ogla_shape(b, sb, sizeof sb);
    PyErr_Format(PyExc_ValueError, "%s: a has shape %s but b has shape %s (rows differ)", who,
                 sa, sb);
    return -1;
}

/* 0 when every element of the (contiguous, typenum) array is finite. */
static int ogla_check_finite(PyArrayObject *a, int dbl) {
    npy_intp n = PyArray_SIZE(a);
    if (dbl) {
        const double *p = (const double *)PyArray_DATA(a);
        for (npy_intp i = 0; i < n; i++) if (!isfinite(p[i])) goto bad;
    } else {
        const float *p = (const float *)PyArray_DATA(a);
        for (npy_intp i = 0; i < n; i++) if (!isfinite(p[i])) goto bad;
    }
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "array must not contain infs or NaNs");
    return -1;
}

/* prev (the node's previous result, new reference) when nothing else holds it and it is an
   aligned, writeable, C- (or Fortran-) contiguous array owning its data with these dims and
   this descr, else a new uninitialised one: results computed at every call need no new array
   (the c_code protocol passes the output's previous value; NULL: none). */
static PyArrayObject *ogla_reuse(PyArrayObject *prev, int nd, npy_intp *dims,
                                 PyArray_Descr *descr, int fortran) {
    if (prev != NULL && PyArray_Check((PyObject *)prev) && Py_REFCNT(prev) == 1
            && PyArray_NDIM(prev) == nd && PyArray_BASE(prev) == NULL
            && PyArray_ISWRITEABLE(prev) && PyArray_ISALIGNED(prev)
            && (fortran ? PyArray_IS_F_CONTIGUOUS(prev) : PyArray_IS_C_CONTIGUOUS(prev))
            && PyArray_EquivTypes(PyArray_DESCR(prev), descr)) {
        int same = 1;
        for (int d = 0; d < nd; d++) same &= PyArray_DIMS(prev)[d] == dims[d];
        if (same) { Py_INCREF(prev); return prev; }
    }
    Py_INCREF(descr);
    return (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, NULL, NULL,
                                                 fortran ? NPY_ARRAY_F_CONTIGUOUS : 0, NULL);
}

/* A copy of a (any strides, any dtype) as a new C- or Fortran-ordered typenum array. */
static PyArrayObject *ogla_copy(PyArrayObject *a, int typenum, int fortran) {
    PyArrayObject *out = (PyArrayObject *)PyArray_EMPTY(PyArray_NDIM(a), PyArray_DIMS(a),
                                                        typenum, fortran);
    if (out == NULL) return NULL;
    if (PyArray_CopyInto(out, a) < 0) { Py_DECREF(out); return NULL; }
    return out;
}

/* a itself (new reference) when it is an aligned C- or F-contiguous typenum matrix, else a
   C-ordered copy; *is_c tells which order the result has. */
static PyArrayObject *ogla_matrix(PyArrayObject *a, int typenum, int *is_c) {
    if (PyArray_TYPE(a) == typenum && PyArray_ISALIGNED(a) && PyArray_ISNOTSWAPPED(a)) {
        if (PyArray_IS_C_CONTIGUOUS(a)) { *is_c = 1; Py_INCREF(a); return a; }
        if (PyArray_IS_F_CONTIGUOUS(a)) { *is_c = 0; Py_INCREF(a); return a; }
    }
    *is_c = 1;
    return ogla_copy(a, typenum, 0);
}

static void ogla_fill_nan(PyArrayObject *a, int dbl) {
    npy_intp n = PyArray_SIZE(a);
    if (dbl) { double *p = (double *)PyArray_DATA(a); for (npy_intp i = 0; i < n; i++) p[i] = NAN; }
    else { float *p = (float *)PyArray_DATA(a); for (npy_intp i = 0; i < n; i++) p[i] = NAN; }
}

/* Cholesky factor of a (one triangle read), C-ordered: loops for a small double matrix
   (c/small.h), else a copy and potrf. */
static PyArrayObject *ogla_cholesky(PyArrayObject *a, int typenum, int lower, int nan_on_error,
                                    int check_finite, PyArrayObject *prev) {
    int dbl = typenum == NPY_DOUBLE, info = 0;
    if (ogla_square(a, "cholesky", "a") < 0) return NULL;
    int n = (int)PyArray_DIMS(a)[0];
    PyArrayObject *out;
    if (dbl && ogla_small_ok(a)) {
        if (check_finite && !ogla_finite_2d(PyArray_BYTES(a), PyArray_STRIDES(a)[0],
                                            PyArray_STRIDES(a)[1], n, n)) {
            PyErr_SetString(PyExc_ValueError, "array must not contain infs or NaNs");
            return NULL;
        }
        PyArray_Descr *dd = PyArray_DescrFromType(NPY_DOUBLE);
        out = ogla_reuse(prev, 2, PyArray_DIMS(a), dd, 0);
        Py_DECREF(dd);
        if (out == NULL) return NULL;
        info = ogla_cholesky_small(a, out, lower);
    } else {
        ogla_potrf_t potrf = (ogla_potrf_t)ogla_routine("potrf", dbl);
        if (potrf == NULL) return NULL;
        out = ogla_copy(a, typenum, 0);
        if (out == NULL) return NULL;
        if (check_finite && ogla_check_finite(out, dbl) < 0) { Py_DECREF(out); return NULL; }
        if (n == 0) return out;
        /* the C-ordered lower triangle is the upper one of the Fortran view */
        char uplo = lower ? 'U' : 'L';
        potrf(&uplo, &n, PyArray_DATA(out), &n, &info);
        if (info == 0) {
            char *base = (char *)PyArray_DATA(out);
            size_t e = dbl ? sizeof(double) : sizeof(float);
            for (int i = 0; i < n; i++) {  /* zero the triangle LAPACK left alone */
                if (lower) memset(base + ((size_t)i * n + i + 1) * e, 0, (size_t)(n - i - 1) * e);
                else memset(base + (size_t)i * n * e, 0, (size_t)i * e);
            }
        }
    }
    if (info > 0) {
        if (nan_on_error) { ogla_fill_nan(out, dbl); return out; }
        Py_DECREF(out);
        ogla_linalg_error("cholesky: the matrix is not positive definite (%ld-th leading minor "
                          "of the array is not positive definite); pass on_error='nan' to get "
                          "NaNs instead", (long)info);
        return NULL;
    }
    if (info < 0) {
        Py_DECREF(out);
        PyErr_Format(PyExc_RuntimeError, "cholesky: potrf argument %d is invalid", -info);
        return NULL;
    }
    return out;
}

/* The right-hand side as a new Fortran-ordered typenum array (the solution is written there). */
static PyArrayObject *ogla_rhs(PyArrayObject *a, PyArrayObject *b, int typenum, const char *who) {
    if (ogla_rows_match(a, b, who) < 0) return NULL;
    return ogla_copy(b, typenum, 1);
}

/* x with a x = b (trans: a^T x = b), a triangular. */
static PyArrayObject *ogla_solve_triangular(PyArrayObject *a, PyArrayObject *b, int typenum,
                                            int lower, int trans, int unit, int check_finite,
                                            PyArrayObject *prev) {
    int dbl = typenum == NPY_DOUBLE, is_c;
    if (ogla_square(a, "solve_triangular", "a") < 0) return NULL;
    if (dbl && ogla_small_ok(a) && PyArray_NDIM(b) >= 1 && PyArray_NDIM(b) <= 2) {
        if (ogla_rows_match(a, b, "solve_triangular") < 0) return NULL;
        return ogla_solve_triangular_small(a, b, lower, trans, unit, check_finite, prev);
    }
    ogla_trtrs_t trtrs = (ogla_trtrs_t)ogla_routine("trtrs", dbl);
    if (trtrs == NULL) return NULL;
    PyArrayObject *x = ogla_rhs(a, b, typenum, "solve_triangular");
    if (x == NULL) return NULL;
    PyArrayObject *m = ogla_matrix(a, typenum, &is_c);
    if (m == NULL) { Py_DECREF(x); return NULL; }
    if (check_finite && (ogla_check_finite(m, dbl) < 0 || ogla_check_finite(x, dbl) < 0)) {
        Py_DECREF(m); Py_DECREF(x); return NULL;
    }
    int n = (int)PyArray_DIMS(a)[0];
    int nrhs = PyArray_NDIM(x) == 1 ? 1 : (int)PyArray_DIMS(x)[1], info = 0;
    if (n > 0 && nrhs > 0) {
        /* a C-ordered a is a^T in Fortran: the other triangle, the other transpose */
        char uplo = (lower != is_c) ? 'L' : 'U';
        char tr = (trans != 0) != is_c ? 'T' : 'N';
        char diag = unit ? 'U' : 'N';
        trtrs(&uplo, &tr, &diag, &n, &nrhs, PyArray_DATA(m), &n, PyArray_DATA(x), &n, &info);
    }
    Py_DECREF(m);
    if (info > 0) {
        Py_DECREF(x);
        ogla_linalg_error("singular matrix: resolution failed at diagonal %ld", (long)info - 1);
        return NULL;
    }
    return x;
}

/* 1-norm of the matrix LAPACK sees in the Fortran view of C-ordered m (n x n): for a
   symmetric one given by the triangle uplo, that triangle mirrored. */
static double ogla_norm1(PyArrayObject *m, int n, int dbl, char sym_uplo) {
    double best = 0.0;
    for (int j = 0; j < n; j++) {  /* Fortran column j = C row j */
        double s = 0.0;
        for (int i = 0; i < n; i++) {
            int r = i, c = j;  /* Fortran (i, j) */
            if (sym_uplo == 'U' && i > j) { r = j; c = i; }
            if (sym_uplo == 'L' && i < j) { r = j; c = i; }
            size_t k = (size_t)c * n + r;  /* Fortran (r, c) in C-ordered memory */
            s += dbl ? fabs(((double *)PyArray_DATA(m))[k])
                     : fabs((double)((float *)PyArray_DATA(m))[k]);
        }
        if (s > best) best = s;
    }
    return best;
}

static int ogla_warn_condition(double rcond, int dbl) {
    double eps = dbl ? 2.220446049250313e-16 : 1.1920928955078125e-07;
    if (!(rcond < eps)) return 0;
    PyObject *m = PyImport_ImportModule("scipy.linalg");
    PyObject *cls = m ? PyObject_GetAttrString(m, "LinAlgWarning") : NULL;
    Py_XDECREF(m);
    if (cls == NULL) return -1;
    char msg[128];
    snprintf(msg, sizeof msg, "Ill-conditioned matrix (rcond=%g): result may not be accurate.",
             rcond);
    int r = PyErr_WarnEx(cls, msg, 1);
    Py_DECREF(cls);
    return r;
}

/* x with a x = b (transposed: a^T x = b) for a general (pos=0) or positive definite a. */
static PyArrayObject *ogla_solve(PyArrayObject *a, PyArrayObject *b, int typenum, int pos,
                                 int lower, int transposed, int check_finite) {
    int dbl = typenum == NPY_DOUBLE;
    ogla_getrf_t getrf = (ogla_getrf_t)ogla_routine("getrf", dbl);
    ogla_getrs_t getrs = (ogla_getrs_t)ogla_routine("getrs", dbl);
    ogla_gecon_t gecon = (ogla_gecon_t)ogla_routine("gecon", dbl);
    ogla_potrf_t potrf = (ogla_potrf_t)ogla_routine("potrf", dbl);
    ogla_potrs_t potrs = (ogla_potrs_t)ogla_routine("potrs", dbl);
    ogla_gecon_t pocon = (ogla_gecon_t)ogla_routine("pocon", dbl);
    if (!getrf || !getrs || !gecon || !potrf || !potrs || !pocon) return NULL;
    if (ogla_square(a, "solve", "a") < 0) return NULL;
    PyArrayObject *x = ogla_rhs(a, b, typenum, "solve");
    if (x == NULL) return NULL;
    PyArrayObject *m = ogla_copy(a, typenum, 0);  /* a^T in Fortran, overwritten */
    if (m == NULL) { Py_DECREF(x); return NULL; }
    if (check_finite && (ogla_check_finite(m, dbl) < 0 || ogla_check_finite(x, dbl) < 0)) {
        Py_DECREF(m); Py_DECREF(x); return NULL;
    }
    int n = (int)PyArray_DIMS(a)[0];
    int nrhs = PyArray_NDIM(x) == 1 ? 1 : (int)PyArray_DIMS(x)[1], info = 0;
    if (n == 0) { Py_DECREF(m); return x; }
    int *iwork = (int *)malloc(sizeof(int) * (size_t)n * 2);
    double *work = (double *)malloc(sizeof(double) * (size_t)n * 4);
    if (!iwork || !work) { free(iwork); free(work); Py_DECREF(m); Py_DECREF(x);
                           PyErr_NoMemory(); return NULL; }
    double rcond_d = 0.0; float rcond_f = 0.0f, anorm_f;
    char norm = '1';
    if (pos) {
        char uplo = lower ? 'U' : 'L';  /* the C-ordered triangle, seen from Fortran */
        double anorm = ogla_norm1(m, n, dbl, uplo);
        anorm_f = (float)anorm;
        potrf(&uplo, &n, PyArray_DATA(m), &n, &info);
        if (info > 0) {
            free(iwork); free(work); Py_DECREF(m); Py_DECREF(x);
            ogla_linalg_error("solve: the matrix is not positive definite (leading minor %ld)",
                              (long)info);
            return NULL;
        }
        int cinfo = 0;
        pocon(&uplo, &n, PyArray_DATA(m), &n, dbl ? (void *)&anorm : (void *)&anorm_f,
              dbl ? (void *)&rcond_d : (void *)&rcond_f, work, iwork + n, &cinfo);
        if (nrhs > 0) potrs(&uplo, &n, &nrhs, PyArray_DATA(m), &n, PyArray_DATA(x), &n, &info);
    } else {
        double anorm = ogla_norm1(m, n, dbl, 0);
        anorm_f = (float)anorm;
        getrf(&n, &n, PyArray_DATA(m), &n, iwork, &info);
        if (info > 0) {
            free(iwork); free(work); Py_DECREF(m); Py_DECREF(x);
            ogla_linalg_error("Matrix is singular (zero pivot in column %ld).", (long)info);
            return NULL;
        }
        /* m holds the LU of a^T and anorm is a^T's 1-norm (a's infinity norm) */
        int cinfo = 0;
        gecon(&norm, &n, PyArray_DATA(m), &n, dbl ? (void *)&anorm : (void *)&anorm_f,
              dbl ? (void *)&rcond_d : (void *)&rcond_f, work, iwork + n, &cinfo);
        char tr = transposed ? 'N' : 'T';
        if (nrhs > 0)
            getrs(&tr, &n, &nrhs, PyArray_DATA(m), &n, iwork, PyArray_DATA(x), &n, &info);
    }
    free(iwork); free(work); Py_DECREF(m);
    if (ogla_warn_condition(dbl ? rcond_d : (double)rcond_f, dbl) < 0) {
        Py_DECREF(x); return NULL;
    }
    return x;
}

/* x with (c c^T) x = b (lower) or (c^T c) x = b from a Cholesky factor c. */
static PyArrayObject *ogla_cho_solve(PyArrayObject *c, PyArrayObject *b, int typenum, int lower,
                                     int check_finite) {
    int dbl = typenum == NPY_DOUBLE, is_c;
    ogla_potrs_t potrs = (ogla_potrs_t)ogla_routine("potrs", dbl);
    if (potrs == NULL) return NULL;
    if (ogla_square(c, "cho_solve", "a") < 0) return NULL;
    PyArrayObject *x = ogla_rhs(c, b, typenum, "cho_solve");
    if (x == NULL) return NULL;
    PyArrayObject *m = ogla_matrix(c, typenum, &is_c);
    if (m == NULL) { Py_DECREF(x); return NULL; }
    if (check_finite && (ogla_check_finite(m, dbl) < 0 || ogla_check_finite(x, dbl) < 0)) {
        Py_DECREF(m); Py_DECREF(x); return NULL;
    }
    int n = (int)PyArray_DIMS(c)[0];
    int nrhs = PyArray_NDIM(x) == 1 ? 1 : (int)PyArray_DIMS(x)[1], info = 0;
    /* L L^T = U^T U with U = L^T: a C-ordered factor is the other triangle in Fortran */
    char uplo = (lower != is_c) ? 'L' : 'U';
    if (n > 0 && nrhs > 0)
        potrs(&uplo, &n, &nrhs, PyArray_DATA(m), &n, PyArray_DATA(x), &n, &info);
    Py_DECREF(m);
    return x;
}
