#!/usr/bin/python3
"""Data through a ULP's block device equals its target's backing store.

usage: blkverify.py DEV BACKING [--backing-direct]

Writes random data through DEV at random 4 KiB-aligned offsets, each of
the sizes 4 KiB to 1 MiB in one O_DIRECT write, reads it back through DEV
(one O_DIRECT read) and from BACKING (the target's file or disk; with
--backing-direct by O_DIRECT, so a disk's own integrity check runs); then
puts random data in BACKING at random offsets (4 KiB, 64 KiB, 1 MiB) and
reads it through DEV. One process for all of it: under TCG each program
started costs a few hundred milliseconds.
"""
import mmap
import os
import random
import sys

SIZES = (4096, 8192, 65536, 131072, 524288, 1048576)
BACK_SIZES = (4096, 65536, 1048576)
BLOCK = 4096


def fail(msg):
    print(f"blkverify: {msg}", file=sys.stderr)
    sys.exit(1)


def buf(size, data=None):
    """A page-aligned buffer (O_DIRECT), with data when given."""
    b = mmap.mmap(-1, size)
    if data is not None:
        b[:] = data
    return b


def write(fd, data, off, what):
    b = buf(len(data), data)
    try:
        n = os.pwritev(fd, [b], off)
    except OSError as e:
        fail(f"write of {len(data)} B at {off} to {what}: {e}")
    if n != len(data):
        fail(f"write of {len(data)} B at {off} to {what}: {n} B written")


def read(fd, size, off, what):
    b = buf(size)
    try:
        n = os.preadv(fd, [b], off)
    except OSError as e:
        fail(f"read of {size} B at {off} from {what}: {e}")
    if n != size:
        fail(f"read of {size} B at {off} from {what}: {n} B read")
    return bytes(b)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        fail(__doc__.split("\n")[2])
    dev, backing = args
    bdirect = os.O_DIRECT if "--backing-direct" in sys.argv else 0

    dfd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    bfd = os.open(backing, os.O_RDWR | bdirect)
    span = os.lseek(dfd, 0, os.SEEK_END) // BLOCK

    def offset(size):
        return random.randrange(span - size // BLOCK) * BLOCK

    for size in SIZES:
        off = offset(size)
        data = os.urandom(size)
        write(dfd, data, off, dev)
        if read(dfd, size, off, dev) != data:
            fail(f"{dev}: {size} B at {off} read back differ")
        if read(bfd, size, off, backing) != data:
            fail(f"{backing}: {size} B at {off} differ from what {dev} wrote")
    for size in BACK_SIZES:
        off = offset(size)
        data = os.urandom(size)
        write(bfd, data, off, backing)
        if not bdirect:
            os.fsync(bfd)
        if read(dfd, size, off, dev) != data:
            fail(f"{dev}: {size} B at {off} differ from what {backing} holds")
    os.close(bfd)
    os.close(dfd)


if __name__ == "__main__":
    main()
