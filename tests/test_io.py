"""Readers: the shared real data sets, small hand-made files, and every documented error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse
from conftest import require_file

from camcf.dataset import Dataset
from camcf.errors import DataFormatError, LabelSpecError
from camcf.io import (
    load,
    load_arff,
    load_bytes,
    load_csv,
    load_matlab,
    load_train_test,
    parse_mulan_xml,
)

# --------------------------------------------------------------------------- real data sets

# file, reader keywords, n, m, q, label cardinality from the MANIFEST (None: not listed)
REAL = [
    ("flags/flags.arff", {"labels": "last:7"}, 194, 19, 7, 3.392),
    ("virusgo/VirusGO.arff", {}, 207, 749, 6, 1.217),
    ("chd49/CHD_49.arff", {}, 555, 49, 6, 2.580),
    ("chd49/CHD_49.mat", {}, 555, 49, 6, 2.580),
    ("plantgo/PlantGO.arff", {}, 978, 3091, 12, 1.079),
    ("enron/Enron.arff", {}, 1702, 1001, 53, 3.378),
    ("yeast/yeast.arff", {}, 2417, 103, 14, 4.237),
    ("image/image.mat", {}, 600, 294, 5, None),
]


@pytest.mark.parametrize(("name", "kw", "n", "m", "q", "card"), REAL, ids=[r[0] for r in REAL])
def test_real_dataset_shapes_and_cardinality(name, kw, n, m, q, card):
    ds = load(require_file(name), **kw)
    assert ds.X.shape == (n, m)
    assert ds.Y.shape == (n, q)
    assert ds.Y.dtype == np.int8  # 0/1 labels in the smallest signed type
    assert set(np.unique(ds.Y).tolist()) <= {0, 1}
    if card is not None:
        assert round(ds.label_cardinality, 3) == pytest.approx(card, abs=1e-9)
    assert Path(name).name in ds.source
    assert ds.meta["labels_from"]


def test_labels_found_by_meka_and_xml():
    v = load(require_file("virusgo/VirusGO.arff"))
    assert v.meta == v.meta | {"format": "arff-sparse", "labels_from": "meka -C -6"}
    assert v.label_names == [f"Label{i}" for i in range(1, 7)]
    y = load(require_file("yeast/yeast.arff"))
    assert y.meta["format"] == "arff-dense"
    assert y.meta["labels_from"] == "mulan xml yeast.xml"
    # file order, not the XML's order (the XML lists Class6 before Class4)
    assert y.label_names == [f"Class{i}" for i in range(1, 15)]


def test_flags_arff_needs_a_label_spec():
    with pytest.raises(LabelSpecError, match="label columns are unknown.*last:K"):
        load(require_file("flags/flags.arff"))


def test_flags_arff_nominal_features_are_codes():
    ds = load(require_file("flags/flags.arff"), labels="last:7")
    assert ds.feature_names[0] == "landmass"
    assert ds.meta["nominal_features"]["landmass"] == ["1", "2", "3", "4", "5", "6"]
    assert ds.X[0, 0] == 4.0  # first row has landmass 5, the fifth declared value
    assert ds.X[0, 2] == 648.0  # numeric area stays as it is
    assert ds.label_names == ["red", "green", "blue", "yellow", "white", "black", "orange"]


def test_sparse_files_load_whole():
    # their load time is measured by benchmarks, not asserted here (no timed tests)
    for name, shape in (("plantgo/PlantGO.arff", (978, 3091)), ("enron/Enron.arff", (1702, 1001))):
        ds = load(require_file(name))
        assert ds.X.shape == shape, name
        assert ds.X.sum() > 0, name


def test_chd49_mat_and_arff_agree():
    a = load(require_file("chd49/CHD_49.arff"))
    b = load(require_file("chd49/CHD_49.mat"))
    np.testing.assert_array_equal(a.Y, b.Y)
    np.testing.assert_array_equal(a.X, b.X)
    assert "-1/+1 labels read as 0/1" in b.meta["notes"]


def test_flags_mat_train_test():
    tr, te = load_train_test(
        require_file("flags/Flags-train.mat"), require_file("flags/Flags-test.mat"),
        labels="last:7",
    )
    assert tr.X.shape == (132, 19) and te.X.shape == (62, 19)
    assert tr.n_labels == te.n_labels == 7
    assert tr.n_samples + te.n_samples == 194
    assert set(np.unique(tr.X).tolist()) <= {0.0, 1.0, 2.0}


def test_flags_mat_needs_last_k():
    with pytest.raises(LabelSpecError, match=r"train.*last:K"):
        load(require_file("flags/Flags-train.mat"))


def test_yeast_train_test():
    tr, te = load_train_test(
        require_file("yeast/yeast-train.arff"), require_file("yeast/yeast-test.arff"),
        xml=require_file("yeast/yeast.xml"),
    )
    assert tr.X.shape == (1500, 103) and tr.Y.shape == (1500, 14)
    assert te.X.shape == (917, 103) and te.Y.shape == (917, 14)


# --------------------------------------------------------------------------- small files


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


DENSE_NOMINAL = """% a comment
@relation toy
@attribute a numeric
@attribute colour {red, green, blue}
@attribute L1 {0,1}
@attribute L2 {no,yes}
@attribute L3 {1,0}
@attribute L4 {-1,1}
@data
1.5,green,1,yes,0,1
?,blue,0,no,1,-1
-2,red,1,no,1,-1
"""


def test_dense_arff_with_nominal_labels(tmp_path):
    ds = load(write(tmp_path, "toy.arff", DENSE_NOMINAL), labels=["L1", "L2", "L3", "L4"])
    np.testing.assert_array_equal(ds.X, [[1.5, 1.0], [np.nan, 2.0], [-2.0, 0.0]])
    np.testing.assert_array_equal(ds.Y, [[1, 1, 0, 1], [0, 0, 1, 0], [1, 0, 1, 0]])
    assert ds.feature_names == ["a", "colour"]
    assert ds.category_names[1] == {0: "no", 1: "yes"}
    assert ds.category_names[2] == {0: "0", 1: "1"}  # {1,0} read by value, not by position
    assert ds.meta["n_missing"] == 1
    assert ds.meta["labels_from"] == "user names"


def test_comma_separated_label_names_and_first_k(tmp_path):
    p = write(tmp_path, "toy.arff", DENSE_NOMINAL)
    a = load(p, labels="L1, L2,L3,L4")
    b = load(p, labels="last:4")
    np.testing.assert_array_equal(a.Y, b.Y)



def test_integer_multiclass_label_kept_and_negative_mapped(tmp_path):
    p = write(tmp_path, "x.arff", XML_ARFF)
    c = load(p, labels="first:1")  # numeric column a = 1, 3, 5: codes kept as they are
    assert c.label_names == ["a"]
    np.testing.assert_array_equal(c.Y[:, 0], [1, 3, 5])
    assert c.category_names[0] == {1: "1", 3: "3", 5: "5"}
    q = write(tmp_path, "t.csv", "f,y\n1,-3\n2,0.5\n3,-3\n")
    d = load(q, labels="last:1")  # not non-negative integers: mapped in ascending order
    np.testing.assert_array_equal(d.Y[:, 0], [0, 1, 0])
    assert d.category_names[0] == {0: "-3", 1: "0.5"}


def test_label_codes_take_the_smallest_type_and_widen_when_needed(tmp_path):
    # a 0/1 label, one with codes up to 300 (int16) and a sparse ARFF's text-free labels
    rows = "\n".join(f"{i},{i % 2},{i * 3}" for i in range(101))
    ds = load(write(tmp_path, "w.csv", "f,a,b\n" + rows + "\n"), labels="last:2")
    assert ds.Y.dtype == np.int16 and ds.Y.flags.f_contiguous
    np.testing.assert_array_equal(ds.Y[:, 0], np.arange(101) % 2)
    np.testing.assert_array_equal(ds.Y[:, 1], np.arange(101) * 3)
    sparse = "@relation s\n@attribute f {0,1}\n@attribute a {0,1}\n@attribute b numeric\n@data\n"
    sparse += "".join(f"{{0 1,1 1,2 {200 + i}}}\n" for i in range(3)) + "{}\n"
    s = load(write(tmp_path, "s.arff", sparse), labels="last:2")
    assert s.Y.dtype == np.int16
    np.testing.assert_array_equal(s.Y, [[1, 200], [1, 201], [1, 202], [0, 0]])
    # a Dataset built by hand: float or int64 codes are narrowed, a bool label becomes int8
    d = Dataset(X=np.zeros((3, 1)), Y=np.array([[0.0, 70000], [1.9, 2], [1, 3]]),
                feature_names=["f"], label_names=["a", "b"])
    assert d.Y.dtype == np.int32 and d.Y.tolist() == [[0, 70000], [1, 2], [1, 3]]
    assert Dataset(X=np.zeros((2, 1)), Y=np.array([[True], [False]]), feature_names=["f"],
                   label_names=["a"]).Y.dtype == np.int8


def test_multiclass_nominal_label_keeps_names(tmp_path):
    text = """@relation mc
