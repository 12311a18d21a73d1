"""IgemmError: a failed libigemm call, with the library's one-line message."""


class IgemmError(RuntimeError):
    """A libigemm call failed.

    str(e) is the library's one-line message; e.status is the igemm_status
    value and e.status_name its constant's name ("IGEMM_ERR_UNSUPPORTED").
    """

    def __init__(self, status, message):
        from ._lib import status_name
        super().__init__(message)
        self.status = status
        self.status_name = status_name(status)
        self.message = message
