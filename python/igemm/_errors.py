"""IgemmError: a failed libigemm call, with the library's one-line message."""


def one_line(text):
    """text with control characters written as the CLI writes them (\\n, \\t,
    \\xNN): a message that echoes a value stays one line."""
    out = []
    for ch in text:
        o = ord(ch)
        out.append("\\n" if ch == "\n" else "\\t" if ch == "\t" else f"\\x{o:02x}" if o < 32 or o == 127 else ch)
    return "".join(out)


class IgemmError(RuntimeError):
    """A libigemm call failed.

    str(e) is the library's one-line message; e.status is the igemm_status
    value and e.status_name its constant's name ("IGEMM_ERR_UNSUPPORTED").
    """

    def __init__(self, status, message):
        from ._lib import status_name
        message = _knobs(one_line(message))
        super().__init__(message)
        self.status = status
        self.status_name = status_name(status)
        self.message = message


# The library names the C caller's knobs (include/igemm.h, IGEMM_KNOB_*);
# a Python caller has keywords.
_KNOBS = (("igemm_options.backend = IGEMM_BACKEND_EMU with igemm_options.arch", "backend='emu', arch=TARGET"),
          ("igemm_options.backend = IGEMM_BACKEND_EMU", "backend='emu'"),
          ("igemm_options.arch", "arch="))


def _knobs(message):
    for c, py in _KNOBS:
        message = message.replace(c, py)
    return message
