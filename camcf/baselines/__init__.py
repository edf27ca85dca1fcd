from .d2f import D2F as D2F
from .fimf import FIMF as FIMF
from .mimcf import MIMCF as MIMCF
