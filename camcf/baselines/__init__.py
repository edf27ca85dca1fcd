from .jfsc import JFSC  # noqa: F401
from .mcls import MCLS  # noqa: F401
from .mdfs import MDFS  # noqa: F401