@attribute f numeric
@attribute kind {cat, dog, bird}
@data
1,bird
2,cat
3,dog
4,bird
"""
    ds = load(write(tmp_path, "mc.arff", text), labels="last:1")
    np.testing.assert_array_equal(ds.Y[:, 0], [2, 0, 1, 2])
    assert ds.category_names[0] == {0: "cat", 1: "dog", 2: "bird"}


SPARSE = """@relation 'toy: -C -2 -split 10'
@attribute f1 numeric
@attribute f2 numeric
@attribute f3 numeric
@attribute y1 {0,1}
@attribute y2 {0,1}
@data
{0 2.5,3 1}
{}
{1 1,2 4,4 1}
{}
"""


def test_sparse_arff_meka_last(tmp_path):
    ds = load(write(tmp_path, "sp.arff", SPARSE))
    np.testing.assert_array_equal(ds.X, [[2.5, 0, 0], [0, 0, 0], [0, 1, 4], [0, 0, 0]])
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 0], [0, 1], [0, 0]])
    assert ds.meta["format"] == "arff-sparse"
    assert ds.meta["labels_from"] == "meka -C -2"
    assert ds.label_names == ["y1", "y2"]


def test_dense_arff_meka_first(tmp_path):
    text = """@relation 'two: -C 2'
