"""The bulk reader of sparse ARFF rows gives liac-arff's decoding exactly, or declines."""

import arff as liac
import numpy as np

from camcf.io.arff import _fast_sparse

HEADER = """@relation 'r: -C -2'
@attribute a {0,1}
@attribute b numeric
@attribute c {x,y}
@attribute d {0,1}
@data
"""


def _liac(text):
    d = liac.loads(text, encode_nominal=True, return_type=liac.COO)
    v, r, c = d["data"]
    return d, np.asarray(v, dtype=float), np.asarray(r), np.asarray(c)


def test_bulk_rows_equal_liac_arff():
    text = HEADER + "{0 1,1 2.5,2 y}\n% a comment\n{}\n{1 ?,3 1}\n\n{0 0, 2 x}\n{3 1}\n"
    fast = _fast_sparse(text)
    d, v, r, c = _liac(text)
    assert fast is not None
    fv, fr, fc = fast["data"]
    assert fast["attributes"] == d["attributes"] and fast["relation"] == d["relation"]
    assert np.array_equal(fv, v, equal_nan=True)
    assert np.array_equal(fr, r) and np.array_equal(fc, c)
    assert np.isnan(fv[3]) and fr.tolist() == [0, 0, 0, 2, 2, 3, 3, 4]


def test_bulk_reader_declines_what_liac_arff_must_judge():
    assert _fast_sparse(HEADER + "{0 1,2 z}\n") is None  # undeclared nominal value
    assert _fast_sparse(HEADER + "{7 1}\n") is None  # index beyond the attributes
    assert _fast_sparse(HEADER + "{2 'y'}\n") is None  # quoted value
    assert _fast_sparse(HEADER + "0,1,x,0\n") is None  # a dense row
    assert _fast_sparse(HEADER + "{1 abc}\n") is None  # not a number
