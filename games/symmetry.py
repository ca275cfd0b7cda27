"""The eight symmetries of an 8x8 bitboard (square 8 * rank + file, a1 = 0, h8 = 63) as
kernels: a mirror left to right, a mirror top to bottom and a turn over the a1-h8
diagonal, each a few shifts and masks; their compositions give all eight
(`symmetric_image`)."""

from __future__ import annotations

import numpy as np

from games.kernel import kernel

U1 = np.uint64(1)
U2 = np.uint64(2)
U4 = np.uint64(4)
U7 = np.uint64(7)
U8 = np.uint64(8)
U14 = np.uint64(14)
U16 = np.uint64(16)
U28 = np.uint64(28)
U32 = np.uint64(32)
K1 = np.uint64(0x5555555555555555)
K2 = np.uint64(0x3333333333333333)
K4 = np.uint64(0x0F0F0F0F0F0F0F0F)
R1 = np.uint64(0x00FF00FF00FF00FF)
R2 = np.uint64(0x0000FFFF0000FFFF)
D1 = np.uint64(0x5500550055005500)
D2 = np.uint64(0x3333000033330000)
D4 = np.uint64(0x0F0F0F0F00000000)
#: The number of symmetries.
SYMMETRY_COUNT = 8


@kernel
def mirror_files(b):
    """`b` mirrored left to right (file a to h)."""
    b = ((b >> U1) & K1) | ((b & K1) << U1)
    b = ((b >> U2) & K2) | ((b & K2) << U2)
    return ((b >> U4) & K4) | ((b & K4) << U4)


@kernel
def mirror_rows(b):
    """`b` mirrored top to bottom (row 1 to 8)."""
    b = ((b >> U8) & R1) | ((b & R1) << U8)
    b = ((b >> U16) & R2) | ((b & R2) << U16)
    return (b >> U32) | (b << U32)


@kernel
def transpose(b):
    """`b` turned over its a1-h8 diagonal (square 8r + f to 8f + r)."""
    t = D4 & (b ^ (b << U28))
    b ^= t ^ (t >> U28)
    t = D2 & (b ^ (b << U14))
    b ^= t ^ (t >> U14)
    t = D1 & (b ^ (b << U7))
    return b ^ t ^ (t >> U7)


@kernel(inline=True)
def symmetric_image(b, symmetry):
    """`b` under symmetry 0-7: mirrored left to right if bit 0 is set, then top to
    bottom if bit 1 is, then turned over the a1-h8 diagonal if bit 2 is."""
    if symmetry & 1:
        b = mirror_files(b)
    if symmetry & 2:
        b = mirror_rows(b)
    if symmetry & 4:
        b = transpose(b)
    return b
