"""Validation of spec data, with errors that say what is wrong."""


class SpecError(ValueError):
    """A spec value that cannot describe a cipher (not a bijection, out of range...)."""


def check_bijection(table, bits, what):
    """Raise SpecError unless `table` is a permutation of range(2**bits)."""
    size = 1 << bits
    if len(table) != size:
        raise SpecError(f"{what}: expected {size} entries, got {len(table)}")
    seen = {}
    for index, value in enumerate(table):
        if not 0 <= value < size:
            raise SpecError(f"{what}: entry {index} = {value} is out of range 0..{size - 1}")
        if value in seen:
            raise SpecError(
                f"{what}: not a bijection, entries {seen[value]} and {index} both map to {value:#x}"
            )
        seen[value] = index
    return tuple(table)


def check_rotation(amount, width, what):
    """Raise SpecError unless 0 < amount < width."""
    if not 0 < amount < width:
        raise SpecError(f"{what}: rotation by {amount} is out of range 1..{width - 1}")
    return amount


def check_irreducible(poly, degree, what):
    """Raise SpecError unless `poly` (bit i = coefficient of x^i) is irreducible of `degree`."""
    if poly >> degree != 1:
        raise SpecError(f"{what}: {poly:#x} is not a polynomial of degree {degree}")
    for divisor in range(2, 1 << (degree // 2 + 1)):
        if divisor.bit_length() - 1 <= degree // 2 and _poly_mod(poly, divisor) == 0:
            raise SpecError(f"{what}: {poly:#x} is reducible (divisible by {divisor:#x})")
    return poly


def _poly_mod(a, b):
    """Remainder of a by b as GF(2)[x] polynomials."""
    db = b.bit_length()
    while a.bit_length() >= db:
        a ^= b << (a.bit_length() - db)
    return a
