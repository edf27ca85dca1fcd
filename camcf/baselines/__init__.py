from .d2f import D2F  # noqa: F401
from .fimf import FIMF  # noqa: F401
from .jfsc import JFSC  # noqa: F401
from .mcls import MCLS  # noqa: F401
from .mdfs import MDFS  # noqa: F401
from .mimcf import MIMCF  # noqa: F401