@attribute y1 {0,1}
@attribute y2 numeric
@attribute f1 numeric
@attribute f2 numeric
@data
1,0,0.5,3
0,1,1.5,4
"""
    ds = load(write(tmp_path, "two.arff", text))
    assert ds.label_names == ["y1", "y2"]
    assert ds.feature_names == ["f1", "f2"]
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 1]])
    np.testing.assert_array_equal(ds.X, [[0.5, 3], [1.5, 4]])
    assert ds.meta["labels_from"] == "meka -C 2"


XML = """<?xml version="1.0" encoding="utf-8"?>
<labels xmlns="http://mulan.sourceforge.net/labels">
<label name="lab2"></label>
<label name="lab1"> </label>
</labels>
"""

XML_ARFF = """@relation x
@attribute a numeric
@attribute lab1 {0,1}
@attribute b numeric
@attribute lab2 {0,1}
@data
1,1,2,0
3,0,4,1
5,1,6,1
"""


def test_mulan_xml_explicit_and_next_to_file(tmp_path):
    data = write(tmp_path, "x.arff", XML_ARFF)
    other = write(tmp_path, "other.xml", XML)
    ds = load(data, xml=other)
    assert ds.label_names == ["lab1", "lab2"]
    assert ds.feature_names == ["a", "b"]
    np.testing.assert_array_equal(ds.X, [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 1], [1, 1]])
    assert ds.meta["labels_from"] == "mulan xml other.xml"
    write(tmp_path, "x.xml", XML)  # a sibling with the same stem is found by itself
    ds2 = load(data)
    np.testing.assert_array_equal(ds2.Y, ds.Y)
    assert ds2.meta["xml_found_next_to_file"] is True


def test_parse_mulan_xml_nested_and_without_namespace():
    text = '<labels><label name="a"><label name="a.1"/></label><label name="b"/></labels>'
    assert parse_mulan_xml(text) == ["a", "a.1", "b"]


def test_xml_naming_missing_labels(tmp_path):
    data = write(tmp_path, "x.arff", XML_ARFF)
    bad = write(tmp_path, "bad.xml", XML.replace("lab2", "nope").replace("lab1", "ghost"))
    with pytest.raises(LabelSpecError, match=r"ghost.*nope|nope.*ghost"):
        load(data, xml=bad)


def test_bad_xml(tmp_path):
    data = write(tmp_path, "x.arff", XML_ARFF)
    with pytest.raises(DataFormatError, match="not XML"):
        load(data, xml=write(tmp_path, "b.xml", "<labels><label name='a'>"))
    with pytest.raises(DataFormatError, match="no <label"):
        load(data, xml=write(tmp_path, "c.xml", "<root><item/></root>"))


CSV = """f1,colour,f2,tag,y
1.0,red,3,b,0
2.0,blue,,a,1
3.5,red,5,b,1
"""


def test_csv_last_k_and_names(tmp_path):
    p = write(tmp_path, "t.csv", CSV)
    ds = load(p, labels="last:2")
    assert ds.feature_names == ["f1", "colour", "f2"]
    assert ds.label_names == ["tag", "y"]
    np.testing.assert_array_equal(ds.X, [[1.0, 1, 3], [2.0, 0, np.nan], [3.5, 1, 5]])
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 1], [1, 1]])
    assert ds.category_names[0] == {0: "a", 1: "b"}
    assert ds.meta["encoded_features"] == {"colour": ["blue", "red"]}
    named = load_csv(p, labels=["y", "tag"])
    np.testing.assert_array_equal(named.Y, ds.Y)  # file order
    assert named.meta["labels_from"] == "user names"


def test_tsv_and_whitespace_txt(tmp_path):
    tsv = write(tmp_path, "t.tsv", "a\tb\ty\n1\t2\t0\n3\t4\t1\n")
    txt = write(tmp_path, "t.txt", "a b y\n1 2 0\n3 4 1\n")
    for p in (tsv, txt):
        ds = load(p, labels=["y"])
        np.testing.assert_array_equal(ds.X, [[1, 2], [3, 4]])
        np.testing.assert_array_equal(ds.Y, [[0], [1]])


def test_csv_train_test_aligns_text_codes(tmp_path):
    tr = write(tmp_path, "tr.csv", "f,c,y\n1,x,cat\n2,z,dog\n3,x,cat\n")
    te = write(tmp_path, "te.csv", "f,c,y\n1,z,dog\n2,y,dog\n3,z,emu\n")
    a, b = load_train_test(tr, te, labels="last:1")
    assert a.category_names[0] == {0: "cat", 1: "dog"}
    np.testing.assert_array_equal(b.Y[:, 0], [1, 1, 2])
    assert b.category_names[0] == {0: "cat", 1: "dog", 2: "emu"}
    np.testing.assert_array_equal(b.X[:, 1], [1, 2, 1])  # train: x=0, z=1; y is new → 2


def test_mat_labels_by_samples_plus_minus(tmp_path):
    X = np.arange(12, dtype=float).reshape(4, 3)
    Y = np.array([[1, -1, -1, 1], [-1, -1, 1, 1]])  # 2 labels × 4 samples
    p = tmp_path / "t.mat"
    scipy.io.savemat(p, {"X": X, "Y": Y, "indices": np.arange(4), "foldnum": 1})
    ds = load(p)
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 0], [0, 1], [1, 1]])
    assert "transposed" in ds.source


def test_mat_sparse_and_features_labels(tmp_path):
    X = scipy.sparse.csc_matrix(np.array([[0, 1.0], [2.0, 0], [0, 0]]))
    L = scipy.sparse.csc_matrix(np.array([[1, 0], [0, 0], [1, 1]], dtype=float))
    p = tmp_path / "s.mat"
    scipy.io.savemat(p, {"features": X, "labels": L})
    ds = load_matlab(p)
    np.testing.assert_array_equal(ds.X, [[0, 1], [2, 0], [0, 0]])
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 0], [1, 1]])


def test_mat_combined_matrix_first_k(tmp_path):
    p = tmp_path / "c.mat"
    scipy.io.savemat(p, {"train": np.array([[1, 0, 5, 6], [0, 1, 7, 8]], dtype=float)})
    ds = load(p, labels="first:2")
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 1]])
    np.testing.assert_array_equal(ds.X, [[5, 6], [7, 8]])


def test_load_bytes(tmp_path):
    ds = load_bytes(XML_ARFF.encode(), "upload.arff", xml_bytes=XML.encode())
    assert ds.label_names == ["lab1", "lab2"]
    assert ds.source.startswith("upload.arff") and "listed in labels.xml" in ds.source
    # the uploaded XML's own name is what the source names (it said uploaded-labels.xml)
    ds = load_bytes(XML_ARFF.encode(), "upload.arff", xml_bytes=XML.encode(),
                    xml_filename="../my yeast.xml")
    assert ds.label_names == ["lab1", "lab2"] and "listed in my_yeast.xml" in ds.source
    csv = load_bytes(CSV.encode(), "../../evil name.csv", labels="last:2")
    assert csv.n_labels == 2 and csv.source.startswith("evil name.csv")
    with pytest.raises(LabelSpecError, match="unknown"):
        load_bytes(XML_ARFF.encode(), "x.arff")


# --------------------------------------------------------------------------- errors


def test_missing_label_spec(tmp_path):
    with pytest.raises(LabelSpecError, match="label columns are unknown.*last:K"):
        load(write(tmp_path, "x.arff", XML_ARFF))
    with pytest.raises(LabelSpecError, match="label columns are unknown"):
        load(write(tmp_path, "t.csv", CSV))


def test_unknown_label_name(tmp_path):
    with pytest.raises(LabelSpecError, match="zzz"):
        load(write(tmp_path, "x.arff", XML_ARFF), labels=["lab1", "zzz"])
    with pytest.raises(LabelSpecError, match="zzz"):
        load(write(tmp_path, "t.csv", CSV), labels="zzz")


@pytest.mark.parametrize("spec", ["last:4", "last:9", "first:0", "last:-1", "last:two"])
def test_bad_last_k(tmp_path, spec):
    with pytest.raises(LabelSpecError):
        load(write(tmp_path, "x.arff", XML_ARFF), labels=spec)


def test_every_column_a_label(tmp_path):
    with pytest.raises(LabelSpecError, match="feature"):
        load(write(tmp_path, "x.arff", XML_ARFF), labels=["a", "lab1", "b", "lab2"])


def test_labels_not_allowed_with_target_variable(tmp_path):
    p = tmp_path / "d.mat"
    scipy.io.savemat(p, {"data": np.ones((3, 2)), "target": np.array([[0], [1], [1]])})
    with pytest.raises(LabelSpecError, match="target"):
        load(p, labels="last:1")


@pytest.mark.parametrize("ext", [".arff", ".csv", ".mat", ".tsv"])
def test_empty_file(tmp_path, ext):
    p = tmp_path / f"empty{ext}"
    p.write_bytes(b"")
    with pytest.raises(DataFormatError, match="empty"):
        load(p, labels="last:1")


@pytest.mark.parametrize("ext", [".arff", ".csv", ".mat"])
def test_binary_garbage(tmp_path, ext):
    p = tmp_path / f"junk{ext}"
    p.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(DataFormatError, match=f"junk{ext}"):
        load(p, labels="last:1")


def test_text_garbage_arff(tmp_path):
    with pytest.raises(DataFormatError, match="no ARFF header"):
        load(write(tmp_path, "g.arff", "hello world\nthis is not arff\n"), labels="last:1")


def test_truncated_arff(tmp_path):
    header_only = DENSE_NOMINAL.split("@data")[0]
    with pytest.raises(DataFormatError, match="truncated"):
        load(write(tmp_path, "h.arff", header_only), labels="last:1")
    cut = DENSE_NOMINAL[: DENSE_NOMINAL.rindex(",1,-1")]
    with pytest.raises(DataFormatError, match="c.arff"):
        load(write(tmp_path, "c.arff", cut), labels="last:1")
    with pytest.raises(DataFormatError, match="no rows"):
        load(write(tmp_path, "n.arff", header_only + "@data\n"), labels="last:1")
    with pytest.raises(DataFormatError):
        load(write(tmp_path, "s.arff", SPARSE.replace("{1 1,2 4,4 1}", "{1 1,2")))


def test_string_feature_rejected(tmp_path):
    text = "@relation s\n@attribute name string\n@attribute y {0,1}\n@data\nabc,1\n'd e',0\n"
    with pytest.raises(DataFormatError, match="string"):
        load(write(tmp_path, "s.arff", text), labels="last:1")


def test_missing_label_value(tmp_path):
    text = "@relation s\n@attribute f numeric\n@attribute y {0,1}\n@data\n1,?\n2,1\n"
    with pytest.raises(DataFormatError, match="missing values in label"):
        load(write(tmp_path, "m.arff", text), labels="last:1")


def test_mat_without_usable_variables(tmp_path):
    p = tmp_path / "v.mat"
    scipy.io.savemat(p, {"indices": np.arange(5), "foldnum": 3})
    with pytest.raises(DataFormatError, match=r"variables found: .*indices"):
        load(p)
    q = tmp_path / "w.mat"
    scipy.io.savemat(q, {"data": np.ones((4, 2)), "target": np.ones((3, 2))})
    with pytest.raises(DataFormatError, match="neither dimension"):
        load(q)


def test_unknown_extension_and_missing_file(tmp_path):
    with pytest.raises(DataFormatError, match="unknown file type"):
        load(write(tmp_path, "x.json", "{}"))
    with pytest.raises(DataFormatError, match="not found"):
        load_arff(tmp_path / "nope.arff")


def test_csv_header_only(tmp_path):
    with pytest.raises(DataFormatError, match="no data rows"):
        load(write(tmp_path, "h.csv", "a,b,y\n"), labels="last:1")


def test_train_test_column_mismatch(tmp_path):
    a = write(tmp_path, "a.csv", "f,g,y\n1,2,0\n")
    b = write(tmp_path, "b.csv", "f,h,y\n1,2,1\n")
    with pytest.raises(DataFormatError, match="'g' vs 'h'"):
        load_train_test(a, b, labels="last:1")


# ------------------------------------------------ CSV of plain numbers: read without pandas


def _both_ways(path: Path, monkeypatch, **kw) -> tuple[Dataset, Dataset]:
    """The file read as the reader does (plain numbers: numpy alone) and with the plain
    reading switched off (pandas reads every table)."""
    import camcf.io.csv as csv_reader

    plain = load_csv(path, **kw)
    with monkeypatch.context() as m:
        m.setattr(csv_reader, "plain_numbers", lambda *a: None)
        other = load_csv(path, **kw)
    return plain, other


def _same(a: Dataset, b: Dataset) -> None:
    np.testing.assert_array_equal(a.X, b.X)
    assert a.X.dtype == b.X.dtype and a.X.flags.c_contiguous == b.X.flags.c_contiguous
    np.testing.assert_array_equal(a.Y, b.Y)
    assert a.Y.dtype == b.Y.dtype
    assert (a.feature_names, a.label_names, a.source, a.category_names, a.meta) == (
        b.feature_names, b.label_names, b.source, b.category_names, b.meta)


def _decimal_tokens(rng, n: int) -> list[str]:
    """Decimal numbers of 1 to 15 characters: integers, signs, leading and trailing points."""
    out = []
    for _ in range(n):
        digits = "".join(rng.choice(list("0123456789"), size=int(rng.integers(1, 14))))
        point = int(rng.integers(0, len(digits) + 1))
        tok = digits[:point] + "." + digits[point:] if rng.random() < 0.7 else digits
        out.append(("-" if rng.random() < 0.3 else "") + tok)
    return out


@pytest.mark.parametrize("sep", [",", "\t", ";"])
def test_a_table_of_plain_numbers_reads_as_pandas_reads_it(tmp_path, monkeypatch, sep):
    """Integers, decimals of up to 15 characters (every double equal to pandas' parse, bit for
    bit), −1/+1 and 0/1/2 labels, "-0": the same Dataset with and without pandas."""
    rng = np.random.default_rng(7)
    n = 300
    cols = {"bin": [str(v) for v in rng.integers(0, 2, n)],
            "neg": [str(v) for v in rng.integers(-40, 40, n)],
            "dec": _decimal_tokens(rng, n), "dec2": _decimal_tokens(rng, n),
            "zero": ["-0" if i % 2 else "0" for i in range(n)],
            "y1": [str(v) for v in rng.choice([-1, 1], n)],
            "y2": [str(v) for v in rng.integers(0, 3, n)]}
    text = sep.join(cols) + "\n" + "\n".join(sep.join(c[i] for c in cols.values())
                                             for i in range(n)) + "\n"
    path = tmp_path / "t.csv"
    path.write_text(text)
    plain, other = _both_ways(path, monkeypatch, labels="y1,y2")
    _same(plain, other)
    assert plain.meta["notes"]  # −1/+1 read as 0/1: the note is kept on the plain path
    import camcf.io.csv as csv_reader

    table, *_ = csv_reader.read_table(text, "t.csv")
    assert isinstance(table, np.ndarray)  # the plain path was taken
    monkeypatch.setattr(csv_reader, "_PLAIN_CELLS", n * len(cols) - 1)
    table, *_ = csv_reader.read_table(text, "t.csv")
    assert not isinstance(table, np.ndarray)  # a larger table goes to pandas


@pytest.mark.parametrize("cell", ["", "NaN", "1e3", "12345678901234567", "a", " 1", "1.2.3",
                                  '"1"', "inf"])
def test_other_cells_are_read_by_pandas_as_before(tmp_path, monkeypatch, cell):
    """One cell that is not a short plain number (empty, a word, an exponent, 17 digits, a
    space, quotes): the table goes to pandas, and the result is the one pandas gives."""
    import camcf.io.csv as csv_reader

    rows = [f"{i % 2},{(i // 2) % 2},{i % 3 == 0:d}" for i in range(40)]
    rows[5] = f"{cell},1,0"
    text = "a,b,y\n" + "\n".join(rows) + "\n"
    path = tmp_path / "t.csv"
    path.write_text(text)
    table, *_ = csv_reader.read_table(text, "t.csv")
    assert not isinstance(table, np.ndarray)
    plain, other = _both_ways(path, monkeypatch, labels="y")
    _same(plain, other)


def test_a_ragged_plain_table_is_refused_by_the_same_message(tmp_path, monkeypatch):
    """A row with one value more than the header: the plain path does not read it, pandas
    refuses it and names the line."""
    path = tmp_path / "t.csv"
    path.write_text("a,b,y\n1,0,1\n0,1,0,1\n1,1,1\n")
    with pytest.raises(DataFormatError, match="could not be parsed .*line 3, saw 4"):
        load_csv(path, labels="y")
