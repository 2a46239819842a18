#!/usr/bin/env python3
"""Record tests/data/num.txt from the C library's own strtol/strtoul/atoi.

Run on the machine whose glibc is the reference (Debian 12: glibc 2.36):
    python3 crates/spur-grammar/tests/record/num.py > crates/spur-grammar/tests/data/num.txt
"""
import ctypes, ctypes.util, platform

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
libc.strtol.restype = ctypes.c_long
libc.strtol.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int]
libc.strtoul.restype = ctypes.c_ulong
libc.strtoul.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int]
libc.atoi.restype = ctypes.c_int
libc.atoi.argtypes = [ctypes.c_char_p]
libc.gnu_get_libc_version.restype = ctypes.c_char_p

INPUTS = [
    "0", "1", "-1", "+1", "42", "  42", "\t\n\v\f\r 7", "42abc", "abc", "", " ", "-", "+", "- 1", "+-1",
    "--1", "0x1f", "0X1F", "0x", "0xg", "0x1g", "-0x10", "010", "08", "0b11", "1e3", "1.5", "1_000",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "18446744073709551615", "18446744073709551616", "99999999999999999999999", "-99999999999999999999999",
    "4294967295", "4294967296", "4294967297", "2147483647", "2147483648", "-2147483649", "00000000000000000000001",
    "0xffffffffffffffff", "0x10000000000000000", "ffff", "zz", "Z", "12 34", "1\u00e9", "\u00e91", "\u00a01",
    "7fffffffffffffff", "-0", "000", "0x0", "  -0x7FFFFFFFFFFFFFFF",
]
BASES = [10, 0, 16, 8, 2, 36, 1, 37]

def esc(s):
    out = []
    for ch in s:
        if ch == "\\": out.append("\\\\")
        elif ch == '"': out.append('\\"')
        elif ch == "\t": out.append("\\t")
        elif ch == "\n": out.append("\\n")
        elif ch == "\r": out.append("\\r")
        elif ch == "\v": out.append("\\x0b")
        elif ch == "\f": out.append("\\x0c")
        elif ord(ch) > 126: out.append("\\u{%x}" % ord(ch))
        else: out.append(ch)
    return '"' + "".join(out) + '"'

def call(fn, s, base):
    b = s.encode()
    buf = ctypes.create_string_buffer(b)
    end = ctypes.c_char_p()
    ctypes.set_errno(0)
    v = fn(ctypes.cast(buf, ctypes.c_char_p), ctypes.byref(end), base)
    err = ctypes.get_errno()
    off = (ctypes.cast(end, ctypes.c_void_p).value or 0) - ctypes.addressof(buf)
    if err == 22:  # bad base: glibc leaves endptr unset; nothing was converted
        off = 0
    tail = " ERANGE" if err == 34 else (" EINVAL" if err == 22 else "")
    return "%d end=%d%s" % (v, off, tail)

print("# C strtol/strtoul/atoi, recorded from glibc %s (%s) through ctypes by"
      % (libc.gnu_get_libc_version().decode(), platform.platform()))
print("# tests/record/num.py. Line: FUNCTION BASE \"INPUT\" => VALUE end=BYTE [ERANGE|EINVAL]")
print("# (EINVAL for a bad base is glibc's; Spur reports it as nothing converted.)")
for s in INPUTS:
    for base in BASES:
        print("strtol %d %s => %s" % (base, esc(s), call(libc.strtol, s, base)))
    for base in (10, 0, 16):
        print("strtoul %d %s => %s" % (base, esc(s), call(libc.strtoul, s, base)))
    print("atoi 10 %s => %d" % (esc(s), libc.atoi(s.encode())))
